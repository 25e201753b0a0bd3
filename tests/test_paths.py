from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.planning.layout import Layout, Node
from chessatron.planning.paths import PathFinder, merge_collinear, path_length, segment_distance_sq

LAYOUT = Layout.default()
FINDER = PathFinder(LAYOUT)
CENTRES = [LAYOUT.cell_node(c) for c in LAYOUT.cells()]


def min_clearance(path: tuple[Node, ...], obstacles: list[Node]) -> float:
    """Closest approach of the path to any obstacle, checked densely (independent of the finder)."""
    best = math.inf
    for a, b in itertools.pairwise(path):
        for k in range(201):
            t = k / 200
            p = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
            for o in obstacles:
                best = min(best, math.dist(p, o))
    return best


def test_straight_line_when_clear() -> None:
    assert FINDER.find((5, 3), (5, 15), obstacles=[(7, 3), (7, 5)]) == ((5, 3), (5, 15))


def test_knight_hop_past_two_pawns_bends_around_them() -> None:
    # b1 knight to c3 with pawns on b2 and c2: the straight line passes 0.89 pitch from them.
    start, goal, pawns = (7, 3), (9, 7), [(7, 5), (9, 5)]
    assert not FINDER.is_clear(start, goal, pawns)
    path = FINDER.find(start, goal, pawns)
    assert path is not None and path[0] == start and path[-1] == goal
    assert min_clearance(path, pawns) >= 1 - 1e-9
    assert path_length(path) < 5.0  # an 8-connected detour would be longer


def test_mid_segment_approach_counts() -> None:
    # endpoints far from the obstacle, the middle of the segment passes right over it
    assert not FINDER.is_clear((1, 5), (9, 5), [(5, 5)])
    assert not FINDER.is_clear((1, 5), (9, 6), [(5, 5)])
    assert FINDER.is_clear((1, 4), (9, 4), [(5, 5)])  # exactly one pitch away is allowed


def test_occupied_goal_or_walled_in_has_no_path() -> None:
    assert FINDER.find((1, 1), (5, 5), [(5, 5)]) is None
    wall = [(x, 10) for x in range(0, 25)]
    assert FINDER.find((5, 3), (5, 17), wall) is None


def test_collinear_vertices_are_merged() -> None:
    assert merge_collinear([(0, 0), (1, 1), (2, 2), (2, 4), (2, 6)]) == ((0, 0), (2, 2), (2, 6))


@st.composite
def scenes(draw: st.DrawFn) -> tuple[Node, Node, list[Node]]:
    cells = draw(st.lists(st.sampled_from(CENTRES), min_size=2, max_size=45, unique=True))
    return cells[0], cells[1], cells[2:]


@settings(max_examples=150, deadline=None)
@given(scenes())
def test_paths_keep_clearance_and_exist_when_pieces_stand_on_centres(
    scene: tuple[Node, Node, list[Node]],
) -> None:
    start, goal, obstacles = scene
    path = FINDER.find(start, goal, obstacles)
    # With every piece on a square centre the lines between squares are always free: a path exists.
    assert path is not None
    assert path[0] == start and path[-1] == goal
    assert min_clearance(path, obstacles) >= 1 - 1e-6
    assert path_length(path) >= math.dist(start, goal) - 1e-9
    # any-angle: never longer than the best 4-connected route along the lines between squares
    manhattan_lanes = abs(start[0] - goal[0]) + abs(start[1] - goal[1]) + 2
    assert path_length(path) <= manhattan_lanes + 1e-9


def test_segment_distance_matches_brute_force() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        a, b = rng.uniform(0, 20, 2), rng.uniform(0, 20, 2)
        points = rng.uniform(0, 20, (5, 2))
        fast = segment_distance_sq(a, b, points)
        for point, d2 in zip(points, fast, strict=True):
            brute = min(np.sum((a + t * (b - a) - point) ** 2) for t in np.linspace(0, 1, 2001))
            assert d2 <= brute + 1e-9 and d2 >= brute - 0.01
