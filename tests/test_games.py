"""Whole games on the simulated table: every engine game in tests/data/games and every Chess960 castling."""

from __future__ import annotations

import chess
import chess.pgn
import pytest

from chessatron.planning.layout import Layout
from chessatron.sim.simulate import TableSimulator, game_moves, simulate_game

from .conftest import shared_games

GAMES = shared_games()


@pytest.mark.parametrize(("name", "game"), GAMES, ids=[name for name, _ in GAMES])
def test_engine_game_runs_clean_and_ends_in_the_final_position(
    layout: Layout, name: str, game: chess.pgn.Game
) -> None:
    board, moves = game_moves(game)
    sim, run = simulate_game(layout, board, moves)
    assert [v.message for v in run.violations] == []
    final = game.end().board()
    sim.table.check_matches(final)
    assert len(run.plies) == len(moves)
    # nothing appeared or vanished: the twin holds the same pieces it started with
    assert sorted(p.symbol for p in sim.twin.pieces.values()) == sorted(p.symbol for p in sim.start_table)
    assert not sim.twin.magnet_on


def test_shared_games_cover_both_variants() -> None:
    variants = {game.headers.get("Variant", "Standard") for _, game in GAMES}
    assert {"Standard", "Chess960"} <= variants or "Chess960" in variants


def _castling_board(number: int, colour: chess.Color, kingside: bool) -> chess.Board:
    """Start position ``number`` with only the king and the castling rook left on ``colour``'s back rank."""
    board = chess.Board.from_chess960_pos(number)
    rank = 0 if colour == chess.WHITE else 7
    king_file = chess.square_file(board.king(colour) or 0)
    rooks = sorted(chess.square_file(s) for s in board.pieces(chess.ROOK, colour))
    keep = {king_file, rooks[-1] if kingside else rooks[0]}
    for file in range(8):
        if file not in keep:
            board.remove_piece_at(chess.square(file, rank))
    board.turn = colour
    board.castling_rights = board.clean_castling_rights()
    return board


@pytest.mark.parametrize("block", range(8))
def test_both_castlings_in_every_chess960_start(layout: Layout, block: int) -> None:
    failures = []
    for number in range(block * 120, (block + 1) * 120):
        for colour in chess.COLORS:
            for kingside in (True, False):
                board = _castling_board(number, colour, kingside)
                (move,) = [
                    m
                    for m in board.legal_moves
                    if board.is_castling(m) and board.is_kingside_castling(m) == kingside
                ]
                sim = TableSimulator(layout, board)
                ply = sim.play(move)
                after = board.copy()
                after.push(move)
                sim.table.check_matches(after)
                if ply.violations:
                    failures.append((number, board.uci(move), [v.message for v in ply.violations]))
    assert failures == []
