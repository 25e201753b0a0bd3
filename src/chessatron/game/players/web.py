"""The ``web`` player: moves and commands clicked on the web page, arriving through the runner
(:meth:`~chessatron.game.runner.GameRunner.move`) into an inbox."""

from __future__ import annotations

import queue
from collections.abc import Callable

import chess

from ...i18n import N_, _
from ...i18n.notation import san_in
from ..telling.live import LiveState, colour_name
from .base import Command

__all__ = ["InboxMover"]

#: The status while a command the player sent is carried out (the session says more once it knows).
_ASKED = {
    # TRANSLATORS: the table's status line, while the command is carried out
    (Command.TAKEBACK, chess.WHITE): N_("white takes a move back"),
    (Command.TAKEBACK, chess.BLACK): N_("black takes a move back"),
    (Command.DRAW, chess.WHITE): N_("white offers a draw"),
    (Command.DRAW, chess.BLACK): N_("black offers a draw"),
    (Command.RESIGN, chess.WHITE): N_("white resigns"),
    (Command.RESIGN, chess.BLACK): N_("black resigns"),
}


class InboxMover:
    """A player whose moves and commands arrive from elsewhere (the web page): ``choose`` shows the legal
    moves on the live state and waits for the next item in the ``inbox``. The prompt closes with what
    the player did, in one change of the live state (``white played e4``, ``white offers a draw``), so
    that no watcher ever sees the player's turn without its prompt, as if it were still theirs."""

    def __init__(self, colour: chess.Color, live: LiveState) -> None:
        self.colour = colour
        self.live = live
        self.inbox: queue.Queue[chess.Move | Command] = queue.Queue()
        #: Whether the player's time is up (the session sets it when a clock runs).
        self.expired: Callable[[], bool] = lambda: False
        # the prompt stays open after a hint (the player is still to move): what they send meanwhile counts
        self._still_prompted = False

    def choose(self, board: chess.Board) -> chess.Move | Command | None:
        legal: dict[str, list[str]] = {}
        for move in board.legal_moves:
            targets = legal.setdefault(chess.square_name(move.from_square), [])
            if chess.square_name(move.to_square) not in targets:
                targets.append(chess.square_name(move.to_square))
        while not self._still_prompted and not self.inbox.empty():
            self.inbox.get_nowait()  # sent against an earlier prompt (a double click, a second page)
        self.live.update(prompt={"colour": colour_name(self.colour), "legal": legal})
        item: chess.Move | Command | None = None
        try:
            while True:
                try:
                    item = self.inbox.get(timeout=0.05)
                    if isinstance(item, chess.Move) and item not in board.legal_moves:
                        continue  # stale: checked against a position that is gone
                    return item
                except queue.Empty:
                    if self.expired():
                        return None  # the flag fell while the player thought
        finally:
            self._still_prompted = item is Command.HINT
            if not self._still_prompted:
                self.live.update(prompt=None, **self._done(board, item))

    def _done(self, board: chess.Board, item: chess.Move | Command | None) -> dict[str, str]:
        """The status that says what the player did (none for a stop: the runner says that)."""
        if isinstance(item, chess.Move) and board.is_legal(item):
            move = san_in(board.san(item))
            # TRANSLATORS: the table's status line; {move}: the move just played (e4)
            played = _("white played {move}") if self.colour == chess.WHITE else _("black played {move}")
            return {"status": played.format(move=move)}
        if isinstance(item, Command) and (item, self.colour) in _ASKED:
            return {"status": _(_ASKED[item, self.colour])}
        return {}
