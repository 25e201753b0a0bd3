// The live board: chessground (lichess's board, served from /static/vendor/) drawn from the live state,
// and the player's moves made on it: by dragging or by tapping a piece and then its square, the legal
// squares marked, a premove while the other side (or the robot) is busy, the promotion piece chosen on the
// board. A move shows at once, in the position and with its SAN (the server's prompt lists every legal
// move's SAN), before the server has it; it is taken back if the server refuses it.
import { Chessground } from "./vendor/chessground/chessground.min.js";
import { moveSquares } from "./format.js";
import { t } from "./i18n.js";

const ROLE_OF = { q: "queen", r: "rook", b: "bishop", n: "knight" };
const opposite = (colour) => (colour === "white" ? "black" : "white");

/** The board in ``element``. ``hooks``: ``move(uci, san)`` sends a move (resolves to whether the server
 * took it), ``select(square | null)`` says which piece the player holds, ``say(message)`` tells the player
 * something about a tap, ``played({san, captured})`` after a move of the player's shows. */
export function liveBoard(element, promotion, hooks) {
  let view = null; // the last live view shown: see show()
  let past = false; // an earlier position of the game is shown
  let pending = null; // the player's move the server has not shown yet: {uci, san, plies}
  let choosing = null; // the promotion chooser's resolve function while it is open
  let ucis = new Map(); // "e7e8" -> the UCI the server knows (castling by the king onto the rook too)
  let told = null; // the square of the piece the server was last told the player holds (hooks.select)

  const ground = Chessground(element, {
    coordinates: true,
    animation: { enabled: true, duration: 180 },
    highlight: { lastMove: true, check: true },
    movable: { free: false, color: undefined, showDests: true, events: { after: onMove } },
    premovable: {
      enabled: true,
      showDests: true,
      castle: true,
      events: {
        set: () => hooks.say(t("Premove: it is played as soon as it is your turn (tap the board to cancel it).")),
        unset: () => hooks.say(""),
      },
    },
    draggable: { enabled: true, showGhost: true },
    drawable: { enabled: true, visible: true },
    events: { select: onSelect, change: mark },
  });

  /** What the page and its tests can read of the board: the position shown, whose side is at the bottom. */
  function mark() {
    element.dataset.fen = ground.getFen();
    element.dataset.orientation = ground.state.orientation;
    element.dataset.lastMove = (ground.state.lastMove || []).join("");
    element.dataset.pending = pending ? pending.uci : "";
  }

  function dests(prompt, variant) {
    const map = new Map();
    ucis = new Map();
    if (!prompt) return map;
    for (const uci of Object.keys(prompt.san || {})) {
      const [from, to] = moveSquares(uci);
      const targets = map.get(from) || [];
      if (!targets.includes(to)) targets.push(to);
      map.set(from, targets);
      ucis.set(from + to, uci.slice(0, 4));
      // standard castling may also be played by putting the king onto its rook, as on lichess
      const castle = variant !== "chess960" && /^e[18]$/.test(from) && /^[gc][18]$/.test(to);
      const san = prompt.san[uci];
      if (castle && san.startsWith("O-O")) {
        const rook = `${to[0] === "g" ? "h" : "a"}${to[1]}`;
        if (!targets.includes(rook)) targets.push(rook);
        ucis.set(from + rook, uci);
      }
    }
    return map;
  }

  /** Show the live ``next`` view: {fen, lastMove (uci), check (colour or null), turn, plies, variant, mine
   * (the colour(s) this page plays, or null), prompt (the server's, when the player is to move), hint
   * (a uci to draw as an arrow, or null), shapes (chessground shapes to draw instead of the hint's arrow:
   * circles and arrows), cursor (the buttons' cursor of the live state, or null: drawn on its squares;
   * while it reviews the game, the position it shows)}. */
  function show(next) {
    view = next;
    if (!next.prompt) told = null; // not the player's turn: they hold nothing the server cares about
    if (pending && next.plies !== pending.plies) pending = null; // the server has shown it (or more)
    if (choosing && !next.prompt) closeChooser(null);
    if (past) return;
    const optimistic = pending !== null;
    const interactive = Boolean(next.prompt) && !optimistic;
    const mine = next.mine;
    // while the other side (or the robot carrying out a move) keeps the player waiting, the board is the
    // other side's to move, so that a piece moved is a premove
    let turnColor = next.turn;
    if (mine && mine !== "both" && !interactive) turnColor = opposite(mine);
    if (optimistic) turnColor = opposite(next.turn);
    const config = {
      turnColor,
      movable: { color: mine || undefined, dests: interactive ? dests(next.prompt, next.variant) : new Map() },
      premovable: { enabled: Boolean(mine) && mine !== "both" },
      drawable: { autoShapes: next.shapes || (next.hint ? [{ orig: next.hint.slice(0, 2), dest: next.hint.slice(2, 4), brush: "blue" }] : []) },
      highlight: { lastMove: true, check: true, custom: cursorSquares(next.cursor) },
    };
    if (!optimistic) {
      config.fen = next.fen;
      config.lastMove = moveSquares(next.lastMove);
      config.check = next.check || false;
      if (next.cursor && next.cursor.fen) {
        // the buttons review the game: the board shows the position they look at
        config.fen = next.cursor.fen.split(" ")[0];
        config.lastMove = moveSquares(next.cursor.move);
        config.check = false;
      }
    }
    if (!mine) ground.cancelPremove();
    ground.set(config);
    mark();
    if (interactive) ground.playPremove();
  }

  /** The squares the buttons' ``cursor`` marks, as chessground's custom highlights (square -> classes). */
  function cursorSquares(cursor) {
    const marks = new Map();
    if (!cursor) return marks;
    const add = (square, name) => {
      if (square) marks.set(square, marks.has(square) ? `${marks.get(square)} ${name}` : name);
    };
    for (const [square, capture] of Object.entries(cursor.targets || {})) add(square, capture ? "btn-capture" : "btn-target");
    if (cursor.mode === "promoting") for (const square of cursor.choices || []) add(square, "btn-target");
    add(cursor.held, "btn-held");
    add(cursor.refused, "btn-refused");
    add(cursor.square, "btn-cursor");
    return marks;
  }

  /** Show an earlier position of the game ({fen, lastMove, check, shapes}), the board still; null: the
   * live one. */
  function showPast(position) {
    if (position === null) {
      past = false;
      if (view) show(view);
      return;
    }
    past = true;
    ground.cancelMove();
    ground.cancelPremove();
    ground.set({
      fen: position.fen,
      lastMove: moveSquares(position.lastMove),
      check: position.check || false,
      movable: { color: undefined, dests: new Map() },
      drawable: { autoShapes: position.shapes || [] },
      highlight: { lastMove: true, check: true, custom: new Map() },
    });
    mark();
  }

  function onSelect(key) {
    if (!view || past) return;
    const state = ground.state;
    const piece = state.pieces.get(key);
    const held = state.selected;
    const reachable = held && ((state.movable.dests && state.movable.dests.get(held)) || []).includes(key);
    const premovable = held && (state.premovable.dests || []).includes(key);
    const mine = view.mine;
    if (piece && mine && mine !== "both" && piece.color !== mine && !reachable && !premovable) {
      hooks.say(notYours(piece, key));
    } else if (!mine && piece && view.playing) {
      hooks.say(t("No one plays from this page in this game: it only watches."));
    } else {
      hooks.say("");
    }
    // the server hears which piece the player holds (its robot's magnet heads for it) as soon as it is
    // picked up, on a press that starts a drag too; chessground tells of a piece selected after its own
    // work, so that ground.state says what is held now
    queueMicrotask(() => {
      if (!view || !view.prompt || pending) return;
      const now = ground.state.selected || null;
      // a tap on a square the held piece may go to makes the move (sent next): the piece was not put down
      if (now === null && told !== null && ucis.has(told + key)) {
        told = null;
        return;
      }
      told = now;
      hooks.select(now);
    });
  }

  /** What a tap on the other side's ``piece`` on ``square`` tells the player (one sentence per piece and
   * colour: the words for a piece agree with it in many languages). */
  function notYours(piece, square) {
    const values = { square };
    const black = {
      king: () => t("The king on {square} is Black's; you play White.", values),
      queen: () => t("The queen on {square} is Black's; you play White.", values),
      rook: () => t("The rook on {square} is Black's; you play White.", values),
      bishop: () => t("The bishop on {square} is Black's; you play White.", values),
      knight: () => t("The knight on {square} is Black's; you play White.", values),
      pawn: () => t("The pawn on {square} is Black's; you play White.", values),
    };
    const white = {
      king: () => t("The king on {square} is White's; you play Black.", values),
      queen: () => t("The queen on {square} is White's; you play Black.", values),
      rook: () => t("The rook on {square} is White's; you play Black.", values),
      bishop: () => t("The bishop on {square} is White's; you play Black.", values),
      knight: () => t("The knight on {square} is White's; you play Black.", values),
      pawn: () => t("The pawn on {square} is White's; you play Black.", values),
    };
    return (piece.color === "white" ? white : black)[piece.role]();
  }

  async function onMove(orig, dest, metadata) {
    if (!view || !view.prompt) return resync();
    const uci = ucis.get(orig + dest);
    if (!uci) return resync();
    const moved = ground.state.pieces.get(dest);
    let full = uci;
    if ((view.prompt.promotion || []).includes(uci)) {
      const piece = metadata.premove ? "q" : await choosePiece(dest, view.turn);
      if (!piece || !view.prompt) return resync();
      full = uci + piece;
      ground.setPieces(new Map([[dest, { role: ROLE_OF[piece], color: view.turn, promoted: true }]]));
    } else if (moved && moved.role === "pawn" && orig[0] !== dest[0] && !metadata.captured) {
      ground.setPieces(new Map([[`${dest[0]}${orig[1]}`, undefined]])); // en passant
    }
    const san = (view.prompt.san || {})[full] || full;
    pending = { uci: full, san, plies: view.plies };
    if (/[+#]$/.test(san)) ground.set({ check: opposite(view.turn) });
    mark();
    hooks.played({ san, captured: san.includes("x") });
    const taken = await hooks.move(full, san);
    if (!taken && pending && pending.uci === full) {
      pending = null;
      resync();
    }
  }

  function resync() {
    if (view) show(view);
  }

  /** The promotion chooser over the board, on the file of ``square``: resolves to q, r, b, n or "". */
  function choosePiece(square, colour) {
    const file = square.charCodeAt(0) - 97;
    const top = (square[1] === "8") === (ground.state.orientation === "white");
    const column = ground.state.orientation === "white" ? file : 7 - file;
    promotion.style.setProperty("--column", String(column));
    promotion.classList.toggle("from-bottom", !top);
    for (const piece of promotion.querySelectorAll("piece")) {
      piece.classList.toggle("white", colour === "white");
      piece.classList.toggle("black", colour === "black");
    }
    promotion.hidden = false;
    promotion.querySelector("button").focus({ preventScroll: true });
    return new Promise((resolve) => {
      choosing = resolve;
    });
  }

  function closeChooser(piece) {
    promotion.hidden = true;
    const resolve = choosing;
    choosing = null;
    if (resolve) resolve(piece);
  }

  promotion.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (button) closeChooser(button.dataset.piece || "");
    else if (event.target === promotion) closeChooser(""); // beside the pieces: no promotion after all
  });
  promotion.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeChooser("");
  });

  return {
    show,
    showPast,
    /** Turn the board so that ``colour`` is at the bottom. */
    orient(colour) {
      if (ground.state.orientation !== colour) {
        ground.set({ orientation: colour });
        mark();
      }
    },
    /** The player's move the server has not shown yet (null: none). */
    pending: () => pending,
    /** The server took the player's move and then refused it (a puzzle's wrong move): it goes back at
     * once, and the next move is the player's again (not a premove waiting for a position that never
     * comes). */
    refused() {
      if (!pending) return;
      pending = null;
      resync();
    },
    /** Forget a premove (a new game, the page stepping back). */
    cancelPremove: () => ground.cancelPremove(),
  };
}
