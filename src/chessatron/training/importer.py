"""Puzzles into the store by the million: lichess's database imported, taken up again where it stopped,
and imported again from a newer file in place.

Each batch of :data:`BATCH` puzzles is one transaction: the new ones added, the known ones (the same
``PuzzleId``) updated in place when the file says otherwise (a newer export's rating, deviation,
popularity and plays), unchanged ones left alone; the tags' counts follow, and the indexes' entries are
made afterwards, all at once and sorted (:func:`.schema.settle`). With the batch the store notes how far
into the file it got (``meta`` ``import``: the file by a digest of its first MiB, and the line), so an
import stopped by Ctrl-C, killed or cut short by a damaged file is taken up at that line by importing the
same file again. Memory stays flat: one batch is held at a time.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from ..errors import PuzzleFileCutError
from ..i18n import ngettext
from ..i18n.formats import decimal
from .lichess import Progress, Reading, Row, read_rows
from .schema import Tags, count_changes, settle

#: Puzzles written in one transaction.
BATCH: Final = 5000

#: The store's note of the import under way (``meta`` key).
IMPORT_KEY: Final = "import"

_INSERT: Final = (
    "INSERT INTO puzzles (rowid, id, fen, moves, rating, rating_deviation, popularity, plays, themes, "
    "game_url, openings, source, tags, bits) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_UPDATE: Final = (
    "UPDATE puzzles SET fen = ?, moves = ?, rating = ?, rating_deviation = ?, popularity = ?, plays = ?, "
    "themes = ?, game_url = ?, openings = ?, source = ?, bad = ?, tags = ?, bits = ? WHERE rowid = ?"
)
_KNOWN: Final = (
    "SELECT rowid, id, fen, moves, rating, rating_deviation, popularity, plays, themes, game_url, openings, "
    "source, bad, tags FROM puzzles WHERE id IN "
)


@dataclass
class ImportReport:
    """What an import did: puzzles new to the store, updated in place, unchanged; lines skipped (the first
    reasons); the lines read; the line it was taken up at (0: from the start); whether it reached the end."""

    file: str = ""
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    reasons: list[str] = field(default_factory=list)
    lines: int = 0
    resumed_at: int = 0
    done: bool = False

    @property
    def puzzles(self) -> int:
        return self.new + self.updated + self.unchanged

    def summary(self) -> str:
        """``1,000 puzzles (990 new, 10 updated, 0 unchanged)``, in the current language."""
        return ngettext(
            "{count} puzzle ({new} new, {updated} updated, {unchanged} unchanged)",
            "{count} puzzles ({new} new, {updated} updated, {unchanged} unchanged)",
            self.puzzles,
        ).format(
            count=decimal(self.puzzles),
            new=decimal(self.new),
            updated=decimal(self.updated),
            unchanged=decimal(self.unchanged),
        )


class Writer:
    """Batches of checked rows into the store on ``db`` (autocommit mode: each batch its own transaction),
    counting into ``report``."""

    def __init__(self, db: sqlite3.Connection, report: ImportReport) -> None:
        self.db = db
        self.report = report
        self.tags = Tags(db)

    def write(
        self,
        rows: Sequence[Row],
        source: str,
        note: Callable[[Counter[str]], dict[str, Any]] | None = None,
    ) -> None:
        """One transaction: ``rows`` added or updated, and the ``note`` of how far the import got (made from
        the batch's counts) saved with them."""
        db = self.db
        tally: Counter[str] = Counter()
        db.execute("BEGIN IMMEDIATE")
        try:
            if rows:
                self._write(rows, source, tally)
            if note is not None:
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (IMPORT_KEY, json.dumps(note(tally))))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        self.report.new += tally["new"]
        self.report.updated += tally["updated"]
        self.report.unchanged += tally["unchanged"]

    def _write(self, rows: Sequence[Row], source: str, tally: Counter[str]) -> None:
        db, tags = self.db, self.tags
        latest = {row[0]: row for row in rows}  # a puzzle twice in a batch: its last line counts
        ids = list(latest)
        known = {str(old[1]): old for old in db.execute(_KNOWN + f"({','.join('?' * len(ids))})", ids)}
        next_rowid = int(db.execute("SELECT coalesce(max(rowid), 0) FROM puzzles").fetchone()[0]) + 1
        inserts: list[tuple[object, ...]] = []
        updates: list[tuple[object, ...]] = []
        retags: list[tuple[object, ...]] = []
        gained: Counter[tuple[int, ...]] = Counter()
        lost: Counter[tuple[int, ...]] = Counter()
        for puzzle_id, row in latest.items():
            old = known.get(puzzle_id)
            if old is None:
                tagging = tags.of(db, row[7], row[9], source)
                inserts.append((next_rowid, *row, source, tagging.rare, tagging.bits))
                next_rowid += 1
                gained[tagging.ids] += 1
                tally["new"] += 1
                continue
            if old[2:12] == (*row[1:], source):
                tally["unchanged"] += 1
                continue
            tally["updated"] += 1
            # a new position or line may be playable where the old was not: it is checked again when chosen
            bad = old[12] if (old[2], old[3]) == (row[1], row[2]) else None
            tagging = tags.of(db, row[7], row[9], source)
            updates.append((*row[1:], source, bad, tagging.rare, tagging.bits, old[0]))
            before = tags.of(db, old[8], old[10], old[11])
            if old[12] is None:
                lost[before.ids] += 1
            if bad is None:
                gained[tagging.ids] += 1
            if old[12] is None and (bad is not None or old[4] != row[3] or before != tagging):
                retags.append((old[0], old[4], old[13]))  # its entries in the index go
            elif old[12] is not None and bad is None:
                retags.append((old[0], old[4], "[]"))  # set aside before: its entries come back
        if inserts:
            db.executemany(_INSERT, inserts)
        if updates:
            db.executemany(_UPDATE, updates)
        if retags:
            db.executemany("INSERT INTO retag VALUES (?, ?, ?)", retags)
        counts: Counter[int] = Counter()
        for tag_ids, count in gained.items():
            for tag in tag_ids:
                counts[tag] += count
        for tag_ids, count in lost.items():
            for tag in tag_ids:
                counts[tag] -= count
        count_changes(db, counts)

    def settle(self) -> None:
        """Make the index entries of what was written (one transaction: stopped, it is made again)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            settle(db)
            db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise


def file_digest(path: Path) -> str:
    """What tells a file from another for taking an import up again: a digest of its first MiB (a file
    cut short and downloaded again whole has the same; a newer export has another)."""
    with path.open("rb") as raw:
        return hashlib.sha256(raw.read(1 << 20)).hexdigest()[:32]


def import_file(
    db: sqlite3.Connection,
    path: Path,
    report: ImportReport,
    *,
    source: str = "lichess",
    progress: Progress | None = None,
) -> None:
    """Import the puzzle file at ``path`` into the store on ``db`` (autocommit mode), taking up an import
    of the same file that stopped where it stopped; ``report`` follows what is written (it holds what was
    kept when this raises).

    Raises what :func:`.lichess.read_rows` raises (after writing the puzzles before damage, for
    :class:`~chessatron.errors.PuzzleFileCutError`). A KeyboardInterrupt leaves the batches written so
    far, and the note of where to go on; their index entries are made when the import is taken up again
    and reaches the end (or when the store is opened, for a few)."""
    report.file = str(path)
    digest = _digest(path)
    resume_from(db, path, report, digest)
    writer = Writer(db, report)
    reading = Reading(skipped=report.skipped, reasons=list(report.reasons))
    batch: list[Row] = []

    def save(done: bool) -> None:
        writer.write(batch, source, lambda tally: _note_of(digest, reading, report, done, tally))
        batch.clear()
        report.lines, report.done = reading.lines, done
        report.skipped, report.reasons = reading.skipped, list(reading.reasons)

    try:
        for row in read_rows(path, reading, skip=report.resumed_at, progress=progress):
            batch.append(row)
            if len(batch) >= BATCH:
                save(False)
    except PuzzleFileCutError:
        save(False)
        writer.settle()
        raise
    save(False)
    writer.settle()
    save(True)  # (only now: stopped while its index entries were made, the import is taken up again)


def _note_of(
    digest: str, reading: Reading, report: ImportReport, done: bool, tally: Counter[str]
) -> dict[str, Any]:
    """The note saved with a batch: the file, the line reached, and the counts with the batch's."""
    kept = asdict(report)
    kept.update(skipped=reading.skipped, reasons=list(reading.reasons), lines=reading.lines, done=done)
    for name in ("new", "updated", "unchanged"):
        kept[name] += tally[name]
    return {"digest": digest, "lines": reading.lines, "done": done, "report": kept}


def resume_from(db: sqlite3.Connection, path: Path, report: ImportReport, digest: str | None = None) -> bool:
    """Whether an import of the file at ``path`` stopped before its end; if so ``report`` is made what
    it had done (its counts, and ``resumed_at`` the line it reached)."""
    digest = _digest(path) if digest is None else digest
    note = _note(db)
    if not digest or not note or note.get("digest") != digest or note.get("done"):
        return False
    kept = note.get("report", {})
    report.new = int(kept.get("new", 0))
    report.updated = int(kept.get("updated", 0))
    report.unchanged = int(kept.get("unchanged", 0))
    report.skipped = int(kept.get("skipped", 0))
    report.reasons = [str(reason) for reason in kept.get("reasons", [])]
    report.resumed_at = report.lines = int(note.get("lines", 0))
    return True


def stopped_import(db: sqlite3.Connection) -> tuple[str, int] | None:
    """The file (as it was given) and line of an import that stopped before its end, if any."""
    note = _note(db)
    if not note or note.get("done"):
        return None
    return str(note.get("report", {}).get("file", "")), int(note.get("lines", 0))


def _digest(path: Path) -> str:
    try:
        return file_digest(path)
    except OSError:
        return ""  # read_rows says what is wrong with the file


def _note(db: sqlite3.Connection) -> dict[str, Any] | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (IMPORT_KEY,)).fetchone()
    if row is None:
        return None
    try:
        note = json.loads(str(row[0]))
    except ValueError:
        return None
    return note if isinstance(note, dict) else None


def write_puzzles(
    db: sqlite3.Connection,
    rows: Iterable[tuple[Row, str]],
    *,
    on_batch: Callable[[int], None] | None = None,
) -> ImportReport:
    """Puzzles given as (row, source) (mined ones, the starter set) into the store, as an import writes."""
    report = ImportReport()
    writer = Writer(db, report)
    batch: list[Row] = []
    source = ""
    for row, kind in rows:
        if batch and (kind != source or len(batch) >= BATCH):
            writer.write(batch, source)
            batch.clear()
            if on_batch is not None:
                on_batch(report.puzzles)
        source = kind
        batch.append(row)
    if batch:
        writer.write(batch, source)
        if on_batch is not None:
            on_batch(report.puzzles)
    writer.settle()
    return report
