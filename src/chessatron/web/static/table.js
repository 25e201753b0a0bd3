// The whole table drawn in the page from the live feed: its cells (the board, the capture zones, the
// reserve), every physical piece where it stands, the gantry's crosshair where the robot reports it, the
// drag under way and those still to come, and the piece the magnet carries following the gantry. Nothing
// is fetched: the picture changes with the feed's small updates (the gantry's position a few times a second).
import { number, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const ROLES = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
/** The magnet has a piece once the gantry is this close to where the drag starts (in node pitches). */
const PICKED_UP = 0.35;

function element(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.append(node);
  return node;
}

/** The cburnett pieces as chessground's stylesheet draws them, as image URLs by FEN letter. */
function pieceImages() {
  const probe = document.createElement("div");
  probe.className = "cg-wrap";
  probe.style.display = "none";
  document.body.append(probe);
  const images = {};
  for (const [letter, role] of Object.entries(ROLES)) {
    for (const [symbol, colour] of [[letter.toUpperCase(), "white"], [letter, "black"]]) {
      const piece = document.createElement("piece");
      piece.className = `${role} ${colour}`;
      probe.append(piece);
      const match = /url\("?(.*?)"?\)$/.exec(getComputedStyle(piece).backgroundImage);
      images[symbol] = match ? match[1] : "";
    }
  }
  probe.remove();
  return images;
}

/** A table picture in ``container`` for the table ``layout`` (as GET /api/v1 describes it). */
export function tableView(container, layout) {
  const width = 2 * layout.columns;
  const height = 2 * layout.rows;
  const margin = 0.6;
  const svg = element("svg", {
    viewBox: `${-margin} ${-margin} ${width + 2 * margin} ${height + 2 * margin}`,
    role: "img",
    "aria-label": t("the whole table: the board, the capture zones and the reserve, with the robot's gantry"),
  });
  const kinds = new Map(layout.cells.map(([c, r, kind]) => [`${c},${r}`, kind]));
  const cells = element("g", { class: "cells" }, svg);
  for (let c = 0; c < layout.columns; c += 1) {
    for (let r = 0; r < layout.rows; r += 1) {
      let kind = kinds.get(`${c},${r}`) || "free";
      if (kind === "board") {
        const dark = (c - layout.board_cell[0] + r - layout.board_cell[1]) % 2 === 0;
        kind = dark ? "dark" : "light";
      }
      element("rect", { x: 2 * c, y: height - 2 * r - 2, width: 2, height: 2, class: `cell ${kind}` }, cells);
    }
  }
  const [a1c, a1r] = layout.board_cell;
  element("rect", { x: 2 * a1c, y: height - 2 * a1r - 16, width: 16, height: 16, class: "board-edge" }, svg);
  for (const [c, r, symbol] of layout.reserve) {
    const mark = element("text", { x: 2 * c + 1, y: height - 2 * r - 0.55, class: "reserve-mark" }, cells);
    mark.textContent = symbol;
  }
  for (let n = 0; n < 8; n += 1) {
    const file = element("text", { x: 2 * (a1c + n) + 1, y: height - 2 * a1r + 0.45, class: "coord" }, svg);
    file.textContent = "abcdefgh"[n];
    const rank = element("text", { x: 2 * a1c - 0.3, y: height - 2 * (a1r + n) - 0.85, class: "coord rank" }, svg);
    rank.textContent = String(n + 1);
  }
  const dragsLayer = element("g", { class: "drags" }, svg);
  const piecesLayer = element("g", { class: "pieces" }, svg);
  const gantry = element("g", { id: "gantry", class: "gantry" }, svg);
  element("title", {}, gantry);
  element("circle", { r: 0.62 }, gantry);
  for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
    element("line", { x1: dx * 0.36, y1: dy * 0.36, x2: dx * 0.9, y2: dy * 0.9 }, gantry);
  }
  element("circle", { r: 0.09, class: "dot" }, gantry);
  container.replaceChildren(svg);

  const images = pieceImages();
  const shown = new Map(); // piece id -> its <image>
  let carried = null; // {drag: the work and its drag when the magnet took it, id: the piece}

  /** Node (i, j) in picture units (y down). */
  const at = (i, j) => [i, height - j];

  /** Machine millimetres in node pitches: the inverse of Layout.node_mm. */
  function nodesOf(x, y) {
    const angle = (layout.rotation_deg * Math.PI) / 180;
    // a quarter turn, give or take the small turn calibration measured: the exact turn, not rounded
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const dx = x - layout.origin_mm[0];
    const dy = y - layout.origin_mm[1];
    return [(dx * cos + dy * sin) / layout.pitch_mm, (-dx * sin + dy * cos) / layout.pitch_mm];
  }

  function place(node, i, j) {
    const [x, y] = at(i, j);
    node.style.transform = `translate(${x}px, ${y}px)`;
  }

  function drawPieces(pieces, gantryNodes, work, drags) {
    const seen = new Set();
    // the drag under way: its piece rides with the magnet once the gantry has come to it
    const current = work && drags[work.index];
    let riding = null;
    if (current) {
      const [si, sj] = current.path[0];
      const under = pieces.find((p) => p.node[0] === si && p.node[1] === sj);
      const near = Math.hypot(gantryNodes[0] - si, gantryNodes[1] - sj) < PICKED_UP;
      const drag = `${work.title}/${work.index}`; // this drag of this work, not the same number of the next
      if (carried && carried.drag !== drag) carried = null;
      if (!carried && under && near) carried = { drag, id: under.id };
      riding = carried ? carried.id : null;
    } else {
      carried = null;
    }
    for (const piece of pieces) {
      seen.add(piece.id);
      let image = shown.get(piece.id);
      if (!image) {
        image = element("image", { href: images[piece.symbol], x: -0.8, y: -0.8, width: 1.6, height: 1.6 });
        image.classList.add("piece");
        image.dataset.id = piece.id;
        element("title", {}, image).textContent = piece.id;
        piecesLayer.append(image);
        shown.set(piece.id, image);
      }
      image.classList.toggle("carried", piece.id === riding);
      if (piece.id === riding) place(image, ...gantryNodes);
      else place(image, ...piece.node);
    }
    for (const [id, image] of shown) {
      if (!seen.has(id)) {
        image.remove();
        shown.delete(id);
      }
    }
  }

  function drawDrags(work, drags) {
    dragsLayer.replaceChildren();
    if (!work) return;
    drags.slice(work.index).forEach((drag, index) => {
      const points = drag.path.map(([i, j]) => at(i, j).join(",")).join(" ");
      const white = drag.symbol === drag.symbol.toUpperCase();
      const line = element("polyline", { points, class: `drag ${white ? "white" : "black"} ${drag.purpose}` });
      line.classList.toggle("now", index === 0);
      dragsLayer.append(line);
      const [x, y] = at(...drag.path[0]);
      element("circle", { cx: x, cy: y, r: 0.18, class: `start ${white ? "white" : "black"}` }, dragsLayer);
    });
  }

  return {
    /** Draw the live ``state`` (its table and gantry parts). */
    render(state) {
      const table = state.table || { pieces: [], drags: [] };
      const g = state.gantry;
      const [gi, gj] = nodesOf(g.x, g.y);
      const clampedI = Math.min(Math.max(gi, -margin), width + margin);
      const clampedJ = Math.min(Math.max(gj, -margin), height + margin);
      place(gantry, clampedI, clampedJ);
      const mm = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
      // TRANSLATORS: the gantry's crosshair on the table's picture, where it is in millimetres
      gantry.querySelector("title").textContent = t("gantry at X{x} Y{y}", { x: number(g.x, mm), y: number(g.y, mm) });
      const drags = table.drags || [];
      // the work's counter counts these drags only when they are that work's (not a finished one's)
      const work = g.work && g.work.of === drags.length ? g.work : null;
      drawPieces(table.pieces, [gi, gj], work, drags);
      drawDrags(work, drags);
    },
  };
}
