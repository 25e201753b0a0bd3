"""A set-up's drags as a tour: never slower than the greedy order, every piece arriving on a free square,
interchangeable pieces trading goals; the time tables the tour weighs agree with the machine's time
model; drags around pieces take fewer corners where corners cost more than length."""

from __future__ import annotations

import dataclasses
import functools
import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.grbl.motion import MachineProfile, straight_time, straight_times
from chessatron.planning.layout import Layout, MachinePoint, Node
from chessatron.planning.paths import path_length
from chessatron.planning.planner import Planner
from chessatron.planning.reset import ResetPlanner, arrangement_problems
from chessatron.planning.table import PhysicalPiece, Table
from chessatron.planning.timing import Timer
from chessatron.planning.tour import Drag, plan_tour, tour_seconds
from chessatron.sim.simulate import TableSimulator, game_moves

from .conftest import shared_games
from .test_random_games import random_move

LAYOUT = Layout.default()
TIMER = Timer(LAYOUT)
Point = MachinePoint
CELLS = [LAYOUT.cell_node(cell) for cell in LAYOUT.cells()]


# --- the time tables ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "profile",
    [
        MachineProfile(),
        MachineProfile(
            kinematics="cartesian",
            max_rate_mm_min=(9000.0, 5000.0),
            acceleration_mm_s2=(500.0, 900.0),
            step_idle_delay_ms=25,
        ),
    ],
)
@pytest.mark.parametrize("feed", [None, 4000.0, 300.0])
def test_many_moves_at_once_take_what_each_takes_alone(profile: MachineProfile, feed: float | None) -> None:
    rng = random.Random(16)
    moves = [(rng.uniform(-600, 600), rng.uniform(-500, 500)) for _ in range(300)] + [(0.0, 0.0), (0.0, 25.4)]
    together = straight_times([dx for dx, _ in moves], [dy for _, dy in moves], feed, profile).tolist()
    for (dx, dy), seconds in zip(moves, together, strict=True):
        assert seconds == pytest.approx(straight_time((0.0, 0.0), (dx, dy), feed, profile), abs=1e-9)


def test_the_timers_tables_agree_with_its_moves() -> None:
    rng = random.Random(3)
    width, height = LAYOUT.node_extent
    for _ in range(300):
        a = (rng.randrange(width), rng.randrange(height))
        b = (rng.randrange(width), rng.randrange(height))
        assert TIMER.travel_between(a, b) == pytest.approx(
            TIMER.travel_s(LAYOUT.node_mm(a), LAYOUT.node_mm(b))
        )
        assert TIMER.straight_drag_between(a, b) == pytest.approx(TIMER.straight_drag_s(a, b))


# --- the tour -------------------------------------------------------------------------------------


#: Tables to set up again: after a whole engine game, and after random play (captures and promotions
#: galore), each towards the standard start or a Chess960 one.
CASES = [
    "engine game to 518",
    "engine game to 960 #77",
    "random 0 to 518",
    "random 1 to 960 #300",
    "random 2 to 518",
]


@functools.cache
def case(name: str) -> tuple[Table, chess.Board, chess.Board]:
    """The table, the game's board on it and the target of a case of :data:`CASES`."""
    source, target = name.split(" to ")
    goal = chess.Board() if target == "518" else chess.Board.from_chess960_pos(int(target.split("#")[1]))
    if source == "engine game":
        _, game = min(shared_games(), key=lambda named: len(list(named[1].mainline_moves())))
        board, moves = game_moves(game)
        sim = TableSimulator(LAYOUT, board)
        for move in moves:
            sim.play(move)
    else:
        rng = random.Random(int(source.split()[1]))
        sim = TableSimulator(LAYOUT, chess.Board())
        for _ in range(50):
            chosen = random_move(rng, sim)
            if chosen is None or sim.board.is_game_over():
                break
            sim.play(chosen)
    return sim.table.copy(), sim.board.copy(), goal


@pytest.mark.parametrize("name", CASES)
def test_the_reset_tour_is_never_longer_than_the_greedy_one(name: str) -> None:
    table, board, target = case(name)
    planner = Planner(LAYOUT)
    at = LAYOUT.node_mm(LAYOUT.square_node(chess.E4))
    greedy = ResetPlanner(planner)
    greedy.tour_budget_s = 0.0  # the greedy tour as it is built
    tour = ResetPlanner(planner)
    planned, built = tour.plan(table, target, at=at), greedy.plan(table, target, at=at)
    assert planned.seconds <= built.seconds + 1e-9
    # the twin runs it: no piece dragged into another, the arrangement as asked, the time as planned
    sim = TableSimulator(LAYOUT, board, table=table, start_mm=at)
    setup = sim.set_up(target)
    assert setup.violations == ()
    assert arrangement_problems(sim.table, target) == []
    assert setup.seconds == pytest.approx(setup.plan.seconds, rel=1e-6)


@pytest.mark.parametrize("name", CASES)
def test_the_restarted_search_never_sets_up_slower_and_plans_a_table_one_way(name: str) -> None:
    """The kicks of the iterated search weigh their tours on the table's real paths: the reset is never
    slower than the first descent's, and one table gets one plan (the kicks are counted, not timed)."""
    table, _, target = case(name)
    planner = Planner(LAYOUT)
    at = LAYOUT.node_mm(LAYOUT.square_node(chess.D5))
    once = ResetPlanner(planner)
    once.tour_kicks = 0
    kicked = ResetPlanner(planner)
    kicked.tour_budget_s = 30.0  # the kicks end by their count, not the clock, on a loaded machine too
    planned = kicked.plan(table, target, at=at)
    assert planned.seconds <= once.plan(table, target, at=at).seconds + 1e-9
    again = ResetPlanner(Planner(LAYOUT))
    again.tour_budget_s = 30.0
    assert again.plan(table, target, at=at).relocations == planned.relocations


@st.composite
def shuffles(draw: st.DrawFn) -> tuple[list[Drag], Point]:
    """Pieces of a few kinds on random cells, each to go to another piece's cell or a free one: chains
    and rings of pieces waiting on each other."""
    count = draw(st.integers(2, 14))
    nodes = draw(st.lists(st.sampled_from(CELLS), min_size=2 * count, max_size=2 * count, unique=True))
    starts, spare = nodes[:count], nodes[count:]
    goals = draw(st.permutations(starts[: count // 2] + spare[: count - count // 2]))
    symbols = draw(st.lists(st.sampled_from("PPNB"), min_size=count, max_size=count))
    drags = [
        Drag(f"x{i}", start, goal, symbol)
        for i, (start, goal, symbol) in enumerate(zip(starts, goals, symbols, strict=True))
        if start != goal
    ]
    at = LAYOUT.node_mm(draw(st.sampled_from(CELLS)))
    return drags, at


@settings(max_examples=60, deadline=None)
@given(shuffles())
def test_a_tour_brings_every_piece_to_a_free_goal_of_its_kind(
    problem: tuple[list[Drag], MachinePoint],
) -> None:
    drags, at = problem
    occupied = {d.start for d in drags}
    parks = [node for node in CELLS if node not in occupied and node not in {d.goal for d in drags}]
    tour = plan_tour(drags, at, TIMER, park_cells=parks)
    # the same goals, each taken by a piece of its kind (parks aside)
    final = [d for d in tour.drags if not d.parked]
    assert sorted(d.goal for d in final) == sorted(d.goal for d in drags)
    kinds = {d.goal: d.symbol for d in drags}
    assert all(kinds[d.goal] == d.symbol for d in final)
    assert sorted(d.piece for d in final) == sorted(d.piece for d in drags)
    # run in order, every piece starts where it stands and arrives on a free node
    where = {d.piece: d.start for d in drags}
    for item in tour.drags:
        assert where[item.piece] == item.start
        assert item.goal not in where.values()
        where[item.piece] = item.goal
    assert tour.seconds <= sum(tour_seconds(tour.greedy, at, TIMER)) + 1e-9


def test_interchangeable_pieces_trade_goals_when_both_go_a_shorter_way() -> None:
    far = [Drag("a", (5, 3), (19, 3), "P"), Drag("b", (19, 5), (5, 5), "P")]
    tour = plan_tour(far, LAYOUT.node_mm((5, 3)), TIMER)
    assert {(d.piece, d.goal) for d in tour.drags} == {("a", (5, 5)), ("b", (19, 3))}
    # a knight cannot take a pawn's square
    mixed = [Drag("a", (5, 3), (19, 3), "P"), Drag("b", (19, 5), (5, 5), "N")]
    tour = plan_tour(mixed, LAYOUT.node_mm((5, 3)), TIMER)
    assert {(d.piece, d.goal) for d in tour.drags} == {("a", (19, 3)), ("b", (5, 5))}


def test_a_piece_bound_for_its_zone_takes_the_free_cell_on_the_way() -> None:
    zone = "capture-black"
    # the piece goes to the zone's far cell; the next drag starts at the zone's near end
    drags = [
        Drag("q", (15, 9), (21, 19), "q", zone=zone, accepts=zone),
        Drag("p", (21, 3), (13, 15), "p", zone=zone),
    ]
    free = {zone: [(21, 5), (23, 5), (21, 17)]}
    tour = plan_tour(drags, LAYOUT.node_mm((15, 9)), TIMER, free_cells=free)
    assert [(d.piece, d.goal) for d in tour.drags] == [("q", (21, 5)), ("p", (13, 15))]


# --- fewer stops in a drag ------------------------------------------------------------------------


def test_on_a_slow_machine_a_drag_takes_fewer_corners_where_they_cost_more_than_length() -> None:
    slow = dataclasses.replace(
        LAYOUT, profile=dataclasses.replace(LAYOUT.profile, acceleration_mm_s2=(60.0, 60.0))
    )
    start, goal = (13, 19), (23, 11)
    others: list[Node] = [
        (15, 7),
        (15, 5),
        (3, 7),
        (19, 3),
        (17, 7),
        (5, 15),
        (17, 3),
        (21, 13),
        (23, 15),
        (7, 9),
        (7, 13),
        (3, 11),
        (1, 17),
        (13, 3),
        (23, 3),
        (21, 9),
        (3, 3),
        (9, 9),
        (21, 11),
        (11, 5),
        (3, 19),
        (1, 5),
        (7, 15),
        (11, 9),
        (11, 7),
        (23, 1),
        (1, 11),
        (15, 15),
    ]
    table = Table(
        slow,
        [(PhysicalPiece("m", "N"), start)] + [(PhysicalPiece(f"o{i}", "P"), n) for i, n in enumerate(others)],
    )
    planner = Planner(slow)
    shortest = planner.finder.find(start, goal, others)
    assert shortest is not None and len(shortest) == 4  # two corners
    (drag,) = planner.drag(table, "m", goal, "move") or []
    assert len(drag.path) < len(shortest) and path_length(drag.path) > path_length(shortest)
    assert planner.timer.drag_s(drag.path) < planner.timer.drag_s(shortest)
    # on the classic table's machine a corner costs a tenth of a pitch: the shortest path stays
    fast = Planner(LAYOUT)
    fast_table = Table(LAYOUT, [(p, table.node_of(p.id)) for p in table])
    (classic,) = fast.drag(fast_table, "m", goal, "move") or []
    assert classic.path == shortest
