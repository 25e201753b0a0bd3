"""A game session: players, the robot, the journal, the result.

One loop ties the pieces together: the side to move chooses (an engine, a keyboard, a script), the move is
journaled and flushed **before** the robot touches a piece, the robot carries it out through the GRBL link
(relocation by relocation, each one journaled as done), and the game ends on mate, stalemate, repetition,
the fifty/seventy-five-move rules, insufficient material, resignation or an agreed draw. A crash or a pulled
plug loses nothing: ``resume`` replays the journal, rebuilds the physical table and finishes a robot move
that was cut short. The players and how each chooses a move are in :mod:`.players`.

The session is built in layers: :mod:`.devices` (its state, the machine and the devices),
:mod:`.tablework` (the robot's work and the people's), :mod:`.seats` (the players), :mod:`.setup` (new
games and resumes), :mod:`.commands` (what the players ask for instead of moving, and the game's end), and
here the loop itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import ExitStack
from typing import Protocol

import chess
import chess.engine

from ..errors import ChessatronError, NoSparePieceError
from ..i18n import _
from ..planning.planner import Plan
from ..voice.player import VoiceMover
from .clock import ChessClock, flag_outcome
from .commands import GameCommands, Outcome
from .engine.player import EnginePlayer
from .players.base import Command, Mover, RestartRequested, Revision
from .players.board import BoardMover
from .players.buttons import ButtonMover
from .players.engine import EngineMover
from .players.keyboard import KeyboardMover
from .players.spec import PlayerSpec
from .players.web import InboxMover
from .ponder.ponderer import Ponderer
from .records.journal import Journal
from .records.record import GameRecord
from .seats import reply_hold_s
from .statuses import ROBOT_MOVING, no_spare, played_move, promoting_instead, result_status, to_move
from .tablework import encode_relocation
from .telling.evaluation import evaluation_after, evaluation_of
from .telling.live import colour_name
from .tidying import Tidier

LOGGER = logging.getLogger(__name__)


#: The least time the engine thinks about a move when its clock runs low (seconds).
MIN_THINKING_S = 0.05


#: The players on whose time the robot tidies (:mod:`.tidying`), by the config's
#: ``tidy_while_thinking``: people at the board (a piece they lift tells that they come; a simulated hand
#: waits for it), or people anywhere (one who types or clicks gives no warning: a step under way may hold
#: their move up a moment); never the robot's engine or a script.
TIDY_WHILE: dict[str, frozenset[str]] = {
    "board": frozenset({"board", "hand"}),
    "always": frozenset({"board", "hand", "keyboard", "web", "buttons", "voice"}),
    "never": frozenset(),
}
#: A player waiting to move is told when their time falls below each of these (seconds), in a game whose
#: clock starts with more than twice as much.
CLOCK_WARNINGS_S = (60, 10)


class Watcher(Protocol):
    """Something that looks at a person's move before the engine answers it (the training's watcher,
    :mod:`chessatron.training.watcher`): True when the person takes the move back."""

    def takes_back(self, board: chess.Board, person: Mover, reply: Mover) -> bool: ...


class Session(GameCommands):
    """Plays games on one machine (or the simulator), journaling everything."""

    #: The watcher of the person's moves (``[training] watcher``), None for none.
    watcher: Watcher | None = None

    def play(
        self, journal: Journal, white: PlayerSpec, black: PlayerSpec, *, max_plies: int | None = None
    ) -> GameRecord:
        """Play the journaled game to its end."""
        try:
            return self._play(journal, white, black, max_plies=max_plies)
        except ChessatronError as exc:
            # the terminal prints the error as the command ends; the table says it
            self.emit({"event": "error", "message": str(exc)})
            raise

    def _play(
        self, journal: Journal, white: PlayerSpec, black: PlayerSpec, *, max_plies: int | None = None
    ) -> GameRecord:
        board = journal.board()
        self._specs = {chess.WHITE: white, chess.BLACK: black}
        self._journal_stem = journal.path.name.removesuffix(".jsonl")
        with ExitStack() as stack:
            self.inboxes = {}
            self.voices = {}
            stack.callback(self._forget_players)  # however the game ends (a stop is a KeyboardInterrupt)
            movers = {
                chess.WHITE: self._mover(white, chess.WHITE, stack, board),
                chess.BLACK: self._mover(black, chess.BLACK, stack, board),
            }
            for mover in movers.values():
                if isinstance(mover, BoardMover):
                    mover.both_sides = movers[chess.WHITE] is movers[chess.BLACK]
            # the robot's engine thinks on the person's time, the magnet waits where its reply begins
            # (unless the config keeps the gantry still)
            waiter = self.robot if self.config.wait_near_reply else None
            ponder = self.ponderer = stack.enter_context(Ponderer(self.planner, robot=waiter, live=self.live))
            # the pieces the robot's replies park beside the board go on to their zones on a person's time
            tidier = self.tidier = Tidier(lambda within_s: self._tidy_step(journal, within_s))
            stack.callback(self._forget_tidier, tidier)
            ponder.magnet_busy = lambda: tidier.is_tidying
            tidier.on_idle = ponder.wait_again
            for index in self._hand_done_unjournaled:
                journal.robot_done(index)
            self._hand_done_unjournaled = []
            if self._unjournaled:
                journal.robot_begin([encode_relocation(op) for op in self._unjournaled])
                for index in range(len(self._unjournaled)):
                    journal.robot_done(index)
                self._unjournaled = []
            self._finish_setup(journal)  # a game with no move yet: set up from where the table stands
            if self._pending is not None and not self.has_robot:
                self._pending = None
                self._arrange_by_hand(board, "resume")
            if self._pending is not None:
                move, remaining, unplanned = self._pending
                self._pending = None
                title = f"MOVE {len(board.move_stack)} {move.uci()} (resumed)"
                if remaining and all(relocation.purpose == "tidy" for _index, relocation in remaining):
                    title = f"TIDY {len(board.move_stack)} (resumed)"  # a step of tidying cut short
                self._say(_(ROBOT_MOVING), robot=True)  # not the "idle" of a state just made
                if unplanned:
                    # journaled, but the robot had not begun: plan it now from the table as it stands
                    before = board.copy()
                    before.pop()
                    self.run_plan(
                        self.planner.plan_reply(self.table, before, move, at=self.gantry), title, journal
                    )
                elif remaining:
                    relocations = tuple(relocation for _index, relocation in remaining)
                    plan = Plan(relocations, 0.0, self.gantry, self.layout.node_mm(relocations[-1].goal))
                    self.run_plan(plan, title, journal, indices=[index for index, _relocation in remaining])
                self.table.check_matches(board)
            outcome = self._outcome(board, journal)
            clock = self.clock = self._clock_for(journal)
            self._time_seen = {}
            for mover in movers.values():
                if isinstance(mover, InboxMover | BoardMover | VoiceMover):
                    mover.expired = self._flag_fell
                elif isinstance(mover, KeyboardMover):
                    waits = clock is not None or self.referee is not None
                    mover.expired = self._flag_fell if waits else None
                    mover.typing = self._typing_to(ponder)
                elif isinstance(mover, ButtonMover):
                    mover.expired = self._flag_fell
                    mover.hint = lambda: self.live.snapshot().get("hint")
                elif isinstance(mover, EngineMover):
                    mover.budget = self._thinking_budget
                    mover.foreseen = ponder.foreseen
                    mover.heading = lambda board, move, info: ponder.searching(board, move, info, self.table)
            plies = 0
            # the person whose move on the board the robot is about to answer (it must stand first)
            person: BoardMover | None = None
            while outcome is None:
                if self.stop_requested.is_set():
                    raise KeyboardInterrupt  # stopped from elsewhere: the game stays journaled
                if self.restart_requested.is_set():
                    raise RestartRequested
                self.on_position(board)
                if self.referee is not None and self.referee.halts():
                    break  # the server changed the game: the caller brings the table in step
                self.live.update(status=to_move(board.turn))
                if clock is not None:
                    clock.resume()
                    self.live.update(clock=clock.to_dict())
                self._tidy_before(board, movers[board.turn], tidier)
                before_choice = self.table.placement()
                ponder.before(board, self.table, movers[board.turn], movers[not board.turn])
                try:
                    choice = movers[board.turn].choose(board)
                except BaseException:
                    self._stop_tidying(tidier, quietly=True)
                    raise
                if self._stop_tidying(tidier):
                    before_choice = self.table.placement()  # (the person's move is not in it yet)
                ponder.heard(board, choice, self.table)
                if self.stop_requested.is_set():
                    raise KeyboardInterrupt
                if clock is not None and (flagged := clock.flagged()) is not None:
                    result, termination = flag_outcome(board, flagged)
                    outcome = self._finish(journal, Outcome(result, termination))
                    break
                if choice is None:
                    continue
                robot_answers = self.has_robot and not isinstance(movers[board.turn], BoardMover)
                if person is not None and robot_answers and not isinstance(choice, Revision):
                    # before the robot touches a piece: the person's move must stand (a slide paused on a
                    # legal square, rook-first castling, a piece set down on the wrong square go on)
                    revised = person.confirm(board, self.reply_hold(board, person))
                    if revised is not None:
                        choice = revised
                if isinstance(choice, Revision):
                    # (the revised move, too, must stand before the robot answers it)
                    self._revised_on_board(board, journal, choice)
                    board = journal.board()
                    if clock is not None:
                        self.clock = clock = self._clock_for(journal)
                    continue
                if isinstance(choice, Command):
                    if clock is not None and choice == Command.TAKEBACK:
                        clock.pause()
                    mover = movers[board.turn]
                    if isinstance(mover, BoardMover) and mover.took_back > 0:
                        if self.referee is None or self.referee.takes_back(board) == mover.took_back:
                            self._taken_back_on_board(board, journal, mover.took_back)
                        else:  # not agreed: the pieces go back where the game stands
                            mover.restart(board)
                            message = _("the takeback was not agreed: put the moves back")
                            self.emit({"event": "notice", "message": message})
                        outcome = None
                    else:
                        outcome = self._command(choice, board, journal)
                    if outcome is None:
                        board = journal.board()
                        if clock is not None and choice == Command.TAKEBACK:
                            self.clock = clock = self._clock_for(journal)
                    continue
                playable = self._playable(choice, board, movers[board.turn])
                if playable is None:
                    continue
                choice = playable
                current = movers[board.turn]
                if self.referee is not None and isinstance(current, BoardMover):
                    # the server hears of a move made on the board only once it stands: it cannot be
                    # revised there
                    played = board.copy()
                    played.push(choice)
                    revision = current.confirm(played, reply_hold_s(played, may_go_on=current.may_go_on))
                    if revision is not None:
                        if not revision.moves:
                            continue  # withdrawn: the person moves again
                        choice = revision.moves[0]
                who = (white if board.turn == chess.WHITE else black).spec
                uci = board.uci(choice)
                # the mover's clock stops with the decision: the robot's work is charged to nobody
                clock_ms = clock.press(board.turn) if clock is not None else None
                if clock is not None:
                    clock.pause()
                    self.live.update(clock=clock.to_dict())
                entry = journal.record_move(choice, who=who, clock_ms=clock_ms)
                self.emit({"event": "move", "ply": entry.ply, "uci": uci, "san": entry.san, "who": who})
                if self.referee is not None:
                    self.referee.moved(board, choice)  # on its way to the server before the robot moves
                # the move is the player's once journaled: watchers see it now, the robot catches up
                # (said first: the status never says it is still the mover's turn)
                self._say(played_move(board.turn, entry.san))
                shown = board.copy()
                shown.push(choice)
                self.live.show_board(shown)
                mover = movers[board.turn]
                if isinstance(mover, BoardMover):
                    self.on_position(shown)  # the person's move stands on the table already
                person = mover if isinstance(mover, BoardMover) else None
                evaluating: threading.Thread | None = None
                if (
                    self.referee is None and self.app_seat is None
                ):  # none in a game played online or in an app
                    engine = mover.engine if isinstance(mover, EngineMover) else None
                    if self.has_robot and not isinstance(mover, BoardMover):
                        # the robot carries the move out meanwhile: it needs no engine
                        evaluating = threading.Thread(
                            target=self._show_evaluation,
                            args=(board.copy(), choice, engine),
                            name="chessatron-evaluation",
                            daemon=True,
                        )
                        evaluating.start()
                    else:
                        # the engine's view of the person's move: not searched before an engine answers it
                        # (the person waits for that answer; its search is the engine's view of the game)
                        answered = isinstance(movers[not board.turn], EngineMover) and self.watcher is None
                        self._show_evaluation(board, choice, engine, search=not answered)
                if not self.has_robot and not isinstance(mover, BoardMover):
                    self._move_by_hand(board, choice, stack)
                    self._journal_by_hand(journal, before_choice)
                elif isinstance(mover, BoardMover):
                    if mover.hand is None:
                        # a real person moved the pieces; where a captured piece went only the zone
                        # sensors can tell: assume the place the robot would have used, verified later
                        self.planner.plan_move(self.table, board, choice, at=self.gantry).apply(self.table)
                        self._follow_zone_sensors()
                    # journaled as finished work, so that a resume rebuilds the table as the person left it
                    self._journal_by_hand(journal, before_choice)
                else:
                    if any(other.hand is None for other in self._board_movers):
                        self._follow_zone_sensors()  # a person may have moved a captured piece since
                    # what the person waits for: the move standing (what it parks is tidied later)
                    plan = self.planner.plan_reply(self.table, board, choice, at=self.gantry)
                    self._say(_(ROBOT_MOVING), robot=True)
                    try:
                        self.run_plan(plan, f"MOVE {entry.ply} {uci}", journal)
                    finally:
                        if evaluating is not None:
                            evaluating.join()  # one search at a time: the reply's comes after it
                for other in {id(m): m for m in movers.values()}.values():
                    if isinstance(other, BoardMover) and other is not mover and self.has_robot:
                        other.apply(choice)  # (without a robot its recognizer saw the move made)
                board.push(choice)
                self.table.check_matches(board)
                self.on_position(board)
                self.live.show_board(board)
                self.live.show_table(self.table, ())
                plies += 1
                outcome = self._outcome(board, journal)
                watcher = self.watcher
                if (
                    outcome is None
                    and watcher is not None
                    and self.referee is None
                    and watcher.takes_back(board, movers[not board.turn], movers[board.turn])
                ):
                    self._take_back(board, journal, 1)  # the robot puts the move back
                    board = journal.board()
                    continue
                if outcome is None and max_plies is not None and plies >= max_plies:
                    break
            if clock is not None:
                clock.pause()
                self.live.update(clock=clock.to_dict())
            for board_mover in self._board_movers:
                # the sensor log ends with the last move standing still, so that a replay commits it
                board_mover.observe(board_mover.recognizer.settle_s + 0.1)
            self._board_movers.clear()  # their LEDs and logs close with this game
            self.inboxes = {}
        record = journal.state.to_record()
        if outcome is not None:
            self.live.show_board(board, result=outcome.result, termination=outcome.termination)
            self.live.update(status=result_status(outcome.result, outcome.termination), prompt=None)
            self.emit({"event": "result", "result": outcome.result, "termination": outcome.termination})
        return record

    def _tidy_before(self, board: chess.Board, mover: Mover, tidier: Tidier) -> None:
        """A person is about to choose: the pieces parked beside the board go on to their zones meanwhile
        (:mod:`.tidying`), in the background until their hand comes to the table; a simulated person
        waits for it. Nothing while the robot's own engine chooses, nor without parked pieces."""
        kind = self._specs[board.turn].kind
        if not self.has_robot or kind not in TIDY_WHILE[self.config.tidy_while_thinking]:
            return
        if not self.table.parked():
            return
        if kind == "hand":
            tidier.tidy_now()
        else:
            self.tidy_home = self.gantry
            tidier.start(mover.events if isinstance(mover, BoardMover) else None)

    def _stop_tidying(self, tidier: Tidier, *, quietly: bool = False) -> int:
        """Stop the tidying before anything happens with the person's choice (the drag under way ends
        first); its machine fault is raised (logged, ``quietly``). Returns how many steps ran."""
        try:
            return tidier.stop()
        except ChessatronError as exc:
            if not quietly:
                raise
            LOGGER.warning("tidying stopped: %s", exc)
            return 1

    @staticmethod
    def _forget_tidier(tidier: Tidier) -> None:
        """The game is over (or stopped): no more tidying in it."""
        try:
            tidier.stop()
        except ChessatronError as exc:
            LOGGER.warning("tidying stopped: %s", exc)

    def _typing_to(self, ponder: Ponderer) -> Callable[[str], None]:
        """What the line typed so far tells: the person's hand is at the keyboard (no tidying step begins
        any more), and the ponderer where their move will likely begin."""

        def typed(text: str) -> None:
            tidier = self.tidier
            if tidier is not None and text:
                tidier.hold()
            ponder.typed(text)

        return typed

    def _clock_for(self, journal: Journal) -> ChessClock | None:
        """The game's clock as the journal left it (paused), None for a game without one."""
        if journal.state.metadata.clock is None:
            return None
        clock = ChessClock.from_journal(journal.state, now=self.clock_now)
        self.live.update(clock=clock.to_dict())
        return clock

    def _thinking_budget(self, board: chess.Board) -> float | None:
        """How long the engine may think on its clock: a thirtieth of its time left and most of the
        increment, so that it never loses on time for thinking too long. None without a clock."""
        clock, settings = self.clock, self._journal.state.metadata.clock if self._journal else None
        if clock is None or settings is None:
            return None
        left_s = clock.remaining_ms(board.turn) / 1000
        return max(MIN_THINKING_S, left_s / 30 + 0.8 * settings.increment_s)

    def _flag_fell(self) -> bool:
        """Whether a waiting player must stop waiting: the flag fell, the game is being stopped, or the
        referee halts the game."""
        clock = self.clock
        if clock is not None:
            self._warn_clock(clock)
        return (
            (clock is not None and clock.flagged() is not None)
            or self.stop_requested.is_set()
            or self.restart_requested.is_set()
            or (self.referee is not None and self.referee.halts())
        )

    def _warn_clock(self, clock: ChessClock) -> None:
        """Tell the player whose time runs when it falls below each of :data:`CLOCK_WARNINGS_S` (once
        each time it does: an increment may lift it above again)."""
        colour = clock.running
        if colour is None:
            return
        left = clock.remaining_ms(colour) / 1000
        before = self._time_seen.get(colour)
        self._time_seen[colour] = left
        if before is None:
            return
        for seconds in CLOCK_WARNINGS_S:
            if before >= seconds > left > 0 and clock.settings.initial_s > 2 * seconds:
                self.emit({"event": "clock", "colour": colour_name(colour), "seconds": seconds})

    def _show_evaluation(
        self, board: chess.Board, move: chess.Move, engine: EnginePlayer | None, *, search: bool = True
    ) -> None:
        """The engine's view of the position after ``move``: what the ``engine`` that played it saw in its
        search (:func:`evaluation_after`); when it played another move than its search's first (a weaker
        level) or a player made the move, a short search at full strength by this game's engine (none
        runs: nothing), or without ``search`` only what the engine found ahead (pondering). Nothing once
        the game is over. Runs on the game's thread, or beside the robot carrying a move out (what goes
        wrong is logged: the game goes on without the engine's view)."""
        try:
            evaluation = evaluation_after(board, move, engine.last_info) if engine is not None else None
            after = board.copy()
            after.push(move)
            if evaluation is None and self._engines and not after.is_game_over():
                adviser = self._adviser()
                info = adviser.analyse(after) if search else adviser.analysed(after)
                evaluation = None if info is None else evaluation_of(after, info)
        except ChessatronError as exc:
            LOGGER.warning("no evaluation after %s: %s", move.uci(), exc)
            evaluation = None
        except Exception:  # on the evaluation's thread an error would reach nobody: into the log with it
            LOGGER.exception("no evaluation after %s", move.uci())
            evaluation = None
        self.live.update(evaluation=evaluation)

    def _playable(self, move: chess.Move, board: chess.Board, mover: Mover) -> chess.Move | None:
        """The move, or for a promotion to a piece the table does not have (a fourth rook) the nearest
        piece it has; a keyboard player is asked again instead (None)."""
        if (
            move.promotion is None
            or isinstance(mover, BoardMover)
            or self._specs[board.turn].kind == "online"
        ):
            return move  # a person's piece, or the server's move: the table finds the piece (or says why not)
        for piece_type in (move.promotion, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT):
            try:
                self.table.spares(chess.Piece(piece_type, board.turn).symbol())
            except NoSparePieceError:
                continue
            if piece_type == move.promotion:
                return move
            if isinstance(mover, KeyboardMover | ButtonMover):
                self.emit({"event": "notice", "message": no_spare(move.promotion)})
                return None
            self.emit({"event": "notice", "message": promoting_instead(move.promotion, piece_type)})
            return chess.Move(move.from_square, move.to_square, piece_type)
        message = _("the table has no piece left to promote to in {fen!r}").format(fen=board.fen())
        raise NoSparePieceError(message)
