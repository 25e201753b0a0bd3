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

/** What the robot is doing, from the gantry part of the state and the live game (for the move's SAN, as
 * the terminal says it: chessatron.game.telling.words.work_words): "making White's move 1. e4 (1 of 2)", or ""
 * when it has no work. */
export function robotWork(work, game = null) {
  if (!work) return "";
  const [kind, ...rest] = work.title.split(" ");
  let words;
  const ply = parseInt(rest[0], 10);
  if (kind === "MOVE" && ply > 0) {
    const uci = rest[1] || "";
    const sans = (game && game.san) || [];
    const ucis = (game && game.uci) || [];
    const san = sans.length >= ply && ucis[ply - 1] === uci ? sans[ply - 1] : uci;
    const label = moveLabel(ply, game && game.start_fen);
    const colour = label.endsWith("…") ? "Black" : "White";
    const doing = rest.includes("(resumed)") ? "finishing" : "making";
    words = `${doing} ${colour}'s move ${label} ${san}`;
  } else if (kind === "TAKEBACK") {
    words = rest[0] === "1" ? "taking back a move" : `taking back ${rest[0]} moves`;
  } else if (kind === "SETUP" || kind === "MOVE") {
    words = "setting up the game"; // (a set-up cut short is taken up as the move before the first)
  } else if (kind === "RESET") {
    words = "setting the table up";
  } else if (kind === "RESUME") {
    words = "putting the pieces back where the game stopped";
  } else if (kind === "TIDY") {
    words = "taking captured pieces to their zone";
  } else {
    words = work.title.toLowerCase();
  }
  return work.of > 1 ? `${words} (${Math.min(work.index + 1, work.of)} of ${work.of})` : words;
}

/** The number before the ``ply``-th half-move of a game from ``startFen``: "9." for White's, "9…" for
 * Black's. */
export function moveLabel(ply, startFen) {
  const fields = (startFen || "").split(" ");
  const index = ply - 1 + (fields[1] === "b" ? 1 : 0); // half-moves since White's move of the first number
  const number = (parseInt(fields[5], 10) || 1) + Math.floor(index / 2);
  return `${number}${index % 2 === 0 ? "." : "…"}`;
}

/** How long long robot work has left: "about 2:40" counting down from the work's ``left_s`` (seconds left
 * when it arrived, ``elapsedS`` ago), "almost done" once that has run out, "" for short work. */
export function countdownText(work, elapsedS) {
  if (!work || work.left_s === undefined || work.left_s === null) return "";
  const left = work.left_s - Math.max(elapsedS, 0);
  if (left < 1) return "almost done";
  const seconds = Math.round(left);
  return `about ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
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

/** When a saved game started, as the list and the viewer show it: "2024-05-12 15:30:12 UTC". */
export function startedText(iso) {
  return iso.replace("T", " ").replace("+00:00", " UTC");
}

/** A saved game's player: the name, with the level for an engine; without a name, how it played
 * ("web", "engine:5"). */
export function playerName(player) {
  if (!player.name) return player.spec;
  return player.level ? `${player.name} (${player.spec})` : player.name;
}

const ENDINGS = {
  checkmate: "by checkmate",
  resignation: "by resignation",
  "time forfeit": "on time",
  stalemate: "by stalemate",
  "agreed draw": "by agreement",
  "threefold repetition": "by threefold repetition",
  "fivefold repetition": "by fivefold repetition",
  "fifty moves": "by the fifty-move rule",
  "seventy-five moves": "by the seventy-five-move rule",
  "insufficient material": "by insufficient material",
};

/** How a game ended, in words: "0-1 · Black won by checkmate", "½-½ · Draw by agreement". */
export function endingText(result, termination) {
  const how = termination ? ` ${ENDINGS[termination] || termination}` : "";
  if (result === "1-0") return `1-0 · White won${how}`;
  if (result === "0-1") return `0-1 · Black won${how}`;
  if (result === "1/2-1/2") return `½-½ · Draw${how}`;
  return "Unfinished";
}

/** The start of a saved game: "Chess960 #100", "standard chess", or a position set up. */
export function variantText(variant, chess960, startFen) {
  if (variant === "chess960") {
    return chess960 === null ? "Chess960, from a set position" : `Chess960 #${chess960}`;
  }
  const standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
  return startFen === standard ? "standard chess" : "standard chess, from a set position";
}

/** Where a viewer stands in a game: "the start position", "after 2. g4", "after 1… e5". */
export function plyText(san, startFen, ply) {
  if (ply === 0) return "the start position";
  return `after ${moveLabel(ply, startFen)} ${san[ply - 1]}`;
}

/** A player of the live game as the saved games name it (chessatron.game.players.spec.PlayerSpec.player):
 * {name, kind, level, spec} from its spec ("web", "engine:5", "hand:3", "board"); ``recorded``: the name
 * the game's record gives it (the live state's ``names``: "Ann" for the person here), when known. */
export function playerFromSpec(spec, recorded = null) {
  const text = spec || "";
  const [kind, ...rest] = text.split(":");
  const level = rest.length ? rest.join(":") : null;
  if (kind === "hand") return { name: recorded || "simulated hand", kind: "board", level: null, spec: text };
  const names = {
    engine: "Stockfish",
    web: "web page",
    board: "board",
    keyboard: "keyboard",
    voice: "voice",
    buttons: "buttons",
  };
  return { name: recorded || names[kind] || text, kind, level, spec: text };
}

const VALUES = { q: 9, r: 5, b: 3, n: 3, p: 1 };
const ROLES = ["q", "r", "b", "n", "p"];

/** The material on a board (the board part of a FEN): for each side the pieces it has more of than the
 * other, strongest first, and by how many points it is ahead (0 when it is not). */
export function materialDiff(boardFen) {
  const count = { white: {}, black: {} };
  for (const role of ROLES) count.white[role] = count.black[role] = 0;
  for (const char of boardFen || "") {
    const role = char.toLowerCase();
    if (!(role in VALUES)) continue;
    count[char === role ? "black" : "white"][role] += 1;
  }
  const result = { white: { pieces: [], points: 0 }, black: { pieces: [], points: 0 } };
  let balance = 0;
  for (const role of ROLES) {
    const difference = count.white[role] - count.black[role];
    balance += difference * VALUES[role];
    const side = difference > 0 ? "white" : "black";
    for (let n = 0; n < Math.abs(difference); n += 1) result[side].pieces.push(role);
  }
  if (balance > 0) result.white.points = balance;
  if (balance < 0) result.black.points = -balance;
  return result;
}

/** The chessground square names of a UCI move: [from, to] ("e7e8q" gives ["e7", "e8"]). */
export function moveSquares(uci) {
  return uci ? [uci.slice(0, 2), uci.slice(2, 4)] : [];
}

/** The few words the page's header gives the server's status line: after a stop, what stopped (the
 * banner under the board says what was kept); anything else as it is. */
export function statusWords(status) {
  const text = status || "";
  return text.startsWith("stopped") ? text.split(/[;:]/)[0] : text;
}

/** How long ago, in words: "just now", "5 min ago", "2 h ago", "3 days ago". */
export function agoText(seconds) {
  const s = Math.max(0, seconds || 0);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  const days = Math.floor(s / 86400);
  return `${days} day${days === 1 ? "" : "s"} ago`;
}

/** A stopped game as the page names it (GET /api/v1/resume): "keyboard – engine:3 · Chess960 #518 ·
 * 14 moves · stopped 2 h ago". */
export function stoppedGameText(game) {
  const moves = `${game.moves} move${game.moves === 1 ? "" : "s"}`;
  const start = variantText(game.variant, game.chess960, game.start_fen);
  return `${game.white} – ${game.black} · ${start} · ${moves} · stopped ${agoText(game.stopped_s_ago)}`;
}

const STARTED = { terminal: "started at the terminal", page: "started on the page" };

/** The question the page asks before it continues a stopped game (GET /api/v1/resume's ``game``): which
 * game, who plays it from now on, and the robot's work before it goes on. */
export function resumeQuestion(game) {
  const moves = `${game.moves} move${game.moves === 1 ? "" : "s"}`;
  const start = variantText(game.variant, game.chess960, game.start_fen);
  const about = [start, moves, `stopped ${agoText(game.stopped_s_ago)}`];
  if (STARTED[game.where]) about.push(STARTED[game.where]);
  const words = [`Continue White ${game.white} vs Black ${game.black}, ${about.join(", ")}?`];
  for (const side of ["white", "black"]) {
    const plays = game.plays[side];
    if (plays === game[side]) continue;
    const who = plays === "web" ? "played on this page" : `played by ${plays}`;
    words.push(`${side === "white" ? "White" : "Black"} is ${who} from now on (was ${game[side]}).`);
  }
  const robot = game.robot;
  if (robot && robot.moves === 0) {
    words.push("The pieces stand as the game left them.");
  } else if (robot) {
    const pieces = `${robot.moves} piece${robot.moves === 1 ? "" : "s"} to move`;
    const seconds = Math.round(robot.seconds);
    const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    const time = seconds < 1 ? "in a moment" : `about ${clock}`;
    words.push(`The robot will set the table up (${pieces}): ${time}.`);
  }
  return words.join(" ");
}
