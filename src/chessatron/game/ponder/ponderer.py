"""The :class:`Ponderer`: pondering for one game, on threads of its own (what it does: the package's
docs)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from types import TracebackType

import chess

from ...errors import ChessatronError
from ...gantry.robot import Robot
from ...planning.layout import Node
from ...planning.planner import Planner
from ...planning.table import Table
from ...recognition import PieceLifted
from ..engine.foresight import Foresight
from ..engine.player import EnginePlayer
from ..players.board import BoardMover
from ..players.engine import EngineMover
from ..players.notation import MoveSpellings
from ..telling.live import LiveState
from .magnet import Magnet
from .model import (
    AHEAD_FREE_S,
    CANDIDATES,
    HOLD_S,
    MIN_GAIN_S,
    START_DELAY_S,
    UNFORESEEN_PLANS,
    Heading,
    Likely,
    PositionKey,
    first_reply_start,
    likely_moves_of,
    moves_of_piece,
    position_key,
    spot_to_wait,
    starts_to_wait_for,
    typed_heading,
)
from .stats import PonderStats
from .worker import Worker

__all__ = ["WATCH_S", "PonderStats", "Ponderer"]

LOGGER = logging.getLogger(__name__)

#: How often the sensors' events are looked at for a lifted piece (seconds).
WATCH_S = 0.05


@dataclass
class _Turn:
    """What pondering knows in one person's turn. A turn that ends is halted: its searches stop and its
    threads finish on their own, touching nothing of the next turn's."""

    by_hand: bool = True
    """The person moves the pieces (the robot's first drag is its reply's), or the robot carries their
    move out first (its first drag is that move's)."""
    board: chess.Board = field(default_factory=chess.Board)
    """The position the person moves in (copied)."""
    table: Table | None = None
    """The physical table as the turn began (copied)."""
    halted: threading.Event = field(default_factory=threading.Event)
    prediction: Foresight | None = None
    searches: dict[PositionKey, Foresight] = field(default_factory=dict)
    evaluations: dict[PositionKey, Foresight] = field(default_factory=dict)
    starts: dict[PositionKey, Node] = field(default_factory=dict)
    """Where the reply begins, by the position the person's move makes (by hand only)."""
    known: list[Likely] = field(default_factory=list)
    """Each likely move whose first drag is planned (the reply's, or the move's own when the robot
    carries it out)."""
    ready: dict[chess.Move, chess.Move] = field(default_factory=dict)
    """The engine's reply to each likely move, once found (and, by hand, planned)."""
    lifted: chess.Square | None = None
    """The piece the person holds, as the sensors saw."""
    heading: frozenset[chess.Move] | None = None
    """The moves the person is heading for: those of the piece they hold (lifted, or picked on the web
    page), or those that fit what they have typed; None: no clue."""
    spellings: MoveSpellings | None = None
    """How each legal move may be typed (made when the person first types)."""
    unforeseen: dict[chess.Move, Node | None] = field(default_factory=dict)
    """Where moves the engine did not foresee begin, planned when the person headed for them."""

    def halt(self, keep: PositionKey | None = None) -> None:
        """End the turn: every search stops but those of the position ``keep``."""
        self.halted.set()
        if self.prediction is not None:
            self.prediction.stop()
        for key, search in [*self.searches.items(), *self.evaluations.items()]:
            if key != keep:
                search.stop()


class Ponderer:
    """Thinks on the person's time for one game: see the module's docstring.

    ``planner`` plans the replies foreseen; ``robot`` moves the empty magnet (None: the engine ponders,
    nothing moves); ``live`` shows where the magnet went. A context manager: leaving it stops every
    search and waits for the magnet.
    """

    def __init__(
        self,
        planner: Planner,
        *,
        robot: Robot | None = None,
        live: LiveState | None = None,
        candidates: int = CANDIDATES,
    ) -> None:
        self.planner = planner
        self.robot = robot
        self.live = live
        self.candidates = candidates
        self.stats = PonderStats()
        self._lock = threading.Lock()
        self._heading = threading.Lock()  # the engine's answer heard, or a travel for what it heads for
        self._headed = Heading()  # where the engine's search after a miss is heading
        # threads of their own, started here: a thread started while the person waits for the prompt
        # would cost the session the interpreter for milliseconds, work handed to one costs nothing
        self._pondering = Worker("ponder")
        self._watching = Worker("watch sensors")
        self._magnet = Magnet(robot, planner.layout, live=live, on_travel=self._travelled)
        self._turn = _Turn()
        self._turn.halted.set()
        self._engine: EnginePlayer | None = None
        self._expecting = False  # a person is choosing, the engine will answer
        self._answering = False  # the engine is answering a person
        self._approached: PositionKey | None = None  # the position whose reply the magnet set off for
        #: Whether the magnet is busy tidying on the person's time (:class:`~..tidying.Tidier`): it goes to
        #: wait for the reply only once that is done (:meth:`wait_again`).
        self.magnet_busy: Callable[[], bool] = lambda: False

    def __enter__(self) -> Ponderer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "pondering" if self.is_pondering else "idle"
        return f"Ponderer({state}, {self.stats.hits} hits, {self.stats.misses} misses)"

    @property
    def is_pondering(self) -> bool:
        """The engine is still working ahead (searching, or the magnet on its way)."""
        return self._pondering.is_busy or self._magnet.is_busy

    def replies_ready(self) -> dict[chess.Move, chess.Move]:
        """The person's likely moves the engine has its reply to already, with the reply."""
        with self._lock:
            return dict(self._turn.ready)

    def reply_start(self, board: chess.Board, move: chess.Move) -> Node | None:
        """Where the robot's reply to the person's ``move`` on ``board`` begins, as planned ahead (a
        person at the board only), or None."""
        after = board.copy()
        after.push(move)
        with self._lock:
            return self._turn.starts.get(position_key(after))

    # --- the session's hooks -----------------------------------------------------------------------

    def before(self, board: chess.Board, table: Table, mover: object, opponent: object) -> None:
        """The side to move on ``board`` is about to choose (``mover``) and ``opponent`` will answer:
        ponder if that is the robot's engine answering a person (or a page, or a keyboard)."""
        if isinstance(opponent, EngineMover) and not isinstance(mover, EngineMover):
            by_hand = isinstance(mover, BoardMover)
            events = mover.events if isinstance(mover, BoardMover) else None
            self.expect(board, table, opponent.engine, opponent.budget, by_hand=by_hand, events=events)

    def expect(
        self,
        board: chess.Board,
        table: Table,
        engine: EnginePlayer,
        budget: Callable[[chess.Board], float | None] = lambda board: None,
        *,
        by_hand: bool = True,
        events: list[object] | None = None,
    ) -> None:
        """A person is about to choose a move on ``board`` and ``engine`` will answer it: ponder until
        :meth:`heard`. ``table`` is the physical table now (copied); ``budget`` the engine's time cap
        for a position (its clock); ``by_hand``: the person moves the pieces (at the board), else the
        robot carries their move out first (typed, clicked: the magnet waits for that move instead);
        ``events`` the recognizer's events of a person at the board as they come (a piece lifted
        narrows the moves to wait for to that piece's)."""
        turn = _Turn(by_hand=by_hand, board=board.copy(), table=table.copy())
        with self._lock:
            self._turn.halt()
            self._turn = turn
        self._expecting, self._answering, self._approached = True, False, None
        self._engine = engine
        if not any(board.generate_legal_moves()):
            turn.halted.set()
            return
        self._pondering.submit(partial(self._ponder, turn, board.copy(), table.copy(), engine, budget))
        if events is not None and self.robot is not None:
            self._watching.submit(partial(self._watch, turn, events, len(events)))

    def heard(self, board: chess.Board, choice: object, table: Table) -> None:
        """A player chose on ``board`` (a move, or a command, a revision, nothing), the table as ``table``.
        After a person's move every search but the one of the position it makes stops, and on a ponder
        hit the magnet sets off for the reply's first drag at once; after the engine's answer to a
        person at the board, the magnet sets off for its first drag (unless it has already: a hit) while
        the person's move must still stand (the robot's next plan waits for it). (A typed move the robot
        carries out at once: its plan takes the magnet where it goes.)"""
        move = choice if isinstance(choice, chess.Move) and board.is_legal(choice) else None
        if self._expecting:
            keep: PositionKey | None = None
            if move is not None:
                after = board.copy()
                after.push(move)
                keep = position_key(after)
            with self._lock:
                turn = self._turn
                turn.halt(keep)
                self.stats.searched.append(len(turn.searches))
                start = turn.starts.get(keep) if keep is not None else None
                reply = turn.ready.get(move) if move is not None and turn.by_hand else None
            if start is not None and reply is not None and move is not None:
                # planned again from where the magnet is: only the hold is left for the travel
                started = time.thread_time()
                start = self._first_start(table, board, move, reply, HOLD_S) or start
                self.stats.planning_s += time.thread_time() - started
            if start is not None:
                self._magnet.approach(start)
                self._approached = keep
            if move is None:
                self._expecting = False
        elif self._answering and move is not None:
            with self._heading:
                self._answering = False  # (no travel for what the search was heading for after this)
            # (on a hit the magnet is on its way already)
            if self._turn.by_hand and self._approached != position_key(board):
                self._set_off(table, board, move)
            # the robot's plan, made next, starts where the magnet goes, not where it was
            self._magnet.settle()

    def searching(
        self, board: chess.Board, move: chess.Move, info: Mapping[str, object], table: Table
    ) -> None:
        """The engine, answering a person at the board on a miss, is heading for ``move`` on ``board``
        (``info``: what it said, its ``depth``; ``table``, copied, shows the person's move): once the
        search has settled on a move (:class:`~.model.Heading`), the magnet sets off for its first drag
        while the search goes on (in the background: this returns at once)."""
        depth, listens = info.get("depth"), self._answering and self._turn.by_hand and self.robot is not None
        if listens and isinstance(depth, int) and self._headed.hear(move, depth) is not None:
            self._watching.submit(partial(self._approach, table.copy(), board.copy(), move))

    def _approach(self, table: Table, board: chess.Board, move: chess.Move) -> None:
        with self._heading:  # (once the engine has answered, heard takes the magnet to its answer)
            if self._answering and self._set_off(table, board, move):
                self.stats.headings += 1

    def _set_off(self, table: Table, board: chess.Board, move: chess.Move) -> bool:
        """The magnet sets off for the first drag of the robot's ``move`` (False: it cannot be planned)."""
        started = time.thread_time()
        start = self._first_start(table, board, None, move, free_s=0.0)  # the travel is in the wait
        self.stats.planning_s += time.thread_time() - started
        if found := start is not None:
            self._magnet.approach(start)
        return found

    def picked(self, square: chess.Square | None) -> None:
        """The person picked up the piece on ``square`` on the web page (None: put it down again): as a
        piece lifted at the board, it narrows where the magnet waits to that piece's moves (in the
        background: this returns at once)."""
        turn = self._turn
        if not turn.halted.is_set():
            self._watching.submit(partial(self._follow_pick, turn, square))

    def typed(self, text: str) -> None:
        """The person at the keyboard has typed ``text`` so far (the prompt's line, Enter not yet pressed:
        ``e2``, ``Nf``, ``Nf3``): the magnet waits where the moves that text may become begin (in the
        background: this returns at once, on the thread that reads the keys). A text that fits no move
        changes nothing; an empty one (erased) undoes the clue."""
        turn = self._turn
        if not turn.halted.is_set():
            self._watching.submit(partial(self._follow_typing, turn, text))

    def wait_again(self) -> None:
        """The magnet is free again (the tidying is done): it goes where the reply will likely begin, if
        the person's turn goes on (in the background: this returns at once)."""
        turn = self._turn
        if not turn.halted.is_set():
            self._watching.submit(partial(self._wait_near, turn))

    def foreseen(self, board: chess.Board) -> chess.Move | None:
        """The engine's move in ``board`` if it searched this position ahead (a ponder hit; waits for the
        search to end if it still runs), else None (a miss: the engine searches now)."""
        kept = position_key(board)
        with self._lock:
            # the search of this position (and its evaluation, which the session asks for) runs on
            self._turn.halt(kept)
            search = self._turn.searches.get(kept)
        expecting, self._expecting = self._expecting, False
        self._answering, self._headed = expecting, Heading()
        found = search.result() if search is not None else None
        if found is None or not board.is_legal(found[0]):
            if expecting:
                self.stats.misses += 1
            return None
        move, info = found
        if self._engine is not None:
            self._engine.last_info = info  # what the engine said of the move it plays
        self.stats.hits += 1
        LOGGER.info("ponder hit: %s answered at once with %s", board.fen(), move.uci())
        return move

    def close(self) -> None:
        """Stop every search, drop the travels not begun and wait for the rest (idempotent)."""
        with self._lock:
            self._turn.halt()
        self._magnet.drop()
        for worker in (self._pondering, self._watching):
            worker.close()
        self._magnet.close()

    # --- the pondering threads ---------------------------------------------------------------------

    def _ponder(
        self,
        turn: _Turn,
        board: chess.Board,
        table: Table,
        engine: EnginePlayer,
        budget: Callable[[chess.Board], float | None],
    ) -> None:
        # the session first asks the person for their move (a prompt, the LEDs); pondering then competes
        # with it for nothing
        if turn.halted.wait(START_DELAY_S):
            return
        with self._lock:
            if turn.halted.is_set():
                return
            try:
                predicting = turn.prediction = engine.predict(board, count=self.candidates)
            except ChessatronError as exc:
                LOGGER.info("no pondering on %s: %s", board.fen(), exc)
                return
        found: list[chess.Board] = []
        predictions = likely_moves_of(predicting.likely_moves())
        if not turn.by_hand:
            # the robot carries the person's move out first: the magnet waits where that move begins
            for prediction in predictions:
                started = time.thread_time()
                first = self._first_start(table, board, None, prediction.move)
                self.stats.planning_s += time.thread_time() - started
                if first is not None:
                    with self._lock:
                        turn.known.append(Likely(prediction.move, first, prediction.probability))
            self._wait_near(turn)
        for prediction in predictions:
            after = board.copy()
            after.push(prediction.move)
            if after.is_game_over():
                continue
            search = self._start(
                turn, partial(engine.foresee, after, max_time_s=budget(after)), after, turn.searches
            )
            result = search.result() if search is not None else None
            if result is None:
                if turn.halted.is_set():
                    return
                continue
            found.append(after)
            if not turn.by_hand:
                with self._lock:
                    turn.ready[prediction.move] = result[0]
                continue
            started = time.thread_time()
            start = self._first_start(table, board, prediction.move, result[0])
            self.stats.planning_s += time.thread_time() - started
            if start is None:
                continue
            with self._lock:
                turn.starts[position_key(after)] = start
                turn.known.append(Likely(prediction.move, start, prediction.probability))
                turn.ready[prediction.move] = result[0]
            self._wait_near(turn)
        # then the engine's view of each position, for the watchers: ready when a hit shows it (the
        # replies first: a person who moves quickly must not wait for an evaluation)
        for after in found:
            evaluation = self._start(turn, partial(engine.analyse_ahead, after), after, turn.evaluations)
            if evaluation is None:
                return
            evaluation.result()

    def _start(
        self,
        turn: _Turn,
        begin: Callable[[], Foresight],
        position: chess.Board,
        into: dict[PositionKey, Foresight],
    ) -> Foresight | None:
        """Begin a search ahead unless the turn has ended; None when it has (or the engine failed)."""
        with self._lock:
            if turn.halted.is_set():
                return None
            try:
                search = begin()
            except ChessatronError as exc:
                LOGGER.info("no pondering on %s: %s", position.fen(), exc)
                return None
            into[position_key(position)] = search
            return search

    def _first_start(
        self,
        table: Table,
        board: chess.Board,
        move: chess.Move | None,
        reply: chess.Move,
        free_s: float = AHEAD_FREE_S,
    ) -> Node | None:
        """Where the robot's first drag of ``reply`` begins, after the person's ``move`` (None: made
        already, ``table`` shows it), the travel there free for ``free_s`` (planned ahead: the person
        thinks meanwhile)."""
        at = self._magnet.destination()
        return first_reply_start(self.planner, at, table, board, move, reply, free_s)

    def _wait_near(self, turn: _Turn) -> None:
        """Send the empty magnet where the expected travel to the robot's first drag is shortest, if that
        gains: over every likely move planned so far, or those the person is heading for."""
        if self.robot is None or self.magnet_busy():
            return
        started = time.thread_time()
        with self._lock:
            known, heading = list(turn.known), turn.heading
        # (typed or clicked, moves the engine did not foresee are carried out by the robot all the same)
        unforeseen = None if turn.by_hand else partial(self._unforeseen_starts, turn)
        starts = starts_to_wait_for(known, heading, unforeseen)
        if not starts:
            return
        soon = turn.by_hand and turn.lifted is not None  # the move comes soon: what can be reached by then
        found, gain = spot_to_wait(self.planner.timer, self._magnet.destination(), starts, soon=soon)
        self.stats.planning_s += time.thread_time() - started
        if found is not None and gain >= MIN_GAIN_S and not turn.halted.is_set():
            self._magnet.send(found, turn.halted.is_set)

    def _unforeseen_starts(self, turn: _Turn, heading: frozenset[chess.Move]) -> list[tuple[Node, float]]:
        """Where the moves ``heading`` begin (the robot's first drag of each, equally likely), planned
        now (none when there are too many to be worth it)."""
        if len(heading) > UNFORESEEN_PLANS or turn.table is None:
            return []
        for move in heading - turn.unforeseen.keys():
            turn.unforeseen[move] = self._first_start(turn.table, turn.board, None, move)
        return [(start, 1.0) for move in heading if (start := turn.unforeseen[move]) is not None]

    def _head_for(self, turn: _Turn, heading: frozenset[chess.Move] | None) -> bool:
        """The person is heading for the moves ``heading`` (None: no clue): wait for those. False when
        that is no news (or the turn is over)."""
        with self._lock:
            if turn.halted.is_set() or heading == turn.heading:
                return False
            turn.heading = heading
        self._wait_near(turn)
        return True

    def _follow_pick(self, turn: _Turn, square: chess.Square | None) -> None:
        heading = None if square is None else moves_of_piece(turn.board, square) or None
        if self._head_for(turn, heading):
            self.stats.clues += 1

    def _follow_typing(self, turn: _Turn, text: str) -> None:
        if turn.halted.is_set():
            return
        started = time.thread_time()
        if turn.spellings is None:
            turn.spellings = MoveSpellings(turn.board)
        heading = typed_heading(turn.spellings, text, turn.heading)
        self.stats.planning_s += time.thread_time() - started
        if self._head_for(turn, heading):
            self.stats.clues += 1

    def _watch(self, turn: _Turn, events: list[object], seen: int) -> None:
        """Follow a person at the board: the piece they lift tells which replies to wait for."""
        while not turn.halted.wait(WATCH_S):
            fresh, seen = events[seen:], len(events)
            lifts = [event.square for event in fresh if isinstance(event, PieceLifted)]
            if lifts and lifts[-1] != turn.lifted:
                turn.lifted = lifts[-1]
                self.stats.lifts += 1
                # a piece of the person's narrows to its moves; another (a victim lifted first), to none
                self._head_for(turn, moves_of_piece(turn.board, lifts[-1]) or None)

    def _travelled(self) -> None:
        self.stats.travels += 1
