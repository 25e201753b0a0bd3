"""Which engine and how strong: finding Stockfish where Debian installs it, a level (``engine:5``,
``engine:1500elo``, ``engine:8:depth=12``) as UCI options and search limits, checked against the options
the engine itself offers (an Elo against the range it reports).

The level grammar, case-insensitive, fields separated by ``:`` in any order after the word ``engine``::

    level    = "engine" { ":" field }
    field    = skill | elo | option
    skill    = integer 0..20                   Stockfish "Skill Level"            engine:8
    elo      = integer "elo" | "elo" integer   UCI_LimitStrength + UCI_Elo        engine:1500elo
    option   = "time=" seconds                 time per move, > 0                 engine:8:time=0.5
             | "depth=" integer                search depth in plies, >= 1        engine:8:depth=12
             | "nodes=" integer                nodes per move, >= 1               engine:nodes=20000
             | "threads=" integer              search threads, >= 1               engine:threads=2
             | "hash=" integer                 hash table in MiB, >= 1            engine:hash=64

At most one of skill or elo, each option at most once. Without either the engine plays at its full
strength; without time, depth or nodes it thinks for :data:`DEFAULT_MOVE_TIME_S` per move. Several of
time, depth and nodes together stop the search at whichever comes first.

>>> parse_level("engine:8:time=0.5")
EngineSettings(skill=8, elo=None, time_s=0.5, depth=None, nodes=None, threads=1, hash_mb=16)
>>> parse_level("ENGINE:elo1500").spec()
'engine:1500elo'
"""

from __future__ import annotations

import functools
import math
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import chess
import chess.engine

from ...errors import (
    ChessatronError,
    EngineFailedError,
    EngineMissingError,
    EngineSettingsError,
    GameOverError,
    InvalidPositionError,
)
from ...i18n import N_, _
from ...i18n.formats import decimal, either

STARTUP_TIMEOUT_S: Final = 10.0
"""Generous: loading the NNUE network takes seconds on a Raspberry Pi Zero."""


_ENGINE_FAILURES: Final = (
    chess.engine.EngineTerminatedError,
    chess.engine.EngineError,
    TimeoutError,
    OSError,
)
"""What a crashed, hung or garbled engine raises; all of them mean: kill it, start it again, retry."""


_OPTION_FIELDS: Final = {
    "time": "time_s",
    "depth": "depth",
    "nodes": "nodes",
    "threads": "threads",
    "hash": "hash_mb",
}


_INTEGER: Final = re.compile(r"[0-9]+", re.ASCII)


_SECONDS: Final = re.compile(r"([0-9]+(\.[0-9]*)?|\.[0-9]+)(e[-+]?[0-9]+)?", re.ASCII)


_ELO: Final = re.compile(r"([0-9]+)elo|elo([0-9]+)", re.ASCII)


#: How to write a level, after one that does not read (translated where shown).
_LEVEL_HELP: Final = N_(
    "use engine, engine:0 to engine:20, engine:1500elo, and options such as engine:8:time=0.5 "
    "or engine:8:depth=12"
)


class _NoMoveError(chess.engine.EngineError):
    """The engine answered ``bestmove`` without a move (``bestmove (none)``, ``bestmove 0000``, or nothing)
    in a position that has legal moves: garbled like an illegal move, so it is retried the same way."""


def _describe(exc: BaseException | None, timeout_s: float | None = None) -> str:
    if isinstance(exc, chess.engine.EngineTerminatedError):
        # TRANSLATORS: why the chess engine failed: it exited
        return _("it exited")
    if isinstance(exc, _NoMoveError):
        return str(exc)
    if isinstance(exc, TimeoutError):
        if timeout_s is None:
            return _("no answer in time")
        return _("no answer in {seconds} s").format(
            seconds=decimal(timeout_s, 0 if timeout_s == int(timeout_s) else 1)
        )
    return f"{type(exc).__name__}: {exc}"


DEFAULT_ENGINE: Final = "stockfish"


GAMES_DIRS: Final = ("/usr/games", "/usr/local/games")
"""Where Debian and Raspberry Pi OS install engines; not on ``PATH`` for non-login shells and services."""


SKILL_MIN: Final = 0


SKILL_MAX: Final = 20


DEFAULT_MOVE_TIME_S: Final = 1.0


#: How to get an engine, after one that is missing (translated where shown).
INSTALL_HINT: Final = N_(
    "install it with 'sudo apt install stockfish' (debian, raspberry pi os) or pass --engine PATH"
)


#: An engine that keeps failing, by what it was asked (translated where shown).
FAILED_WHILE: dict[str, str] = {
    "choosing a move": N_(
        "the chess engine {path!r} failed {count} times in a row while choosing a move (last: {reason}); "
        "check "
        "that it runs on its own, or choose another with --engine PATH"
    ),
    "finding a hint": N_(
        "the chess engine {path!r} failed {count} times in a row while finding a hint (last: {reason}); "
        "check "
        "that it runs on its own, or choose another with --engine PATH"
    ),
    "evaluating": N_(
        "the chess engine {path!r} failed {count} times in a row while evaluating (last: {reason}); check "
        "that it runs on its own, or choose another with --engine PATH"
    ),
    "analysing": N_(
        "the chess engine {path!r} failed {count} times in a row while analysing (last: {reason}); check "
        "that it runs on its own, or choose another with --engine PATH"
    ),
}


def unsearchable(
    board: chess.Board, path: Path, *, plays_chess960: bool, needs_move: bool
) -> ChessatronError | None:
    """Why the engine at ``path`` cannot search ``board`` (a position no game reaches, Chess960 it does not
    play, no move to make when one is wanted), None when it can."""
    status = board.status()
    if status != chess.STATUS_VALID:
        problems = ", ".join(
            (flag.name or "").lower().replace("_", " ") for flag in chess.Status if flag & status
        )
        # TRANSLATORS: {problems} are python-chess's words for what is wrong (too many kings)
        wrong = _("the engine cannot search {fen!r}: {problems}; set up a position a game can reach")
        return InvalidPositionError(wrong.format(fen=board.fen(), problems=problems))
    if board.chess960 and not plays_chess960:
        wrong = _("the engine {path!r} does not play chess960; choose another with --engine PATH")
        return EngineSettingsError(wrong.format(path=str(path)))
    if needs_move and not any(board.generate_legal_moves()):
        if board.is_check():
            over = _(
                "there is no move to make in {fen!r}: it is checkmate; take a move back or start a new game"
            )
        else:
            over = _(
                "there is no move to make in {fen!r}: it is stalemate; take a move back or start a new game"
            )
        return GameOverError(over.format(fen=board.fen()))
    return None


def find_engine(name_or_path: str = DEFAULT_ENGINE) -> Path:
    """The engine program: an explicit path, or a name on ``PATH``, or in Debian's ``/usr/games``.

    A name with a directory separator is a path and is used as it is. A bare name is looked up on
    ``PATH`` and then in :data:`GAMES_DIRS`, because Debian's ``stockfish`` package installs to
    ``/usr/games``, which services and non-login shells do not have on their ``PATH``.

    Raises :class:`EngineMissingError` saying how to install the engine.
    """
    if not name_or_path.strip():
        # TRANSLATORS: {hint} is a sentence saying how to install an engine
        raise EngineMissingError(
            _("no chess engine named {name!r}; {hint}").format(name=name_or_path, hint=_(INSTALL_HINT))
        )
    if os.sep in name_or_path or (os.altsep and os.altsep in name_or_path) or name_or_path.startswith("~"):
        path = Path(name_or_path).expanduser().absolute()
        if not path.is_file():
            # TRANSLATORS: {hint} is a sentence saying how to install an engine
            raise EngineMissingError(
                _("no chess engine at {path!r}; check the path, or {hint}").format(
                    path=str(path), hint=_(INSTALL_HINT)
                )
            )
        if not os.access(path, os.X_OK):
            raise EngineMissingError(
                _("the chess engine {path!r} is not executable; run 'chmod +x {command}'").format(
                    path=str(path), command=path
                )
            )
        return path
    for search_path in (None, *GAMES_DIRS):
        found = shutil.which(name_or_path, path=search_path)
        if found is not None:
            return Path(found).absolute()
    # TRANSLATORS: {folders} are folders (/usr/games); {hint} is a sentence saying how to install an engine
    raise EngineMissingError(
        _("chess engine {name!r} not found on PATH or in {folders}; {hint}").format(
            name=name_or_path, folders=either(GAMES_DIRS), hint=_(INSTALL_HINT)
        )
    )


@dataclass(frozen=True)
class EngineSettings:
    """How the engine plays: its strength, how long it thinks, and its resources.

    ``skill`` is Stockfish's "Skill Level" (0 weakest to 20 strongest); ``elo`` limits the strength with
    ``UCI_LimitStrength`` and ``UCI_Elo`` instead (the engine's own range is checked when it starts).
    Give at most one; with neither the engine plays at full strength. ``time_s`` (seconds per move),
    ``depth`` (plies) and ``nodes`` limit each search; with none of them the engine thinks for
    :data:`DEFAULT_MOVE_TIME_S`. ``threads`` and ``hash_mb`` (MiB) stay small for a Raspberry Pi.

    Raises :class:`EngineSettingsError` for values no engine can take.

    >>> EngineSettings(skill=5).limit()
    Limit(time=1.0)
    """

    skill: int | None = None
    elo: int | None = None
    time_s: float | None = None
    depth: int | None = None
    nodes: int | None = None
    threads: int = 1
    hash_mb: int = 16

    def __post_init__(self) -> None:
        if self.skill is not None and self.elo is not None:
            raise EngineSettingsError(
                _(
                    "skill level {skill!r} and elo {elo!r} both given; choose one (engine:8 or "
                    "engine:1500elo)"
                ).format(skill=self.skill, elo=self.elo)
            )
        if self.skill is not None and not SKILL_MIN <= self.skill <= SKILL_MAX:
            raise EngineSettingsError(
                _(
                    "skill level {skill!r} is outside {low} to {high}; use engine:{low} (weakest) to "
                    "engine:{high} (strongest), or an elo like engine:1500elo"
                ).format(skill=self.skill, low=SKILL_MIN, high=SKILL_MAX)
            )
        if self.elo is not None and self.elo < 1:
            raise EngineSettingsError(
                _("elo {elo!r} is not a rating; use a positive number like engine:1500elo").format(
                    elo=self.elo
                )
            )
        if self.time_s is not None and not (math.isfinite(self.time_s) and self.time_s > 0):
            raise EngineSettingsError(
                _("time per move {seconds!r} s must be a positive number of seconds").format(
                    seconds=self.time_s
                )
            )
        for name, value in (
            ("depth", self.depth),
            ("nodes", self.nodes),
            ("threads", self.threads),
            ("hash", self.hash_mb),
        ):
            if value is not None and value < 1:
                # TRANSLATORS: {name} is the level's option as written (depth, nodes, threads, hash)
                raise EngineSettingsError(
                    _("{name} {value!r} must be at least 1").format(name=name, value=value)
                )

    def limit(self) -> chess.engine.Limit:
        """The search limit of one move."""
        if self.time_s is None and self.depth is None and self.nodes is None:
            return chess.engine.Limit(time=DEFAULT_MOVE_TIME_S)
        return chess.engine.Limit(time=self.time_s, depth=self.depth, nodes=self.nodes)

    def options(self) -> dict[str, int | bool]:
        """The UCI options this level sets, by the names Stockfish gives them."""
        options: dict[str, int | bool] = {"Threads": self.threads, "Hash": self.hash_mb}
        if self.skill is not None:
            options["Skill Level"] = self.skill
        if self.elo is not None:
            options["UCI_LimitStrength"] = True
            options["UCI_Elo"] = self.elo
        return options

    def full_strength_options(self) -> dict[str, int | bool]:
        """The options a hint or an evaluation overrides so that it searches at full strength."""
        if self.elo is not None:
            return {"UCI_LimitStrength": False}
        if self.skill is not None:
            return {"Skill Level": SKILL_MAX}
        return {}

    def spec(self) -> str:
        """The level as :func:`parse_level` reads it, defaults left out: ``engine:8:time=0.5``."""
        parts = ["engine"]
        if self.skill is not None:
            parts.append(str(self.skill))
        if self.elo is not None:
            parts.append(f"{self.elo}elo")
        defaults = EngineSettings()
        for key, name in _OPTION_FIELDS.items():
            value = getattr(self, name)
            if value != getattr(defaults, name):
                parts.append(f"{key}={value!r}")
        return ":".join(parts)


def parse_level(text: str) -> EngineSettings:
    """Read an engine level typed on the command line, in the grammar of this module's docstring.

    Raises :class:`EngineSettingsError` naming the field that is wrong.

    >>> parse_level("engine:1500elo:depth=12")
    EngineSettings(skill=None, elo=1500, time_s=None, depth=12, nodes=None, threads=1, hash_mb=16)
    """
    head, *fields_ = text.strip().lower().split(":")
    if head.strip() != "engine":
        # TRANSLATORS: {help} is a sentence saying how to write a level
        raise EngineSettingsError(
            _("bad engine level {text!r}: it must start with 'engine'; {help}").format(
                text=text, help=_(_LEVEL_HELP)
            )
        )
    values: dict[str, float | int] = {}
    strength: str | None = None
    for raw in fields_:
        field = raw.strip()
        if not field:
            # TRANSLATORS: {help} is a sentence saying how to write a level
            raise EngineSettingsError(
                _("bad engine level {text!r}: an empty field between colons; {help}").format(
                    text=text, help=_(_LEVEL_HELP)
                )
            )
        key, equals, value = field.partition("=")
        key, value = key.strip(), value.strip()
        if equals:
            name = _OPTION_FIELDS.get(key)
            if name is None:
                raise EngineSettingsError(
                    _("bad engine level {text!r}: unknown option {key!r}; use {options}").format(
                        text=text, key=key, options=", ".join(f"{k}=" for k in _OPTION_FIELDS)
                    )
                )
            if name in values:
                raise EngineSettingsError(
                    _("bad engine level {text!r}: {key!r} given twice; give it once").format(
                        text=text, key=key
                    )
                )
            pattern = _SECONDS if key == "time" else _INTEGER
            if not pattern.fullmatch(value):
                if key == "time":
                    wrong = _(
                        "bad engine level {text!r}: {key}={value!r} must be a number of seconds like 0.5"
                    )
                else:
                    wrong = _("bad engine level {text!r}: {key}={value!r} must be a whole number")
                raise EngineSettingsError(wrong.format(text=text, key=key, value=value))
            values[name] = float(value) if key == "time" else int(value)
            continue
        if strength is not None:
            raise EngineSettingsError(
                _(
                    "bad engine level {text!r}: strength given twice ({strength!r} and {field!r}); "
                    "give a skill level or an elo, once"
                ).format(text=text, strength=strength, field=field)
            )
        strength = field
        if _INTEGER.fullmatch(field):
            values["skill"] = int(field)
        elif match := _ELO.fullmatch(field):
            values["elo"] = int(match.group(1) or match.group(2))
        else:
            raise EngineSettingsError(
                _(
                    "bad engine level {text!r}: cannot read {field!r}; expected a skill level 0 to 20, "
                    "an elo like 1500elo, or an option like time=0.5"
                ).format(text=text, field=field)
            )
    try:
        return EngineSettings(**values)  # type: ignore[arg-type]
    except EngineSettingsError as exc:
        raise EngineSettingsError(
            _("bad engine level {text!r}: {reason}").format(text=text, reason=exc)
        ) from exc


def checked_options(
    settings: EngineSettings, available: Mapping[str, chess.engine.Option], path: Path | str
) -> dict[str, int | bool]:
    """The UCI options ``settings`` set, checked against those the engine at ``path`` offers
    (``available``, with their ranges): raises :class:`EngineSettingsError` for an option it lacks or a
    value outside its range (an Elo below its minimum)."""
    wanted = settings.options()
    for name, value in wanted.items():
        option = available.get(name)
        if option is None:
            raise EngineSettingsError(
                _(
                    "the engine {path!r} has no {name!r} option, so it cannot play {level!r}; choose another "
                    "level or another engine with --engine PATH"
                ).format(path=str(path), name=name, level=settings.spec())
            )
        if isinstance(value, bool) or option.min is None or option.max is None:
            continue
        if not option.min <= value <= option.max:
            if name == "UCI_Elo":
                outside = _(
                    "elo {value!r} is outside the range {low} to {high} that the engine {path!r} supports; "
                    "choose a value in that range such as engine:{low}elo"
                )
            else:
                outside = _(
                    "{name} {value!r} is outside the range {low} to {high} that the engine {path!r} "
                    "supports; "
                    "choose a value in that range"
                )
            raise EngineSettingsError(
                outside.format(name=name, value=value, low=option.min, high=option.max, path=str(path))
            )
    return wanted


def engine_options(engine: str | os.PathLike[str] = DEFAULT_ENGINE) -> Mapping[str, chess.engine.Option]:
    """The UCI options the engine offers, with their ranges (the Elo it can play at). The engine is
    started once per program file to ask; raises :class:`EngineMissingError`, :class:`EngineFailedError`."""
    path = find_engine(os.fspath(engine))
    return _options_of(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _options_of(path: Path, mtime_ns: int) -> Mapping[str, chess.engine.Option]:
    try:
        # a process group of its own: a terminal's Ctrl-C is chessatron's to handle, not the engine's
        engine = chess.engine.SimpleEngine.popen_uci(str(path), timeout=STARTUP_TIMEOUT_S, setpgrp=True)
    except _ENGINE_FAILURES as exc:
        # TRANSLATORS: {hint} is a sentence saying how to install an engine
        raise EngineFailedError(
            _("the chess engine {path!r} did not start ({reason}); {hint}").format(
                path=str(path), reason=_describe(exc), hint=_(INSTALL_HINT)
            )
        ) from exc
    try:
        return dict(engine.options)
    finally:
        engine.close()
