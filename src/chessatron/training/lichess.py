"""Reading lichess's puzzle database: ``lichess_db_puzzle.csv``, plain or compressed with zstandard
(``.csv.zst``, as lichess publishes it; the ``zstandard`` package reads it).

The columns are ``PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags``
(a header line naming them is optional); ``Moves``, ``Themes`` and ``OpeningTags`` are space-separated.
A line that is no puzzle (a bad FEN, an illegal move, a missing column) is skipped and counted, with its
line number and why, so that one damaged line does not lose an import of millions; a file none of whose
first lines is a puzzle is refused as a whole.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final

from ..errors import MissingLibraryError, PuzzleError, PuzzleFileError
from .puzzle import Puzzle

LOGGER = logging.getLogger(__name__)

COLUMNS: Final = (
    "PuzzleId",
    "FEN",
    "Moves",
    "Rating",
    "RatingDeviation",
    "Popularity",
    "NbPlays",
    "Themes",
    "GameUrl",
    "OpeningTags",
)

#: The first bytes of a zstandard frame.
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"

#: A file whose first this many lines hold no puzzle is not lichess's CSV.
FIRST_LINES: Final = 20

#: Skipped lines whose reason is kept for the report (the rest are only counted).
REASONS_KEPT: Final = 10

#: Called as the file is read: the bytes read so far (of the file as stored), and its size.
Progress = Callable[[int, int], None]


@dataclass
class Reading:
    """What reading a file found besides its puzzles: lines skipped, and why (the first few)."""

    skipped: int = 0
    reasons: list[str] = field(default_factory=list)

    def skip(self, line: int, why: str) -> None:
        self.skipped += 1
        if len(self.reasons) < REASONS_KEPT:
            self.reasons.append(f"line {line}: {why}")


def parse_row(row: list[str], *, source: str = "lichess") -> Puzzle:
    """One CSV row (the columns of :data:`COLUMNS`, the last ones optional) as a puzzle.

    >>> parse_row(["00008", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", "g8f8 d1d8", "600", "80", "95", "100",
    ...            "mate mateIn1 short", "https://lichess.org/x#1", ""]).themes
    ('mate', 'mateIn1', 'short')
    """
    if len(row) < 3:
        raise PuzzleError(f"{len(row)} columns; a puzzle needs at least PuzzleId, FEN and Moves")
    cells = [cell.strip() for cell in row] + [""] * (len(COLUMNS) - len(row))
    try:
        rating = int(cells[3] or 1500)
        deviation = int(cells[4] or 350)
        popularity = int(cells[5] or 0)
        plays = int(cells[6] or 0)
    except ValueError as exc:
        raise PuzzleError(
            f"a rating, deviation, popularity or play count that is no number ({exc})"
        ) from None
    return Puzzle(
        cells[0],
        cells[1],
        tuple(cells[2].split()),
        rating=rating,
        rating_deviation=deviation,
        popularity=popularity,
        plays=plays,
        themes=tuple(cells[7].split()),
        game_url=cells[8],
        openings=tuple(cells[9].split()),
        source=source,
    )


def puzzle_row(puzzle: Puzzle) -> list[str]:
    """A puzzle as a CSV row in lichess's columns."""
    return [
        puzzle.puzzle_id,
        puzzle.fen,
        " ".join(puzzle.moves),
        str(puzzle.rating),
        str(puzzle.rating_deviation),
        str(puzzle.popularity),
        str(puzzle.plays),
        " ".join(puzzle.themes),
        puzzle.game_url,
        " ".join(puzzle.openings),
    ]


def read_puzzles(
    path: Path, reading: Reading, *, source: str = "lichess", progress: Progress | None = None
) -> Iterator[Puzzle]:
    """Every puzzle of the CSV at ``path`` (plain or zstandard), skipped lines counted in ``reading``.

    Raises :class:`PuzzleFileError` for a file that cannot be opened or read, or is no puzzle CSV;
    :class:`MissingLibraryError` for a ``.zst`` file without the ``zstandard`` package."""
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise PuzzleFileError(f"cannot read the puzzle file {str(path)!r}: {exc.strerror or exc}") from exc
    with raw:
        try:
            size = path.stat().st_size
            compressed = raw.read(4) == ZSTD_MAGIC
            raw.seek(0)
        except OSError as exc:
            raise PuzzleFileError(
                f"cannot read the puzzle file {str(path)!r}: {exc.strerror or exc}"
            ) from exc
        stream: IO[bytes] = _decompressed(raw, path) if compressed else raw
        text = io.TextIOWrapper(stream, encoding="utf-8", errors="strict", newline="")
        yield from _rows(text, raw, size, path, reading, source, progress)


def _decompressed(raw: IO[bytes], path: Path) -> IO[bytes]:
    try:
        import zstandard
    except ImportError as exc:
        raise MissingLibraryError(
            f"{str(path)!r} is compressed with zstandard, which needs the 'zstandard' package: "
            "pip install 'chessatron[puzzles]' (or unpack it first: unzstd FILE)"
        ) from exc
    reader: IO[bytes] = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return reader


def _rows(
    text: IO[str],
    raw: IO[bytes],
    size: int,
    path: Path,
    reading: Reading,
    source: str,
    progress: Progress | None,
) -> Iterator[Puzzle]:
    found = 0
    rows = csv.reader(text)
    number = 0
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except (UnicodeDecodeError, csv.Error) as exc:
            raise PuzzleFileError(
                f"{str(path)!r} cannot be read after line {number}: {exc}; is it lichess's puzzle CSV?"
            ) from exc
        except Exception as exc:  # zstandard's own errors: a damaged or cut-short frame
            raise PuzzleFileError(f"{str(path)!r} cannot be unpacked after line {number}: {exc}") from exc
        number += 1
        if number == 1 and row and row[0].strip().lstrip("\ufeff") == COLUMNS[0]:
            continue  # the header
        if not row or not "".join(row).strip():
            continue
        try:
            puzzle = parse_row(row, source=source)
        except PuzzleError as exc:
            reading.skip(number, str(exc))
            if found == 0 and number >= FIRST_LINES:
                raise PuzzleFileError(
                    f"{str(path)!r} holds no puzzle in its first {number} lines ({reading.reasons[0]}); "
                    f"give lichess's puzzle CSV, columns {','.join(COLUMNS)}"
                ) from exc
            continue
        found += 1
        if progress is not None and number % 1000 == 0:
            progress(_position(raw, size), size)
        yield puzzle
    if found == 0 and reading.skipped:
        raise PuzzleFileError(
            f"{str(path)!r} holds no puzzle ({reading.reasons[0]}); give lichess's puzzle CSV, "
            f"columns {','.join(COLUMNS)}"
        )
    if progress is not None:
        progress(size, size)


def _position(raw: IO[bytes], size: int) -> int:
    try:
        return min(size, raw.tell())
    except (OSError, ValueError):
        return 0
