"""Every kind of chess move, carried out on the simulated table and checked in the twin."""

from __future__ import annotations

import chess
import pytest

from chessatron.errors import IllegalMoveError, NoSparePieceError
from chessatron.game.ponder.model import AHEAD_FREE_S
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Planner, castling_squares
from chessatron.planning.table import PhysicalPiece, Table
from chessatron.sim.simulate import Ply, TableSimulator


def play(layout: Layout, fen: str, *ucis: str, chess960: bool = False) -> tuple[TableSimulator, list[Ply]]:
    sim = TableSimulator(layout, chess.Board(fen, chess960=chess960))
    plies = []
    for uci in ucis:
        ply = sim.play(chess.Move.from_uci(uci))
        assert ply.violations == (), [v.message for v in ply.violations]
        plies.append(ply)
    return sim, plies


def purposes(ply: Ply) -> list[str]:
    return [r.purpose for r in ply.plan.relocations]


def test_quiet_move_is_one_straight_drag(layout: Layout) -> None:
    _, (ply,) = play(layout, chess.STARTING_FEN, "e2e4")
    (relocation,) = ply.plan.relocations
    assert relocation.path == (layout.square_node(chess.E2), layout.square_node(chess.E4))


def test_capture_sends_the_victim_to_its_zone_first(layout: Layout) -> None:
    sim, (_, _, ply) = play(layout, chess.STARTING_FEN, "e2e4", "d7d5", "e4d5")
    assert purposes(ply) == ["capture", "move"]
    victim = ply.plan.relocations[0].piece
    assert victim.symbol == "p" and sim.table.place_of(victim.id) == "capture"
    assert layout.node_cell(sim.table.node_of(victim.id)) in layout.capture_cells[chess.BLACK]


def test_a_captured_piece_waits_near_where_the_reset_needs_it(layout: Layout) -> None:
    """A white pawn taken on e4 is parked below the board during the reply, then tidied to the cell of
    White's zone beside rank 2, where the reset will need it, not to the zone's cell nearest where it was
    parked: the reset after the game, which a person waits for, gets shorter (the tidying is done on the
    person's time)."""
    fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2"
    near, later = TableSimulator(layout, chess.Board(fen)), TableSimulator(layout, chess.Board(fen))
    near.planner.reset_weight = 0.0
    plies = {sim: sim.play(chess.Move.from_uci("d5e4")) for sim in (near, later)}
    rows = {}
    for sim, ply in plies.items():
        assert ply.violations == ()
        victim = ply.plan.relocations[0].piece
        assert ply.tidy is not None and {r.piece for r in ply.tidy.relocations} == {victim}
        cell = layout.node_cell(sim.table.node_of(victim.id))
        assert cell in layout.capture_cells[chess.WHITE]
        rows[sim] = cell[1]
    home_row = layout.board_cell[1] + 1  # rank 2
    assert abs(rows[later] - home_row) < abs(rows[near] - home_row)
    resets = {sim: sim.set_up(chess.Board()) for sim in (near, later)}
    assert all(reset.violations == () for reset in resets.values())
    assert resets[later].seconds < resets[near].seconds


def test_en_passant_victim_stands_on_the_movers_rank(layout: Layout) -> None:
    sim, plies = play(layout, chess.STARTING_FEN, "e2e4", "a7a6", "e4e5", "d7d5", "e5d6")
    ply = plies[-1]
    victim = next(r for r in ply.plan.relocations if r.purpose == "capture")
    assert victim.start == layout.square_node(chess.D5)
    assert sim.table.piece_at(layout.square_node(chess.D5)) is None


@pytest.mark.parametrize("promotion", ["q", "r", "b", "n"])
def test_promotion_brings_in_a_spare_of_the_chosen_type(layout: Layout, promotion: str) -> None:
    sim, (ply,) = play(layout, "8/4P3/8/8/8/8/k7/4K3 w - - 0 1", f"e7e8{promotion}")
    assert sorted(purposes(ply)) == ["promote-in", "promote-out"]
    arrived = sim.table.piece_at(layout.square_node(chess.E8))
    assert arrived is not None and arrived.symbol == promotion.upper()
    pawn = next(r.piece for r in ply.plan.relocations if r.purpose == "promote-out")
    assert sim.table.place_of(pawn.id) == "capture"


def test_capture_promotion_clears_the_square_before_the_spare_arrives(layout: Layout) -> None:
    _, (ply,) = play(layout, "3r4/4P3/8/8/8/8/k7/4K3 w - - 0 1", "e7d8q")
    order = purposes(ply)
    assert order.index("capture") < order.index("promote-in")


def test_a_promotion_planned_while_the_person_thinks_is_the_shorter_one_to_wait_for(layout: Layout) -> None:
    """The spare far away in its reserve, the pawn on h7: coming in first, the spare lets the pawn go
    straight out past it, more than a second sooner than the other way round. Planned from the pawn
    with no time to travel, the reply starts there; planned ahead (the magnet goes to the spare while
    the person thinks) it starts at the spare, and from there it is the same plan, and shorter."""
    board = chess.Board("1k6/7P/8/8/8/8/8/K7 w - - 0 1")
    table, move, planner = Table.from_board(layout, board), chess.Move.from_uci("h7h8q"), Planner(layout)
    at_pawn = layout.node_mm(layout.square_node(chess.H7))
    now = planner.plan_reply(table, board, move, at=at_pawn)
    ahead = planner.plan_reply(table, board, move, at=at_pawn, free_s=AHEAD_FREE_S)
    assert [r.purpose for r in now.relocations] == ["promote-out", "promote-in"]
    assert [r.purpose for r in ahead.relocations] == ["promote-in", "promote-out"]
    assert now.seconds < ahead.seconds  # from the pawn, with no time to travel, the pawn goes first
    at_spare = layout.node_mm(ahead.relocations[0].start)
    there = planner.plan_reply(table, board, move, at=at_spare)
    assert there.relocations == ahead.relocations
    assert there.seconds < now.seconds - 1.0


def test_reserve_used_up_takes_a_captured_piece(layout: Layout) -> None:
    # All three white queens on the board (both spares used); black takes one, then white promotes:
    # the queen comes back from the capture zone.
    sim, (capture, promotion) = play(layout, "6k1/4P3/8/8/8/8/1r6/QQQ1K3 b - - 0 1", "b2b1", "e7e8q")
    taken = next(r.piece for r in capture.plan.relocations if r.purpose == "capture")
    incoming = next(r for r in promotion.plan.relocations if r.purpose == "promote-in")
    assert incoming.piece == taken
    assert sim.table.piece_at(layout.square_node(chess.E8)) == taken


def test_no_piece_left_for_a_promotion_is_a_clear_error(layout: Layout) -> None:
    board = chess.Board("k7/4P3/8/8/8/8/8/QQQ1K3 w - - 0 1")
    sim = TableSimulator(layout, board)
    with pytest.raises(NoSparePieceError, match="spare queen"):
        sim.play(chess.Move.from_uci("e7e8q"))


def test_illegal_move_is_refused(layout: Layout) -> None:
    table = Table.from_board(layout, chess.Board())
    with pytest.raises(IllegalMoveError, match="e2e5"):
        Planner(layout).plan_move(table, chess.Board(), chess.Move.from_uci("e2e5"))


@pytest.mark.parametrize(
    ("fen", "uci", "case"),
    [
        ("4k3/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQ - 0 1", "e1g1", "standard kingside"),
        ("4k3/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQ - 0 1", "e1c1", "standard queenside"),
        ("1k6/pppppppp/8/8/8/8/PPPPPPPP/6KR w H - 0 1", "g1h1", "king already on its target"),
        ("1k6/pppppppp/8/8/8/8/PPPPPPPP/R1K5 w A - 0 1", "c1a1", "king already on its target, queenside"),
        (
            "1k6/pppppppp/8/8/8/8/PPPPPPPP/4KR2 w F - 0 1",
            "e1f1",
            "rook already on its target, king passes it",
        ),
        ("1k6/pppppppp/8/8/8/8/PPPPPPPP/5KR1 w G - 0 1", "f1g1", "king and rook swap"),
        ("1k6/pppppppp/8/8/8/8/PPPPPPPP/2RK4 w C - 0 1", "d1c1", "king and rook swap, queenside"),
        ("1k6/pppppppp/8/8/8/8/PPPPPPPP/1KR5 w C - 0 1", "b1c1", "king's path through the rook's square"),
        ("1k6/pppppppp/8/8/8/8/PPPPPPPP/1R4K1 w B - 0 1", "g1b1", "rook crosses to the far side"),
        ("1r4k1/pppppppp/8/8/8/8/PPPPPPPP/4K3 b b - 0 1", "g8b8", "black, long way"),
    ],
)
def test_every_kind_of_castling(layout: Layout, fen: str, uci: str, case: str) -> None:
    chess960 = not case.startswith("standard")
    board = chess.Board(fen, chess960=chess960)
    move = chess.Move.from_uci(uci)
    assert board.is_castling(move), case
    sim, (ply,) = play(layout, fen, uci, chess960=chess960)
    king_from, king_to, rook_from, rook_to = castling_squares(board, move)
    assert sim.table.piece_at(layout.square_node(king_to)) is not None
    moved = {r.piece.id for r in ply.plan.relocations}
    if king_from == king_to or rook_from == rook_to:
        assert len(moved) == 1, f"{case}: the piece already on its target stays"
    if case.startswith("king and rook swap"):
        assert "park" in purposes(ply)


def test_the_plan_predicts_the_twins_time(layout: Layout) -> None:
    _, plies = play(layout, chess.STARTING_FEN, "g1f3", "d7d5", "b1c3", "d5d4", "c3e4")
    for ply in plies:
        assert ply.seconds == pytest.approx(ply.plan.seconds, rel=1e-6, abs=1e-6)


def test_order_is_the_fastest(layout: Layout) -> None:
    # En passant: victim and mover can go in either order; the plan takes the faster one.
    board = chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    table = Table.from_board(layout, board)
    planner = Planner(layout)
    move = chess.Move.from_uci("e5d6")
    plan = planner.plan_move(table, board, move)
    victim, mover = table.piece_at(layout.square_node(chess.D5)), table.piece_at(layout.square_node(chess.E5))
    assert isinstance(victim, PhysicalPiece) and isinstance(mover, PhysicalPiece)
    cell = layout.node_cell(next(r.goal for r in plan.relocations if r.purpose == "capture"))
    assert cell is not None
    from chessatron.planning.planner import Task

    both_orders = [
        [
            Task(victim.id, layout.cell_node(cell), "capture"),
            Task(mover.id, layout.square_node(chess.D6), "move"),
        ]
    ]
    for order in ([0, 1], [1, 0]):
        tasks = [both_orders[0][i] for i in order]
        fixed = planner._try(table, tasks, layout.home_mm, None)
        assert fixed is not None and plan.seconds <= fixed.seconds + 1e-9


def test_blocker_is_moved_aside_and_back_when_nothing_else_works(layout: Layout) -> None:
    # A ring of pieces stands on the nodes around a1 (off the square centres), walling it in; the rook
    # on a1 can only leave if one of them makes way.
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    table = Table.from_board(layout, board)
    a1 = layout.square_node(chess.A1)
    ring = [(a1[0] + dx, a1[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
    walls = [p for p in table if table.place_of(p.id) == "capture"][: len(ring)]
    for piece, node in zip(walls, ring, strict=True):
        table.relocate(piece.id, node)
    planner = Planner(layout)
    rook = table.piece_at(a1)
    assert rook is not None
    steps = planner.drag(table, rook.id, layout.square_node(chess.A4), "move")
    assert steps is not None
    assert [s.purpose for s in steps] == ["aside", "move", "back"]
    assert steps[0].piece == steps[2].piece and steps[2].goal == steps[0].start


def test_captured_pieces_use_their_zone_not_a_spares_slot(layout: Layout) -> None:
    # White has used a spare queen, so a queen slot in the reserve stands empty and nearer than the
    # zone's free cells; the captured pawn still ends up in the capture zone (parked, then tidied).
    sim, (ply,) = play(layout, "k7/8/8/8/8/1p6/P7/QQ2K3 b - - 0 1", "b3a2")
    (capture,) = [r for r in ply.plan.relocations if r.purpose == "capture"]
    assert layout.cell_kind(layout.node_cell(capture.goal) or (0, 0)) != "reserve"
    assert layout.node_cell(sim.table.node_of(capture.piece.id)) in layout.capture_cells[chess.WHITE]


def test_a_capture_with_its_zone_full_parks_the_victim_beside_the_board(layout: Layout) -> None:
    """Black pieces the robot parked in White's zone have filled it: a white piece captured (by a person's
    hand: no reply's parking) still has a place beside the board instead of stopping the game."""
    board = chess.Board("4r2k/8/8/8/8/8/8/4R1K1 b - - 0 1")
    table = Table.from_board(layout, board)
    black_off_board = [p for p in table if p.color == chess.BLACK and table.place_of(p.id) == "capture"]
    for cell in layout.capture_cells[chess.WHITE]:
        if table.piece_at(layout.cell_node(cell)) is None:
            table.relocate(black_off_board.pop().id, layout.cell_node(cell))
    rook = table.piece_at(layout.square_node(chess.E1))
    assert rook is not None
    plan = Planner(layout).plan_move(table, board, chess.Move.from_uci("e8e1"))
    plan.apply(table)
    where = layout.node_cell(table.node_of(rook.id))
    assert where is not None and layout.cell_kind(where) != "board" and table.is_parked(rook.id)
