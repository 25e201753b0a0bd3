// The training page: puzzles on the table (solved here, at the board, by voice or with buttons), the
// rating and the results over time (training-plots.js), and reviews of saved games (training-review.js).
//
// A puzzle is the live state's "training" part (chessatron.training.table): the page's board shows it,
// a wrong move goes back at once, hints are drawn on the board (a circle on the piece, then an arrow to
// its square), each right move and the puzzle's end are said with the rating's change, and after the
// end its solution can be stepped through on the board (GET /api/v1/training/puzzle/{id}).
import { liveBoard } from "./board.js";
import { countdownText, moveSquares, shownName } from "./format.js";
import { number, setUpLanguageMenu, shownLine, shownSan, speaking, startLanguage, t, tn, when } from "./i18n.js";
import { drawRating, drawResults } from "./training-plots.js";
import { setUpReview } from "./training-review.js";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);
const FORM_KEY = "chessatron.training.form";
const REVIEW_HASH = /^#review=([0-9a-z]{1,32})$/;
/** Wrong moves after which the robot shows the solution (chessatron.training.table.MAX_WRONG). */
const MAX_WRONG = 3;

let state = null; // the live snapshot, kept current by the feed
let workAt = 0; // when the robot's work (and its time left) last arrived
let summary = null; // GET /api/v1/training: the rating, every attempt, the themes' names
let summaryFor = -1; // how many attempts of the set the summary was loaded after
let formFilled = false; // the form shows the set under way (once a page load)
let wrongSeen = { id: null, count: 0 }; // the wrong moves of the puzzle under way the board has put back
let solution = null; // the last finished puzzle's solution: {id, colour, positions, text}
let step = null; // the solution's position shown on the board, or null: the live puzzle
let stepper = "solution"; // what the arrow keys step through: the solution, or the review
let autoShown = null; // the failed puzzle whose solution the board went to by itself
let prompted = null; // the puzzle this page was last asked to move in (its solver is this page)

const board = liveBoard($("puzzle-board"), $("promotion"), {
  move: async (uci) => (await post("/move", { move: uci }, "puzzle-error")) !== null,
  select: (square) => post("/select", { square }, null),
  say: (message) => {
    $("puzzle-info").textContent = message;
  },
  played: () => {},
});

async function post(path, body, errorAt) {
  if (errorAt) $(errorAt).textContent = "";
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
      if (errorAt) $(errorAt).textContent = answer.error || t("the server answered {status}", { status: response.status });
      return null;
    }
    return answer;
  } catch (error) {
    if (errorAt) $(errorAt).textContent = t("the server cannot be reached ({reason})", { reason: error.message });
    return null;
  }
}

const review = setUpReview(post);

// --- the live feed: the puzzle under way ----------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${API}/live`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "snapshot") {
      state = message.state;
      workAt = performance.now();
    } else if (message.type === "update" && state) {
      Object.assign(state, message.parts);
      for (const [part, changed] of Object.entries(message.patch || {})) Object.assign(state[part], changed);
      if ("gantry" in message.parts || (message.patch && message.patch.gantry)) workAt = performance.now();
    }
    render();
  });
  socket.addEventListener("close", () => {
    $("status").textContent = t("the server is not answering; reconnecting…");
    setTimeout(connect, 1000);
  });
}

/** The puzzle on the live state, when the live board shows it (a game played since has its own). */
function livePuzzle() {
  const puzzle = state && state.training;
  const game = state && state.game;
  return puzzle && game && game.id === `puzzle-${puzzle.id}` ? puzzle : null;
}

function running() {
  return Boolean(state && state.runner && state.runner.job === "training");
}

function render() {
  if (!state) return;
  $("status").textContent = state.status;
  renderProgress();
  const puzzle = livePuzzle();
  if (!puzzle) return;
  if (!formFilled && running() && puzzle.of) $("puzzle-form").count.value = String(puzzle.of);
  formFilled = true;
  const game = state.game;
  const solving = puzzle.state === "solving" || puzzle.state === "wrong";
  // a wrong move was taken and refused: the board shows the position again at once
  if (wrongSeen.id !== puzzle.id) wrongSeen = { id: puzzle.id, count: 0 };
  if (puzzle.wrong > wrongSeen.count) {
    wrongSeen.count = puzzle.wrong;
    board.refused();
  }
  if (solving && step !== null) closeSolution(); // the next puzzle is the person's to solve
  board.orient(puzzle.colour);
  if (state.prompt) prompted = puzzle.id;
  // between a wrong move and the next prompt the page's player may already make their next move (a
  // premove, played as soon as the prompt is back)
  const mine = state.prompt ? state.prompt.colour : solving && prompted === puzzle.id ? puzzle.colour : null;
  board.show({
    fen: game.fen.split(" ")[0],
    lastMove: game.lastmove,
    check: game.check ? game.turn : null,
    turn: game.turn,
    plies: game.uci.length,
    variant: game.variant,
    mine,
    playing: solving,
    prompt: state.prompt && puzzle.state === "solving" ? state.prompt : null,
    hint: null,
    shapes: puzzle.state === "solving" ? hintShapes(puzzle.hint) : [],
    cursor: null,
  });
  const counted = { number: puzzle.number, count: puzzle.of };
  $("puzzle-about").textContent = puzzle.of ? t("Puzzle {number} of {count}", counted) : t("Puzzle {number}", counted);
  const themes = puzzle.themes.map(themeName).join(" · ");
  const values = { id: puzzle.id, rating: puzzle.rating, count: puzzle.moves };
  // TRANSLATORS: the puzzle under way: {id} is its id, {rating} its rating, {count} the moves to find
  const about = puzzle.colour === "white"
    ? tn("#{id}, rated {rating} · you play white, {count} move to find", "#{id}, rated {rating} · you play white, {count} moves to find", puzzle.moves, values)
    : tn("#{id}, rated {rating} · you play black, {count} move to find", "#{id}, rated {rating} · you play black, {count} moves to find", puzzle.moves, values);
  $("puzzle-themes").textContent = themes ? `${about} · ${themes}` : about;
  renderState(puzzle, game);
  renderDone(puzzle);
  renderResult(puzzle);
  const playing = running() && solving;
  $("puzzle-buttons").hidden = false;
  $("hint").disabled = !playing;
  $("give-up").disabled = !playing;
  $("stop").disabled = !running();
  $("puzzle-form").querySelector("button[type=submit]").disabled = running();
  if (puzzle.done.length !== summaryFor) loadSummary();
}

/** The hint on the board: the piece to move ringed, then an arrow to its square. */
function hintShapes(hint) {
  if (!hint) return [];
  if (hint.from && hint.from !== hint.square) return [{ orig: hint.from, dest: hint.square, brush: "green" }];
  return [{ orig: hint.square, brush: "green" }];
}

function renderState(puzzle, game) {
  const rightSoFar = Math.max(0, (game.uci.length - 1) / 2);
  let words;
  let kind = puzzle.state.replace(" ", "-");
  if (puzzle.state === "setting up") {
    words = t("The robot sets the puzzle up…");
  } else if (puzzle.state === "solving") {
    // (the hint's words are the table's, in the table's language)
    if (puzzle.hint) words = t("Hint: {hint}.", { hint: puzzle.hint.text });
    else if (rightSoFar >= 1) [words, kind] = [t("Right! Keep going: find the next move."), "right"];
    else words = puzzle.colour === "white" ? t("White to play: find the best move.") : t("Black to play: find the best move.");
  } else if (puzzle.state === "wrong") {
    const left = MAX_WRONG - puzzle.wrong;
    words = left > 0
      ? tn("Not the move: it goes back. Try again ({count} more try).", "Not the move: it goes back. Try again ({count} more tries).", left, { count: left })
      : t("Not the move: here is the solution.");
  } else if (puzzle.state === "solution") {
    words = t("The robot plays the solution out.");
  } else if (puzzle.state === "solved") {
    words = t("Right!");
  } else if (puzzle.state === "failed") {
    words = puzzle.gave_up ? t("Not this time: here is the solution.") : t("Done, with help: it counts as failed.");
  } else {
    words = puzzle.state;
  }
  const line = $("puzzle-state");
  line.textContent = words;
  line.className = `puzzle-state ${kind}`;
}

/** The robot's work while it sets a puzzle up (or puts a wrong move back): what, how far, how long. */
function renderProgress() {
  const work = state && state.gantry && state.gantry.work;
  const line = $("puzzle-progress");
  const title = work ? work.title : "";
  let words = "";
  if (title.startsWith("PUZZLE SETUP")) words = t("The robot sets the puzzle up");
  else if (title.startsWith("PUZZLE PUT BACK")) words = t("The robot puts the pieces back");
  else if (title.startsWith("SOLUTION")) words = t("The robot plays the solution");
  else if (title.startsWith("PUZZLE")) words = t("The robot makes the move");
  if (words && work.of > 1) {
    words = t("{work} ({number} of {count})", { work: words, number: Math.min(work.index + 1, work.of), count: work.of });
  }
  const left = words ? countdownText(work, (performance.now() - workAt) / 1000) : "";
  // TRANSLATORS: {work} is what the robot does, {left} how long it has left ("about 0:36")
  line.textContent = left ? t("{work}: {left}", { work: words, left }) : words;
  line.hidden = !words;
}

function renderDone(puzzle) {
  $("done-title").hidden = !puzzle.done.length;
  $("puzzle-done").replaceChildren(
    ...puzzle.done.map((attempt) => {
      const item = document.createElement("li");
      item.className = attempt.solved ? "solved" : "failed";
      const values = { puzzle: attempt.puzzle, seconds: number(attempt.seconds) };
      // TRANSLATORS: a puzzle of the set: {puzzle} is its id, {seconds} how long it took
      item.textContent = attempt.solved ? t("#{puzzle}: solved in {seconds} s", values) : t("#{puzzle}: failed in {seconds} s", values);
      return item;
    }),
  );
}

/** The last finished puzzle's moment: solved or failed, in how long, the rating's change; its solution. */
function renderResult(puzzle) {
  const last = puzzle.done[puzzle.done.length - 1];
  const result = $("result");
  result.hidden = !last;
  if (!last) return;
  const ended = puzzle.id === last.puzzle && (puzzle.state === "solved" || puzzle.state === "failed");
  const after = ended ? puzzle.rating_after : Math.round(last.rating);
  const before = ended ? puzzle.your_rating : ratingBefore(puzzle.done);
  const help = [];
  if (last.wrong) help.push(tn("{count} wrong move", "{count} wrong moves", last.wrong, { count: last.wrong }));
  if (last.hints) help.push(tn("{count} hint", "{count} hints", last.hints, { count: last.hints }));
  const seconds = number(last.seconds, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const timed = { seconds, help: help.join(", ") };
  let how;
  if (last.solved) how = help.length ? t("Solved ({help}) in {seconds} s", timed) : t("Solved in {seconds} s", timed);
  else how = help.length ? t("Failed ({help}) in {seconds} s", timed) : t("Failed in {seconds} s", timed);
  let rating = t("rating now {rating}", { rating: after });
  if (before !== null) {
    const change = after - before;
    // TRANSLATORS: the rating's change after a puzzle: "rating 1500 → 1512 (+12)"
    rating = t("rating {before} → {after} ({change})", { before, after, change: `${change >= 0 ? "+" : "−"}${Math.abs(change)}` });
  }
  $("result-of").textContent = t("Puzzle {number}, #{puzzle}", { number: ended ? puzzle.number : puzzle.number - 1, puzzle: last.puzzle });
  const text = $("result-text");
  const said = { how, rating };
  text.textContent = last.solved ? t("Right! {how} — {rating}", said) : t("{how} — {rating}", said);
  text.className = `result-text ${last.solved ? "solved" : "failed"}`;
  result.dataset.puzzle = last.puzzle;
  // the last puzzle's solution waits while the next is the person's to solve
  $("solution").hidden = !solutionFree();
  for (const button of document.querySelectorAll("[data-solution]")) button.disabled = !solution;
  if (solutionFor !== last.puzzle) loadSolution(last.puzzle, !last.solved && ended);
  else if (!last.solved && ended && autoShown !== last.puzzle) {
    autoShown = last.puzzle;
    showStep(0); // after a failure the board shows the solution: the puzzle and the move to find
  }
  renderSteps();
}

/** The rating before the set's last attempt: the one before it in the set, else the store's. */
function ratingBefore(done) {
  if (done.length > 1) return Math.round(done[done.length - 2].rating);
  if (!summary) return null;
  const last = done[done.length - 1];
  const index = summary.attempts.findIndex((a) => a.at === last.at && a.puzzle === last.puzzle);
  if (index < 0) return null;
  return Math.round(index > 0 ? summary.attempts[index - 1].rating : 1500);
}

// --- the solution, stepped through on the board ---------------------------------------------------

let solutionFor = null; // the puzzle whose solution was asked for (once: a refusal is not asked again)
async function loadSolution(id, show) {
  solutionFor = id;
  if (step !== null) closeSolution(); // (another puzzle's)
  solution = null;
  $("solution-line").textContent = "";
  let answer;
  try {
    const response = await fetch(`${API}/training/puzzle/${encodeURIComponent(id)}`);
    if (!response.ok) return;
    answer = await response.json();
  } catch {
    return; // (the page reconnects; the next puzzle asks again)
  }
  if (solutionFor !== id) return;
  solution = answer;
  $("solution-line").textContent = t("The solution: {line}", { line: shownLine(solution.text) });
  if (show) {
    autoShown = id;
    showStep(0);
  }
  render();
}

/** Whether the board may show a solution: no puzzle waits for the person's move. */
function solutionFree() {
  const puzzle = livePuzzle();
  return !puzzle || !(puzzle.state === "solving" || puzzle.state === "wrong");
}

/** Show the solution's position ``index`` on the board: 0 the puzzle as it was set, then after each
 * move; the next move drawn as an arrow (the person's green, the opponent's blue). */
function showStep(index) {
  if (!solution || !solutionFree()) return;
  const positions = solution.positions;
  step = Math.max(0, Math.min(positions.length - 1, index));
  const shown = positions[step];
  const next = positions[step + 1];
  const shapes = [];
  if (next) {
    const [orig, dest] = moveSquares(next.uci);
    shapes.push({ orig, dest, brush: step % 2 === 0 ? "green" : "blue" });
  }
  board.orient(solution.colour);
  board.showPast({ fen: shown.fen, lastMove: shown.uci, check: shown.check, shapes });
  $("puzzle-board-area").classList.add("past");
  stepper = "solution";
  renderSteps();
}

function closeSolution() {
  step = null;
  board.showPast(null);
  $("puzzle-board-area").classList.remove("past");
  renderSteps();
}

function renderSteps() {
  const shown = step !== null && solution;
  $("solution-close").hidden = !shown;
  const words = $("solution-step");
  if (!solution) {
    words.textContent = "";
    return;
  }
  const moves = solution.positions.length - 1;
  if (!shown) {
    words.textContent = t("Step through it on the board: Back and Forward, or the arrow keys.");
  } else if (step === 0) {
    words.textContent = t("The puzzle as it was set (0 of {count}): the arrow shows the move to find.", { count: moves });
  } else {
    const values = { move: shownSan(solution.positions[step].san), number: step, count: moves };
    const yours = step % 2 === 1;
    // TRANSLATORS: a step of a puzzle's solution: {move} is the move, "yours" or "the reply" says whose
    if (step < moves) {
      words.textContent = yours
        ? t("After {move}, yours ({number} of {count}); the arrow shows the next move.", values)
        : t("After {move}, the reply ({number} of {count}); the arrow shows the next move.", values);
    } else {
      words.textContent = yours ? t("After {move}, yours ({number} of {count}).", values) : t("After {move}, the reply ({number} of {count}).", values);
    }
  }
}

for (const button of document.querySelectorAll("[data-solution]")) {
  button.addEventListener("click", () => {
    if (!solution) return;
    const at = step === null ? solution.positions.length - 1 : step;
    const last = solution.positions.length - 1;
    showStep({ first: 0, back: at - 1, forward: step === null ? 0 : at + 1, last }[button.dataset.solution]);
  });
}
$("solution-close").addEventListener("click", closeSolution);

// the arrow keys step through what the person last touched: the solution, or the review
document.addEventListener("pointerdown", (event) => {
  if (event.target.closest("#review")) stepper = "review";
  else if (event.target.closest("#puzzles")) stepper = "solution";
});
document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (event.target.closest("input, select, textarea")) return;
  if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
  if (stepper === "review" || event.target.closest("#review")) {
    if (review.key(event.key)) event.preventDefault();
    return;
  }
  if (!solution || $("result").hidden || !solutionFree()) return;
  event.preventDefault();
  const last = solution.positions.length - 1;
  const at = step === null ? last : step;
  showStep({ ArrowLeft: at - 1, ArrowRight: step === null ? 0 : at + 1, Home: 0, End: last }[event.key]);
});

function themeName(theme) {
  const names = (summary && summary.theme_names) || {};
  return names[theme] || theme;
}

// --- starting a set -------------------------------------------------------------------------------

function restoreForm() {
  const form = $("puzzle-form");
  let kept = {};
  try {
    kept = JSON.parse(localStorage.getItem(FORM_KEY) || "{}");
  } catch {
    kept = {};
  }
  for (const name of ["player", "count", "rating", "theme"]) {
    if (typeof kept[name] === "string" && form[name]) form[name].value = kept[name];
  }
}

$("puzzle-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const kept = {};
  for (const name of ["player", "count", "rating", "theme"]) kept[name] = form[name].value;
  try {
    localStorage.setItem(FORM_KEY, JSON.stringify(kept));
  } catch {
    // a browser that keeps nothing: the form starts from its defaults next time
  }
  const body = { player: form.player.value, count: Number(form.count.value) || 10 };
  if (form.rating.value) body.rating = Number(form.rating.value);
  if (form.theme.value.trim()) body.theme = form.theme.value.trim();
  if (step !== null) closeSolution();
  autoShown = null; // (a puzzle of the last set may come again, and fail again)
  await post("/training/puzzles", body, "puzzle-error");
});
$("hint").addEventListener("click", () => post("/training/request", { what: "hint" }, "puzzle-error"));
$("give-up").addEventListener("click", () => post("/training/request", { what: "give up" }, "puzzle-error"));
$("stop").addEventListener("click", () => post("/stop", {}, "puzzle-error"));

// --- the rating and the results over time ---------------------------------------------------------

async function loadSummary() {
  const puzzle = livePuzzle();
  summaryFor = puzzle ? puzzle.done.length : 0;
  let answer;
  try {
    answer = await (await fetch(`${API}/training`, speaking())).json();
  } catch {
    return;
  }
  if (!answer.attempts) return;
  summary = answer;
  $("rating-now").textContent = `${answer.rating}${answer.provisional ? "?" : ""} (± ${answer.deviation})`;
  $("themes").replaceChildren(
    ...answer.themes.map((theme) =>
      Object.assign(document.createElement("option"), { value: answer.theme_names[theme] || theme }),
    ),
  );
  const counts = answer.puzzles;
  // TRANSLATORS: {starter}, {lichess} and {game} count the store's puzzles of each source
  $("rating-note").textContent = tn(
    "{count} puzzle played. The store holds {starter} starter puzzles, {lichess} from lichess and {game} from your games.",
    "{count} puzzles played. The store holds {starter} starter puzzles, {lichess} from lichess and {game} from your games.",
    answer.attempts.length,
    { count: answer.attempts.length, starter: number(counts.starter), lichess: number(counts.lichess), game: number(counts.game) },
  );
  drawRating($("rating-plot"), answer.attempts);
  drawResults($("results-plot"), answer.attempts);
  render();
}

setInterval(() => {
  // the robot's countdown while it sets a puzzle up ("(9 of 20): about 0:36")
  if (state && state.gantry && state.gantry.work && state.gantry.work.left_s !== undefined) renderProgress();
}, 1000);

// --- the saved games to review --------------------------------------------------------------------

async function loadGames() {
  let answer = [];
  try {
    answer = await (await fetch(`${API}/games`, speaking())).json();
  } catch {
    answer = [];
  }
  const select = $("review-game");
  select.replaceChildren(
    ...(answer || []).map((game) =>
      Object.assign(document.createElement("option"), {
        value: game.id,
        textContent: `${when(game.started)}: ${shownName(game.white)} – ${shownName(game.black)} ${game.result}`,
      }),
    ),
  );
  const wanted = REVIEW_HASH.exec(location.hash);
  if (wanted) {
    stepper = "review";
    review.open(wanted[1]);
  }
}

await startLanguage(); // before the page writes a word
setUpLanguageMenu($("language"));
restoreForm();
connect();
loadSummary();
loadGames();
