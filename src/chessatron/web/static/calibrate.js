// The calibration page: the steps of `chessatron hw calibrate` for a maker at a phone next to the table
// (GET /api/v1/calibrate, polled; POST …/start, …/answer, …/stop). The table's part runs on the server
// and says or asks one thing at a time: the page shows it large, with its answers as buttons, a board to
// tap a square on, or arrows to nudge the magnet with; a reload shows the same step again. What each part
// wrote is shown at its end.

import { speaking, startLanguage, t } from "./i18n.js";

const API = "/api/v1";
/** How often the page asks what the table is doing (ms). */
const POLL_MS = 300;


/** The buttons' words for the answers the parts ask for. */
const ANSWER_WORDS = {
  yes: () => t("Yes"),
  no: () => t("No"),
  ready: () => t("Ready"),
  quick: () => t("Quick path"),
  each: () => t("One square at a time"),
  again: () => t("Look again"),
  skip: () => t("Skip this sensor"),
  touch: () => t("By putting a piece on it"),
  type: () => t("By tapping the square"),
};
const OUTCOME_TITLES = {
  running: () => t("Under way"),
  done: () => t("Done"),
  stopped: () => t("Stopped"),
  failed: () => t("The calibration could not go on"),
};

const $ = (id) => document.getElementById(id);
let shown = null; // the state last shown
let stepShown = null; // the id of the step whose answers are on screen
let sending = false;
let startError = ""; // why the last start was refused

async function send(path, body) {
  const response = await fetch(
    API + path,
    speaking({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  );
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.error || t("the server answered {status}", { status: response.status }));
  return answer;
}

async function start(part) {
  startError = "";
  try {
    await send("/calibrate/start", { part });
  } catch (error) {
    startError = error.message;
  }
  await poll();
}

async function answer(value) {
  if (!shown || !shown.step || sending) return;
  sending = true;
  $("calibrate-error").textContent = "";
  for (const button of $("calibrate-step").querySelectorAll("button:not(#stop)")) button.disabled = true;
  try {
    await send("/calibrate/answer", { step: shown.step.id, answer: value });
  } catch (error) {
    $("calibrate-error").textContent = error.message;
    stepShown = null; // the answers are drawn again for the step the table is at now
  } finally {
    sending = false;
  }
  await poll();
}

async function stop() {
  try {
    await send("/calibrate/stop", {});
  } catch (error) {
    $("calibrate-error").textContent = error.message;
  }
  await poll();
}

function button(text, onClick, extra = {}) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  element.addEventListener("click", onClick);
  for (const [name, value] of Object.entries(extra)) element.setAttribute(name, value);
  return element;
}

function drawParts(state) {
  const parts = $("parts");
  const names = state.parts.map((part) => part.name).join(" ");
  if (parts.dataset.names !== names) {
    parts.dataset.names = names;
    parts.replaceChildren(
      ...state.parts.map((part) => button(part.title, () => start(part.name), { "data-part": part.name })),
      ...(state.parts.length > 1 ? [button(t("All of them, in turn"), () => start("all"), { "data-part": "all" })] : []),
    );
  }
  for (const element of parts.querySelectorAll("button")) element.disabled = Boolean(state.refusal);
  $("start-error").textContent = state.running ? "" : startError || state.refusal || "";
}

function drawSquares(lit) {
  const grid = $("square-grid");
  if (!grid.children.length) {
    for (let rank = 8; rank >= 1; rank -= 1) {
      for (const file of "abcdefgh") {
        const name = `${file}${rank}`;
        const dark = (file.charCodeAt(0) - 97 + rank) % 2 === 1 ? "dark" : ""; // a1 is dark
        grid.append(button(name, () => answer(name), { "data-square": name, class: dark }));
      }
    }
  }
  for (const square of grid.children) {
    const colour = lit[square.dataset.square];
    square.classList.toggle("lit", Boolean(colour));
    if (colour) square.style.setProperty("--lit", `rgb(${colour.join(", ")})`);
    else square.style.removeProperty("--lit");
  }
}

function drawStep(state) {
  const step = state.step;
  const title = state.parts.find((part) => part.name === state.part);
  $("part-title").textContent = title ? title.title : "";
  $("said").replaceChildren(
    ...state.said.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }),
  );
  $("step-text").textContent = step ? step.text : "";
  $("step-text").dataset.step = step ? step.id : "";
  const kind = step ? step.kind : "tell";
  $("squares").hidden = kind !== "square";
  $("nudges").hidden = kind !== "nudge";
  drawSquares(state.lit || {});
  if (!step || stepShown === step.id) return;
  stepShown = step.id;
  $("answers").replaceChildren(
    ...(kind === "ask"
      ? step.answers.map((value) => button((ANSWER_WORDS[value] || (() => value))(), () => answer(value), { "data-answer": value }))
      : []),
  );
  for (const element of $("calibrate-step").querySelectorAll("button")) element.disabled = step.answered && element.id !== "stop";
}

function drawOutcome(state) {
  const outcome = state.outcome;
  $("outcome").hidden = !outcome || outcome.state === "running" && !outcome.lines.length;
  if (!outcome) return;
  $("outcome").className = `outcome ${outcome.state}`;
  $("outcome-title").textContent = OUTCOME_TITLES[outcome.state]();
  $("outcome-lines").replaceChildren(
    ...outcome.lines.map((text) => {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }),
  );
}

function draw(state) {
  shown = state;
  $("calibrate-status").textContent = state.running ? t("calibrating") : t("ready to calibrate");
  $("calibrate-start").hidden = state.running;
  $("calibrate-step").hidden = !state.running;
  drawParts(state);
  if (state.running) drawStep(state);
  else stepShown = null;
  drawOutcome(state);
}

let timer = null;
async function poll() {
  clearTimeout(timer);
  try {
    const response = await fetch(`${API}/calibrate`, speaking());
    const state = await response.json();
    if (response.ok) draw(state);
    else $("calibrate-status").textContent = state.error || t("the server answered {status}", { status: response.status });
  } catch {
    $("calibrate-status").textContent = t("the server cannot be reached; is chessatron serve still running?");
  }
  timer = setTimeout(poll, POLL_MS);
}

function nudgeKey(event) {
  if (!shown || !shown.step || shown.step.kind !== "nudge") return;
  const keys = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down", Enter: "done", "-": "finer", "+": "coarser" };
  if (keys[event.key]) {
    event.preventDefault();
    answer(keys[event.key]);
  }
}

$("stop").addEventListener("click", stop);
$("no-square").addEventListener("click", () => answer(null));
for (const element of document.querySelectorAll("[data-nudge]")) {
  element.addEventListener("click", () => answer(element.dataset.nudge));
}
document.addEventListener("keydown", nudgeKey);
await startLanguage(); // before the page writes a word
poll();
