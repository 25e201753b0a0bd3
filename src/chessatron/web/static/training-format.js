// How the training page and the saved-game viewer write a review's marked moves and figures (pure).
import { moveLabel } from "./format.js";
import { number, shownSan, t, tn } from "./i18n.js";

const JUDGED = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };

/** An evaluation with people's minus sign and the language's decimal mark: "−3.1" ("−3,1"), "#−2". */
export function signed(text) {
  const shown = (text || "").replace("-", "−");
  const decimal = /^([+−]?)(\d+)\.(\d+)$/.exec(shown);
  if (!decimal) return shown;
  const places = decimal[3].length;
  const value = number(Number(`${decimal[2]}.${decimal[3]}`), { minimumFractionDigits: places, maximumFractionDigits: places });
  return `${decimal[1]}${value}`;
}

/** A position's evaluation in a review as people read it: "+0.3", "#−2" (mated in 2), "checkmate". */
export function evaluationText(text) {
  return text === "#" ? t("checkmate") : signed(text);
}

/** A marked move of a review as the lists write it: "5. Qg4?? — Ng3 was best (−3.1)", the evaluation
 * after the move played (a review kept before these fields existed: from its evaluations). */
export function mistakeText(mistake, startFen, evaluations) {
  const label = mistake.number || moveLabel(mistake.ply, startFen).replace("…", "...");
  const after = mistake.eval || ((evaluations || [])[mistake.ply] || {}).text;
  const values = { move: `${label} ${shownSan(mistake.san)}${mistake.glyph}`, best: shownSan(mistake.best), evaluation: after ? signed(after) : "" };
  // TRANSLATORS: a marked move of a review: {move} is "5. Qg4??", {best} the better move, {evaluation} "−3.1"
  return after ? t("{move} — {best} was best ({evaluation})", values) : t("{move} — {best} was best", values);
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
  const parts = [
    tn("{count} inaccuracy", "{count} inaccuracies", figures.inaccuracies, { count: figures.inaccuracies }),
    tn("{count} mistake", "{count} mistakes", figures.mistakes, { count: figures.mistakes }),
    tn("{count} blunder", "{count} blunders", figures.blunders, { count: figures.blunders }),
  ];
  if (figures.accuracy !== null && figures.accuracy !== undefined) {
    const share = number(Math.round(figures.accuracy) / 100, { style: "percent" });
    parts.push(t("accuracy {share}", { share }));
  }
  return parts.join(", ");
}
