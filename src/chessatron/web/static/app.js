// chessatron's page: the live feed, what it shows, and the commands it sends.
import { clockText, evaluation, movePairs, squaresFrom } from "./format.js";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);

let state = null; // the live snapshot, kept current by the feed
let watchOnly = false;
let selected = null; // the square of the piece the player picked
let promoting = null; // the UCI prefix waiting for a promotion piece
let clockAt = 0; // when the clock part last arrived (performance.now())
let shownGame = null; // id and result of the game the saved list was loaded for

// The token came in the link; the server has put it in a cookie, so keep it out of history.
if (new URLSearchParams(location.search).has("token")) {
  history.replaceState(null, "", location.pathname);
}

// --- talking to the server -----------------------------------------------------------------------

async function post(path, body = {}) {
  showError("");
  try {
    const response = await fetch(API + path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      showError(answer.error || `the server answered ${response.status}`);
      return null;
    }
    return answer;
  } catch (error) {
    showError(`the server cannot be reached (${error.message}); is chessatron serve running?`);
    return null;
  }
}

function showError(message) {
  $("error").textContent = message;
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

function setConnection(online) {
  const badge = $("connection");
  badge.textContent = online ? "live" : "offline";
  badge.className = `connection ${online ? "online" : "offline"}`;
}

// --- pictures ------------------------------------------------------------------------------------

const pictures = {
  board: { busy: false, again: false, url: () => `${API}/board.svg?orientation=${orientation()}` },
  table: { busy: false, again: false, url: () => `${API}/table.svg` },
};

/** Fetch a picture again; while one is on its way, fetch once more after it (always the latest). */
async function refresh(name) {
  const picture = pictures[name];
  if (picture.busy) {
    picture.again = true;
    return;
  }
  picture.busy = true;
  try {
    do {
      picture.again = false;
      const response = await fetch(picture.url());
      if (response.ok) {
        $(name).innerHTML = await response.text();
        if (name === "board") decorateBoard();
      }
    } while (picture.again);
  } catch {
    // the feed reconnects and asks again
  } finally {
    picture.busy = false;
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

function onSquare(square) {
  if (!state || !state.prompt || !square) {
    selected = null;
  } else if (selected && legalFrom(selected).includes(square)) {
    const uci = selected + square;
    selected = null;
    if ((state.prompt.promotion || []).includes(uci)) {
      promoting = uci;
      $("promotion").hidden = false;
    } else {
      sendMove(uci);
    }
  } else {
    selected = legalFrom(square).length ? square : null;
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

for (const button of document.querySelectorAll("[data-command]")) {
  button.addEventListener("click", () => post(`/command/${button.dataset.command}`));
}
$("stop").addEventListener("click", () => post("/stop"));
$("pause").addEventListener("click", () => post("/pause"));
$("continue").addEventListener("click", () => post("/continue"));
$("resume").addEventListener("click", () => post("/resume"));

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
  if (await post("/game", body)) loadGames();
});

$("reset").addEventListener("submit", (event) => {
  event.preventDefault();
  post("/reset", { target: event.target.elements.target.value.trim() || "standard" });
});

// --- what the page shows -------------------------------------------------------------------------

function render(parts) {
  const changed = new Set(parts);
  if (changed.has("status")) $("status").textContent = state.status;
  if (changed.has("game")) renderGame();
  if (changed.has("prompt")) {
    if (!state.prompt) selected = null;
    renderControls();
  }
  if (["game", "leds", "hint", "prompt"].some((p) => changed.has(p))) refresh("board");
  else if (!state.game && changed.has("table")) refresh("board");
  if (changed.has("table") || changed.has("gantry")) refresh("table");
  if (changed.has("gantry")) renderGantry();
  if (changed.has("hint") || changed.has("prompt")) renderHint();
  if (changed.has("clock")) {
    clockAt = performance.now();
    renderClock();
  }
  if (changed.has("evaluation") || changed.has("game")) renderEvaluation();
  if (changed.has("sensors") || changed.has("game")) renderSensors();
  if (changed.has("leds") || changed.has("game")) renderLeds();
  if (changed.has("notices")) renderNotices();
  if (changed.has("status") || changed.has("game")) renderControls();
}

function renderGame() {
  const game = state.game;
  const list = $("moves");
  list.replaceChildren();
  $("players").textContent = game ? `White: ${game.white} · Black: ${game.black} · ${game.variant}` : "";
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
  const key = `${game.id}/${game.result}`;
  if (key !== shownGame) {
    shownGame = key;
    loadGames();
  }
}

function renderControls() {
  const prompt = state && state.prompt;
  const game = state && state.game;
  for (const button of document.querySelectorAll("[data-command]")) {
    button.disabled = watchOnly || !prompt;
  }
  $("move-form").elements.move.disabled = watchOnly || !prompt;
  const running = Boolean(game && !game.result);
  $("stop").disabled = watchOnly || !running;
  const paused = Boolean(state && state.status.startsWith("paused"));
  $("pause").disabled = watchOnly || paused || state.status === "idle";
  $("continue").disabled = watchOnly || !paused;
  for (const element of document.querySelectorAll("#new-game button, #reset button")) {
    element.disabled = watchOnly;
  }
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
  let text = `Gantry at X ${g.x.toFixed(1)} Y ${g.y.toFixed(1)} mm, ${g.state}`;
  if (g.work) text += ` · ${g.work.title} ${g.work.index}/${g.work.of}`;
  $("gantry-text").textContent = text;
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
  }
}

function renderEvaluation() {
  const { text, white } = evaluation(state.evaluation);
  $("eval-white").style.height = `${white}%`;
  $("eval-text").textContent = text;
  $("eval").classList.toggle("flipped", orientation() === "black");
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
  const occupied = new Set((state.sensors && state.sensors.squares) || []);
  for (const cell of gridOf("sensors").children) {
    cell.classList.toggle("on", occupied.has(cell.dataset.square));
  }
}

function renderLeds() {
  const leds = state.leds || {};
  for (const cell of gridOf("leds").children) {
    const colour = leds[cell.dataset.square];
    cell.style.background = colour && colour !== "#000000" ? colour : "";
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
}

function renderNotices() {
  const list = $("notices");
  list.replaceChildren(
    ...state.notices.slice(-6).map((notice) => {
      const item = document.createElement("li");
      item.className = notice.level;
      item.textContent = notice.message;
      return item;
    }),
  );
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
        const cells = [
          game.started.replace("T", " ").replace("+00:00", " UTC"),
          `${game.white} – ${game.black}${game.variant === "chess960" ? " (960)" : ""}`,
          game.in_progress ? `in progress, ${game.plies} plies` : `${game.result}, ${game.plies} plies`,
        ].map((text) => {
          const cell = document.createElement("td");
          cell.textContent = text;
          return cell;
        });
        const linkCell = document.createElement("td");
        linkCell.append(link);
        row.dataset.id = game.id;
        row.append(...cells, linkCell);
        return row;
      }),
    );
  } catch {
    // shown again on the next game
  }
}

setInterval(() => {
  if (state && state.clock && state.clock.running) renderClock();
}, 100);

async function start() {
  updateStartFields();
  try {
    const response = await fetch(API);
    if (response.ok) watchOnly = (await response.json()).watch_only;
  } catch {
    // the feed shows that the server is away
  }
  if (watchOnly) document.body.classList.add("watch-only");
  connect();
  loadGames();
}

start();
