"""Parked pieces go on to their capture zone, a small drag at a time, while the person thinks.

During its reply the robot sets a victim or a promoted pawn down at the nearest free place off the board
(:meth:`~chessatron.planning.planner.Planner.plan_reply`): the person's wait ends once the move stands.
The rest of the piece's trip, to a cell of its own colour's capture zone, is *tidying*: done on the
person's time, and stopped the moment the person comes to the table. So tidying never crosses the board
(a hand may reach for a piece there at any moment): a piece goes round it, through the free rows and the
zones (:func:`off_board_route`), and each step is one leg of the trip, at most :data:`LEG_S` of dragging,
ending on a free cell off the board; the next step is planned afresh from the table as it then stands.

The zone cell is chosen as a captured piece's is (:meth:`Planner.zone_cells`): the trip there and the
reset's drag back after the game, together, as short as can be. The reply takes the cell nearest the
board even when its own zone is that near; a piece that waits in its zone far from where the reset will
need it (beside the ranks its kind starts on) is moved along the zone too, when the reset saves at least
:data:`BETTER_CELL_S` by it: the person's time pays for what the reset would make them wait for.

>>> import chess
>>> layout = Layout.default()
>>> table = Table.from_board(layout, chess.Board())
>>> queen = table.piece_at(layout.cell_node((5, 8)))  # the black queen on d8
>>> table.relocate(queen.id, layout.cell_node((2, 9)))  # parked in the free row above the board, far left
>>> plan = plan_tidy(Planner(layout), table)
>>> for relocation in plan.relocations:
...     print(relocation.describe(layout))
bQ1 cell(2, 9)-cell(3, 9) (tidy)
bQ1 cell(3, 9)-cell(4, 9) (tidy)
bQ1 cell(4, 9)-cell(5, 9) (tidy)
bQ1 cell(5, 9)-cell(6, 9) (tidy)
bQ1 cell(6, 9)-cell(7, 9) (tidy)
bQ1 cell(7, 9)-cell(8, 9) (tidy)
bQ1 cell(8, 9)-cell(9, 9) (tidy)
bQ1 cell(9, 9)-cell(10, 9) (tidy)
>>> table.is_parked(queen.id)
False
"""

from __future__ import annotations

import heapq
import math
import threading
import weakref

import chess

from ..errors import NoRoomError
from .layout import Cell, Layout, MachinePoint, Node
from .memo import Memo
from .paths import Path, merge_collinear
from .planner import Plan, Planner, Relocation
from .table import PhysicalPiece, Table

__all__ = ["BETTER_CELL_S", "LEG_S", "next_tidy", "off_board_route", "plan_tidy", "turn_share_s"]

#: The longest one step of tidying drags (machine seconds, the drag alone; one square, straight or
#: diagonal, on the classic table): a person who comes to the table meanwhile waits for at most this much
#: of it. Two squares (2.5 s) left a drag running at the person's commit in 55 % of the turns with
#: tidying (40 % with one), and the median reply at the board 0.3 s longer (``python -m bench.replies``).
LEG_S = 1.5
#: How many zone cells, best first, are tried for a piece.
_CELL_CHOICES = 3
#: A piece in its own zone moves to a better cell of it when the reset's drag (machine seconds, straight,
#: :meth:`Planner.reset_drag_s`) gets at least this much shorter.
BETTER_CELL_S = 0.5
#: What a route pays (node pitches) for each node it passes that is no cell's centre: among routes of one
#: length, the one through cell centres has places to stop between legs.
_OFF_CENTRE = 0.05
#: Searches from a goal (:meth:`_Ways._towards`) kept for each planner, the newest.
_TOWARDS_KEPT = 64
_TOWARDS: weakref.WeakKeyDictionary[Planner, Memo[tuple[Node, frozenset[Node]], dict[Node, float]]] = (
    weakref.WeakKeyDictionary()
)
_TOWARDS_LOCK = threading.Lock()
_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


def next_tidy(planner: Planner, table: Table, at: MachinePoint | None = None) -> Plan | None:
    """The next step of tidying ``table`` with the magnet at ``at`` (home if not given): the parked piece
    nearest the magnet (then a piece its zone has a much better cell for: :data:`BETTER_CELL_S`) taken
    one leg (:data:`LEG_S`) towards the best free cell of its capture zone it can reach off the board.
    None when there is nothing to tidy, or nothing can go now (the zone full, no way round)."""
    layout, timer = planner.layout, planner.timer
    start = layout.home_mm if at is None else at

    def order(piece: PhysicalPiece) -> tuple[bool, float]:
        return (not table.is_parked(piece.id), timer.travel_s(start, layout.node_mm(table.node_of(piece.id))))

    for piece in sorted((p for p in table if _goals(planner, table, p)), key=order):
        ways = _Ways(planner, table, piece.id)
        for cell in _goals(planner, table, piece)[:_CELL_CHOICES]:
            leg = ways.first_leg(layout.cell_node(cell))
            if leg is not None:
                seconds = timer.relocation_s(start, leg)
                return Plan((Relocation(piece, leg, "tidy"),), seconds, start, layout.node_mm(leg[-1]))
    return None


def turn_share_s(planner: Planner, step: Plan, home: MachinePoint) -> float:
    """What a step of tidying takes of a person's turn (machine seconds): the step, and the empty travel
    from where it ends back to ``home``, where the magnet stood when the turn began. Tidying carries the
    magnet to the zones at the table's sides, and the robot's next reply, or the spare of a promotion,
    may be across the table from them: a step counts as done only once the magnet could be back, as
    near to the reply as tidying found it."""
    return step.seconds + planner.timer.travel_s(step.end_mm, home)


def plan_tidy(planner: Planner, table: Table, at: MachinePoint | None = None) -> Plan:
    """Every step of tidying ``table`` one after the other (what :func:`next_tidy` gives until nothing is
    left), as one plan; ``table`` ends tidied as far as it can be."""
    position = planner.layout.home_mm if at is None else at
    begun = position
    relocations: list[Relocation] = []
    seconds = 0.0
    # every step leaves its piece nearer its zone, or the reset shorter; the bound only guards against a
    # table that cannot settle
    for _ in range(16 * len(table.parked()) + 64):
        step = next_tidy(planner, table, position)
        if step is None:
            break
        step.apply(table)
        relocations += step.relocations
        seconds += step.seconds
        position = step.end_mm
    return Plan(tuple(relocations), seconds, begun, position)


def off_board_route(planner: Planner, table: Table, piece_id: str, goal: Node) -> Path | None:
    """The shortest way for a piece off the board to ``goal`` that never crosses the board: moves between
    neighbouring nodes outside it (the free rows, the zones, the lines between their cells), each keeping
    the clearance from every other piece; through cell centres where that costs nothing more. As a
    polyline; None when there is no such way."""
    route = _Ways(planner, table, piece_id).route(goal)
    return None if route is None else merge_collinear(route)


class _Ways:
    """The ways a piece can go round the board (:func:`off_board_route`), searched once from where it
    stands (and once from where it goes, to tell how far each stop is from there)."""

    def __init__(self, planner: Planner, table: Table, piece_id: str) -> None:
        self.planner, self.table = planner, table
        self.layout, self.finder = planner.layout, planner.finder
        self.start = table.node_of(piece_id)
        self.others = table.occupied_nodes(excluding=[piece_id])
        self._near = _Near(self.others, self.layout.clearance_nodes)
        width, height = self.layout.node_extent
        a1, h8 = self.layout.square_node(chess.A1), self.layout.square_node(chess.H8)
        xs, ys = sorted((a1[0], h8[0])), sorted((a1[1], h8[1]))
        self._inside = (xs[0] - 1, xs[1] + 1, ys[0] - 1, ys[1] + 1)
        self._size = (width, height)
        self._free: dict[Node, bool] = {}
        self.cost, self.parent = self._search(self.start)

    def is_free(self, node: Node) -> bool:
        """Off the board, on the table and clear of every other piece."""
        found = self._free.get(node)
        if found is None:
            x0, x1, y0, y1 = self._inside
            inside = x0 < node[0] < x1 and y0 < node[1] < y1
            on_table = 0 <= node[0] < self._size[0] and 0 <= node[1] < self._size[1]
            found = self._free[node] = on_table and not inside and self._near.is_free(node)
        return found

    def _search(self, source: Node) -> tuple[dict[Node, float], dict[Node, Node]]:
        """Dijkstra from ``source`` over the free nodes off the board."""
        cost = {source: 0.0}
        parent: dict[Node, Node] = {}
        if source != self.start and not self.is_free(source):
            return {}, {}
        queue = [(0.0, source)]
        while queue:
            here, node = heapq.heappop(queue)
            if here > cost[node]:
                continue
            for di, dj in _NEIGHBOURS:
                step = (node[0] + di, node[1] + dj)
                if not self.is_free(step) or not self._near.is_clear(node, step):
                    continue
                through = here + math.hypot(di, dj) + (0.0 if self.layout.node_cell(step) else _OFF_CENTRE)
                if through < cost.get(step, math.inf) - 1e-12:
                    cost[step] = through
                    parent[step] = node
                    heapq.heappush(queue, (through, step))
        return cost, parent

    def _towards(self, goal: Node) -> dict[Node, float]:
        """How far each node is from ``goal`` (:meth:`_search` from it): the same for every step of one
        piece's trip, the other pieces standing still, so searched once for them all."""
        with _TOWARDS_LOCK:
            known = _TOWARDS.setdefault(self.planner, Memo(_TOWARDS_KEPT))
        return known.recall((goal, frozenset(self.others)), lambda: self._search(goal)[0])

    def route(self, goal: Node) -> tuple[Node, ...] | None:
        """Node by node from where the piece stands to ``goal`` (None: no way there)."""
        if goal not in self.cost or (goal != self.start and not self.is_free(goal)):
            return None
        nodes = [goal]
        while nodes[-1] != self.start:
            nodes.append(self.parent[nodes[-1]])
        return tuple(nodes[::-1])

    def first_leg(self, goal: Node) -> Path | None:
        """The first leg towards ``goal``: the whole way when it takes at most :data:`LEG_S` of dragging,
        else the way to the free cell off the board (no reserve slot) that leaves the least way to go
        among those that near; the nearest one that brings the piece nearer when none is. None when there
        is no way to ``goal``."""
        route = self.route(goal)
        if route is None:
            return None
        timer = self.planner.timer
        whole = merge_collinear(route)
        if timer.drag_s(whole) <= LEG_S:
            return whole
        towards = self._towards(goal)
        left = towards.get(self.start, math.inf)
        stops = []
        for cell in self.layout.cells():
            node = self.layout.cell_node(cell)
            nearer = node in towards and towards[node] < left - 1e-9  # (the way on is shorter from there)
            if node == self.start or not nearer or not _is_resting_place(self.layout, self.table, node):
                continue
            way = self.route(node)
            if way is not None:
                too_far = timer.drag_s(merge_collinear(way)) > LEG_S
                stops.append((too_far, towards[node], self.cost[node], way))
        if not stops:
            return whole
        near = [stop for stop in stops if not stop[0]]
        if near:
            return merge_collinear(min(near, key=lambda stop: (stop[1], stop[2]))[3])
        return merge_collinear(min(stops, key=lambda stop: stop[2])[3])


class _Near:
    """The clearance rule (:mod:`.paths`) for the short moves of a route, looking only at the pieces near
    them: a route tries thousands of moves, and all but a few pieces are far from each."""

    def __init__(self, others: list[Node], clearance: float) -> None:
        self.others = set(others)
        self.limit = clearance * clearance - 1e-9
        self.reach = math.ceil(clearance) + 1
        self._seen: dict[Node, list[Node]] = {}
        self._clear: dict[tuple[Node, Node], bool] = {}

    def _around(self, node: Node) -> list[Node]:
        # asked again and again for the same nodes (once a node, once for each move from it)
        found = self._seen.get(node)
        if found is None:
            reach = self.reach
            found = self._seen[node] = [
                (node[0] + di, node[1] + dj)
                for di in range(-reach, reach + 1)
                for dj in range(-reach, reach + 1)
                if (node[0] + di, node[1] + dj) in self.others
            ]
        return found

    def is_free(self, node: Node) -> bool:
        return all((o[0] - node[0]) ** 2 + (o[1] - node[1]) ** 2 >= self.limit for o in self._around(node))

    def is_clear(self, a: Node, b: Node) -> bool:
        """A move of at most one node pitch each way from ``a`` to ``b`` keeps the clearance."""
        key = (a, b) if a <= b else (b, a)
        found = self._clear.get(key)
        if found is None:
            found = self._clear[key] = self._is_clear(a, b)
        return found

    def _is_clear(self, a: Node, b: Node) -> bool:
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = dx * dx + dy * dy
        for o in self._around(a):
            t = max(0.0, min(1.0, ((o[0] - a[0]) * dx + (o[1] - a[1]) * dy) / length))
            ex, ey = a[0] + t * dx - o[0], a[1] + t * dy - o[1]
            if ex * ex + ey * ey < self.limit:
                return False
        return True


def _goals(planner: Planner, table: Table, piece: PhysicalPiece) -> list[Cell]:
    """Where tidying takes ``piece``, best first: a parked one to its zone (:meth:`Planner.zone_cells`);
    one in its zone to a free cell of it that makes the reset's drag :data:`BETTER_CELL_S` shorter;
    none for any other."""
    here = table.node_of(piece.id)
    if table.is_parked(piece.id):
        try:
            return planner.zone_cells(table, piece, here)
        except NoRoomError:
            return []  # the zone is full: the piece waits where it is (the reset takes it)
    cell = planner.layout.node_cell(here)
    zone = planner.layout.capture_cells[piece.color]
    if cell is None or cell not in zone:
        return []
    now = planner.reset_drag_s(piece.symbol, cell)
    if now < BETTER_CELL_S:
        return []
    free = [c for c in zone if table.piece_at(planner.layout.cell_node(c)) is None]
    better = [c for c in free if planner.reset_drag_s(piece.symbol, c) <= now - BETTER_CELL_S]
    return sorted(better, key=lambda c: planner.reset_drag_s(piece.symbol, c))


def _is_resting_place(layout: Layout, table: Table, node: Node) -> bool:
    """A free cell off the board, not a reserve slot, where a piece may stop between two legs."""
    cell = layout.node_cell(node)
    if cell is None or layout.cell_kind(cell) in ("board", "reserve"):
        return False
    return table.piece_at(node) is None
