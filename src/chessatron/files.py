"""Reading the files chessatron is given: one way, with one kind of error.

Every file the project reads goes through these functions: the machine config, a table layout, the
simulator's saved table, a game journal, a PGN, a compact record, a sensor trace, a G-code program, a pin
map and an LED mapping (:data:`KINDS`). Whatever is wrong with the file becomes one error of its kind's
category (:class:`~chessatron.errors.ConfigError`, :class:`~chessatron.errors.GameFileError`...) whose
message names the file and the problem: missing, a folder, a device such as ``/dev/zero`` (never read
until memory runs out), larger than the kind allows, not UTF-8, not valid TOML or JSON, nested deeper than
any of chessatron's files, or holding a number no file of ours needs (beyond 64 bits, infinite, NaN).

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "table.toml"
...     _ = path.write_bytes(b"[table]\\ncolumns = 12\\n\\xff")
...     try:
...         load_toml(path, LAYOUT)
...     except ConfigError as exc:
...         print(str(exc).replace(folder, "..."))
cannot read layout '.../table.toml': it is not UTF-8 text (byte 0xff at offset 21); save it as UTF-8
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeAlias

from .errors import ChessatronError, ConfigError, GameFileError, LedMappingError, LoginError
from .i18n import N_, _, formats

PathLike: TypeAlias = str | os.PathLike[str]

KiB = 1024
MiB = 1024 * KiB

#: No file of ours nests tables or lists deeper than this; deeper is damage (or an attack).
MAX_DEPTH = 32
#: Whole numbers in our files fit in 64 bits (a bitboard, a count, a time in milliseconds).
MAX_INTEGER = 2**64 - 1


class ContentError(ValueError):
    """What is wrong with a file's content (not valid TOML, nested too deep...), said of "it" (``str()``:
    ``cannot read config '…': it is not valid TOML (…)``) and of "the file" (:attr:`of_the_file`: ``the
    file is not valid TOML (…)``), each a whole sentence in the current language."""

    def __init__(self, of_it: str, of_the_file: str | None = None) -> None:
        super().__init__(of_it)
        self.of_the_file = of_it if of_the_file is None else of_the_file


@dataclass(frozen=True)
class FileKind:
    """What a file is to chessatron: its ``name`` in messages, the ``error`` its problems raise, the most
    bytes it may hold, its text encoding, and what to do when it is damaged (``advice``, marked for
    translation). ``cannot_read`` is the message that starts each of its errors (``{path}`` in it; marked
    for translation); by default ``cannot read {name} {path!r}``, in English only."""

    name: str
    error: type[ChessatronError]
    max_bytes: int
    encoding: str = "utf-8-sig"
    """``utf-8-sig``: UTF-8 with or without the byte-order mark some Windows editors write."""
    advice: str = ""
    max_line_chars: int | None = None
    """The longest line a file of this kind may have (None: any)."""
    cannot_read: str = ""

    def fail(self, path: PathLike, reason: str, *, advice: str | None = None) -> ChessatronError:
        """The error for ``reason`` (what is wrong with the file at ``path``, in the current language)."""
        then = _(self.advice) if advice is None and self.advice else advice
        shown = os.fspath(path)
        if self.cannot_read:
            start = _(self.cannot_read).format(path=shown)
        else:
            start = f"cannot read {self.name} {shown!r}"
        if then:
            return self.error(
                _("{start}: {reason}; {advice}").format(start=start, reason=reason, advice=then)
            )
        return self.error(_("{start}: {reason}").format(start=start, reason=reason))


CONFIG = FileKind("config", ConfigError, 1 * MiB, cannot_read=N_("cannot read config {path!r}"))
LAYOUT = FileKind("layout", ConfigError, 1 * MiB, cannot_read=N_("cannot read layout {path!r}"))
SIMULATOR_STATE = FileKind(
    "simulator state",
    ConfigError,
    16 * MiB,
    advice=N_("delete it or pass --fresh to start from a fresh table"),
    cannot_read=N_("cannot read simulator state {path!r}"),
)
JOURNAL = FileKind(
    "game journal", GameFileError, 64 * MiB, cannot_read=N_("cannot read game journal {path!r}")
)
#: The PGN standard keeps lines under 256 characters; exports that put a game's moves, clocks and comments
#: on one line stay far below this.
MAX_PGN_LINE_CHARS = 100_000
PGN = FileKind(
    "PGN file",
    GameFileError,
    256 * MiB,
    max_line_chars=MAX_PGN_LINE_CHARS,
    cannot_read=N_("cannot read PGN file {path!r}"),
)
COMPACT_RECORD = FileKind(
    "compact record", GameFileError, 1 * MiB, cannot_read=N_("cannot read compact record {path!r}")
)
TRACE = FileKind(
    "sensor trace", GameFileError, 256 * MiB, cannot_read=N_("cannot read sensor trace {path!r}")
)
PROGRAM = FileKind(
    "g-code program",
    ConfigError,
    256 * MiB,
    encoding="ascii",
    advice=N_("give a g-code text file"),
    cannot_read=N_("cannot read g-code program {path!r}"),
)
PIN_MAP = FileKind(
    "pin map",
    ConfigError,
    1 * MiB,
    advice=N_("give map= a file, the map itself ('0A: a1 b1 …;0B: …') or 'default'"),
    cannot_read=N_("cannot read pin map {path!r}"),
)
LED_MAPPING = FileKind(
    "LED mapping",
    LedMappingError,
    1 * MiB,
    advice=N_("use order=serpentine, order=rows or the path of a mapping file"),
    cannot_read=N_("cannot read LED mapping {path!r}"),
)
PRESS_SCRIPT = FileKind(
    "press script",
    ConfigError,
    1 * MiB,
    advice=N_(
        "write button names (up, down, left, right, select, back) separated by commas or spaces, "
        "right*3 for three presses"
    ),
    cannot_read=N_("cannot read press script {path!r}"),
)

#: Every kind of file chessatron reads (its own package data aside); the fuzz test covers each.
ONLINE_TOKENS = FileKind(
    "kept online tokens",
    LoginError,
    64 * 1024,
    advice=N_("delete it and run `chessatron online login` again"),
    cannot_read=N_("cannot read kept online tokens {path!r}"),
)
KINDS = (
    CONFIG,
    LAYOUT,
    SIMULATOR_STATE,
    JOURNAL,
    PGN,
    COMPACT_RECORD,
    TRACE,
    PROGRAM,
    PIN_MAP,
    LED_MAPPING,
    PRESS_SCRIPT,
    ONLINE_TOKENS,
)


def is_missing(path: PathLike) -> bool:
    """True if nothing is at ``path`` (a file that exists but cannot be read is not missing: reading it
    says why)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
    return False


def read_bytes(path: PathLike, kind: FileKind) -> bytes:
    """The bytes of the file at ``path``: a regular file or a pipe (``<(...)``, ``/dev/stdin`` when it is
    one), never a folder or a device, and at most ``kind.max_bytes``. Raises ``kind.error`` naming the
    file and what is wrong."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise kind.fail(path, _("no such file"), advice=_(kind.advice or N_("check the path"))) from None
    except IsADirectoryError:
        raise kind.fail(
            path, _("it is a folder, not a file"), advice=_(kind.advice or N_("give a file"))
        ) from None
    except PermissionError:
        raise kind.fail(path, _("permission denied"), advice=_("check who may read it")) from None
    except (OSError, ValueError) as exc:
        raise kind.fail(path, _reason(exc)) from exc
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise kind.fail(path, _("it is a folder, not a file"), advice=_(kind.advice or N_("give a file")))
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            # /dev/zero or /dev/urandom would be read until memory runs out, a terminal until Ctrl-D
            what = (
                _("it is a character device, not a file")
                if stat.S_ISCHR(mode)
                else _("it is a device or a socket, not a file")
            )
            raise kind.fail(path, what, advice=_(kind.advice or N_("give a file")))
        if stat.S_ISFIFO(mode):
            # opened without waiting for a writer (a named pipe nobody writes to reads as empty, never
            # hangs); a pipe's writer (process substitution, /dev/stdin) is waited for to its end
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(MiB, kind.max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > kind.max_bytes:
                raise kind.fail(
                    path,
                    _("it is larger than {size}").format(size=_size(kind.max_bytes)),
                    advice=_("is it the right file?"),
                )
    except OSError as exc:
        raise kind.fail(path, _reason(exc)) from exc
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_text(path: PathLike, kind: FileKind) -> str:
    """The text of the file at ``path`` (see :func:`read_bytes`), decoded as ``kind.encoding``."""
    return decode(read_bytes(path, kind), path, kind)


def decode(data: bytes, path: PathLike, kind: FileKind) -> str:
    """``data`` read from ``path`` as text; ``kind.error`` names the first byte that is not, or the first
    line longer than ``kind.max_line_chars``."""
    try:
        text = data.decode(kind.encoding)
    except UnicodeDecodeError as exc:
        charset = "ASCII" if kind.encoding == "ascii" else "UTF-8"
        raise kind.fail(
            path,
            _("it is not {charset} text (byte {byte} at offset {offset})").format(
                charset=charset, byte=f"{data[exc.start]:#04x}", offset=exc.start
            ),
            advice=_(kind.advice) if kind.advice else _("save it as {charset}").format(charset=charset),
        ) from None
    if kind.max_line_chars is not None:
        long_line = first_long_line(text, kind.max_line_chars)
        if long_line is not None:
            number, length = long_line
            raise kind.fail(
                path,
                _(
                    # TRANSLATORS: only a PGN file has lines this long
                    "line {number} is {length} characters long, longer than a PGN line may be ({most})"
                ).format(
                    number=number, length=formats.decimal(length), most=formats.decimal(kind.max_line_chars)
                ),
                advice=_("is it the right file?"),
            )
    return text


def first_long_line(text: str, limit: int) -> tuple[int, int] | None:
    """The number (from 1) and length of the first line of ``text`` longer than ``limit``, if any. One
    pass: a match is tried only where a line starts, and reads at most ``limit`` + 1 characters of it.

    >>> first_long_line("ok\\n" + "x" * 9 + "\\nok", 8)
    (2, 9)
    """
    found = re.compile(rf"^[^\n]{{{limit + 1}}}", re.MULTILINE).search(text)
    if found is None:
        return None
    end = text.find("\n", found.start())
    return text.count("\n", 0, found.start()) + 1, (len(text) if end < 0 else end) - found.start()


def load_toml(path: PathLike, kind: FileKind) -> dict[str, Any]:
    """The TOML document in the file at ``path``, its values checked (:func:`check_values`)."""
    try:
        return parse_toml(read_text(path, kind))
    except ValueError as exc:
        if isinstance(exc, ChessatronError):
            raise
        raise kind.fail(path, str(exc)) from exc


def load_json(path: PathLike, kind: FileKind) -> Any:
    """The JSON document in the file at ``path``, its values checked (:func:`check_values`)."""
    try:
        return parse_json(read_text(path, kind))
    except ValueError as exc:
        if isinstance(exc, ChessatronError):
            raise
        raise kind.fail(path, str(exc)) from exc


def parse_toml(text: str) -> dict[str, Any]:
    """A TOML document. Raises :class:`ValueError` saying what is wrong (invalid, too deep, a number out
    of range)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ContentError(
            _("it is not valid TOML ({detail})").format(detail=exc),
            _("the file is not valid TOML ({detail})").format(detail=exc),
        ) from None
    except RecursionError:
        raise ContentError(
            _("it nests tables or lists more than {depth} deep").format(depth=MAX_DEPTH),
            _("the file nests tables or lists more than {depth} deep").format(depth=MAX_DEPTH),
        ) from None
    except ValueError:  # Python refuses to read a whole number of thousands of digits
        raise ContentError(
            _("it holds a number of thousands of digits"), _("the file holds a number of thousands of digits")
        ) from None
    check_values(data)
    return data


def parse_json(text: str | bytes, *, finite: bool = True) -> Any:
    """A JSON document (one line of a JSON-lines file, or a whole file). Raises :class:`ValueError` saying
    what is wrong: not UTF-8, not valid JSON, too deep, a number out of range (with ``finite``, also
    ``NaN``, ``Infinity`` and ``1e400``: leave them to a caller that checks each number itself)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        values = {"detail": exc.msg, "line": exc.lineno, "column": exc.colno}
        raise ContentError(
            _("it is not valid JSON ({detail} at line {line} column {column})").format(**values),
            _("the file is not valid JSON ({detail} at line {line} column {column})").format(**values),
        ) from None
    except UnicodeDecodeError as exc:
        byte = f"{exc.object[exc.start]:#04x}"
        raise ContentError(
            _("it is not UTF-8 text (byte {byte})").format(byte=byte),
            _("the file is not UTF-8 text (byte {byte})").format(byte=byte),
        ) from None
    except RecursionError:
        raise _too_deep() from None
    except ValueError:  # Python refuses to read a whole number of thousands of digits
        raise ContentError(
            _("it holds a number of thousands of digits"), _("the file holds a number of thousands of digits")
        ) from None
    check_values(data, finite=finite)
    return data


def check_values(data: Any, *, finite: bool = True) -> None:
    """Raise :class:`ValueError` if ``data`` (parsed TOML or JSON) nests deeper than :data:`MAX_DEPTH` or
    holds a whole number beyond 64 bits or a float that is infinite or NaN, naming where."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise _too_deep()
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                stack.append(
                    (item, depth + 1, f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]")
                )
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int) and abs(value) > MAX_INTEGER:
            key, digits = where.lstrip("."), len(str(abs(value)))
            if key:
                raise ContentError(
                    _("{key} is a number of {digits} digits, out of range").format(key=key, digits=digits)
                )
            raise ContentError(
                _("it is a number of {digits} digits, out of range").format(digits=digits),
                _("the file is a number of {digits} digits, out of range").format(digits=digits),
            )
        elif finite and isinstance(value, float) and not math.isfinite(value):
            key = where.lstrip(".")
            if key:
                raise ContentError(_("{key} is {value!r}, not a finite number").format(key=key, value=value))
            raise ContentError(
                _("it is {value!r}, not a finite number").format(value=value),
                _("the file is {value!r}, not a finite number").format(value=value),
            )


def json_lines(path: PathLike, kind: FileKind) -> Iterator[tuple[int, str]]:
    """The lines of a JSON-lines file with their numbers (from 1), blank lines skipped; parse each with
    :func:`parse_json`."""
    for number, line in enumerate(read_text(path, kind).split("\n"), start=1):
        if line.strip():
            yield number, line


def _too_deep() -> ContentError:
    return ContentError(
        _("it nests objects or lists more than {depth} deep").format(depth=MAX_DEPTH),
        _("the file nests objects or lists more than {depth} deep").format(depth=MAX_DEPTH),
    )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


def _size(count: int) -> str:
    return f"{count // MiB} MiB" if count >= MiB else f"{count // KiB} KiB"


__all__ = [
    "COMPACT_RECORD",
    "CONFIG",
    "JOURNAL",
    "KINDS",
    "LAYOUT",
    "LED_MAPPING",
    "PGN",
    "PIN_MAP",
    "PROGRAM",
    "SIMULATOR_STATE",
    "TRACE",
    "ContentError",
    "FileKind",
    "check_values",
    "decode",
    "first_long_line",
    "is_missing",
    "json_lines",
    "load_json",
    "load_toml",
    "parse_json",
    "parse_toml",
    "read_bytes",
    "read_text",
]
