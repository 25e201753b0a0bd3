"""The server's side of a session: the opponent's moves as a mover, and the referee that keeps the table's
game and the server's in step (see :mod:`chessatron.game.referee`).

The session journals every move before the robot touches a piece; :meth:`ServerReferee.moved` then sends
the player's move at once (a person's as soon as the recognizer committed it, before the robot carries out
anything), and a :class:`ServerMover` hands the session the opponent's moves as the game stream brings
them. Everything else the server decides: draws by rule, flags, resignations, aborts. When the server's
game and the journal part in a way the loop cannot follow, :meth:`ServerReferee.halts` stops the loop and
the caller catches up (:mod:`.table`): with both sides' movers taken from the server, a move made
elsewhere is carried out by the robot, and moves the server no longer has are taken back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import chess

from ..errors import OnlineError, ServerRefusedError
from ..game.players.base import Command
from ..game.records.journal import Journal
from ..game.telling.live import colour_name
from ..i18n import _
from .client import LichessClient
from .feed import GameFeed
from .model import GameInfo, ServerState, board_after, common_plies

LOGGER = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], None]

#: How long to wait for the stream to show a move the server accepted, and for an answer to a takeback
#: proposal (seconds).
ECHO_WAIT_S = 30.0
ANSWER_WAIT_S = 30.0
#: How often a waiting mover looks whether the game was stopped (seconds).
POLL_S = 0.05


class ServerReferee:
    """Keeps the journal's game and game ``info.id`` on the server in step for the player of ``colour``.

    ``stopped()`` says the game is being stopped here (a movers waiting for the server gives up)."""

    def __init__(
        self,
        client: LichessClient,
        feed: GameFeed,
        info: GameInfo,
        colour: chess.Color,
        *,
        emit: Emit,
        stopped: Callable[[], bool] = lambda: False,
        answer_wait_s: float = ANSWER_WAIT_S,
    ) -> None:
        self.client = client
        self.feed = feed
        self.info = info
        self.colour = colour
        self.emit = emit
        self.stopped = stopped
        self.answer_wait_s = answer_wait_s
        #: The game's journal while it is played.
        self.journal: Journal | None = None
        #: Both sides' moves come from the server until the table has caught up with it.
        self.catching_up = False
        self._halt = False
        self._refused: dict[tuple[int, str], int] = {}
        self._parsed: tuple[tuple[str, ...], tuple[chess.Move, ...]] = ((), ())

    def __repr__(self) -> str:
        return f"ServerReferee({self.info.id!r}, {colour_name(self.colour)})"

    # --- the game as the server has it ---------------------------------------------------------------

    def server_moves(self, state: ServerState | None = None) -> tuple[chess.Move, ...]:
        """The server's moves as python-chess moves (castling as the table's board writes it)."""
        moves = (state or self.feed.state).moves
        if self._parsed[0] != moves:
            self._parsed = (moves, tuple(board_after(self.info, moves).move_stack))
        return self._parsed[1]

    def _journal_moves(self) -> list[chess.Move]:
        return [] if self.journal is None else [entry.move for entry in self.journal.state.moves]

    def needs_catching_up(self) -> bool:
        """Whether the table must follow the server before its player plays on: the journal holds moves the
        server has not, or the server holds a move of this player's made elsewhere."""
        ours, theirs = self._journal_moves(), self.server_moves()
        plies = common_plies(ours, theirs)
        if plies < len(ours):
            return True
        return len(theirs) > len(ours) and self._to_move(len(ours)) == self.colour

    def _to_move(self, plies: int) -> chess.Color:
        return self.info.start_board().turn ^ (plies % 2 == 1)

    def begin(self, *, catching_up: bool) -> None:
        """A new run of the game loop: catching up with the server, or playing."""
        self.catching_up = catching_up
        self._halt = False

    # --- the session's side ------------------------------------------------------------------------

    def mover(self, colour: chess.Color) -> ServerMover:
        return ServerMover(self, colour, catching_up=self.catching_up and colour == self.colour)

    def halts(self) -> bool:
        if self._halt or self.feed.error is not None:
            return True
        if self.catching_up:
            return False
        ours, theirs = self._journal_moves(), self.server_moves()
        plies = common_plies(ours, theirs)
        if plies < len(ours):
            return True  # the server took moves back, or never had them
        if len(theirs) > len(ours):
            return self._to_move(len(ours)) == self.colour  # this player's move, made elsewhere
        return self.feed.state.is_over

    def moved(self, board: chess.Board, move: chess.Move) -> None:
        ply = len(board.move_stack)
        state = self.feed.state
        theirs = self.server_moves(state)
        if len(theirs) > ply and theirs[ply] == move:
            return  # the server's own move
        if board.turn != self.colour or state.is_over or theirs != tuple(board.move_stack):
            return  # the loop halts and catches up
        uci = board.uci(move)
        try:
            self.client.move(self.info.id, uci)
        except ServerRefusedError as exc:
            refusals = self._refused[(ply, uci)] = self._refused.get((ply, uci), 0) + 1
            if refusals > 1:
                raise
            self.emit(
                {"event": "warning", "message": _("{reason}; the move is taken back").format(reason=exc)}
            )
            return
        self.feed.wait(lambda s: len(s.moves) > ply or s.is_over, ECHO_WAIT_S, stop=self.stopped)

    def allows(self, board: chess.Board, command: Command) -> bool:
        if command == Command.HINT:
            self.emit(
                {"event": "notice", "message": _("no hints in an online game: the engine keeps out of it")}
            )
            return False
        try:
            if command == Command.RESIGN:
                self.client.resign(self.info.id)
                return True
            if command == Command.DRAW:
                accepting = self.feed.state.draw_offer == (not self.colour)
                self.client.draw(self.info.id, True)
                if accepting:
                    message = (
                        _("accepting Black's draw offer")
                        if self.colour
                        else _("accepting White's draw offer")
                    )
                else:
                    message = (
                        _("White offers a draw; Black answers")
                        if self.colour
                        else _("Black offers a draw; White answers")
                    )
                self.emit({"event": "notice", "message": message})
                return False  # the server's answer ends the game, or not
        except OnlineError as exc:
            self.emit({"event": "warning", "message": str(exc)})
            return False
        return True

    def takes_back(self, board: chess.Board) -> int:
        ours = list(board.move_stack)
        plies = common_plies(ours, self.server_moves())
        if plies < len(ours):
            return len(ours) - plies  # the server has taken them back already
        if not ours:
            self.emit({"event": "notice", "message": _("there is no move to take back")})
            return 0
        state = self.feed.state
        white = self.colour == chess.WHITE  # (the player here: the opponent is the other side)
        accepting = state.takeback_offer == (not self.colour)
        # the game's state before the proposal: an opponent that declines at once (the lichess AI, a bot)
        # may clear the proposal before the stream ever shows it, in the first state that comes after it
        before = self.feed.version
        try:
            self.client.takeback(self.info.id, True)
        except OnlineError as exc:
            self.emit({"event": "warning", "message": str(exc)})
            return 0
        if not accepting:
            asking = (
                _("asking Black to take back; waiting for the answer")
                if white
                else _("asking White to take back; waiting for the answer")
            )
            self.emit({"event": "notice", "message": asking})
        proposed = [accepting]

        def answered(now: ServerState) -> bool:
            if now.is_over or len(now.moves) < len(ours):
                return True
            if now.takeback_offer == self.colour:
                proposed[0] = True
                return False
            # declined: the proposal seen and gone, or a state after it without it
            return (proposed[0] or self.feed.version > before) and now.takeback_offer is None

        state = self.feed.wait(answered, self.answer_wait_s, stop=self.stopped)
        plies = common_plies(ours, self.server_moves(state))
        if plies < len(ours):
            return len(ours) - plies
        if not state.is_over:
            refused = (
                _("Black does not agree to take back; play on")
                if white
                else _("White does not agree to take back; play on")
            )
            self.emit({"event": "notice", "message": refused})
        return 0

    # --- what the server says meanwhile ------------------------------------------------------------

    def offers(self, before: ServerState, state: ServerState) -> None:
        """Tell the player of offers the opponent makes (a new draw offer, a takeback proposal)."""
        opponent = not self.colour
        white = opponent == chess.WHITE
        if state.draw_offer == opponent and before.draw_offer != opponent and not state.is_over:
            offer = (
                # TRANSLATORS: {word} is what the person types ('draw'); Draw the page's button
                _("White offers a draw: '{word}' (or Draw on the page) accepts it, a move declines it")
                if white
                else _("Black offers a draw: '{word}' (or Draw on the page) accepts it, a move declines it")
            )
            self.emit({"event": "notice", "message": offer.format(word="draw")})
        if state.takeback_offer == opponent and before.takeback_offer != opponent and not state.is_over:
            asked = (
                # TRANSLATORS: {word} is what the person types ('takeback'); Take back the page's button
                _("White asks to take back: '{word}' (or Take back on the page) agrees, a move declines")
                if white
                else _("Black asks to take back: '{word}' (or Take back on the page) agrees, a move declines")
            )
            self.emit({"event": "notice", "message": asked.format(word="takeback")})


class ServerMover:
    """A player whose moves come from the server: the opponent's, or while catching up this player's too
    (``catching_up``: it hands over the moves made elsewhere, then halts the loop for the player here)."""

    def __init__(self, referee: ServerReferee, colour: chess.Color, *, catching_up: bool = False) -> None:
        self.referee = referee
        self.colour = colour
        self.catching_up = catching_up

    def __repr__(self) -> str:
        return f"ServerMover({colour_name(self.colour)}, catching_up={self.catching_up})"

    def choose(self, board: chess.Board) -> chess.Move | Command | None:
        referee, feed = self.referee, self.referee.feed
        version = feed.version
        while True:
            state = feed.state
            step = next_step(list(board.move_stack), referee.server_moves(state))
            if step is not None:
                return step
            if state.is_over or feed.error is not None or referee.stopped() or self.catching_up:
                # the game ended there (its caller ends it here), or is being stopped, or the table has
                # caught up (the player here plays on): the loop halts
                referee._halt = True
                return None
            if referee.halts():
                return None
            version = feed.wait_change(version, POLL_S)


def next_step(ours: Sequence[chess.Move], theirs: Sequence[chess.Move]) -> chess.Move | Command | None:
    """What brings the table's moves ``ours`` towards the server's ``theirs``: a takeback while the table
    has moves the server has not, then the server's next move; None when they are the same.

    >>> e4, e5, c5 = (chess.Move.from_uci(m) for m in ("e2e4", "e7e5", "c7c5"))
    >>> next_step([e4, e5], [e4, c5]), next_step([e4], [e4, c5]), next_step([e4], [e4])
    (<Command.TAKEBACK: 'takeback'>, Move.from_uci('c7c5'), None)
    """
    plies = common_plies(ours, theirs)
    if plies < len(ours):
        return Command.TAKEBACK
    if len(theirs) > len(ours):
        return theirs[len(ours)]
    return None
