"""A game under way: what the players ask for instead of moving (a hint, a takeback, a draw offer or its
acceptance, resigning, quitting) and how the game ends. :class:`GameCommands` is the layer of the session
between :mod:`.setup` (games begun and resumed) and :mod:`.session` (the loop), which hands it each
:class:`~.players.base.Command` and asks it after every move whether the game is over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import chess

from ..errors import ChessatronError
from ..i18n import N_, _, ngettext
from .players.base import Command
from .players.notation import command_word
from .records.journal import Journal
from .records.record import Result, Termination, termination_of
from .setup import GameSetup

__all__ = ["DRAW_EARLIEST_PLY", "DRAW_EQUAL_CP", "DRAW_WORSE_CP", "GameCommands", "Outcome", "QuitRequested"]

#: The engine accepts a draw offer when it is not better by more than this (centipawns, its own view)...
DRAW_EQUAL_CP = 30
#: ...but before this ply only when it stands worse than this: a chess computer plays the game out.
DRAW_EARLIEST_PLY = 40
DRAW_WORSE_CP = -100


#: A draw offer the opponent (the other colour) turns down or is told of, by the opponent's kind and the
#: colour of the side that offers; {spec}: the opponent's spec (engine:5), {word}: the word for draw.
_OFFERS: Final[Mapping[tuple[str, chess.Color], str]] = {
    # TRANSLATORS: a notice; {spec}: the opponent as the command line names it (engine:5)
    ("better", chess.WHITE): N_("Black ({spec}) declines the draw (it thinks it stands better); play on"),
    ("better", chess.BLACK): N_("White ({spec}) declines the draw (it thinks it stands better); play on"),
    ("early", chess.WHITE): N_("Black ({spec}) declines the draw (it is too early in the game); play on"),
    ("early", chess.BLACK): N_("White ({spec}) declines the draw (it is too early in the game); play on"),
    ("script", chess.WHITE): N_("Black ({spec}) plays on: a script does not accept draws"),
    ("script", chess.BLACK): N_("White ({spec}) plays on: a script does not accept draws"),
    ("web", chess.WHITE): N_("White offers a draw; Black can accept it on the web page, or play on"),
    ("web", chess.BLACK): N_("Black offers a draw; White can accept it on the web page, or play on"),
    # TRANSLATORS: a notice; {word}: what to type for a draw (your word for it in "typed command")
    ("keyboard", chess.WHITE): N_("White offers a draw; Black can type '{word}' to accept it, or play on"),
    ("keyboard", chess.BLACK): N_("Black offers a draw; White can type '{word}' to accept it, or play on"),
    # TRANSLATORS: a notice; the voice player understands English only: keep 'draw'
    ("voice", chess.WHITE): N_("White offers a draw; Black can say 'draw' to accept it, or play on"),
    ("voice", chess.BLACK): N_("Black offers a draw; White can say 'draw' to accept it, or play on"),
    ("other", chess.WHITE): N_("White offers Black a draw"),
    ("other", chess.BLACK): N_("Black offers White a draw"),
}


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
            if board.turn == chess.WHITE:
                # TRANSLATORS: the table's status line
                self._say(_("finding a hint for white"))
            else:
                self._say(_("finding a hint for black"))
            try:
                hint = self._adviser().hint(board)
            except ChessatronError as exc:  # no engine to ask: the game goes on without hints
                # TRANSLATORS: a notice; {error}: why there is none
                self.emit({"event": "notice", "message": _("no hint: {error}").format(error=exc)})
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
        offering = board.turn
        if opponent.kind in ("engine", "hand"):
            score = self._adviser().evaluate(board)
            engine_view = None if score is None else score.pov(not board.turn).score(mate_score=100000)
            early = len(board.move_stack) < DRAW_EARLIEST_PLY
            if engine_view is not None and engine_view <= (DRAW_WORSE_CP if early else DRAW_EQUAL_CP):
                journal.accept_draw(not board.turn)
                return Outcome("1/2-1/2", "agreed draw")
            better = engine_view is None or engine_view > DRAW_EQUAL_CP
            why = "better" if better else "early"
        elif opponent.kind in ("script", "web", "keyboard", "voice"):
            why = opponent.kind
        else:
            why = "other"
        message = _(_OFFERS[why, offering]).format(spec=opponent.spec, word=command_word(Command.DRAW))
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
            message = _("there is no move to take back")
            if board.move_stack:
                message = (
                    _("White has made no move yet to take back")
                    if board.turn == chess.WHITE
                    else _("Black has made no move yet to take back")
                )
            self.emit({"event": "notice", "message": message})
            return
        target = board.copy()
        for _ply in range(plies):
            target.pop()
        journal.take_back(plies)
        self.emit({"event": "takeback", "plies": plies})
        self.live.show_board(target)  # taken back once journaled; the robot catches up
        if self.has_robot:
            plan = self.resetter.plan(self.table, target, at=self.gantry)
            # TRANSLATORS: the table's status line, while the robot takes moves back
            taking = ngettext("taking back the last move", "taking back the last {count} moves", plies)
            self._say(taking.format(count=plies), robot=True)
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
