"""Puzzles like lichess's for the benchmarks, made from engine games (``python -m bench.puzzle_source``).

Lichess's puzzles are positions from real games: the FEN is the position before the opponent's move (a
mistake), ``Moves`` that move and then the solution, 2 to 8 plies, either side to move; their ratings are
spread roughly normally around 1500. This makes puzzles the same way from games Stockfish plays against
itself (one process, one thread, a fixed depth, a fresh hash for every game: the same games every time
for one Stockfish, two engines playing at once), with nothing chosen for being easy or hard to set up:

- a game starts with two random moves, then both sides play Stockfish's best move at depth 4, but one
  move in twenty is a random legal move (people err; an engine alone trades down in the same few ways);
- up to four puzzles are taken from each game, at plies drawn at random between 8 and 100 at least 16
  plies apart (a game that ends sooner gives fewer): the position as the game stands, a random legal
  move for the opponent's mistake, then the engine's best moves for both sides, the person having 1 to 4
  moves (in lichess's proportions, roughly: 15 % one, 52 % two, 25 % three, 8 % four), the line cut short
  at a mate;
- the rating is drawn from a normal distribution (1500, 450) clipped to 400..3300, independently of the
  position; the themes are what can be told cheaply: the phase (``opening`` before ply 20, ``endgame``
  with six pieces or fewer besides kings and pawns, else ``middlegame``), the length (``oneMove``,
  ``short``, ``long``, ``veryLong``), ``mate`` and ``mateInN`` when the line mates, else ``advantage``;
- ids are five random letters and digits, and the file lists the puzzles by id, as lichess's does.

The CSV is cached (``$XDG_CACHE_HOME/chessatron/bench/``, keyed by the count, the seed, this module's
version and the Stockfish binary's version) since making 20,000 puzzles takes Stockfish a few minutes.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Final

import chess

#: Bump when the puzzles made change, so that caches are made again.
VERSION: Final = 1
ENGINE: Final = "/usr/games/stockfish"
DEPTH: Final = 4
#: A move in twenty is a random legal move.
ERR_RATE: Final = 0.05
PUZZLES_PER_GAME: Final = 4
MIN_APART: Final = 16
FIRST_PLY, LAST_PLY = 8, 100
#: How many moves the person makes, and how often (lichess's puzzles, roughly).
PERSON_MOVES: Final = ((1, 0.15), (2, 0.52), (3, 0.25), (4, 0.08))
HEADER: Final = "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags"
_ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class Uci:
    """Stockfish over its UCI pipe, without python-chess's engine layer (a move costs it a third of the
    time: the games are many and the searches short)."""

    def __init__(self, path: str = ENGINE) -> None:
        self._process = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self._send("uci")
        self.name = self._until("id name").removeprefix("id name ").strip()
        self._until("uciok")
        self._send("setoption name Threads value 1")
        self._send("setoption name Hash value 16")
        self._send("isready")
        self._until("readyok")

    def _send(self, line: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(line + "\n")
        self._process.stdin.flush()

    def _until(self, prefix: str) -> str:
        assert self._process.stdout is not None
        while True:
            line = self._process.stdout.readline()
            if not line:
                raise RuntimeError(f"{ENGINE} stopped")
            if line.startswith(prefix):
                return line

    def new_game(self) -> None:
        self._send("ucinewgame")
        self._send("isready")
        self._until("readyok")

    def best(self, moves: list[str]) -> str:
        self._send("position startpos moves " + " ".join(moves))
        self._send(f"go depth {DEPTH}")
        return self._until("bestmove").split()[1]

    def close(self) -> None:
        self._send("quit")
        self._process.wait(timeout=10)


def engine_version(path: str = ENGINE) -> str:
    uci = Uci(path)
    try:
        return uci.name
    finally:
        uci.close()


def cache_path(count: int, seed: int, engine: str = ENGINE) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "chessatron" / "bench"
    name = "".join(c if c.isalnum() else "-" for c in engine_version(engine)).strip("-")
    return base / f"puzzles-v{VERSION}-{count}-seed{seed}-{name}.csv"


def realistic_puzzles(count: int = 20_480, seed: int = 37, engine: str = ENGINE) -> Path:
    """The CSV of ``count`` puzzles (made once, then read from the cache)."""
    path = cache_path(count, seed, engine)
    if path.is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"making {count:,} puzzles from Stockfish's games (once; cached in {path})", file=sys.stderr)
    rows = make_puzzles(count, seed, engine)
    partial = path.with_suffix(".partial")
    with partial.open("w", encoding="utf-8", newline="") as handle:
        handle.write(HEADER + "\n")
        csv.writer(handle, lineterminator="\n").writerows(sorted(rows))
    partial.replace(path)
    return path


def make_puzzles(count: int, seed: int, engine: str = ENGINE, workers: int = 2) -> list[list[str]]:
    """``count`` puzzle rows: game ``k`` played with its own random numbers (seed and ``k``), so that the
    games are the same however many engines play them at once."""
    local = threading.local()
    engines: list[Uci] = []

    def play(game: int) -> list[tuple[str, list[str], int]]:
        if not hasattr(local, "uci"):
            local.uci = Uci(engine)
            engines.append(local.uci)
        return _game_puzzles(local.uci, random.Random(f"{seed}-{game}"))

    rng = random.Random(seed)
    rows: list[list[str]] = []
    ids: set[str] = set()
    started = time.monotonic()
    game = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            while len(rows) < count:
                games = range(game + 1, game + 1 + 8 * workers)
                for number, found in zip(games, pool.map(play, games), strict=True):
                    for fen, line, ply in found:
                        if len(rows) < count:
                            rows.append(_row(_new_id(rng, ids), fen, line, ply, rng, number))
                game = games[-1]
                if game % 256 == 0:
                    print(
                        f"  {game} games, {len(rows):,} puzzles, {time.monotonic() - started:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )
    finally:
        for uci in engines:
            uci.close()
    return rows


def _game_puzzles(uci: Uci, rng: random.Random) -> list[tuple[str, list[str], int]]:
    """The puzzles of one game: (FEN before the mistake, the line, the ply)."""
    plies: list[int] = []
    while len(plies) < PUZZLES_PER_GAME:
        ply = rng.randint(FIRST_PLY, LAST_PLY)
        if all(abs(ply - other) >= MIN_APART for other in plies):
            plies.append(ply)
    uci.new_game()
    board = chess.Board()
    moves: list[str] = []
    found = []
    while board.ply() <= max(plies) and not board.is_game_over(claim_draw=True):
        if board.ply() in plies:
            puzzle = _puzzle_at(uci, board, moves, rng)
            if puzzle is not None:
                found.append((*puzzle, board.ply()))
        erring = board.ply() < 2 or rng.random() < ERR_RATE
        move = _random_move(board, rng) if erring else uci.best(moves)
        board.push_uci(move)
        moves.append(move)
    return found


def _puzzle_at(
    uci: Uci, board: chess.Board, moves: list[str], rng: random.Random
) -> tuple[str, list[str]] | None:
    fen = board.fen()
    work = board.copy()
    played = list(moves)
    person_moves = _weighted(rng, PERSON_MOVES)
    line = [_random_move(work, rng)]
    work.push_uci(line[0])
    played.append(line[0])
    while len(line) < 2 * person_moves and not work.is_game_over():
        move = uci.best(played)
        work.push_uci(move)
        played.append(move)
        line.append(move)
    if len(line) % 2:
        line.pop()  # the line ends on the person's move
    return (fen, line) if len(line) >= 2 else None


def _row(puzzle_id: str, fen: str, line: list[str], ply: int, rng: random.Random, game: int) -> list[str]:
    board = chess.Board(fen)
    for move in line:
        board.push_uci(move)
    officers = sum(
        1 for piece in board.piece_map().values() if piece.piece_type not in (chess.PAWN, chess.KING)
    )
    themes = ["opening" if ply < 20 else "endgame" if officers <= 6 else "middlegame"]
    themes.append({1: "oneMove", 2: "short", 3: "long"}.get(len(line) // 2, "veryLong"))
    if board.is_checkmate():
        themes += ["mate", f"mateIn{len(line) // 2}"]
    else:
        themes.append("advantage")
    rating = round(min(3300.0, max(400.0, rng.gauss(1500, 450))))
    return [
        puzzle_id,
        fen,
        " ".join(line),
        str(rating),
        str(rng.randint(74, 110)),
        str(rng.randint(60, 100)),
        str(int(rng.lognormvariate(6, 1.5))),
        " ".join(sorted(themes)),
        f"bench-game-{game}#{ply}",
        "",
    ]


def _random_move(board: chess.Board, rng: random.Random) -> str:
    return rng.choice(sorted(move.uci() for move in board.legal_moves))


def _weighted(rng: random.Random, choices: tuple[tuple[int, float], ...]) -> int:
    values, weights = zip(*choices, strict=True)
    return int(rng.choices(values, weights)[0])


def _new_id(rng: random.Random, taken: set[str]) -> str:
    while True:
        puzzle_id = "".join(rng.choice(_ALPHABET) for _ in range(5))
        if puzzle_id not in taken:
            taken.add(puzzle_id)
            return puzzle_id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.puzzle_source", description=__doc__)
    parser.add_argument("--count", type=int, default=20_480)
    parser.add_argument("--seed", type=int, default=37)
    args = parser.parse_args(argv)
    print(realistic_puzzles(args.count, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
