// chessatron's page: the live feed, what it shows, and the commands it sends.
import { liveBoard } from "./board.js";
import {
  clockText,
  countdownText,
  endingText,
  evaluation,
  evaluationWords,
  gantryText,
  materialDiff,
  movePairs,
  movesText,
  playerFromSpec,
  playerName,
  plyText,
  resumeQuestion,
  robotWork,
  shownName,
  squaresFrom,
  startedText,
  statusWords,
  stoppedGameText,
  variantText,
} from "./format.js";
import { list, readMove, setUpLanguageMenu, shownLine, shownSan, speaking, startLanguage, t } from "./i18n.js";
import { ask, withdraw } from "./question.js";
import { applyPlayer, setUpSettings } from "./settings.js";
import { play, setSound, soundOn, wake } from "./sound.js";
import { tableView } from "./table.js";
import { closeViewer, openGame, setUpViewer, updateViewer } from "./viewer.js";

const API = "/api/v1";
const STANDARD_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const $ = (id) => document.getElementById(id);
const ENGINE_VIEW = "chessatron.engine-view";

let state = null; // the live snapshot, kept current by the feed
let info = null; // GET /api/v1: what the server allows, the table's layout
let watchOnly = false;
let online = false;
let wasOnline = false; // the feed was up once: a later "open" is a reconnection
let flipped = false; // the player turned the board round
let viewing = null; // the ply shown while stepping back through the live game (null: the game as it is)
let positions = null; // the live game's positions, for stepping back: GET /api/v1/games/{id}
let heard = null; // the game and ply the last sound was for
let clockAt = 0; // when the clock part last arrived (performance.now())
let workAt = 0; // when the gantry part (the robot's work and its time left) last arrived
let shownGames = null; // what the saved list was loaded for (game, plies, result, job)
let lastNotice = null; // the newest notice already shown
let infoTimer = 0;
let table = null; // the table picture, once the layout is known
let engineAsked = localStorage.getItem(ENGINE_VIEW) === "on"; // the engine's view while playing it
let lineShown = false;
let gameQuestion = false; // the question shown is for the player to move (it goes when the turn does)

// The token came in the link; the server has put it in a cookie, so keep it out of history.
if (new URLSearchParams(location.search).has("token")) {
  history.replaceState(null, "", location.pathname + location.hash);
}

const board = liveBoard($("board"), $("promotion"), {
  move: async (uci) => {
    const taken = await sendMove(uci);
    if (!taken) setTimeout(renderTurn); // (once the board has put the refused move back)
    return taken;
  },
  select: (square) => pick(square),
  say: (message) => {
    showError("");
    if (message) showInfo(message);
  },
  played: ({ captured }) => {
    heard = state && state.game ? `${state.game.id}/${state.game.uci.length + 1}` : null;
    play(captured ? "capture" : "move");
    renderMoves();
    renderTurn();
  },
});

// --- talking to the server -----------------------------------------------------------------------

// (the settings keep their own errors: settings.js)
const ERRORS = ["error", "machine-error", "game-error", "reset-error", "viewer-error"];

/** POST a command; a refusal is shown next to the controls that sent it (``errorAt``, the id of an error
 * line; null: not shown), beside the very field when the server names one. Returns the answer, or null. */
// The square picked on the board, told to the server one request at a time: two in flight (a quick pick
// and put-down) could arrive the other way round and leave the LEDs lit for a piece put down.
let picking = null; // the request in flight
let pickNext; // the latest square picked meanwhile (undefined: none; null: nothing picked)
function pick(square) {
  if (picking) {
    pickNext = square;
    return;
  }
  picking = post("/select", { square }, null).finally(() => {
    picking = null;
    if (pickNext !== undefined) {
      const next = pickNext;
      pickNext = undefined;
      pick(next);
    }
  });
}

async function post(path, body = {}, errorAt = "error") {
  if (errorAt) showError("");
  try {
    const response = await fetch(
      API + path,
      speaking({
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      const why = answer.error || t("the server answered {status}", { status: response.status });
      if (errorAt) showError(why, errorAt, answer.field);
      return null;
    }
    return answer;
  } catch {
    if (errorAt) showError(t("the server cannot be reached; is chessatron serve still running?"), errorAt);
    return null;
  }
}

/** Show ``message`` in the error line ``at`` (and clear the others), or beside the form's ``field`` when
 * it has one; "" clears them all. */
function showError(message, at = "error", field = null) {
  for (const id of ERRORS) $(id).textContent = "";
  for (const line of document.querySelectorAll("form:not(#settings-form) .field-error")) line.textContent = "";
  if (!message) return;
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  const beside = field && document.querySelector(`.field-error[data-field="${field}"]`);
  const line = beside && beside.closest("form") === $(at).closest("form") ? beside : $(at);
  line.textContent = text;
  const box = line.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) line.scrollIntoView({ block: "nearest" });
}

async function sendMove(uci) {
  const answer = await post("/move", { move: uci });
  return answer !== null;
}

let backoff = 250;

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${API}/live`);
  socket.addEventListener("open", () => {
    backoff = 250;
    setConnection(true);
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "snapshot") {
      state = message.state;
      render(Object.keys(state));
    } else if (message.type === "update" && state) {
      Object.assign(state, message.parts);
      for (const [part, changed] of Object.entries(message.patch || {})) Object.assign(state[part], changed);
      state.version = message.version;
      render([...Object.keys(message.parts), ...Object.keys(message.patch || {})]);
    }
  });
  socket.addEventListener("close", () => {
    setConnection(false);
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 5000);
  });
}

function setConnection(up) {
  const badge = $("connection");
  const again = up && wasOnline && !online;
  online = up;
  wasOnline = wasOnline || up;
  // TRANSLATORS: the badge that says whether the page hears the table's live feed
  badge.textContent = up ? t("live") : t("offline");
  badge.className = `connection ${up ? "online" : "offline"}`;
  $("offline").hidden = up || !wasOnline;
  if (again) {
    // the server came back (perhaps restarted): what it allows and its games may have changed
    showInfo(t("Connected to the server again."));
    showError("");
    loadInfo();
    shownGames = null;
  }
  if (state) {
    renderControls();
    renderTurn();
    renderBoard();
  }
  updateViewer();
}

async function loadInfo() {
  try {
    const response = await fetch(API, speaking());
    if (response.ok) {
      info = await response.json();
      watchOnly = info.watch_only;
      $("phone").hidden = !info.phone_link;
      const image = $("phone-link");
      if (info.phone_link && !image.getAttribute("src")) image.src = `${API}/link.svg`;
      $("access").hidden = !info.token;
      $("settings").hidden = watchOnly; // a page that only watches changes nothing
      applyPlayer(info.player); // the board's colours, sound, the engine's default level
      renderSound();
      if (!table) {
        table = tableView($("table"), info.layout);
        if (state) table.render(state);
      }
    }
  } catch {
    // the feed shows that the server is away
  }
  document.body.classList.toggle("watch-only", watchOnly);
  if (state) render(Object.keys(state));
}

// --- what the page shows -------------------------------------------------------------------------

function render(parts) {
  const changed = new Set(parts);
  const game = state.game;
  if (changed.has("game")) {
    if (game && positions && positions.id !== game.id) positions = null;
    if (viewing !== null && (!game || viewing > game.uci.length)) viewing = null;
    listen();
  }
  if (["status", "runner", "gantry"].some((p) => changed.has(p))) renderStatus();
  if (changed.has("game")) renderGame();
  if (["game", "prompt", "hint", "runner", "table", "cursor"].some((p) => changed.has(p))) renderBoard();
  if (changed.has("cursor")) renderButtonsLine();
  if ((changed.has("table") || changed.has("gantry")) && table) table.render(state);
  if (changed.has("gantry")) renderGantry();
  if (changed.has("hint") || changed.has("prompt")) renderHint();
  if (changed.has("clock")) clockAt = performance.now();
  if (changed.has("gantry")) workAt = performance.now();
  if (["clock", "game", "runner"].some((p) => changed.has(p))) renderPlayers();
  if (changed.has("runner") || changed.has("status")) renderBanner();
  if (["evaluation", "game"].some((p) => changed.has(p))) renderEngine();
  if (changed.has("sensors") || changed.has("game")) renderSensors();
  if (["leds", "game", "runner"].some((p) => changed.has(p))) renderLeds();
  if (changed.has("notices")) renderNotices();
  if (["status", "game", "prompt", "runner", "gantry"].some((p) => changed.has(p))) renderTurn();
  if (["status", "game", "prompt", "runner"].some((p) => changed.has(p))) renderControls();
  if (["game", "runner"].some((p) => changed.has(p))) maybeLoadGames();
  if (["status", "game", "runner"].some((p) => changed.has(p))) updateViewer();
  if (changed.has("question")) renderQuestion();
  if (changed.has("eboard")) renderEboard();
}

/** The table as an app's e-board (chessatron eboard): the protocol, where the app is, whether it spoke,
 * and the squares it lights now. */
function renderEboard() {
  const line = $("eboard");
  const eboard = state.eboard;
  line.hidden = !eboard;
  if (!eboard) return;
  const values = { protocol: eboard.protocol, where: eboard.where || "", app: eboard.app || "" };
  let over;
  // TRANSLATORS: how the table talks to a chess app as its e-board: {protocol} is its name ("DGT"), {where}
  // the port or the name it advertises
  if (eboard.transport === "ble") over = eboard.where ? t("{protocol} over Bluetooth LE, {where}", values) : t("{protocol} over Bluetooth LE", values);
  else over = eboard.where ? t("{protocol} over serial, {where}", values) : t("{protocol} over serial", values);
  const who = eboard.app ? t("{app} connected", values) : t("waiting for the app");
  const words = t("E-board ({connection}): {who}", { connection: over, who });
  line.textContent = eboard.lit && eboard.lit.length ? t("{state}; the app shows {squares}", { state: words, squares: eboard.lit.join(" ") }) : words;
}

/** The board fits several moves (a capture that could have taken either of two pieces): ask the player
 * at the table which they made, with a button for each. */
let boardQuestion = null; // the question shown, as "ply:options"
function renderQuestion() {
  const question = state.question;
  const key = question ? `${question.ply}:${question.options.map((o) => o.uci).join(",")}` : null;
  if (key === boardQuestion) return;
  if (boardQuestion !== null && key === null) withdraw();
  boardQuestion = key;
  if (!question || watchOnly) return;
  const choices = question.options.map((o) => ({ label: shownSan(o.san), value: o.uci }));
  const moves = list(question.options.map((o) => shownSan(o.san)), "disjunction");
  ask(t("Which move was made at the board: {moves}?", { moves }), choices).then((uci) => {
    if (uci !== null) post("/answer", { move: uci });
  });
}

/** The runner's report; a page that only watches has none and reads the status instead. */
function runner() {
  if (state.runner) return state.runner;
  // (the status's words are in the table's language; its kind is the same in every language)
  const kind = state.status_kind || "";
  return { job: null, paused: kind === "paused", stopping: kind === "stopping", leds: false };
}

/** The colour(s) this page moves in the game under way: "white", "black", "both", or null. */
function mine() {
  const game = state && state.game;
  if (watchOnly || !online || !game || game.result || !runner().job) return null;
  const white = game.white === "web";
  const black = game.black === "web";
  if (white && black) return "both";
  return white ? "white" : black ? "black" : null;
}

/** Whose side is at the bottom: the page's player's (White unless it plays Black alone), turned round
 * by the Turn board button. */
function orientation() {
  const game = state && state.game;
  const base = game && game.black === "web" && game.white !== "web" ? "black" : "white";
  return flipped === (base === "white") ? "black" : "white";
}

function renderStatus() {
  // while the robot is held the game may go on (a move made, the robot waiting to carry it out)
  const stopping = runner().stopping;
  // (the status is the table's words, in the table's language: made by the game, not for this page)
  const words = runner().paused ? t("robot paused") : stopping ? t("stopping…") : statusWords(state.status, state.status_kind);
  $("status").textContent = words;
  const robot = $("robot");
  const work = robotWork(state.gantry && state.gantry.work, state.game);
  if (runner().paused) {
    robot.textContent = t("Robot paused: press Resume robot to go on");
    robot.className = "robot paused";
  } else if (stopping && work) {
    robot.textContent = t("Robot: stopping once it has put down what it holds ({work})", { work });
    robot.className = "robot paused";
  } else if (work) {
    const left = countdownText(state.gantry.work, (performance.now() - workAt) / 1000);
    // TRANSLATORS: {work} is what the robot does ("setting up the game (3 of 25)"), {left} "about 2:40"
    robot.textContent = left ? t("Robot: {work}: {left}", { work, left }) : t("Robot: {work}", { work });
    robot.className = "robot working";
  }
  robot.hidden = !runner().paused && !work;
}

/** The one line that says what the table waits for: your move, the engine, the robot. */
function renderTurn() {
  const [words, kind] = turnWords();
  const line = $("turn");
  line.textContent = words;
  line.className = `turn ${kind}`;
}

/** The turn line, from one snapshot: the server's status says what the table does now ("white to move",
 * "white played e4", "robot moving", "setting up"); only while it says a side is to move does the line
 * name who that is, so that it never says the page is to move while the engine or the robot is. */
function turnWords() {
  const game = state.game;
  const job = runner().job;
  const status = state.status || "";
  const said = [status.charAt(0).toUpperCase() + status.slice(1), "other"];
  if (!online) return [t("Offline: waiting for the server"), "idle"];
  if (runner().stopping) return [t("Stopping…"), "robot"];
  if (runner().paused) return [t("Robot paused"), "robot"];
  if (job === "reset") return [t("Robot setting the table up"), "robot"];
  if (!game) return job ? said : [watchOnly ? t("No game yet") : t("No game: start one"), "idle"];
  if (game.result) return [t("Game over"), "over"]; // the banner says how
  if (!job && !watchOnly) return [kept(game) ? t("The game is stopped (saved)") : t("The game is stopped"), "idle"];
  if ((state.gantry && state.gantry.work) || state.status_kind === "robot moving") return [t("Robot moving"), "robot"];
  const white = game.turn === "white";
  const toMove = game[game.turn] || "";
  const sent = board.pending(); // this page's move, on its way: as the server will say it
  if (sent && sent.plies === game.uci.length) {
    const move = shownSan(sent.san);
    return [white ? t("White played {move}", { move }) : t("Black played {move}", { move }), "other"];
  }
  const yours = () => [mine() === "both" ? (white ? t("Your move (White)") : t("Your move (Black)")) : t("Your move"), "yours"];
  if (state.prompt && mine()) return yours();
  // a move made, a set-up, a hint being found: what the status says (its turn is not the next side's yet)
  if (status && state.status_kind !== `${game.turn} to move`) return said;
  if (toMove === "web" && mine()) return yours();
  if (toMove.startsWith("engine")) return [t("Engine thinking"), "engine"];
  const words = {
    hand: white ? t("White to move: the simulated hand") : t("Black to move: the simulated hand"),
    board: white ? t("White to move at the table") : t("Black to move at the table"),
    voice: white ? t("White to move: say it into the microphone") : t("Black to move: say it into the microphone"),
    buttons: white ? t("White to move with the buttons") : t("Black to move with the buttons"),
    web: white ? t("White to move on the page") : t("Black to move on the page"),
  }[toMove.startsWith("hand") ? "hand" : toMove];
  return words ? [words, "other"] : [state.status, "other"];
}

/** The board part of a FEN of the pieces standing on the board (no game: the table as it is). */
function tableBoardFen() {
  const rows = Array.from({ length: 8 }, () => Array(8).fill(""));
  const [c0, r0] = info ? info.layout.board_cell : [2, 1];
  for (const piece of (state.table && state.table.pieces) || []) {
    if (!piece.cell) continue;
    const file = piece.cell[0] - c0;
    const rank = piece.cell[1] - r0;
    if (file >= 0 && file < 8 && rank >= 0 && rank < 8) rows[7 - rank][file] = piece.symbol;
  }
  return rows
    .map((row) => row.map((s) => s || "1").join("").replace(/1+/g, (ones) => String(ones.length)))
    .join("/");
}

function renderBoard() {
  board.orient(orientation());
  const game = state.game;
  if (!game) {
    board.show({ fen: tableBoardFen(), lastMove: null, check: null, turn: "white", plies: 0, mine: null });
    return;
  }
  const playing = mine();
  const hint = state.hint && state.prompt && state.hint.fen === game.fen ? state.hint.uci : null;
  board.show({
    fen: game.fen.split(" ")[0],
    lastMove: game.lastmove,
    check: game.check ? game.turn : null,
    turn: game.turn,
    plies: game.uci.length,
    variant: game.variant,
    mine: playing,
    playing: !game.result && Boolean(runner().job),
    prompt: playing ? state.prompt : null,
    hint,
    cursor: state.cursor || null,
  });
  if (viewing !== null) showViewed();
  renderMaterial();
}

/** A sound for each move that reaches the board (the player's own sounded when it was made). */
function listen() {
  const game = state.game;
  if (!game) return;
  const key = `${game.id}/${game.uci.length}`;
  if (heard === null || !heard.startsWith(`${game.id}/`)) {
    heard = key; // a new game, or the page just opened: no sound for what was there
    return;
  }
  const before = Number(heard.split("/")[1]);
  heard = key;
  if (game.result) play("end");
  else if (game.uci.length === before + 1) {
    const san = game.san[game.san.length - 1];
    play(/[+#]$/.test(san) ? "check" : san.includes("x") ? "capture" : "move");
  }
}

function renderGame() {
  renderMoves();
  renderBanner();
  renderViewing();
  renderVariant();
}

/** The game's start when it is not the standard one: "Chess960 #100", a position set up. */
function renderVariant() {
  const game = state.game;
  const standard = !game || (game.variant === "standard" && game.start_fen === STANDARD_START);
  $("variant").textContent = standard ? "" : variantText(game.variant, game.chess960, game.start_fen);
}

/** The moves, with the player's last one at once (marked pending until the server shows it). */
function renderMoves() {
  const game = state && state.game;
  const list = $("moves");
  list.replaceChildren();
  if (!game) return;
  const san = [...game.san];
  const pending = board.pending();
  if (pending && pending.plies === san.length) san.push(pending.san);
  let ply = 0;
  for (const [number, white, black] of movePairs(san, game.start_fen)) {
    const item = document.createElement("li");
    const label = document.createElement("span");
    label.className = "number";
    label.textContent = `${number}.`;
    item.append(label);
    for (const move of [white, black]) {
      if (move === undefined) continue;
      if (move === "…") {
        const gap = document.createElement("span");
        gap.className = "gap";
        gap.textContent = "…";
        item.append(gap, " ");
        continue;
      }
      ply += 1;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "ply";
      button.dataset.ply = String(ply);
      button.textContent = shownSan(move);
      if (ply > game.san.length) button.classList.add("pending");
      if (viewing === ply) button.classList.add("current");
      item.append(button, " ");
    }
    list.append(item);
  }
  const plies = list.querySelectorAll(".ply");
  if (plies.length) {
    plies[plies.length - 1].classList.add("last");
    // the newest move in view within the list only: scrolling the page would take the board away
    if (viewing === null) list.scrollTop = list.scrollHeight;
  }
  if (game.result) {
    const result = document.createElement("li");
    result.className = "result";
    result.textContent = `${game.result} ${game.termination ? terminationWords(game.termination) : ""}`.trim();
    list.append(result);
  }
}

/** How a game ended, in a word or two, by its record's termination ("checkmate", "time forfeit"). */
function terminationWords(termination) {
  const words = {
    checkmate: t("checkmate"),
    resignation: t("resignation"),
    "time forfeit": t("time forfeit"),
    stalemate: t("stalemate"),
    "agreed draw": t("agreed draw"),
    "threefold repetition": t("threefold repetition"),
    "fivefold repetition": t("fivefold repetition"),
    "fifty moves": t("fifty moves"),
    "seventy-five moves": t("seventy-five moves"),
    "insufficient material": t("insufficient material"),
  };
  return words[termination] || termination;
}

/** What a stop left, as the server said it (its status), when the table has nothing under way. */
function stoppedWords() {
  const kind = state.status_kind || "";
  return !runner().job && !watchOnly && kind.startsWith("stopped") ? state.status || "" : null;
}

/** Whether the stopped ``game`` was kept: the server's words after a stop say so. */
function kept(game) {
  return Boolean(game && stoppedWords() !== null && state.status_kind === "stopped, saved");
}

function renderBanner() {
  const game = state.game;
  const job = runner().job;
  const banner = $("banner");
  const over = Boolean(game && game.result);
  const words = over ? null : stoppedWords();
  banner.hidden = !over && !words;
  if (over) $("banner-result").textContent = endingText(game.result, game.termination);
  if (words) $("banner-result").textContent = words.charAt(0).toUpperCase() + words.slice(1) + ".";
  $("again").hidden = !over || watchOnly;
  $("rematch").hidden = !over || watchOnly;
  $("banner-resume").hidden = !words || !kept(game);
  $("banner-review").hidden = !over; // the training page reviews the saved game (Stockfish, if not yet)
  for (const id of ["again", "rematch", "banner-resume"]) $(id).disabled = !online || Boolean(job);
}

/** The players beside the board, their clocks and what each has taken. */
function renderPlayers() {
  const game = state.game;
  const bottom = orientation();
  const sides = { top: bottom === "white" ? "black" : "white", bottom };
  const playing = mine();
  for (const [place, side] of Object.entries(sides)) {
    let line = "";
    if (game) {
      const name = playerName(playerFromSpec(game[side], game.names && game.names[side]));
      const you = playing === side || playing === "both";
      // TRANSLATORS: a player beside the board: {name} is a name ("Ann", "Stockfish (engine:5)")
      if (side === "white") line = you ? t("White: {name} (you)", { name }) : t("White: {name}", { name });
      else line = you ? t("Black: {name} (you)", { name }) : t("Black: {name}", { name });
    }
    if (!game && place === "top") line = t("No game: the pieces as they stand on the table");
    $(`name-${place}`).textContent = line;
    $(`player-${place}`).classList.toggle("to-move", Boolean(game && !game.result && game.turn === side));
    $(`clock-${place}`).dataset.side = side;
  }
  renderClock();
  renderMaterial();
}

function renderMaterial() {
  // material is a game's: the pieces left on a table between games are no score
  const shown = state && state.game ? $("board").dataset.fen || "" : "";
  const diff = materialDiff(shown);
  const bottom = orientation();
  for (const [place, side] of [["top", bottom === "white" ? "black" : "white"], ["bottom", bottom]]) {
    const box = $(`material-${place}`);
    const mineDiff = diff[side];
    const other = side === "white" ? "black" : "white";
    box.replaceChildren(
      ...mineDiff.pieces.map((role) => {
        const wrap = document.createElement("span");
        wrap.className = "cg-wrap mini";
        const piece = document.createElement("piece");
        piece.className = `${{ q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" }[role]} ${other}`;
        wrap.append(piece);
        return wrap;
      }),
    );
    if (mineDiff.points) box.append(` +${mineDiff.points}`);
    const points = { points: mineDiff.points };
    const ahead = side === "white" ? t("White is {points} ahead in material", points) : t("Black is {points} ahead in material", points);
    box.title = mineDiff.points ? ahead : "";
  }
}

function renderClock() {
  const clock = state && state.clock;
  for (const place of ["top", "bottom"]) {
    const element = $(`clock-${place}`);
    const side = element.dataset.side;
    if (!clock) {
      element.textContent = "";
      element.className = "clock";
      continue;
    }
    let ms = clock[`${side}_ms`];
    if (clock.running === side) ms -= performance.now() - clockAt;
    const time = clockText(ms);
    // TRANSLATORS: a side's chess clock beside the board ("White 4:59")
    element.textContent = side === "white" ? t("White {time}", { time }) : t("Black {time}", { time });
    element.className = `clock${clock.running === side ? " running" : ""}${ms < 20000 ? " low" : ""}`;
    const running = side === "white" ? t("White's time is running") : t("Black's time is running");
    element.title = clock.running === side ? running : "";
  }
}

/** Whether a person plays against the engine here: then its view is shown only when asked for. */
function personAgainstEngine() {
  const game = state.game;
  if (!game) return false;
  const person = (spec) => spec === "web" || spec === "board";
  const engine = (spec) => /^(engine|hand)\b/.test(spec || "");
  return (person(game.white) && engine(game.black)) || (person(game.black) && engine(game.white));
}

function renderEngine() {
  const game = state.game;
  const section = $("engine");
  section.hidden = !game;
  if (!game) {
    $("eval").hidden = true;
    return;
  }
  const guarded = personAgainstEngine() && !game.result;
  const shown = !guarded || engineAsked;
  $("engine-toggle").hidden = !guarded;
  $("engine-toggle").textContent = engineAsked ? t("Hide the engine's view") : t("Show the engine's view");
  $("engine-toggle").setAttribute("aria-pressed", String(engineAsked));
  const bar = $("eval");
  bar.hidden = !shown;
  bar.classList.toggle("flipped", orientation() === "black");
  const pv = $("eval-pv");
  if (game.result) {
    // the game's own verdict: the bar goes to the winner
    const white = { "1-0": 100, "0-1": 0 }[game.result] ?? 50;
    $("eval-white").style.height = `${white}%`;
    bar.classList.remove("none");
    $("eval-text").textContent = game.result === "1/2-1/2" ? "½-½" : game.result;
    $("eval-words").textContent = endingText(game.result, game.termination).split(" · ")[1] || "";
    pv.hidden = true;
    $("pv-toggle").hidden = true;
    return;
  }
  if (!shown) {
    // TRANSLATORS: the engine's evaluation, not shown while the person plays the engine
    $("eval-text").textContent = t("hidden");
    $("eval-words").textContent = t("while you play the engine: no free hints");
    pv.hidden = true;
    $("pv-toggle").hidden = true;
    return;
  }
  const ev = state.evaluation && state.evaluation.fen === game.fen ? state.evaluation : null;
  const { text, white } = evaluation(ev);
  $("eval-white").style.height = `${white}%`;
  bar.classList.toggle("none", !ev);
  bar.title = ev ? t("the engine's evaluation, {value} from White's side", { value: text }) : t("no evaluation of this position yet");
  $("eval-text").textContent = text;
  $("eval-words").textContent = ev ? evaluationWords({ ...ev, pv: [] }) : t("the engine is looking at this position");
  const line = ev && ev.pv && ev.pv.length ? shownLine(ev.pv.join(" ")) : "";
  $("pv-toggle").hidden = !line;
  $("pv-toggle").textContent = lineShown ? t("Hide its line") : t("Show its line");
  $("pv-toggle").setAttribute("aria-pressed", String(lineShown));
  pv.hidden = !line || !lineShown;
  pv.textContent = line ? t("It expects {line}", { line }) : "";
}

function renderControls() {
  const prompt = state && state.prompt;
  const job = runner().job;
  const paused = runner().paused;
  const offline = !online;
  const playing = Boolean(mine());
  const game = state.game;
  $("in-game").hidden = !playing;
  $("move-form").hidden = !playing;
  for (const button of document.querySelectorAll("[data-command]")) {
    button.disabled = watchOnly || offline || !prompt || !playing;
  }
  $("move-form").elements.move.disabled = watchOnly || offline || !prompt;
  $("move-form").querySelector("button").disabled = watchOnly || offline || !prompt;
  $("stop").disabled = watchOnly || offline || !job || runner().stopping;
  $("stop").textContent = job === "reset" ? t("Stop the set-up") : runner().stopping ? t("Stopping…") : t("Stop game");
  $("pause").disabled = watchOnly || offline || !job || paused;
  $("continue").disabled = watchOnly || offline || !paused;
  const busy = Boolean(job);
  $("start").hidden = watchOnly || busy;
  for (const element of document.querySelectorAll("#new-game button, #reset button")) {
    element.disabled = watchOnly || offline || busy;
  }
  let note = "";
  if (watchOnly) note = t("This page only watches; `chessatron serve` plays from a page.");
  else if (job === "reset") note = t("The robot is setting the table up; new games wait until it has finished.");
  else if (busy) note = t("A game is under way: Stop game (it stays saved) before starting another.");
  $("busy-note").textContent = note;
  $("reset-note").textContent = busy && !watchOnly ? note : "";
  if (!prompt && gameQuestion) {
    gameQuestion = false;
    withdraw(); // the question was for the player to move: the moment has passed
  }
  renderBanner();
  $("nav").hidden = !game;
  for (const button of document.querySelectorAll("[data-nav]")) button.disabled = !game || !game.uci.length;
}

/** What the display beside the table says while someone plays with its buttons. */
function renderButtonsLine() {
  const cursor = state.cursor;
  // TRANSLATORS: {lines} are the display's two lines while someone plays with the table's buttons
  $("buttons-line").textContent = cursor ? t("Buttons: {lines}", { lines: cursor.lines.filter(Boolean).join(" · ") }) : "";
}

function renderHint() {
  const hint = state.hint;
  $("hint-text").textContent = hint && state.prompt ? t("Hint: {move}", { move: shownSan(hint.san) }) : "";
}

function renderGantry() {
  const g = state.gantry;
  const work = robotWork(g.work, state.game);
  // TRANSLATORS: {work} is what the robot does ("making White's move 1. e4")
  $("gantry-text").textContent = work ? t("{where} The robot is {work}.", { where: gantryText(g), work }) : gantryText(g);
}

function gridOf(id) {
  const grid = $(id);
  const squares = squaresFrom(orientation());
  if (grid.dataset.orientation !== orientation()) {
    grid.replaceChildren(
      ...squares.map((square) => {
        const cell = document.createElement("span");
        cell.dataset.square = square;
        cell.title = square;
        return cell;
      }),
    );
    grid.dataset.orientation = orientation();
  }
  return grid;
}

function renderSensors() {
  $("sensors-note").textContent = state.sensors ? "" : t("(not read yet)");
  const occupied = new Set((state.sensors && state.sensors.squares) || []);
  for (const cell of gridOf("sensors").children) {
    cell.classList.toggle("on", occupied.has(cell.dataset.square));
  }
}

function renderLeds() {
  const leds = state.leds || {};
  let lit = 0;
  for (const cell of gridOf("leds").children) {
    const colour = leds[cell.dataset.square];
    const on = Boolean(colour && colour !== "#000000");
    cell.style.background = on ? colour : "";
    cell.classList.toggle("on", on);
    cell.title = on ? `${cell.dataset.square}: ${colour}` : cell.dataset.square;
    lit += on ? 1 : 0;
  }
  const off = $("leds-off");
  off.replaceChildren();
  for (const [name, colour] of Object.entries(leds)) {
    if (/^[a-h][1-8]$/.test(name) || colour === "#000000") continue;
    const dot = document.createElement("span");
    dot.className = "led";
    dot.style.background = colour;
    // TRANSLATORS: an LED off the board, by its cell's column and row ("cell 0,3")
    off.append(dot, t("cell {cell}", { cell: name }), " ");
  }
  const game = state.game;
  const atTheBoard = game && [game.white, game.black].some((p) => /^(board|hand)\b/.test(p || ""));
  let note = "";
  if (game && !game.result && atTheBoard) {
    note = t("The LEDs guide the person at the board: they light up as pieces are lifted.");
  } else if (game && !game.result && state.runner && state.runner.leds && !lit) {
    note = t("The LEDs light the engine's move, a check, and where a piece you pick may go.");
  }
  $("leds-note").textContent = note;
}

function renderNotices() {
  const list = $("notices");
  const notices = state.notices || [];
  list.replaceChildren(
    ...notices.slice(-6).map((notice) => {
      const item = document.createElement("li");
      item.className = notice.level;
      item.textContent = notice.message;
      return item;
    }),
  );
  const newest = notices.length ? notices[notices.length - 1] : null;
  const key = newest ? `${notices.length}/${newest.message}` : null;
  if (lastNotice !== null && key !== null && key !== lastNotice) {
    showInfo(newest.message.charAt(0).toUpperCase() + newest.message.slice(1), newest.level);
  }
  if (!notices.length && lastNotice) showInfo(""); // a new job: the last one's notices are gone
  lastNotice = key || "";
}

/** A short message under the board's controls (a declined draw, a tap on the wrong piece), for a while. */
function showInfo(message, level = "info") {
  const line = $("info");
  line.textContent = message;
  line.className = `info ${level}`;
  clearTimeout(infoTimer);
  if (message) {
    infoTimer = setTimeout(() => {
      line.textContent = "";
    }, 12000);
  }
}

// --- stepping back through the live game ---------------------------------------------------------

/** The positions of the live game up to ``plies`` (fetched again when the game has gone further). */
async function positionsUpTo(plies) {
  const game = state.game;
  if (positions && positions.id === game.id && positions.boards.length > plies) return positions;
  const response = await fetch(`${API}/games/${encodeURIComponent(game.id)}`, speaking());
  if (!response.ok) throw new Error(t("the server answered {status}", { status: response.status }));
  const answer = await response.json();
  positions = { id: answer.id, boards: answer.boards, uci: answer.uci, san: answer.san, start: answer.start_fen };
  return positions;
}

/** Show the position after ``ply`` half-moves of the live game; at its end, the game as it is. */
async function go(ply) {
  const game = state && state.game;
  if (!game) return;
  const plies = game.uci.length;
  const target = Math.max(0, Math.min(plies, ply));
  if (target === plies) {
    viewing = null;
    board.showPast(null);
    renderViewing();
    renderMoves();
    renderMaterial();
    return;
  }
  viewing = target;
  renderViewing();
  renderMoves();
  try {
    await positionsUpTo(target);
  } catch {
    showError(t("the game's earlier positions could not be loaded; try again"));
    return;
  }
  if (viewing === target) showViewed();
}

function showViewed() {
  if (viewing === null || !positions || positions.boards.length <= viewing) return;
  const san = viewing ? positions.san[viewing - 1] : "";
  const blackFirst = (positions.start || "").split(" ")[1] === "b";
  const toMove = (viewing + (blackFirst ? 1 : 0)) % 2 === 0 ? "white" : "black";
  board.showPast({
    fen: positions.boards[viewing],
    lastMove: viewing ? positions.uci[viewing - 1] : null,
    check: /[+#]$/.test(san) ? toMove : null,
  });
  renderMaterial();
}

function renderViewing() {
  const line = $("viewing");
  const game = state.game;
  line.hidden = viewing === null || !game;
  if (viewing !== null && game) {
    const where = plyText([...game.san], game.start_fen, viewing);
    // TRANSLATORS: {position} is "the start position" or "after 2. g4"
    line.textContent = t("Looking at {position}; the game goes on: » goes back to it.", { position: where });
  }
  $("board-area").classList.toggle("past", viewing !== null);
}

for (const button of document.querySelectorAll("[data-nav]")) {
  button.addEventListener("click", () => {
    const game = state && state.game;
    if (!game) return;
    const now = viewing === null ? game.uci.length : viewing;
    const to = { first: 0, back: now - 1, forward: now + 1, live: game.uci.length }[button.dataset.nav];
    go(to);
  });
}

$("moves").addEventListener("click", (event) => {
  const button = event.target.closest("button.ply");
  if (button && !button.classList.contains("pending")) go(Number(button.dataset.ply));
});

document.addEventListener("keydown", (event) => {
  if ($("viewer").open || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest("input, select, textarea")) return;
  const game = state && state.game;
  if (!game) return;
  const now = viewing === null ? game.uci.length : viewing;
  const to = { ArrowLeft: now - 1, ArrowRight: now + 1, Home: 0, End: game.uci.length }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  go(to);
});

// --- what the controls do ------------------------------------------------------------------------

document.addEventListener("pointerdown", wake, { capture: true });
document.addEventListener("keydown", wake, { capture: true });

function renderSound() {
  $("sound").textContent = soundOn() ? t("Sound on") : t("Sound off");
  $("sound").setAttribute("aria-pressed", String(soundOn()));
}
$("sound").addEventListener("click", () => {
  setSound(!soundOn());
  renderSound();
});

$("flip").addEventListener("click", () => {
  flipped = !flipped;
  renderBoard();
  renderPlayers();
  renderEngine();
  if (state) {
    renderSensors();
    renderLeds();
  }
});

$("engine-toggle").addEventListener("click", () => {
  engineAsked = !engineAsked;
  localStorage.setItem(ENGINE_VIEW, engineAsked ? "on" : "off");
  renderEngine();
});
$("pv-toggle").addEventListener("click", () => {
  lineShown = !lineShown;
  renderEngine();
});

for (const button of document.querySelectorAll("[data-command]")) {
  button.addEventListener("click", async () => {
    const name = button.dataset.command;
    if (name === "resign") {
      gameQuestion = true;
      const sure = await ask(t("Resign this game?"), [
        { label: t("Resign"), value: true, primary: true },
        { label: t("Play on"), value: false },
      ]);
      gameQuestion = false;
      if (!sure) return;
    }
    post(`/command/${name}`);
  });
}
$("move-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const field = event.target.elements.move;
  const text = field.value.trim();
  if (!text) return;
  // read in the page's language (and as English SAN or UCI); what reads as no legal move goes to the server
  // as typed, which says why
  const move = readMove(text, state && state.prompt ? state.prompt.san : null) || text;
  if (await post("/move", { move })) field.value = "";
});
$("stop").addEventListener("click", () => post("/stop", {}, "machine-error"));
$("pause").addEventListener("click", () => post("/pause", {}, "machine-error"));
$("continue").addEventListener("click", () => post("/continue", {}, "machine-error"));
$("resume").addEventListener("click", () => offerResume(null));

/** What Resume (``id``: that game) would continue, as the table stands now; null when it cannot be had
 * (said under the new game's controls). */
async function resumeOffer(id) {
  try {
    const response = await fetch(`${API}/resume${id ? `?game=${encodeURIComponent(id)}` : ""}`, speaking());
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || t("the server answered {status}", { status: response.status }));
    return answer;
  } catch (error) {
    const message = error instanceof TypeError ? t("the server cannot be reached; try again") : error.message;
    showError(message, "game-error");
    return null;
  }
}

/** Name the stopped game Resume would continue (``id``: that one) and ask before the robot moves a piece:
 * continue it, pick another stopped game, or start a new one instead. */
async function offerResume(id) {
  showError("");
  const offer = await resumeOffer(id);
  if (!offer) return;
  if (!offer.game) {
    showError(t("there is no stopped game to resume; start a new one"), "game-error");
    renderResume(offer);
    return;
  }
  const choices = [{ label: t("Continue it"), value: "continue", primary: true }];
  if (offer.others.length) choices.push({ label: t("Another stopped game"), value: "other" });
  choices.push({ label: t("Start a new game instead"), value: "new" });
  const answer = await ask(resumeQuestion(offer.game), choices);
  if (answer === "continue") {
    if (await post("/resume", { game: offer.game.id }, "game-error")) showBoard();
  } else if (answer === "other") {
    const picked = await ask(t("Which stopped game?"), [
      ...offer.others.map((game) => ({ label: stoppedGameText(game), value: game.id })),
      { label: t("None of them"), value: "" },
    ]);
    if (picked) offerResume(picked);
  } else if (answer === "new") {
    const start = $("new-game").querySelector("button[type=submit]");
    start.scrollIntoView({ block: "nearest" });
    start.focus({ preventScroll: true });
  }
}

/** The Resume button names the game it would continue; without one it is not offered. */
function renderResume(offer) {
  const game = offer && offer.game;
  $("resume").hidden = !game;
  $("resume-about").textContent = game ? stoppedGameText(game) : "";
}

async function loadResume() {
  if (watchOnly) return;
  try {
    const response = await fetch(`${API}/resume`, speaking());
    if (response.ok) renderResume(await response.json());
  } catch {
    // shown again on the next change
  }
}
$("banner-resume").addEventListener("click", async () => {
  if (state.game && (await post("/resume", { game: state.game.id }, "error"))) showBoard();
});
$("banner-review").addEventListener("click", () => {
  if (state.game) location.href = `/training#review=${encodeURIComponent(state.game.id)}`;
});
$("to-setup").addEventListener("click", () => {
  $("setup").scrollIntoView({ block: "start", behavior: "smooth" });
  $("reset").elements.target.focus({ preventScroll: true });
});
$("games").addEventListener("click", (event) => {
  const row = event.target.closest("tr.game");
  if (row && !event.target.closest("a")) openGame(row.dataset.id);
});
$("forget").addEventListener("click", async () => {
  const sure = await ask(t("Forget this page's token in this browser? The page then needs its link again."), [
    { label: t("Forget it"), value: true, primary: true },
    { label: t("Keep it"), value: false },
  ]);
  if (sure && (await post("/forget", {}, "error"))) {
    showInfo(t("This browser has forgotten the page's token: open the page's link (or its QR code) to come back."));
  }
});

/** A new game like the last one: the same players (``swap``: each with the other's colour), the same start
 * and clock. */
async function again(swap) {
  const game = state.game;
  if (!game) return;
  const body = swap ? { white: game.black, black: game.white } : { white: game.white, black: game.black };
  const standard = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
  if (game.start_fen !== standard) body.fen = game.start_fen;
  if (state.clock && state.clock.control) body.clock = state.clock.control;
  if (swap) flipped = false;
  board.cancelPremove();
  if (await post("/game", body, "error")) showBoard();
}
$("again").addEventListener("click", () => again(false));
$("rematch").addEventListener("click", () => again(true));

// --- new game and set-up -------------------------------------------------------------------------

function player(form, side) {
  const kind = form.elements[`${side}-kind`].value;
  const level = form.elements[`${side}-level`].value.trim();
  return (kind === "engine" || kind === "hand") && level ? `${kind}:${level}` : kind;
}

function updateStartFields() {
  const form = $("new-game");
  const start = form.elements.start.value;
  form.elements.number.hidden = start !== "number";
  form.elements.fen.hidden = start !== "fen";
  for (const side of ["white", "black"]) {
    const kind = form.elements[`${side}-kind`].value;
    form.elements[`${side}-level`].hidden = kind !== "engine" && kind !== "hand";
  }
}

/** When the board is off screen (a phone, the page scrolled down), bring it into view. */
function showBoard() {
  const area = $("board-area").getBoundingClientRect();
  if (area.top < 0 || area.bottom > window.innerHeight) $("play").scrollIntoView({ block: "start" });
}

$("new-game").addEventListener("change", updateStartFields);
$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const body = { white: player(form, "white"), black: player(form, "black") };
  const start = form.elements.start.value;
  if (start === "number") body.chess960 = form.elements.number.value.trim();
  if (start === "random") body.chess960 = "random";
  if (start === "fen") body.fen = form.elements.fen.value.trim();
  if (form.elements.clock.value.trim()) body.clock = form.elements.clock.value.trim();
  flipped = false;
  board.cancelPremove();
  if (await post("/game", body, "game-error")) showBoard();
});

$("reset").addEventListener("submit", async (event) => {
  event.preventDefault();
  const target = event.target.elements.target.value.trim() || "standard";
  if (await post("/reset", { target }, "reset-error")) showBoard();
});

/** Load the saved games when what they show changed: a new game, a move, a result, a job ending. */
function maybeLoadGames() {
  const game = state.game;
  const key = [game && game.id, game && game.san.length, game && game.result, runner().job].join("/");
  if (key === shownGames) return;
  shownGames = key;
  loadGames();
}

async function loadGames() {
  loadResume();
  try {
    const response = await fetch(`${API}/games`, speaking());
    if (!response.ok) return;
    const games = await response.json();
    $("games").replaceChildren(
      ...games.slice(0, 50).map((game) => {
        const row = document.createElement("tr");
        const link = document.createElement("a");
        link.href = `${API}/games/${encodeURIComponent(game.id)}.pgn`;
        link.download = `chessatron-${game.id}.pgn`;
        link.textContent = "PGN";
        link.className = "pgn";
        const length = movesText(Math.ceil(game.plies / 2));
        const names = [shownName(game.white), shownName(game.black)].join(" – ");
        const cells = [
          startedText(game.started),
          `${names}${game.variant === "chess960" ? " (960)" : ""}`,
          // TRANSLATORS: a saved game's state in the list: {length} is "12 moves", {result} "1-0"
          game.in_progress ? t("unfinished, {length}", { length }) : t("{result}, {length}", { result: game.result, length }),
        ].map((text) => {
          const cell = document.createElement("td");
          cell.textContent = text;
          return cell;
        });
        // the players open the game in the viewer (so does a click anywhere on the row)
        const view = document.createElement("button");
        view.type = "button";
        view.className = "view";
        view.textContent = cells[1].textContent;
        view.title = t("Play this game through, move by move");
        cells[1].replaceChildren(view);
        const linkCell = document.createElement("td");
        linkCell.append(link);
        row.dataset.id = game.id;
        row.className = "game";
        row.append(...cells, linkCell);
        return row;
      }),
    );
  } catch {
    // shown again on the next change
  }
}

setInterval(() => {
  if (state && state.clock && state.clock.running) renderClock();
}, 100);

setInterval(() => {
  // the robot's countdown for long work ("setting up the game (3 of 25): about 2:40")
  if (state && state.gantry && state.gantry.work && state.gantry.work.left_s !== undefined) renderStatus();
}, 1000);

async function start() {
  await startLanguage(); // before the page writes a word
  setUpLanguageMenu($("language"));
  updateStartFields();
  renderSound();
  await loadInfo();
  setUpViewer({
    liveState: () => ({
      job: state ? runner().job : null,
      watchOnly,
      offline: !online,
      game: state && state.game ? state.game.id : null,
    }),
    resumeGame: async (id) => {
      if (!(await post("/resume", { game: id }, "viewer-error"))) return false;
      closeViewer(); // back to the live board, where the game goes on
      showBoard();
      return true;
    },
  });
  setUpSettings($("settings-form"), $("settings-list"), $("settings-note"), $("settings-file"), loadInfo);
  connect();
  loadGames();
}

start();
