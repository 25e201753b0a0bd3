"""``python -m bench.puzzle_store``: lichess's whole puzzle database in the training store (issue 37).

A lichess-format ``.csv.zst`` of 5.5 million puzzles (lichess's database holds about that many) is made in
a temporary folder, deterministically: positions and lines from the engine games kept with the project
(tests/data/games, bench/data: standard chess, a position and the 2 to 8 plies the game went on with),
ids of five letters and digits listed in order as lichess lists them, ratings roughly normal around 1500
(sd 450), themes drawn in lichess's proportions, roughly (one phase, one length, mate or advantage, and
motifs from the common ``fork`` to the rare ``underPromotion``), opening tags on most puzzles from the
opening and middlegame. Then, on one store:

- the import, stopped half-way (Ctrl-C, as a KeyboardInterrupt from its progress) and taken up again by
  importing the same file: µs a row over both, the process's memory (resident) along the way and at its
  peak (target: 30 µs a row, memory flat);
- choosing a puzzle by rating and theme (a theme drawn at random from the store's, rare ones included, a
  rating from the puzzles' own spread), by an opening, and by rating alone: ms a choice, median and 99th
  percentile over many (target 20 ms), the full check of the chosen puzzle included;
- listing the themes: ms (target 50 ms);
- importing a newer export of the same puzzles (most ratings moved a little, plays grown): updated in
  place, µs a row.

Several minutes; it is part of ``make bench``, not of the tests.
"""

from __future__ import annotations

import argparse
import csv
import random
import resource
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import zstandard

from chessatron.training.importer import ImportReport
from chessatron.training.lichess import COLUMNS
from chessatron.training.store import Filters, PuzzleStore

from .__main__ import percentile

ROOT = Path(__file__).resolve().parents[1]
GAMES = [
    ROOT / "tests" / "data" / "games" / "engine-standard.pgn",
    *sorted((ROOT / "bench" / "data").glob("*.pgn")),
]
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

#: Motifs and how often lichess gives them (a share of puzzles, roughly).
MOTIFS = {
    "fork": 0.11, "kingsideAttack": 0.09, "sacrifice": 0.08, "advancedPawn": 0.07, "defensiveMove": 0.06,
    "pin": 0.05, "hangingPiece": 0.05, "discoveredAttack": 0.05, "quietMove": 0.05, "deflection": 0.05,
    "attraction": 0.04, "skewer": 0.03, "exposedKing": 0.03, "master": 0.03, "promotion": 0.02,
    "intermezzo": 0.02, "trappedPiece": 0.02, "clearance": 0.02, "capturingDefender": 0.02,
    "queensideAttack": 0.01, "xRayAttack": 0.01, "zugzwang": 0.01, "interference": 0.007,
    "doubleCheck": 0.007, "attackingF2F7": 0.005, "smotheredMate": 0.003, "anastasiaMate": 0.001,
    "arabianMate": 0.001, "masterVsMaster": 0.001, "hookMate": 0.0008, "bodenMate": 0.0005,
    "dovetailMate": 0.0005, "enPassant": 0.0005, "underPromotion": 0.0004, "doubleBishopMate": 0.0003,
    "castling": 0.0002, "superGM": 0.0001,
}  # fmt: skip
ENDGAMES = {"rookEndgame": 0.3, "pawnEndgame": 0.12, "queenEndgame": 0.08, "knightEndgame": 0.05,
            "bishopEndgame": 0.05, "queenRookEndgame": 0.05}  # fmt: skip
FAMILIES = (
    "Sicilian_Defense",
    "French_Defense",
    "Caro-Kann_Defense",
    "Italian_Game",
    "Ruy_Lopez",
    "Queens_Pawn_Game",
    "Queens_Gambit_Declined",
    "Queens_Gambit_Accepted",
    "Scandinavian_Defense",
    "English_Opening",
    "Kings_Indian_Defense",
    "Nimzo-Indian_Defense",
    "Slav_Defense",
    "Pirc_Defense",
    "Modern_Defense",
    "Dutch_Defense",
    "Scotch_Game",
    "Four_Knights_Game",
    "Vienna_Game",
    "Philidor_Defense",
    "Petrovs_Defense",
    "Alekhine_Defense",
    "Kings_Gambit",
    "Bishops_Opening",
    "Zukertort_Opening",
    "Reti_Opening",
    "London_System",
    "Grunfeld_Defense",
    "Benoni_Defense",
    "Catalan_Opening",
    "Owen_Defense",
    "Nimzowitsch_Defense",
    "Englund_Gambit",
    "Horwitz_Defense",
    "Kings_Pawn_Game",
    "Three_Knights_Opening",
    "Center_Game",
    "Ponziani_Opening",
    "Elephant_Gambit",
    "Latvian_Gambit",
)


def positions() -> list[tuple[str, list[str]]]:
    """(FEN, the game's next plies) of every position of the standard games kept with the project."""
    found = []
    for path in GAMES:
        with path.open(encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                if game.headers.get("Variant", "").lower() == "chess960" or "FEN" in game.headers:
                    continue
                moves = [move.uci() for move in game.mainline_moves()]
                board = game.board()
                for ply, move in enumerate(moves):
                    if ply >= 4 and len(moves) - ply >= 2:
                        found.append((board.fen(), moves[ply : ply + 8]))
                    board.push_uci(move)
    return found


def rows(count: int, seed: int, rating_shift: bool = False) -> Iterator[list[str]]:
    """``count`` puzzle rows (with ``rating_shift``: the same puzzles in a newer export)."""
    rng = random.Random(seed)
    newer = random.Random(seed + 1)
    pool = positions()
    step = len(_ALPHABET) ** 5 // count
    motifs = list(MOTIFS.items())
    for number in range(count):
        fen, line = pool[rng.randrange(len(pool))]
        length = rng.choices((1, 2, 3, 4), (0.14, 0.54, 0.24, 0.08))[0]
        moves = line[: 2 * min(length, len(line) // 2)]
        person = len(moves) // 2
        phase = rng.choices(("opening", "middlegame", "endgame"), (0.08, 0.55, 0.37))[0]
        themes = [phase, {1: "oneMove", 2: "short", 3: "long"}.get(person, "veryLong")]
        outcome = rng.choices(("mate", "crushing", "advantage", "equality"), (0.17, 0.4, 0.37, 0.06))[0]
        themes.append(outcome)
        if outcome == "mate":
            themes.append(f"mateIn{person}")
            if rng.random() < 0.2:
                themes.append("backRankMate")
        themes += [name for name, share in motifs if rng.random() < share]
        if phase == "endgame":
            themes += [name for name, share in ENDGAMES.items() if rng.random() < share][:1]
        openings = ""
        if phase != "endgame" and rng.random() < 0.6:
            family = FAMILIES[min(int(rng.paretovariate(1.2)) - 1, len(FAMILIES) - 1)]
            openings = family
            if rng.random() < 0.7:
                openings += f" {family}_Variation_{rng.randint(1, 30)}"
        rating = round(min(3300.0, max(400.0, rng.gauss(1500, 450))))
        plays = int(rng.lognormvariate(6, 1.5))
        if rating_shift and newer.random() < 0.8:
            rating = max(400, rating + newer.randint(-25, 25))
            plays += newer.randint(1, 200)
        yield [
            _id(number * step + rng.randrange(step)),
            fen,
            " ".join(moves),
            str(rating),
            str(rng.randint(74, 110)),
            str(rng.randint(60, 100)),
            str(plays),
            " ".join(themes),
            f"https://lichess.org/{_id(number)}#{rng.randint(10, 90)}",
            openings,
        ]


def _id(number: int) -> str:
    text = ""
    for _ in range(5):
        number, digit = divmod(number, len(_ALPHABET))
        text = _ALPHABET[digit] + text
    return text


def write(path: Path, count: int, seed: int, *, newer: bool = False) -> None:
    with path.open("wb") as raw, zstandard.ZstdCompressor(level=3).stream_writer(raw) as packed:
        text = _TextSink(packed)
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in rows(count, seed, newer):
            writer.writerow(row)
        text.flush()


class _TextSink:
    """UTF-8 into a binary stream, a megabyte at a time."""

    def __init__(self, out: zstandard.ZstdCompressionWriter) -> None:
        self.out = out
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> int:
        self.parts.append(text)
        self.size += len(text)
        if self.size > 1 << 20:
            self.flush()
        return len(text)

    def flush(self) -> None:
        self.out.write("".join(self.parts).encode())
        self.parts, self.size = [], 0


def resident_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def timed_import(
    store: PuzzleStore, path: Path, stop_at: int | None
) -> tuple[ImportReport, float, float, list[float]]:
    """Import ``path`` (stopped once at byte ``stop_at`` and taken up again): the report, wall and CPU
    seconds, and the process's resident memory every tenth of a second along the way (its index entries
    made at the end included)."""
    memory: list[float] = []
    stop = [stop_at]
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.1):
            memory.append(resident_mib())

    def progress(read: int, size: int) -> None:
        if stop[0] is not None and read >= stop[0]:
            stop[0] = None
            raise KeyboardInterrupt

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    wall, cpu = time.perf_counter(), time.process_time()
    report = ImportReport()
    try:
        store.import_file(path, report, progress=progress)
    except KeyboardInterrupt:
        print(f"  stopped at line {report.lines:,} ({report.puzzles:,} puzzles in); importing it again")
        resumed = store.resuming(path)
        assert resumed is not None and resumed.resumed_at == report.lines
        report = store.import_file(path, resumed, progress=progress)
        print(f"  taken up at line {report.resumed_at:,}")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    done.set()
    watcher.join()
    return report, wall, cpu, memory


def choices(store: PuzzleStore, make: list[tuple[float, Filters]]) -> list[float]:
    seconds = []
    for rating, filters in make:
        started = time.perf_counter()
        store.choose(rating, filters)
        seconds.append(time.perf_counter() - started)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.puzzle_store", description=__doc__)
    parser.add_argument("--puzzles", type=int, default=5_500_000)
    parser.add_argument("--choices", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--folder", type=Path, default=None, help="where to make the files (a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.folder) as name:
        folder = Path(name)
        source, newer = folder / "lichess_db_puzzle.csv.zst", folder / "newer.csv.zst"
        started = time.perf_counter()
        write(source, args.puzzles, args.seed)
        print(f"made {source.name}: {args.puzzles:,} puzzles, {source.stat().st_size / 2**20:.0f} MiB "
              f"({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
        store = PuzzleStore(folder / "training.sqlite3", starter=False)
        before = resident_mib()
        report, wall, cpu, memory = timed_import(store, source, source.stat().st_size // 2)
        lines = report.lines
        print(f"import: {report.summary()}, {wall:.0f} s: {1e6 * wall / lines:.1f} µs a row "
              f"({1e6 * cpu / lines:.1f} µs of CPU)")  # fmt: skip
        marks = [memory[int(len(memory) * share)] for share in (0.1, 0.3, 0.5, 0.7, 0.9)] + [memory[-1]]
        shown = " ".join(f"{m:.0f}" for m in marks)
        print(f"  memory (resident, MiB) at 10/30/50/70/90/100 % of the time: {shown}; at most "
              f"{max(memory):.0f} (before: {before:.0f})")  # fmt: skip
        print(f"  store file: {store.path.stat().st_size / 2**30:.2f} GiB", flush=True)
        themes = store.themes()
        listing = []
        for _ in range(20):
            started = time.perf_counter()
            store.themes()
            listing.append(time.perf_counter() - started)
        rng = random.Random(args.seed)
        spread = [rng.gauss(1500, 450) for _ in range(args.choices)]
        by_theme = choices(store, [(r, Filters(theme=rng.choice(themes)[0])) for r in spread])
        openings = [f"{family}" for family in FAMILIES]
        by_opening = choices(store, [(r, Filters(opening=rng.choice(openings))) for r in spread])
        by_rating = choices(store, [(r, Filters()) for r in spread])
        for name, times in (("rating and theme", by_theme), ("rating and opening", by_opening),
                            ("rating alone", by_rating)):  # fmt: skip
            print(f"choose by {name}: median {1000 * statistics.median(times):.1f} ms, 99th percentile "
                  f"{1000 * percentile(times, 0.99):.1f} ms ({len(times)} choices)")  # fmt: skip
        print(
            f"themes: {len(themes)} listed in {1000 * statistics.median(listing):.1f} ms (median of 20)",
            flush=True,
        )
        started = time.perf_counter()
        write(newer, args.puzzles, args.seed, newer=True)
        print(f"made {newer.name} ({time.perf_counter() - started:.0f} s)", flush=True)
        again, wall, cpu, _ = timed_import(store, newer, None)
        per_row, per_row_cpu = 1e6 * wall / again.lines, 1e6 * cpu / again.lines
        print(f"re-import of a newer export: {again.summary()}, {wall:.0f} s: {per_row:.1f} µs a row "
              f"({per_row_cpu:.1f} µs of CPU)")  # fmt: skip
        assert store.count(Filters(source="lichess")) == report.puzzles
    return 0


if __name__ == "__main__":
    sys.exit(main())
