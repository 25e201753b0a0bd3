"""What a journal holds: the game's metadata, its state, and the replay of entries that both the reader
and the writer use (pure). The line format is described in :mod:`chessatron.game.records.journal`."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import secrets
import sys
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import chess

from ....errors import IllegalMoveError, JournalError
from ....i18n import _
from ..record import (
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
    pass


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
            raise JournalError(
                _("bad game id {game_id!r}; use 1 to 32 lower-case letters and digits").format(
                    game_id=self.game_id
                )
            )
        if self.started.tzinfo is None:
            raise JournalError(
                _("start time {started!r} has no timezone; use an aware datetime").format(
                    started=self.started
                )
            )
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
            raise JournalError(
                _("the game config {config!r} is not JSON data ({reason})").format(
                    config=self.config, reason=exc
                )
            ) from exc

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
                _("format {found!r} is not {wanted!r}; is this a chessatron journal?").format(
                    found=data.get("format"), wanted=FORMAT
                )
            )
        variant = _field(data, "variant", str)
        if variant not in ("standard", "chess960"):
            raise JournalError(_("unknown variant {variant!r}").format(variant=variant))
        clock = data.get("clock")
        if clock is not None and not isinstance(clock, dict):
            raise JournalError(_("clock {clock!r} is not an object").format(clock=clock))
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
    table: tuple[tuple[object, ...], ...] | None = None
    """Where every piece stood when the work began (``(id, symbol, i, j)`` each), when the journal says
    so: the table had been changed since the earlier work (a set-up taken up again from where it stands)."""

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
            raise JournalError(
                _("the first line is {kind!r}, not a game start").format(kind=entry.get("type"))
            )
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
                    _("robot work for ply {ply!r} with {operations!r}; the game is at ply {plies}").format(
                        ply=ply, operations=operations, plies=len(state.moves)
                    )
                )
            table = entry.get("table")
            if table is not None and not (
                isinstance(table, list) and all(isinstance(row, list) and len(row) == 4 for row in table)
            ):
                raise JournalError(
                    _("robot work for ply {ply!r} starts from a table that is not one: {table!r}").format(
                        ply=ply, table=table
                    )
                )
            snapshot = None if table is None else tuple(tuple(row) for row in table)
            work = RobotProgress(ply, tuple(operations), table=snapshot)
            self.state = replace(state, robot=work, robot_work=(*state.robot_work, work))
        elif kind == "robot-done":
            ply, index, robot = _field(entry, "ply", int), _field(entry, "index", int), state.robot
            if robot is None or robot.ply != ply or index not in robot.remaining:
                raise JournalError(
                    _(
                        "robot step {index!r} of ply {ply!r} done, but the robot was asked for {robot!r}"
                    ).format(index=index, ply=ply, robot=robot)
                )
            robot = replace(robot, completed=(*robot.completed, index))
            self.state = replace(state, robot=robot, robot_work=(*state.robot_work[:-1], robot))
        elif kind == "takeback":
            plies = _field(entry, "plies", int)
            if not 1 <= plies <= len(state.moves):
                raise JournalError(
                    _("take-back of {plies!r} plies; {played} were played").format(
                        plies=plies, played=len(state.moves)
                    )
                )
            for _ply in range(plies):
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
                    raise JournalError(
                        _("white accepts a draw nobody offered them")
                        if by == chess.WHITE
                        else _("black accepts a draw nobody offered them")
                    )
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
                    _(
                        "result {result!r} by {termination!r}; use a decided result and our terminations"
                    ).format(result=result, termination=termination)
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
            raise JournalError(_("unknown entry type {kind!r}").format(kind=kind))
        # abandoned until anything else happens in the game
        self.state = replace(self.state, lines=self.state.lines + 1, abandoned=kind == "abandon")

    def _still_playing(self, what: str) -> None:
        if self.state.is_finished:
            raise IllegalMoveError(
                # TRANSLATORS: {what} is the journal's entry, as it writes it (move 'e2e4', resign)
                _("{what} after the game ended {result}; take back or start a new game").format(
                    what=what, result=self.state.result
                )
            )

    def _move(self, entry: Mapping[str, Any], when: dt.datetime) -> None:
        state, board = self.state, self.board
        ply, uci, san = _field(entry, "ply", int), _field(entry, "uci", str), _field(entry, "san", str)
        who, clock_ms = _field(entry, "who", str), entry.get("clock_ms")
        self._still_playing(f"move {uci!r}")
        if ply != len(state.moves) + 1:
            raise JournalError(
                _("move {uci!r} is numbered ply {ply!r}; expected {expected}").format(
                    uci=uci, ply=ply, expected=len(state.moves) + 1
                )
            )
        if clock_ms is not None and (not isinstance(clock_ms, int) or clock_ms < 0):
            raise JournalError(
                _("clock reading {clock_ms!r}; give milliseconds left, 0 or more").format(clock_ms=clock_ms)
            )
        try:
            move = board.parse_uci(uci)
        except ValueError:
            move = chess.Move.null()
        if not move:
            raise IllegalMoveError(_("move {uci!r} is illegal in {fen!r}").format(uci=uci, fen=board.fen()))
        if board.san(move) != san:
            raise JournalError(
                _("move {uci!r} is written {san!r}, but it is {here!r} here").format(
                    uci=uci, san=san, here=board.san(move)
                )
            )
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
        raise JournalError(
            # TRANSLATORS: {name} is a field of a journal line, {kind} a Python type (str, int, dict)
            _("{name!r} is {value!r}, not {kind}").format(name=name, value=value, kind=kind.__name__)
        )
    return value


def _time(data: Mapping[str, Any]) -> dt.datetime:
    text = _field(data, "time", str)
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise JournalError(_("time {text!r} is not ISO 8601").format(text=text)) from None
    if when.tzinfo is None:
        raise JournalError(_("time {text!r} has no timezone").format(text=text))
    return when


def _colour(data: Mapping[str, Any], key: str = "by") -> chess.Color:
    by = data.get(key)
    if by not in chess.COLOR_NAMES:
        raise JournalError(_("side {by!r} is neither 'white' nor 'black'").format(by=by))
    return bool(by == "white")


def _player_json(player: Player) -> dict[str, Any]:
    return {"name": player.name, "kind": player.kind, "level": player.level}


def _player_from_json(data: Mapping[str, Any]) -> Player:
    kind = parse_player_kind(_field(data, "kind", str))
    level = data.get("level")
    if kind is None or not (level is None or isinstance(level, str)):
        raise JournalError(_("bad player {data!r}").format(data=data))
    return Player(_field(data, "name", str), kind, level)


# --- the line format: JSON, sealed with its checksum --------------------------------------------------


_CRC = re.compile(rb',"crc":"([0-9a-f]{8})"\}\Z')


def _line(entry: Mapping[str, Any]) -> bytes:
    """``entry`` as a journal line, sealed: its last member is ``crc``, the CRC-32 of the line without it.

    >>> _line({"type": "abandon", "time": "2024-05-12T15:30:13+00:00"})
    b'{"type":"abandon","time":"2024-05-12T15:30:13+00:00","crc":"1cd7ef75"}\\n'
    """
    body = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return body[:-1] + b',"crc":"%08x"}\n' % zlib.crc32(body)
