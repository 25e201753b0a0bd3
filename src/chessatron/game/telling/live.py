"""What is happening at the table, kept for whoever watches: the terminal view and the web page.

The game thread feeds a :class:`LiveState` (session events, the robot's progress, sensor scans, LED
colours, the clock, the engine's evaluation); watchers read :meth:`LiveState.snapshot`, a JSON-able dict,
and wait for a newer :attr:`~LiveState.version` with :meth:`~LiveState.wait` (threads) or a listener
callback (an event loop bridges it with ``call_soon_threadsafe``). No I/O and no threads of its own: a
watcher that is slow, or gone, never holds up the game.

The snapshot's keys (a contract for the page and its tests):

``version``
    increases with every change.
``status``
    one line for people, what the table does now: ``"idle"``, ``"starting a new game"``, ``"setting
    up"``, ``"white to move"``, ``"white played e4"`` (until the robot or the next side takes over),
    ``"robot moving"``, ``"paused"``, ``"stopping…"``, ``"stopped after 12 half-moves; the game is saved:
    …"``, ``"1-0 (checkmate)"``…
    in the language of whoever set it (the table's, or a page's for a request it made).
``status_kind``
    what the status is, the same in every language, for code that acts on it: ``"idle"``, ``"paused"``,
    ``"stopping"``, ``"robot moving"``, ``"setting up"``, ``"connecting"``, ``"white to move"``,
    ``"black to move"``, ``"stopped"``, ``"stopped, saved"`` (a stop that kept the game), or ``None``.
``game``
    ``None`` or ``{"id", "white", "black", "names", "variant", "chess960": N|None, "start_fen", "fen",
    "san": [...], "uci": [...], "turn": "white"|"black", "check": bool, "result", "termination",
    "lastmove": uci|None}`` (``white``, ``black``: the players' specs, ``engine:5``, ``web``; ``names``:
    ``{"white", "black"}`` as the game's record names them, ``Ann``, ``Stockfish``, or None;
    ``chess960``: the start's number, 0-959, in a Chess960 game that began from one of the 960).
``table``
    ``{"pieces": [{"id", "symbol", "node": [i, j], "cell": [c, r]|None}], "drags": [{"symbol",
    "purpose", "path": [[i, j], ...]}]}``: every physical piece, and the drags of the robot work under way
    (``gantry.work`` counts those done).
``gantry``
    ``{"x", "y" (machine mm), "state" (GRBL state), "path": [[x, y], ...] (the drag under way, mm),
    "work": {"title", "index", "of"}|None}``; long work (a set-up, a reset, a long capture) also has
    ``"estimate_s"`` (its machine time, the planner's time model), ``"left_s"`` (seconds left, at the
    session's speed) and ``"at"`` (the wall-clock time, Unix seconds, ``left_s`` was reckoned at), to
    count down from.
``sensors``
    ``{"occupied": [[c, r], ...], "squares": ["e2", ...]}`` (the latest scan; ``None`` without sensors).
``leds``
    ``{"e2": "#00ff00", ...}`` by square name, ``"c,r"`` for cells off the board.
``clock``
    ``None`` or ``{"white_ms", "black_ms", "running": "white"|"black"|None, "control"}``.
``evaluation``
    ``None`` or ``{"cp": int|None, "mate": int|None, "depth", "pv": [san, ...], "fen"}`` from White's
    side: the engine's view of the position on the board (``fen``), its line starting there. A new
    position (a move, a takeback, another game) or the end of the game clears it.
``prompt``
    ``None`` or ``{"colour", "legal": {"e2": ["e3", "e4"], ...}, "promotion": [from uci prefixes]}``
    when a ``web`` player is to move.
``question``
    ``None`` or ``{"text": "Bxf3 or Bxh3?", "ply", "options": [{"uci", "san"}, ...]}`` while the board fits
    several moves and the player at the board is asked which they made (``POST /api/v1/answer``).
``cursor``
    ``None`` or the buttons' cursor while a player uses them (:meth:`CursorView.to_dict
    <chessatron.game.players.cursor.CursorView.to_dict>`): ``{"mode", "square", "held", "targets": {"e4":
    false, "d5": true (a capture)}, "choices": [...], "refused", "lines": [two lines for a display], "fen"
    (the position reviewed, history mode), "move" (uci: the last move, the hint, the move reviewed), "menu":
    {"items", "index"}|None}``; square names, None where there is none.
``training``
    ``None`` or the puzzle under way (:mod:`chessatron.training.table`): ``{"id", "rating", "themes",
    "url", "source", "colour", "moves", "number", "of", "your_rating", "provisional", "state" ("setting
    up", "solving", "wrong", "solution", "solved", "failed"), "wrong", "hints", "hint": {"square",
    "from" (the square of the piece to move), "text", "squares" (the piece's, then its target's too: what
    the terminal marks)}|None, "wrong_move", "done": [attempts]}``; once it ends also ``"rating_after"`` and
    ``"gave_up"`` (the robot played the solution out).
``eboard``
    ``None`` or, while the table is an app's e-board (``chessatron eboard``): ``{"protocol", "transport",
    "where" (the port or the name advertised), "app" (who spoke, or None before anyone did), "lit"
    [squares the app lit]}``.
``hint``, ``notices``
    the hint for the position on the board ``{"uci", "san", "fen"}`` (cleared, as the evaluation is,
    when the position changes or the game ends) and the last notices (``[{"message", "level"}]``,
    newest last).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import chess

from ...i18n import _
from ...planning.layout import Cell, Layout, MachinePoint, Node
from ...planning.planner import Relocation
from ...planning.table import Table
from ...ports import RGB, Occupancy

Listener = Callable[[int], None]

#: Notices kept for late watchers.
NOTICES_KEPT = 20


def colour_name(colour: chess.Color) -> str:
    return "white" if colour == chess.WHITE else "black"


def game_board(game: Mapping[str, Any]) -> chess.Board:
    """The board of a live snapshot's ``game`` part, its moves on the stack."""
    board = chess.Board(game["start_fen"], chess960=game["variant"] == "chess960")
    for uci in game["uci"]:
        board.push_uci(uci)
    return board


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


class LiveState:
    """A thread-safe, versioned snapshot of the table for watchers.

    >>> live = LiveState(Layout.default())
    >>> live.show_board(chess.Board())
    >>> live.snapshot()["game"]["turn"], live.version > 0
    ('white', True)
    """

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._changed = threading.Condition()
        self._listeners: list[Listener] = []
        self._version = 0
        self._table: Table | None = None
        self._paths: tuple[Relocation, ...] = ()
        self._state: dict[str, Any] = {
            # TRANSLATORS: the table's status line: nothing under way
            "status": _("idle"),
            # what the status is, the same in every language (chessatron.game.statuses.kind_of): "paused",
            # "white to move", "stopped, saved" …; None for any other status
            "status_kind": "idle",
            "game": None,
            "table": {"pieces": [], "drags": []},
            "gantry": {
                "x": layout.home_mm[0],
                "y": layout.home_mm[1],
                "state": "Idle",
                "path": [],
                "work": None,
            },
            "sensors": None,
            "leds": {},
            "clock": None,
            "evaluation": None,
            "prompt": None,
            "question": None,
            "cursor": None,
            "hint": None,
            "notices": [],
            "training": None,
            "eboard": None,
        }

    # --- watching ----------------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._version

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the state with its ``version``."""
        with self._changed:
            state = copy.deepcopy(self._state)
            state["version"] = self._version
            return state

    def table(self) -> tuple[Table | None, tuple[Relocation, ...]]:
        """A copy of the physical table and the drags of the robot work under way (for pictures)."""
        with self._changed:
            return (self._table.copy() if self._table is not None else None), self._paths

    def wait(self, after: int, timeout_s: float | None = None) -> int:
        """Block until the version is newer than ``after`` (or the timeout); return the version."""
        with self._changed:
            self._changed.wait_for(lambda: self._version > after, timeout=timeout_s)
            return self._version

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(version)`` after every change (from the changing thread; keep it quick).
        Returns the function that stops it."""
        with self._changed:
            self._listeners.append(listener)

        def stop() -> None:
            with self._changed:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return stop

    # --- feeding -----------------------------------------------------------------------------------

    def update(self, **parts: Any) -> None:
        """Replace top-level parts of the state (``status="paused"``, ``clock={...}``)."""
        if "status" in parts and "status_kind" not in parts:
            from ..statuses import kind_of  # (the statuses know the session's words; the state only holds)

            parts["status_kind"] = kind_of(str(parts["status"] or ""))
        with self._changed:
            for key, value in parts.items():
                if key not in self._state:
                    raise KeyError(f"the live state has no part {key!r}")
                self._state[key] = value
        self._bump()

    def _bump(self) -> None:
        with self._changed:
            self._version += 1
            version = self._version
            listeners = list(self._listeners)
            self._changed.notify_all()
        for listener in listeners:
            try:
                listener(version)
            except Exception:  # a broken watcher must never stop the game
                self.listen(listener)()

    def notice(self, message: str, level: str = "info") -> None:
        with self._changed:
            notices = self._state["notices"]
            notices.append({"message": message, "level": level})
            del notices[:-NOTICES_KEPT]
        self._bump()

    def show_board(
        self,
        board: chess.Board,
        *,
        game_id: str | None = None,
        players: tuple[str, str] | None = None,
        result: str | None = None,
        termination: str | None = None,
        names: tuple[str, str] | None = None,
    ) -> None:
        """The game as it stands (``board`` with its move stack from the start position); ``players``
        (their specs) and ``names`` (as the record names them) are kept until new players are shown.

        The hint and the evaluation go when they no longer belong to the position shown: another
        position or game (unless they name this position by its ``fen``), or the game's end."""
        start = board.root()
        replay = start.copy(stack=False)
        san = []
        for move in board.move_stack:
            san.append(replay.san(move))
            replay.push(move)
        fen = board.fen()
        with self._changed:
            previous = self._state["game"] or {}
            same = previous.get("fen") == fen and (game_id is None or game_id == previous.get("id"))
            for part in ("hint", "evaluation"):
                shown = self._state[part]
                if shown is not None and (
                    result is not None or shown.get("fen", fen if same else None) != fen
                ):
                    self._state[part] = None
            self._state["game"] = {
                "id": game_id if game_id is not None else previous.get("id"),
                "white": players[0] if players else previous.get("white"),
                "black": players[1] if players else previous.get("black"),
                "names": (
                    {"white": names[0], "black": names[1]}
                    if names
                    else None
                    if players
                    else previous.get("names")
                ),
                "variant": "chess960" if board.chess960 else "standard",
                "chess960": start.chess960_pos() if board.chess960 else None,
                "start_fen": start.fen(),
                "fen": fen,
                "san": san,
                "uci": [move.uci() for move in board.move_stack],
                "turn": colour_name(board.turn),
                "check": board.is_check(),
                "result": result,
                "termination": termination,
                "lastmove": board.move_stack[-1].uci() if board.move_stack else None,
            }
        self._bump()

    def show_table(self, table: Table, paths: Sequence[Relocation] | None = None) -> None:
        """Where every physical piece is; ``paths``: the robot work under way (None keeps them)."""
        pieces = []
        for piece in table:
            node = table.node_of(piece.id)
            cell = self.layout.node_cell(node)
            pieces.append(
                {
                    "id": piece.id,
                    "symbol": piece.symbol,
                    "node": list(node),
                    "cell": list(cell) if cell is not None else None,
                }
            )
        with self._changed:
            self._table = table.copy()
            if paths is not None:
                self._paths = tuple(paths)
            drags = [
                {
                    "symbol": drag.piece.symbol,
                    "purpose": drag.purpose,
                    "path": [list(node) for node in drag.path],
                }
                for drag in self._paths
            ]
            self._state["table"] = {"pieces": pieces, "drags": drags}
        self._bump()

    def show_gantry(
        self,
        position: MachinePoint,
        *,
        state: str | None = None,
        path: Iterable[Node] | None = None,
        work: Mapping[str, Any] | bool | None = False,
    ) -> None:
        """The magnet's position in machine mm; the drag under way (``path`` in nodes, ``()`` for none);
        ``work``: ``{"title", "index", "of"}``, None when the robot is done, False to keep it."""
        with self._changed:
            gantry = self._state["gantry"]
            gantry["x"], gantry["y"] = round(position[0], 2), round(position[1], 2)
            if state is not None:
                gantry["state"] = state
            if path is not None:
                gantry["path"] = [list(self.layout.node_mm(node)) for node in path]
            if work is not False:
                gantry["work"] = dict(work) if isinstance(work, Mapping) else None
        self._bump()

    def show_sensors(self, occupancy: Occupancy) -> None:
        cells = sorted(occupancy)
        squares = [chess.square_name(square) for square in self._squares(cells)]
        with self._changed:
            if self._state["sensors"] is not None and self._state["sensors"]["occupied"] == [
                list(cell) for cell in cells
            ]:
                return
            self._state["sensors"] = {"occupied": [list(cell) for cell in cells], "squares": squares}
        self._bump()

    def show_leds(self, colours: Mapping[Cell, RGB]) -> None:
        shown = {}
        for cell, rgb in colours.items():
            square = self.layout.node_square(self.layout.cell_node(cell))
            shown[chess.square_name(square) if square is not None else f"{cell[0]},{cell[1]}"] = _hex(rgb)
        with self._changed:
            if self._state["leds"] == shown:
                return  # (a blinking signal is redrawn often; watchers hear of changes only)
            self._state["leds"] = shown
        self._bump()

    def _squares(self, cells: Iterable[Cell]) -> list[chess.Square]:
        found = []
        for cell in cells:
            square = self.layout.node_square(self.layout.cell_node(cell))
            if square is not None:
                found.append(square)
        return sorted(found)


class LiveLeds:
    """An :class:`~chessatron.ports.LedStrip` that shows its colours on a :class:`LiveState` as well as
    passing them on to the real strip (if any)."""

    def __init__(self, live: LiveState, strip: Any | None = None) -> None:
        self.live = live
        self.strip = strip

    def show(self, colours: Mapping[Cell, RGB]) -> None:
        if self.strip is not None:
            self.strip.show(colours)
        self.live.show_leds(colours)

    def close(self) -> None:
        if self.strip is not None:
            self.strip.close()


class LiveSensors:
    """An :class:`~chessatron.ports.OccupancySensor` whose scans also reach a :class:`LiveState`."""

    def __init__(self, live: LiveState, sensor: Any) -> None:
        self.live = live
        self.sensor = sensor

    def scan(self) -> Occupancy:
        occupancy: Occupancy = self.sensor.scan()
        self.live.show_sensors(occupancy)
        return occupancy

    def close(self) -> None:
        self.sensor.close()
