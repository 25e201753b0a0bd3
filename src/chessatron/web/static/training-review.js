// The training page's game review: a saved game's board beside Stockfish's graph of White's winning
// chances (a move axis under it), each side's marked moves and accuracy, and the marked moves listed. A
// click on the graph, on a listed move or the step buttons (and the arrow keys) shows that position on
// the board, a marked move with the better move as a green arrow. The review comes from
// GET /api/v1/training/review/{id} (202 while Stockfish goes through the game: its progress is shown),
// the positions from the saved game (GET /api/v1/games/{id}).
import { Chessground } from "./vendor/chessground/chessground.min.js";
import { moveLabel, moveSquares, playerName, plyText } from "./format.js";
import { number, speaking, t, tn } from "./i18n.js";
import { evaluationText, mistakeText, sideFigures } from "./training-format.js";
import { element } from "./training-plots.js";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);
/** The graph's plot area in its viewBox (600 x 220): the moves from LEFT to RIGHT, +1 at TOP, -1 at BOTTOM. */
const LEFT = 16;
const RIGHT = 588;
const TOP = 12;
const BOTTOM = 182;

let review = null; // the review shown (the server's JSON)
let game = null; // its saved game (boards, moves)
let ply = 0; // the position shown: after this many half-moves
let wanted = null; // the game asked for last: an answer for another arrives too late to show
let ground = null;
let post = async () => null;

function board() {
  if (!ground) {
    ground = Chessground($("review-board"), {
      viewOnly: true,
      coordinates: true,
      animation: { enabled: true, duration: 150 },
      drawable: { enabled: false, visible: true },
    });
  }
  return ground;
}

/** Wire the review section; ``postJson(path, body, errorAt)`` posts as the page does. Returns
 * ``{open(id), key(name)}``: review game ``id``, a key pressed while the review is what the person
 * steps through (true when it stepped). */
export function setUpReview(postJson) {
  post = postJson;
  $("review-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = $("review-game").value;
    if (id) open(id);
  });
  $("eval-plot").addEventListener("click", (event) => {
    if (!game) return;
    const plot = $("eval-plot");
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(plot.getScreenCTM().inverse());
    const plies = game.plies;
    go(Math.round(((point.x - LEFT) / (RIGHT - LEFT)) * Math.max(1, plies)));
  });
  for (const button of document.querySelectorAll("[data-review]")) {
    button.addEventListener("click", () => key({ first: "Home", back: "ArrowLeft", forward: "ArrowRight", last: "End" }[button.dataset.review]));
  }
  return { open, key };
}

/** Step with a key (ArrowLeft, ArrowRight, Home, End); false when no review is shown. */
function key(name) {
  if (!game) return false;
  const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: game.plies }[name];
  if (to === undefined) return false;
  go(to);
  return true;
}

/** Review saved game ``id``: the review kept, or Stockfish goes through it now (its progress shown). */
async function open(id) {
  wanted = id;
  const select = $("review-game");
  if ([...select.options].some((option) => option.value === id)) select.value = id;
  $("review-error").textContent = "";
  $("review-state").textContent = t("Loading the review…");
  let saved = null;
  for (;;) {
    let status, answer;
    try {
      const response = await fetch(`${API}/training/review/${encodeURIComponent(id)}`, speaking());
      status = response.status;
      answer = await response.json().catch(() => ({}));
      if (status === 200 && !saved) {
        const loaded = await fetch(`${API}/games/${encodeURIComponent(id)}`, speaking());
        saved = await loaded.json().catch(() => ({}));
        if (!loaded.ok) throw new Error(saved.error || t("the server answered {status}", { status: loaded.status }));
      }
    } catch (error) {
      if (wanted !== id) return;
      const message = error instanceof TypeError ? t("the server cannot be reached; try again") : error.message;
      $("review-error").textContent = message;
      $("review-state").textContent = "";
      return;
    }
    if (wanted !== id) return;
    if (status === 202) {
      const values = { done: answer.done, count: answer.of };
      $("review-state").textContent = answer.of
        ? t("Stockfish goes through the game: {done} of {count} positions…", values)
        : t("Stockfish goes through the game: {done} positions…", values);
      await new Promise((resolve) => setTimeout(resolve, 300));
      continue;
    }
    if (status !== 200) {
      $("review-error").textContent = answer.error || t("the server answered {status}", { status });
      $("review-state").textContent = "";
      return;
    }
    show(id, answer, saved);
    return;
  }
}

function show(id, answer, saved) {
  review = answer;
  game = saved;
  const marked = review.mistakes.length;
  // TRANSLATORS: {game} is "Ann – Stockfish 0-1", {limit} how deep Stockfish searched ("depth 14")
  $("review-state").textContent = tn("{game}: searched at {limit}, {count} move marked.", "{game}: searched at {limit}, {count} moves marked.", marked, {
    game: `${playerName(game.white)} – ${playerName(game.black)} ${game.result}`,
    limit: review.limit,
    count: marked,
  });
  $("review-body").hidden = false;
  const flipped = game.black.kind === "web" && game.white.kind !== "web";
  board().set({ orientation: flipped ? "black" : "white" });
  drawSides();
  listMistakes(id);
  const first = review.mistakes.find((m) => m.judgement === "blunder") || review.mistakes[0];
  go(first ? first.ply : game.plies);
  $("review").scrollIntoView({ block: "start" });
}

/** Show the position after ``target`` half-moves (kept within the game). */
function go(target) {
  if (!game) return;
  ply = Math.max(0, Math.min(game.plies, target));
  const mistake = review.mistakes.find((m) => m.ply === ply);
  const san = ply ? game.san[ply - 1] : "";
  const blackFirst = (game.start_fen || "").split(" ")[1] === "b";
  const toMove = (ply + (blackFirst ? 1 : 0)) % 2 === 0 ? "white" : "black";
  const shapes = [];
  if (mistake && mistake.best_uci) {
    const [orig, dest] = moveSquares(mistake.best_uci);
    shapes.push({ orig, dest, brush: "green" });
  }
  board().set({
    fen: game.boards[ply],
    lastMove: ply ? moveSquares(game.uci[ply - 1]) : undefined,
    check: /[+#]$/.test(san) ? toMove : false,
    drawable: { autoShapes: shapes },
  });
  const shown = $("review-board");
  shown.dataset.fen = board().getFen();
  shown.dataset.ply = String(ply);
  const point = review.evaluations[ply];
  const where = plyText(game.san, game.start_fen, ply);
  const position = `${where.charAt(0).toUpperCase()}${where.slice(1)}`;
  let words = t("{position} ({number} of {count})", { position, number: ply, count: game.plies });
  // TRANSLATORS: where the review stands ("After 5. Qg4?? (9 of 40)"), then what Stockfish says of it
  if (mistake) words = t("{where}: {comment}", { where: words, comment: mistakeText(mistake, review.start_fen, review.evaluations) });
  else if (point) words = t("{where}: {comment}", { where: words, comment: evaluationText(point.text) });
  $("review-ply").textContent = words;
  for (const button of document.querySelectorAll("[data-review]")) {
    const back = button.dataset.review === "first" || button.dataset.review === "back";
    button.disabled = back ? ply === 0 : ply === game.plies;
  }
  for (const item of $("mistakes").querySelectorAll("button.mistake")) {
    const current = Number(item.dataset.ply) === ply;
    item.classList.toggle("current", current);
    if (current) item.setAttribute("aria-current", "step");
    else item.removeAttribute("aria-current");
  }
  drawEvaluation();
}

function drawEvaluation() {
  const plot = $("eval-plot");
  plot.replaceChildren();
  const points = review.evaluations;
  const plies = Math.max(1, points.length - 1);
  const x = (i) => LEFT + ((RIGHT - LEFT) * i) / plies;
  const y = (chances) => (TOP + BOTTOM) / 2 - ((BOTTOM - TOP) / 2) * chances;
  element("rect", { class: "plot-area", x: LEFT, y: TOP, width: RIGHT - LEFT, height: BOTTOM - TOP }, plot);
  const line = points.map((p, i) => `${x(i)},${y(p.chances)}`);
  element("polygon", { class: "white-area", points: `${LEFT},${BOTTOM} ${line.join(" ")} ${x(points.length - 1)},${BOTTOM}` }, plot);
  element("line", { class: "axis even", x1: LEFT, y1: y(0), x2: RIGHT, y2: y(0) }, plot);
  element("polyline", { class: "line", points: line.join(" ") }, plot);
  // the move axis: the number of every few White moves under its point
  const moves = Math.ceil(plies / 2);
  const every = [1, 2, 5, 10, 20, 50, 100].find((step) => moves / step <= 12) || 200;
  element("line", { class: "axis", x1: LEFT, y1: BOTTOM, x2: RIGHT, y2: BOTTOM }, plot);
  const axis = element("g", { class: "move-axis" }, plot);
  for (let i = 1; i <= plies; i += 1) {
    const label = moveLabel(i, review.start_fen);
    const number = parseInt(label, 10);
    if (!label.endsWith(".") || (number !== 1 && number % every !== 0)) continue;
    element("line", { class: "tick", x1: x(i), y1: BOTTOM, x2: x(i), y2: BOTTOM + 4 }, axis);
    element("text", { x: x(i), y: BOTTOM + 18, "text-anchor": "middle" }, axis).textContent = String(number);
  }
  // TRANSLATORS: the review graph's axis of move numbers
  element("text", { x: RIGHT, y: BOTTOM + 34, "text-anchor": "end" }, plot).textContent = t("move");
  element("text", { class: "side-label", x: LEFT + 6, y: TOP + 18 }, plot).textContent = t("White ahead");
  element("text", { class: "side-label", x: LEFT + 6, y: BOTTOM - 8 }, plot).textContent = t("Black ahead");
  // where the board is
  element("line", { class: "cursor", x1: x(ply), y1: TOP, x2: x(ply), y2: BOTTOM }, plot);
  for (const mistake of review.mistakes) {
    const point = points[mistake.ply];
    if (!point) continue;
    const dot = element("circle", { class: `mark ${mistake.judgement}`, cx: x(mistake.ply), cy: y(point.chances), r: 5 }, plot);
    dot.dataset.ply = String(mistake.ply);
    element("title", {}, dot).textContent = mistakeText(mistake, review.start_fen, points);
  }
  element("circle", { class: "current", cx: x(ply), cy: y((points[ply] || points[0]).chances), r: 4 }, plot);
  plot.dataset.ply = String(ply);
}

function drawSides() {
  const table = $("review-sides");
  const head = document.createElement("tr");
  for (const text of ["", t("inaccuracies ?!"), t("mistakes ?"), t("blunders ??"), t("accuracy")]) {
    const cell = document.createElement("th");
    cell.textContent = text;
    head.append(cell);
  }
  const rows = ["white", "black"].map((side) => {
    const figures = sideFigures(review, side);
    const row = document.createElement("tr");
    row.dataset.side = side;
    const name = document.createElement("th");
    name.scope = "row";
    const player = { name: playerName(game[side]) };
    name.textContent = side === "white" ? t("White: {name}", player) : t("Black: {name}", player);
    row.append(name);
    for (const value of [figures.inaccuracies, figures.mistakes, figures.blunders]) {
      const cell = document.createElement("td");
      cell.textContent = String(value);
      row.append(cell);
    }
    const accuracy = document.createElement("td");
    const reckoned = figures.accuracy !== null && figures.accuracy !== undefined;
    accuracy.textContent = reckoned ? number(Math.round(figures.accuracy) / 100, { style: "percent" }) : "–";
    row.append(accuracy);
    return row;
  });
  table.replaceChildren(head, ...rows);
}

function listMistakes(id) {
  const list = $("mistakes");
  list.replaceChildren(
    ...review.mistakes.map((mistake) => {
      const item = document.createElement("li");
      item.className = mistake.judgement;
      const show = document.createElement("button");
      show.type = "button";
      show.className = "mistake";
      show.dataset.ply = String(mistake.ply);
      show.textContent = mistakeText(mistake, review.start_fen, review.evaluations);
      show.addEventListener("click", () => go(mistake.ply));
      const replay = document.createElement("button");
      replay.type = "button";
      replay.className = "replay";
      replay.textContent = t("Replay from here");
      replay.addEventListener("click", async () => {
        const player = $("review-form").player.value;
        const answer = await post("/training/replay", { game: id, ply: mistake.ply, player }, "review-error");
        if (answer) location.href = "/";
      });
      item.append(show, replay);
      return item;
    }),
  );
  if (!review.mistakes.length) {
    const none = document.createElement("li");
    none.textContent = t("No move marked: neither side gave away 0.1 of its winning chances.");
    list.append(none);
  }
}
