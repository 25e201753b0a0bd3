// chessatron's page: the live feed, what it shows, and the commands it sends.
import {
  clockText,
  evaluation,
  evaluationWords,
  gantryText,
  movePairs,
  robotWork,
  squaresFrom,
  startedText,
} from "./format.js";
import { coalesced } from "./fetching.js";
import { closeViewer, openGame, setUpViewer, updateViewer } from "./viewer.js";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);

let state = null; // the live snapshot, kept current by the feed
let watchOnly = false;
let online = false;
let wasOnline = false; // the feed was up once: a later "open" is a reconnection
let selected = null; // the square of the piece the player picked
let promoting = null; // the UCI prefix waiting for a promotion piece
let clockAt = 0; // when the clock part last arrived (performance.now())
let shownGames = null; // what the saved list was loaded for (game, plies, result, job)
let lastNotice = null; // the newest notice already shown
let infoTimer = 0;

// The token came in the link; the server has put it in a cookie, so keep it out of history.
if (new URLSearchParams(location.search).has("token")) {
  history.replaceState(null, "", location.pathname + location.hash);
}

// --- talking to the server -----------------------------------------------------------------------

const ERRORS = ["error", "machine-error", "game-error", "reset-error", "viewer-error"];

/** POST a command; a refusal is shown under the controls that sent it (``errorAt``, the id of an error
 * line; null: not shown). Returns the answer, or null. */
async function post(path, body = {}, errorAt = "error") {
  if (errorAt) showError("");
  try {
    const response = await fetch(API + path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      if (errorAt) showError(answer.error || `the server answered ${response.status}`, errorAt);
      return null;
    }
    return answer;
  } catch {
    if (errorAt) showError("the server cannot be reached; is chessatron serve still running?", errorAt);
    return null;
  }
}

/** Show ``message`` in the error line ``at`` (and clear the others); "" clears them all. */
function showError(message, at = "error") {
  for (const id of ERRORS) $(id).textContent = "";
  if (!message) return;
  const line = $(at);
  line.textContent = message.charAt(0).toUpperCase() + message.slice(1);
  const box = line.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) line.scrollIntoView({ block: "nearest" });
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
      state.version = message.version;
      render(Object.keys(message.parts));
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
  badge.textContent = up ? "live" : "offline";
  badge.className = `connection ${up ? "online" : "offline"}`;
  $("offline").hidden = up || !wasOnline;
  if (again) {
    // the server came back (perhaps restarted): what it allows and its games may have changed
    showInfo("Connected to the server again.");
    showError("");
    loadInfo();
    shownGames = null;
  }
  if (state) renderControls();
  updateViewer();
}

async function loadInfo() {
  try {
    const response = await fetch(API);
    if (response.ok) {
      const info = await response.json();
      watchOnly = info.watch_only;
      showPhoneLink(info.phone_link);
    }
  } catch {
    // the feed shows that the server is away
  }
  document.body.classList.toggle("watch-only", watchOnly);
}

/** The page's link as a QR code, when the server listens on the network (a phone can reach it). */
function showPhoneLink(shown) {
  $("phone").hidden = !shown;
  const image = $("phone-link");
  if (shown && !image.getAttribute("src")) image.src = `${API}/link.svg`;
}

// --- pictures ------------------------------------------------------------------------------------

/** Fetch a picture again; while one is on its way, once more after it (always the latest). A failure
 * waits for the next change: the feed reconnects and asks again. */
const pictures = {
  board: coalesced(() => loadPicture("board", `${API}/board.svg?orientation=${orientation()}`)),
  table: coalesced(() => loadPicture("table", `${API}/table.svg`)),
};

function refresh(name) {
  pictures[name]();
}

async function loadPicture(name, url) {
  const response = await fetch(url);
  if (response.ok) {
    $(name).innerHTML = await response.text();
    if (name === "board") decorateBoard();
  }
}

function orientation() {
  const game = state && state.game;
  return game && game.black === "web" && game.white !== "web" ? "black" : "white";
}

// --- playing on the board ------------------------------------------------------------------------

function legalFrom(square) {
  const prompt = state && state.prompt;
  return (prompt && prompt.legal[square]) || [];
}

function decorateBoard() {
  const board = $("board");
  board.classList.toggle("playable", Boolean(state && state.prompt));
  const targets = selected ? legalFrom(selected) : [];
  for (const rect of board.querySelectorAll("rect.square")) {
    const square = squareOf(rect);
    rect.classList.toggle("selected", square === selected);
    rect.classList.toggle("dest", targets.includes(square));
  }
}

function squareOf(element) {
  return [...element.classList].find((name) => /^[a-h][1-8]$/.test(name)) || null;
}

/** Pick up (or put down) a piece: the table's LEDs show where it may go. */
function pick(square) {
  if (square === selected) return;
  const before = selected;
  selected = square;
  if (square || before) post("/select", { square }, null);
}

function onSquare(square) {
  if (!state || !state.prompt || !square) {
    pick(null);
  } else if (selected && legalFrom(selected).includes(square)) {
    const uci = selected + square;
    selected = null; // the move puts it down (the server forgets the pick with the move)
    if ((state.prompt.promotion || []).includes(uci)) {
      promoting = uci;
      $("promotion").hidden = false;
    } else {
      sendMove(uci);
    }
  } else {
    // the piece picked again (or one that cannot move) is put down
    pick(square !== selected && legalFrom(square).length ? square : null);
  }
  decorateBoard();
}

async function sendMove(text) {
  promoting = null;
  $("promotion").hidden = true;
  await post("/move", { move: text });
}

$("board").addEventListener("click", (event) => {
  const rect = event.target.closest("rect.square");
  onSquare(rect ? squareOf(rect) : null);
});

$("promotion").addEventListener("click", (event) => {
  const button = event.target.closest("button");
  if (!button || !promoting) return;
  if (button.dataset.piece) {
    sendMove(promoting + button.dataset.piece);
  } else {
    promoting = null;
    $("promotion").hidden = true;
  }
});

$("move-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = event.target.elements.move;
  if (input.value.trim()) sendMove(input.value.trim());
  input.value = "";
});

/** A button that asks once more before it acts (data-confirm): a stray tap must not resign a game. */
function confirmed(button) {
  if (!button.dataset.confirm) return true;
  if (button.classList.contains("confirming")) {
    disarm(button);
    return true;
  }
  button.dataset.label = button.textContent;
  button.textContent = button.dataset.confirm;
  button.classList.add("confirming");
  button.timer = setTimeout(() => disarm(button), 4000);
  return false;
}

function disarm(button) {
  clearTimeout(button.timer);
  if (!button.classList.contains("confirming")) return;
  button.classList.remove("confirming");
  button.textContent = button.dataset.label;
}

for (const button of document.querySelectorAll("[data-command]")) {
  button.addEventListener("click", () => {
    if (confirmed(button)) post(`/command/${button.dataset.command}`);
  });
}
$("stop").addEventListener("click", () => post("/stop", {}, "machine-error"));
$("pause").addEventListener("click", () => post("/pause", {}, "machine-error"));
$("continue").addEventListener("click", () => post("/continue", {}, "machine-error"));
$("resume").addEventListener("click", async () => {
  if (await post("/resume", {}, "game-error")) showBoard();
});
$("games").addEventListener("click", (event) => {
  const row = event.target.closest("tr.game");
  if (row && !event.target.closest("a")) openGame(row.dataset.id);
});

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

/** On a narrow screen the board is far above the forms: bring it into view once a job starts. */
function showBoard() {
  const board = $("play").getBoundingClientRect();
  if (board.bottom < 0 || board.top > window.innerHeight) $("play").scrollIntoView({ block: "start" });
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
  selected = null;
  if (await post("/game", body, "game-error")) showBoard();
});

$("reset").addEventListener("submit", async (event) => {
  event.preventDefault();
  const target = event.target.elements.target.value.trim() || "standard";
  if (await post("/reset", { target }, "reset-error")) showBoard();
});

// --- what the page shows -------------------------------------------------------------------------

function render(parts) {
  const changed = new Set(parts);
  if (["status", "runner", "gantry"].some((p) => changed.has(p))) renderStatus();
  if (changed.has("game")) renderGame();
  if (changed.has("prompt")) {
    if (!state.prompt) selected = null;
  }
  if (["game", "leds", "hint", "prompt"].some((p) => changed.has(p))) refresh("board");
  else if (!state.game && changed.has("table")) refresh("board");
  if (changed.has("table") || changed.has("gantry")) refresh("table");
  if (changed.has("gantry")) renderGantry();
  if (changed.has("hint") || changed.has("prompt")) renderHint();
  if (changed.has("clock")) {
    clockAt = performance.now();
    renderClock();
  } else if (changed.has("game")) {
    renderClock(); // the board may have turned round
  }
  if (changed.has("evaluation") || changed.has("game")) renderEvaluation();
  if (changed.has("sensors") || changed.has("game")) renderSensors();
  if (["leds", "game", "runner"].some((p) => changed.has(p))) renderLeds();
  if (changed.has("notices")) renderNotices();
  if (["status", "game", "prompt", "runner"].some((p) => changed.has(p))) renderControls();
  if (["game", "runner"].some((p) => changed.has(p))) maybeLoadGames();
  if (["status", "game", "runner"].some((p) => changed.has(p))) updateViewer();
}

/** The runner's report; a page that only watches has none and reads the status instead. */
function runner() {
  if (state.runner) return state.runner;
  const status = state.status || "";
  return { job: null, paused: status.startsWith("paused"), leds: false };
}

function renderStatus() {
  // while the robot is held the game may go on (a move made, the robot waiting to carry it out)
  $("status").textContent = runner().paused ? "robot paused" : state.status;
  const robot = $("robot");
  const work = robotWork(state.gantry && state.gantry.work);
  if (runner().paused) {
    robot.textContent = "Robot paused: press Resume robot to go on";
    robot.className = "robot paused";
  } else if (work) {
    robot.textContent = `Robot: ${work}`;
    robot.className = "robot working";
  }
  robot.hidden = !runner().paused && !work;
}

function renderGame() {
  const game = state.game;
  const list = $("moves");
  list.replaceChildren();
  $("players").textContent = game
    ? `White: ${game.white} · Black: ${game.black} · ${game.variant === "chess960" ? "Chess960" : "standard"}`
    : "";
  if (!game) return;
  for (const [number, white, black] of movePairs(game.san, game.start_fen)) {
    const item = document.createElement("li");
    item.value = number;
    for (const san of [white, black]) {
      if (san === undefined) continue;
      const span = document.createElement("span");
      span.className = san === "…" ? "gap" : "ply";
      span.textContent = san;
      item.append(span, " ");
    }
    list.append(item);
  }
  const plies = list.querySelectorAll(".ply");
  if (plies.length) plies[plies.length - 1].classList.add("last");
  if (game.result) {
    const result = document.createElement("li");
    result.className = "result";
    result.textContent = `${game.result} ${game.termination || ""}`.trim();
    list.append(result);
  }
}

function renderControls() {
  const prompt = state && state.prompt;
  const job = runner().job;
  const paused = runner().paused;
  const offline = !online;
  for (const button of document.querySelectorAll("[data-command]")) {
    button.disabled = watchOnly || offline || !prompt;
    if (button.disabled) disarm(button);
  }
  $("move-form").elements.move.disabled = watchOnly || offline || !prompt;
  $("move-form").querySelector("button").disabled = watchOnly || offline || !prompt;
  $("stop").disabled = watchOnly || offline || (job !== "game" && job !== "resume");
  $("pause").disabled = watchOnly || offline || !job || paused;
  $("continue").disabled = watchOnly || offline || !paused;
  const busy = Boolean(job);
  for (const element of document.querySelectorAll("#new-game button, #reset button")) {
    element.disabled = watchOnly || offline || busy;
  }
  let note = "";
  if (watchOnly) note = "This page only watches; `chessatron serve` plays from a page.";
  else if (job === "reset") note = "The robot is setting the table up; new games wait until it has finished.";
  else if (busy) note = "A game is under way: Stop game (it stays saved) before starting another.";
  $("busy-note").textContent = note;
  if (!prompt) {
    promoting = null;
    $("promotion").hidden = true;
  }
}

function renderHint() {
  const hint = state.hint;
  $("hint-text").textContent = hint && state.prompt ? `Hint: ${hint.san}` : "";
}

function renderGantry() {
  const g = state.gantry;
  const work = robotWork(g.work);
  $("gantry-text").textContent = gantryText(g) + (work ? ` The robot is ${work}.` : "");
}

function renderClock() {
  const clock = state && state.clock;
  const flipped = orientation() === "black";
  const sides = { top: flipped ? "white" : "black", bottom: flipped ? "black" : "white" };
  for (const [place, side] of Object.entries(sides)) {
    const element = $(`clock-${place}`);
    element.dataset.side = side;
    if (!clock) {
      element.textContent = "";
      element.className = "clock";
      continue;
    }
    let ms = clock[`${side}_ms`];
    if (clock.running === side) ms -= performance.now() - clockAt;
    element.textContent = `${side === "white" ? "White" : "Black"} ${clockText(ms)}`;
    element.className = `clock${clock.running === side ? " running" : ""}${ms < 20000 ? " low" : ""}`;
    element.title = clock.running === side ? `${side}'s time is running` : "";
  }
}

function renderEvaluation() {
  const shown = state.game ? state.evaluation : null;
  const { text, white } = evaluation(shown);
  $("eval-white").style.height = `${white}%`;
  $("eval").classList.toggle("flipped", orientation() === "black");
  $("eval").classList.toggle("none", !shown);
  $("eval").title = shown
    ? `the engine's evaluation, ${text} from White's side: the white part grows as White does better`
    : "no evaluation yet";
  $("eval-text").textContent = text;
  $("eval-words").textContent = state.game ? evaluationWords(shown) : "";
  $("eval-line").hidden = !state.game;
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
  $("sensors-note").textContent = state.sensors ? "" : "(not read yet)";
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
    off.append(dot, `cell ${name} `);
  }
  const game = state.game;
  const atTheBoard = game && [game.white, game.black].some((p) => /^(board|hand)\b/.test(p || ""));
  let note = "";
  if (game && !game.result && atTheBoard) {
    note = "The LEDs guide the person at the board: they light up as pieces are lifted.";
  } else if (game && !game.result && state.runner && state.runner.leds && !lit) {
    note = "The LEDs light the engine's move, a check, and where a piece you pick may go.";
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
  lastNotice = key || "";
}

/** A short message under the game's buttons (a declined draw, a reconnection), for a while. */
function showInfo(message, level = "info") {
  const info = $("info");
  info.textContent = message;
  info.className = `info ${level}`;
  clearTimeout(infoTimer);
  infoTimer = setTimeout(() => {
    info.textContent = "";
  }, 15000);
}

/** Load the saved games when what they show changed: a new game, a move, a result, a job ending. */
function maybeLoadGames() {
  const game = state.game;
  const key = [game && game.id, game && game.san.length, game && game.result, runner().job].join("/");
  if (key === shownGames) return;
  shownGames = key;
  loadGames();
}

async function loadGames() {
  try {
    const response = await fetch(`${API}/games`);
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
        const moves = Math.ceil(game.plies / 2);
        const length = `${moves} move${moves === 1 ? "" : "s"}`;
        const cells = [
          startedText(game.started),
          `${game.white} – ${game.black}${game.variant === "chess960" ? " (960)" : ""}`,
          game.in_progress ? `unfinished, ${length}` : `${game.result}, ${length}`,
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
        view.title = "Play this game through, move by move";
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

async function start() {
  updateStartFields();
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
  connect();
  loadGames();
}

start();
