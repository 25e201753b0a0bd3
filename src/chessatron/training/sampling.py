"""Puzzles drawn at random near a rating, of a theme, an opening or a source, without reading the store.

The store's indexes (:mod:`.schema`) hold (rating, rowid) for every puzzle, and (tag, rating, rowid)
for every puzzle and rarer tag; the rowids follow the file's order, at random as to anything else. A
random puzzle between two ratings is the first entry at or after a random (rating, rowid) inside them:
one step down an index, whatever the store's size (of a common theme: the first with its bit, a short
walk on). A window
holding few puzzles is read whole instead. Every rating of the window is as likely as another (a rating
dense with puzzles is not favoured), and each puzzle of one rating as likely as another.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from ..i18n import N_, _
from .lichess import Row
from .schema import BITS, MAX_RATING, OPENING, ROWID_MASK, SOURCE, THEME, key, rated_key

#: Entries taken at each random step (puzzles of one rating, in their random order).
RUN: Final = 3

COLUMNS: Final = (
    "rowid, id, fen, moves, rating, rating_deviation, popularity, plays, themes, game_url, openings, source, "
    "bad"
)


@dataclass(frozen=True)
class Candidate:
    """A puzzle as stored, not yet checked in full (:meth:`.store.PuzzleStore.puzzle` does)."""

    rowid: int
    row: Row
    source: str

    @property
    def puzzle_id(self) -> str:
        return self.row[0]

    @property
    def fen(self) -> str:
        return self.row[1]

    @property
    def rating(self) -> int:
        return self.row[3]

    @property
    def themes(self) -> tuple[str, ...]:
        return tuple(self.row[7].split())

    @property
    def openings(self) -> tuple[str, ...]:
        return tuple(self.row[9].split())


@dataclass(frozen=True)
class Filters:
    """What a puzzle must be: of a theme (lichess's names: ``fork``, ``mateIn2``...), of an opening
    (``Sicilian_Defense``), from a source (``lichess``, ``starter``, ``game``)."""

    theme: str | None = None
    opening: str | None = None
    source: str | None = None

    def tags(self) -> list[tuple[str, str]]:
        """The tags asked for, as (kind, name)."""
        asked = [(THEME, self.theme), (OPENING, self.opening), (SOURCE, self.source)]
        return [(kind, name) for kind, name in asked if name]

    def admits(self, candidate: Candidate) -> bool:
        return (
            (not self.theme or self.theme in candidate.themes)
            and (not self.opening or self.opening in candidate.openings)
            and (not self.source or self.source == candidate.source)
        )

    def words(self) -> str:
        """``theme 'fork'``: what was asked, for messages (in the current language; empty: nothing)."""
        asked = [_(_ASKED[name]).format(value=value) for name, value in vars(self).items() if value]
        return ", ".join(asked)


#: Each filter as a message names it.
_ASKED: Final = {
    # TRANSLATORS: a filter of puzzles: a lichess theme id, an opening's name, a source (lichess, game...)
    "theme": N_("theme {value!r}"),
    "opening": N_("opening {value!r}"),
    "source": N_("source {value!r}"),
}


#: Any puzzle.
NO_FILTERS: Final = Filters()


@dataclass(frozen=True)
class Draw:
    """How to draw puzzles for a filter: through ``rated`` with the common tags' ``bits`` all set, or
    through ``tagged`` by ``tags`` (tag id, puzzles with it)."""

    bits: int = 0
    tags: tuple[tuple[int, int], ...] = ()


def sample(
    db: sqlite3.Connection, draw: Draw, low: int, high: int, want: int, rng: random.Random
) -> list[int]:
    """About ``want`` puzzles (their rowids, in random order) between ratings ``low`` and ``high`` as
    ``draw`` says (by tags: each tag in proportion to its puzzles). Fewer when the window holds fewer; may
    hold a few more."""
    last = int(db.execute("SELECT coalesce(max(rowid), 0) FROM puzzles").fetchone()[0])
    low, high = max(low, 0), min(high, MAX_RATING)
    if low > high:
        return []
    found: dict[int, None] = {}
    if not draw.tags:
        query = "SELECT key FROM rated WHERE key BETWEEN ? AND ? AND bits & ? = ? LIMIT ?"
        bounds = (rated_key(low, 0), rated_key(high, ROWID_MASK))
        starts = [rated_key(rating, 0) for rating in range(low, high + 1)]
        found.update(dict.fromkeys(_walk(db, query, bounds, (draw.bits, draw.bits), starts, want, last, rng)))
    total = sum(count for _tag, count in draw.tags) or 1
    for tag, count in draw.tags:
        share = max(1, -(-want * count // total))
        query = "SELECT key FROM tagged WHERE key BETWEEN ? AND ? LIMIT ?"
        bounds = (key(tag, low, 0), key(tag, high, ROWID_MASK))
        starts = [key(tag, rating, 0) for rating in range(low, high + 1)]
        found.update(dict.fromkeys(_walk(db, query, bounds, (), starts, share, last, rng)))
    rowids = list(found)
    rng.shuffle(rowids)
    return rowids


def _walk(
    db: sqlite3.Connection,
    query: str,
    bounds: tuple[int, int],
    condition: tuple[int, ...],
    starts: list[int],
    want: int,
    last: int,
    rng: random.Random,
) -> Iterable[int]:
    """``want`` entries of one index between ``bounds``: all of them when there are few, else a few from
    each of random keys (a random rating of ``starts``, a random rowid)."""
    whole = 4 * want + RUN
    rows = db.execute(query, (*bounds, *condition, whole)).fetchall()
    if len(rows) < whole:
        return [int(row[0]) & ROWID_MASK for row in rows]  # the window read whole
    found: dict[int, None] = {}
    for _attempt in range(2 * want):
        if len(found) >= want:
            break
        start = rng.choice(starts) | rng.randint(0, last)
        for (entry,) in db.execute(query, (start, bounds[1], *condition, RUN)):
            found[int(entry) & ROWID_MASK] = None
    return found


def drawing(db: sqlite3.Connection, filters: Filters) -> Draw | None:
    """How to draw puzzles that fit ``filters``: by the rarest of the rarer tags it asks for (the others
    are checked on each puzzle), else by the common tags' bits; None when a tag asked for is unknown."""
    known: list[tuple[int, int]] = []
    bits = 0
    for kind, name in filters.tags():
        row = db.execute("SELECT id, puzzles FROM tags WHERE kind = ? AND name = ?", (kind, name)).fetchone()
        if row is None:
            return None
        if (kind, name) in BITS:
            bits |= BITS[kind, name]
        else:
            known.append((int(row[0]), int(row[1])))
    if known:
        return Draw(tags=(min(known, key=lambda tag: tag[1]),))
    return Draw(bits=bits)


def fetch(db: sqlite3.Connection, rowids: Sequence[int]) -> list[tuple[Candidate, str | None]]:
    """The puzzles of ``rowids`` as stored (in that order, those still there), each with why it was set
    aside (None: playable as far as is known)."""
    kept: dict[int, tuple[Candidate, str | None]] = {}
    for start in range(0, len(rowids), 900):
        chunk = rowids[start : start + 900]
        query = f"SELECT {COLUMNS} FROM puzzles WHERE rowid IN ({','.join('?' * len(chunk))})"
        for record in db.execute(query, chunk):
            kept[int(record[0])] = (candidate_of(record), None if record[12] is None else str(record[12]))
    return [kept[rowid] for rowid in rowids if rowid in kept]


def candidate_of(record: Sequence[object]) -> Candidate:
    """A row of ``SELECT`` :data:`COLUMNS` as a candidate."""
    row: Row = (
        str(record[1]),
        str(record[2]),
        str(record[3]),
        _int(record[4]),
        _int(record[5]),
        _int(record[6]),
        _int(record[7]),
        str(record[8]),
        str(record[9]),
        str(record[10]),
    )
    return Candidate(_int(record[0]), row, str(record[11]))


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | str | float) else 0
