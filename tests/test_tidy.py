"""The move stands first: the robot's reply parks what leaves the board nearby, the tidying takes it on to
its zone later (off the board, in small steps), and the program says which is which."""

from __future__ import annotations

import itertools
from pathlib import Path

import chess
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Planner
from chessatron.planning.reset import ResetPlanner
from chessatron.planning.table import Table
from chessatron.planning.tidy import LEG_S, next_tidy, off_board_route, plan_tidy
from chessatron.sim.simulate import TableSimulator


def board_area(layout: Layout) -> tuple[float, float, float, float]:
    """The board's outer edge lines in nodes (a piece on them is beside the board, not on it)."""
    a1, h8 = layout.square_node(chess.A1), layout.square_node(chess.H8)
    return a1[0] - 1, h8[0] + 1, a1[1] - 1, h8[1] + 1


def crosses_the_board(layout: Layout, path: tuple[tuple[int, int], ...]) -> bool:
    x0, x1, y0, y1 = board_area(layout)
    steps = 20
    for a, b in itertools.pairwise(path):
        for k in range(steps + 1):
            x = a[0] + (b[0] - a[0]) * k / steps
            y = a[1] + (b[1] - a[1]) * k / steps
            if x0 < x < x1 and y0 < y < y1:
                return True
    return False


# A white rook on h4, taken by Black's queen: White's zone lies beyond the a-file, eight squares away.
FAR_FROM_ITS_ZONE = "3qk3/8/8/8/7R/8/8/4K3 b - - 0 1", "d8h4"


def test_a_reply_parks_a_victim_near_the_board_where_a_persons_move_puts_it_in_its_zone(
    layout: Layout,
) -> None:
    fen, uci = FAR_FROM_ITS_ZONE
    board, move = chess.Board(fen), chess.Move.from_uci(uci)
    planner, table = Planner(layout), Table.from_board(layout, board)
    reply, placed = planner.plan_reply(table, board, move), planner.plan_move(table, board, move)
    parked, zoned = reply.relocations[0], placed.relocations[0]
    assert parked.purpose == zoned.purpose == "capture" and parked.piece == zoned.piece
    assert layout.node_cell(zoned.goal) in layout.capture_cells[chess.WHITE]
    assert layout.node_cell(parked.goal) not in layout.capture_cells[chess.WHITE]
    after = table.copy()
    reply.apply(after)
    assert after.is_parked(parked.piece.id) and after.parked() == [parked.piece]
    assert reply.seconds < placed.seconds - 2.0  # the person waits for far less


def test_simulate_shows_the_tidying_after_the_move_and_the_victim_ends_in_its_zone(layout: Layout) -> None:
    fen, uci = FAR_FROM_ITS_ZONE
    board, move = chess.Board(fen), chess.Move.from_uci(uci)
    sim = TableSimulator(layout, board)
    ply = sim.play(move)
    assert ply.violations == ()
    assert ply.lines[0] == f"(MOVE 1 {move.uci()})" and ply.tidy_lines[0] == "(TIDY 1)"
    assert ply.tidy is not None and {r.purpose for r in ply.tidy.relocations} == {"tidy"}
    victim = ply.plan.relocations[0].piece
    assert not sim.table.parked()
    assert layout.node_cell(sim.table.node_of(victim.id)) in layout.capture_cells[chess.WHITE]
    assert ply.tidy_seconds > 0 and sim.compare_twin() == []


def test_tidying_goes_round_the_board_in_legs_a_person_barely_waits_for(layout: Layout) -> None:
    """A black knight parked beside White's zone goes to Black's, round the board and never across it,
    each leg ending on a free cell off the board, none much longer than LEG_S."""
    table = Table.from_board(layout, chess.Board())
    knight = table.piece_at(layout.square_node(chess.G8))
    assert knight is not None
    table.relocate(knight.id, layout.cell_node((1, 4)))  # White's zone, beside a4
    planner = Planner(layout)
    assert table.is_parked(knight.id)
    route = off_board_route(planner, table, knight.id, layout.cell_node((10, 8)))
    assert route is not None and not crosses_the_board(layout, route)
    legs = 0
    position = layout.home_mm
    while (step := next_tidy(planner, table, position)) is not None:
        (leg,) = step.relocations
        assert leg.purpose == "tidy" and not crosses_the_board(layout, leg.path)
        assert planner.timer.drag_s(leg.path) <= LEG_S + 1.5
        cell = layout.node_cell(leg.goal)
        assert cell is not None and layout.cell_kind(cell) not in ("board", "reserve")
        step.apply(table)
        position = step.end_mm
        legs += 1
        assert legs < 30
    assert legs >= 3 and not table.is_parked(knight.id)
    cell = layout.node_cell(table.node_of(knight.id))
    assert cell in layout.capture_cells[chess.BLACK]


def test_a_promotion_reply_parks_the_pawn_and_brings_the_spare_at_once(layout: Layout) -> None:
    board = chess.Board("8/6P1/8/8/8/8/k7/4K3 w - - 0 1")
    move = chess.Move.from_uci("g7g8q")
    planner, table = Planner(layout), Table.from_board(layout, board)
    reply, placed = planner.plan_reply(table, board, move), planner.plan_move(table, board, move)
    assert sorted(r.purpose for r in reply.relocations) == ["promote-in", "promote-out"]
    assert reply.seconds < placed.seconds
    sim = TableSimulator(layout, board)
    ply = sim.play(move)
    assert ply.violations == ()
    queen = sim.table.piece_at(layout.square_node(chess.G8))
    assert queen is not None and queen.symbol == "Q" and not sim.table.parked()


def test_nothing_to_tidy_on_a_table_set_up_for_a_game(layout: Layout) -> None:
    table = Table.from_board(layout, chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"))
    assert table.parked() == []
    assert next_tidy(Planner(layout), table) is None
    assert plan_tidy(Planner(layout), table).relocations == ()


def test_a_piece_far_from_where_the_reset_needs_it_moves_along_its_zone(layout: Layout) -> None:
    """A black pawn in Black's zone by rank 1 moves up the zone towards rank 7 while the person thinks:
    the reset after the game needs it there."""
    table = Table.from_board(layout, chess.Board())
    pawn = table.piece_at(layout.square_node(chess.A7))
    assert pawn is not None
    table.relocate(pawn.id, layout.cell_node((10, 3)))
    planner = Planner(layout)
    before = planner.reset_drag_s("p", (10, 3))
    plan = plan_tidy(planner, table)
    assert plan.relocations and not table.is_parked(pawn.id)
    after = layout.node_cell(table.node_of(pawn.id))
    assert after is not None and after in layout.capture_cells[chess.BLACK]
    assert planner.reset_drag_s("p", after) < before


def test_a_set_up_taken_up_again_keeps_its_drags_only_where_the_table_stands_as_they_left_it(
    layout: Layout,
) -> None:
    planner = Planner(layout)
    resetter = ResetPlanner(planner)
    final = TableSimulator(layout, chess.Board())
    for uci in ("e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a2"):
        final.play(chess.Move.from_uci(uci))
    target = chess.Board.from_chess960_pos(100)
    plan = resetter.plan(final.table, target)
    half = len(plan.relocations) // 2
    stopped = final.table.copy()
    for relocation in plan.relocations[:half]:
        stopped.relocate(relocation.piece.id, relocation.goal)
    rest = plan.relocations[half:]
    again = resetter.resume(stopped, target, rest)
    assert again.seconds <= resetter.plan(stopped, target).seconds + 1e-9
    # the table stands elsewhere (as delivered): the rest no longer fits, one plan goes straight from there
    delivered = Table.from_board(layout, chess.Board())
    fresh = resetter.resume(delivered, target, rest)
    assert fresh.relocations == resetter.plan(delivered, target).relocations
    arranged = delivered.copy()
    fresh.apply(arranged)
    assert arranged.board_fen() == target.board_fen()


def test_simulate_writes_tidy_comments_a_gcode_reader_skips(tmp_path: Path) -> None:
    game = tmp_path / "game.pgn"
    game.write_text('[Event "t"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qxa2 4. Rxa2 *\n', encoding="utf-8")
    gcode = tmp_path / "game.gcode"
    result = CliRunner().invoke(main, ["simulate", str(game), "--gcode-out", str(gcode)])
    assert result.exit_code == 0, result.output
    lines = gcode.read_text(encoding="utf-8").splitlines()
    titles = [line for line in lines if line.startswith(("(MOVE", "(TIDY"))]
    assert "(TIDY 3)" in titles and titles.index("(TIDY 3)") == titles.index("(MOVE 3 e4d5)") + 1
    from chessatron.planning.gcode_parse import parse_line

    assert parse_line("(TIDY 3)").is_blank
