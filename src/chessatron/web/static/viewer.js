// The saved-game viewer: a game from the list, stepped through move by move in a dialog of its own. It
// has a board of its own (chessground, still), drawn from the positions the server sends with the game,
// so the live board goes on beneath it.
import { Chessground } from "./vendor/chessground/chessground.min.js";
import { endingText, movePairs, moveSquares, playerName, plyText, startedText, variantText } from "./format.js";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);
const GAME_ID = /^[0-9a-z]{1,32}$/;
const HASH = /^#game=([0-9a-z]{1,32})$/;
/** The keys that step through the game, and where each goes from ``ply`` in a game of ``plies``. */
const KEYS = {
  ArrowLeft: (ply) => ply - 1,
  ArrowRight: (ply) => ply + 1,
  Home: () => 0,
  End: (ply, plies) => plies,
};

let game = null; // the game shown, as GET /api/v1/games/{id} answers
let ply = 0; // the position shown: after this many half-moves
let flipped = false; // the board seen from Black's side (at first when Black played on the page)
let wanted = null; // the id asked for last: an older answer arriving late is dropped
let pushed = false; // the viewer added an entry to the browser's history (a phone's back button closes it)
let live = () => ({ job: null, watchOnly: false, offline: false, game: null });
let resume = async () => {};

const dialog = $("viewer");
let ground = null; // the viewer's board, made when first shown

function viewerBoard() {
  if (!ground) {
    ground = Chessground($("viewer-board"), {
      viewOnly: true,
      coordinates: true,
      animation: { enabled: true, duration: 150 },
      drawable: { enabled: false, visible: false },
    });
  }
  return ground;
}

/** Wire the viewer to the live page: ``liveState()`` says what the table is doing ({job, watchOnly,
 * offline, game: the live game's id}), ``resumeGame(id)`` asks for that game to be continued (and closes
 * the viewer when it is). */
export function setUpViewer({ liveState, resumeGame }) {
  live = liveState;
  resume = resumeGame;
  // closing the viewer goes back in history: the live page stays scrolled where it is (or where the
  // page brings it), not where it was when the viewer opened
  history.scrollRestoration = "manual";
  const shown = HASH.exec(location.hash);
  if (shown) openGame(shown[1], { push: false });
}

/** Open saved game ``id`` at its last position. */
export async function openGame(id, { push = true } = {}) {
  if (!GAME_ID.test(id)) return;
  wanted = id;
  game = null;
  $("viewer-error").textContent = "";
  $("viewer-title").textContent = "Loading the game…";
  for (const line of ["viewer-about", "viewer-result", "viewer-ply"]) $(line).textContent = "";
  $("viewer-moves").replaceChildren();
  dialog.classList.add("empty"); // until the game is there: a title, and an error if it cannot come
  renderSteps();
  renderContinue();
  if (!dialog.open) dialog.showModal();
  if (push && !pushed) {
    history.pushState({ viewer: id }, "", `#game=${id}`);
    pushed = true;
  } else if (pushed) {
    history.replaceState({ viewer: id }, "", `#game=${id}`);
  }
  let answer;
  try {
    const response = await fetch(`${API}/games/${encodeURIComponent(id)}`);
    answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || `the server answered ${response.status}`);
  } catch (error) {
    if (wanted !== id) return;
    $("viewer-title").textContent = "Saved game";
    const message = error instanceof TypeError ? "the server cannot be reached; try again" : error.message;
    $("viewer-error").textContent = message.charAt(0).toUpperCase() + message.slice(1);
    return;
  }
  if (wanted !== id) return;
  game = answer;
  dialog.classList.remove("empty");
  flipped = game.black.kind === "web" && game.white.kind !== "web";
  renderGame();
  go(game.plies);
}

/** Close the viewer: the live page is as it was. */
export function closeViewer() {
  if (dialog.open) dialog.close();
}

/** The live state changed: whether the game shown can be continued now may have too. */
export function updateViewer() {
  if (dialog.open) renderContinue();
}

function renderGame() {
  const white = playerName(game.white);
  const black = playerName(game.black);
  $("viewer-title").textContent = `${white} – ${black}`;
  // a game played here started when it was stored; an imported one was played on its own date
  let when = `saved ${startedText(game.started)}`;
  if (game.date) when = `played ${game.started.startsWith(game.date) ? startedText(game.started) : game.date}`;
  const about = [
    `White: ${white} · Black: ${black}`,
    when,
    variantText(game.variant, game.chess960, game.start_fen),
  ];
  if (game.time_control) about.push(`clock ${game.time_control.replace("+", " + ")} s`);
  $("viewer-about").textContent = about.join(" · ");
  const moves = Math.ceil(game.plies / 2);
  $("viewer-result").textContent =
    game.result === "*"
      ? `Unfinished after ${moves} move${moves === 1 ? "" : "s"}`
      : endingText(game.result, game.termination);
  const pgn = $("viewer-pgn");
  pgn.href = `${API}/games/${encodeURIComponent(game.id)}.pgn`;
  pgn.download = `chessatron-${game.id}.pgn`;

  const list = $("viewer-moves");
  let index = 0;
  list.replaceChildren(
    ...movePairs(game.san, game.start_fen).map(([number, white, black]) => {
      const item = document.createElement("li");
      item.value = number;
      for (const san of [white, black]) {
        if (san === undefined) continue;
        if (san === "…") {
          const gap = document.createElement("span");
          gap.className = "gap";
          gap.textContent = "…";
          item.append(gap);
          continue;
        }
        index += 1;
        const button = document.createElement("button");
        button.type = "button";
        button.className = "ply";
        button.dataset.ply = String(index);
        button.textContent = san;
        item.append(button);
      }
      return item;
    }),
  );
  if (game.result !== "*") {
    const result = document.createElement("li");
    result.className = "result";
    result.textContent = game.result;
    list.append(result);
  }
  renderContinue();
}

/** Show the position after ``target`` half-moves (kept within the game). */
function go(target) {
  if (!game) return;
  ply = Math.max(0, Math.min(game.plies, target));
  for (const button of $("viewer-moves").querySelectorAll("button.ply")) {
    const current = Number(button.dataset.ply) === ply;
    button.classList.toggle("current", current);
    if (current) {
      button.setAttribute("aria-current", "step");
      keepInView(button);
    } else {
      button.removeAttribute("aria-current");
    }
  }
  const where = plyText(game.san, game.start_fen, ply);
  $("viewer-ply").textContent = `${where.charAt(0).toUpperCase()}${where.slice(1)} (${ply} of ${game.plies})`;
  renderSteps();
  refreshBoard();
}

/** Scroll the move list, and only the list, to show ``button`` (the board stays where it is). */
function keepInView(button) {
  const list = $("viewer-moves");
  const box = list.getBoundingClientRect();
  const shown = button.getBoundingClientRect();
  if (shown.top < box.top) list.scrollTop -= box.top - shown.top;
  else if (shown.bottom > box.bottom) list.scrollTop += shown.bottom - box.bottom;
}

function renderSteps() {
  const plies = game ? game.plies : 0;
  for (const button of dialog.querySelectorAll("[data-step]")) {
    const back = button.dataset.step === "first" || button.dataset.step === "back";
    button.disabled = !game || (back ? ply === 0 : ply === plies);
  }
  $("viewer-flip").disabled = !game;
}

/** The board at the position shown: the last move marked, a king in check ringed. */
function refreshBoard() {
  if (!game) return;
  const cg = viewerBoard();
  const san = ply ? game.san[ply - 1] : "";
  const blackFirst = (game.start_fen || "").split(" ")[1] === "b";
  const toMove = (ply + (blackFirst ? 1 : 0)) % 2 === 0 ? "white" : "black";
  cg.set({
    orientation: flipped ? "black" : "white",
    fen: game.boards[ply],
    lastMove: ply ? moveSquares(game.uci[ply - 1]) : undefined,
    check: /[+#]$/.test(san) ? toMove : false,
  });
  const element = $("viewer-board");
  element.dataset.fen = cg.getFen();
  element.dataset.ply = String(ply);
  element.dataset.orientation = flipped ? "black" : "white";
}

function renderContinue() {
  const button = $("viewer-continue");
  const state = live();
  const resumable = Boolean(game && game.in_progress);
  button.hidden = !resumable;
  button.disabled = !resumable || state.watchOnly || state.offline || Boolean(state.job);
  let note = "";
  if (game && !game.in_progress && game.result === "*") {
    note = "This game was imported, not played on this table: it can be viewed, not continued here.";
  } else if (!resumable) {
    note = "";
  } else if (state.watchOnly) {
    note = "This page only watches; `chessatron serve` continues games from a page.";
  } else if (state.job && state.game === game.id) {
    note = "This game is being played on the table now; the viewer shows it as it was when opened.";
  } else if (state.job) {
    note = "The table is busy: stop the game under way (Stop game) to continue this one.";
  } else {
    note = "The robot first puts the pieces back where this game stopped.";
  }
  $("viewer-note").textContent = note;
}

// --- what the viewer's controls do ---------------------------------------------------------------

$("viewer-close").addEventListener("click", closeViewer);
dialog.addEventListener("click", (event) => {
  if (event.target === dialog) closeViewer(); // the backdrop: the content fills the dialog itself
});

dialog.addEventListener("close", () => {
  wanted = null;
  game = null;
  if (pushed) {
    pushed = false;
    history.back();
  } else if (HASH.test(location.hash)) {
    history.replaceState(null, "", location.pathname);
  }
});

// a phone's back button (or the browser's) closes the viewer rather than leaving the page
window.addEventListener("popstate", () => {
  const shown = HASH.exec(location.hash);
  if (shown) {
    openGame(shown[1], { push: false });
  } else if (dialog.open) {
    pushed = false;
    dialog.close();
  }
});

for (const button of dialog.querySelectorAll("[data-step]")) {
  button.addEventListener("click", () => {
    if (!game) return;
    const to = { first: 0, back: ply - 1, forward: ply + 1, last: game.plies }[button.dataset.step];
    go(to);
  });
}

$("viewer-moves").addEventListener("click", (event) => {
  const button = event.target.closest("button.ply");
  if (button) go(Number(button.dataset.ply));
});

dialog.addEventListener("keydown", (event) => {
  const step = KEYS[event.key];
  if (!step || !game || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  go(step(ply, game.plies));
});

$("viewer-flip").addEventListener("click", () => {
  flipped = !flipped;
  refreshBoard();
});

$("viewer-continue").addEventListener("click", () => {
  if (game) resume(game.id);
});
