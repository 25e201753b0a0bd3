"""Reading a journal: every line checked (its checksum, its place in the game), damage costing only what
follows it, one warning saying what was dropped."""

from __future__ import annotations

import datetime as dt
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import chess

from .... import files
from ....errors import GameFileError, IllegalMoveError, JournalError
from ....i18n import _
from .entries import _CRC, LOGGER, JournalState, _line, _Replay, _time
from .salvage import readable_fields, rebuild, start_boards

# --- reading ---------------------------------------------------------------------------------------


#: At most this many of the moves a damage dropped are named in its warning.
DROPPED_MOVES_SHOWN = 8

# What this process has warned of already, so that a damaged journal listed, then resumed, is said once.
_warned: set[tuple[str, int]] = set()


def _warn_once(message: str, size: int) -> None:
    """Log ``message`` (about a journal of ``size`` bytes) unless it was logged already."""
    if (message, size) not in _warned:
        _warned.add((message, size))
        LOGGER.warning("%s", message)


@dataclass
class _Scan:
    """What reading a journal's bytes found: the game, its good lines, and what was dropped."""

    replay: _Replay
    #: The lines the game was read from, in order, without their newlines (a damaged start line sealed
    #: again with a checksum that matches it).
    kept: list[bytes]
    #: How many bytes from the start hold good lines only (up to a repeat, damage or a tear).
    committed: int
    #: What damage dropped, in one sentence; None when nothing but a torn last line was.
    damage: str | None = None


@dataclass
class _Followed:
    """The lines after the start replayed from one start: what was kept and where it stopped."""

    replay: _Replay
    kept: list[bytes]
    committed: int
    repeats: list[int]
    damaged: tuple[int, str] | None
    torn: bool


def _follow(replay: _Replay, first: bytes, lines: list[bytes], tail: bytes, *, sealed: bool) -> _Followed:
    """Replay the lines after the start line (``first``, as kept) up to the first damaged one, skipping
    lines written twice."""
    kept, seen = [first], {lines[0]}
    committed = len(lines[0]) + 1
    repeats: list[int] = []
    damaged: tuple[int, str] | None = None
    torn = bool(tail)
    for number, raw in enumerate(lines[1:], start=2):
        if raw in seen:
            repeats.append(number)  # the same line, timestamp and all: a block written twice
            continue
        try:
            entry = _entry(raw, sealed=sealed)
        except ValueError as exc:
            if number == len(lines) and not tail:
                torn = True  # the last write's pages reached the disk out of order before a crash
                break
            damaged = number, f"is damaged ({exc})"
            break
        try:
            replay.apply(entry)
        except (JournalError, IllegalMoveError, GameFileError) as exc:
            damaged = number, f"does not follow from the game ({exc})"
            break
        kept.append(raw)
        seen.add(raw)
        if not repeats:
            committed += len(raw) + 1
    return _Followed(replay, kept, committed, repeats, damaged, torn and damaged is None)


def _scan(data: bytes, source: str, stem: str | None = None) -> _Scan:
    """Replay ``data`` up to its first damaged line, skipping lines written twice (see the module's
    docstring); ``stem`` is the journal's file name without its suffix, for a start line to rebuild."""
    *lines, tail = data.split(b"\n")
    if not lines:
        raise GameFileError(
            _("{source} has no complete start line; it is not a game journal or was damaged").format(
                source=source
            )
        )
    sealed = _checksum(lines[0]) is not None  # then every line must have its checksum
    start_note: str | None = None
    try:
        replay, first, start_damage = _start(lines[0], source)
    except _Unreadable as exc:
        followed, start_note = _rebuild(lines, tail, source, stem, exc)
        start_damage = exc.why
    else:
        followed = _follow(replay, first, lines, tail, sealed=sealed)
    replay = followed.replay
    scan = _Scan(replay, followed.kept, followed.committed)
    damaged, repeats, torn = followed.damaged, followed.repeats, followed.torn
    if damaged is not None or repeats or start_damage is not None:
        scan.damage = _damage_report(
            source, replay.state, lines, tail, damaged, repeats, start_damage, start_note
        )
        _warn_once(scan.damage + ("; a torn last line left by a crash is ignored" if torn else ""), len(data))
    elif torn:
        torn_bytes = len(data) - followed.committed
        _warn_once(f"{source}: ignoring a torn last line ({torn_bytes} bytes) left by a crash", len(data))
    replay.state = replace(replay.state, torn=torn)
    return scan


class _Unreadable(Exception):
    """The start line does not read as a start (internal: the start is rebuilt, see :mod:`.salvage`)."""

    def __init__(self, why: str, error: GameFileError) -> None:
        super().__init__(why)
        self.why = why
        self.error = error


def _start(raw: bytes, source: str) -> tuple[_Replay, bytes, str | None]:
    """The game a journal's start line begins, the line to keep, and what damaged it (None: nothing).

    A start line whose checksum does not match is still used when it reads as a start (then sealed again
    for the repaired journal): the moves after it are checked on their own, so only its names, clock or
    notes may be off, where refusing it would hide the whole game. A start line that does not read as a
    start raises :class:`_Unreadable` (with the :class:`GameFileError` to raise if it cannot be rebuilt
    either)."""
    try:
        entry = _object(raw)
    except ValueError as exc:
        error = GameFileError(
            _("{source} line 1 is damaged ({reason}); the game cannot be read").format(
                source=source, reason=exc
            )
        )
        raise _Unreadable(str(exc), error) from exc
    damage = "its checksum does not match" if _checksum(raw) is False else None
    if damage is not None:
        entry = {key: value for key, value in entry.items() if key != "crc"}
        raw = _line(entry).removesuffix(b"\n")
    try:
        replay = _Replay.start(entry)
    except (JournalError, IllegalMoveError, GameFileError) as exc:
        if damage is not None:
            error = GameFileError(
                _(
                    "{source} line 1 is damaged (its checksum does not match: {reason}); the game cannot be "
                    "read"
                ).format(source=source, reason=exc)
            )
            raise _Unreadable(f"{damage}: {exc}", error) from exc
        read = _("{source} line 1: {reason}").format(source=source, reason=exc)
        raise _Unreadable(str(exc), GameFileError(read)) from exc
    return replay, raw, damage


def _rebuild(
    lines: list[bytes], tail: bytes, source: str, stem: str | None, unreadable: _Unreadable
) -> tuple[_Followed, str]:
    """The game after a start line that does not read, from a start rebuilt from what the line, the file's
    name and the lines after it still say (:mod:`.salvage`); what was rebuilt, in words. Raises the
    start's :class:`GameFileError` when no line after it reads as the game's (nothing to keep), or when
    the moves cannot tell its start position."""
    fields = readable_fields(lines[0])
    sealed = any(_checksum(raw) is not None for raw in lines[:3])
    entries = _readable_entries(lines[1:], sealed=sealed)
    best: list[tuple[int, chess.Board, str]] = []
    for board, origin in start_boards(fields):
        if best and best[0][0] == len(entries) and (best[0][2] == "line" or origin == "chess960"):
            break  # a likelier start reads every line: no guess after it can beat it
        fit = _fit(board.copy(), entries)
        if not best or fit > best[0][0]:
            best = [(fit, board, origin)]
        elif fit == best[0][0]:
            best.append((fit, board, origin))
    fit, board, origin = best[0]
    if fit == 0:
        raise unreadable.error  # no line after it reads as the game's: nothing to keep
    if origin == "chess960" and len(best) > 1:
        raise GameFileError(
            _(
                "{source} line 1 is damaged ({reason}) and the game's start position with it: {count} "
                "Chess960 "
                "starts fit the lines after it; the game cannot be read"
            ).format(source=source, reason=unreadable.why, count=len(best))
        ) from unreadable
    rebuilt = rebuild(fields, board, origin, stem=stem, first_time=_first_time(lines[1:2]))
    metadata = rebuilt.metadata
    replay = _Replay(JournalState(metadata), chess.Board(metadata.start_fen, chess960=metadata.chess960))
    first = _line(metadata.to_json()).removesuffix(b"\n")
    lost = f" (lost: {', '.join(rebuilt.lost)})" if rebuilt.lost else ""
    return _follow(replay, first, lines, tail, sealed=sealed), (
        f"its start was rebuilt from what it, the file's name and the lines after it still say{lost}"
    )


def _readable_entries(lines: list[bytes], *, sealed: bool) -> list[dict[str, Any]]:
    """The entries of the lines after the start, up to the first that does not read."""
    entries = []
    for raw in lines:
        try:
            entries.append(_entry(raw, sealed=sealed))
        except ValueError:
            break
    return entries


def _fit(board: chess.Board, entries: list[dict[str, Any]]) -> int:
    """How many of ``entries`` the game from ``board`` follows: each move legal there and written as it
    is there (its SAN), each take-back of moves played."""
    for count, entry in enumerate(entries):
        kind = entry.get("type")
        if kind == "move":
            try:
                move = board.parse_uci(str(entry.get("uci")))
            except ValueError:
                return count
            san = entry.get("san")
            if not isinstance(san, str) or not san:
                return count
            # a SAN names the piece that moves (or castling), a pawn's move only its file: most wrong
            # starts fail here, before the SAN is worked out
            if (san[0] in "KQRBNO") == (board.piece_type_at(move.from_square) == chess.PAWN):
                return count
            if board.san(move) != san:
                return count
            board.push(move)
        elif kind == "takeback":
            plies = entry.get("plies")
            if not isinstance(plies, int) or not 0 < plies <= len(board.move_stack):
                return count
            for _ply in range(plies):
                board.pop()
    return len(entries)


def _first_time(lines: list[bytes]) -> dt.datetime | None:
    """The time on the first of ``lines`` that reads, if any."""
    for raw in lines:
        try:
            return _time(_object(raw))
        except (ValueError, JournalError):
            continue
    return None


def _entry(raw: bytes, *, sealed: bool) -> dict[str, Any]:
    """The JSON object on a journal line after the first; :class:`ValueError` says why the line is
    damaged (``sealed``: the line must carry a checksum)."""
    entry = _object(raw)
    check = _checksum(raw)
    if check is False:
        raise ValueError("its checksum does not match")
    if check is None and sealed:
        raise ValueError("it has no checksum")
    return entry


def _object(raw: bytes) -> dict[str, Any]:
    """The JSON object on a journal line; :class:`ValueError` if it holds none."""
    entry = files.parse_json(raw)
    if not isinstance(entry, dict):
        raise ValueError(f"a line holds {type(entry).__name__}, not an object")
    return entry


def _checksum(raw: bytes) -> bool | None:
    """Whether a line's checksum matches it; None for a line without one (a journal written before lines
    had one)."""
    match = _CRC.search(raw)
    if match is None:
        return None
    return zlib.crc32(raw[: match.start()] + b"}") == int(match[1], 16)


def _damage_report(
    source: str,
    state: JournalState,
    lines: list[bytes],
    tail: bytes,
    damaged: tuple[int, str] | None,
    repeats: list[int],
    start_damage: str | None,
    start_note: str | None = None,
) -> str:
    """One sentence: which line is damaged, how far the game is kept, what was dropped (the moves the
    dropped lines still show, so that a person can play them again)."""
    said = []
    if start_damage is not None:
        note = start_note or "the game's start is read as it stands"
        said.append(f"line 1 is damaged ({start_damage}): {note}")
    if damaged is not None:
        number, why = damaged
        dropped = lines[number - 1 :] + ([tail] if tail else [])
        sans = []
        for raw in dropped:
            if _checksum(raw) is False:
                continue  # (what it says cannot be trusted)
            try:
                entry = files.parse_json(raw)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("type") == "move" and isinstance(entry.get("san"), str):
                sans.append(entry["san"])
        held = ""
        if sans:
            shown = " ".join(sans[:DROPPED_MOVES_SHOWN]) + (" …" if len(sans) > DROPPED_MOVES_SHOWN else "")
            held = f", which held {len(sans)} move{'s' if len(sans) > 1 else ''} ({shown})"
        count = len(dropped)
        said.append(
            f"line {number} {why}: kept the game up to {_last_move(state)}, "
            f"dropped {count} line{'s' if count > 1 else ''} from there{held}"
        )
    if repeats:
        numbers = ", ".join(map(str, repeats[:DROPPED_MOVES_SHOWN])) + (
            " …" if len(repeats) > DROPPED_MOVES_SHOWN else ""
        )
        which = f"line {numbers} repeats" if len(repeats) == 1 else f"lines {numbers} repeat"
        said.append(f"{which} an earlier line (written twice): skipped")
    return f"{source} " + "; ".join(said)


def _last_move(state: JournalState) -> str:
    """``3. Bc4`` (numbered as in a score sheet), or ``its start`` before the first move."""
    if not state.moves:
        return "its start"
    board = state.board()
    board.pop()
    number = f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'}"
    return f"{number} {state.moves[-1].san}"


def parse_journal(data: bytes, source: str = "the journal", *, stem: str | None = None) -> JournalState:
    """The state a journal's bytes describe (``stem``: its file's name without the suffix, which holds the
    game's id and start time); see :func:`read_journal`."""
    return _scan(data, source, stem).replay.state


def read_journal(path: Path) -> JournalState:
    """The game in the journal at ``path``: metadata, moves, result and the robot's progress.

    A torn last line is ignored with a logged warning. Damage before it (a garbage line, a flipped byte)
    keeps the game up to the last good line before it, with a logged warning saying what was dropped; a
    line repeating the one before it is skipped. A damaged start line is rebuilt from what it, the file's
    name and the lines after it still say (:mod:`.salvage`), so its moves are kept. :class:`GameFileError`
    is raised for a file whose first line does not read as a game's start and no line after it as the
    game's, or whose lost start position the moves cannot tell.
    """
    return parse_journal(files.read_bytes(path, files.JOURNAL), repr(str(path)), stem=path.stem)
