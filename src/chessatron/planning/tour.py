"""A set-up's drags as a tour: the order, and who goes where among interchangeable pieces.

Once every piece has a goal the machine still travels empty from each drag's end to the next drag's
start, and with some thirty drags that travel is a fifth of a reset. Which drag follows which is an
asymmetric travelling-salesman problem with precedence (a piece can only arrive once the piece on its
goal has left), and which of two interchangeable pieces takes which goal (two pawns, two knights, any
two pieces going to their colour's capture zone) changes both the drags and the travel between them.

:func:`plan_tour` builds a tour greedily (the nearest ready drag next, one that frees a square others
wait for first) and improves it by local search on the machine's time model until no move helps or the
planning budget is spent: Or-opt (a run of up to three drags moved elsewhere), 2-opt (a run reversed),
goal exchanges between drags whose pieces may take each other's goals, and capture-zone goals moved to
another free cell of the zone. Cycles of pieces waiting on each other are broken first by parking one
of them on a free cell. Drag times are straight-line estimates from rest to rest (the paths come later,
from the planner); empty travel is exact.

Two pawns, each dragged far to its goal, trade goals and both go a short way:

>>> layout = Layout.default()
>>> tour = plan_tour([Drag("a", (5, 3), (5, 9), "P"), Drag("b", (5, 11), (7, 3), "P")],
...                  layout.node_mm((5, 11)), Timer(layout))
>>> [(d.piece, d.start, d.goal) for d in tour.drags]
[('b', (5, 11), (5, 9)), ('a', (5, 3), (7, 3))]
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from .layout import Layout, MachinePoint, Node
from .table import PieceId
from .timing import Timer

__all__ = ["Drag", "Tour", "plan_tour", "tour_seconds"]

#: CPU seconds the local search may spend; a Raspberry Pi 4 is three to five times slower than a desktop.
DEFAULT_BUDGET_S = 0.4
#: Improvements smaller than this (seconds) are noise in the time model.
_EPS = 1e-6
#: The longest run of drags Or-opt moves at once.
_OR_OPT_RUN = 3
#: Kicks of the iterated local search: each shuffles three runs of the best tour found and descends
#: again. A fixed count with a fixed seed, so that one table gets one plan on any machine.
KICKS = 40
#: How many of the best tours found (the best first) the caller may weigh on the table's real paths.
ALTERNATIVES = 4


@dataclass(frozen=True)
class Drag:
    """One piece taken from ``start`` to ``goal`` (nodes).

    ``accepts`` says which pieces the goal may take: a FEN letter (that kind only), a zone's name (any
    piece whose ``zone`` is the same), or None (this piece only: a parking place). ``zone`` names the
    capture zone the piece may be sent to, if any.
    """

    piece: PieceId
    start: Node
    goal: Node
    symbol: str
    zone: str | None = None
    accepts: str | None = None
    parked: bool = False
    """The first half of a park: the piece steps aside to ``goal`` and comes back later."""

    def __post_init__(self) -> None:
        if self.accepts is None and not self.parked:
            object.__setattr__(self, "accepts", self.symbol)

    def may_take(self, goal_accepts: str | None) -> bool:
        """Whether this drag's piece may go to a goal that accepts ``goal_accepts``."""
        if self.parked or goal_accepts is None:
            return False
        return goal_accepts == self.symbol or (self.zone is not None and goal_accepts == self.zone)


@dataclass(frozen=True)
class Tour:
    """The drags in the order to run them, goals as chosen, and what the time model says of them."""

    drags: tuple[Drag, ...]
    travel_s: float
    """Empty travel: from the start point to the first drag, and between drags."""
    drag_s: float
    """The drags as straight lines from rest to rest, magnet time included."""
    improvements: int
    """How many local-search moves helped."""
    greedy: tuple[Drag, ...]
    """The greedy tour the search started from (the same drags, in its order and with its goals)."""
    alternatives: tuple[tuple[Drag, ...], ...] = ()
    """Other local optima: the first descent's (before any kick), then the best the kicks found (each
    differs from ``drags``)."""

    @property
    def seconds(self) -> float:
        return self.travel_s + self.drag_s


def tour_seconds(drags: Sequence[Drag], at: MachinePoint, timer: Timer) -> tuple[float, float]:
    """Empty travel and straight drag time of ``drags`` run in this order from ``at``."""
    layout = timer.layout
    travel = drag = 0.0
    end: Node | None = None
    for item in drags:
        travel += (
            timer.travel_s(at, layout.node_mm(item.start))
            if end is None
            else timer.travel_between(end, item.start)
        )
        drag += timer.straight_drag_between(item.start, item.goal) + timer.magnet_s
        end = item.goal
    return travel, drag


def plan_tour(
    drags: Sequence[Drag],
    at: MachinePoint,
    timer: Timer,
    *,
    free_cells: Mapping[str, Sequence[Node]] | None = None,
    park_cells: Sequence[Node] = (),
    budget_s: float = DEFAULT_BUDGET_S,
    kicks: int = KICKS,
) -> Tour:
    """Order ``drags`` (and trade their goals) for the least machine time from ``at``.

    ``free_cells`` lists, by zone name, the empty cells no drag aims at where a piece bound for that zone
    may go instead; ``park_cells`` free cells where a piece may wait to break a cycle of pieces waiting
    on each other (a cycle with no such cell is left to the caller). ``budget_s`` caps the CPU time of
    the local search, ``kicks`` the restarts of the iterated search (:meth:`_Search.kick`).
    """
    search = _Search(list(drags), at, timer, free_cells or {}, budget_s)
    search.break_cycles(list(park_cells))
    search.construct()
    greedy = tuple(search.drags[k] for k in search.order)
    search.improve()
    search.kick(kicks)
    return search.result(greedy)


class _Search:
    """The local search: drags by index, the order as a list of indices."""

    def __init__(
        self,
        drags: list[Drag],
        at: MachinePoint,
        timer: Timer,
        free_cells: Mapping[str, Sequence[Node]],
        budget_s: float,
    ) -> None:
        self.drags = drags
        self.at = at
        self.timer = timer
        self.layout: Layout = timer.layout
        self.free = _copy_free(free_cells)
        self.deadline = time.thread_time() + budget_s
        self.order: list[int] = []
        self.improvements = 0
        self._from_at: dict[Node, float] = {}
        #: :meth:`Timer.travel_between`'s table, read directly: the search asks it millions of times
        self._rapid = timer.rapid_table()
        #: local optima found by :meth:`kick`, by their estimated seconds
        self.optima: dict[tuple[Drag, ...], float] = {}

    # --- costs --------------------------------------------------------------------------------------

    def travel(self, a: int | None, b: int) -> float:
        """Empty travel from drag ``a``'s goal (None: the start point) to drag ``b``'s start."""
        start = self.drags[b].start
        if a is None:
            cached = self._from_at.get(start)
            if cached is None:
                cached = self._from_at[start] = self.timer.travel_s(self.at, self.layout.node_mm(start))
            return cached
        goal = self.drags[a].goal
        return self._rapid[start[0] - goal[0]][start[1] - goal[1]]

    def drag(self, item: Drag, goal: Node | None = None) -> float:
        return self.timer.straight_drag_between(item.start, item.goal if goal is None else goal)

    # --- precedence ---------------------------------------------------------------------------------

    def predecessors(self) -> list[list[int]]:
        """For each drag, the drags that must run before it: the one that takes the piece on its goal
        away, and the same piece's earlier drag (a park before the way back)."""
        parks = {(d.piece, d.goal): k for k, d in enumerate(self.drags) if d.parked}
        leaving = {d.start: k for k, d in enumerate(self.drags) if (d.piece, d.start) not in parks}
        before: list[list[int]] = [[] for _ in self.drags]
        for k, item in enumerate(self.drags):
            blocker = leaving.get(item.goal)
            if blocker is not None and blocker != k:
                before[k].append(blocker)
            park = parks.get((item.piece, item.start))
            if park is not None:
                before[k].append(park)
        return before

    def is_feasible(self, order: Sequence[int], before: list[list[int]]) -> bool:
        position = {k: i for i, k in enumerate(order)}
        return all(position[p] < position[k] for k in order for p in before[k])

    # --- cycles -------------------------------------------------------------------------------------

    def break_cycles(self, parks: list[Node]) -> None:
        """Pieces that wait on each other in a ring: one of each ring steps aside to a free cell first
        (the one whose detour costs least), and goes on to its goal from there."""
        while True:
            cycle = self._find_cycle()
            if cycle is None or not parks:
                return
            best: tuple[float, int, Node] | None = None
            for k in cycle:
                item = self.drags[k]
                for park in parks:
                    cost = (
                        self.drag(item, park)
                        + self.timer.straight_drag_between(park, item.goal)
                        - self.drag(item)
                        + self.timer.magnet_s
                    )
                    if best is None or cost < best[0]:
                        best = (cost, k, park)
            assert best is not None
            _, k, park = best
            parks.remove(park)
            for cells in self.free.values():
                if park in cells:
                    cells.remove(park)
            item = self.drags[k]
            self.drags[k] = replace(item, goal=park, parked=True, accepts=None)
            self.drags.append(replace(item, start=park))

    def _find_cycle(self) -> list[int] | None:
        before = self.predecessors()
        state = [0] * len(self.drags)  # 0 unseen, 1 on the current chain, 2 done
        for first in range(len(self.drags)):
            chain: list[int] = []
            k: int | None = first
            while k is not None and state[k] == 0:
                state[k] = 1
                chain.append(k)
                k = before[k][0] if before[k] else None
            if k is not None and state[k] == 1:
                return chain[chain.index(k) :]
            for j in chain:
                state[j] = 2
        return None

    # --- the tour -----------------------------------------------------------------------------------

    def construct(self) -> None:
        """The greedy tour: the nearest ready drag next, a drag that frees another's goal preferred."""
        before = self.predecessors()
        waited_on = {p for preds in before for p in preds}
        done: set[int] = set()
        last: int | None = None
        while len(done) < len(self.drags):
            ready = [k for k in range(len(self.drags)) if k not in done and all(p in done for p in before[k])]
            if not ready:  # a cycle no free cell could break: the caller parks on the way
                ready = [k for k in range(len(self.drags)) if k not in done]
            k = min(ready, key=lambda j: self.travel(last, j) - (0.5 if j in waited_on else 0.0))
            self.order.append(k)
            done.add(k)
            last = k
        self._before = before

    def cost(self, order: Sequence[int]) -> float:
        total = 0.0
        last: int | None = None
        for k in order:
            total += self.travel(last, k) + self.drag(self.drags[k])
            last = k
        return total

    def improve(self) -> None:
        if not self.is_feasible(self.order, self._before):
            return  # an unbroken cycle: keep the greedy order, the caller sorts it out
        improved = True
        while improved and time.thread_time() < self.deadline:
            improved = (
                self._or_opt() or self._two_opt() or self._exchange_goals() or self._move_to_free_cell()
            )

    def kick(self, kicks: int = KICKS) -> None:
        """Iterated local search: from the best tour found, three runs swap places (A B C D becomes
        A C B D, the order's precedence kept) and the search descends again; a better tour is kept.
        Each local optimum found is remembered for the caller to weigh on the real paths."""
        if len(self.order) < 4 or not self.is_feasible(self.order, self._before):
            return
        rng = random.Random(len(self.order))
        best = (self.cost(self.order), list(self.order), list(self.drags), _copy_free(self.free))
        self.optima[self._tour()] = best[0]
        for _ in range(kicks):
            if time.thread_time() > self.deadline:
                break
            cuts = sorted(rng.sample(range(1, len(best[1]) + 1), 3))
            a, b, c = cuts
            order = best[1][:a] + best[1][b:c] + best[1][a:b] + best[1][c:]
            self.drags, self.free = list(best[2]), _copy_free(best[3])
            self._before = self.predecessors()
            if not self.is_feasible(order, self._before):
                continue
            self.order = order
            self.improve()
            cost = self.cost(self.order)
            self.optima.setdefault(self._tour(), cost)
            if cost < best[0] - _EPS:
                best = (cost, list(self.order), list(self.drags), _copy_free(self.free))
        self.order, self.drags, self.free = best[1], best[2], best[3]
        self._before = self.predecessors()

    def _tour(self) -> tuple[Drag, ...]:
        return tuple(self.drags[k] for k in self.order)

    def _accept(self, order: list[int]) -> bool:
        if not self.is_feasible(order, self._before):
            return False
        self.order = order
        self.improvements += 1
        return True

    def _edge(self, order: Sequence[int], i: int) -> float:
        """Travel into position ``i`` of ``order`` (0 when ``i`` is past the end)."""
        if i >= len(order):
            return 0.0
        return self.travel(order[i - 1] if i > 0 else None, order[i])

    def _or_opt(self) -> bool:
        order, n = self.order, len(self.order)
        for run in range(1, _OR_OPT_RUN + 1):
            for i in range(n - run + 1):
                first, last = order[i], order[i + run - 1]
                before_i = order[i - 1] if i > 0 else None
                after = order[i + run] if i + run < n else None
                removed = self._edge(order, i) + (self._edge(order, i + run) if after is not None else 0.0)
                bridged = self.travel(before_i, after) if after is not None else 0.0
                rest = order[:i] + order[i + run :]
                for j in range(len(rest) + 1):
                    if j == i:
                        continue
                    u = rest[j - 1] if j > 0 else None
                    v = rest[j] if j < len(rest) else None
                    added = self.travel(u, first) + (self.travel(last, v) if v is not None else 0.0)
                    dropped = self.travel(u, v) if v is not None else 0.0
                    if bridged - removed + added - dropped < -_EPS and self._accept(
                        rest[:j] + order[i : i + run] + rest[j:]
                    ):
                        return True
                if time.thread_time() > self.deadline:
                    return False
        return False

    def _two_opt(self) -> bool:
        order, n = self.order, len(self.order)
        for i in range(n - 1):
            forward = backward = 0.0
            for j in range(i + 1, n):
                forward += self.travel(order[j - 1], order[j])
                backward += self.travel(order[j], order[j - 1])
                u = order[i - 1] if i > 0 else None
                v = order[j + 1] if j + 1 < n else None
                old = (
                    self.travel(u, order[i]) + forward + (self.travel(order[j], v) if v is not None else 0.0)
                )
                new = (
                    self.travel(u, order[j]) + backward + (self.travel(order[i], v) if v is not None else 0.0)
                )
                if new - old < -_EPS and self._accept(order[:i] + order[i : j + 1][::-1] + order[j + 1 :]):
                    return True
            if time.thread_time() > self.deadline:
                return False
        return False

    def _next_start(self, position: int) -> Node | None:
        order = self.order
        return self.drags[order[position + 1]].start if position + 1 < len(order) else None

    def _exchange_goals(self) -> bool:
        """Two drags trade goals when each piece may take the other's and the time model gains."""
        order, timer = self.order, self.timer
        for a_pos in range(len(order)):
            a = self.drags[order[a_pos]]
            for b_pos in range(a_pos + 1, len(order)):
                b = self.drags[order[b_pos]]
                if not (a.may_take(b.accepts) and b.may_take(a.accepts)):
                    continue
                if a.start == b.goal or b.start == a.goal:
                    continue  # one would stay where it is: the assignment has weighed that already
                delta = self.drag(a, b.goal) + self.drag(b, a.goal) - self.drag(a) - self.drag(b)
                for item, new_goal, position in ((a, b.goal, a_pos), (b, a.goal, b_pos)):
                    following = self._next_start(position)
                    if following is not None:
                        delta += timer.travel_between(new_goal, following) - timer.travel_between(
                            item.goal, following
                        )
                changes = {
                    order[a_pos]: replace(a, goal=b.goal, accepts=b.accepts),
                    order[b_pos]: replace(b, goal=a.goal, accepts=a.accepts),
                }
                if delta < -_EPS and self._try_goals(changes):
                    return True
            if time.thread_time() > self.deadline:
                return False
        return False

    def _move_to_free_cell(self) -> bool:
        """A piece bound for a capture zone goes to another free cell of it when the time model gains."""
        order, timer = self.order, self.timer
        for position, k in enumerate(order):
            item = self.drags[k]
            if item.accepts is None or item.accepts not in self.free:
                continue
            following = self._next_start(position)
            now = self.drag(item) + (timer.travel_between(item.goal, following) if following else 0.0)
            for cell in self.free[item.accepts]:
                then = self.drag(item, cell) + (timer.travel_between(cell, following) if following else 0.0)
                if then - now < -_EPS and self._try_goals({k: replace(item, goal=cell)}):
                    cells = self.free[item.accepts]
                    cells[cells.index(cell)] = item.goal
                    return True
        return False

    def _try_goals(self, changes: Mapping[int, Drag]) -> bool:
        """Give drags new goals if the order still respects who waits on whom."""
        saved = {k: self.drags[k] for k in changes}
        for k, item in changes.items():
            self.drags[k] = item
        before = self.predecessors()
        if self.is_feasible(self.order, before):
            self._before = before
            self.improvements += 1
            return True
        for k, item in saved.items():
            self.drags[k] = item
        return False

    def result(self, greedy: tuple[Drag, ...]) -> Tour:
        drags = self._tour()
        travel, drag = tour_seconds(drags, self.at, self.timer)
        tours = list(self.optima)  # the first: the descent before any kick
        others = sorted(
            (cost, k) for k, (tour, cost) in enumerate(self.optima.items()) if k and tour != drags
        )
        picked = ([0] if tours and tours[0] != drags else []) + [k for _, k in others]
        alternatives = tuple(tours[k] for k in picked[: ALTERNATIVES - 1])
        return Tour(drags, travel, drag, self.improvements, greedy, alternatives)


def _copy_free(free: Mapping[str, Sequence[Node]]) -> dict[str, list[Node]]:
    return {zone: list(cells) for zone, cells in free.items()}
