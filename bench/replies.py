"""``python -m bench.replies``: how long a person waits for the robot's reply (issue 16).

Two sets of games, one side played by a person, the other by the robot's engine, over every third game
of tests/data/games (ten games; ``--every 1`` takes all thirty, in four times as long):

* **shared**: the games as they were played, the person taking White in odd-numbered games and Black in
  the others; the robot's replies are the games' moves;
* **played**: from the same starts, a simulated person against the robot's engine (the person picks
  among the eight best lines of a short search, worse ones less often; the first 60 plies).

Each person's move is made twice: at the board (the person moves the pieces; the robot answers once the
move has stood for the hold, :func:`~chessatron.game.seats.reply_hold_s`: 1.5 s after the last touch, 5 s
for a king or rook set down on its own castling square, where it could be half a castling) and typed or
clicked (the robot carries the move out, then its reply). The person who types or clicks is drawn for each
game by :mod:`bench.people` (typing at the prompt or clicking and dragging on the web page, fast or slow,
sometimes stopping to think), which says when the ponderer hears the line typed so far or the piece picked
up, before the move is sent; those clues narrow where the magnet waits as
:meth:`~chessatron.game.ponder.ponderer.Ponderer.typed` and
:meth:`~chessatron.game.ponder.ponderer.Ponderer.picked` do. The report gives the hits by how the move was
sent and how long before it was sent its piece was known.

**Reply latency** runs from the moment the person's move is final (at the board: the end of the hold;
typed or clicked: when it is sent) to the robot's last release; the hold is reported on its own. **The
drags' own time** is the machine's from its first magnet engage after the move to that last release.

The machine's part is measured by the twin on the very G-code (pre-positioning travels included); the
engine's is modelled as on a Raspberry Pi, where searches run to their time caps: the engine's move 1 s
(the session's default level), the prediction of the person's likely moves 0.25 s and the evaluation for
the watchers 0.3 s (their limits), in the order the session runs them (a move made at the board: the
robot's answer is not held up by the evaluation, which is shown when found ahead, from issue 25 on; a
typed move: evaluated while the robot carries it out, the answer searched after that; without
pondering, as before issue 16: the evaluation first, then the answer). The bench's own searches are node- or
depth-limited, but for the prediction's, which stops at its time limit when its depth takes longer (on a
busy machine a run may then see a hit or two more or fewer). The
person thinks for a log-normal time (median 8 s; 2.5 s to 25 s for four moves in five), seeded by the
game; at the board they lift the piece a hand's lift, carry and place before the recognizer commits it.

* **before** (``--no-ponder``; the figures kept in ``bench/data/before-issue16.json`` were measured so on
  the code before issue 16): after the move the engine evaluates, then searches; the robot travels from
  where its last move ended, then drags.
* **now** (:mod:`chessatron.game.ponder`): while the person thinks the engine predicts their likely moves
  and searches its reply to each, most likely first, then evaluates those positions; the magnet waits
  where the expected travel to the robot's first drag is shortest (the reply's at the board, narrowed to
  the replies to the lifted piece's moves once it is lifted; the move's own when typed or clicked,
  narrowed to the moves that fit the line typed so far or the piece picked up). On a hit the
  reply is ready at once and, at the board, the magnet sets off for its first drag at the commit, during
  the hold; on a miss the engine searches as before and, at the board, the magnet sets off for what the
  search settles on as it goes (:class:`~chessatron.game.ponder.model.Heading`; the search's moves timed
  by the share of its nodes searched, of the engine's 1 s).

Targets: on ponder hits, latency within 0.3 s of the drags' own time; planning CPU under 1 % of machine
time; zero twin violations, pre-positioning included.

**Issue 25** (:mod:`bench.waits`): the same waits by the kind of the robot's reply (quiet, capture,
castling, promotion), median, 90th percentile and longest, each beside its floor on this table and the
figure measured on the code before issue 25 (``bench/data/before-issue25.json``); the robot's reply
parks what leaves the board nearby, and the tidying that takes it on to its zone runs in the turn of a
person at the board until their hand comes to the table (the piece lifted), the drag under way ending
first: how much of it there was, and how often a drag still ran when the move was committed. Typed or
clicked, the session does not tidy (``tidy_while_thinking = "board"``, the default: such a person gives
no warning; :func:`waits.first_clue_s` says when the first clue would stop it under ``"always"``). The
wait runs from the move being final (at the board the end of the hold, which the recognizer's rules set
and this issue leaves alone; the hold is reported above). Targets: p90 at the
board <= 6 s, a promotion <= 10 s (or within 10 % of its floor where that is higher).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import chess
import chess.engine
import chess.pgn

from chessatron.errors import ChessatronError
from chessatron.game.engine.player import ANALYSIS_LIMIT, EnginePlayer
from chessatron.game.engine.settings import DEFAULT_MOVE_TIME_S, find_engine, parse_level
from chessatron.game.seats import reply_hold_s
from chessatron.planning.layout import Layout, Node
from chessatron.recognition import Recognizer
from chessatron.sim.hand_style import HandStyle
from chessatron.sim.simulate import TableSimulator, game_moves
from chessatron.sim.twin import TwinPiece

from . import people, waits
from .__main__ import load_before, load_before_25, load_games, percentile

ENGINE_MOVE_S = DEFAULT_MOVE_TIME_S
EVALUATION_S = ANALYSIS_LIMIT.time or 0.0
SETTLE_S = Recognizer.settle_s
#: The robot's engine: full strength, node-limited (the same move every run).
ROBOT_LEVEL = "engine:nodes=10000"
PERSON_LINES = 8
PERSON_DEPTH = 6
PERSON_TEMPERATURE_CP = 60.0
PLAYED_PLIES = 60
THINK_MEDIAN_S = 8.0
THINK_SIGMA = 0.9
TARGET_HIT_OVERHEAD_S = 0.3

Searched = tuple[tuple[float, chess.Move], ...]
"""What a search after a miss headed for on the way: (seconds into it, move)."""
Person = Literal["typed", "board"]
PERSONS: tuple[Person, ...] = ("typed", "board")
Mode = Literal["before", "now"]


@dataclass(frozen=True)
class Reply:
    """One reply to one person's move."""

    hit: bool
    latency_s: float
    """From the move being final (typed: sent; at the board: the end of the hold) to the last release."""
    drags_s: float
    """The machine's time from its first magnet engage after the move to its last release."""
    hold_s: float
    """At the board, from the commit of the move to the end of its hold (0 typed)."""
    way: str = "board"
    """How the move was made: ``typed``, ``clicked`` (on the web page) or ``board``."""
    paused: bool = False
    """Typed or clicked: the person stopped to think once the piece was chosen (or before Enter)."""
    piece_known_s: float = math.nan
    """Typed or clicked, pondering: how long before the move was sent the ponderer had narrowed it to the
    moved piece's moves for good (NaN: not before it was sent)."""
    kind: waits.Kind = "quiet"
    """What the robot's reply is (:func:`waits.reply_kind`)."""
    floor_s: float = math.nan
    """The machine's floor for what the person waits for (:func:`waits.move_floor`): the reply's, and
    typed or clicked the person's move's too (the robot carries it out first)."""
    tidy_s: float = 0.0
    """Machine seconds of tidying in the person's turn before the move (issue 25)."""
    tidy_delay_s: float = 0.0
    """How long a tidying drag still ran after the person's move was committed (0: it never did)."""


@dataclass
class Totals:
    """Replies of one set of games, one person and one mode, with the machine's and the planner's time."""

    replies: list[Reply] = field(default_factory=list)
    violations: int = 0
    planning_cpu_s: float = 0.0
    machine_s: float = 0.0
    resets: list[tuple[int, float]] = field(default_factory=list)
    """After each game at the board: the pieces left parked, and the reset's seconds from the table so."""


@dataclass(frozen=True)
class Foreseen:
    """What the engine had found by the commit of the person's move (pondering)."""

    predicted_at: float
    """When the likely moves were known (seconds into the person's turn); inf: not before the commit."""
    predictions: tuple[Any, ...]
    """:class:`~chessatron.game.ponder.model.Prediction` of each likely move, most likely first."""
    answers: tuple[tuple[Any, float, chess.Move], ...]
    """Each likely move whose reply the engine began to search before the commit: the prediction, when
    the reply is found, the reply."""
    evaluated: dict[chess.Move, tuple[float, float]]
    """When the evaluation of the position after each likely move began and ended."""

    def hit(self, move: chess.Move) -> tuple[Any, float, chess.Move] | None:
        return next((answer for answer in self.answers if answer[0].move == move), None)


def think_time(rng: random.Random) -> float:
    return min(max(rng.lognormvariate(math.log(THINK_MEDIAN_S), THINK_SIGMA), 1.0), 120.0)


def lead_time(rng: random.Random, move: chess.Move) -> float:
    """From the lift of the piece to the commit of its move on the board: the simulated hand's calm
    lift, carry (longer by the squares crossed) and place, and the recognizer's settling time."""
    style = HandStyle.calm()
    squares = chess.square_distance(move.from_square, move.to_square)
    return (
        rng.uniform(*style.lift_s)
        + rng.uniform(*style.carry_s)
        + style.carry_per_square_s * squares
        + rng.uniform(*style.place_s)
        + SETTLE_S
    )


def hand_move(sim: TableSimulator, move: chess.Move) -> None:
    """The person makes ``move`` at the board: pieces move (in the twin too), the magnet does not."""
    plan = sim.planner.plan_move(sim.table, sim.board, move, at=sim.writer.position)
    for relocation in plan.relocations:
        piece = sim.twin.lift(relocation.piece.id)
        x, y = sim.layout.node_mm(relocation.goal)
        sim.twin.place(TwinPiece(piece.id, piece.symbol, x, y))
        sim.table.relocate(relocation.piece.id, relocation.goal)
    sim.board.push(move)


def travel(sim: TableSimulator, node: Node, totals: Totals) -> float:
    """The empty magnet to ``node`` through the twin (as :meth:`Robot.travel` sends it): its seconds."""
    point = sim.layout.node_mm(node)
    if point == sim.writer.position:
        return 0.0
    report = sim.twin.run(["(WAIT FOR THE REPLY)", f"G0 {sim.writer.point(point)}"], finish=True)
    sim.writer.position = point
    totals.violations += len(report.violations)
    totals.machine_s += report.seconds
    return report.seconds


def follow(sim: TableSimulator, totals: Totals, asked: Sequence[tuple[float, Node]], free_s: float) -> float:
    """The empty magnet's travels ``asked`` for (when, where to), one at a time from ``free_s`` on, as
    :class:`~chessatron.game.ponder.magnet.Magnet` runs them (a travel asked for replaces one not yet
    begun; one begun runs to its end): when the last has run."""
    index = 0
    while index < len(asked):
        at_s, node = asked[index]
        begins = max(at_s, free_s)
        newest = max(i for i, (when, _) in enumerate(asked) if when <= begins)
        if newest > index:
            index = newest  # replaced before it began
            continue
        free_s = begins + travel(sim, node, totals)
        index += 1
    return free_s


def first_start(
    sim: TableSimulator,
    board: chess.Board,
    move: chess.Move | None,
    reply: chess.Move,
    free_s: float = 0.0,
    at: Node | None = None,
) -> Node:
    """Where the robot's first drag of ``reply`` begins after the person's ``move`` (None: made already),
    the travel there free for ``free_s`` (issue 25 on: planned ahead, or in the hold), the magnet where it
    is or, once a travel asked for has run, at ``at``."""
    table, position = sim.table.copy(), board.copy()
    magnet = sim.writer.position if at is None else sim.layout.node_mm(at)
    if move is not None:
        sim.planner.plan_move(table, position, move, at=magnet).apply(table)  # by hand
        position.push(move)
    free = {"free_s": free_s} if free_s else {}
    plan = sim.planner.plan_reply(table, position, reply, at=magnet, **free)
    return plan.relocations[0].start


def _ahead_free_s(ponder: ModuleType) -> float:
    """The travel planned ahead takes for free (:data:`~chessatron.game.ponder.model.AHEAD_FREE_S`, issue
    25 on; before it, none)."""
    return float(getattr(ponder, "AHEAD_FREE_S", 0.0))


class Magnet:
    """The magnet's travels while a person thinks, on one table, as :class:`Ponderer` sends them: one at a
    time, a travel asked for while another runs replacing any not yet begun, none begun after the
    commit."""

    def __init__(self, ponder: ModuleType, sim: TableSimulator, totals: Totals, commit_s: float) -> None:
        self.ponder = ponder
        self.sim = sim
        self.totals = totals
        self.commit_s = commit_s
        self.free_at = 0.0  # when the travel under way ends
        self.pending: tuple[float, Node] | None = None
        self.known: list[Any] = []  # Likely (chessatron.game.ponder.model)

    def wait_near(
        self,
        at_s: float,
        heading: frozenset[chess.Move] | None,
        unforeseen: Callable[[frozenset[chess.Move]], list[tuple[Node, float]]] | None = None,
        *,
        lifted: bool = False,
    ) -> None:
        """As :meth:`Ponderer._wait_near` at ``at_s``, the person heading for the moves ``heading`` (None:
        no clue); ``unforeseen`` plans where moves the engine did not foresee begin (typed or clicked);
        ``lifted``: a person at the board holds a piece (their move comes soon: from issue 25 on, the
        magnet goes only as far as pays by then, :func:`~chessatron.game.ponder.model.soon_spot`)."""
        self.flush(at_s)
        timer = self.sim.planner.timer
        cpu = time.thread_time()
        starts = self.ponder.starts_to_wait_for(self.known, heading, unforeseen)
        if not starts:
            self.totals.planning_cpu_s += time.thread_time() - cpu
            return
        where = self.pending[1] if self.pending is not None else None
        at = self.sim.layout.node_mm(where) if where is not None else self.sim.writer.position
        if hasattr(self.ponder, "spot_to_wait"):  # (as the ponderer decides, from issue 25 on)
            spot, gain = self.ponder.spot_to_wait(timer, at, starts, soon=lifted)
        else:
            spot, expected = self.ponder.waiting_spot(timer, starts)
            gain = self.ponder.expected_travel(timer, at, starts) - expected
        self.totals.planning_cpu_s += time.thread_time() - cpu
        if spot is not None and gain >= self.ponder.MIN_GAIN_S:
            self.pending = (at_s, spot)
            self.flush(at_s)

    def flush(self, now_s: float) -> None:
        """Begin the travel asked for last once the machine is free, if that is before the commit."""
        if self.pending is None:
            return
        asked_s, node = self.pending
        begins = max(asked_s, self.free_at)
        if begins >= self.commit_s:
            if now_s >= self.commit_s:
                self.pending = None  # the turn ended first: dropped
            return
        if begins <= now_s:
            self.pending = None
            self.free_at = begins + travel(self.sim, node, self.totals)


def foreseen(
    ponder: ModuleType,
    robot: EnginePlayer,
    board: chess.Board,
    commit_s: float,
    person_move: chess.Move,
    reply: chess.Move | None,
) -> Foreseen:
    """The engine's side of pondering up to the commit (the same for every person): the prediction, its
    reply to each likely move in turn, then its view of each position. ``reply``: the game's reply to
    the person's move (its search, on a hit, found that one), None for the engine's own."""
    predicted_at = ponder.START_DELAY_S + prediction_s()
    if predicted_at >= commit_s:
        return Foreseen(math.inf, (), (), {})
    predictions = tuple(ponder.likely_moves_of(robot.likely_moves(board)))
    t = predicted_at
    answers = []
    for prediction in predictions:
        if t >= commit_s:
            break
        after = _after(board, prediction.move)
        if after.is_game_over():
            continue
        given = reply if prediction.move == person_move else None
        answers.append((prediction, t + ENGINE_MOVE_S, given or robot.best_move(after)))
        t += ENGINE_MOVE_S
    evaluated: dict[chess.Move, tuple[float, float]] = {}
    for prediction, found_at, _ in answers:
        if t >= commit_s or found_at > commit_s:
            break
        evaluated[prediction.move] = (t, t + EVALUATION_S)
        t += EVALUATION_S
    return Foreseen(predicted_at, predictions, tuple(answers), evaluated)


def prediction_s() -> float:
    """How long the prediction of a person's likely moves searches (its limit's time)."""
    from chessatron.game.engine.player import PREDICTION_LIMIT  # (from issue 16 on)

    return PREDICTION_LIMIT.time or 0.0


def evaluation_ready(ahead: Foreseen | None, person_move: chess.Move, commit_s: float) -> float:
    """When the engine has evaluated the position after the person's move for the watchers (the session
    does it before the robot answers): at once when done ahead; after the search ahead of this position
    when it still runs (the engine does one thing at a time); otherwise a fresh evaluation (a search
    ahead of another position stops at once)."""
    hit = ahead.hit(person_move) if ahead is not None else None
    if ahead is None or hit is None:
        return commit_s + EVALUATION_S
    began, done = ahead.evaluated.get(person_move, (math.inf, math.inf))
    if done <= commit_s:
        return commit_s
    if began <= commit_s:
        return done
    return max(commit_s, hit[1]) + EVALUATION_S


class Bench:
    def __init__(
        self,
        layout: Layout,
        robot: EnginePlayer,
        person: chess.engine.SimpleEngine,
        ponder: ModuleType | None,
    ) -> None:
        self.layout = layout
        self.robot = robot
        self.person = person
        self.ponder = ponder
        self.modes: tuple[Mode, ...] = ("before",) if ponder is None else ("before", "now")
        self.totals: dict[tuple[str, Person, Mode], Totals] = {}

    def _totals(self, part: str, person: Person, mode: Mode) -> Totals:
        return self.totals.setdefault((part, person, mode), Totals())

    def reply(
        self,
        part: str,
        sims: dict[tuple[Person, Mode], TableSimulator],
        think_s: float,
        lead_s: float,
        sent: people.Sending,
        person_move: chess.Move,
        reply: chess.Move | None,
    ) -> chess.Move:
        """Time the robot's reply to ``person_move``, committed ``think_s`` into the person's turn (at the
        board the piece was lifted ``lead_s`` before; typed or clicked, ``sent`` says what the ponderer
        heard of it before); ``reply``: the game's, or None for the engine's own. Plays both moves on
        every table; returns the reply."""
        any_sim = next(iter(sims.values()))
        board = any_sim.board.copy()
        ahead = None
        if self.ponder is not None:
            ahead = foreseen(self.ponder, self.robot, board, think_s, person_move, reply)
        hit = ahead.hit(person_move) if ahead is not None else None
        searched: Searched = ()
        if hit is None:
            found_move, searched = self._search(_after(board, person_move))
            reply = reply or found_move
        elif reply is None:
            reply = hit[2]
        for (person, mode), sim in sims.items():
            totals = self._totals(part, person, mode)
            pondering = ahead if mode == "now" else None
            if person == "typed":
                found = self._typed(sim, totals, board, pondering, think_s, sent, person_move, reply)
            else:
                found = self._board(
                    sim, totals, board, pondering, think_s, lead_s, person_move, reply, searched
                )
            totals.replies.append(found)
        return reply

    def _search(self, board: chess.Board) -> tuple[chess.Move, Searched]:
        """The robot's move in ``board`` (a miss: searched after the commit) with the moves its search
        headed for on the way, each with when it did (seconds into the engine's move time: the share of
        its nodes searched by then), once settled (:class:`~chessatron.game.ponder.model.Heading`)."""
        ponder = self.ponder
        heading = ponder.Heading() if ponder is not None and hasattr(ponder, "Heading") else None
        nodes = self.robot.settings.limit().nodes
        lines: list[tuple[float, chess.Move]] = []

        def heard(move: chess.Move, info: Any) -> None:
            said, depth = info.get("nodes"), info.get("depth")
            if heading is None or not nodes or not isinstance(said, int) or not isinstance(depth, int):
                return
            if heading.hear(move, depth) is not None:
                lines.append((min(said / nodes, 1.0) * ENGINE_MOVE_S, move))

        move = self.robot.best_move(board, heading=heard)
        return move, tuple(lines)

    def _typed(
        self,
        sim: TableSimulator,
        totals: Totals,
        board: chess.Board,
        ahead: Foreseen | None,
        commit_s: float,
        sent: people.Sending,
        person_move: chess.Move,
        reply: chess.Move,
    ) -> Reply:
        """The robot carries the typed (or clicked) move out, then searches (or has searched) and answers.
        Pondering, the magnet waits where the likely moves begin, narrowed as the person types or picks
        the piece up (``sent``)."""
        # the session tidies only while a person at the board thinks (config tidy_while_thinking = "board"):
        # one who types or clicks gives no warning before the move
        tidied = waits.Tidied(0.0, 0.0, 0, 0)
        free_at = tidied.end_s
        piece_known_s = math.nan
        if ahead is not None and self.ponder is not None:
            magnet = Magnet(self.ponder, sim, totals, commit_s)
            magnet.free_at = tidied.end_s
            clues = self._headings(board, sent, commit_s)
            piece_known_s = _piece_known(self.ponder, board, person_move, clues, commit_s)
            unforeseen = self._unforeseen(sim, totals, board)
            predicted = ahead.predicted_at >= commit_s  # (never, before the move: as if done)
            heading: frozenset[chess.Move] | None = None
            for at_s, clue in clues:
                if not predicted and ahead.predicted_at <= at_s:
                    self._predicted(sim, totals, board, ahead, magnet, heading, unforeseen)
                    predicted = True
                heading = clue
                magnet.wait_near(at_s, heading, unforeseen)
            if not predicted:
                self._predicted(sim, totals, board, ahead, magnet, heading, unforeseen)
            magnet.flush(commit_s)
            free_at = magnet.free_at
        hit = ahead.hit(person_move) if ahead is not None else None
        evaluated = evaluation_ready(ahead, person_move, commit_s)
        # pondering, the robot carries the move out while the evaluation runs (it needs no engine); the
        # reply comes after both (before issue 16 the evaluation came first)
        begins = max(commit_s if self.ponder is not None else evaluated, free_at)
        floor = waits.move_floor(sim, person_move)
        carried = self._play(sim, totals, person_move)
        carried_end = max(begins + carried.seconds, evaluated)
        ready = carried_end if hit is not None else carried_end + ENGINE_MOVE_S
        kind = waits.reply_kind(sim.board, reply)
        floor += waits.move_floor(sim, reply)
        answered = self._play(sim, totals, reply)
        end = ready + answered.seconds
        before_first = _travel_to_first(sim, carried)
        drags = carried.seconds - before_first + answered.seconds
        return Reply(
            hit is not None,
            end - commit_s,
            drags,
            0.0,
            sent.way,
            sent.paused,
            piece_known_s,
            kind,
            floor,
            tidied.machine_s,
            max(tidied.end_s - commit_s, 0.0),
        )

    def _predicted(
        self,
        sim: TableSimulator,
        totals: Totals,
        board: chess.Board,
        ahead: Foreseen,
        magnet: Magnet,
        heading: frozenset[chess.Move] | None,
        unforeseen: Callable[[frozenset[chess.Move]], list[tuple[Node, float]]],
    ) -> None:
        """The likely moves are known (:meth:`Ponderer._ponder`, typed): each one's first drag planned,
        then the magnet sent where they begin."""
        assert self.ponder is not None
        cpu = time.thread_time()
        for prediction in ahead.predictions:
            plan = sim.planner.plan_reply(sim.table, board, prediction.move, at=sim.writer.position)
            if plan.relocations:
                start = plan.relocations[0].start
                magnet.known.append(self.ponder.Likely(prediction.move, start, prediction.probability))
        totals.planning_cpu_s += time.thread_time() - cpu
        magnet.wait_near(ahead.predicted_at, heading, unforeseen)

    def _headings(
        self, board: chess.Board, sent: people.Sending, commit_s: float
    ) -> list[tuple[float, frozenset[chess.Move] | None]]:
        """When the ponderer hears each clue (seconds into the person's turn) and the moves it then heads
        for (:meth:`Ponderer.typed`, :meth:`Ponderer.picked`): a line that fits no move, or no news,
        left out."""
        assert self.ponder is not None
        from chessatron.game.players.notation import MoveSpellings  # (from issue 16 on)

        spellings = MoveSpellings(board)
        found: list[tuple[float, frozenset[chess.Move] | None]] = []
        heading: frozenset[chess.Move] | None = None
        for clue in sent.clues:
            if clue.text is not None:
                fitting = self.ponder.typed_heading(spellings, clue.text, heading)
            else:
                assert clue.square is not None
                fitting = self.ponder.moves_of_piece(board, clue.square) or None
            if fitting != heading:
                heading = fitting
                found.append((max(commit_s - clue.before_s, 0.0), heading))
        return found

    def _unforeseen(
        self, sim: TableSimulator, totals: Totals, board: chess.Board
    ) -> Callable[[frozenset[chess.Move]], list[tuple[Node, float]]]:
        """Where moves the engine did not foresee begin, planned when the person heads for them
        (:meth:`Ponderer._unforeseen_starts`)."""
        assert self.ponder is not None
        limit, ahead = self.ponder.UNFORESEEN_PLANS, _ahead_free_s(self.ponder)
        planned: dict[chess.Move, Node | None] = {}

        def starts(heading: frozenset[chess.Move]) -> list[tuple[Node, float]]:
            if len(heading) > limit:
                return []
            cpu = time.thread_time()
            for move in heading - planned.keys():
                try:
                    planned[move] = first_start(sim, board, None, move, ahead)
                except ChessatronError:
                    planned[move] = None
            totals.planning_cpu_s += time.thread_time() - cpu
            return [(start, 1.0) for move in heading if (start := planned[move]) is not None]

        return starts

    def _board(
        self,
        sim: TableSimulator,
        totals: Totals,
        board: chess.Board,
        ahead: Foreseen | None,
        commit_s: float,
        lead_s: float,
        person_move: chess.Move,
        reply: chess.Move,
        searched: Searched = (),
    ) -> Reply:
        """The person moves the pieces; the robot answers once the move has stood for the hold (on a miss,
        the magnet sets off for what the engine's search heads for, ``searched``, as it goes)."""
        final_s = commit_s - SETTLE_S + reply_hold_s(_after(board, person_move))
        hit = ahead.hit(person_move) if ahead is not None else None
        lifted_at = commit_s - lead_s
        tidied = self._tidy(sim, totals, lifted_at)
        overrun = max(tidied.end_s - commit_s, 0.0)
        if ahead is None or self.ponder is None:
            ready = commit_s + EVALUATION_S + ENGINE_MOVE_S
            hand_move(sim, person_move)
            kind, floor = waits.reply_kind(sim.board, reply), waits.move_floor(sim, reply)
            answered = self._play(sim, totals, reply)
            end = max(ready, final_s, tidied.end_s) + answered.seconds
            drags = answered.seconds - _travel_to_first(sim, answered)
            return Reply(
                False,
                end - final_s,
                drags,
                final_s - commit_s,
                kind=kind,
                floor_s=floor,
                tidy_s=tidied.machine_s,
                tidy_delay_s=overrun,
            )
        ponder = self.ponder
        magnet = Magnet(ponder, sim, totals, commit_s)
        magnet.free_at = tidied.end_s
        held = ponder.moves_of_piece(board, person_move.from_square) or None
        start_known = False
        lift_seen = False
        for prediction, found_at, answer in ahead.answers:
            if found_at > commit_s:
                continue
            if not lift_seen and lifted_at <= found_at:
                magnet.wait_near(max(lifted_at, 0.0), held, lifted=True)
                lift_seen = True
            cpu = time.thread_time()
            start = first_start(sim, board, prediction.move, answer, _ahead_free_s(ponder))
            totals.planning_cpu_s += time.thread_time() - cpu
            magnet.known.append(ponder.Likely(prediction.move, start, prediction.probability))
            start_known = start_known or prediction.move == person_move
            magnet.wait_near(found_at, held if lift_seen else None, lifted=lift_seen)
        if not lift_seen and lifted_at < commit_s:
            magnet.wait_near(max(lifted_at, 0.0), held, lifted=True)
        magnet.flush(commit_s)
        # from issue 25 on the engine's answer is not held up by its view of the position for the watchers
        # (shown when found ahead; else the answer's own search is the engine's view)
        ready = max(commit_s, hit[1]) if hit is not None else commit_s + ENGINE_MOVE_S
        # at the commit on a hit the magnet sets off for the reply's first drag, else once the engine has it
        hand_move(sim, person_move)
        asked: list[tuple[float, Node]] = []
        if hit is None:
            # on a miss the magnet follows the search (Ponderer.searching): each travel asked for replaces
            # one not begun, and is planned from where the travel asked for before it goes
            # (Magnet.destination), as the ponderer plans it
            for at_s, move in searched:
                going = asked[-1][1] if asked else None
                asked.append((commit_s + at_s, first_start(sim, sim.board, None, move, at=going)))
        cpu = time.thread_time()
        # (on a hit the reply is planned again at the commit, from where the magnet is: only the hold is
        # left for the travel; on a miss, at the answer, from where the search sent it: the travel is all
        # in the wait)
        held_s = ponder.HOLD_S if hit is not None and _ahead_free_s(ponder) else 0.0
        target = first_start(sim, sim.board, None, reply, held_s, at=asked[-1][1] if asked else None)
        totals.planning_cpu_s += time.thread_time() - cpu
        if asked:
            # the last travel, at the answer, goes to where its first drag begins
            magnet.free_at = follow(sim, totals, [*asked, (ready, target)], magnet.free_at)
            approach_from, approach_s = magnet.free_at, 0.0
        else:
            approach_from = max(commit_s if start_known else ready, magnet.free_at)
            approach_s = travel(sim, target, totals)
        kind, floor = waits.reply_kind(sim.board, reply), waits.move_floor(sim, reply)
        answered = self._play(sim, totals, reply)
        begins = max(ready, final_s, approach_from + approach_s)
        end = begins + answered.seconds
        drags = answered.seconds - _travel_to_first(sim, answered)
        return Reply(
            hit is not None,
            end - final_s,
            drags,
            final_s - commit_s,
            kind=kind,
            floor_s=floor,
            tidy_s=tidied.machine_s,
            tidy_delay_s=overrun,
        )

    def _tidy(self, sim: TableSimulator, totals: Totals, until_s: float) -> waits.Tidied:
        """The tidying in the person's turn until their hand comes to the table
        (:func:`waits.tidy_during`)."""
        tidied = waits.tidy_during(sim, until_s, sim.plies_played)
        totals.violations += tidied.violations
        totals.machine_s += tidied.machine_s
        return tidied

    def _play(self, sim: TableSimulator, totals: Totals, move: chess.Move) -> Any:
        ply = sim.play(move, tidy=False)  # (tidied on the person's time: _tidy)
        totals.violations += len(ply.violations)
        totals.machine_s += ply.seconds
        totals.planning_cpu_s += ply.planning_s
        return ply

    def _tables(self, board: chess.Board) -> dict[tuple[Person, Mode], TableSimulator]:
        return {(p, m): TableSimulator(self.layout, board) for p in PERSONS for m in self.modes}

    def shared(self, index: int, game: chess.pgn.Game) -> None:
        """A shared game as played: the person takes White in odd-numbered games."""
        board, moves = game_moves(game)
        person = chess.WHITE if index % 2 == 0 else chess.BLACK
        sims = self._tables(board)
        rng = random.Random(f"shared {index}")
        # the person's typing or clicking draws from a generator of its own: the board's are as before
        hands = random.Random(f"typed or clicked, shared {index}")
        someone = people.person_of(hands)
        ply = 0
        while ply < len(moves):
            move = moves[ply]
            if board.turn != person:  # the robot opens the game
                self._robot_move(sims, move)
            elif ply + 1 == len(moves):  # the game's last move: nothing to reply
                for sim in sims.values():
                    hand_move(sim, move)
            else:
                reply = moves[ply + 1]
                sent = people.sending(someone, board, move, hands)
                self.reply("shared", sims, think_time(rng), lead_time(rng, move), sent, move, reply)
                board.push(move)
                move = reply
                ply += 1
            board.push(move)
            ply += 1
        self._finish("shared", sims)

    def played(self, index: int, game: chess.pgn.Game) -> None:
        """A simulated person against the robot's engine, from the game's start."""
        board, _ = game_moves(game)
        start_ply = board.ply()
        person = chess.WHITE if index % 2 == 0 else chess.BLACK
        sims = self._tables(board)
        rng = random.Random(f"played {index}")
        hands = random.Random(f"typed or clicked, played {index}")
        someone = people.person_of(hands)
        while board.ply() - start_ply < PLAYED_PLIES and not board.is_game_over():
            if board.turn != person:
                move = self.robot.best_move(board)
                self._robot_move(sims, move)
                board.push(move)
                continue
            move = self._person_move(board, rng)
            if _after(board, move).is_game_over():
                for sim in sims.values():
                    hand_move(sim, move)
                break
            sent = people.sending(someone, board, move, hands)
            reply = self.reply("played", sims, think_time(rng), lead_time(rng, move), sent, move, None)
            board.push(move)
            board.push(reply)
        self._finish("played", sims)

    def _robot_move(self, sims: dict[tuple[Person, Mode], TableSimulator], move: chess.Move) -> None:
        for sim in sims.values():
            ply = sim.play(move, tidy=False)
            if ply.violations:
                raise AssertionError(f"twin violations in the robot's opening move {move}: {ply.violations}")

    def _person_move(self, board: chess.Board, rng: random.Random) -> chess.Move:
        """A move among the best lines of a short search, worse ones less often."""
        lines = self.person.analyse(
            board, chess.engine.Limit(depth=PERSON_DEPTH), multipv=PERSON_LINES, game=object()
        )
        scored = [(line["pv"][0], line["score"].pov(board.turn).score(mate_score=10_000)) for line in lines]
        best = max(value for _, value in scored)
        weights = [math.exp((value - best) / PERSON_TEMPERATURE_CP) for _, value in scored]
        return rng.choices([move for move, _ in scored], weights)[0]

    def _finish(self, part: str, sims: dict[tuple[Person, Mode], TableSimulator]) -> None:
        for (person, mode), sim in sims.items():
            totals = self._totals(part, person, mode)
            totals.violations += len(sim.compare_twin())
            if person == "board":  # what the tidying left for the reset after the game
                reset = sim.resetter.plan(sim.table.copy(), chess.Board(), at=sim.writer.position)
                totals.resets.append((len(sim.table.parked()), reset.seconds))


def _travel_to_first(sim: TableSimulator, ply: Any) -> float:
    """The empty travel a ply's program began with (to its first drag), as the time model has it."""
    if not ply.plan.relocations:
        return 0.0
    first = ply.plan.relocations[0].start
    return float(sim.planner.timer.travel_s(ply.plan.start_mm, sim.layout.node_mm(first)))


def _piece_known(
    ponder: ModuleType,
    board: chess.Board,
    move: chess.Move,
    clues: Sequence[tuple[float, frozenset[chess.Move] | None]],
    commit_s: float,
) -> float:
    """How long before ``commit_s`` the clues narrowed the moves for good to those of the piece ``move``
    moves (NaN: not before)."""
    piece = ponder.moves_of_piece(board, move.from_square)
    since = math.nan
    for at_s, heading in clues:
        if heading is not None and heading <= piece:
            since = at_s if math.isnan(since) else since
        else:
            since = math.nan
    return commit_s - since


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    after = board.copy()
    after.push(move)
    return after


def _stats(values: Sequence[float]) -> list[float]:
    """Median, 90th percentile and maximum (NaN for none)."""
    if not values:
        return [math.nan, math.nan, math.nan]
    return [statistics.median(values), percentile(list(values), 0.9), max(values)]


def _stats_low(values: Sequence[float]) -> list[float]:
    """Median, 10th percentile and minimum (NaN for none)."""
    if not values:
        return [math.nan, math.nan, math.nan]
    return [statistics.median(values), percentile(list(values), 0.1), min(values)]


def figures(totals: Totals) -> dict[str, Any]:
    replies = totals.replies
    hits = [r for r in replies if r.hit]
    return {
        "replies": len(replies),
        "ponder_hits": len(hits),
        "twin_violations": totals.violations,
        "planning_cpu_fraction": totals.planning_cpu_s / totals.machine_s if totals.machine_s else 0.0,
        "latency_s": _stats([r.latency_s for r in replies]),
        "latency_on_hits_s": _stats([r.latency_s for r in hits]),
        "latency_on_misses_s": _stats([r.latency_s for r in replies if not r.hit]),
        "beyond_drags_on_hits_s": _stats([r.latency_s - r.drags_s for r in hits]),
        "beyond_drags_s": _stats([r.latency_s - r.drags_s for r in replies]),
        "hold_s": _stats([r.hold_s for r in replies]),
        # typed or clicked: the hits by how the move was sent, and when its piece was known
        "beyond_drags_on_hits_by_way_s": {
            name: _stats([r.latency_s - r.drags_s for r in hits if chosen(r)])
            for name, chosen in KINDS.items()
        },
        "hits_by_way": {name: sum(1 for r in hits if chosen(r)) for name, chosen in KINDS.items()},
        "piece_known_before_sent_s": _stats_low([r.piece_known_s for r in replies if r.piece_known_s >= 0]),
        "piece_not_known_before_sent": sum(1 for r in replies if not r.piece_known_s >= 0),
        # issue 25: the reply by kind beside its floor, and the tidying on the person's time
        "floor_s": _stats([r.floor_s for r in replies]),
        "by_kind": {
            kind: {
                "replies": sum(1 for r in replies if r.kind == kind),
                "latency_s": _stats([r.latency_s for r in replies if r.kind == kind]),
                "floor_s": _stats([r.floor_s for r in replies if r.kind == kind]),
                "latency_over_floor": _stats([r.latency_s / r.floor_s for r in replies if r.kind == kind]),
            }
            for kind in waits.KINDS
        },
        "promotions_within_target": sum(
            1
            for r in replies
            if r.kind == "promotion" and r.latency_s <= max(TARGET_PROMOTION_S, 1.1 * r.floor_s)
        ),
        "reset_after_s_median": statistics.median(s for _, s in totals.resets) if totals.resets else 0.0,
        "parked_at_end_mean": statistics.fmean(n for n, _ in totals.resets) if totals.resets else 0.0,
        "tidy_s_per_turn_mean": statistics.fmean(r.tidy_s for r in replies) if replies else 0.0,
        "tidy_turns": sum(1 for r in replies if r.tidy_s > 0),
        "tidy_delayed_replies": sum(1 for r in replies if r.tidy_delay_s > 0),
        "tidy_delay_max_s": max((r.tidy_delay_s for r in replies), default=0.0),
    }


#: The replies to typed or clicked moves, told apart for the report.
KINDS: dict[str, Callable[[Reply], bool]] = {
    "typed": lambda reply: reply.way == "typed",
    "clicked": lambda reply: reply.way == "clicked",
    "without a pause": lambda reply: not reply.paused,
    "with a pause": lambda reply: reply.paused,
}


WORDS: dict[Person, str] = {"typed": "typed or clicked", "board": "made on the board"}


def report(part: str, person: Person, found: dict[str, Any], before: dict[str, Any] | None) -> Iterator[str]:
    hits = found["ponder_hits"]
    share = 100 * hits / max(found["replies"], 1)
    yield (
        f"{part}, {WORDS[person]}: {found['replies']} replies, ponder hits {hits} ({share:.0f} %), twin "
        f"violations {found['twin_violations']}, planning CPU "
        f"{100 * found['planning_cpu_fraction']:.3f} % of machine time"
    )
    latency, beyond = found["latency_s"], found["beyond_drags_s"]
    was = ""
    if before is not None:
        then, then_beyond = before["latency_s"], before["beyond_drags_s"]
        was = f" (before issue 16: {then[0]:.2f}/{then[1]:.2f} s; beyond the drags {then_beyond[0]:.2f} s)"
    yield (
        f"  reply latency median/p90 {latency[0]:.2f}/{latency[1]:.2f} s; beyond the drags' own time "
        f"median {beyond[0]:.2f} s{was}"
    )
    if hits:
        on_hits, misses, over = (
            found["latency_on_hits_s"],
            found["latency_on_misses_s"],
            found["beyond_drags_on_hits_s"],
        )
        yield f"  on hits {on_hits[0]:.2f}/{on_hits[1]:.2f} s, on misses {misses[0]:.2f}/{misses[1]:.2f} s"
        yield (
            f"  on hits, beyond the drags' own time: median {over[0]:.2f} s, p90 {over[1]:.2f} s, max "
            f"{over[2]:.2f} s  (target <= {TARGET_HIT_OVERHEAD_S} s)"
        )
        if person == "typed" and found["hits_by_way"]["typed"] + found["hits_by_way"]["clicked"]:
            parts = []
            for name, count in found["hits_by_way"].items():
                if count:
                    kind = found["beyond_drags_on_hits_by_way_s"][name]
                    parts.append(f"{name} ({count}) {kind[0]:.2f}/{kind[1]:.2f} s")
            yield f"    median/p90 on hits: {'; '.join(parts)}"
    if person == "typed" and found["replies"] > found["piece_not_known_before_sent"]:
        known, never = found["piece_known_before_sent_s"], found["piece_not_known_before_sent"]
        yield (
            f"  the moved piece known before the move was sent: median {known[0]:.2f} s, p10 "
            f"{known[1]:.2f} s (not before it in {never} of {found['replies']})"
        )
    if person == "board":
        hold = found["hold_s"]
        yield (
            f"  before that, the hold (the move standing untouched, from its commit): median "
            f"{hold[0]:.2f} s, p90 {hold[1]:.2f} s, max {hold[2]:.2f} s"
        )


#: Issue 25's targets: the reply's 90th percentile at the board, and a promotion's (or within a tenth of
#: its floor where the floor is higher).
TARGET_REPLY_P90_S = 6.0
TARGET_PROMOTION_S = 10.0


def report_waits(
    part: str, person: Person, found: dict[str, Any], before: dict[str, Any] | None
) -> Iterator[str]:
    """Issue 25: the reply a person waits for by kind, beside its floor and today's figure."""
    latency = found["latency_s"]
    then = (
        f" (before issue 25: {before['latency_s'][0]:.2f}/{before['latency_s'][1]:.2f} s)" if before else ""
    )
    target = f"  (target p90 <= {TARGET_REPLY_P90_S:g} s)" if person == "board" else ""
    floor = found["floor_s"]
    yield (
        f"{part}, {WORDS[person]}: the wait for the reply, median/p90 "
        f"{latency[0]:.2f}/{latency[1]:.2f} s{then}; its floor {floor[0]:.2f}/{floor[1]:.2f} s{target}"
    )
    for kind in waits.KINDS:
        figures_of = found["by_kind"][kind]
        if not figures_of["replies"]:
            continue
        wait, floor = figures_of["latency_s"], figures_of["floor_s"]
        was = ""
        if before and before.get("by_kind", {}).get(kind, {}).get("replies"):
            old = before["by_kind"][kind]["latency_s"]
            was = f" (before issue 25: {old[0]:.2f}/{old[1]:.2f}/{old[2]:.2f} s)"
        yield (
            f"  {kind:<9} {figures_of['replies']:4d}: median/p90/max "
            f"{wait[0]:.2f}/{wait[1]:.2f}/{wait[2]:.2f} s{was}; "
            f"floor {floor[0]:.2f}/{floor[1]:.2f}/{floor[2]:.2f} s"
        )
    promotion = found["by_kind"]["promotion"]
    if person == "board" and promotion["replies"]:
        within = found["promotions_within_target"]
        yield (
            f"  promotions: {within} of {promotion['replies']} waited at most {TARGET_PROMOTION_S:g} s or "
            f"within 10 % of their floor where that is higher (longest {promotion['latency_s'][2]:.2f} s): "
            f"{'met' if within == promotion['replies'] else 'NOT met'}"
        )
    tidy_was = ""
    if before and "tidy_s_per_turn_mean" in before:
        tidy_was = f" (before issue 25: {before['tidy_s_per_turn_mean']:.2f} s)"
    yield (
        f"  tidying while the person thinks: {found['tidy_s_per_turn_mean']:.2f} s a turn on average"
        f"{tidy_was}, in {found['tidy_turns']} of {found['replies']} turns; a drag still running at the "
        f"person's commit in {found['tidy_delayed_replies']} (longest {found['tidy_delay_max_s']:.2f} s)"
    )
    if person == "board" and found.get("reset_after_s_median"):
        yield (
            f"  the reset after the game, from the table as the turns left it: median "
            f"{found['reset_after_s_median']:.1f} s, {found['parked_at_end_mean']:.1f} pieces left parked "
            "on average"
        )


def write_replies(path: Path, totals: dict[tuple[str, Person, Mode], Totals]) -> None:
    """Every reply as a CSV row, to see which replies make a percentile."""
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(
            [
                "part",
                "person",
                "mode",
                "kind",
                "hit",
                "wait_s",
                "floor_s",
                "drags_s",
                "hold_s",
                "tidy_delay_s",
            ]
        )
        for (part, person, mode), found in totals.items():
            for r in found.replies:
                writer.writerow(
                    [part, person, mode, r.kind, int(r.hit)]
                    + [f"{v:.3f}" for v in (r.latency_s, r.floor_s, r.drags_s, r.hold_s, r.tidy_delay_s)]
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.replies", description=__doc__)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--games", type=int, default=0, help="only the first N of those games (0: all)")
    parser.add_argument("--every", type=int, default=3, help="every Nth game of tests/data/games (default 3)")
    parser.add_argument("--part", choices=("shared", "played", "both"), default="both")
    parser.add_argument("--no-ponder", action="store_true", help="only the replies without pondering")
    parser.add_argument(
        "--replies-csv",
        type=Path,
        help="also write every reply (part, person, mode, kind, hit, wait, floor, drags, hold, tidying) here",
    )
    parser.add_argument(
        "--step-idle-delay-ms",
        type=int,
        help="GRBL's $1 in the time model and the twin (default: the layout's)",
    )
    args = parser.parse_args(argv)
    ponder: ModuleType | None = None
    if not args.no_ponder:
        try:
            from chessatron.game.ponder import model as ponder
        except ImportError:  # the code before issue 16: the replies as they were
            ponder = None
    layout = Layout.default()
    if args.step_idle_delay_ms is not None:
        layout = replace(layout, profile=replace(layout.profile, step_idle_delay_ms=args.step_idle_delay_ms))
    games = load_games()[:: max(args.every, 1)]
    if args.games:
        games = games[: args.games]
    before_replies: dict[str, Any] = load_before(layout.profile.step_idle_delay_ms).get("replies", {})
    before_25: dict[str, Any] = load_before_25(layout.profile.step_idle_delay_ms).get("replies", {})
    person_engine = chess.engine.SimpleEngine.popen_uci(str(find_engine()))
    try:
        with EnginePlayer(parse_level(ROBOT_LEVEL)) as robot:
            bench = Bench(layout, robot, person_engine, ponder)
            for index, (name, game) in enumerate(games):
                if args.part in ("shared", "both"):
                    bench.shared(index, game)
                if args.part in ("played", "both"):
                    bench.played(index, game)
                print(f"{name:<20} done", file=sys.stderr, flush=True)
    finally:
        person_engine.quit()
    mode: Mode = "before" if ponder is None else "now"
    found: dict[str, dict[str, Any]] = {}
    for (part, who, measured), totals in bench.totals.items():
        if measured == mode and totals.replies:
            found.setdefault(part, {})[who] = figures(totals)
    print(
        f"reply latency ({mode}; modelled: engine move {ENGINE_MOVE_S:g} s, evaluation {EVALUATION_S:g} s"
        + (f", prediction {prediction_s():g} s" if ponder is not None else "")
        + f"; thinking median {THINK_MEDIAN_S:g} s; GRBL's $1 = {layout.profile.step_idle_delay_ms})"
    )
    for part, persons in found.items():
        for person in PERSONS:
            if person in persons:
                for line in report(part, person, persons[person], before_replies.get(part, {}).get(person)):
                    print(line)
    print()
    print("issue 25: the wait a player feels (from the move being final to the reply standing on the board)")
    for part, persons in found.items():
        for person in PERSONS:
            if person in persons:
                for line in report_waits(part, person, persons[person], before_25.get(part, {}).get(person)):
                    print(line)
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    if args.replies_csv:
        write_replies(args.replies_csv, bench.totals)
    return 1 if any(v["twin_violations"] for persons in found.values() for v in persons.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
