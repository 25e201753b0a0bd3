"""Drag paths that obey the clearance rule.

A dragged piece's centre must never come closer than the clearance (one node pitch on the classic table)
to the centre of any other piece, continuously along the path. Paths are polylines through lattice nodes;
any two nodes may be joined by a straight segment when the whole segment keeps the clearance, so a path is
not limited to 8-connected hops. :meth:`PathFinder.find` returns the shortest such polyline (ties broken
by fewer corners): A* over the visibility graph of the free nodes, with the Euclidean distance to the
goal as heuristic, which makes it exact.

All geometry is in node pitches; obstacles sit on nodes, so clearance checks are exact up to rounding.
"""

from __future__ import annotations

import itertools
import math
from array import array
from collections.abc import Collection, Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from .layout import Layout, Node
from .memo import Memo

Path: TypeAlias = tuple[Node, ...]
"""A polyline through nodes, start first; consecutive segments are never collinear."""

FloatArray: TypeAlias = npt.NDArray[np.float64]

#: Slack in squared node pitches: a centre exactly one clearance away is allowed.
_EPS = 1e-9
#: How many paths a finder remembers: a plan tries every order of its drags and every place off the board,
#: and asks again and again for the same drag among the same pieces.
_REMEMBERED = 4096
#: Cost of a corner in node pitches: small enough never to beat a real difference in length,
#: large enough to prefer one straight segment over collinear pieces and fewer corners among equals.
_CORNER_COST = 1e-4


def segment_distance_sq(a: FloatArray, b: FloatArray, points: FloatArray) -> FloatArray:
    """Squared distance from each of ``points`` (P x 2) to the segment a-b."""
    d = b - a
    w = points - a
    dd = float(d @ d)
    if dd == 0.0:
        return np.asarray(np.einsum("ij,ij->i", w, w), dtype=np.float64)
    t = np.clip((w @ d) / dd, 0.0, 1.0)
    diff = w - t[:, None] * d
    return np.asarray(np.einsum("ij,ij->i", diff, diff), dtype=np.float64)


def path_length(path: Sequence[Node]) -> float:
    """Length of a polyline in node pitches."""
    return sum(math.dist(a, b) for a, b in itertools.pairwise(path))


def merge_collinear(path: Sequence[Node]) -> Path:
    """Drop interior vertices that lie on a straight line with their neighbours."""
    result: list[Node] = []
    for node in path:
        if result and node == result[-1]:
            continue
        while len(result) >= 2:
            (x0, y0), (x1, y1) = result[-2], result[-1]
            cross = (x1 - x0) * (node[1] - y1) - (y1 - y0) * (node[0] - x1)
            dot = (x1 - x0) * (node[0] - x1) + (y1 - y0) * (node[1] - y1)
            if cross == 0 and dot >= 0:
                result.pop()
            else:
                break
        result.append(node)
    return tuple(result)


class PathFinder:
    """Shortest clearance-keeping paths on one layout's node lattice.

    >>> finder = PathFinder(Layout.default())
    >>> finder.find((5, 3), (5, 9), obstacles=[(7, 5)])
    ((5, 3), (5, 9))
    """

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        width, height = layout.node_extent
        self.width, self.height = width, height
        grid = np.array([(i, j) for i in range(width) for j in range(height)], dtype=np.float64)
        self.coords: FloatArray = grid
        self.clearance_sq = layout.clearance_nodes**2
        self._found: Memo[tuple[Node, Node, bytes | frozenset[Node], float], Path | None] = Memo(_REMEMBERED)

    def index(self, node: Node) -> int:
        return node[0] * self.height + node[1]

    def node(self, index: int) -> Node:
        return (index // self.height, index % self.height)

    def on_table(self, node: Node) -> bool:
        return 0 <= node[0] < self.width and 0 <= node[1] < self.height

    @staticmethod
    def _obstacles(obstacles: Collection[Node]) -> FloatArray:
        return np.array(list(obstacles), dtype=np.float64).reshape(-1, 2)

    def is_free(self, node: Node, obstacles: Collection[Node]) -> bool:
        """True when a piece could stand on ``node`` without breaking the clearance."""
        obs = self._obstacles(obstacles)
        if not len(obs):
            return True
        d = obs - np.array(node, dtype=np.float64)
        return bool(np.einsum("ij,ij->i", d, d).min() >= self.clearance_sq - _EPS)

    def is_clear(self, a: Node, b: Node, obstacles: Collection[Node]) -> bool:
        """True when a piece can be dragged straight from ``a`` to ``b``."""
        obs = self._obstacles(obstacles)
        if not len(obs):
            return True
        dist = segment_distance_sq(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64), obs)
        return bool(dist.min() >= self.clearance_sq - _EPS)

    def path_is_clear(self, path: Sequence[Node], obstacles: Collection[Node]) -> bool:
        return all(self.is_clear(a, b, obstacles) for a, b in itertools.pairwise(path))

    def find(
        self, start: Node, goal: Node, obstacles: Collection[Node], *, corner_cost: float = _CORNER_COST
    ) -> Path | None:
        """The shortest path from ``start`` to ``goal`` keeping clear of ``obstacles`` (other pieces'
        nodes; the dragged piece itself must not be among them), or None when there is none.

        ``corner_cost`` (node pitches) is what each corner adds to a path's length: by default just
        enough to prefer fewer corners among paths of one length; larger, a path with fewer corners wins
        over a slightly shorter one (the machine slows down at every corner)."""
        if not (self.on_table(start) and self.on_table(goal)):
            return None
        if start == goal:
            return (start,)
        key = (start, goal, self._key(obstacles), corner_cost)
        return self._found.recall(key, lambda: self._find(start, goal, obstacles, corner_cost))

    def _key(self, obstacles: Collection[Node]) -> bytes | frozenset[Node]:
        """The obstacles as a memo remembers them: their node indices, sorted, two bytes each (a tenth of
        a frozenset's memory: a long-running table remembers thousands of searches), or for a node off the
        table the nodes themselves."""
        indices = {self.index(node) for node in obstacles if self.on_table(node)}
        if len(indices) != len(set(obstacles)):
            return frozenset(obstacles)
        return array("H", sorted(indices)).tobytes()

    def _find(self, start: Node, goal: Node, obstacles: Collection[Node], corner_cost: float) -> Path | None:
        if not self.is_free(goal, obstacles):
            return None
        if self.is_clear(start, goal, obstacles):
            return (start, goal)
        return self._search(start, goal, self._obstacles(obstacles), corner_cost)

    def _search(self, start: Node, goal: Node, obs: FloatArray, corner_cost: float) -> Path | None:
        coords = self.coords
        n = len(coords)
        s, t = self.index(start), self.index(goal)
        # Free nodes: a piece may pass through them.
        diff = coords[:, None, :] - obs[None, :, :]
        near = np.einsum("ijk,ijk->ij", diff, diff).min(axis=1)
        usable = near >= self.clearance_sq - _EPS
        usable[s] = True
        cost = np.full(n, np.inf)
        cost[s] = 0.0
        parent = np.full(n, -1, dtype=np.int64)
        closed = np.zeros(n, dtype=bool)
        heuristic = np.hypot(coords[:, 0] - goal[0], coords[:, 1] - goal[1])
        frontier = np.zeros(n, dtype=bool)
        frontier[s] = True
        while True:
            score = np.where(frontier, cost + heuristic, np.inf)
            u = int(np.argmin(score))
            if not np.isfinite(score[u]):
                return None
            if u == t:
                break
            frontier[u] = False
            closed[u] = True
            candidates = np.flatnonzero(usable & ~closed)
            if not len(candidates):
                continue
            origin = coords[u]
            d = coords[candidates] - origin  # C x 2
            w = obs - origin  # P x 2
            dd = np.einsum("ij,ij->i", d, d)
            dot = d @ w.T  # C x P
            tt = np.clip(dot / dd[:, None], 0.0, 1.0)
            ww = np.einsum("ij,ij->i", w, w)
            dist = tt * tt * dd[:, None] - 2.0 * tt * dot + ww[None, :]
            visible = dist.min(axis=1) >= self.clearance_sq - _EPS
            reach = candidates[visible]
            through = cost[u] + np.sqrt(dd[visible]) + corner_cost
            better = through < cost[reach] - 1e-12
            reach, through = reach[better], through[better]
            cost[reach] = through
            parent[reach] = u
            frontier[reach] = True
        nodes: list[Node] = []
        i = t
        while i != -1:
            nodes.append(self.node(i))
            i = int(parent[i])
        return merge_collinear(nodes[::-1])
