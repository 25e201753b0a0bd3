from __future__ import annotations

import chess
import pytest

from chessatron.errors import NoSparePieceError, StateError
from chessatron.planning.layout import Layout
from chessatron.planning.table import Table


def test_start_position_has_every_piece_and_the_spares(layout: Layout) -> None:
    table = Table.from_board(layout, chess.Board())
    assert len(table) == 42
    table.check_matches(chess.Board())
    assert sum(1 for p in table if table.place_of(p.id) == "reserve") == 10
    assert table.inventory()["Q"] == 3 and table.inventory()["p"] == 8


def test_position_with_captures_puts_the_rest_in_the_zones(layout: Layout) -> None:
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    table = Table.from_board(layout, board)
    table.check_matches(board)
    assert len(table) == 42
    white_captured = [p for p in table if p.color and table.place_of(p.id) == "capture"]
    assert len(white_captured) == 14


def test_promoted_position_uses_spares(layout: Layout) -> None:
    board = chess.Board("QQQ1k3/8/8/8/8/8/8/4K3 w - - 0 1")
    table = Table.from_board(layout, board)
    table.check_matches(board)
    queens = [p for p in table if p.symbol == "Q"]
    assert len(queens) == 3 and all(table.place_of(q.id) == "board" for q in queens)
    with pytest.raises(NoSparePieceError, match="spare queen"):
        table.spares("Q")


def test_position_needing_too_many_queens_is_refused(layout: Layout) -> None:
    board = chess.Board("QQQQ1k2/8/8/8/8/8/8/4K3 w - - 0 1")
    with pytest.raises(NoSparePieceError, match="queens"):
        Table.from_board(layout, board)


def test_relocate_refuses_an_occupied_node(layout: Layout) -> None:
    table = Table.from_board(layout, chess.Board())
    king = table.piece_at(layout.square_node(chess.E1))
    assert king is not None
    with pytest.raises(StateError, match="stands there"):
        table.relocate(king.id, layout.square_node(chess.D1))


def test_mismatch_with_the_game_is_reported(layout: Layout) -> None:
    table = Table.from_board(layout, chess.Board())
    board = chess.Board()
    board.push_san("e4")
    with pytest.raises(StateError, match="the table shows"):
        table.check_matches(board)
