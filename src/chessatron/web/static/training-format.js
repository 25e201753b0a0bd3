// How the training page and the saved-game viewer write a review's marked moves and figures (pure).
import { moveLabel } from "./format.js";

const JUDGED = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };

/** An evaluation with people's minus sign: "−3.1", "#−2". */
export function signed(text) {
  return (text || "").replace("-", "−");
}

/** A position's evaluation in a review as people read it: "+0.3", "#−2" (mated in 2), "checkmate". */
export function evaluationText(text) {
  return text === "#" ? "checkmate" : signed(text);
}

/** A marked move of a review as the lists write it: "5. Qg4?? — Ng3 was best (−3.1)", the evaluation
 * after the move played (a review kept before these fields existed: from its evaluations). */
export function mistakeText(mistake, startFen, evaluations) {
  const number = mistake.number || moveLabel(mistake.ply, startFen).replace("…", "...");
  const after = mistake.eval || ((evaluations || [])[mistake.ply] || {}).text;
  return `${number} ${mistake.san}${mistake.glyph} — ${mistake.best} was best${after ? ` (${signed(after)})` : ""}`;
}

/** A side's figures in a review: {inaccuracies, mistakes, blunders, accuracy (null: not reckoned)}. */
export function sideFigures(review, side) {
  if (review.sides && review.sides[side]) return review.sides[side];
  const counted = { inaccuracies: 0, mistakes: 0, blunders: 0, accuracy: null };
  for (const mistake of review.mistakes) if (mistake.colour === side) counted[JUDGED[mistake.judgement]] += 1;
  return counted;
}

/** A side's figures in words: "1 inaccuracy, 0 mistakes, 1 blunder, accuracy 54 %". */
export function sideText(figures) {
  const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const parts = [
    count(figures.inaccuracies, "inaccuracy", "inaccuracies"),
    count(figures.mistakes, "mistake", "mistakes"),
    count(figures.blunders, "blunder", "blunders"),
  ];
  if (figures.accuracy !== null && figures.accuracy !== undefined) parts.push(`accuracy ${Math.round(figures.accuracy)} %`);
  return parts.join(", ");
}
