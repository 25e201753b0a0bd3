"""The table sets itself up: from any physical state to any target arrangement.

A target is a position (:mod:`.targets`: the standard start, a Chess960 start by number, a Double Fischer
Random start or any legal FEN); the arrangement it asks for puts that position on the board, refills the
reserve slots with their spares and sends every other piece to its colour's capture zone.

Pieces of one type and colour are interchangeable, so who goes where is an optimal assignment
(:func:`scipy.optimize.linear_sum_assignment`) on drag time. The relocations are then ordered so no
target is still occupied when its piece arrives: a cycle of pieces waiting on each other is broken by
parking one on a free cell; among the pieces ready to go the sequencer takes the one that keeps the
machine busiest dragging rather than travelling empty, then improves the order locally.

>>> layout = Layout.default()
>>> table = Table.from_board(layout, chess.Board())
>>> plan = ResetPlanner(Planner(layout)).plan(table, chess.Board())
>>> len(plan.relocations)
0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

import chess
import numpy as np
from scipy.optimize import linear_sum_assignment

from ..errors import MissingPieceError, NoPathError, NoRoomError
from ..i18n import _
from .layout import Layout, MachinePoint, Node
from .planner import Plan, Planner, Relocation
from .table import PieceId, Table
from .targets import describe_pieces, missing_pieces
from .tour import DEFAULT_BUDGET_S, KICKS, Drag, plan_tour, tour_seconds

#: Assignment bonuses: a board square must be filled before a reserve slot, a reserve slot before time
#: is saved. Large against any drag time in seconds.
_BOARD_BONUS = 1e7
_RESERVE_BONUS = 1e4
_FORBIDDEN = 1e12
#: A tour the search found is laid out on the table's paths (to see whether it beats the best) only when
#: the time model has it at most this much longer: the paths round the pieces change a tour's seconds by
#: a second or two, and laying one out costs about as much as the whole search.
_WEIGHED_WITHIN_S = 2.0


class ResetPlanner:
    """Plans set-ups on one layout, sharing the move planner's paths and timing."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self.layout: Layout = planner.layout
        self.timer = planner.timer
        #: CPU seconds the tour's local search may spend on one set-up (0: the greedy tour as it is).
        self.tour_budget_s = DEFAULT_BUDGET_S
        #: restarts of the tour's iterated local search (0: one descent from the greedy tour)
        self.tour_kicks = KICKS

    def assign(self, table: Table, board: chess.BaseBoard) -> dict[PieceId, Node]:
        """Where each piece goes for ``board``: an optimal assignment on drag time per colour.

        Raises :class:`MissingPieceError` naming the pieces the set-up lacks.
        """
        layout = self.layout
        missing = missing_pieces(table)
        needed: Counter[str] = Counter(p.symbol() for p in board.piece_map().values())
        short = needed - table.inventory()
        if short or missing:
            lacking = short | missing
            raise MissingPieceError(
                _(
                    "cannot set up: the table lacks {pieces}; put the missing pieces in a capture zone and "
                    "try "
                    "again"
                ).format(pieces=describe_pieces(lacking))
            )
        assignment: dict[PieceId, Node] = {}
        for colour in chess.COLORS:
            pieces = [p for p in table if p.color == colour]
            slots: list[tuple[Node, str | None, float]] = []
            for square, kind in board.piece_map().items():
                if kind.color == colour:
                    slots.append((layout.square_node(square), kind.symbol(), _BOARD_BONUS))
            for slot in layout.reserve:
                if slot.piece.color == colour:
                    slots.append((layout.cell_node(slot.cell), slot.symbol, _RESERVE_BONUS))
            for cell in layout.capture_cells[colour]:
                slots.append((layout.cell_node(cell), None, 0.0))
            if len(slots) < len(pieces):
                raise NoRoomError(
                    _("white's side of the table has too few places")
                    if colour == chess.WHITE
                    else _("black's side of the table has too few places")
                )
            cost = np.empty((len(pieces), len(slots)))
            for i, piece in enumerate(pieces):
                here = table.node_of(piece.id)
                for j, (node, symbol, bonus) in enumerate(slots):
                    if symbol is not None and symbol != piece.symbol:
                        cost[i, j] = _FORBIDDEN
                    else:
                        cost[i, j] = self._drag_estimate(here, node) - bonus
            rows, cols = linear_sum_assignment(cost)
            for i, j in zip(rows, cols, strict=True):
                assignment[pieces[i].id] = slots[j][0]
        return assignment

    def assignment_bound(self, table: Table, board: chess.BaseBoard) -> float:
        """The yardstick for set-ups: each misplaced piece dragged once, straight, from rest to rest at
        the carry feed, plus magnet time, and no travel between drags (for the same assignment)."""
        goals = self.assign(table, board)
        return sum(self._drag_estimate(table.node_of(pid), node) for pid, node in goals.items())

    def _drag_estimate(self, a: Node, b: Node) -> float:
        if a == b:
            return 0.0
        return self.timer.straight_drag_s(a, b) + self.timer.magnet_s

    def plan(self, table: Table, board: chess.BaseBoard, at: MachinePoint | None = None) -> Plan:
        """The relocations that turn ``table`` into the arrangement for ``board``, fastest order found."""
        start = self.layout.home_mm if at is None else at
        return self._sequence(table, self.assign(table, board), start, zones=True)

    def resume(
        self,
        table: Table,
        board: chess.BaseBoard,
        rest: Sequence[Relocation] = (),
        at: MachinePoint | None = None,
    ) -> Plan:
        """A set-up for ``board`` taken up again from ``table`` as it stands (after a stop, a crash, another
        game): one plan straight to the arrangement (:meth:`plan`), never through the position the set-up
        had reached. ``rest``: the drags the set-up cut short had left, kept instead when they still fit
        the table (it stands where they stopped) and the time model says they are no slower."""
        start = self.layout.home_mm if at is None else at
        fresh = self.plan(table, board, start)
        if not rest or not _fits(table, rest):
            return fresh
        seconds = self.timer.relocations_s(start, [relocation.path for relocation in rest])
        if seconds > fresh.seconds:
            return fresh
        return Plan(tuple(rest), seconds, start, self.layout.node_mm(rest[-1].goal))

    def plan_arrangement(self, table: Table, wanted: Table, at: MachinePoint | None = None) -> Plan:
        """The relocations that make ``table`` look like ``wanted`` (the same pieces elsewhere, e.g. a game
        to go back to after the table was set up for something else): every place in ``wanted``, zones and
        reserve included, gets a piece of its kind, interchangeable pieces assigned for the least drag
        time; the fastest order found."""
        goals: dict[PieceId, Node] = {}
        for symbol in sorted({piece.symbol for piece in wanted}):
            pieces = [piece.id for piece in table if piece.symbol == symbol]
            places = [wanted.node_of(piece.id) for piece in wanted if piece.symbol == symbol]
            if len(pieces) != len(places):
                raise MissingPieceError(
                    _(
                        "cannot put the pieces back: the table has {count} {symbol!r}, the arrangement wants "
                        "{wanted}"
                    ).format(count=len(pieces), symbol=symbol, wanted=len(places))
                )
            cost = np.array(
                [[self._drag_estimate(table.node_of(pid), node) for node in places] for pid in pieces]
            )
            for row, column in zip(*linear_sum_assignment(cost), strict=True):
                goals[pieces[row]] = places[column]
        return self._sequence(table, goals, self.layout.home_mm if at is None else at)

    # --- sequencing --------------------------------------------------------------------------------

    def _sequence(
        self, table: Table, goals: Mapping[PieceId, Node], at: MachinePoint, *, zones: bool = False
    ) -> Plan:
        """The relocations for ``goals``: the drags ordered as a tour (:mod:`.tour`), then each given its
        path on the table as it stands by then. ``zones``: a piece bound for its capture zone may take
        any free cell there (a set-up), not only the one the assignment chose (an exact arrangement)."""
        timer, layout = self.timer, self.layout
        work = table.copy()
        pending = {pid: node for pid, node in goals.items() if work.node_of(pid) != node}
        targets = set(pending.values())
        zone_of = {colour: _zone_name(colour) for colour in chess.COLORS}
        zone_goals = {layout.cell_node(c) for colour in chess.COLORS for c in layout.capture_cells[colour]}
        drags = []
        for pid, goal in pending.items():
            piece = work.piece(pid)
            free_goal = zones and goal in zone_goals
            drags.append(
                Drag(
                    pid,
                    work.node_of(pid),
                    goal,
                    piece.symbol,
                    zone=zone_of[piece.color] if zones else None,
                    accepts=zone_of[piece.color] if free_goal else piece.symbol,
                )
            )
        leaving = {work.node_of(pid) for pid in pending}
        free_cells: dict[str, list[Node]] = {}
        if zones:
            for colour in chess.COLORS:
                free_cells[zone_of[colour]] = [
                    node
                    for node in (layout.cell_node(c) for c in layout.capture_cells[colour])
                    if node not in targets and (work.piece_at(node) is None or node in leaving)
                ]
        parks = [
            node
            for node in (layout.cell_node(c) for c in layout.cells() if layout.cell_kind(c) != "board")
            if node not in targets and work.piece_at(node) is None
        ]
        tour = plan_tour(
            drags,
            at,
            timer,
            free_cells=free_cells,
            park_cells=parks,
            budget_s=self.tour_budget_s,
            kicks=self.tour_kicks,
        )
        plan = self._realise(table, tour.drags, targets, at)
        assert plan is not None  # no limit was given
        # the search weighs straight drags; the paths around pieces may still favour another tour
        for other in (tour.greedy, *tour.alternatives):
            if (
                other != tour.drags
                and sum(tour_seconds(other, at, timer)) <= tour.seconds + _WEIGHED_WITHIN_S
            ):
                candidate = self._realise(table, other, targets, at, within_s=plan.seconds)
                if candidate is not None and candidate.seconds < plan.seconds:
                    plan = candidate
        return plan

    def _realise(
        self,
        table: Table,
        drags: Sequence[Drag],
        targets: set[Node],
        at: MachinePoint,
        within_s: float = math.inf,
    ) -> Plan | None:
        """The relocations of a tour: each drag in turn with its path on the table as it stands then (a
        drag that cannot go yet waits for the next that can; a ring of pieces waiting on each other that
        the tour did not break is broken here, by parking one). None once the drags take ``within_s``
        seconds or more (a candidate that cannot beat the plan in hand)."""
        planner, timer, layout = self.planner, self.timer, self.layout
        work = table.copy()
        order = list(drags)
        relocations: list[Relocation] = []
        notes: list[str] = []
        seconds = 0.0
        position = at
        while order:
            steps = None
            for index, item in enumerate(order):
                if not self._is_vacant(work, item.goal, item.piece):
                    continue
                steps = planner.drag(work, item.piece, item.goal, "park" if item.parked else "setup")
                if steps is not None:
                    del order[index]
                    if item.parked:
                        notes.append(
                            _("{piece} parked to break a cycle of pieces waiting on each other").format(
                                piece=item.piece
                            )
                        )
                    break
            if steps is None:
                remaining = {item.piece: item.goal for item in order if not item.parked}
                steps = self._break_cycle(work, remaining, targets | {i.goal for i in order}, position)
                park = next(step for step in steps if step.purpose == "park")
                notes.append(
                    _("{piece} parked to break a cycle of pieces waiting on each other").format(
                        piece=park.piece.id
                    )
                )
                order = [
                    replace(item, start=park.goal) if item.piece == park.piece.id else item
                    for item in order
                    if not (item.parked and item.piece == park.piece.id)
                ]
            for step in steps:
                seconds += timer.relocation_s(position, step.path)
                position = layout.node_mm(step.goal)
                work.relocate(step.piece.id, step.goal)
                relocations.append(step)
            if seconds >= within_s:
                return None
        return Plan(tuple(relocations), seconds, at, position, tuple(notes))

    def _is_vacant(self, work: Table, goal: Node, mover: PieceId) -> bool:
        others = work.occupied_nodes(excluding=[mover])
        return self.planner.finder.is_free(goal, others)

    def _break_cycle(
        self, work: Table, pending: Mapping[PieceId, Node], targets: set[Node], position: MachinePoint
    ) -> list[Relocation]:
        """Every pending piece waits on another: park the cheapest one on a free cell no piece needs."""
        layout = self.layout
        free_cells = [
            layout.cell_node(cell)
            for cell in layout.cells()
            if layout.cell_kind(cell) != "board" and layout.cell_node(cell) not in targets
        ]
        free_cells = [n for n in free_cells if self.planner.finder.is_free(n, work.occupied_nodes())]
        best: tuple[float, list[Relocation]] | None = None
        for pid, goal in pending.items():
            here = work.node_of(pid)
            for park in sorted(free_cells, key=lambda n: math.dist(n, here) + math.dist(n, goal))[:3]:
                steps = self.planner.drag(work, pid, park, "park")
                if steps is None:
                    continue
                cost = (
                    self.timer.travel_s(position, layout.node_mm(here))
                    + sum(self.timer.drag_s(s.path) for s in steps)
                    + self._drag_estimate(park, goal)
                )
                if best is None or cost < best[0]:
                    best = (cost, steps)
        if best is None:
            raise NoPathError(
                _("the set-up is stuck: no piece can move and no free cell is left to park one")
            )
        return best[1]


def _fits(table: Table, relocations: Sequence[Relocation]) -> bool:
    """Whether ``relocations`` can run on ``table`` one after the other: each piece where its drag begins,
    each goal free when it arrives."""
    work = table.copy()
    for relocation in relocations:
        piece = work.piece_at(relocation.start)
        if piece is None or piece.id != relocation.piece.id:
            return False
        occupant = work.piece_at(relocation.goal)
        if occupant is not None and occupant.id != piece.id:
            return False
        work.relocate(piece.id, relocation.goal)
    return True


def _zone_name(colour: chess.Color) -> str:
    return f"capture-{chess.COLOR_NAMES[colour]}"


def arrangement_problems(table: Table, board: chess.BaseBoard) -> list[str]:
    """What differs from the set-up arrangement for ``board``: the board itself, reserve slots without
    their spare, pieces outside their colour's capture zone. Empty when the set-up is exact."""
    layout = table.layout
    problems = []
    if table.board_fen() != board.board_fen():
        problems.append(
            _("the board shows {table!r} instead of {wanted!r}").format(
                table=table.board_fen(), wanted=board.board_fen()
            )
        )
    needed: Counter[str] = Counter(p.symbol() for p in board.piece_map().values())
    spare_room: Counter[str] = Counter(slot.symbol for slot in layout.reserve)
    expected_in_reserve = {s: min(spare_room[s], table.inventory()[s] - needed[s]) for s in spare_room}
    in_reserve: Counter[str] = Counter()
    for slot in layout.reserve:
        piece = table.piece_at(layout.cell_node(slot.cell))
        if piece is not None and piece.symbol == slot.symbol:
            in_reserve[slot.symbol] += 1
        elif piece is not None:
            problems.append(
                _("reserve slot {cell!r} for {symbol!r} holds {piece!r}").format(
                    cell=slot.cell, symbol=slot.symbol, piece=piece.symbol
                )
            )
    for symbol, count in expected_in_reserve.items():
        if in_reserve[symbol] < count:
            problems.append(
                _("the reserve holds {count} spare {symbol!r}, not {wanted}").format(
                    count=in_reserve[symbol], symbol=symbol, wanted=count
                )
            )
    for piece in table:
        node = table.node_of(piece.id)
        cell = layout.node_cell(node)
        kind = "free" if cell is None else layout.cell_kind(cell)
        zone = "capture-white" if piece.color else "capture-black"
        if kind not in ("board", "reserve", zone):
            # TRANSLATORS: {kind} is the layout's own name of a kind of cell (free, capture-white…)
            problems.append(
                _("{id} ({symbol}) stands on {kind} node {node!r}").format(
                    id=piece.id, symbol=piece.symbol, kind=kind, node=node
                )
            )
    return problems
