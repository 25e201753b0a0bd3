// The training page: puzzles on the table (solved here, at the board, by voice or with buttons), the
// rating and the results over time, and reviews of saved games with "replay from here".
import { liveBoard } from "./board.js";

const API = "/api/v1";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

let state = null; // the live snapshot, kept current by the feed
let lastAttempts = -1; // how many attempts the plots were drawn for

const board = liveBoard($("puzzle-board"), $("promotion"), {
  move: async (uci) => (await post("/move", { move: uci }, "puzzle-error")) !== null,
  select: (square) => post("/select", { square }, null),
  say: (message) => showState(message),
  played: () => {},
});

async function post(path, body, errorAt) {
  if (errorAt) $(errorAt).textContent = "";
  try {
    const response = await fetch(API + path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      if (errorAt) $(errorAt).textContent = answer.error || `the server answered ${response.status}`;
      return null;
    }
    return answer;
  } catch (error) {
    if (errorAt) $(errorAt).textContent = `the server cannot be reached (${error.message})`;
    return null;
  }
}

async function get(path) {
  const response = await fetch(API + path);
  const answer = await response.json().catch(() => ({}));
  return { status: response.status, answer };
}

// --- the live feed: the puzzle under way ----------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${API}/live`);
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "snapshot") {
      state = message.state;
    } else if (message.type === "update" && state) {
      Object.assign(state, message.parts);
      for (const [part, changed] of Object.entries(message.patch || {})) Object.assign(state[part], changed);
    }
    render();
  });
  socket.addEventListener("close", () => {
    $("status").textContent = "the server is not answering; reconnecting…";
    setTimeout(connect, 1000);
  });
}

function render() {
  if (!state) return;
  $("status").textContent = state.status;
  const puzzle = state.training;
  const game = state.game;
  if (puzzle && game) {
    board.orient(puzzle.colour);
    const mine = state.prompt ? state.prompt.colour : null;
    board.show({
      fen: game.fen.split(" ")[0],
      lastMove: game.lastmove,
      check: game.check ? game.turn : null,
      turn: game.turn,
      plies: game.uci.length,
      variant: game.variant,
      mine,
      playing: true,
      prompt: mine ? state.prompt : null,
      hint: null,
      cursor: null,
    });
    const of = puzzle.of ? ` of ${puzzle.of}` : "";
    const themes = puzzle.themes.length ? ` · ${puzzle.themes.join(", ")}` : "";
    $("puzzle-about").textContent =
      `Puzzle ${puzzle.number}${of}: ${puzzle.id}, rated ${puzzle.rating}${themes}. ` +
      `You play ${puzzle.colour}; ${puzzle.moves} move${puzzle.moves > 1 ? "s" : ""} to find.`;
    const words = {
      "setting up": "The robot sets the puzzle up…",
      solving: puzzle.hint ? `Hint: ${puzzle.hint.text}` : `${cap(puzzle.colour)} to play: find the best move.`,
      wrong: "Not the move: it goes back. Try again.",
      solution: "The solution, played out by the robot.",
      solved: `Solved! Your rating: ${puzzle.rating_after}.`,
      failed: `Failed. Your rating: ${puzzle.rating_after}.`,
    };
    showState(words[puzzle.state] || puzzle.state, puzzle.state);
    const done = $("puzzle-done");
    done.replaceChildren(
      ...puzzle.done.map((attempt) => {
        const item = document.createElement("li");
        item.className = attempt.solved ? "solved" : "failed";
        item.textContent = `${attempt.puzzle}: ${attempt.solved ? "solved" : "failed"} in ${attempt.seconds} s`;
        return item;
      }),
    );
    if (puzzle.done.length !== lastAttempts) loadSummary();
  }
}

function cap(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function showState(text, kind = "") {
  const line = $("puzzle-state");
  line.textContent = text || "";
  line.className = `puzzle-state ${kind}`;
}

$("puzzle-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const body = { player: form.player.value, count: Number(form.count.value) || 10 };
  if (form.rating.value) body.rating = Number(form.rating.value);
  if (form.theme.value.trim()) body.theme = form.theme.value.trim();
  await post("/training/puzzles", body, "puzzle-error");
});
$("hint").addEventListener("click", () => post("/training/request", { what: "hint" }, "puzzle-error"));
$("give-up").addEventListener("click", () => post("/training/request", { what: "give up" }, "puzzle-error"));
$("stop").addEventListener("click", () => post("/stop", {}, "puzzle-error"));

// --- the rating and the results over time ---------------------------------------------------------

function element(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

async function loadSummary() {
  const { answer } = await get("/training");
  if (!answer.attempts) return;
  lastAttempts = (state && state.training && state.training.done.length) || 0;
  $("rating-now").textContent = `${answer.rating}${answer.provisional ? "?" : ""} (± ${answer.deviation})`;
  $("themes").replaceChildren(
    ...answer.themes.map((theme) => Object.assign(document.createElement("option"), { value: theme })),
  );
  const counts = answer.puzzles;
  $("rating-note").textContent =
    `${answer.attempts.length} puzzles played. The store holds ${counts.starter} starter puzzles, ` +
    `${counts.lichess} from lichess and ${counts.game} from your games.`;
  drawRating(answer.attempts);
  drawResults(answer.attempts);
}

function drawRating(attempts) {
  const plot = $("rating-plot");
  plot.replaceChildren();
  if (!attempts.length) return;
  const ratings = [1500, ...attempts.map((a) => a.rating)];
  const low = Math.min(...ratings) - 50;
  const high = Math.max(...ratings) + 50;
  const x = (i) => 40 + (540 * i) / Math.max(1, ratings.length - 1);
  const y = (r) => 170 - (160 * (r - low)) / (high - low);
  element("line", { class: "axis", x1: 40, y1: 170, x2: 580, y2: 170 }, plot);
  for (const r of [low + 50, high - 50]) {
    element("text", { x: 2, y: y(r) + 4 }, plot).textContent = String(Math.round(r));
  }
  element("polyline", { class: "line", points: ratings.map((r, i) => `${x(i)},${y(r)}`).join(" ") }, plot);
  attempts.forEach((attempt, i) => {
    const dot = element("circle", { cx: x(i + 1), cy: y(attempt.rating), r: 3 }, plot);
    dot.setAttribute("class", attempt.solved ? "solved" : "failed");
    element("title", {}, dot).textContent =
      `${attempt.at}: puzzle ${attempt.puzzle} (${attempt.puzzle_rating}) ${attempt.solved ? "solved" : "failed"}`;
  });
}

function drawResults(attempts) {
  const plot = $("results-plot");
  plot.replaceChildren();
  const days = new Map();
  for (const attempt of attempts) {
    const day = attempt.at.slice(0, 10);
    const counts = days.get(day) || { solved: 0, failed: 0 };
    counts[attempt.solved ? "solved" : "failed"] += 1;
    days.set(day, counts);
  }
  const entries = [...days.entries()].slice(-30);
  if (!entries.length) return;
  const most = Math.max(...entries.map(([, c]) => c.solved + c.failed));
  const width = 540 / entries.length;
  entries.forEach(([day, counts], i) => {
    const x = 40 + i * width;
    const solved = (90 * counts.solved) / most;
    const failed = (90 * counts.failed) / most;
    element("rect", { class: "solved", x, y: 100 - solved, width: width * 0.8, height: solved }, plot);
    element("rect", { class: "failed", x, y: 100 - solved - failed, width: width * 0.8, height: failed }, plot);
    element("title", {}, plot.lastChild).textContent = `${day}: ${counts.solved} solved, ${counts.failed} failed`;
  });
  element("text", { x: 40, y: 115 }, plot).textContent = `${entries[0][0]} … ${entries[entries.length - 1][0]}`;
}

// --- reviews --------------------------------------------------------------------------------------

async function loadGames() {
  const { answer } = await get("/games");
  const select = $("review-game");
  select.replaceChildren(
    ...(answer || []).map((game) =>
      Object.assign(document.createElement("option"), {
        value: game.id,
        textContent: `${game.started.slice(0, 16).replace("T", " ")}: ${game.white} – ${game.black} ${game.result}`,
      }),
    ),
  );
}

$("review-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const id = $("review-game").value;
  if (!id) return;
  $("review-error").textContent = "";
  for (;;) {
    const { status, answer } = await get(`/training/review/${id}`);
    if (status === 202) {
      $("review-state").textContent = `Stockfish goes through the game: ${answer.done} of ${answer.of || "?"} positions…`;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    if (status !== 200) {
      $("review-error").textContent = answer.error || `the server answered ${status}`;
      $("review-state").textContent = "";
      return;
    }
    $("review-state").textContent = `Searched at ${answer.limit}: ${answer.mistakes.length} moves marked.`;
    drawEvaluation(answer);
    listMistakes(id, answer);
    return;
  }
});

function drawEvaluation(review) {
  const plot = $("eval-plot");
  plot.replaceChildren();
  const points = review.evaluations;
  const x = (i) => 20 + (560 * i) / Math.max(1, points.length - 1);
  const y = (chances) => 100 - 90 * chances;
  element("line", { class: "axis", x1: 20, y1: 100, x2: 580, y2: 100 }, plot);
  const area = points.map((p, i) => `${x(i)},${y(p.chances)}`);
  element("polygon", { class: "white-area", points: `20,190 ${area.join(" ")} ${x(points.length - 1)},190` }, plot);
  element("polyline", { class: "line", points: area.join(" ") }, plot);
  for (const mistake of review.mistakes) {
    const point = points[mistake.ply];
    const dot = element("circle", { class: "mistake", cx: x(mistake.ply), cy: y(point.chances), r: 4 }, plot);
    element("title", {}, dot).textContent = mistake.text;
  }
  element("text", { x: 22, y: 14 }, plot).textContent = "White winning";
  element("text", { x: 22, y: 196 }, plot).textContent = "Black winning";
}

function listMistakes(id, review) {
  const list = $("mistakes");
  list.replaceChildren(
    ...review.mistakes.map((mistake) => {
      const item = document.createElement("li");
      item.textContent = `${mistake.text} — ${mistake.judgement}`;
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Replay from here";
      button.addEventListener("click", async () => {
        const player = $("review-form").player.value;
        const answer = await post("/training/replay", { game: id, ply: mistake.ply, player }, "review-error");
        if (answer) location.href = "/";
      });
      item.appendChild(button);
      return item;
    }),
  );
}

connect();
loadSummary();
loadGames();
