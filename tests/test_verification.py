from __future__ import annotations

import chess

from chessatron.gantry.verification import check_table, expected_cells
from chessatron.planning.layout import Layout
from chessatron.sim.simulate import TableSimulator


def test_a_piece_that_did_not_follow_the_magnet_is_named_with_its_square() -> None:
    layout = Layout.default()
    sim = TableSimulator(layout, chess.Board())
    sim.play(chess.Move.from_uci("g1f3"))
    sensed = set(expected_cells(sim.table))
    # the knight stayed on g1: f3 reads empty, g1 reads occupied
    sensed.discard(layout.square_cell(chess.F3))
    sensed.add(layout.square_cell(chess.G1))
    check = check_table(sim.table, sensed)
    assert not check.ok
    (mismatch,) = check.mismatches
    assert mismatch.piece is not None and mismatch.piece.symbol == "N"
    assert "should be on f3" in mismatch.message and "g1" in mismatch.message


def test_capture_zone_and_reserve_are_checked_too() -> None:
    layout = Layout.default()
    sim = TableSimulator(layout, chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"))
    sensed = set(expected_cells(sim.table))
    queen_slot = next(s.cell for s in layout.reserve if s.symbol == "Q")
    sensed.discard(queen_slot)
    messages = check_table(sim.table, sensed).messages()
    assert len(messages) == 1 and f"c{queen_slot[0]}r{queen_slot[1]}" in messages[0]


def test_an_unexpected_piece_is_reported() -> None:
    layout = Layout.default()
    sim = TableSimulator(layout, chess.Board())
    sensed = set(expected_cells(sim.table)) | {layout.square_cell(chess.E4)}
    assert check_table(sim.table, sensed).messages() == ["a piece on e4 should not be there; remove it"]


def test_a_slipping_piece_in_the_twin_is_caught_by_the_sensors() -> None:
    layout = Layout.default()
    sim = TableSimulator(layout, chess.Board())
    sim.twin.slip()
    sim.play(chess.Move.from_uci("b1c3"))
    from chessatron.sim.world import SimWorld

    world = SimWorld(layout)
    world.twin = sim.twin
    check = check_table(sim.table, world.occupied_cells())
    assert [m.piece.id for m in check.mismatches if m.piece] == ["wN1"]
    assert "should be on c3" in check.messages()[0] and "b1" in check.messages()[0]
