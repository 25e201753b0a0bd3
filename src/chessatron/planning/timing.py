"""How long the machine takes for empty travel, drags and magnet actions, from the planner time model.

The planner uses these figures to choose among orders and destinations; the G-code it then writes is
exactly what these figures describe, so the twin measures the same time. Travel and drags each end in a
stop (the magnet switch after them waits for the machine to stand still), so each carries GRBL's stop
delay ``$1`` (:attr:`~chessatron.grbl.motion.MachineProfile.stop_delay_s`; nothing with ``$1=255``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ..grbl.motion import Block, run_time, straight_time, straight_times
from .layout import Layout, MachinePoint, Node


class Timer:
    """Predicts machine seconds for one layout, caching drag times by path."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._drags: dict[tuple[Node, ...], float] = {}
        self._tables: dict[float | None, list[list[float]]] = {}

    @property
    def magnet_s(self) -> float:
        """Engage and release, each followed by its settle dwell."""
        return 2 * self.layout.magnet.settle_s

    def travel_s(self, a: MachinePoint, b: MachinePoint) -> float:
        """Empty travel at rapid, in one straight G0 from rest to rest (its stop delay included)."""
        if a == b:
            return 0.0
        return straight_time(a, b, None, self.layout.profile)

    def drag_s(self, path: Sequence[Node]) -> float:
        """A drag along ``path`` at the carry feed, from rest to rest (its stop delay included)."""
        key = tuple(path)
        cached = self._drags.get(key)
        if cached is None:
            points = [self.layout.node_mm(node) for node in key]
            feed = self.layout.carry_feed_mm_min
            blocks = [Block(a, b, feed) for a, b in itertools.pairwise(points)]
            cached = self._drags[key] = run_time(blocks, self.layout.profile) if blocks else 0.0
        return cached

    def straight_drag_s(self, a: Node, b: Node) -> float:
        """The bound for one relocation: a single straight segment at the carry feed."""
        return self.drag_s((a, b)) if a != b else 0.0

    def corner_pitches(self) -> float:
        """What a right-angle corner costs a drag, in node pitches of straight drag at full carry speed:
        the machine slows to nearly a stop at it (GRBL's junction deviation) and speeds up again."""
        corner = self.drag_s(((0, 0), (4, 0), (4, 4))) - self.drag_s(((0, 0), (8, 0)))
        per_pitch = self.drag_s(((0, 0), (8, 0))) - self.drag_s(((0, 0), (7, 0)))
        return max(corner / per_pitch, 0.0)

    def relocation_s(self, at: MachinePoint, path: Sequence[Node]) -> float:
        """Travel from ``at`` to the piece, engage, drag, release."""
        return self.travel_s(at, self.layout.node_mm(path[0])) + self.magnet_s + self.drag_s(path)

    def relocations_s(self, at: MachinePoint, paths: Sequence[Sequence[Node]]) -> float:
        """Machine seconds of drags along ``paths`` one after the other from ``at``: what a plan's
        relocations take (:meth:`relocation_s` each), for an estimate of work under way."""
        seconds = 0.0
        for path in paths:
            seconds += self.relocation_s(at, path)
            at = self.layout.node_mm(path[-1])
        return seconds

    def travel_between(self, a: Node, b: Node) -> float:
        """:meth:`travel_s` from node ``a`` to node ``b``, looked up in a table of every displacement the
        table's lattice has (computed once, vectorised): for planners that weigh thousands of moves."""
        return self._table(None)[b[0] - a[0]][b[1] - a[1]]

    def rapid_table(self) -> list[list[float]]:
        """The table :meth:`travel_between` reads, indexed ``[di][dj]`` by the displacement in nodes."""
        return self._table(None)

    def straight_drag_between(self, a: Node, b: Node) -> float:
        """:meth:`straight_drag_s` from a table, as :meth:`travel_between` (no magnet time)."""
        return self._table(self.layout.carry_feed_mm_min)[b[0] - a[0]][b[1] - a[1]]

    def _table(self, feed_mm_min: float | None) -> list[list[float]]:
        """Seconds of a straight move from rest to rest at ``feed_mm_min`` (None: rapid) for every node
        displacement, indexed ``[di][dj]`` (negative indices wrap around, as Python's lists do)."""
        table = self._tables.get(feed_mm_min)
        if table is None:
            width, height = self.layout.node_extent
            origin = self.layout.node_mm((0, 0))
            di = [i if i < width else i - 2 * width + 1 for i in range(2 * width - 1)]
            dj = [j if j < height else j - 2 * height + 1 for j in range(2 * height - 1)]
            dx, dy = [], []
            for i in di:
                for j in dj:
                    x, y = self.layout.node_mm((i, j))
                    dx.append(x - origin[0])
                    dy.append(y - origin[1])
            seconds = straight_times(dx, dy, feed_mm_min, self.layout.profile).tolist()
            rows = len(dj)
            table = self._tables[feed_mm_min] = [seconds[k * rows : (k + 1) * rows] for k in range(len(di))]
        return table
