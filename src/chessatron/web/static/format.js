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
    if (ev.mate === 0) return { text: "mate", white: 50 }; // given: the game's result says by whom
    return { text: ev.mate > 0 ? `M${ev.mate}` : `-M${-ev.mate}`, white: ev.mate > 0 ? 100 : 0 };
  }
  const pawns = ev.cp / 100;
  const text = (pawns > 0 ? "+" : "") + pawns.toFixed(2);
  // Lichess's win-chance curve: a pawn up is about 59 %, four up about 86 %.
  const white = 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * ev.cp)) - 1);
  return { text, white };
}

/** The evaluation in words for people: who is better and by how much, the engine's depth and the line
 * it expects. */
export function evaluationWords(ev) {
  if (!ev || (ev.cp === null && ev.mate === null)) return "the engine has not judged this position yet";
  let words;
  if (ev.mate !== null && ev.mate !== undefined) {
    const side = ev.mate > 0 ? "White" : "Black";
    words = ev.mate === 0 ? "checkmate" : `${side} mates in ${Math.abs(ev.mate)}`;
  } else {
    const side = ev.cp > 0 ? "White" : "Black";
    const size = Math.abs(ev.cp);
    if (size <= 30) words = "about equal";
    else if (size <= 100) words = `${side} is slightly better`;
    else if (size <= 250) words = `${side} is better`;
    else words = `${side} is winning`;
  }
  if (ev.depth) words += ` (depth ${ev.depth})`;
  if (ev.pv && ev.pv.length) words += `; it expects ${ev.pv.slice(0, 4).join(" ")}`;
  return words;
}

const GANTRY_STATES = {
  Idle: "standing still",
  Run: "moving",
  Hold: "held (paused)",
  Jog: "jogging",
  Home: "homing",
  Alarm: "stopped by an alarm",
  Door: "stopped: the door is open",
  Check: "checking G-code",
  Sleep: "asleep",
};

/** What the robot is doing, from the gantry part of the state: "moving e2e4 (1 of 2)", or "" when it has
 * no work. */
export function robotWork(work) {
  if (!work) return "";
  const [kind, ...rest] = work.title.split(" ");
  let words;
  if (kind === "MOVE") {
    const uci = rest[1] || "";
    words = rest.includes("(resumed)") ? `finishing the move ${uci}` : `making the move ${uci}`;
  } else if (kind === "TAKEBACK") {
    words = rest[0] === "1" ? "taking back a move" : `taking back ${rest[0]} moves`;
  } else if (kind === "SETUP") {
    words = "setting up the game";
  } else if (kind === "RESET") {
    words = "setting the table up";
  } else if (kind === "RESUME") {
    words = "putting the pieces back where the game stopped";
  } else {
    words = work.title.toLowerCase();
  }
  return work.of > 1 ? `${words} (${Math.min(work.index + 1, work.of)} of ${work.of})` : words;
}

/** The gantry's line: where it is and what it does, in words. */
export function gantryText(gantry) {
  // the last report of a run may come just before its end: with the work done, the gantry stands
  const moving = gantry.state === "Run" && !gantry.work;
  const state = moving ? GANTRY_STATES.Idle : GANTRY_STATES[gantry.state] || gantry.state;
  return `The magnet is at X ${gantry.x.toFixed(1)} Y ${gantry.y.toFixed(1)} mm, ${state}.`;
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
