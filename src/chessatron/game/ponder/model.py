"""What pondering reckons with, free of threads and I/O: how likely each of the person's moves is
(:func:`likely_moves_of`), what their clues say of the move they are making (a piece lifted or picked:
:func:`moves_of_piece`; a line typed so far: :func:`typed_heading`), and where the empty magnet waits best
for the robot's first drag after it (:func:`starts_to_wait_for`, :func:`waiting_spot`). The
:class:`~.ponderer.Ponderer` runs them on its threads; ``bench/replies.py`` runs them on simulated time.

>>> [round(p.probability, 2) for p in likely_moves_of([
...     (chess.Move.from_uci("e7e5"), chess.engine.PovScore(chess.engine.Cp(-30), chess.BLACK)),
...     (chess.Move.from_uci("a7a6"), chess.engine.PovScore(chess.engine.Cp(-130), chess.BLACK))])]
[0.47, 0.28]
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import chess.engine

from ...errors import ChessatronError
from ...planning.layout import MachinePoint, Node
from ...planning.planner import Planner, castling_squares
from ...planning.table import Table
from ...planning.timing import Timer
from ..players.notation import MoveSpellings

LOGGER = logging.getLogger(__name__)

#: How many of the person's likely moves the engine answers ahead of time, most likely first.
CANDIDATES = 4
#: How sharply the likelihood of a move falls with what it gives away (centipawns for a factor e) and
#: the share of moves outside the engine's lines: fitted (maximum likelihood) to the 874 moves of the
#: first ten shared engine games, where the players chose the first line 37 % of the time, the second
#: 17 %, the third 11 %, the fourth 10 % and another move 24 %.
TEMPERATURE_CP = 200.0
UNFORESEEN_SHARE = 0.25
#: The magnet moves only when the expected empty travel shrinks by at least this much (seconds).
MIN_GAIN_S = 0.05
#: How long pondering lets the session ask the person for their move first (seconds).
START_DELAY_S = 0.05
#: A mate counts as this many centipawns when moves are weighed.
MATE_CP = 10_000
#: On a miss, the magnet sets off for the first drag of the move the engine's search is heading for
#: (:class:`Heading`) once its line has reached this depth and kept its first move for
#: :data:`HEADING_LINES` lines on end: shallower lines change their mind too often to be worth a travel
#: (one begun runs to its end).
HEADING_DEPTH = 8
HEADING_LINES = 3
#: The most moves planned on the spot when the person heads for moves the engine did not foresee (a
#: queen's every move; a clue that fits more says too little to be worth the planning).
UNFORESEEN_PLANS = 32

PositionKey = tuple[str, tuple[str, ...]]


def position_key(board: chess.Board) -> PositionKey:
    """A position with the moves that led to it (the engine sees those too: repetitions)."""
    return board.fen(), tuple(move.uci() for move in board.move_stack)


@dataclass(frozen=True)
class Prediction:
    """A move the person may make, and how likely it is."""

    move: chess.Move
    probability: float


def likely_moves_of(lines: Sequence[tuple[chess.Move, chess.engine.PovScore]]) -> list[Prediction]:
    """The moves of an engine's lines (best first, as :meth:`EnginePlayer.likely_moves` gives them)
    with a likelihood each: falling by a factor e for every :data:`TEMPERATURE_CP` centipawns a move is
    worse than the best one, the lot summing to ``1 - UNFORESEEN_SHARE`` (a person may play anything)."""
    if not lines:
        return []
    turn = lines[0][1].turn
    values = [score.pov(turn).score(mate_score=MATE_CP) for _, score in lines]
    known = [value for value in values if value is not None]
    best = max(known) if known else 0
    # (a mate against the mover counts as a loss of MATE_CP: its weight is nil, never an overflow)
    weights = [math.exp(-(best - (best if value is None else value)) / TEMPERATURE_CP) for value in values]
    share = (1.0 - UNFORESEEN_SHARE) / sum(weights)
    return [Prediction(move, share * weight) for (move, _), weight in zip(lines, weights, strict=True)]


def waiting_spot(timer: Timer, starts: Sequence[tuple[Node, float]]) -> tuple[Node, float]:
    """Where the empty magnet should wait: the node with the least expected travel to the first drag of
    the reply, over the replies ``starts`` (each reply's first node, and how likely it is). Returns the
    node and its expected travel in seconds (weights need not sum to one: only their ratio counts).

    >>> from chessatron.planning.layout import Layout
    >>> timer = Timer(Layout.default())
    >>> waiting_spot(timer, [((9, 9), 0.6), ((13, 9), 0.3)])[0]
    (9, 9)
    """
    total = sum(weight for _, weight in starts)
    if not starts or total <= 0.0:
        raise ValueError("a waiting spot needs at least one likely start with a positive weight")
    width, height = timer.layout.node_extent
    best: tuple[float, Node] | None = None
    for i in range(width):
        for j in range(height):
            expected = sum(weight * timer.travel_between((i, j), start) for start, weight in starts)
            if best is None or expected < best[0] - 1e-12:
                best = (expected, (i, j))
    assert best is not None
    return best[1], best[0] / total


#: A person at the board who has lifted a piece sets it down about this long after (a hand's lift, carry
#: and place, :class:`~chessatron.sim.hand_style.HandStyle`, and the recognizer's settling), and the robot's
#: first drag comes no sooner than the hold after that (``REPLY_HOLD_S`` of :mod:`chessatron.game.seats`
#: less the settling): once a piece is lifted, where the magnet waits (:func:`soon_spot`) weighs what it
#: can travel in that time.
SOON_S = 1.0
HOLD_S = 1.2
#: Planned while the person thinks, the travel to the reply's first drag costs nothing up to this many
#: seconds (:meth:`~chessatron.planning.planner.Planner.plan_reply`'s ``free_s``): the magnet makes it
#: meanwhile. Once the move is made, only the hold (:data:`HOLD_S`) is left for it, and the reply is
#: planned again from where the magnet is. A promotion whose spare comes in first (the pawn going out
#: past it) is up to a second and a half shorter than the other way round, though its spare may wait at
#: the far end of the table. Over the thirty engine games as played at the board (``python -m
#: bench.replies --every 1 --part shared``) two of eight promotions waited less with this, none longer;
#: with 1.2 s nothing changed.
AHEAD_FREE_S = 2.0
#: What a second of arriving sooner is worth (against a second of the wait) once the magnet would be there
#: before the hold ends: a hand may be quicker than :data:`SOON_S`.
SOON_EARLY = 0.25


def soon_spot(
    timer: Timer,
    at: MachinePoint,
    starts: Sequence[tuple[Node, float]],
    soon_s: float = SOON_S,
    hold_s: float = HOLD_S,
) -> tuple[Node | None, float]:
    """Where the empty magnet, at ``at``, should go when the person's move comes in about ``soon_s`` (a
    piece lifted): the node from which it reaches the reply's first drag soonest on average over
    ``starts``, knowing that a travel begun runs to its end before the magnet can turn to the drag, and
    that no drag begins before the hold (``hold_s`` after the move) ends. Returns the node and the seconds
    it saves on average against staying put; None and 0 when staying is as good.

    >>> from chessatron.planning.layout import Layout
    >>> layout = Layout.default()
    >>> timer = Timer(layout)
    >>> between = layout.node_mm((9, 9))  # halfway between two replies as likely: either is reached in time
    >>> soon_spot(timer, between, [((9, 3), 1.0), ((9, 15), 1.0)])
    (None, 0.0)
    >>> spot, saved = soon_spot(timer, layout.node_mm((1, 1)), [((23, 19), 1.0)])
    >>> spot, round(saved, 2) > 0  # far across the table: it sets off at once
    ((23, 19), True)
    """
    total = sum(weight for _, weight in starts)
    if not starts or total <= 0.0:
        raise ValueError("a waiting spot needs at least one likely start with a positive weight")
    layout = timer.layout
    ready = soon_s + hold_s

    def arrival(setting_off: float, seconds: Sequence[float]) -> float:
        # (arriving before the hold ends gains nothing if the move comes as expected, and a little against
        # a hand quicker than that)
        return (
            sum(
                w * (max(setting_off + t, ready) + SOON_EARLY * (setting_off + t))
                for (_, w), t in zip(starts, seconds, strict=True)
            )
            / total
        )

    staying = arrival(soon_s, [timer.travel_s(at, layout.node_mm(start)) for start, _ in starts])
    width, height = layout.node_extent
    best: tuple[float, Node | None] = (staying, None)
    for i in range(width):
        for j in range(height):
            there = max(timer.travel_s(at, layout.node_mm((i, j))), soon_s)
            if there >= best[0]:
                continue
            cost = arrival(there, [timer.travel_between((i, j), start) for start, _ in starts])
            if cost < best[0] - 1e-9:
                best = (cost, (i, j))
    return best[1], staying - best[0]


def spot_to_wait(
    timer: Timer, at: MachinePoint, starts: Sequence[tuple[Node, float]], *, soon: bool
) -> tuple[Node | None, float]:
    """Where the empty magnet, at ``at``, should wait for the reply's first drag over ``starts``, and the
    seconds of travel that saves on average: :func:`soon_spot` when the person's move comes soon (a piece
    lifted at the board), else :func:`waiting_spot`."""
    if soon:
        return soon_spot(timer, at, starts)
    spot, expected = waiting_spot(timer, starts)
    return spot, expected_travel(timer, at, starts) - expected


def first_reply_start(
    planner: Planner,
    at: MachinePoint,
    table: Table,
    board: chess.Board,
    move: chess.Move | None,
    reply: chess.Move,
    free_s: float,
) -> Node | None:
    """Where the robot's first drag of ``reply`` begins, the magnet at ``at``, after the person's
    ``move`` on ``board`` (None: made already, ``table`` shows it), the travel there free for ``free_s``;
    None when it cannot be planned (logged)."""
    position = board.copy()
    try:
        scratch = table.copy()
        if move is not None:
            planner.plan_move(scratch, position, move, at=at).apply(scratch)  # (by hand: to the zone)
            position.push(move)
        plan = planner.plan_reply(scratch, position, reply, at=at, free_s=free_s)
    except ChessatronError as exc:
        LOGGER.info("reply %s not planned ahead: %s", reply.uci(), exc)
        return None
    return plan.relocations[0].start if plan.relocations else None


def first_lifts(board: chess.Board, move: chess.Move) -> frozenset[chess.Square]:
    """The squares a person may lift first to make ``move`` on ``board``: the piece that moves, and for
    castling the king or the rook.

    >>> sorted(chess.square_name(s) for s in first_lifts(chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1"),
    ...                                                  chess.Move.from_uci("e1g1")))
    ['e1', 'h1']
    """
    if board.is_castling(move):
        king_from, _, rook_from, _ = castling_squares(board, move)
        return frozenset((king_from, rook_from))
    return frozenset((move.from_square,))


def moves_of_piece(board: chess.Board, square: chess.Square) -> frozenset[chess.Move]:
    """The legal moves on ``board`` that a person begins by taking up the piece on ``square``.

    >>> sorted(move.uci() for move in moves_of_piece(chess.Board(), chess.G1))
    ['g1f3', 'g1h3']
    """
    return frozenset(move for move in board.legal_moves if square in first_lifts(board, move))


@dataclass(frozen=True)
class Likely:
    """A move the person may make whose first drag after it is planned: the reply's (at the board) or the
    move's own (the robot carries it out)."""

    move: chess.Move
    start: Node
    """Where that drag begins."""
    probability: float


def typed_heading(
    spellings: MoveSpellings, text: str, heading: frozenset[chess.Move] | None
) -> frozenset[chess.Move] | None:
    """The moves a person is heading for once they have typed ``text`` so far, ``heading`` before: those
    the text may become; None (no clue) when it tells no move from another (nothing typed, or erased);
    ``heading`` unchanged when it fits no move (a typo, a command).

    >>> spellings = MoveSpellings(chess.Board())
    >>> sorted(move.uci() for move in typed_heading(spellings, "Nf", None))
    ['g1f3']
    >>> typed_heading(spellings, "", frozenset()), typed_heading(spellings, "resign", None)
    (None, None)
    """
    fitting = spellings.fitting(text)
    if not fitting:
        return heading
    return None if fitting == spellings.moves else fitting


def starts_to_wait_for(
    known: Sequence[Likely],
    heading: frozenset[chess.Move] | None,
    unforeseen: Callable[[frozenset[chess.Move]], list[tuple[Node, float]]] | None = None,
) -> list[tuple[Node, float]]:
    """Where the drags to wait for begin, and how likely each is: those after the likely moves the person
    is heading for (``heading``: the moves of the piece they hold, or those that fit what they typed;
    None: no clue). When none of them was foreseen: where ``unforeseen`` plans those moves begin (the
    robot carries a typed or clicked move out, foreseen or not), or else after every likely move."""
    fitting = [likely for likely in known if heading is None or likely.move in heading]
    if not fitting and heading is not None and unforeseen is not None:
        planned = unforeseen(heading)
        if planned:
            return planned
    return [(likely.start, likely.probability) for likely in fitting or known]


def expected_travel(timer: Timer, at: MachinePoint, starts: Sequence[tuple[Node, float]]) -> float:
    """The expected empty travel (seconds) from ``at`` to the reply's first drag."""
    total = sum(weight for _, weight in starts)
    layout = timer.layout
    return sum(weight * timer.travel_s(at, layout.node_mm(start)) for start, weight in starts) / total


class Heading:
    """Where a search's lines are heading, settled (:data:`HEADING_DEPTH`, :data:`HEADING_LINES`).

    >>> heading, e5, c5 = Heading(), chess.Move.from_uci("e7e5"), chess.Move.from_uci("c7c5")
    >>> [heading.hear(move, depth) for move, depth in [(e5, 7), (e5, 8), (c5, 9), (c5, 10), (c5, 11)]]
    [None, None, None, None, Move.from_uci('c7c5')]
    >>> heading.hear(c5, 12) is None  # (said once)
    True
    """

    def __init__(self) -> None:
        self.move: chess.Move | None = None
        self.lines = 0
        self.said: chess.Move | None = None

    def hear(self, move: chess.Move, depth: int) -> chess.Move | None:
        """The search's line at ``depth`` begins with ``move``: the move to set off for now, if it has
        just settled on one (None: not settled, or no news)."""
        self.lines = self.lines + 1 if move == self.move else 1
        self.move = move
        if depth < HEADING_DEPTH or self.lines < HEADING_LINES or move == self.said:
            return None
        self.said = move
        return move
