"""Reading lichess's puzzle database: ``lichess_db_puzzle.csv``, plain or compressed with zstandard
(``.csv.zst``, as lichess publishes it; the ``zstandard`` package reads it).

The columns are ``PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags``
(a header line naming them is optional); ``Moves``, ``Themes`` and ``OpeningTags`` are space-separated.

The whole database is millions of lines, so a line is checked here only as far as it is cheap
(:func:`check_row`: the id, the shape of the FEN and of the moves, numbers in range); the position and
its line are checked in full (:class:`~.puzzle.Puzzle`) when the puzzle is chosen to be played. A line
that fails (a bad FEN, a 400-digit rating, bytes that are not UTF-8, a missing column) is skipped and
counted, with its line number and why, so that one damaged line does not lose an import of millions.

A whole file is refused (:class:`~chessatron.errors.PuzzleFileError`) when it is empty, holds only the
header, or none of its first lines is a puzzle; one that ends early or is damaged part-way (a download
cut short) raises :class:`~chessatron.errors.PuzzleFileCutError` after the puzzles before the damage.
"""

from __future__ import annotations

import csv
import io
import logging
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, TypeAlias

from ..errors import MissingLibraryError, PuzzleError, PuzzleFileCutError, PuzzleFileError
from ..i18n import _, ngettext
from .puzzle import MAX_PLIES, Puzzle

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

#: What a puzzle file must be, said when it is not (:func:`expected` says it in the person's language).
EXPECTED: Final = f"expected lichess's puzzle CSV or .csv.zst, columns {','.join(COLUMNS)}"

#: The damage of a zstandard file whose last frame ends early (else the damage is zstandard's words).
CUT_SHORT: Final = "cut short"


def expected() -> str:
    """What a puzzle file must be, in the current language."""
    return _("expected lichess's puzzle CSV or .csv.zst, columns {columns}").format(columns=",".join(COLUMNS))


#: The first bytes of a zstandard frame.
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"

#: A file whose first this many lines hold no puzzle is not lichess's CSV.
FIRST_LINES: Final = 20

#: Skipped lines whose reason is kept for the report (the rest are only counted).
REASONS_KEPT: Final = 10

#: A line longer than this is damage (lichess's longest are a few hundred characters): it is skipped
#: without ever being held whole, so that a file with no line ends cannot fill the memory.
MAX_LINE_CHARS: Final = 4096

#: The ranges a number column may take (lichess's own stay well inside them).
RANGES: Final = {
    "rating": (0, 4000),
    "deviation": (0, 1000),
    "popularity": (-100, 100),
    "plays": (0, 2**62),
}

#: Called as the file is read: the bytes read so far (of the file as stored), and its size.
Progress = Callable[[int, int], None]

Row: TypeAlias = tuple[str, str, str, int, int, int, int, str, str, str]
"""One line cheaply checked: id, FEN, moves, rating, deviation, popularity, plays, themes, game URL,
opening tags (the words space-separated, as in the file)."""

_ID = re.compile(r"[A-Za-z0-9_:.-]{1,64}")
_FEN = re.compile(
    r"(?:[pnbrqkPNBRQK1-8]{1,8}/){7}[pnbrqkPNBRQK1-8]{1,8} [wb] (?:-|[KQkqA-Ha-h]{1,4}) (?:-|[a-h][36])"
    r"(?: \d{1,4} \d{1,5})?"
)
_MOVES = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?(?: [a-h][1-8][a-h][1-8][qrbn]?)*")
_NUMBER = re.compile(r"[+-]?\d+")


@dataclass
class Reading:
    """What reading a file found besides its puzzles: lines skipped, and why (the first few); and how
    many lines were read (the header included), which is where an import stopped."""

    skipped: int = 0
    reasons: list[str] = field(default_factory=list)
    lines: int = 0

    def skip(self, line: int, why: str) -> None:
        self.skipped += 1
        if len(self.reasons) < REASONS_KEPT:
            self.reasons.append(_("line {line}: {reason}").format(line=line, reason=why))


def check_row(cells: list[str]) -> Row:
    """One CSV row (the columns of :data:`COLUMNS`, the last ones optional) checked as far as is cheap:
    the id, the FEN's and the moves' shape, an even number of moves, numbers in :data:`RANGES`. Raises
    :class:`PuzzleError` saying what is wrong.

    >>> check_row(["00008", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", "g8f8 d1d8", "600"])[:4]
    ('00008', '6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1', 'g8f8 d1d8', 600)
    >>> check_row(["x", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", "g8f8 d1d8", "9" * 400])
    Traceback (most recent call last):
    ...
    chessatron.errors.PuzzleError: puzzle 'x': rating '9999999999999999…' is no number from 0 to 4000
    """
    if len(cells) < 3:
        raise PuzzleError(
            ngettext(
                "{count} column; a puzzle needs at least PuzzleId, FEN and Moves",
                "{count} columns; a puzzle needs at least PuzzleId, FEN and Moves",
                len(cells),
            ).format(count=len(cells))
        )
    if len(cells) < len(COLUMNS):
        cells = cells + [""] * (len(COLUMNS) - len(cells))
    puzzle_id, fen, moves = cells[0].strip(), cells[1].strip(), cells[2].strip()
    if not _ID.fullmatch(puzzle_id):
        raise PuzzleError(
            _("puzzle id {id!r} is not a word of letters and digits").format(id=_short(puzzle_id))
        )
    if not _FEN.fullmatch(fen):
        raise PuzzleError(_("puzzle {id!r} has a bad FEN {fen!r}").format(id=puzzle_id, fen=_short(fen)))
    plies = moves.count(" ") + 1
    if not _MOVES.fullmatch(moves) or plies % 2 or plies > MAX_PLIES:
        raise PuzzleError(
            _(
                "puzzle {id!r}: moves {moves!r} are not the opponent's move and the solution (an even "
                "number of UCI moves)"
            ).format(id=puzzle_id, moves=_short(moves))
        )
    try:
        rating = int(cells[3]) if cells[3] else 1500
        deviation = int(cells[4]) if cells[4] else 350
        popularity = int(cells[5]) if cells[5] else 0
        plays = int(cells[6]) if cells[6] else 0
        if not (
            0 <= rating <= 4000
            and 0 <= deviation <= 1000
            and -100 <= popularity <= 100
            and 0 <= plays <= 1 << 62
        ):
            raise ValueError
    except ValueError:
        raise PuzzleError(_numbers_wrong(puzzle_id, cells[3:7])) from None
    themes, url, openings = cells[7].strip(), cells[8].strip(), cells[9].strip()
    if "\ufffd" in themes or "\ufffd" in url or "\ufffd" in openings:
        raise PuzzleError(_("puzzle {id!r}: bytes that are not UTF-8 text").format(id=puzzle_id))
    return (puzzle_id, fen, moves, rating, deviation, popularity, plays, themes, url, openings)


def _numbers_wrong(puzzle_id: str, texts: list[str]) -> str:
    """What is wrong with a line's numbers (the rare case: worded slowly)."""
    for (name, (low, high)), text in zip(RANGES.items(), texts, strict=True):
        text = text.strip()
        if not text:
            continue
        try:
            value = int(text) if _NUMBER.fullmatch(text) else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            # TRANSLATORS: {column} is one of lichess's column names: rating, deviation, popularity, plays
            return _("puzzle {id!r}: {column} {text!r} is no number from {low} to {high}").format(
                id=puzzle_id, column=name, text=_short(text), low=low, high=high
            )
    return _("puzzle {id!r}: its numbers are out of range").format(id=puzzle_id)


def _binary(cells: list[str]) -> bool:
    return any("\ufffd" in cell or "\x00" in cell for cell in cells)


def _short(text: str) -> str:
    return text if len(text) <= 16 else text[:16] + "…"


def row_puzzle(row: Row, source: str = "lichess") -> Puzzle:
    """The puzzle of a checked row, checked in full (its position and line). Raises :class:`PuzzleError`."""
    return Puzzle(
        row[0],
        row[1],
        tuple(row[2].split()),
        rating=row[3],
        rating_deviation=row[4],
        popularity=row[5],
        plays=row[6],
        themes=tuple(row[7].split()),
        game_url=row[8],
        openings=tuple(row[9].split()),
        source=source,
    )


def parse_row(row: list[str], *, source: str = "lichess") -> Puzzle:
    """One CSV row (the columns of :data:`COLUMNS`, the last ones optional) as a puzzle, checked in full.

    >>> parse_row(["00008", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", "g8f8 d1d8", "600", "80", "95", "100",
    ...            "mate mateIn1 short", "https://lichess.org/x#1", ""]).themes
    ('mate', 'mateIn1', 'short')
    """
    return row_puzzle(check_row(row), source)


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
    """Every puzzle of the file at ``path``, each checked in full (a puzzle that fails is skipped and
    counted in ``reading``). For a whole database, :func:`read_rows` is the fast way."""
    for row in read_rows(path, reading, progress=progress):
        try:
            yield row_puzzle(row, source)
        except PuzzleError as exc:
            reading.skip(reading.lines, str(exc))


def read_rows(
    path: Path, reading: Reading, *, skip: int = 0, progress: Progress | None = None
) -> Iterator[Row]:
    """Every line of the CSV at ``path`` (plain or zstandard) that :func:`check_row` passes; skipped lines
    are counted in ``reading``, whose ``lines`` is the number of the line last read. ``skip``: lines
    already imported (an import taken up again), passed over unread.

    Raises :class:`PuzzleFileError` for a file that cannot be opened, is empty, holds no puzzle in its
    first lines or only a header; :class:`PuzzleFileCutError` once the lines before damage are read;
    :class:`MissingLibraryError` for a ``.zst`` file without the ``zstandard`` package."""
    name = str(path)
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise PuzzleFileError(
            _("cannot read the puzzle file {file!r}: {reason}").format(file=name, reason=exc.strerror or exc)
        ) from exc
    with raw:
        try:
            status = os.fstat(raw.fileno())
            if not stat.S_ISREG(status.st_mode):
                raise PuzzleFileError(
                    _("{file!r} is not a file; {expected}").format(file=name, expected=expected())
                )
            compressed = raw.read(4) == ZSTD_MAGIC
            raw.seek(0)
        except OSError as exc:
            raise PuzzleFileError(
                _("cannot read the puzzle file {file!r}: {reason}").format(
                    file=name, reason=exc.strerror or exc
                )
            ) from exc
        if status.st_size == 0:
            raise PuzzleFileError(_("{file!r} is empty; {expected}").format(file=name, expected=expected()))
        frames = _ZstdFrames(raw, path) if compressed else None
        binary: IO[bytes] = io.BufferedReader(frames, 1 << 20) if frames is not None else raw
        text = io.TextIOWrapper(binary, encoding="utf-8", errors="replace", newline="")
        damage = (lambda: frames.damage) if frames is not None else (lambda: None)
        yield from _rows(text, raw, status.st_size, name, reading, skip, progress, damage)


def _rows(
    text: IO[str],
    raw: IO[bytes],
    size: int,
    name: str,
    reading: Reading,
    skip: int,
    progress: Progress | None,
    damage: Callable[[], str | None],
) -> Iterator[Row]:
    found = 0
    header = False
    last_skipped = False
    lines = _Lines(text, damage)
    records = csv.reader(lines)
    while True:
        try:
            row = next(records)
        except StopIteration:
            break
        except csv.Error:
            row = ["a line that is no CSV"]
        reading.lines += 1
        number = reading.lines
        if number <= skip:
            continue
        if number == 1 and row and row[0].strip().lstrip("\ufeff") == COLUMNS[0]:
            header = True
            continue
        try:
            if lines.too_long:
                lines.too_long = False
                raise PuzzleError(_("a line longer than {count} characters").format(count=MAX_LINE_CHARS))
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            checked = check_row(row)
        except PuzzleError as exc:
            reading.skip(number, _("bytes that are no UTF-8 text") if _binary(row) else str(exc))
            last_skipped = True
            if found == 0 and skip == 0 and number >= FIRST_LINES:
                raise PuzzleFileError(
                    _(
                        "{file!r} is not a lichess puzzle file ({reason}, and none of lines 1 to {line} is a "
                        "puzzle); {expected}"
                    ).format(file=name, reason=reading.reasons[0], line=number, expected=expected())
                ) from None
            continue
        last_skipped = False
        found += 1
        if progress is not None and found % 4096 == 0:
            progress(_position(raw, size), size)
        yield checked
    damaged = damage()
    if damaged is not None:
        raise PuzzleFileCutError(_damaged(name, damaged, reading.lines, kept=found > 0))
    if found == 0 and skip == 0:
        if reading.skipped:
            raise PuzzleFileError(
                _("{file!r} is not a lichess puzzle file ({reason}); {expected}").format(
                    file=name, reason=reading.reasons[0], expected=expected()
                )
            )
        if header:
            message = _("{file!r} holds only lichess's header line; {expected}")
        else:
            message = _("{file!r} holds no puzzle; {expected}")
        raise PuzzleFileError(message.format(file=name, expected=expected()))
    if last_skipped and not lines.ended:
        # the last line is no puzzle and has no line end: the file was cut in the middle of it
        raise PuzzleFileCutError(
            _(
                "{file!r} ends in the middle of line {line} (cut short?); the puzzles before it are kept, "
                "download it again"
            ).format(file=name, line=reading.lines)
        )
    if progress is not None:
        progress(size, size)


def _damaged(name: str, damage: str, line: int, *, kept: bool) -> str:
    """What is wrong with a zstandard file whose ``damage`` (:data:`CUT_SHORT`, else zstandard's words)
    came after ``line``; ``kept``: puzzles came before it."""
    if damage == CUT_SHORT and kept:
        message = _(
            "{file!r} is cut short (its last zstandard frame ends early) after line {line}; the puzzles "
            "before it are kept, download it again"
        )
    elif damage == CUT_SHORT:
        message = _(
            "{file!r} is cut short (its last zstandard frame ends early) after line {line}; no puzzle came "
            "before it, download it again"
        )
    elif kept:
        message = _(
            "{file!r} is damaged (zstandard: {reason}) after line {line}; the puzzles before it are kept, "
            "download it again"
        )
    else:
        message = _(
            "{file!r} is damaged (zstandard: {reason}) after line {line}; no puzzle came before it, download "
            "it again"
        )
    return message.format(file=name, line=line, reason=damage)


class _Lines:
    """The file's lines for the CSV reader, each at most :data:`MAX_LINE_CHARS` long: a longer one is damage,
    read in pieces and never held whole (it reaches the reader empty, :attr:`too_long` set). ``ended``:
    whether the last line read had its line end; a last line without one where the data was damaged
    (``damage`` says why) is left out."""

    def __init__(self, text: IO[str], damage: Callable[[], str | None]) -> None:
        self._text = text
        self._damage = damage
        self.too_long = False
        self.ended = True

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = self._text.readline(MAX_LINE_CHARS)
        if not line:
            raise StopIteration
        if len(line) == MAX_LINE_CHARS and line[-1] != "\n":
            while line and line[-1] != "\n":
                line = self._text.readline(MAX_LINE_CHARS)
            self.too_long = True
            return "\n"
        self.ended = line[-1] == "\n"
        if not self.ended and self._damage() is not None:
            raise StopIteration  # the line the damage cut: not a puzzle, whatever it looks like
        return line


def _position(raw: IO[bytes], size: int) -> int:
    try:
        return min(size, raw.tell())
    except (OSError, ValueError):
        return 0


class _ZstdFrames(io.RawIOBase):
    """The decompressed bytes of a zstandard file, frame after frame. Damage (a frame cut short, bytes
    that do not decompress) ends the stream early and is kept in :attr:`damage` for the reader to say
    once the lines before it are read."""

    def __init__(self, raw: IO[bytes], path: Path) -> None:
        super().__init__()
        try:
            import zstandard
        except ImportError as exc:
            raise MissingLibraryError(
                _(
                    "{file!r} is compressed with zstandard, which needs the 'zstandard' package: pip install "
                    "'chessatron[puzzles]' (or unpack it first: unzstd FILE)"
                ).format(file=str(path))
            ) from exc
        self._zstd: Any = zstandard
        self._raw = raw
        self._frame: Any = zstandard.ZstdDecompressor().decompressobj()
        self._pending = b""
        self._offset = 0
        self._started = False
        self.damage: str | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self._offset >= len(self._pending):
            self._pending, self._offset = b"", 0
            if not self._fill():
                return 0
        count = min(len(buffer), len(self._pending) - self._offset)
        buffer[:count] = self._pending[self._offset : self._offset + count]
        self._offset += count
        return count

    def _fill(self) -> bool:
        """Decompress the next chunk; False at the end of the data (or at damage)."""
        if self.damage is not None:
            return False
        chunk = self._raw.read(1 << 20)
        if not chunk:
            if self._started and not self._frame.eof:
                self.damage = CUT_SHORT
            return False
        try:
            while chunk:
                self._started = True
                self._pending += self._frame.decompress(chunk)  # (empty: readinto used it up)
                chunk = b""
                if self._frame.eof:
                    chunk = self._frame.unused_data
                    self._frame = self._zstd.ZstdDecompressor().decompressobj()
                    self._started = bool(chunk)
        except self._zstd.ZstdError as exc:
            self.damage = str(exc)
            return bool(self._pending)
        return True
