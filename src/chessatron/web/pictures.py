"""The page's pictures: the board (python-chess SVG) and the whole table, drawn from the live state.

Drawing takes milliseconds and the live state changes many times a second while the gantry runs, so each
picture is cached: the board by what it shows (position, last move, LEDs, hint), the table by version.

>>> live = LiveState(Layout.default())
>>> live.show_board(chess.Board())
>>> pictures = Pictures(live)
>>> svg = pictures.board("white")
>>> svg.startswith("<svg") and 'data-fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"' in svg
True
>>> pictures.board("white") is svg
True
"""

from __future__ import annotations

import html
import io
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Final

import chess
import chess.svg
import segno

from ..game.records.record import GameRecord
from ..game.telling.live import LiveState
from ..i18n import _
from ..planning.layout import Layout
from ..render import table_svg
from .validate import Orientation

#: How the pictures are served: as SVG, with their own policy for a picture opened on its own
#: (python-chess styles some paths inline).
SVG_TYPE: Final = "image/svg+xml"
SVG_POLICY: Final = "default-src 'none'; style-src 'unsafe-inline'"
#: Pictures kept per kind; a few, for pages showing different orientations or lagging a version behind.
KEPT: Final = 8
BOARD_PX: Final = 480
TABLE_PX: Final = 720
#: LED colours are laid over the squares' own colours, this opaque (hex alpha).
LED_ALPHA: Final = "a0"
HINT_COLOUR: Final = "#1f6fd6c0"


def board_svg(state: dict[str, Any], fallback_fen: str | None, orientation: Orientation) -> str:
    """The board of the live ``state`` (a snapshot): the game's position with its last move, check, the
    LEDs as square fills and the hint as an arrow; without a game the physical board ``fallback_fen``.
    The ``<svg>`` carries ``data-fen`` (the board part of what it shows) for the page and its tests."""
    game = state.get("game")
    if game is not None:
        board = chess.Board(game["fen"], chess960=game["variant"] == "chess960")
    else:
        board = chess.Board(None)
        board.set_board_fen(fallback_fen or chess.STARTING_BOARD_FEN)
    lastmove = chess.Move.from_uci(game["lastmove"]) if game and game.get("lastmove") else None
    fill: dict[chess.Square, str] = {}
    for name, colour in (state.get("leds") or {}).items():
        if name in chess.SQUARE_NAMES and colour.lower() != "#000000":
            fill[chess.parse_square(name)] = colour + LED_ALPHA
    arrows = []
    hint = state.get("hint")
    if hint and state.get("prompt") and game is not None:
        move = chess.Move.from_uci(hint["uci"])
        if move in board.legal_moves:  # a hint for this position, not an earlier one
            arrows.append(chess.svg.Arrow(move.from_square, move.to_square, color=HINT_COLOUR))
    check = board.king(board.turn) if game is not None and board.is_check() else None
    svg = chess.svg.board(
        board,
        orientation=chess.WHITE if orientation == "white" else chess.BLACK,
        lastmove=lastmove,
        check=check,
        fill=fill,
        arrows=arrows,
        size=BOARD_PX,
    )
    return _with_fen(svg, board)


def saved_board_svg(record: GameRecord, ply: int, orientation: Orientation) -> str:
    """The board of a saved game after its first ``ply`` half-moves (0: the start), the last of them
    marked and a king in check ringed; ``data-fen`` as on the live board, ``data-ply`` the ply shown.

    >>> from chessatron.game.records.pgn import from_pgn
    >>> record = from_pgn("1. f3 e5 2. g4 Qh4# 0-1")
    >>> svg = saved_board_svg(record, 2, "white")
    >>> 'data-fen="rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR"' in svg, 'data-ply="2"' in svg
    (True, True)
    """
    board = record.start_board()
    for move in record.moves[:ply]:
        board.push(move)
    svg = chess.svg.board(
        board,
        orientation=chess.WHITE if orientation == "white" else chess.BLACK,
        lastmove=board.peek() if board.move_stack else None,
        check=board.king(board.turn) if board.is_check() else None,
        size=BOARD_PX,
    )
    return _with_fen(svg, board).replace("<svg ", f'<svg data-ply="{len(board.move_stack)}" ', 1)


def _with_fen(svg: str, board: chess.Board) -> str:
    return svg.replace("<svg ", f'<svg data-fen="{html.escape(board.board_fen())}" ', 1)


class Pictures:
    """Thread-safe caches of the board and table pictures of one :class:`LiveState`."""

    def __init__(self, live: LiveState) -> None:
        self.live = live
        self._lock = threading.Lock()
        self._boards: OrderedDict[Hashable, str] = OrderedDict()
        self._tables: OrderedDict[Hashable, str] = OrderedDict()

    def board(self, orientation: Orientation) -> str:
        state = self.live.snapshot()
        fallback = None
        if state["game"] is None:
            table, _paths = self.live.table()
            fallback = table.board_fen() if table is not None else None
        game = state["game"]
        key = (
            orientation,
            repr(game and (game["fen"], game["lastmove"], game["variant"])),
            fallback,
            repr(sorted(state["leds"].items())),
            repr(state["hint"]) if state["prompt"] else None,
        )
        return self._cached(self._boards, key, lambda: board_svg(state, fallback, orientation))

    def table(self) -> str:
        """The whole table: every piece, the drags of the work under way still to come and the gantry's
        crosshair."""
        version = self.live.version
        with self._lock:
            if version in self._tables:
                return self._tables[version]
        state = self.live.snapshot()
        table, paths = self.live.table()
        gantry, work = state["gantry"], state["gantry"]["work"]
        # the drags still to come: the robot is done with the others (with every one when work is None)
        paths = paths[work["index"] :] if work is not None and work["of"] == len(paths) else ()
        if table is None:
            return _empty_table(self.live.layout)  # (not cached: it is in the asker's language)
        return self._cached(
            self._tables,
            version,
            lambda: table_svg(table, paths, gantry=(gantry["x"], gantry["y"]), size_px=TABLE_PX),
        )

    def _cached(self, cache: OrderedDict[Hashable, str], key: Hashable, draw: Callable[[], str]) -> str:
        with self._lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
        svg = draw()
        with self._lock:
            cache[key] = svg
            while len(cache) > KEPT:
                cache.popitem(last=False)
        return svg


def _empty_table(layout: Layout) -> str:
    width = TABLE_PX
    height = round(TABLE_PX * layout.rows / layout.columns)
    # TRANSLATORS: the table's picture before the table is known
    words = html.escape(_("no table yet"))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}"><text x="20" y="40">{words}</text></svg>'
    )


def link_svg(url: str) -> str:
    """The page's link as a QR code (SVG) for a phone's camera.

    >>> link_svg("http://192.168.1.20:8960/?token=abc").startswith("<svg")
    True
    """
    svg = io.BytesIO()  # a whole SVG document (with its namespace: an <img> shows nothing without it)
    code = segno.make(url, error="m")
    code.save(svg, kind="svg", scale=6, border=2, title=_("the page's link"), xmldecl=False)
    return svg.getvalue().decode("utf-8")


def link_text(url: str) -> str:
    """The page's link as a QR code in text, for a terminal (two rows of modules to a line)."""
    lines = io.StringIO()
    segno.make(url, error="m").terminal(out=lines, compact=True, border=2)
    return lines.getvalue().rstrip("\n")
