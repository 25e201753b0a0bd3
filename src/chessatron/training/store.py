"""The local store of training: puzzles (imported, mined, the starter set), every attempt with its time and
the rating after it, and reviews of games made before, in one SQLite file.

The file is ``--store FILE``, else ``$CHESSATRON_TRAINING``, else
``$XDG_DATA_HOME/chessatron/training.sqlite3``. SQLite because lichess's database holds millions of
puzzles that must be chosen from by rating and theme in a moment, on a Raspberry Pi too. The starter set
shipped with the package (:mod:`.starter`) is loaded the first time the store is opened, so that puzzles
work on a fresh install.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..errors import NoPuzzleError, PuzzleStoreError
from .puzzle import Puzzle
from .rating import Rating

LOGGER = logging.getLogger(__name__)

ENV_VAR: Final = "CHESSATRON_TRAINING"
SCHEMA_VERSION: Final = 1
#: Puzzles added in one transaction during an import.
BATCH: Final = 5000
#: How far from the target rating puzzles are looked for, widening until one fits.
WINDOWS: Final = (75, 150, 300, 600, 10_000)

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS puzzles (
    id TEXT PRIMARY KEY, fen TEXT NOT NULL, moves TEXT NOT NULL, rating INTEGER NOT NULL,
    rating_deviation INTEGER NOT NULL, popularity INTEGER NOT NULL, plays INTEGER NOT NULL,
    themes TEXT NOT NULL, game_url TEXT NOT NULL, openings TEXT NOT NULL, source TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS puzzles_by_rating ON puzzles (rating);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, puzzle_id TEXT NOT NULL, played_at TEXT NOT NULL,
    seconds REAL NOT NULL, solved INTEGER NOT NULL, wrong INTEGER NOT NULL, hints INTEGER NOT NULL,
    puzzle_rating INTEGER NOT NULL, rating REAL NOT NULL, deviation REAL NOT NULL, volatility REAL NOT NULL);
CREATE INDEX IF NOT EXISTS attempts_by_puzzle ON attempts (puzzle_id);
CREATE TABLE IF NOT EXISTS reviews (
    game_key TEXT PRIMARY KEY, made_at TEXT NOT NULL, review TEXT NOT NULL, pgn TEXT NOT NULL);
"""


def default_store_path() -> Path:
    """``$CHESSATRON_TRAINING`` or ``$XDG_DATA_HOME/chessatron/training.sqlite3``."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "chessatron" / "training.sqlite3"


@dataclass(frozen=True)
class Attempt:
    """One puzzle tried: when, how long it took (seconds from the puzzle ready on the board to solved or
    failed), whether it was solved without a wrong move or a hint, and the rating after it."""

    puzzle_id: str
    played_at: dt.datetime
    seconds: float
    solved: bool
    wrong: int
    """Wrong moves made on the way."""
    hints: int
    puzzle_rating: int
    rating: Rating

    def to_json(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle_id,
            "at": self.played_at.isoformat(timespec="seconds"),
            "seconds": round(self.seconds, 1),
            "solved": self.solved,
            "wrong": self.wrong,
            "hints": self.hints,
            "puzzle_rating": self.puzzle_rating,
            "rating": round(self.rating.rating, 1),
            "deviation": round(self.rating.deviation, 1),
        }


@dataclass(frozen=True)
class Filters:
    """What a puzzle must be: of a theme (lichess's names: ``fork``, ``mateIn2``...), of an opening
    (``Sicilian_Defense``), from a source (``lichess``, ``starter``, ``game``)."""

    theme: str | None = None
    opening: str | None = None
    source: str | None = None


#: Any puzzle.
NO_FILTERS: Final = Filters()


class PuzzleStore:
    """The training store at ``path`` (created when missing). ``starter``: load the shipped starter set
    into a store that has not had it yet."""

    def __init__(self, path: Path | None = None, *, starter: bool = True) -> None:
        self.path = path if path is not None else default_store_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PuzzleStoreError(
                f"cannot make the folder of the training store {str(self.path)!r}: {exc.strerror or exc}"
            ) from exc
        with self._connection() as db:
            db.executescript(_SCHEMA)
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        if starter and self._meta("starter") is None:
            from .starter import load_starter

            added = self.add(load_starter())
            self._set_meta("starter", str(added))
            LOGGER.info("the starter set's %d puzzles loaded into %s", added, self.path)

    def __repr__(self) -> str:
        return f"PuzzleStore({str(self.path)!r})"

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection for one piece of work, committed at its end (each thread opens its own)."""
        try:
            db = sqlite3.connect(self.path, timeout=30.0)
        except sqlite3.Error as exc:
            raise PuzzleStoreError(f"cannot open the training store {str(self.path)!r}: {exc}") from exc
        try:
            with db:
                yield db
        except sqlite3.DatabaseError as exc:
            raise PuzzleStoreError(
                f"the training store {str(self.path)!r} cannot be used ({exc}); move it away to start afresh"
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

    # --- puzzles -----------------------------------------------------------------------------------

    def add(self, puzzles: Iterable[Puzzle], *, on_batch: Callable[[int], None] | None = None) -> int:
        """Store ``puzzles`` (one already stored under its id is replaced: a newer export's rating);
        returns how many. ``on_batch`` is told the count after each batch written."""
        count = 0
        batch: list[tuple[object, ...]] = []

        def flush() -> None:
            with self._connection() as db:
                db.executemany("INSERT OR REPLACE INTO puzzles VALUES (?,?,?,?,?,?,?,?,?,?,?)", batch)
            batch.clear()
            if on_batch is not None:
                on_batch(count)

        for puzzle in puzzles:
            batch.append(_row(puzzle))
            count += 1
            if len(batch) >= BATCH:
                flush()
        if batch:
            flush()
        return count

    def count(self, filters: Filters = NO_FILTERS) -> int:
        where, values = _where(filters)
        with self._connection() as db:
            row = db.execute(f"SELECT count(*) FROM puzzles WHERE {where}", values).fetchone()
        return int(row[0])

    def get(self, puzzle_id: str) -> Puzzle:
        with self._connection() as db:
            row = db.execute("SELECT * FROM puzzles WHERE id = ?", (puzzle_id,)).fetchone()
        if row is None:
            raise NoPuzzleError(
                f"no puzzle {puzzle_id!r} in the store; 'chessatron puzzles stats' counts them"
            )
        return _puzzle(row)

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
        where, values = _where(filters)
        avoided = sorted(set(avoid))
        not_avoided = f" AND id NOT IN ({','.join('?' * len(avoided))})" if avoided else ""
        fresh = " AND id NOT IN (SELECT puzzle_id FROM attempts)"
        with self._connection() as db:
            for unseen in (fresh + not_avoided, not_avoided, ""):
                for window in WINDOWS:
                    query = f"FROM puzzles WHERE {where} AND rating BETWEEN ? AND ?{unseen}"
                    bounds = [round(rating) - window, round(rating) + window]
                    args = [*values, *bounds, *(avoided if not_avoided and not_avoided in unseen else [])]
                    total = int(db.execute(f"SELECT count(*) {query}", args).fetchone()[0])
                    tried: set[int] = set()
                    while len(tried) < min(total, 20):
                        offset = rng.randrange(total)
                        if offset in tried:
                            continue
                        tried.add(offset)
                        row = db.execute(f"SELECT * {query} ORDER BY id LIMIT 1 OFFSET ?", [*args, offset])
                        puzzle = _puzzle(row.fetchone())
                        if fits(puzzle):
                            return puzzle
        asked = [f"{name} {value!r}" for name, value in vars(filters).items() if value]
        raise NoPuzzleError(
            f"no puzzle in the store fits{' (' + ', '.join(asked) + ')' if asked else ''}; "
            "'chessatron puzzles import FILE' adds lichess's puzzles, 'chessatron puzzles mine' your own"
        )

    def themes(self) -> list[tuple[str, int]]:
        """Every theme with how many puzzles have it, the most common first."""
        counts: dict[str, int] = {}
        with self._connection() as db:
            for (themes,) in db.execute("SELECT themes FROM puzzles"):
                for theme in str(themes).split():
                    counts[theme] = counts.get(theme, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def rerate(self, puzzle_id: str, rating: Rating) -> None:
        """Give a puzzle a new rating (one mined here: its first guess refined as people play it)."""
        with self._connection() as db:
            db.execute(
                "UPDATE puzzles SET rating = ?, rating_deviation = ?, plays = plays + 1 WHERE id = ?",
                (round(rating.rating), round(rating.deviation), puzzle_id),
            )

    # --- attempts and the rating -------------------------------------------------------------------

    def rating(self) -> Rating:
        """The person's rating after their last attempt (a newcomer's before the first)."""
        with self._connection() as db:
            row = db.execute(
                "SELECT rating, deviation, volatility FROM attempts ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return Rating() if row is None else Rating(float(row[0]), float(row[1]), float(row[2]))

    def record(self, attempt: Attempt) -> None:
        """Save one attempt (and with it the rating after it)."""
        with self._connection() as db:
            db.execute(
                "INSERT INTO attempts (puzzle_id, played_at, seconds, solved, wrong, hints, puzzle_rating, "
                "rating, deviation, volatility) VALUES (?,?,?,?,?,?,?,?,?,?)",
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
                ),
            )

    def attempts(self, limit: int | None = None) -> list[Attempt]:
        """The attempts, oldest first (the last ``limit`` of them)."""
        with self._connection() as db:
            columns = "puzzle_id, played_at, seconds, solved, wrong, hints, puzzle_rating, rating, "
            columns += "deviation, volatility"
            rows = db.execute(
                f"SELECT {columns} FROM attempts ORDER BY id DESC LIMIT ?", (-1 if limit is None else limit,)
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


def _row(puzzle: Puzzle) -> tuple[object, ...]:
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
        puzzle.source,
    )


def _puzzle(row: tuple[Any, ...]) -> Puzzle:
    return Puzzle(
        str(row[0]),
        str(row[1]),
        tuple(str(row[2]).split()),
        rating=int(row[3]),
        rating_deviation=int(row[4]),
        popularity=int(row[5]),
        plays=int(row[6]),
        themes=tuple(str(row[7]).split()),
        game_url=str(row[8]),
        openings=tuple(str(row[9]).split()),
        source=str(row[10]),
    )


def _where(filters: Filters) -> tuple[str, list[object]]:
    """The SQL condition for ``filters`` (a theme or an opening is one of the space-separated words)."""
    clauses = ["1"]
    values: list[object] = []
    for column, value in (("themes", filters.theme), ("openings", filters.opening)):
        if value:
            clauses.append(f"(' ' || {column} || ' ') LIKE ?")
            values.append(f"% {value} %")
    if filters.source:
        clauses.append("source = ?")
        values.append(filters.source)
    return " AND ".join(clauses), values


__all__ = ["NO_FILTERS", "Attempt", "Filters", "PuzzleStore", "default_store_path"]
