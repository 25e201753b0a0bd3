"""The table's LEDs during a game the robot plays for everyone (no one at the board: a person at the board
has the board player's own LEDs): :class:`LedGuide` says what they show, as a chess computer does, and
:func:`show_guide` keeps them showing it as the game goes on.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import chess

from ...errors import ChessatronError
from ...feedback.signals import LedSignals, combine
from ...i18n import _
from ...planning.layout import Cell
from ...ports import RGB, LedStrip
from .live import LiveState, game_board

__all__ = ["GUIDE_POLL_S", "LedGuide", "show_guide"]

#: How often the LED guide looks at the game when nothing changed (a pick from the page), in seconds.
GUIDE_POLL_S = 0.05


class LedGuide:
    """What the table's LEDs show during a game the robot plays for everyone (no one at the board): the
    engine's last move (blue), a king in check and its checkers (violet) and, while a player on the page
    has picked a piece, that piece's square and where it may go (green, yellow for a capture) instead of
    the last move, over the check (as at the board when a piece is lifted).

    >>> from chessatron.planning.layout import Layout
    >>> guide = LedGuide(LedSignals(Layout.default()), engines=[chess.BLACK])
    >>> board = chess.Board()
    >>> board.push_san("e4"), board.push_san("e5")
    (Move.from_uci('e2e4'), Move.from_uci('e7e5'))
    >>> sorted(chess.square_name(guide.signals.square(cell)) for cell in guide.colours(board))
    ['e5', 'e7']
    >>> sorted(chess.square_name(guide.signals.square(cell)) for cell in guide.colours(board, chess.G1))
    ['e2', 'f3', 'g1', 'h3']
    """

    def __init__(self, signals: LedSignals, engines: Iterable[chess.Color]) -> None:
        self.signals = signals
        self.engines = frozenset(engines)

    def colours(self, board: chess.Board, picked: chess.Square | None = None) -> dict[Cell, RGB]:
        """The LED colours for ``board`` (with its moves on the stack), ``picked`` the square of the piece
        a player picked (None: none)."""
        check = self.signals.show_check(board)
        if picked is not None:  # as when a piece is lifted at the board: its squares over the check
            return combine(check, self.signals.show_legal_moves(board, picked))
        if board.move_stack and (not board.turn) in self.engines:
            before = board.copy()
            move = before.pop()
            return combine(self.signals.show_engine_move(move, before), check)
        return check


def show_guide(
    guide: LedGuide,
    strip: LedStrip,
    live: LiveState,
    picked: Callable[[Mapping[str, Any]], chess.Square | None],
    done: threading.Event,
) -> None:
    """Light ``strip`` as ``guide`` says for the game on ``live`` until ``done`` is set (on the caller's
    thread): again whenever the game changes or the piece ``picked`` on the page (read from a snapshot)
    does, dark at the end. A strip that fails is told as a notice; the game goes on without it."""
    version = -1
    state: dict[str, Any] = {}
    shown_for: object = None
    shown: dict[Cell, RGB] = {}
    try:
        while not done.is_set():
            if live.wait(version, GUIDE_POLL_S) != version:
                state = live.snapshot()
                version = state["version"]
            game = state.get("game")
            square = picked(state)
            wanted_for = None if game is None else (game["id"], game["fen"], len(game["uci"]), square)
            if wanted_for == shown_for:
                continue
            colours = guide.colours(game_board(game), square) if game is not None else {}
            shown_for = wanted_for
            if colours != shown:
                strip.show(colours)
                shown = colours
    except ChessatronError as exc:
        # TRANSLATORS: {error}: why (the device's error message)
        live.notice(_("the LEDs stopped showing the game: {error}").format(error=exc), "warning")
    finally:
        if shown:
            with contextlib.suppress(ChessatronError):
                strip.show({})
