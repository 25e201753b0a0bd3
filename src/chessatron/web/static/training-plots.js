// The training page's plots: the rating after every puzzle, the puzzles solved and failed each day (SVG
// drawn from GET /api/v1/training's attempts), and the SVG helper the review's graph uses too.

import { t, when } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

/** A new SVG element ``name`` with ``attributes``, appended to ``parent`` when given. */
export function element(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

/** The rating after every attempt, from 1500, in ``plot``. */
export function drawRating(plot, attempts) {
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
    const values = { when: when(attempt.at), puzzle: attempt.puzzle, rating: attempt.puzzle_rating };
    // TRANSLATORS: a point of the rating's plot: {puzzle} is its id, {rating} the puzzle's rating
    element("title", {}, dot).textContent = attempt.solved
      ? t("{when}: puzzle {puzzle} ({rating}) solved", values)
      : t("{when}: puzzle {puzzle} ({rating}) failed", values);
  });
}

/** The puzzles solved and failed each day (the last 30 days played), in ``plot``. */
export function drawResults(plot, attempts) {
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
    const values = { day: when(day), solved: counts.solved, failed: counts.failed };
    element("title", {}, plot.lastChild).textContent = t("{day}: {solved} solved, {failed} failed", values);
  });
  const [first, last] = [entries[0][0], entries[entries.length - 1][0]];
  element("text", { x: 40, y: 115 }, plot).textContent = `${when(first)} … ${when(last)}`;
}
