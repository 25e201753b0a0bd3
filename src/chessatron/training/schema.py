"""The training store's tables, and the upgrade of a store written by an older chessatron.

Lichess's database holds about 5.5 million puzzles, and a puzzle must be chosen from them by rating and
theme in a moment on a Raspberry Pi. So besides the puzzles themselves (``puzzles``, one row each, as
lichess gives them) the store keeps:

- ``tags``: every theme, opening and source by name, with how many puzzles carry it (kept as puzzles come
  and go, so that listing the themes reads a few dozen rows, not every puzzle);
- ``rated``: one integer per puzzle, (rating, rowid) packed (:func:`rated_key`), the table's own key, with
  the puzzle's common tags as bits (:data:`BROAD`: lichess's themes that many puzzles carry, and the
  lichess source). A random puzzle near a rating is one step down it from a random key inside the
  window; of a common theme, a short walk on from there (a theme one puzzle in a hundred carries is met
  within a few hundred entries, read in SQLite's own loop). A lichess file lists its puzzles by id, at
  random as to anything else, so the rowid order inside one rating is a random one;
- ``tagged``: the same for the rarer tags (the other themes, the openings, the other sources), one
  integer per puzzle and tag, (tag, rating, rowid) packed (:func:`key`);
- each puzzle's rarer tags in its row (``tags``, a JSON list of ids) and its common ones (``bits``). An
  import only appends puzzles; their entries in ``rated`` and ``tagged`` are made afterwards, all at once
  (:func:`settle`): sorted here, a few million at a time, and appended in order, many times faster than
  putting each where it belongs as it comes. ``meta`` ``tagged_upto`` is the last puzzle (rowid) whose
  entries are made; a puzzle updated in place has its old entries noted in ``retag`` until then.

A puzzle found unplayable when chosen (its full check fails: the import only checks what is cheap) keeps
its row with the reason in ``bad`` and leaves ``tagged``. Attempts record who made them (``player``: the
player kind; empty for attempts saved before kinds were kept, which were the person's).

Version 1 stores (before the tags) are upgraded when opened: the new columns are added and the tags
built from the puzzles' own words, once.
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

import numpy as np

from ..errors import PuzzleStoreError
from ..i18n import _

LOGGER = logging.getLogger(__name__)

SCHEMA_VERSION: Final = 2

#: The kinds of tag: a lichess theme, an opening (lichess's ``OpeningTags``), where the puzzle came from.
THEME: Final = "theme"
OPENING: Final = "opening"
SOURCE: Final = "source"

#: A key of ``tagged``: the tag id from bit 48, the rating (0 to 4095) from bit 36, the rowid below.
TAG_SHIFT: Final = 48
RATING_SHIFT: Final = 36
ROWID_MASK: Final = (1 << RATING_SHIFT) - 1
MAX_RATING: Final = 4095
#: Tag ids a key can hold (lichess has some 60 themes and a few thousand openings).
MAX_TAGS: Final = (1 << (63 - TAG_SHIFT)) - 1
#: The rating of a row in SQL, as the keys hold it.
_SQL_RATING: Final = f"(min(max(rating, 0), {MAX_RATING}) << {RATING_SHIFT})"
#: The key in ``tagged`` of a row, in SQL, of ``puzzles`` (or ``retag``) joined with ``json_each`` of its
#: tags.
SQL_KEY: Final = f"(value << {TAG_SHIFT}) | {_SQL_RATING} | {{rowid}}"

#: The common tags, kept as bits of ``puzzles.bits`` and ``rated.bits`` (bit: place in this list) rather
#: than in ``tagged``: the lichess source, and the themes lichess gives a hundredth of its puzzles or more
#: (a choice of speed only: any tag is found either way).
BROAD: Final = (
    ("source", "lichess"),
    *(
        ("theme", name)
        for name in (
            "advancedPawn",
            "advantage",
            "attackingF2F7",
            "attraction",
            "backRankMate",
            "bishopEndgame",
            "capturingDefender",
            "clearance",
            "crushing",
            "defensiveMove",
            "deflection",
            "discoveredAttack",
            "doubleCheck",
            "endgame",
            "equality",
            "exposedKing",
            "fork",
            "hangingPiece",
            "interference",
            "intermezzo",
            "kingsideAttack",
            "knightEndgame",
            "long",
            "master",
            "mate",
            "mateIn1",
            "mateIn2",
            "mateIn3",
            "mateIn4",
            "middlegame",
            "oneMove",
            "opening",
            "pawnEndgame",
            "pin",
            "promotion",
            "queenEndgame",
            "queenRookEndgame",
            "queensideAttack",
            "quietMove",
            "rookEndgame",
            "sacrifice",
            "short",
            "skewer",
            "smotheredMate",
            "trappedPiece",
            "veryLong",
            "xRayAttack",
            "zugzwang",
        )
    ),
)
BITS: Final = {tag: 1 << bit for bit, tag in enumerate(BROAD)}

TABLES: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS puzzles (
    id TEXT PRIMARY KEY, fen TEXT NOT NULL, moves TEXT NOT NULL, rating INTEGER NOT NULL,
    rating_deviation INTEGER NOT NULL, popularity INTEGER NOT NULL, plays INTEGER NOT NULL,
    themes TEXT NOT NULL, game_url TEXT NOT NULL, openings TEXT NOT NULL, source TEXT NOT NULL,
    bad TEXT, tags TEXT NOT NULL DEFAULT '[]', bits INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, puzzle_id TEXT NOT NULL, played_at TEXT NOT NULL,
    seconds REAL NOT NULL, solved INTEGER NOT NULL, wrong INTEGER NOT NULL, hints INTEGER NOT NULL,
    puzzle_rating INTEGER NOT NULL, rating REAL NOT NULL, deviation REAL NOT NULL, volatility REAL NOT NULL,
    player TEXT);
CREATE INDEX IF NOT EXISTS attempts_by_puzzle ON attempts (puzzle_id);
CREATE TABLE IF NOT EXISTS reviews (
    game_key TEXT PRIMARY KEY, made_at TEXT NOT NULL, review TEXT NOT NULL, pgn TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tags (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, puzzles INTEGER NOT NULL DEFAULT 0,
    UNIQUE (kind, name));
CREATE TABLE IF NOT EXISTS rated (key INTEGER PRIMARY KEY, bits INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tagged (key INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS retag (puzzle INTEGER NOT NULL, rating INTEGER NOT NULL, tags TEXT NOT NULL)
"""

#: Tag words remembered by :class:`Tags` (lichess's puzzles share far fewer).
_WORDS_KEPT: Final = 10_000

#: The ``meta`` key of the last puzzle whose entries in ``tagged`` are made.
TAGGED_UPTO: Final = "tagged_upto"

#: Entries of ``tagged`` sorted at once by :func:`settle` (8 bytes each): its memory, whatever the import.
SORTED_AT_ONCE: Final = 1_000_000
#: Above this share of the puzzles changed, :func:`settle` makes the whole index again.
REMAKE_SHARE: Final = 0.2


def key(tag: int, rating: int, rowid: int) -> int:
    """The entry of ``tagged`` for one puzzle (``rowid``) of ``rating`` with ``tag``."""
    return (tag << TAG_SHIFT) | (min(max(rating, 0), MAX_RATING) << RATING_SHIFT) | rowid


def rated_key(rating: int, rowid: int) -> int:
    """The entry of ``rated`` for one puzzle (``rowid``) of ``rating``."""
    return (min(max(rating, 0), MAX_RATING) << RATING_SHIFT) | rowid


def tag_names(themes: str, openings: str, source: str) -> Iterator[tuple[str, str]]:
    """A puzzle's tags as (kind, name), from its columns as stored (words space-separated)."""
    for theme in themes.split():
        yield THEME, theme
    for opening in openings.split():
        yield OPENING, opening
    yield SOURCE, source


class Tags:
    """The tags' ids by (kind, name), read once and added to as new names come."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._ids = {(str(k), str(n)): int(i) for i, k, n in db.execute("SELECT id, kind, name FROM tags")}
        self._words: dict[tuple[str, str, str], Tagging] = {}

    def ids(self, db: sqlite3.Connection, names: Iterable[tuple[str, str]]) -> list[int]:
        found = []
        for name in names:
            tag = self._ids.get(name)
            if tag is None:
                if len(self._ids) >= MAX_TAGS:
                    raise PuzzleStoreError(
                        _(
                            "the training store holds {count} different themes and openings already, so "
                            "{name!r} cannot be added; is the file lichess's?"
                        ).format(count=MAX_TAGS, name=name[1])
                    )
                cursor = db.execute("INSERT INTO tags (kind, name) VALUES (?, ?)", name)
                tag = self._ids[name] = int(cursor.lastrowid or 0)
            found.append(tag)
        return found

    def of(self, db: sqlite3.Connection, themes: str, openings: str, source: str) -> Tagging:
        """A puzzle's tags from its columns as stored (the same few words recur: remembered, a bounded
        number of them)."""
        words = (themes, openings, source)
        found = self._words.get(words)
        if found is not None:
            return found
        if len(self._words) >= _WORDS_KEPT:
            self._words.clear()
        ids: list[int] = []
        rare: list[str] = []
        bits = 0
        for kind, text in ((THEME, themes), (OPENING, openings), (SOURCE, source)):
            for name in text.split() if kind != SOURCE else (text,):
                tag = self._ids.get((kind, name))
                if tag is None:
                    tag = self.ids(db, [(kind, name)])[0]
                if tag in ids:
                    continue
                ids.append(tag)
                bit = BITS.get((kind, name), 0)
                if bit:
                    bits |= bit
                else:
                    rare.append(str(tag))
        found = self._words[words] = Tagging(tuple(ids), "[" + ",".join(rare) + "]", bits)
        return found


class Tagging(NamedTuple):
    """A puzzle's tags: all their ids (for the counts), the rarer ones as its row's JSON list, the common
    ones as bits."""

    ids: tuple[int, ...]
    rare: str
    bits: int


def count_changes(db: sqlite3.Connection, counts: Counter[int]) -> None:
    """Add ``counts`` (tag id: puzzles gained, or lost when negative) to the tags' counts."""
    changed = [(count, tag) for tag, count in counts.items() if count]
    if changed:
        db.executemany("UPDATE tags SET puzzles = puzzles + ? WHERE id = ?", changed)


def settle(db: sqlite3.Connection) -> int:
    """Make the entries in ``rated`` and ``tagged`` of the puzzles added or changed since the last time (in
    the caller's transaction): the old entries of those changed removed, the new ones sorted
    (:data:`SORTED_AT_ONCE` at a time: a range of ratings, of tags) and appended in order. Returns how
    many puzzles it took."""
    upto = tagged_upto(db)
    last = int(db.execute("SELECT coalesce(max(rowid), 0) FROM puzzles").fetchone()[0])
    changed = int(db.execute("SELECT count(*) FROM retag").fetchone()[0])
    if last <= upto and not changed:
        return 0
    total = int(db.execute("SELECT count(*) FROM puzzles").fetchone()[0])
    params: tuple[int, ...]
    if changed > REMAKE_SHARE * total:
        db.execute("DELETE FROM rated")  # most puzzles changed (a newer export): made again whole
        db.execute("DELETE FROM tagged")
        which, params = "bad IS NULL", ()
        coming = total
    else:
        if changed:
            db.execute(f"DELETE FROM rated WHERE key IN (SELECT {_SQL_RATING} | puzzle FROM retag)")
            db.execute(
                "DELETE FROM tagged WHERE key IN "
                f"(SELECT {SQL_KEY.format(rowid='puzzle')} FROM retag, json_each(retag.tags))"
            )
        which = "bad IS NULL AND (puzzles.rowid > ? OR puzzles.rowid IN (SELECT puzzle FROM retag))"
        params = (upto,)
        coming = last - upto + changed
    ranges: list[tuple[int, int, int | None]] = [(-(1 << 62), 1 << 62, None)]  # (every rating)
    if coming > SORTED_AT_ONCE:
        # the ratings counted here rather than by SQL's GROUP BY, which sorts them all in memory
        histogram: Counter[int] = Counter()
        for (rating,) in db.execute(f"SELECT rating FROM puzzles WHERE {which}", params):
            histogram[rating] += 1
        ranges = [(low, high, count) for low, high, count in _ranges(sorted(histogram.items()))]
    for low, high, count in ranges:
        _append(
            db,
            "INSERT OR IGNORE INTO rated VALUES (?, ?)",
            f"SELECT {_SQL_RATING} | puzzles.rowid, bits FROM puzzles WHERE {which} "
            "AND rating BETWEEN ? AND ?",
            (*params, low, high),
            count,
        )
    rare = [
        (int(tag), int(count))
        for tag, kind, name, count in db.execute("SELECT id, kind, name, puzzles FROM tags WHERE puzzles > 0")
        if (str(kind), str(name)) not in BITS
    ]
    for low, high, _count in _ranges(sorted(rare)):
        _append(
            db,
            "INSERT OR IGNORE INTO tagged VALUES (?)",
            f"SELECT {SQL_KEY.format(rowid='puzzles.rowid')} FROM puzzles, json_each(puzzles.tags) "
            f"WHERE {which} AND value BETWEEN ? AND ?",
            (*params, low, high),
        )
    db.execute("DELETE FROM retag")
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (TAGGED_UPTO, str(last)))
    return coming


def _append(
    db: sqlite3.Connection, insert: str, select: str, params: tuple[object, ...], count: int | None = None
) -> None:
    """The rows of ``select`` (a key, maybe a value; ``count`` of them when known) inserted by ``insert``
    in the keys' order, a hundred thousand at a time (memory: the rows once, and their order)."""
    cursor = db.execute(select, params)
    width = len(cursor.description)
    flat = itertools.chain.from_iterable(cursor)
    rows = np.fromiter(flat, dtype=np.int64, count=-1 if count is None else count * width).reshape(-1, width)
    order = np.argsort(rows[:, 0])
    for start in range(0, len(order), 100_000):
        db.executemany(insert, rows[order[start : start + 100_000]].tolist())


def _ranges(counts: list[tuple[int, int]]) -> Iterator[tuple[int, int, int]]:
    """Consecutive values (ratings, tags: each with its entries) grouped so that each group's entries are
    at most :data:`SORTED_AT_ONCE` (or one value's): (first, last, entries)."""
    group: list[tuple[int, int]] = []
    entries = 0
    for value, count in counts:
        if group and entries + count > SORTED_AT_ONCE:
            yield group[0][0], group[-1][0], entries
            group, entries = [], 0
        group.append((value, count))
        entries += count
    if group:
        yield group[0][0], group[-1][0], entries


def waiting(db: sqlite3.Connection) -> int:
    """Puzzles whose entries in ``tagged`` wait to be made (:func:`settle`)."""
    last = int(db.execute("SELECT coalesce(max(rowid), 0) FROM puzzles").fetchone()[0])
    return max(0, last - tagged_upto(db)) + int(db.execute("SELECT count(*) FROM retag").fetchone()[0])


def tagged_upto(db: sqlite3.Connection) -> int:
    """The last puzzle (rowid) whose entries in ``tagged`` are made."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (TAGGED_UPTO,)).fetchone()
    return int(row[0]) if row is not None else 0


def create(db: sqlite3.Connection) -> None:
    """Make the tables of a new store, or upgrade an older store's, in one transaction (``db`` in
    autocommit mode: two programs opening an old store at once upgrade it once)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        has_puzzles = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'puzzles'").fetchone() is not None
        version = _version(db) if has_puzzles else SCHEMA_VERSION
        if version > SCHEMA_VERSION:
            raise PuzzleStoreError(
                _(
                    "the training store is of a newer chessatron (its schema {version}, this one reads up to "
                    "{known}); upgrade chessatron, or give another store with --store"
                ).format(version=version, known=SCHEMA_VERSION)
            )
        if version < SCHEMA_VERSION:
            _upgrade_from_1(db)
        else:
            _tables(db)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _tables(db: sqlite3.Connection) -> None:
    for statement in TABLES.split(";"):
        if statement.strip():
            db.execute(statement)


def _version(db: sqlite3.Connection) -> int:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:
        return 1
    try:
        return int(row[0]) if row is not None else 1
    except ValueError:
        raise PuzzleStoreError(
            _("the training store's schema {version!r} is no number; move it away").format(version=row[0])
        ) from None


def _upgrade_from_1(db: sqlite3.Connection) -> None:
    """Version 1 had no tags, set-aside puzzles nor players: add them, from the puzzles' columns (a
    thousand puzzles at a time: an old store may hold lichess's millions)."""
    LOGGER.info("upgrading the training store from schema 1 to %d (once)", SCHEMA_VERSION)
    db.execute("ALTER TABLE puzzles ADD COLUMN bad TEXT")
    db.execute("ALTER TABLE puzzles ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE puzzles ADD COLUMN bits INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE attempts ADD COLUMN player TEXT")
    db.execute("DROP INDEX IF EXISTS puzzles_by_rating")  # the tags' index chooses by rating now
    _tables(db)
    tags = Tags(db)
    counts: Counter[int] = Counter()
    last = -1
    while True:
        rows = db.execute(
            "SELECT rowid, themes, openings, source FROM puzzles WHERE rowid > ? ORDER BY rowid LIMIT 1000",
            (last,),
        ).fetchall()
        if not rows:
            break
        changes: list[tuple[str, int, int]] = []
        for rowid, themes, openings, source in rows:
            tagging = tags.of(db, str(themes), str(openings), str(source))
            counts.update(tagging.ids)
            changes.append((tagging.rare, tagging.bits, int(rowid)))
        db.executemany("UPDATE puzzles SET tags = ?, bits = ? WHERE rowid = ?", changes)
        last = int(rows[-1][0])
    count_changes(db, counts)
    settle(db)
