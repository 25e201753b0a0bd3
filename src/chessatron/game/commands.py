"""A game under way: what the players ask for instead of moving (a hint, a takeback, a draw offer or its
acceptance, resigning, quitting) and how the game ends. :class:`GameCommands` is the layer of the session
between :mod:`.setup` (games begun and resumed) and :mod:`.session` (the loop), which hands it each
:class:`~.players.base.Command` and asks it after every move whether the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ..errors import ChessatronError
from .players.base import Command
from .records.journal import Journal
from .records.record import Result, Termination, termination_of
from .setup import GameSetup
from .telling.live import colour_name

__all__ = ["DRAW_EARLIEST_PLY", "DRAW_EQUAL_CP", "DRAW_WORSE_CP", "GameCommands", "Outcome", "QuitRequested"]

#: The engine accepts a draw offer when it is not better by more than this (centipawns, its own view)...
DRAW_EQUAL_CP = 30
#: ...but before this ply only when it stands worse than this: a chess computer plays the game out.
DRAW_EARLIEST_PLY = 40
DRAW_WORSE_CP = -100


class QuitRequested(KeyboardInterrupt):
    """The player asked to stop (typed ``quit``, or the input ended): the game stops as for Ctrl-C,
    journaled for ``play --resume``, but nobody was interrupted."""


@dataclass
class Outcome:
    result: Result
    termination: Termination | None


class GameCommands(GameSetup):
    """A game's commands and its end (see the module docs)."""

    def _command(self, command: Command, board: chess.Board, journal: Journal) -> Outcome | None:
        """A keyboard command; returns the outcome when it ends the game."""
        if command == Command.QUIT:
            raise QuitRequested  # the game stays journaled: `play --resume` continues it
        if command == Command.TAKEBACK and self.referee is not None:
            plies = self.referee.takes_back(board)
            if plies:
                self._take_back(board, journal, plies)
            return None
        if self.referee is not None and not self.referee.allows(board, command):
            return None
        if command == Command.RESIGN:
            journal.resign(board.turn)  # the journal records the resignation as the result
            result: Result = "0-1" if board.turn == chess.WHITE else "1-0"
            return Outcome(result, "resignation")
        if command == Command.HINT:
            self._say(f"finding a hint for {colour_name(board.turn)}")
            try:
                hint = self._adviser().hint(board)
            except ChessatronError as exc:  # no engine to ask: the game goes on without hints
                self.emit({"event": "notice", "message": f"no hint: {exc}"})
                return None
            self.live.update(hint={"uci": board.uci(hint), "san": board.san(hint), "fen": board.fen()})
            self.emit({"event": "hint", "uci": board.uci(hint), "san": board.san(hint)})
            return None
        if command == Command.DRAW:
            return self._draw(board, journal)
        if command == Command.TAKEBACK:
            self._take_back(board, journal)
        return None

    def _draw(self, board: chess.Board, journal: Journal) -> Outcome | None:
        state = journal.state
        if state.draw_offer is not None and state.draw_offer != board.turn:
            journal.accept_draw(board.turn)  # the journal records the agreed draw as the result
            return Outcome("1/2-1/2", "agreed draw")
        journal.offer_draw(board.turn)
        opponent = self._specs[not board.turn]
        offering, other = colour_name(board.turn).capitalize(), colour_name(not board.turn).capitalize()
        if opponent.kind in ("engine", "hand"):
            score = self._adviser().evaluate(board)
            engine_view = None if score is None else score.pov(not board.turn).score(mate_score=100000)
            early = len(board.move_stack) < DRAW_EARLIEST_PLY
            if engine_view is not None and engine_view <= (DRAW_WORSE_CP if early else DRAW_EQUAL_CP):
                journal.accept_draw(not board.turn)
                return Outcome("1/2-1/2", "agreed draw")
            better = engine_view is None or engine_view > DRAW_EQUAL_CP
            why = "it thinks it stands better" if better else "it is too early in the game"
            message = f"{other} ({opponent.spec}) declines the draw ({why}); play on"
        elif opponent.kind == "script":
            message = f"{other} ({opponent.spec}) plays on: a script does not accept draws"
        elif opponent.kind == "web":
            message = f"{offering} offers a draw; {other} can accept it on the web page, or play on"
        elif opponent.kind == "keyboard":
            message = f"{offering} offers a draw; {other} can type 'draw' to accept it, or play on"
        elif opponent.kind == "voice":
            message = f"{offering} offers a draw; {other} can say 'draw' to accept it, or play on"
        else:
            message = f"{offering} offers {other} a draw"
        self.emit({"event": "notice", "message": message})
        return None

    def _take_back(self, board: chess.Board, journal: Journal, plies: int | None = None) -> None:
        """Take back the player's last move (and the engine's answer), or ``plies`` (as an online game's
        server did): the robot puts the pieces back."""
        opponent = self._specs[not board.turn]
        # against a player who types or clicks, the last move (whoever made it); against the engine, its
        # answer and the player's own move, so that the player has the move again
        if plies is None:
            plies = 2 if opponent.kind not in ("keyboard", "web", "buttons", "voice") else 1
        if len(board.move_stack) < plies:
            message = "there is no move to take back"
            if board.move_stack:
                message = f"{colour_name(board.turn).capitalize()} has made no move yet to take back"
            self.emit({"event": "notice", "message": message})
            return
        target = board.copy()
        for _ in range(plies):
            target.pop()
        journal.take_back(plies)
        self.emit({"event": "takeback", "plies": plies})
        self.live.show_board(target)  # taken back once journaled; the robot catches up
        moves = "the last move" if plies == 1 else f"the last {plies} moves"
        if self.has_robot:
            plan = self.resetter.plan(self.table, target, at=self.gantry)
            self._say(f"taking back {moves}", robot=True)
            self.run_plan(plan, f"TAKEBACK {plies}", journal)
        else:
            before = self.table.placement()
            self._arrange_by_hand(target, "take back")
            self._journal_by_hand(journal, before)
        self.table.check_matches(target)
        for mover in self._board_movers:
            mover.restart(target)
        self.live.show_board(target)
        self.live.show_table(self.table, ())

    def _outcome(self, board: chess.Board, journal: Journal) -> Outcome | None:
        state = journal.state
        if state.is_finished:
            return Outcome(state.result, state.termination)
        # a server, or an app whose e-board this is, rules on draws by material, repetition and move count
        ruled = self.referee is not None or self.app_seat is not None
        outcome = board.outcome(claim_draw=not ruled)
        if outcome is None:
            return None
        if ruled and outcome.termination not in (
            chess.Termination.CHECKMATE,
            chess.Termination.STALEMATE,
        ):
            return None
        return self._finish(journal, Outcome(outcome.result(), termination_of(outcome)))  # type: ignore[arg-type]

    def _finish(self, journal: Journal, outcome: Outcome) -> Outcome:
        journal.finish(outcome.result, outcome.termination)
        return outcome
