// Pure helpers: how times, evaluations and moves are written on the page (in its language: i18n.js).
import { number, shownLine, shownSan, t, tn, when } from "./i18n.js";

/** A clock reading: h:mm:ss, m:ss, or s.t under ten seconds. */
export function clockText(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) return number(Math.floor(clamped / 100) / 10, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
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
    // TRANSLATORS: the evaluation bar's figure once a side is mated: the game's result says by whom
    if (ev.mate === 0) return { text: t("mate"), white: 50 };
    return { text: ev.mate > 0 ? `M${ev.mate}` : `-M${-ev.mate}`, white: ev.mate > 0 ? 100 : 0 };
  }
  const pawns = ev.cp / 100;
  const text = number(pawns, { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: "exceptZero" });
  // Lichess's win-chance curve: a pawn up is about 59 %, four up about 86 %.
  const white = 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * ev.cp)) - 1);
  return { text, white };
}

/** The evaluation in words for people: who is better and by how much, the engine's depth and the line
 * it expects. */
export function evaluationWords(ev) {
  if (!ev || (ev.cp === null && ev.mate === null)) return t("the engine has not judged this position yet");
  let words;
  if (ev.mate !== null && ev.mate !== undefined) {
    const count = Math.abs(ev.mate);
    if (ev.mate === 0) words = t("checkmate");
    else if (ev.mate > 0) words = tn("White mates in {count}", "White mates in {count}", count, { count });
    else words = tn("Black mates in {count}", "Black mates in {count}", count, { count });
  } else {
    const white = ev.cp > 0;
    const size = Math.abs(ev.cp);
    if (size <= 30) words = t("about equal");
    else if (size <= 100) words = white ? t("White is slightly better") : t("Black is slightly better");
    else if (size <= 250) words = white ? t("White is better") : t("Black is better");
    else words = white ? t("White is winning") : t("Black is winning");
  }
  // TRANSLATORS: {judgement} is who is better ("White is better"), {depth} how deep the engine looked
  if (ev.depth) words = t("{judgement} (depth {depth})", { judgement: words, depth: ev.depth });
  if (ev.pv && ev.pv.length) {
    // TRANSLATORS: {judgement} is who is better, {line} the moves the engine expects ("e4 e5 Nf3 Nc6")
    words = t("{judgement}; it expects {line}", { judgement: words, line: shownLine(ev.pv.slice(0, 4).join(" ")) });
  }
  return words;
}

/** What the gantry does, by GRBL's state (its report's first word). */
function gantryStates() {
  return {
    Idle: t("standing still"),
    Run: t("moving"),
    Hold: t("held (paused)"),
    Jog: t("jogging"),
    Home: t("homing"),
    Alarm: t("stopped by an alarm"),
    Door: t("stopped: the door is open"),
    Check: t("checking G-code"),
    Sleep: t("asleep"),
  };
}

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
    const played = sans.length >= ply && ucis[ply - 1] === uci ? sans[ply - 1] : uci;
    const label = moveLabel(ply, game && game.start_fen);
    const black = label.endsWith("…");
    const values = { number: label, move: shownSan(played) };
    // TRANSLATORS: what the robot does, shown after "The robot is …" and "Robot: …"; {number} is the move's
    // number ("1." for White's, "1…" for Black's), {move} the move ("e4", "Nf3")
    if (rest.includes("(resumed)")) {
      words = black ? t("finishing Black's move {number} {move}", values) : t("finishing White's move {number} {move}", values);
    } else {
      words = black ? t("making Black's move {number} {move}", values) : t("making White's move {number} {move}", values);
    }
  } else if (kind === "TAKEBACK") {
    const count = parseInt(rest[0], 10) || 1;
    words = count === 1 ? t("taking back a move") : tn("taking back {count} move", "taking back {count} moves", count, { count });
  } else if (kind === "SETUP" || kind === "MOVE") {
    words = t("setting up the game"); // (a set-up cut short is taken up as the move before the first)
  } else if (kind === "RESET") {
    words = t("setting the table up");
  } else if (kind === "RESUME") {
    words = t("putting the pieces back where the game stopped");
  } else if (kind === "TIDY") {
    words = t("taking captured pieces to their zone");
  } else {
    words = work.title.toLowerCase();
  }
  if (work.of <= 1) return words;
  // TRANSLATORS: the robot's work and how far it has come: "setting up the game (3 of 25)"
  return t("{work} ({number} of {count})", { work: words, number: Math.min(work.index + 1, work.of), count: work.of });
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
  if (left < 1) return t("almost done");
  const seconds = Math.round(left);
  // TRANSLATORS: the time the robot's work has left, minutes:seconds ("about 2:40")
  return t("about {time}", { time: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}` });
}

/** The gantry's line: where it is and what it does, in words. */
export function gantryText(gantry) {
  // the last report of a run may come just before its end: with the work done, the gantry stands
  const moving = gantry.state === "Run" && !gantry.work;
  const states = gantryStates();
  const state = moving ? states.Idle : states[gantry.state] || gantry.state;
  const mm = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
  // TRANSLATORS: where the robot's magnet is, in the machine's millimetres, and what it does ("standing still")
  return t("The magnet is at X {x} Y {y} mm, {state}.", { x: number(gantry.x, mm), y: number(gantry.y, mm), state });
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

/** When a saved game started, as the list and the viewer show it, in the page's language and this
 * browser's time zone ("May 12, 2024, 5:30 PM"); a day alone as that day. */
export function startedText(iso) {
  return when(iso);
}

/** The names the table gives a player that has none of its own (chessatron.game.players.spec: the way it
 * plays), in the page's language; a person's own name is not among them. */
function givenNames() {
  // TRANSLATORS: a player named by how it plays, beside the board and in the saved games ("White: web page")
  return {
    "web page": t("web page"),
    keyboard: t("keyboard"),
    board: t("board"),
    voice: t("voice"),
    buttons: t("buttons"),
    "simulated hand": t("simulated hand"),
    "online opponent": t("online opponent"),
    "e-board app": t("e-board app"),
  };
}

/** A player's name as a saved game or the live state gives it, in the page's language when it is one the
 * table gave ("web page"), as it is otherwise ("Ann", "Stockfish"). */
export function shownName(name) {
  const given = givenNames();
  return Object.hasOwn(given, name) ? given[name] : name;
}

/** A saved game's player: the name, with the level for an engine; without a name, how it played
 * ("web", "engine:5"). */
export function playerName(player) {
  if (!player.name) return player.spec;
  const name = shownName(player.name);
  return player.level ? `${name} (${player.spec})` : name;
}

/** How a game ended, by its record's termination: the words that follow "White won" or "Draw". */
function endings() {
  // TRANSLATORS: how a game ended, said after "White won {how}", "Black won {how}" or "Draw {how}"
  return {
    checkmate: t("by checkmate"),
    resignation: t("by resignation"),
    "time forfeit": t("on time"),
    stalemate: t("by stalemate"),
    "agreed draw": t("by agreement"),
    "threefold repetition": t("by threefold repetition"),
    "fivefold repetition": t("by fivefold repetition"),
    "fifty moves": t("by the fifty-move rule"),
    "seventy-five moves": t("by the seventy-five-move rule"),
    "insufficient material": t("by insufficient material"),
  };
}

/** How a game ended, in words: "0-1 · Black won by checkmate", "½-½ · Draw by agreement". */
export function endingText(result, termination) {
  const how = termination ? endings()[termination] || termination : null;
  let words;
  if (result === "1-0") words = how ? t("White won {how}", { how }) : t("White won");
  else if (result === "0-1") words = how ? t("Black won {how}", { how }) : t("Black won");
  else if (result === "1/2-1/2") words = how ? t("Draw {how}", { how }) : t("Draw");
  else return t("Unfinished");
  return `${result === "1/2-1/2" ? "½-½" : result} · ${words}`;
}

/** The start of a saved game: "Chess960 #100", "standard chess", or a position set up. */
export function variantText(variant, chess960, startFen) {
  if (variant === "chess960") {
    return chess960 === null ? t("Chess960, from a set position") : t("Chess960 #{number}", { number: chess960 });
  }
  const standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
  return startFen === standard ? t("standard chess") : t("standard chess, from a set position");
}

/** Where a viewer stands in a game: "the start position", "after 2. g4", "after 1… e5". */
export function plyText(moves, startFen, ply) {
  if (ply === 0) return t("the start position");
  // TRANSLATORS: the position a viewer shows, after a move: {move} is its number and the move ("2. g4")
  return t("after {move}", { move: `${moveLabel(ply, startFen)} ${shownSan(moves[ply - 1])}` });
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
  // (playerName writes a name the table gave in the page's language)
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
export function statusWords(status, kind = null) {
  const text = status || "";
  return (kind || "").startsWith("stopped") ? text.split(/[;:]/)[0] : text;
}

/** How long ago, in words: "just now", "5 min ago", "2 h ago", "3 days ago". */
export function agoText(seconds) {
  const s = Math.max(0, seconds || 0);
  if (s < 60) return t("just now");
  if (s < 3600) {
    const count = Math.floor(s / 60);
    return tn("{count} min ago", "{count} min ago", count, { count });
  }
  if (s < 86400) {
    const count = Math.floor(s / 3600);
    return tn("{count} h ago", "{count} h ago", count, { count });
  }
  const count = Math.floor(s / 86400);
  return tn("{count} day ago", "{count} days ago", count, { count });
}

/** A game's length in moves: "1 move", "14 moves". */
export function movesText(count) {
  return tn("{count} move", "{count} moves", count, { count });
}

/** A stopped game as the page names it (GET /api/v1/resume): "keyboard – engine:3 · Chess960 #518 ·
 * 14 moves · stopped 2 h ago". */
export function stoppedGameText(game) {
  const start = variantText(game.variant, game.chess960, game.start_fen);
  // TRANSLATORS: when a game was stopped: {ago} is "just now", "5 min ago", "2 days ago"
  const stopped = t("stopped {ago}", { ago: agoText(game.stopped_s_ago) });
  return `${game.white} – ${game.black} · ${start} · ${movesText(game.moves)} · ${stopped}`;
}

/** Where a stopped game was started, by the resume offer's ``where``. */
function startedWhere(where) {
  if (where === "terminal") return t("started at the terminal");
  if (where === "page") return t("started on the page");
  return null;
}

/** The question the page asks before it continues a stopped game (GET /api/v1/resume's ``game``): which
 * game, who plays it from now on, and the robot's work before it goes on. */
export function resumeQuestion(game) {
  const start = variantText(game.variant, game.chess960, game.start_fen);
  const about = [start, movesText(game.moves), t("stopped {ago}", { ago: agoText(game.stopped_s_ago) })];
  const where = startedWhere(game.where);
  if (where) about.push(where);
  // TRANSLATORS: {white} and {black} are the players ("web", "engine:3"), {about} what the game is ("standard
  // chess, 14 moves, stopped 2 h ago")
  const words = [t("Continue White {white} vs Black {black}, {about}?", { white: game.white, black: game.black, about: about.join(", ") })];
  for (const side of ["white", "black"]) {
    const plays = game.plays[side];
    if (plays === game[side]) continue;
    const values = { player: plays, was: game[side] };
    if (side === "white") {
      words.push(plays === "web" ? t("White is played on this page from now on (was {was}).", values) : t("White is played by {player} from now on (was {was}).", values));
    } else {
      words.push(plays === "web" ? t("Black is played on this page from now on (was {was}).", values) : t("Black is played by {player} from now on (was {was}).", values));
    }
  }
  const robot = game.robot;
  if (robot && robot.moves === 0) {
    words.push(t("The pieces stand as the game left them."));
  } else if (robot) {
    const pieces = tn("{count} piece to move", "{count} pieces to move", robot.moves, { count: robot.moves });
    const seconds = Math.round(robot.seconds);
    const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    const time = seconds < 1 ? t("in a moment") : t("about {time}", { time: clock });
    // TRANSLATORS: {pieces} is "3 pieces to move", {time} "about 1:20" or "in a moment"
    words.push(t("The robot will set the table up ({pieces}): {time}.", { pieces, time }));
  }
  return words.join(" ");
}
