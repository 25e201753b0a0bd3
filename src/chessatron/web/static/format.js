// Pure helpers: how times, evaluations and moves are written on the page.

/** A clock reading: h:mm:ss, m:ss, or s.t under ten seconds. */
export function clockText(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) return (Math.floor(clamped / 100) / 10).toFixed(1);
  const total = Math.ceil(clamped / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** The evaluation from White's side as text (+0.35, M3, -M2) and White's share of the bar (0-100). */
export function evaluation(ev) {
  if (!ev || (ev.cp === null && ev.mate === null)) return { text: "–", white: 50 };
  if (ev.mate !== null && ev.mate !== undefined) {
    return { text: ev.mate > 0 ? `M${ev.mate}` : `-M${-ev.mate}`, white: ev.mate > 0 ? 100 : 0 };
  }
  const pawns = ev.cp / 100;
  const text = (pawns > 0 ? "+" : "") + pawns.toFixed(2);
  // Lichess's win-chance curve: a pawn up is about 59 %, four up about 86 %.
  const white = 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * ev.cp)) - 1);
  return { text, white };
}

/** Moves in SAN paired by move number: [[1, "e4", "e5"], ...], respecting a Black first move. */
export function movePairs(san, startFen) {
  const fields = (startFen || "").split(" ");
  let number = parseInt(fields[5], 10) || 1;
  const pairs = [];
  let index = 0;
  if (fields[1] === "b" && san.length) {
    pairs.push([number, "…", san[0]]);
    index = 1;
    number += 1;
  }
  for (; index < san.length; index += 2, number += 1) {
    pairs.push([number, san[index], san[index + 1]]);
  }
  return pairs;
}

export const FILES = "abcdefgh";

/** Square names rank by rank as the player at the bottom sees them. */
export function squaresFrom(orientation) {
  const ranks = orientation === "black" ? [1, 2, 3, 4, 5, 6, 7, 8] : [8, 7, 6, 5, 4, 3, 2, 1];
  const files = orientation === "black" ? [...FILES].reverse() : [...FILES];
  return ranks.flatMap((rank) => files.map((file) => `${file}${rank}`));
}
