"""The starter set: puzzles shipped with the package, so that ``chessatron puzzles`` works on a fresh install.

They were mined (:mod:`.mining`, its criterion) from the 210 engine games kept with the project: Stockfish
playing itself at weak skill levels (0 to 5), standard chess and Chess960 (tests/data/games, and
bench/data/engine-more.pgn and engine-training.pgn, made by ``python -m bench.games``). About one game in
two gives a position in which the side to move erred and one move clearly stood out: 105 puzzles. The
file is ``chessatron/data/puzzles-starter.csv``, in lichess's columns (source ``starter``); it is made
again, the same way, with::

    python -m chessatron.training.starter tests/data/games/engine-standard.pgn \\
        tests/data/games/engine-chess960.pgn bench/data/engine-more.pgn bench/data/engine-training.pgn \\
        --out src/chessatron/data/puzzles-starter.csv

(searches at depth 10, one thread, a fresh hash for every game: the same games give the same puzzles; a
few minutes on one core).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Final

import chess.engine

from ..errors import ChessatronError, PuzzleFileError
from ..game.engine.player import EnginePlayer
from ..game.engine.settings import parse_level
from ..game.records.pgn import read_pgn_games
from ..i18n import _
from .lichess import COLUMNS, parse_row, puzzle_row
from .mining import Criterion, mine_game
from .puzzle import Puzzle

#: The starter set's file among the package's data.
STARTER: Final = "puzzles-starter.csv"
#: How deep the starter set's games were searched.
STARTER_LIMIT: Final = chess.engine.Limit(depth=10)


def load_starter() -> list[Puzzle]:
    """The starter set's puzzles (source ``starter``). Raises :class:`PuzzleFileError` for a damaged
    package."""
    try:
        text = (resources.files("chessatron") / "data" / STARTER).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PuzzleFileError(
            _("the package's starter puzzles cannot be read ({reason}); reinstall chessatron").format(
                reason=exc
            )
        ) from exc
    rows = list(csv.reader(io.StringIO(text)))
    return [parse_row(row, source="starter") for row in rows[1:] if row]


def write_csv(puzzles: Sequence[Puzzle]) -> str:
    """Puzzles as lichess's CSV, with its header line."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for puzzle in puzzles:
        writer.writerow(puzzle_row(puzzle))
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chessatron.training.starter", description=__doc__)
    parser.add_argument("games", nargs="+", type=Path, help="PGN files of games to mine (both sides)")
    parser.add_argument("--out", type=Path, required=True, help="the CSV to write")
    parser.add_argument("--depth", type=int, default=STARTER_LIMIT.depth, help="search depth a position")
    parser.add_argument("--engine", default="stockfish", help="the UCI engine")
    args = parser.parse_args(argv)
    limit = chess.engine.Limit(depth=args.depth)
    puzzles: dict[str, Puzzle] = {}
    for path in args.games:
        try:
            records = read_pgn_games(path.read_text(encoding="utf-8"), repr(str(path)))
        except (OSError, UnicodeDecodeError, ChessatronError) as exc:
            print(f"cannot mine {str(path)!r}: {exc}", file=sys.stderr)
            return 1
        for number, record in enumerate(records, start=1):
            # a fresh engine for every game: its hash table starts empty, so the puzzles depend on the game
            with EnginePlayer(parse_level("engine:threads=1:hash=16"), engine=args.engine) as engine:
                found = mine_game(
                    record,
                    engine,
                    colours=chess.COLORS,
                    criterion=Criterion(),
                    limit=limit,
                    source="starter",
                    prefix="s",
                    game_url=f"{path.name}#{number}",
                )
            for puzzle in found:
                puzzles.setdefault(puzzle.puzzle_id, puzzle)
            print(f"{path.name}#{number}: {len(found)} puzzles", file=sys.stderr, flush=True)
    ordered = sorted(puzzles.values(), key=lambda p: (p.rating, p.puzzle_id))
    args.out.write_text(write_csv(ordered), encoding="utf-8")
    print(f"{len(ordered)} puzzles written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
