"""The robot end to end on the simulator: planner -> G-code -> GRBL link -> simulated GRBL -> twin ->
simulated sensors -> verification."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator

import chess
import pytest

from chessatron.errors import GrblAlarm, GrblError, GrblLockedError
from chessatron.gantry.robot import Robot
from chessatron.grbl.link import GrblLink
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Planner
from chessatron.planning.table import Table
from chessatron.sensors import open_sensor
from chessatron.sim.grbl import SimFaults, SimGrbl
from chessatron.sim.world import SimWorld, forget_world, register_world

from .conftest import shared_games

LAYOUT = Layout.default()


WorldFactory = Callable[[Table], SimWorld]


@pytest.fixture
def world(request: pytest.FixtureRequest) -> Iterator[WorldFactory]:
    """A simulated world of its own for each test, starting from the test's table."""
    name = f"robot-{request.node.name}".replace("[", "-").replace("]", "").replace("&", "-").replace("=", "-")

    def make(table: Table) -> SimWorld:
        return register_world(SimWorld(LAYOUT, table, name=name))

    yield make
    forget_world(name)


def connect(world: SimWorld, faults: str = "") -> GrblLink:
    link = GrblLink(f"sim://{world.name}?speed=max&homing=0{faults}", layout=LAYOUT)
    link.open()
    link.connect()
    return link


def twin_agrees(world: SimWorld, table: Table) -> bool:
    pieces = world.twin.pieces
    return all(math.dist(LAYOUT.node_mm(table.node_of(p.id)), pieces[p.id].xy) < 0.01 for p in table)


def test_an_engine_game_runs_through_the_link_and_the_sensors_agree(world: WorldFactory) -> None:
    name, game = shared_games()[0]
    board = game.board()
    table = Table.from_board(LAYOUT, board)
    planner = Planner(LAYOUT)
    sim = world(table)
    with connect(sim) as link, open_sensor(f"sim://{sim.name}", LAYOUT, world=sim) as sensors:
        robot = Robot(LAYOUT, link, table, sensors=sensors)
        for number, move in enumerate(list(game.mainline_moves())[:40], start=1):
            plan = planner.plan_move(table, board, move, at=robot.writer.position)
            execution = robot.execute(plan, f"MOVE {number} {board.uci(move)}")
            assert execution.ok, (name, number, execution.problems())
            board.push(move)
            table.check_matches(board)
    assert twin_agrees(sim, table)
    assert not sim.twin.violations


def test_a_piece_that_slips_off_the_magnet_is_named(world: WorldFactory) -> None:
    board = chess.Board()
    table = Table.from_board(LAYOUT, board)
    sim = world(table)
    with connect(sim) as link, open_sensor(f"sim://{sim.name}", LAYOUT, world=sim) as sensors:
        robot = Robot(LAYOUT, link, table, sensors=sensors)
        sim.twin.slip()
        plan = Planner(LAYOUT).plan_move(table, board, chess.Move.from_uci("g1f3"))
        execution = robot.execute(plan, "MOVE 1 g1f3")
    assert not execution.ok and execution.check is not None
    (message,) = execution.check.messages()
    assert "wN2" in message and "f3" in message and "g1" in message


@pytest.mark.parametrize("fault", ["&error_line=30", "&alarm_line=30", "&pull_cable_line=30"])
def test_after_a_fault_the_table_knows_which_relocations_finished(world: WorldFactory, fault: str) -> None:
    # a capture-heavy opening: several relocations per move, the fault lands inside one of them
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3")
    table = Table.from_board(LAYOUT, board)
    planner = Planner(LAYOUT)
    sim = world(table)
    with connect(sim, fault) as link, open_sensor(f"sim://{sim.name}", LAYOUT, world=sim) as sensors:
        robot = Robot(LAYOUT, link, table, sensors=sensors)
        stopped = None
        for uci in ["e5d4", "f3d4", "c6d4", "d1d4", "g8f6", "e4e5"]:
            move = chess.Move.from_uci(uci)
            plan = planner.plan_move(table, board, move, at=robot.writer.position)
            execution = robot.execute(plan, uci)
            if not execution.ok:
                stopped = execution
                break
            board.push(move)
    assert stopped is not None, "the fault never fired"
    assert stopped.completed < len(stopped.plan.relocations) or stopped.stream.error is not None
    assert not sim.twin.magnet_on  # nothing left hanging on the magnet
    # every piece is where the physical state says, except the one whose drag was cut short, which lies
    # on its path: the robot names it
    interrupted = stopped.interrupted
    skip = {interrupted.piece.id} if interrupted else set()
    pieces = sim.twin.pieces
    for piece in table:
        if piece.id not in skip:
            assert math.dist(LAYOUT.node_mm(table.node_of(piece.id)), pieces[piece.id].xy) < 0.01, piece
    if interrupted is not None:
        points = [LAYOUT.node_mm(n) for n in interrupted.path]
        where = pieces[interrupted.piece.id].xy
        assert min(_distance_to_segment(where, a, b) for a, b in itertools.pairwise(points)) < 0.01


def _distance_to_segment(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length))
    return math.dist(p, (a[0] + t * dx, a[1] + t * dy))


def test_an_error_inside_a_drag_leaves_the_piece_where_the_report_says(world: WorldFactory) -> None:
    board = chess.Board()
    table = Table.from_board(LAYOUT, board)
    sim = world(table)
    plan = Planner(LAYOUT).plan_move(table, board, chess.Move.from_uci("g1f3"))
    (relocation,) = plan.relocations
    assert len(relocation.path) == 4  # g1, a corner, an edge, f3: three drag lines
    # lines sent: G0 to g1, M3, the settle dwell, drag line 1, drag line 2 (refused), drag line 3, M5...
    with (
        connect(sim, "&error_line=5&error_code=20") as link,
        open_sensor(f"sim://{sim.name}", LAYOUT, world=sim) as sensors,
    ):
        execution = Robot(LAYOUT, link, table, sensors=sensors).execute(plan, "MOVE 1 g1f3")
    assert not execution.ok and isinstance(execution.stream.error, GrblError)
    # the machine did what the report says: GRBL never had the third drag line, so the piece stopped at
    # the end of the first and was let go there
    assert execution.stranded is not None and execution.stranded.node == relocation.path[1]
    assert table.node_of(relocation.piece.id) == relocation.path[1]
    assert twin_agrees(sim, table) and not sim.twin.magnet_on
    problems = " ".join(execution.problems())
    assert "error:20" in problems
    assert "set down where f1, f2, g1 and g2 meet (X416.4 Y111.6)" in problems
    assert "put it back on g1" in problems
    assert execution.check is not None and execution.check.ok  # the sensors agree: g1 empty


@pytest.mark.parametrize("homing", [True, False])
def test_after_an_alarm_the_robot_homes_before_it_moves_again(world: WorldFactory, homing: bool) -> None:
    board = chess.Board()
    table = Table.from_board(LAYOUT, board)
    planner = Planner(LAYOUT)
    sim = world(table)
    grbl = SimGrbl(sim, speed=None, homing=homing)
    with GrblLink.over(grbl, layout=LAYOUT) as link:
        link.connect()
        link.ready()
        robot = Robot(LAYOUT, link, table)
        first = planner.plan_move(table, board, chess.Move.from_uci("e2e4"))
        assert robot.execute(first, "MOVE 1 e2e4").ok
        board.push_uci("e2e4")
        # a limit switch as the next move's travel starts: stopped, locked
        sent = sum(1 for line in grbl.received if line and not line.startswith("$"))
        grbl.inject(SimFaults(alarm_line=sent + 1))
        second = planner.plan_move(table, board, chess.Move.from_uci("e7e5"))
        stopped = robot.execute(second, "MOVE 2 e7e5")
        assert isinstance(stopped.stream.error, GrblAlarm) and link.is_locked
        again = planner.plan_move(table, board, chess.Move.from_uci("e7e5"), at=robot.writer.position)
        if not homing:
            with pytest.raises(GrblLockedError, match="push the magnet to home_mm"):
                robot.execute(again, "MOVE 2 e7e5")
            return
        assert robot.execute(again, "MOVE 2 e7e5").ok
    board.push_uci("e7e5")
    table.check_matches(board)
    assert grbl.received.count("$H") == 2  # at connect (locked since power-up), and after the alarm
    assert twin_agrees(sim, table)
