"""``python -m bench.games``: more engine games for the recognition benchmark, beside tests/data/games.

Stockfish plays itself at weak skill levels (as the shared games were made: weak play captures and
castles often, in every geometry), standard chess from a few random first moves and Chess960 from starts
chosen so that every kind of castling can come up (king onto the rook's square, rook onto the king's,
king and rook swapping, one piece moving). The file it writes, ``bench/data/engine-more.pgn``, is kept
in the repository so that the benchmark's figures can be compared from one run to the next (Stockfish's
weak levels play at random).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from chessatron.sim.cases import castling_kind

OUT = Path(__file__).resolve().parent / "data" / "engine-more.pgn"
ENGINE = "/usr/games/stockfish"
MAX_PLIES = 160


def starts_by_castling(rng: random.Random, per_kind: int) -> list[int]:
    """Chess960 start numbers, ``per_kind`` for each kind of castling either side could make."""
    kinds: dict[str, list[int]] = {}
    for number in range(960):
        board = chess.Board.from_chess960_pos(number)
        king = board.king(chess.WHITE)
        assert king is not None
        for rook in chess.SquareSet(board.pieces_mask(chess.ROOK, chess.WHITE)):
            empty = board.copy()
            for square in chess.SquareSet(chess.BB_RANK_1):
                if square not in (king, rook):
                    empty.remove_piece_at(square)
            kinds.setdefault(castling_kind(empty, chess.Move(king, rook)), []).append(number)
    chosen: list[int] = []
    for kind in sorted(kinds):
        chosen += rng.sample(sorted(set(kinds[kind]) - set(chosen)), per_kind)
    return chosen


def play(engine: chess.engine.SimpleEngine, board: chess.Board, skills: tuple[int, int]) -> chess.pgn.Game:
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        engine.configure({"Skill Level": skills[0] if board.turn else skills[1]})
        move = engine.play(board, chess.engine.Limit(depth=8)).move
        assert move is not None
        board.push(move)
    game = chess.pgn.Game.from_board(board)
    for colour, skill in zip((chess.WHITE, chess.BLACK), skills, strict=True):
        game.headers["White" if colour else "Black"] = f"Stockfish skill {skill}"
    game.headers["Result"] = board.result(claim_draw=True)
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.games", description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--standard", type=int, default=10, help="standard games")
    parser.add_argument("--per-kind", type=int, default=4, help="Chess960 games per kind of castling")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    games = []
    with chess.engine.SimpleEngine.popen_uci(ENGINE) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        for _ in range(args.standard):
            board = chess.Board()
            for _ in range(2):
                board.push(rng.choice(sorted(board.legal_moves, key=lambda m: m.uci())))
            games.append(play(engine, board, (rng.randint(0, 5), rng.randint(0, 5))))
        for number in starts_by_castling(rng, args.per_kind):
            board = chess.Board.from_chess960_pos(number)
            games.append(play(engine, board, (rng.randint(0, 5), rng.randint(0, 5))))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for game in games:
            print(game, file=handle, end="\n\n")
    print(f"{len(games)} games written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
