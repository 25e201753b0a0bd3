"""The local store of training: puzzles (imported, mined, the starter set), every attempt with its time and
the rating after it, and reviews of games made before, in one SQLite file.

The file is ``--store FILE``, else ``$CHESSATRON_TRAINING``, else
``$XDG_DATA_HOME/chessatron/training.sqlite3``. SQLite because lichess's database holds millions of
puzzles that must be chosen from by rating and theme in a moment, on a Raspberry Pi too. The starter set
shipped with the package (:mod:`.starter`) is loaded the first time the store is opened, so that puzzles
work on a fresh install. The tables and the upgrade of an older store are :mod:`.schema`'s, an import's
batches and its taking up again :mod:`.importer`'s, drawing puzzles at random :mod:`.sampling`'s.

>>> import random, tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     store = PuzzleStore(Path(folder) / "t.sqlite3", starter=False)
...     store.add([Puzzle("p1", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", ("g8f8", "d1d8"), rating=900)])
...     store.choose(900, rng=random.Random(1)).puzzle_id
1
'p1'
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import random
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from ..errors import NoPuzzleError, PuzzleError, PuzzleStoreError
from ..i18n import _
from . import schema
from .attempts import PERSON_PLAYERS, Attempt, is_person
from .importer import ImportReport, import_file, resume_from, stopped_import, write_puzzles
from .lichess import Progress, Row, row_puzzle
from .puzzle import Puzzle
from .rating import Rating
from .sampling import COLUMNS, NO_FILTERS, Candidate, Filters, candidate_of, drawing, fetch, sample

LOGGER = logging.getLogger(__name__)

ENV_VAR: Final = "CHESSATRON_TRAINING"
SCHEMA_VERSION: Final = schema.SCHEMA_VERSION
#: How far from the target rating puzzles are looked for, widening until one fits.
WINDOWS: Final = (75, 150, 300, 600, 10_000)
#: Puzzles of a stopped import whose index entries are made when the store is opened (more wait for the
#: import to be taken up again: making them takes a while).
SETTLE_AT_OPEN: Final = 200_000
#: Pages of SQLite's cache for an import (negative: KiB): enough for the index's pages in hand, bounded.
IMPORT_CACHE_KIB: Final = 65_536


def default_store_path() -> Path:
    """``$CHESSATRON_TRAINING`` or ``$XDG_DATA_HOME/chessatron/training.sqlite3``."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "chessatron" / "training.sqlite3"


class PuzzleStore:
    """The training store at ``path`` (created when missing, upgraded when older). ``starter``: load the
    shipped starter set into a store that has not had it yet."""

    def __init__(self, path: Path | None = None, *, starter: bool = True) -> None:
        self.path = path if path is not None else default_store_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PuzzleStoreError(
                _("cannot make the folder of the training store {path!r}: {reason}").format(
                    path=str(self.path), reason=exc.strerror or exc
                )
            ) from exc
        with self._connection(autocommit=True) as db:
            # several programs share the store (the web page, a command): readers never wait for a writer
            db.execute("PRAGMA journal_mode = WAL")
            schema.create(db)
            waiting = schema.waiting(db)
            if 0 < waiting <= SETTLE_AT_OPEN:
                db.execute("BEGIN IMMEDIATE")
                schema.settle(db)  # the puzzles of an import killed before it could
                db.execute("COMMIT")
        if starter and self._meta("starter") is None:
            from .starter import load_starter

            added = self.add(load_starter())
            self._set_meta("starter", str(added))
            LOGGER.info("the starter set's %d puzzles loaded into %s", added, self.path)

    def __repr__(self) -> str:
        return f"PuzzleStore({str(self.path)!r})"

    @contextlib.contextmanager
    def _connection(self, *, autocommit: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection for one piece of work, committed at its end (each thread opens its own).
        ``autocommit``: the work makes its own transactions."""
        try:
            db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None if autocommit else "DEFERRED")
        except sqlite3.Error as exc:
            raise PuzzleStoreError(
                _("cannot open the training store {path!r}: {reason}").format(path=str(self.path), reason=exc)
            ) from exc
        try:
            db.execute("PRAGMA synchronous = NORMAL")  # WAL: a crash loses at most the last transactions
            with db:
                yield db
        except sqlite3.DatabaseError as exc:
            raise PuzzleStoreError(
                _(
                    "the training store {path!r} cannot be used ({reason}); move it away to start afresh"
                ).format(path=str(self.path), reason=exc)
            ) from exc
        finally:
            db.close()

    def _meta(self, key: str) -> str | None:
        with self._connection() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        with self._connection() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # --- puzzles in --------------------------------------------------------------------------------

    def add(self, puzzles: Iterable[Puzzle], *, on_batch: Callable[[int], None] | None = None) -> int:
        """Store ``puzzles`` (one already stored under its id is updated in place: a newer export's
        rating); returns how many. ``on_batch`` is told the count after each batch written."""
        rows = ((_row(puzzle), puzzle.source) for puzzle in puzzles)
        with self._connection(autocommit=True) as db:
            return write_puzzles(db, rows, on_batch=on_batch).puzzles

    def import_file(
        self,
        path: Path,
        report: ImportReport | None = None,
        *,
        source: str = "lichess",
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import lichess's puzzle file at ``path`` (:mod:`.importer`: taken up where an import of the same
        file stopped, known puzzles updated in place). ``report`` follows what is written, so that it
        holds what was kept when this raises (a damaged file, Ctrl-C)."""
        report = report if report is not None else ImportReport()
        with self._connection(autocommit=True) as db:
            db.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
            db.execute("PRAGMA wal_autocheckpoint = 16384")  # a checkpoint (and its syncs) each 64 MiB
            import_file(db, path, report, source=source, progress=progress)
        return report

    def resuming(self, path: Path) -> ImportReport | None:
        """What an import of the file at ``path`` that stopped before its end had done (it goes on from
        there when the file is imported again), or None."""
        report = ImportReport(file=str(path))
        with self._connection(autocommit=True) as db:
            return report if resume_from(db, path, report) else None

    def stopped_import(self) -> tuple[str, int] | None:
        """The file and the line of the last import, if it stopped before the file's end."""
        with self._connection() as db:
            return stopped_import(db)

    def rerate(self, puzzle_id: str, rating: Rating) -> None:
        """Give a puzzle a new rating (one mined here: its first guess refined as people play it)."""
        with self._connection() as db:
            found = db.execute(
                "SELECT rowid, rating, tags, bits, bad FROM puzzles WHERE id = ?", (puzzle_id,)
            ).fetchone()
            if found is None:
                return
            rowid, old, tags, bits, bad = found
            new = round(rating.rating)
            db.execute(
                "UPDATE puzzles SET rating = ?, rating_deviation = ?, plays = plays + 1 WHERE rowid = ?",
                (new, round(rating.deviation), rowid),
            )
            if bad is None and new != old:
                _reindex(db, rowid, json.loads(tags), bits, old, new)

    def set_aside(self, candidate: Candidate, reason: str) -> None:
        """A puzzle found unplayable when chosen: kept, with ``reason``, but never chosen again."""
        LOGGER.warning("puzzle %s set aside: %s", candidate.puzzle_id, reason)
        with self._connection() as db:
            found = db.execute(
                "SELECT rating, tags, bits, bad, themes, openings, source FROM puzzles WHERE rowid = ?",
                (candidate.rowid,),
            ).fetchone()
            if found is None or found[3] is not None:
                return
            rating, tags, bits, _bad, themes, openings, source = found
            db.execute("UPDATE puzzles SET bad = ? WHERE rowid = ?", (reason, candidate.rowid))
            _reindex(db, candidate.rowid, json.loads(tags), bits, rating, None)
            every = schema.Tags(db).of(db, themes, openings, source).ids
            db.executemany("UPDATE tags SET puzzles = puzzles - 1 WHERE id = ?", [(tag,) for tag in every])

    # --- puzzles out -------------------------------------------------------------------------------

    def count(self, filters: Filters = NO_FILTERS) -> int:
        """How many playable puzzles fit ``filters`` (a count kept as puzzles come, for one tag)."""
        with self._connection() as db:
            asked = filters.tags()
            if not asked:
                query = "SELECT coalesce(sum(puzzles), 0) FROM tags WHERE kind = ?"
                return int(db.execute(query, (schema.SOURCE,)).fetchone()[0])
            if len(asked) == 1:
                row = db.execute("SELECT puzzles FROM tags WHERE kind = ? AND name = ?", asked[0]).fetchone()
                return 0 if row is None else int(row[0])
            draw = drawing(db, filters)
            if draw is None:
                return 0
            if not draw.tags:
                query = "SELECT count(*) FROM rated WHERE bits & ? = ?"
                return int(db.execute(query, (draw.bits, draw.bits)).fetchone()[0])
            tag, _count = draw.tags[0]
            columns = ", ".join(f"puzzles.{column}" for column in COLUMNS.split(", "))
            query = (
                f"SELECT {columns} FROM tagged JOIN puzzles ON puzzles.rowid = (key & {schema.ROWID_MASK}) "
                "WHERE key BETWEEN ? AND ?"
            )
            bounds = (schema.key(tag, 0, 0), schema.key(tag, schema.MAX_RATING, schema.ROWID_MASK))
            return sum(1 for record in db.execute(query, bounds) if filters.admits(candidate_of(record)))

    def set_aside_count(self) -> int:
        """Puzzles found unplayable when chosen (:meth:`set_aside`)."""
        with self._connection() as db:
            return int(db.execute("SELECT count(bad) FROM puzzles").fetchone()[0])

    def get(self, puzzle_id: str) -> Puzzle:
        with self._connection() as db:
            record = db.execute(f"SELECT {COLUMNS} FROM puzzles WHERE id = ?", (puzzle_id,)).fetchone()
        if record is None:
            raise NoPuzzleError(
                _("no puzzle {id!r} in the store; 'chessatron puzzles stats' counts them").format(
                    id=puzzle_id
                )
            )
        candidate = candidate_of(record)
        return row_puzzle(candidate.row, candidate.source)

    def themes(self) -> list[tuple[str, int]]:
        """Every theme with how many puzzles have it, the most common first."""
        with self._connection() as db:
            rows = db.execute(
                "SELECT name, puzzles FROM tags WHERE kind = ? AND puzzles > 0 ORDER BY puzzles DESC, name",
                (schema.THEME,),
            ).fetchall()
        return [(str(name), int(count)) for name, count in rows]

    def candidates(
        self,
        rating: float,
        filters: Filters = NO_FILTERS,
        *,
        want: int = 20,
        enough: int = 1,
        windows: Iterable[int] = WINDOWS,
        rng: random.Random | None = None,
        avoid: Iterable[str] = (),
    ) -> list[Candidate]:
        """Puzzles that fit ``filters``, drawn at random near ``rating``: about ``want`` of the narrowest
        window of ``windows`` (points either side) holding ``enough`` of them; puzzles never tried and not
        in ``avoid`` while there are such, else any. Not yet checked in full (:meth:`puzzle`). Empty when
        no puzzle fits at all."""
        rng = rng or random.Random()
        avoided = set(avoid)
        centre = round(rating)
        with self._connection() as db:
            draw = drawing(db, filters)
            if draw is None:
                return []
            tried = {str(row[0]) for row in db.execute("SELECT DISTINCT puzzle_id FROM attempts")}
            widths = tuple(windows)
            for shunned in (tried | avoided, avoided, set()):
                most: list[Candidate] = []
                for window in widths:
                    low, high = centre - window, centre + window
                    found = [
                        candidate
                        for candidate, bad in fetch(db, sample(db, draw, low, high, want, rng))
                        if bad is None
                        and low <= candidate.rating <= high
                        and candidate.puzzle_id not in shunned
                        and filters.admits(candidate)
                    ]
                    if len(found) >= enough:
                        return found
                    most = found if len(found) > len(most) else most
                if most:
                    return most
        return []

    def puzzle(self, candidate: Candidate) -> Puzzle:
        """A candidate checked in full. One that fails is set aside (:meth:`set_aside`) and raises
        :class:`PuzzleError`."""
        try:
            return row_puzzle(candidate.row, candidate.source)
        except PuzzleError as exc:
            self.set_aside(candidate, str(exc))
            raise

    def choose(
        self,
        rating: float,
        filters: Filters = NO_FILTERS,
        *,
        rng: random.Random | None = None,
        fits: Callable[[Puzzle], bool] = lambda puzzle: True,
        avoid: Iterable[str] = (),
    ) -> Puzzle:
        """A puzzle near ``rating`` (the nearest window of :data:`WINDOWS` that holds one), chosen at
        random, never one tried before or in ``avoid`` while others are left, and one that ``fits`` (the
        table owns its pieces). Raises :class:`NoPuzzleError` when none is left."""
        rng = rng or random.Random()
        for window in WINDOWS:
            for candidate in self.candidates(rating, filters, windows=(window,), rng=rng, avoid=avoid):
                try:
                    puzzle = self.puzzle(candidate)
                except PuzzleError:
                    continue
                if fits(puzzle):
                    return puzzle
        raise self.none_left(filters)

    def none_left(self, filters: Filters) -> NoPuzzleError:
        """The error for no puzzle fitting ``filters``."""
        asked = filters.words()
        if not asked:
            return NoPuzzleError(
                _(
                    "no puzzle in the store fits; 'chessatron puzzles import FILE' adds lichess's puzzles, "
                    "'chessatron puzzles mine' your own"
                )
            )
        return NoPuzzleError(
            _(
                "no puzzle in the store fits ({asked}); 'chessatron puzzles import FILE' adds lichess's "
                "puzzles, 'chessatron puzzles mine' your own"
            ).format(asked=asked)
        )

    # --- attempts and the rating -------------------------------------------------------------------

    def rating(self, player: str | None = None) -> Rating:
        """The person's rating after their last attempt (a newcomer's before the first); for a simulated
        ``player`` kind (``hand``...), the simulated players' own, kept apart."""
        simulated = not is_person(player)
        with self._connection() as db:
            for row in db.execute(
                "SELECT rating, deviation, volatility, player FROM attempts ORDER BY id DESC"
            ):
                if is_person(row[3]) != simulated:
                    return Rating(float(row[0]), float(row[1]), float(row[2]))
        return Rating()

    def record(self, attempt: Attempt) -> None:
        """Save one attempt (and with it the rating after it)."""
        with self._connection() as db:
            db.execute(
                "INSERT INTO attempts (puzzle_id, played_at, seconds, solved, wrong, hints, puzzle_rating, "
                "rating, deviation, volatility, player) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    attempt.puzzle_id,
                    attempt.played_at.astimezone(dt.UTC).isoformat(timespec="seconds"),
                    attempt.seconds,
                    int(attempt.solved),
                    attempt.wrong,
                    attempt.hints,
                    attempt.puzzle_rating,
                    attempt.rating.rating,
                    attempt.rating.deviation,
                    attempt.rating.volatility,
                    attempt.player,
                ),
            )

    def attempts(self, limit: int | None = None, *, simulated: bool | None = False) -> list[Attempt]:
        """The person's attempts, oldest first (the last ``limit`` of them); ``simulated``: the simulated
        players' instead, None: everyone's."""
        columns = "puzzle_id, played_at, seconds, solved, wrong, hints, puzzle_rating, rating, deviation, "
        columns += "volatility, player"
        kinds = ",".join(f"'{kind}'" for kind in sorted(PERSON_PLAYERS))
        where = {
            False: f"WHERE player IS NULL OR player IN ({kinds})",
            True: f"WHERE player IS NOT NULL AND player NOT IN ({kinds})",
            None: "",
        }[simulated]
        with self._connection() as db:
            rows = db.execute(
                f"SELECT {columns} FROM attempts {where} ORDER BY id DESC LIMIT ?",
                (-1 if limit is None else limit,),
            ).fetchall()
        return [
            Attempt(
                str(row[0]),
                dt.datetime.fromisoformat(str(row[1])),
                float(row[2]),
                bool(row[3]),
                int(row[4]),
                int(row[5]),
                int(row[6]),
                Rating(float(row[7]), float(row[8]), float(row[9])),
                None if row[10] is None else str(row[10]),
            )
            for row in reversed(rows)
        ]

    # --- reviews -----------------------------------------------------------------------------------

    def review(self, key: str) -> tuple[dict[str, Any], str] | None:
        """A review made before under ``key`` (a game and how it was searched): its JSON and its PGN."""
        with self._connection() as db:
            row = db.execute("SELECT review, pgn FROM reviews WHERE game_key = ?", (key,)).fetchone()
        if row is None:
            return None
        return dict(json.loads(str(row[0]))), str(row[1])

    def keep_review(self, key: str, review: dict[str, Any], pgn: str) -> None:
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with self._connection() as db:
            db.execute("INSERT OR REPLACE INTO reviews VALUES (?,?,?,?)", (key, now, json.dumps(review), pgn))

    # --- games mined for puzzles ---------------------------------------------------------------------
    # ``chessatron puzzles mine`` analyses each game once: what it found (how many puzzles, or why none)
    # is kept under the game's key (its id, length and result), in a table of its own made when first
    # needed, so that the store's schema above is left as it is.

    _MINED: Final = (
        "CREATE TABLE IF NOT EXISTS mined ("
        "game_key TEXT PRIMARY KEY, mined_at TEXT NOT NULL, puzzles INTEGER NOT NULL, reason TEXT NOT NULL)"
    )

    def mined(self, key: str) -> tuple[int, str] | None:
        """What mining the game under ``key`` found before: how many puzzles, and why none (else "")."""
        with self._connection() as db:
            db.execute(self._MINED)
            row = db.execute("SELECT puzzles, reason FROM mined WHERE game_key = ?", (key,)).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def keep_mined(self, key: str, puzzles: int, reason: str = "") -> None:
        """Keep what mining the game under ``key`` found: ``puzzles`` (how many), or ``reason`` for none."""
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        with self._connection() as db:
            db.execute(self._MINED)
            db.execute("INSERT OR REPLACE INTO mined VALUES (?,?,?,?)", (key, now, puzzles, reason))


def _row(puzzle: Puzzle) -> Row:
    return (
        puzzle.puzzle_id,
        puzzle.fen,
        " ".join(puzzle.moves),
        puzzle.rating,
        puzzle.rating_deviation,
        puzzle.popularity,
        puzzle.plays,
        " ".join(puzzle.themes),
        puzzle.game_url,
        " ".join(puzzle.openings),
    )


def _reindex(
    db: sqlite3.Connection, rowid: int, tags: list[int], bits: int, old: int, new: int | None
) -> None:
    """A puzzle's entries in the indexes moved from rating ``old`` to ``new`` (None: removed). One whose
    entries are not made yet (:func:`.schema.settle`) has none to move."""
    if rowid > schema.tagged_upto(db):
        return
    db.execute("DELETE FROM rated WHERE key = ?", (schema.rated_key(old, rowid),))
    db.executemany("DELETE FROM tagged WHERE key = ?", [(schema.key(tag, old, rowid),) for tag in tags])
    if new is not None:
        db.execute("INSERT OR IGNORE INTO rated VALUES (?, ?)", (schema.rated_key(new, rowid), bits))
        db.executemany(
            "INSERT OR IGNORE INTO tagged VALUES (?)", [(schema.key(tag, new, rowid),) for tag in tags]
        )


__all__ = [
    "NO_FILTERS",
    "PERSON_PLAYERS",
    "Attempt",
    "Candidate",
    "Filters",
    "ImportReport",
    "PuzzleStore",
    "default_store_path",
    "is_person",
]
