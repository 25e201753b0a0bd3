"""The search for explanations of a window of square events, without state: every sequence of legal plies
whose stretches of events fit them, with what each needs priced by the :class:`~.model.HumanModel`.

Plies come one after another, never interleaved, so an explanation is a walk over the events: a ply
owns the stretch from where the one before ended to where the board first shows its position, and the
colours alternate, which is what tells a paused slide from an opponent's reply. After the last ply only
pieces lifted and put back may follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import chess

from .events import SquareEvent
from .model import HumanModel
from .shapes import Shape, fit_segment, shape_of, shapes_by_diff, squares_of, under_way

#: Plies one explanation may hold: quick replies seldom chain more than three in one settle window, and
#: an open question lets a few more pile up; a board never still for longer is reported as illegal
#: rather than searched without end.
MAX_PLIES = 8
#: Segment fits tried per search: a player fiddling for minutes must not stall the recognizer.
SEARCH_BUDGET = 4000


@dataclass(frozen=True)
class Ply:
    move: chess.Move
    start: int
    """Its stretch of events is ``events[start:end]``."""
    end: int
    displaced: bool


@dataclass(frozen=True)
class Explanation:
    plies: tuple[Ply, ...]
    cost: float
    """Lower is better: the model's price of everything the plies needed besides the moves."""
    revises: bool = False
    """It replaces the committed move at the window's start by another."""

    @property
    def moves(self) -> tuple[chess.Move, ...]:
        return tuple(p.move for p in self.plies)

    def is_better(self, other: Explanation) -> bool:
        """Same moves: the lower cost, then the later boundaries (noise goes with the earlier ply)."""
        if self.cost != other.cost:
            return self.cost < other.cost
        return [p.end for p in self.plies] > [p.end for p in other.plies]


@dataclass
class Search:
    """One search over ``events`` from ``board`` (the window's start; copied), where ``occupied[k]`` is
    the stable occupancy before event ``k`` and ``occupied[-1]`` after the last; ``committed`` is the
    move already committed at the window's start, which an explanation may keep or revise."""

    board: chess.Board
    events: Sequence[SquareEvent]
    occupied: Sequence[int]
    committed: chess.Move | None
    model: HumanModel
    sides: frozenset[chess.Color] = frozenset(chess.COLORS)
    """The colours whose moves are made by hand here (the other side's come from the robot or the
    keyboard, and the recognizer is told them): a ply of another colour explains nothing."""
    budget: int = SEARCH_BUDGET
    cut_short: bool = False
    partial: dict[tuple[chess.Move, ...], Explanation] = field(default_factory=dict)
    """Explanations of the events as whole plies and then one more move under way, not finished (the
    player still at it), the best per move sequence: the rivals of every complete explanation while
    the board has been still only briefly, and what a busy board (quick replies) has shown so far."""

    @property
    def unfinished(self) -> float:
        """The cost of the cheapest partial explanation."""
        return min((e.cost for e in self.partial.values()), default=float("inf"))

    def run(self) -> list[Explanation]:
        """Every complete explanation, the best one per move sequence."""
        self.board = self.board.copy()
        self._lifts: dict[chess.Square, list[int]] = {}
        self._places: dict[chess.Square, list[int]] = {}
        for index, event in enumerate(self.events):
            (self._places if event.occupied else self._lifts).setdefault(event.square, []).append(index)
        self._committed_shape: Shape | None = None
        if self.committed is not None:
            self._committed_shape = shape_of(self.board, self.committed)
        self._found: dict[tuple[chess.Move, ...], Explanation] = {}
        self._visit(0, [], 0.0, False)
        self.cut_short = self.budget <= 0
        return list(self._found.values())

    def _touched(self, i: int, j: int) -> int:
        bits = 0
        for event in self.events[i:j]:
            bits |= chess.BB_SQUARES[event.square]
        return bits

    def _visit(self, i: int, plies: list[Ply], cost: float, revises: bool) -> None:
        board, occupied, n = self.board, self.occupied, len(self.events)
        shapes = shapes_by_diff(board)
        off_way = under_way(board, occupied[n], [s for group in shapes.values() for s in group])
        if off_way is not None:
            # the player still at it; perhaps with the moving piece set down off its way for a moment
            partial = Explanation(tuple(plies), cost + off_way * self.model.stopover_off_path, revises)
            if partial.moves not in self.partial or partial.is_better(self.partial[partial.moves]):
                self.partial[partial.moves] = partial
        tail = self._touched(i, n)
        # after the last ply only pieces lifted and put back (a piece on a square empty then is a stray).
        # With no ply at all, a committed move is withdrawn: its piece was only held (a capture by
        # displacement looks just like that) and is back on its square.
        withdrawn = not plies and self._committed_shape is not None
        strays = chess.popcount(tail & ~occupied[i])
        # (a piece once set down is never taken back silently: no stray in a withdrawal)
        if occupied[n] == board.occupied and not (withdrawn and strays):
            price = (
                self.model.nudge * (chess.popcount(tail) - strays)
                + self.model.stray * strays
                + (self.model.revision if withdrawn else 0.0)
            )
            explanation = Explanation(tuple(plies), cost + price, revises or withdrawn)
            moves = explanation.moves
            if moves not in self._found or explanation.is_better(self._found[moves]):
                self._found[moves] = explanation
        if len(plies) >= MAX_PLIES or i >= n or self.budget <= 0 or board.turn not in self.sides:
            return
        base = int(board.occupied)
        committed = self._committed_shape
        for j in range(i + 1, n + 1):
            for shape in shapes.get(occupied[j] ^ base, ()):
                # in place of the committed move: the same player went on (a paused slide, rook-first
                # castling), or its piece was only held and another moved (its events must all be
                # explained by the new move: a piece once set down cannot be taken back silently)
                revision = not plies and committed is not None and squares_of(shape) != squares_of(committed)
                self.budget -= 1
                fit = fit_segment(shape, self.events, self._lifts, self._places, base, i, j)
                if fit is None or (revision and fit.strays):
                    continue  # (nor in a revision: the committed move's landing must be its flight)
                ply = Ply(shape.move, i, j, bool(fit.displaced))
                price = fit.cost(self.model) + (self.model.revision if revision else 0.0)
                board.push(shape.move)
                self._visit(j, [*plies, ply], cost + price, revises or revision)
                board.pop()
