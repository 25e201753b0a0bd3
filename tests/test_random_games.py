"""Property: random legal games — standard and Chess960, every kind of promotion — run clean in the twin.

The suite plays a hundred and twenty (so that ``make test`` keeps within its ten minutes); ``make soak``
(CHESSATRON_SOAK_GAMES=2000) plays thousands.
"""

from __future__ import annotations

import os
import random

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessatron.errors import NoSparePieceError
from chessatron.planning.layout import Layout
from chessatron.sim.simulate import TableSimulator

GAMES = int(os.environ.get("CHESSATRON_SOAK_GAMES", "60"))
LAYOUT = Layout.default()


def random_move(rng: random.Random, sim: TableSimulator) -> chess.Move | None:
    """A random legal move, weighted towards pawn pushes and captures so promotions happen often;
    promotions pick a random piece among those the table still has off the board."""
    board = sim.board
    moves = list(board.legal_moves)
    weights = []
    for move in moves:
        weight = 1.0
        if board.piece_type_at(move.from_square) == chess.PAWN:
            weight += 3.0
        if board.is_capture(move):
            weight += 2.0
        if board.is_castling(move):
            weight += 4.0
        weights.append(weight)
    while moves:
        move = rng.choices(moves, weights)[0]
        index = moves.index(move)
        del moves[index], weights[index]
        if move.promotion is None:
            return move
        try:
            sim.table.spares(chess.Piece(move.promotion, board.turn).symbol())
        except NoSparePieceError:
            continue
        return move
    return None


#: The games are played in this many shares, so that the suite's workers share them out.
SHARES = 4


@pytest.mark.parametrize("share", range(SHARES))
@settings(max_examples=GAMES // SHARES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), chess960=st.booleans(), plies=st.integers(20, 160))
def test_random_games_run_clean(share: int, seed: int, chess960: bool, plies: int) -> None:
    rng = random.Random(seed * SHARES + share)  # (each share its own games, even when derandomized)
    board = chess.Board.from_chess960_pos(rng.randrange(960)) if chess960 else chess.Board()
    sim = TableSimulator(LAYOUT, board)
    start_inventory = sim.table.inventory()
    for _ in range(plies):
        if sim.board.is_game_over():
            break
        move = random_move(rng, sim)
        if move is None:
            break
        # the tidying after each reply in one game in eight: its planning is the costly part, and
        # tests/test_tidy.py and the engine games' tests run it throughout
        ply = sim.play(move, tidy=seed % 8 == 0)
        assert ply.violations == (), (seed, sim.board.fen(), [v.message for v in ply.violations])
        sim.table.check_matches(sim.board)
    assert sim.table.inventory() == start_inventory
    assert not sim.twin.magnet_on


def test_random_games_reach_every_promotion() -> None:
    """The generator above really exercises every promotion piece, capture-promotions included."""
    seen: set[int] = set()
    capture_promotions = 0
    for seed in range(12):
        rng = random.Random(seed)
        sim = TableSimulator(LAYOUT, chess.Board())
        for _ in range(160):
            move = None if sim.board.is_game_over() else random_move(rng, sim)
            if move is None:
                break
            if move.promotion:
                seen.add(move.promotion)
                capture_promotions += sim.board.is_capture(move)
            assert sim.play(move, tidy=seed % 4 == 0).violations == ()
    assert seen == {chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT}
    assert capture_promotions > 0
