"""The game journal: an append-only JSON-lines file per game, so that a power cut loses nothing.

Every entry is one line, written and ``fsync``-ed before the call returns: the session writes a move
before the robot moves it, and one ``robot-done`` line per relocation finished, so a resumed session
knows the game and how far the robot got. A crash can only tear the line being written; reading ignores
a torn last line (with a logged warning) and :meth:`Journal.open` cuts it off before appending.

Every line ends in its checksum (``"crc"``, the CRC-32 of the line without it), so that damage is
told from play: a flipped byte anywhere in a line makes it damaged, where without the checksum it could
read as another robot path or clock. Damage before the last line (a garbage line, one flipped byte, a
block written twice, as a failing SD card makes them) costs only what follows it: the game is read up to
the last good line before the damage, and one logged warning says what was dropped (the moves the
dropped lines still show). A line that repeats an earlier one byte for byte is skipped (every line has
its own timestamp, so it is a block written twice). A damaged start line that still reads as one is
used, said as damaged (the moves after it are checked on their own); one that does not read makes the
journal unreadable (:class:`GameFileError`). :meth:`Journal.open` repairs a damaged journal before
appending: the good lines are written to a new file that replaces it, and the damaged file is kept
beside it (``….jsonl.damaged``). Journals written before lines had checksums are read as before: a line
without one is damaged only when it does not read or does not follow from the game.

The lines (every one also has ``"time"``, an ISO 8601 UTC timestamp, and ends in ``"crc"``)::

    {"type":"start","format":"chessatron-journal/1","id":"3fa2b1c4","variant":"chess960",
     "fen":"...","number":412,"white":{"name":"Ann","kind":"board","level":null},"black":{...},
     "clock":{"initial_s":300,"increment_s":2},"event":"","site":"","config":{...}}
    {"type":"move","ply":1,"uci":"e2e4","san":"e4","who":"board","clock_ms":298000}
    {"type":"robot-begin","ply":1,"operations":["capture d5 to zone 3","e4 to d5"]}
    {"type":"robot-done","ply":1,"index":0}
    {"type":"takeback","plies":2}
    {"type":"draw-offer","by":"white"}   {"type":"draw-accept","by":"black"}
    {"type":"resign","by":"white"}
    {"type":"result","result":"1-0","termination":"checkmate"}
    {"type":"player","side":"white","spec":"engine:3","player":{"name":"Stockfish","kind":"engine",...}}
    {"type":"abandon"}

``start`` comes first and only there (``number`` is informative: the FEN decides). ``robot-begin`` names
the ply whose position the robot is bringing the table to — the current ply, so 0 for setting up and the
remaining ply after a take-back. A take-back reopens a finished game. ``player``: another player takes a
side over from here on (a resumed game); the metadata's player and the config's spec for that side (its
``white`` or ``black`` key) change. ``abandon``: nobody means to go on with the game, so ``play --resume``
no longer offers it; any later entry (the game taken up again by its id) lifts it.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import secrets
import sys
import tempfile
import threading
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any

import chess

from .. import files
from ..errors import GameFileError, GameInUseError, GameSaveError, IllegalMoveError, JournalError
from .record import (
    RESULTS,
    TERMINATIONS,
    ClockSettings,
    GameRecord,
    Player,
    Result,
    Termination,
    Variant,
    numbered_start,
    parse_player_kind,
)

if sys.platform != "win32":
    import fcntl

LOGGER = logging.getLogger(__name__)

FORMAT = "chessatron-journal/1"
SUFFIX = ".jsonl"
Clock = Callable[[], dt.datetime]


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def new_game_id() -> str:
    """Eight random hex digits."""
    return secrets.token_hex(4)


def game_stem(started: dt.datetime, game_id: str) -> str:
    """``20240512T153012Z-3fa2b1c4``: the start time in UTC, then the id; names sort by start."""
    return f"{started.astimezone(dt.UTC):%Y%m%dT%H%M%SZ}-{game_id}"


@dataclass(frozen=True)
class GameMetadata:
    """What a game starts with: its id, start time, players, start position, clock and machine config."""

    white: Player = field(default_factory=Player)
    black: Player = field(default_factory=Player)
    #: The start position, canonical FEN (X-FEN for Chess960).
    start_fen: str = chess.STARTING_FEN
    chess960: bool = False
    clock: ClockSettings | None = None
    event: str = ""
    site: str = ""
    #: Anything JSON can hold that a resumed session needs: table, engine, device settings.
    config: Mapping[str, Any] = field(default_factory=dict)
    game_id: str = field(default_factory=new_game_id)
    #: When the game started; timezone-aware.
    started: dt.datetime = field(default_factory=utc_now)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[0-9a-z]{1,32}", self.game_id):
            raise JournalError(f"bad game id {self.game_id!r}; use 1 to 32 lower-case letters and digits")
        if self.started.tzinfo is None:
            raise JournalError(f"start time {self.started!r} has no timezone; use an aware datetime")
        # One record type checks the start position and the header strings the same way for everyone.
        start = GameRecord(
            self.start_fen,
            self.chess960,
            white=self.white,
            black=self.black,
            event=self.event,
            site=self.site,
        )
        object.__setattr__(self, "start_fen", start.start_fen)
        try:
            object.__setattr__(self, "config", json.loads(json.dumps(dict(self.config))))
        except (TypeError, ValueError) as exc:
            raise JournalError(f"the game config {self.config!r} is not JSON data ({exc})") from exc

    @classmethod
    def numbered(cls, number: int, **fields: Any) -> GameMetadata:
        """A game from Chess960 start ``number`` (518 is standard chess; see :func:`numbered_start`)."""
        board = numbered_start(number)
        return cls(start_fen=board.fen(), chess960=board.chess960, **fields)

    @property
    def variant(self) -> Variant:
        return "chess960" if self.chess960 else "standard"

    @property
    def start_number(self) -> int | None:
        return GameRecord(self.start_fen, self.chess960).start_number

    @property
    def stem(self) -> str:
        return game_stem(self.started, self.game_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "start",
            "format": FORMAT,
            "time": self.started.isoformat(),
            "id": self.game_id,
            "variant": self.variant,
            "fen": self.start_fen,
            "number": self.start_number,
            "white": _player_json(self.white),
            "black": _player_json(self.black),
            "clock": None
            if self.clock is None
            else {"initial_s": self.clock.initial_s, "increment_s": self.clock.increment_s},
            "event": self.event,
            "site": self.site,
            "config": dict(self.config),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameMetadata:
        if data.get("format") != FORMAT:
            raise JournalError(
                f"format {data.get('format')!r} is not {FORMAT!r}; is this a chessatron journal?"
            )
        variant = _field(data, "variant", str)
        if variant not in ("standard", "chess960"):
            raise JournalError(f"unknown variant {variant!r}")
        clock = data.get("clock")
        if clock is not None and not isinstance(clock, dict):
            raise JournalError(f"clock {clock!r} is not an object")
        config = _field(data, "config", dict)
        return cls(
            white=_player_from_json(_field(data, "white", dict)),
            black=_player_from_json(_field(data, "black", dict)),
            start_fen=_field(data, "fen", str),
            chess960=variant == "chess960",
            clock=None
            if clock is None
            else ClockSettings(_field(clock, "initial_s", int), _field(clock, "increment_s", int)),
            event=_field(data, "event", str),
            site=_field(data, "site", str),
            config=config,
            game_id=_field(data, "id", str),
            started=_time(data),
        )


@dataclass(frozen=True)
class MoveEntry:
    """One move as journalled: ``who`` is how it was made (``board``, ``engine:8``, ``keyboard``...)."""

    ply: int
    move: chess.Move
    san: str
    who: str
    time: dt.datetime
    #: The mover's remaining time after the move, if the game has a clock.
    clock_ms: int | None = None


@dataclass(frozen=True)
class RobotProgress:
    """The robot's relocations bringing the table to the position after ``ply``, and which are done."""

    ply: int
    operations: tuple[str, ...]
    completed: tuple[int, ...] = ()

    @property
    def is_complete(self) -> bool:
        return len(self.completed) == len(self.operations)

    @property
    def remaining(self) -> tuple[int, ...]:
        """Indices of the relocations still to do, in order."""
        return tuple(i for i in range(len(self.operations)) if i not in self.completed)


@dataclass(frozen=True)
class JournalState:
    """A game as its journal tells it."""

    metadata: GameMetadata
    moves: tuple[MoveEntry, ...] = ()
    result: Result = "*"
    termination: Termination | None = None
    #: The side whose draw offer stands, if any.
    draw_offer: chess.Color | None = None
    #: The last ``robot-begin`` and the ``robot-done`` after it.
    robot: RobotProgress | None = None
    #: How many journal lines it was read from.
    lines: int = 1
    #: Whether a torn last line (from a crash) was ignored.
    torn: bool = False
    #: Every ``robot-begin`` in order (set-up, moves, take-backs), each with the ``robot-done`` after it.
    robot_work: tuple[RobotProgress, ...] = ()
    #: Whether the game was abandoned (``games --abandon``) and not taken up again since.
    abandoned: bool = False
    #: Whether a move was ever made (it may have been taken back since).
    moved: bool = False

    @property
    def is_finished(self) -> bool:
        return self.result != "*"

    @property
    def pending_robot(self) -> RobotProgress | None:
        """The robot work a resumed session must finish: relocations for the current ply not done yet."""
        robot = self.robot
        if robot is None or robot.ply != len(self.moves) or robot.is_complete:
            return None
        return robot

    def board(self) -> chess.Board:
        """A fresh board after every move, with the moves on its stack."""
        board = chess.Board(self.metadata.start_fen, chess960=self.metadata.chess960)
        for entry in self.moves:
            board.push(entry.move)
        return board

    def to_record(self) -> GameRecord:
        """The game as a record; its date is the UTC date it started."""
        meta = self.metadata
        clocks = tuple(entry.clock_ms for entry in self.moves)
        return GameRecord(
            start_fen=meta.start_fen,
            chess960=meta.chess960,
            moves=tuple(entry.move for entry in self.moves),
            white=meta.white,
            black=meta.black,
            result=self.result,
            termination=self.termination,
            date=meta.started.astimezone(dt.UTC).date(),
            event=meta.event,
            site=meta.site,
            clock=meta.clock,
            clocks_ms=clocks if any(c is not None for c in clocks) else (),
        )


# --- replaying entries: pure, shared by the reader and the writer ----------------------------------


class _Replay:
    """A journal's state and board, advanced one entry at a time; checks everything before it changes
    anything, raising :class:`JournalError` or :class:`IllegalMoveError`."""

    def __init__(self, state: JournalState, board: chess.Board) -> None:
        self.state = state
        self.board = board

    @classmethod
    def start(cls, entry: Mapping[str, Any]) -> _Replay:
        if entry.get("type") != "start":
            raise JournalError(f"the first line is {entry.get('type')!r}, not a game start")
        metadata = GameMetadata.from_json(entry)
        return cls(JournalState(metadata), chess.Board(metadata.start_fen, chess960=metadata.chess960))

    def copy(self) -> _Replay:
        return _Replay(self.state, self.board.copy())

    def apply(self, entry: Mapping[str, Any]) -> None:
        kind = entry.get("type")
        state = self.state
        when = _time(entry)
        if kind == "move":
            self._move(entry, when)
        elif kind == "robot-begin":
            ply = _field(entry, "ply", int)
            operations = _field(entry, "operations", list)
            if ply != len(state.moves) or not all(isinstance(op, str) for op in operations):
                raise JournalError(
                    f"robot work for ply {ply!r} with {operations!r}; the game is at ply {len(state.moves)}"
                )
            work = RobotProgress(ply, tuple(operations))
            self.state = replace(state, robot=work, robot_work=(*state.robot_work, work))
        elif kind == "robot-done":
            ply, index, robot = _field(entry, "ply", int), _field(entry, "index", int), state.robot
            if robot is None or robot.ply != ply or index not in robot.remaining:
                raise JournalError(
                    f"robot step {index!r} of ply {ply!r} done, but the robot was asked for {robot!r}"
                )
            robot = replace(robot, completed=(*robot.completed, index))
            self.state = replace(state, robot=robot, robot_work=(*state.robot_work[:-1], robot))
        elif kind == "takeback":
            plies = _field(entry, "plies", int)
            if not 1 <= plies <= len(state.moves):
                raise JournalError(f"take-back of {plies!r} plies; {len(state.moves)} were played")
            for _ in range(plies):
                self.board.pop()
            self.state = replace(
                state, moves=state.moves[:-plies], result="*", termination=None, draw_offer=None
            )
        elif kind in ("draw-offer", "draw-accept", "resign"):
            by = _colour(entry)
            self._still_playing(str(kind))
            if kind == "draw-offer":
                self.state = replace(state, draw_offer=by)
            elif kind == "draw-accept":
                if state.draw_offer is None or state.draw_offer == by:
                    raise JournalError(f"{chess.COLOR_NAMES[by]} accepts a draw nobody offered them")
                self.state = replace(state, result="1/2-1/2", termination="agreed draw", draw_offer=None)
            else:
                self.state = replace(
                    state, result="0-1" if by else "1-0", termination="resignation", draw_offer=None
                )
        elif kind == "result":
            result, termination = _field(entry, "result", str), entry.get("termination")
            self._still_playing("result")
            if result not in RESULTS[1:] or (termination is not None and termination not in TERMINATIONS):
                raise JournalError(
                    f"result {result!r} by {termination!r}; use a decided result and our terminations"
                )
            self.state = replace(state, result=result, termination=termination, draw_offer=None)
        elif kind == "player":
            side, spec = _colour(entry, "side"), _field(entry, "spec", str)
            player = _player_from_json(_field(entry, "player", dict))
            self._still_playing("a change of player")
            name = chess.COLOR_NAMES[side]
            config = {**state.metadata.config, name: spec}
            if side == chess.WHITE:
                metadata = replace(state.metadata, white=player, config=config)
            else:
                metadata = replace(state.metadata, black=player, config=config)
            self.state = replace(state, metadata=metadata)
        elif kind == "abandon":
            self._still_playing("abandon")
        else:
            raise JournalError(f"unknown entry type {kind!r}")
        # abandoned until anything else happens in the game
        self.state = replace(self.state, lines=self.state.lines + 1, abandoned=kind == "abandon")

    def _still_playing(self, what: str) -> None:
        if self.state.is_finished:
            raise IllegalMoveError(
                f"{what} after the game ended {self.state.result}; take back or start a new game"
            )

    def _move(self, entry: Mapping[str, Any], when: dt.datetime) -> None:
        state, board = self.state, self.board
        ply, uci, san = _field(entry, "ply", int), _field(entry, "uci", str), _field(entry, "san", str)
        who, clock_ms = _field(entry, "who", str), entry.get("clock_ms")
        self._still_playing(f"move {uci!r}")
        if ply != len(state.moves) + 1:
            raise JournalError(f"move {uci!r} is numbered ply {ply!r}; expected {len(state.moves) + 1}")
        if clock_ms is not None and (not isinstance(clock_ms, int) or clock_ms < 0):
            raise JournalError(f"clock reading {clock_ms!r}; give milliseconds left, 0 or more")
        try:
            move = board.parse_uci(uci)
        except ValueError:
            move = chess.Move.null()
        if not move:
            raise IllegalMoveError(f"move {uci!r} is illegal in {board.fen()!r}")
        if board.san(move) != san:
            raise JournalError(f"move {uci!r} is written {san!r}, but it is {board.san(move)!r} here")
        offer = state.draw_offer if state.draw_offer == board.turn else None  # the opponent's move declines
        board.push(move)
        self.state = replace(
            state,
            moves=(*state.moves, MoveEntry(ply, move, san, who, when, clock_ms)),
            draw_offer=offer,
            moved=True,
        )


def _field(data: Mapping[str, Any], name: str, kind: type[Any]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise JournalError(f"{name!r} is {value!r}, not {kind.__name__}")
    return value


def _time(data: Mapping[str, Any]) -> dt.datetime:
    text = _field(data, "time", str)
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise JournalError(f"time {text!r} is not ISO 8601") from None
    if when.tzinfo is None:
        raise JournalError(f"time {text!r} has no timezone")
    return when


def _colour(data: Mapping[str, Any], key: str = "by") -> chess.Color:
    by = data.get(key)
    if by not in chess.COLOR_NAMES:
        raise JournalError(f"side {by!r} is neither 'white' nor 'black'")
    return bool(by == "white")


def _player_json(player: Player) -> dict[str, Any]:
    return {"name": player.name, "kind": player.kind, "level": player.level}


def _player_from_json(data: Mapping[str, Any]) -> Player:
    kind = parse_player_kind(_field(data, "kind", str))
    level = data.get("level")
    if kind is None or not (level is None or isinstance(level, str)):
        raise JournalError(f"bad player {data!r}")
    return Player(_field(data, "name", str), kind, level)


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


def _scan(data: bytes, source: str) -> _Scan:
    """Replay ``data`` up to its first damaged line, skipping lines written twice (see the module's
    docstring)."""
    *lines, tail = data.split(b"\n")
    if not lines:
        raise GameFileError(f"{source} has no complete start line; it is not a game journal or was damaged")
    replay, first, start_damage = _start(lines[0], source)
    sealed = _checksum(lines[0]) is not None  # then every line must have its checksum
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
    scan = _Scan(replay, kept, committed)
    torn = torn and damaged is None  # (after damage, a tear is only more of what was dropped)
    if damaged is not None or repeats or start_damage is not None:
        scan.damage = _damage_report(source, replay.state, lines, tail, damaged, repeats, start_damage)
        _warn_once(scan.damage + ("; a torn last line left by a crash is ignored" if torn else ""), len(data))
    elif torn:
        torn_bytes = len(data) - committed
        _warn_once(f"{source}: ignoring a torn last line ({torn_bytes} bytes) left by a crash", len(data))
    replay.state = replace(replay.state, torn=torn)
    return scan


def _start(raw: bytes, source: str) -> tuple[_Replay, bytes, str | None]:
    """The game a journal's start line begins, the line to keep, and what damaged it (None: nothing).

    A start line whose checksum does not match is still used when it reads as a start (then sealed again
    for the repaired journal): the moves after it are checked on their own, so only its names, clock or
    notes may be off, where refusing it would hide the whole game. A start line that does not read is a
    :class:`GameFileError`."""
    try:
        entry = _object(raw)
    except ValueError as exc:
        raise GameFileError(f"{source} line 1 is damaged ({exc}); the game cannot be read") from exc
    damage = "its checksum does not match" if _checksum(raw) is False else None
    if damage is not None:
        entry = {key: value for key, value in entry.items() if key != "crc"}
        raw = _line(entry).removesuffix(b"\n")
    try:
        replay = _Replay.start(entry)
    except (JournalError, IllegalMoveError, GameFileError) as exc:
        if damage is not None:
            raise GameFileError(
                f"{source} line 1 is damaged ({damage}: {exc}); the game cannot be read"
            ) from exc
        raise GameFileError(f"{source} line 1: {exc}") from exc
    return replay, raw, damage


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
) -> str:
    """One sentence: which line is damaged, how far the game is kept, what was dropped (the moves the
    dropped lines still show, so that a person can play them again)."""
    said = []
    if start_damage is not None:
        said.append(f"line 1 is damaged ({start_damage}): the game's start is read as it stands")
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


def parse_journal(data: bytes, source: str = "the journal") -> JournalState:
    """The state a journal's bytes describe; see :func:`read_journal`."""
    return _scan(data, source).replay.state


def read_journal(path: Path) -> JournalState:
    """The game in the journal at ``path``: metadata, moves, result and the robot's progress.

    A torn last line is ignored with a logged warning. Damage before it (a garbage line, a flipped byte)
    keeps the game up to the last good line before it, with a logged warning saying what was dropped; a
    line repeating the one before it is skipped. :class:`GameFileError` is raised for a file without a
    complete, good start line (journals are created whole).
    """
    return parse_journal(files.read_bytes(path, files.JOURNAL), repr(str(path)))


# --- writing ---------------------------------------------------------------------------------------


#: The checksum that ends every line: ``,"crc":"<8 hex digits>"}``.
_CRC = re.compile(rb',"crc":"([0-9a-f]{8})"\}\Z')


def _line(entry: Mapping[str, Any]) -> bytes:
    """``entry`` as a journal line, sealed: its last member is ``crc``, the CRC-32 of the line without it.

    >>> _line({"type": "abandon", "time": "2024-05-12T15:30:13+00:00"})
    b'{"type":"abandon","time":"2024-05-12T15:30:13+00:00","crc":"1cd7ef75"}\\n'
    """
    body = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return body[:-1] + b',"crc":"%08x"}\n' % zlib.crc32(body)


def _sync_directory(path: Path) -> None:
    """Make a rename in ``path`` durable; POSIX only (Windows cannot open a folder)."""
    if os.name == "posix":
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class Journal:
    """A game journal open for appending; one writer at a time (an advisory lock enforces it on POSIX).

    >>> with tempfile.TemporaryDirectory() as games_dir:
    ...     with Journal.create(Path(games_dir), GameMetadata(white=Player("Ann", "board"))) as journal:
    ...         journal.record_move(chess.Move.from_uci("e2e4"), who="board").san
    'e4'

    Each method writes one line and ``fsync``-s it before returning; it raises :class:`GameSaveError`
    when the disk refuses, :class:`IllegalMoveError` or :class:`JournalError` when the entry does not
    follow from the game so far (nothing is written then). Thread-safe.
    """

    def __init__(self, path: Path, fd: int, replay: _Replay, size: int, now: Clock) -> None:
        self.path = path
        self._fd: int | None = fd
        self._replay = replay
        self._size = size
        self._now = now
        self._lock = threading.Lock()

    @classmethod
    def create(cls, games_dir: Path, metadata: GameMetadata, *, now: Clock = utc_now) -> Journal:
        """Start the journal ``games_dir/<stem>.jsonl``: the start line is written to a temporary file and
        renamed into place, so a journal never exists without it."""
        path = games_dir / (metadata.stem + SUFFIX)
        if path.exists():
            raise GameSaveError(f"a journal {str(path)!r} already exists; start the game with a new id")
        temporary: str | None = None
        try:
            games_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=games_dir, delete=False, suffix=".tmp") as f:
                temporary = f.name
                f.write(_line(metadata.to_json()))
                f.flush()
                os.fsync(f.fileno())
            os.replace(f.name, path)
            _sync_directory(games_dir)
        except OSError as exc:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            raise GameSaveError(
                f"cannot start the game journal {str(path)!r}: {exc.strerror or exc}"
            ) from exc
        return cls.open(path, now=now)

    @classmethod
    def open(cls, path: Path, *, now: Clock = utc_now) -> Journal:
        """Open an existing journal to go on with its game, cutting off a torn last line first, and
        repairing a damaged one (see the module's docstring: its good lines replace it, the damaged file is
        kept beside it as ``<name>.damaged``, and a logged warning says so).

        Raises :class:`GameInUseError` if another session has it open, :class:`GameFileError` if its
        start line is damaged, :class:`GameSaveError` if it cannot be prepared for writing."""
        source = repr(str(path))
        for _ in range(3):  # again when another session replaced (repaired) the file meanwhile
            try:
                fd = os.open(path, os.O_RDWR | os.O_APPEND)
            except OSError as exc:
                raise GameFileError(f"cannot open the game journal {source}: {exc.strerror or exc}") from exc
            try:
                _lock(fd, path)
                if os.fstat(fd).st_ino != os.stat(path).st_ino:
                    os.close(fd)
                    continue
                data = _read_all(fd)
                scan = _scan(data, source)
                if scan.damage is not None:
                    fd = _repair(path, fd, data, scan.kept)
                elif scan.committed < len(data):
                    os.ftruncate(fd, scan.committed)
                    os.fsync(fd)
            except OSError as exc:
                os.close(fd)
                raise GameSaveError(
                    f"cannot prepare the game journal {source}: {exc.strerror or exc}"
                ) from exc
            except BaseException:
                os.close(fd)
                raise
            replay = scan.replay
            replay.state = replace(replay.state, torn=False)
            return cls(path, fd, replay, sum(len(line) + 1 for line in scan.kept), now)
        raise GameInUseError(
            f"the game journal {source} keeps being replaced by another session; close it first"
        )

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r}, plies={len(self._replay.state.moves)}, closed={self.closed})"

    @property
    def state(self) -> JournalState:
        return self._replay.state

    @property
    def closed(self) -> bool:
        return self._fd is None

    def board(self) -> chess.Board:
        """A fresh board at the current position, with the moves on its stack."""
        return self._replay.board.copy()

    def record_move(self, move: chess.Move, who: str, *, clock_ms: int | None = None) -> MoveEntry:
        """Journal the next move (before the robot makes it); returns the entry with its SAN and ply."""
        with self._lock:
            board = self._replay.board
            try:
                move = board.parse_uci(move.uci()) if move else move
            except ValueError:
                move = chess.Move.null()
            if not move:
                raise IllegalMoveError(f"that move is illegal in {board.fen()!r}; journal legal moves only")
            entry: dict[str, Any] = {
                "ply": len(self.state.moves) + 1,
                "uci": move.uci(),
                "san": board.san(move),
            }
            entry["who"] = who
            if clock_ms is not None:
                entry["clock_ms"] = clock_ms
            self._append("move", entry)
            return self.state.moves[-1]

    def robot_begin(self, operations: Sequence[str]) -> RobotProgress:
        """Journal the robot's plan to bring the table to the current position, one description each."""
        with self._lock:
            self._append("robot-begin", {"ply": len(self.state.moves), "operations": list(operations)})
            assert self.state.robot is not None
            return self.state.robot

    def robot_done(self, index: int) -> RobotProgress:
        """Journal that relocation ``index`` of the last :meth:`robot_begin` is finished."""
        with self._lock:
            robot = self.state.robot
            self._append("robot-done", {"ply": -1 if robot is None else robot.ply, "index": index})
            assert self.state.robot is not None
            return self.state.robot

    def take_back(self, plies: int = 1) -> None:
        with self._lock:
            self._append("takeback", {"plies": plies})

    def offer_draw(self, by: chess.Color) -> None:
        with self._lock:
            self._append("draw-offer", {"by": chess.COLOR_NAMES[by]})

    def accept_draw(self, by: chess.Color) -> None:
        """``by`` accepts the other side's standing offer: a draw by agreement."""
        with self._lock:
            self._append("draw-accept", {"by": chess.COLOR_NAMES[by]})

    def resign(self, by: chess.Color) -> None:
        with self._lock:
            self._append("resign", {"by": chess.COLOR_NAMES[by]})

    def finish(self, result: Result, termination: Termination | None) -> None:
        """Journal how the game ended (checkmate, a flag fall...)."""
        with self._lock:
            self._append("result", {"result": result, "termination": termination})

    def change_player(self, side: chess.Color, player: Player, spec: str) -> None:
        """From now on ``player`` plays ``side`` (``spec``: as the command line names it, ``engine:3``)."""
        with self._lock:
            self._append(
                "player", {"side": chess.COLOR_NAMES[side], "spec": spec, "player": _player_json(player)}
            )

    def abandon(self) -> None:
        """Nobody means to go on with the game: ``play --resume`` no longer offers it (its id still
        takes it up, and the next entry lifts this)."""
        with self._lock:
            self._append("abandon", {})

    def _append(self, kind: str, fields: Mapping[str, Any]) -> None:
        fd = self._fd
        if fd is None:
            raise JournalError(f"the journal {str(self.path)!r} is closed; open it again with Journal.open()")
        entry = {"type": kind, "time": self._now().isoformat(), **fields}
        trial = self._replay.copy()
        trial.apply(entry)
        data = _line(entry)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except OSError as exc:
            # Cut off the partial line so that the next entry does not land in the middle of it.
            try:
                os.ftruncate(fd, self._size)
            except OSError:
                LOGGER.warning("%s: could not cut off a failed write; reading will skip it", self.path)
            raise GameSaveError(
                f"cannot write to the game journal {str(self.path)!r}: {exc.strerror or exc}"
            ) from exc
        self._size += len(data)
        self._replay = trial

    def discard(self) -> None:
        """Close and delete the journal of a game that never began (nothing after its start line), e.g.
        because its players could not play: no unfinished game is left behind for ``--resume``.

        Raises :class:`GameSaveError` for a journal with anything more in it."""
        with self._lock:
            if self._replay.state.lines > 1:
                raise GameSaveError(f"the game journal {str(self.path)!r} holds the game's play; it is kept")
        self.close()
        try:
            self.path.unlink(missing_ok=True)
            _sync_directory(self.path.parent)
        except OSError as exc:
            raise GameSaveError(
                f"cannot remove the game journal {str(self.path)!r} of a game that never began: "
                f"{exc.strerror or exc}; delete it by hand"
            ) from exc

    def close(self) -> None:
        """Release the journal; safe to call twice."""
        with self._lock:
            if self._fd is not None:
                fd, self._fd = self._fd, None
                os.close(fd)  # also releases the lock

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _lock(fd: int, path: Path) -> None:
    """Take the journal's advisory lock (POSIX only), or raise :class:`GameInUseError`."""
    if sys.platform != "win32":
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GameInUseError(
                f"the game journal {str(path)!r} is open in another session; close that one first"
            ) from None


def _repair(path: Path, fd: int, data: bytes, good: list[bytes]) -> int:
    """Replace the damaged journal at ``path`` (open and locked as ``fd``, holding ``data``) by its
    ``good`` lines, keeping the damaged file beside it; returns the new journal's descriptor, open and
    locked, and closes ``fd``. The new journal is complete before it takes the old one's name."""
    backup = _keep_damaged(path, data)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        _lock(descriptor, Path(temporary))
        if sys.platform != "win32":  # writes go to the end even after a failed write was cut off
            fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) | os.O_APPEND)
        content = b"".join(line + b"\n" for line in good)
        written = 0
        while written < len(content):
            written += os.write(descriptor, content[written:])
        os.fsync(descriptor)
        os.replace(temporary, path)
        _sync_directory(path.parent)
    except BaseException:
        os.close(descriptor)
        Path(temporary).unlink(missing_ok=True)
        raise
    os.close(fd)
    LOGGER.warning(
        "%r repaired: it holds the game up to the damage; the damaged file is kept as %r",
        str(path),
        str(backup),
    )
    return descriptor


def _keep_damaged(path: Path, data: bytes) -> Path:
    """Write ``data`` (a damaged journal's bytes) to a new file beside ``path``: ``<name>.damaged``, or
    ``<name>.damaged-2``... when that exists; returns its path."""
    for number in range(1, 1000):
        backup = path.with_name(f"{path.name}.damaged" + (f"-{number}" if number > 1 else ""))
        try:
            out = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        try:
            written = 0
            while written < len(data):
                written += os.write(out, data[written:])
            os.fsync(out)
        finally:
            os.close(out)
        return backup
    raise FileExistsError(f"too many damaged copies of {str(path)!r} beside it; remove some")


def _read_all(fd: int) -> bytes:
    chunks = []
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
