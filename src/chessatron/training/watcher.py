"""A watcher during play (``[training] watcher = true``): after a person's move that gives away more than
``[training] watcher_loss`` of winning chances (lichess's scale, 0.3 a blunder), the table says so before
the engine answers, names the better move, and offers to take the move back: the robot puts it back.

The engine's view is the game's own adviser's (the engine that gives hints): a short search of the position
before the move and after it (:data:`~chessatron.game.engine.player.ANALYSIS_LIMIT`, a few tenths of a
second). A person at the keyboard answers the offer at the prompt; anyone else (at the board, on the page, by
voice) has it said and shown, and the game goes on after :data:`ANSWER_S` unless they answer through
:meth:`MoveWatcher.answer` (the web page's button).
"""

from __future__ import annotations

import logging
import queue
from typing import Final

import chess
import chess.engine

from ..errors import ChessatronError
from ..game.engine.player import ANALYSIS_LIMIT
from ..game.players.base import Mover
from ..game.players.engine import EngineMover
from ..game.players.keyboard import KeyboardMover
from ..game.players.script import ScriptMover
from ..game.session import Session
from ..i18n import _
from ..i18n.notation import san_in
from .judgement import chances, describe_loss

LOGGER = logging.getLogger(__name__)

#: How long the offer waits for an answer from a person not at the keyboard (seconds).
ANSWER_S: Final = 10.0


class MoveWatcher:
    """Watches the person's moves in ``session``'s games (see the module docs); ``loss``: how many winning
    chances a move must give away."""

    def __init__(self, session: Session, loss: float = 0.3, *, answer_s: float = ANSWER_S) -> None:
        self.session = session
        self.loss = loss
        self.answer_s = answer_s
        self.answers: queue.Queue[bool] = queue.Queue()

    def answer(self, take_back: bool) -> None:
        """The person's answer to the offer, from elsewhere (the web page)."""
        self.answers.put(take_back)

    def takes_back(self, board: chess.Board, person: Mover, reply: Mover) -> bool:
        """After ``person``'s move (the last on ``board``) and before ``reply`` (an engine) answers: whether
        the move gave too much away and the person wants it back."""
        if not board.move_stack or not isinstance(reply, EngineMover):
            return False
        if isinstance(person, EngineMover | ScriptMover):
            return False
        before = board.copy()
        move = before.pop()
        mover = before.turn
        try:
            adviser = self.session._adviser()
            prior = adviser.analyse(before, ANALYSIS_LIMIT)
            after = adviser.analyse(board, ANALYSIS_LIMIT) if not board.is_game_over() else None
        except ChessatronError as exc:
            LOGGER.warning("the watcher cannot judge %s: %s", move.uci(), exc)
            return False
        best_score, best_line = prior.get("score"), prior.get("pv")
        if not isinstance(best_score, chess.engine.PovScore):
            return False
        if after is None:
            return False  # the move ended the game: nothing to take back for
        after_score = after.get("score")
        if not isinstance(after_score, chess.engine.PovScore):
            return False
        lost = chances(best_score.pov(mover)) - chances(after_score.pov(mover))
        if lost < self.loss:
            return False
        san = san_in(before.san(move))
        first = best_line[0] if isinstance(best_line, list) and best_line else None
        if isinstance(first, chess.Move) and first != move and before.is_legal(first):
            message = _("careful: {san} gives away {loss}; {better} was better. Take it back?").format(
                san=san, loss=describe_loss(lost), better=san_in(before.san(first))
            )
        else:
            message = _("careful: {san} gives away {loss}. Take it back?").format(
                san=san, loss=describe_loss(lost)
            )
        self.session.emit({"event": "notice", "message": message})
        if isinstance(person, KeyboardMover):
            return self.session.keyboard.confirm(_("Take it back?"))
        while not self.answers.empty():
            self.answers.get_nowait()
        try:
            return self.answers.get(timeout=self.answer_s)
        except queue.Empty:
            return False
