"""Saved games: one folder of journals for games played here and PGNs for games imported or archived.

The folder is the ``games_dir`` argument, else ``$CHESSATRON_GAMES``, else
``$XDG_DATA_HOME/chessatron/games`` (``~/.local/share/chessatron/games``). Every game is one file named
``<UTC start stamp>-<id>``: ``.jsonl`` for a journal (see :mod:`.journal`), ``.pgn`` for a single PGN
game. When both exist the journal is the game; :func:`archive_pgn` writes the PGN of a finished one.

>>> with tempfile.TemporaryDirectory() as folder:
...     game_id = save_record(from_pgn("1. f3 e5 2. g4 Qh4# 0-1"), Path(folder))
...     [(game.plies, game.result, game.in_progress) for game in list_games(Path(folder))]
...     export_pgn([game_id], Path(folder)).splitlines()[-1]
[(4, '0-1', False)]
'1. f3 e5 2. g4 Qh4# 0-1'
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ... import files
from ...errors import CannotResumeError, GameFileError, GameNotFoundError, GameSaveError
from ...i18n import _
from .compact import decode_compact, encode_compact
from .journal import SUFFIX, Clock, Journal, JournalState, game_stem, new_game_id, read_journal, utc_now
from .pgn import from_pgn, read_pgn_games, to_pgn
from .record import GameRecord, Player, Result, Termination, Variant, termination_name

LOGGER = logging.getLogger(__name__)

ENV_VAR = "CHESSATRON_GAMES"
#: What any PGN holds: a tag line or a move number. Written not to backtrack on hostile text: blanks on one
#: line only (``\s`` would run on over every following line, from each line's start), digits from the
#: start of their run.
_PGN_LIKE = re.compile(r"^[^\S\n]*+\[|(?<!\d)\d++\.", re.MULTILINE)
_NAME = re.compile(r"(?P<stamp>\d{8}T\d{6}Z)-(?P<id>[0-9a-z]{1,32})\.(?P<ext>jsonl|pgn)")


def default_games_dir() -> Path:
    """``$CHESSATRON_GAMES`` or ``$XDG_DATA_HOME/chessatron/games``."""
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "chessatron" / "games"


def resolve_games_dir(games_dir: Path | None = None) -> Path:
    return default_games_dir() if games_dir is None else games_dir


@dataclass(frozen=True)
class GameSummary:
    """One saved game, as ``chessatron games`` lists it."""

    game_id: str
    path: Path
    #: When the game started (a journal) or entered the store (a PGN), UTC.
    stored: dt.datetime
    #: The date the game was played, if known.
    date: dt.date | None
    white: Player
    black: Player
    variant: Variant
    result: Result
    plies: int
    #: How it ended, if it did and that is known.
    termination: Termination | None = None
    #: Closed with ``chessatron games --abandon``: ``play --resume`` no longer offers it.
    abandoned: bool = False
    #: The robot had begun work it did not finish (a set-up or a move cut short by a crash).
    robot_pending: bool = False
    #: A move was made at some point (taken back since, perhaps); for a PGN: it has moves.
    moved: bool = False

    @property
    def is_finished(self) -> bool:
        return self.result != "*"

    @property
    def has_begun(self) -> bool:
        """A move was made (even one taken back since), or the robot was cut short setting the table up
        (the journal is where its pieces stand): a game ``play --resume`` goes on with, and that is never
        removed unasked."""
        return self.plies > 0 or self.moved or self.robot_pending

    @property
    def is_open(self) -> bool:
        """Waiting to go on: unfinished here, not abandoned, begun (``play --resume`` takes the latest)."""
        return self.in_progress and not self.abandoned and self.has_begun

    @property
    def is_journal(self) -> bool:
        """Played here, so it can be resumed while unfinished."""
        return self.path.suffix == SUFFIX

    @property
    def in_progress(self) -> bool:
        return self.is_journal and not self.is_finished

    @property
    def moves(self) -> int:
        """Full moves begun: 1. e4 is one, 1. e4 e5 too."""
        return (self.plies + 1) // 2


def _entries(directory: Path) -> dict[str, Path]:
    """Each game's file by id; a journal wins over a PGN of the same game."""
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise GameFileError(
            _("cannot list the games folder {folder!r}: {reason}").format(
                folder=str(directory), reason=exc.strerror or exc
            )
        ) from exc
    found: dict[str, Path] = {}
    for name in names:
        match = _NAME.fullmatch(name)
        if match is not None and (match["id"] not in found or match["ext"] == "jsonl"):
            found[match["id"]] = directory / name
    return found


def _stamp(path: Path) -> dt.datetime:
    return dt.datetime.strptime(path.name.split("-", 1)[0], "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.UTC)


def _summary(game_id: str, path: Path) -> GameSummary:
    return _summary_of(game_id, path, *_read(path))


def _read(path: Path) -> tuple[GameRecord, dt.datetime, JournalState | None]:
    """The game in ``path``, when it started (a journal) or entered the store (a PGN), and its journal's
    state (None for a PGN)."""
    if path.suffix == SUFFIX:
        state = read_journal(path)
        return state.to_record(), state.metadata.started, state
    return _read_pgn(path), _stamp(path), None


def _summary_of(
    game_id: str, path: Path, record: GameRecord, stored: dt.datetime, state: JournalState | None = None
) -> GameSummary:
    return GameSummary(
        game_id,
        path,
        stored,
        record.date,
        record.white,
        record.black,
        record.variant,
        record.result,
        record.plies,
        record.termination,
        abandoned=state is not None and state.abandoned,
        robot_pending=state is not None and state.pending_robot is not None,
        moved=record.plies > 0 or (state is not None and state.moved),
    )


def list_games(games_dir: Path | None = None) -> list[GameSummary]:
    """Every saved game, oldest first; damaged files are skipped with a logged warning."""
    summaries = []
    for game_id, path in _entries(resolve_games_dir(games_dir)).items():
        try:
            summaries.append(_summary(game_id, path))
        except GameFileError as exc:
            LOGGER.warning("skipping a damaged saved game: %s", exc)
    return sorted(summaries, key=lambda s: (s.stored, s.path.name))


def latest_unfinished(games_dir: Path | None = None) -> GameSummary | None:
    """The most recently started game played here and not finished; open it with
    ``Journal.open(summary.path)``. (``--resume`` takes :func:`latest_resumable`.)"""
    unfinished = [s for s in list_games(games_dir) if s.in_progress]
    return unfinished[-1] if unfinished else None


def latest_resumable(games_dir: Path | None = None) -> GameSummary | None:
    """The game ``play --resume`` (and the page's *Resume*) goes on with: the most recently started open
    one with a move (made, even if taken back since); when none has one, the latest whose set-up was cut
    short (:attr:`GameSummary.is_open`), and when no game has begun, the latest unfinished, not abandoned
    one (a power cut before the first move: that game is what there is to go on with)."""
    return _latest_resumable(list_games(games_dir))


def skipped_by_resume(games_dir: Path | None = None) -> list[GameSummary]:
    """The games :func:`latest_resumable` passes over although they started later than its choice:
    unfinished, not abandoned, with no move (left by a crash before the first move, or in its set-up)."""
    games = list_games(games_dir)
    chosen = _latest_resumable(games)
    if chosen is None:
        return []
    later = games[games.index(chosen) + 1 :]
    return [summary for summary in later if summary.in_progress and not summary.abandoned]


def _latest_resumable(games: list[GameSummary]) -> GameSummary | None:
    unfinished = [summary for summary in games if summary.in_progress and not summary.abandoned]
    moved = [summary for summary in unfinished if summary.plies > 0 or summary.moved]
    begun = [summary for summary in unfinished if summary.has_begun]
    return (moved or begun or unfinished)[-1] if unfinished else None


def resumable_game(game_id: str, games_dir: Path | None = None) -> GameSummary:
    """Game ``game_id``, to be continued (an abandoned one too: asked for by its id). Raises
    :class:`GameNotFoundError`, and :class:`CannotResumeError` for a game that is over or was imported."""
    summary, _path = open_game(game_id, games_dir)
    if summary.is_finished:
        if summary.termination:
            over = _("game {game_id!r} is over ({result}, {how}); it can be viewed, not continued")
        else:
            over = _("game {game_id!r} is over ({result}); it can be viewed, not continued")
        raise CannotResumeError(
            over.format(game_id=game_id, result=summary.result, how=termination_name(summary.termination))
        )
    if not summary.is_journal:
        raise CannotResumeError(
            _(
                "game {game_id!r} was imported, not played on this table, so it cannot be continued "
                "here; start a new game from its position instead"
            ).format(game_id=game_id)
        )
    return summary


def forget_unplayed(game_id: str, games_dir: Path | None = None, *, cut_short: bool = False) -> bool:
    """Remove game ``game_id`` (its journal and sensor log) if it holds nothing to go on with: unfinished,
    no move, no robot work cut short (:attr:`GameSummary.has_begun`). A game stopped or failed before its
    first move leaves nothing behind for ``--resume`` or the saved games. ``cut_short``: a set-up cut
    short goes too (a stop the player asked for, between two of the robot's relocations: they did not
    want that game, and the caller knows where the pieces stand). Returns whether it was removed; a game
    that cannot be read is left alone (with a logged warning)."""
    try:
        summary, _path = open_game(game_id, games_dir)
        begun = summary.plies > 0 or summary.moved if cut_short else summary.has_begun
        if not summary.in_progress or begun:
            return False
        summary.path.unlink(missing_ok=True)
        summary.path.with_name(summary.path.name.removesuffix(SUFFIX) + ".sensors.jsonl").unlink(
            missing_ok=True
        )
    except (GameFileError, GameNotFoundError, OSError) as exc:
        LOGGER.warning("could not remove the unplayed game %s: %s", game_id, exc)
        return False
    return True


def abandon_game(
    game_id: str, games_dir: Path | None = None
) -> Literal["abandoned", "abandoned already", "removed"]:
    """Close unfinished game ``game_id`` for good: ``play --resume`` no longer offers it, and the list
    shows it abandoned; a game that never began is removed instead (:func:`forget_unplayed`). Returns what
    was done. Raises :class:`GameNotFoundError`, :class:`CannotResumeError` for a game that is over or was
    imported, :class:`~chessatron.errors.GameInUseError` while a session plays it."""
    summary = resumable_game(game_id, games_dir)
    if not summary.has_begun and forget_unplayed(game_id, games_dir):
        return "removed"
    if summary.abandoned:
        return "abandoned already"
    with Journal.open(summary.path) as journal:
        journal.abandon()
    return "abandoned"


def find_game(game_id: str, games_dir: Path | None = None) -> Path:
    """The file holding game ``game_id``; :class:`GameNotFoundError` if there is none."""
    directory = resolve_games_dir(games_dir)
    path = _entries(directory).get(game_id)
    if path is None:
        raise GameNotFoundError(
            _("no saved game {game_id!r} in {folder!r}; `chessatron games` lists them").format(
                game_id=game_id, folder=str(directory)
            )
        )
    return path


def load_game(game_id: str, games_dir: Path | None = None) -> GameRecord:
    return _read(find_game(game_id, games_dir))[0]


def open_game(game_id: str, games_dir: Path | None = None) -> tuple[GameSummary, GameRecord]:
    """Game ``game_id`` as the list shows it (when it started, whether it can be resumed) and its whole
    record, from one reading of its file; :class:`GameNotFoundError` if there is none, :class:`GameFileError`
    if it cannot be read."""
    path = find_game(game_id, games_dir)
    record, stored, state = _read(path)
    return _summary_of(game_id, path, record, stored, state), record


def export_pgn(ids: Iterable[str], games_dir: Path | None = None) -> str:
    """The games as one PGN text, in the order given."""
    return "\n".join(to_pgn(load_game(game_id, games_dir)) for game_id in ids)


def export_compact(game_id: str, games_dir: Path | None = None) -> bytes:
    """The game in the compact form (see :mod:`.record`); players, dates and clocks are dropped."""
    return encode_compact(load_game(game_id, games_dir))


def save_record(record: GameRecord, games_dir: Path | None = None, *, now: Clock = utc_now) -> str:
    """Store ``record`` as a new PGN game; returns its id."""
    game_id = new_game_id()
    _write_atomically(resolve_games_dir(games_dir), f"{game_stem(now(), game_id)}.pgn", to_pgn(record))
    return game_id


@dataclass(frozen=True)
class Imported:
    """What an import did: the ids of the games it stored, and of the saved games the file held again
    (each stored once only)."""

    stored: tuple[str, ...]
    already_saved: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportProgress:
    """How far an import has come: its ``stage`` (``reading`` the file, ``comparing`` with the saved
    games, ``saving`` the new ones), ``done`` of ``total`` in that stage (characters read, saved games
    compared, games saved) and the ``games`` the file holds so far."""

    stage: Literal["reading", "comparing", "saving"]
    done: int
    total: int
    games: int


ImportWatcher = Callable[[ImportProgress], None]


def import_pgn(
    path: Path,
    games_dir: Path | None = None,
    *,
    now: Clock = utc_now,
    on_progress: ImportWatcher | None = None,
) -> Imported:
    """Store every game of the PGN file at ``path`` that is not saved already (the same game: moves,
    players, tags; a file imported twice, a game exported and imported back). Nothing is stored if any
    game is unreadable (:class:`GameFileError`). ``on_progress`` is told how far it has come after each
    game read, saved game compared and game saved (a large file takes minutes)."""
    text = _read_text(path)

    def read(characters: int, games: int) -> None:
        if on_progress is not None:
            on_progress(ImportProgress("reading", characters, len(text), games))

    try:
        records = read_pgn_games(text, repr(str(path)), on_game=read)
    except GameFileError:
        if _PGN_LIKE.search(text):
            raise
        records = []  # no tag, no move number: not a PGN at all, which the message below says
    if not records or all(record == GameRecord(record.start_fen, record.chess960) for record in records):
        raise GameFileError(
            _(
                "{path!r} holds no game (no moves, no headers); is it a PGN file? "
                "a compact record must be named .bin or .cgr"
            ).format(path=str(path))
        )
    return _store_new(records, games_dir, now, on_progress)


def import_compact(path: Path, games_dir: Path | None = None, *, now: Clock = utc_now) -> Imported:
    """Store the compact record at ``path`` (players unknown) unless the same game is saved already."""
    data = files.read_bytes(path, files.COMPACT_RECORD)
    try:
        record = decode_compact(data)
    except GameFileError as exc:
        raise GameFileError(_("{path!r}: {reason}").format(path=str(path), reason=exc)) from exc
    return _store_new([record], games_dir, now)


def _store_new(
    records: list[GameRecord], games_dir: Path | None, now: Clock, on_progress: ImportWatcher | None = None
) -> Imported:
    """Save the records whose game is not saved yet (nor earlier in ``records``)."""
    saved = _saved_games(resolve_games_dir(games_dir), len(records), on_progress)
    stored: list[str] = []
    again: list[str] = []
    for done, record in enumerate(records, start=1):
        key = to_pgn(record)
        if key in saved:
            again.append(saved[key])
        else:
            saved[key] = save_record(record, games_dir, now=now)
            stored.append(saved[key])
        if on_progress is not None:
            on_progress(ImportProgress("saving", done, len(records), len(records)))
    return Imported(tuple(stored), tuple(again))


def _saved_games(directory: Path, games: int = 0, on_progress: ImportWatcher | None = None) -> dict[str, str]:
    """Every readable saved game's PGN (as :func:`to_pgn` writes it: a fingerprint of the whole game) and
    its id (``on_progress`` told after each, for an import of ``games`` games)."""
    found: dict[str, str] = {}
    entries = _entries(directory)
    for done, (game_id, path) in enumerate(entries.items(), start=1):
        with contextlib.suppress(GameFileError):  # a damaged game is no duplicate of anything
            found.setdefault(to_pgn(_read(path)[0]), game_id)
        if on_progress is not None:
            on_progress(ImportProgress("comparing", done, len(entries), games))
    return found


def archive_pgn(game_id: str, games_dir: Path | None = None) -> Path:
    """Write the PGN of a journalled game beside its journal (same name, ``.pgn``); returns its path."""
    path = find_game(game_id, games_dir)
    if path.suffix != SUFFIX:
        return path
    target = path.with_suffix(".pgn")
    _write_atomically(path.parent, target.name, to_pgn(read_journal(path).to_record()))
    return target


def _read_text(path: Path) -> str:
    return files.read_text(path, files.PGN)


def _read_pgn(path: Path) -> GameRecord:
    return from_pgn(_read_text(path), repr(str(path)))


def _write_atomically(directory: Path, name: str, text: str) -> None:
    """A temporary file in the same folder, flushed, then renamed into place (as
    :mod:`chessatron.sim.state` does)."""
    path = directory / name
    temporary: str | None = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=directory, delete=False, suffix=".tmp", encoding="utf-8"
        ) as f:
            temporary = f.name
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(f.name, path)
    except OSError as exc:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        raise GameSaveError(
            _("cannot save the game to {path!r}: {reason}").format(path=str(path), reason=exc.strerror or exc)
        ) from exc
