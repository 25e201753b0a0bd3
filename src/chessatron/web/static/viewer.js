// The saved-game viewer: a game from the list, stepped through move by move in a dialog of its own. It
// has a board of its own (chessground, still), drawn from the positions the server sends with the game,
// so the live board goes on beneath it. A game Stockfish has reviewed (the training page's review, kept)
// shows its marks on the moves, each marked move's better move as an arrow and the evaluation; one not
// reviewed yet links to its review.
import { Chessground } from "./vendor/chessground/chessground.min.js";
import { endingText, movePairs, moveSquares, movesText, playerName, plyText, startedText, variantText } from "./format.js";
import { shownSan, speaking, t } from "./i18n.js";
import { evaluationText, mistakeText, sideFigures, sideText } from "./training-format.js";

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
let review = null; // its review, when one is kept (GET /api/v1/training/review/{id}?only=kept)
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
      drawable: { enabled: false, visible: true },
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
  review = null;
  $("viewer-error").textContent = "";
  $("viewer-title").textContent = t("Loading the game…");
  for (const line of ["viewer-about", "viewer-result", "viewer-ply", "viewer-comment", "viewer-reviewed"]) {
    $(line).textContent = "";
  }
  $("viewer-review").hidden = true;
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
  let reviewed = null;
  try {
    const [response, kept] = await Promise.all([
      fetch(`${API}/games/${encodeURIComponent(id)}`, speaking()),
      fetch(`${API}/training/review/${encodeURIComponent(id)}?only=kept`, speaking()).catch(() => null),
    ]);
    answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || t("the server answered {status}", { status: response.status }));
    if (kept && kept.status === 200) reviewed = await kept.json().catch(() => null);
  } catch (error) {
    if (wanted !== id) return;
    $("viewer-title").textContent = t("Saved game");
    const message = error instanceof TypeError ? t("the server cannot be reached; try again") : error.message;
    $("viewer-error").textContent = message.charAt(0).toUpperCase() + message.slice(1);
    return;
  }
  if (wanted !== id) return;
  game = answer;
  review = reviewed && Array.isArray(reviewed.mistakes) ? reviewed : null;
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
  // TRANSLATORS: when a saved game was saved, or played (an imported game, on its own date)
  let when = t("saved {when}", { when: startedText(game.started) });
  if (game.date) {
    when = t("played {when}", { when: startedText(game.started.startsWith(game.date) ? game.started : game.date) });
  }
  const about = [
    t("White: {white} · Black: {black}", { white, black }),
    when,
    variantText(game.variant, game.chess960, game.start_fen),
  ];
  // TRANSLATORS: a game's time control in seconds: {control} is "300 + 3"
  if (game.time_control) about.push(t("clock {control} s", { control: game.time_control.replace("+", " + ") }));
  $("viewer-about").textContent = about.join(" · ");
  $("viewer-result").textContent =
    game.result === "*"
      ? t("Unfinished after {moves}", { moves: movesText(Math.ceil(game.plies / 2)) })
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
        const mark = markAt(index);
        button.textContent = mark ? `${shownSan(san)}${mark.glyph}` : shownSan(san);
        if (mark) button.classList.add(mark.judgement);
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
  renderReviewed();
  renderContinue();
}

/** The marked move at half-move ``ply`` of the review shown, or undefined. */
function markAt(ply) {
  return review ? review.mistakes.find((mistake) => mistake.ply === ply) : undefined;
}

/** What the review says of the game (each side's marks and accuracy), or a link to review it. */
function renderReviewed() {
  const link = $("viewer-review");
  link.href = `/training#review=${encodeURIComponent(game.id)}`;
  link.hidden = game.plies === 0;
  link.textContent = review ? t("Open the review") : t("Review");
  if (!review) {
    $("viewer-reviewed").textContent = game.plies ? t("Not reviewed yet: Review has Stockfish go through it.") : "";
    return;
  }
  const white = sideText(sideFigures(review, "white"));
  const black = sideText(sideFigures(review, "black"));
  // TRANSLATORS: {limit} is how deep Stockfish searched ("depth 14"), {white} and {black} each side's
  // figures ("1 inaccuracy, 0 mistakes, 1 blunder, accuracy 54 %")
  $("viewer-reviewed").textContent = t("Reviewed by Stockfish ({limit}). White: {white}. Black: {black}.", { limit: review.limit, white, black });
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
  // TRANSLATORS: where the viewer stands: {position} is "after 2. g4" (its first letter made a capital)
  const position = `${where.charAt(0).toUpperCase()}${where.slice(1)}`;
  $("viewer-ply").textContent = t("{position} ({number} of {count})", { position, number: ply, count: game.plies });
  const mark = markAt(ply);
  const point = review && ply ? review.evaluations[ply] : null;
  $("viewer-comment").textContent = mark
    ? mistakeText(mark, review.start_fen, review.evaluations)
    : point
      ? t("Stockfish: {evaluation}", { evaluation: evaluationText(point.text) })
      : "";
  $("viewer-comment").className = `viewer-comment ${mark ? mark.judgement : ""}`;
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
    drawable: { autoShapes: bestArrow(markAt(ply)) },
  });
  const element = $("viewer-board");
  element.dataset.fen = cg.getFen();
  element.dataset.ply = String(ply);
  element.dataset.orientation = flipped ? "black" : "white";
}

/** A marked move's better move as a green arrow on the board. */
function bestArrow(mark) {
  if (!mark || !mark.best_uci) return [];
  const [orig, dest] = moveSquares(mark.best_uci);
  return [{ orig, dest, brush: "green" }];
}

function renderContinue() {
  const button = $("viewer-continue");
  const state = live();
  const resumable = Boolean(game && game.in_progress);
  button.hidden = !resumable;
  button.disabled = !resumable || state.watchOnly || state.offline || Boolean(state.job);
  let note = "";
  if (game && !game.in_progress && game.result === "*") {
    note = t("This game was imported, not played on this table: it can be viewed, not continued here.");
  } else if (!resumable) {
    note = "";
  } else if (state.watchOnly) {
    note = t("This page only watches; `chessatron serve` continues games from a page.");
  } else if (state.job && state.game === game.id) {
    note = t("This game is being played on the table now; the viewer shows it as it was when opened.");
  } else if (state.job) {
    note = t("The table is busy: stop the game under way (Stop game) to continue this one.");
  } else {
    note = t("The robot first puts the pieces back where this game stopped.");
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
  review = null;
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
