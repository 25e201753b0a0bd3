"""What GRBL 1.1 says, as values: parse each line it sends, and format status reports (for the simulator).

Pure functions over strings and bytes, no I/O. :func:`parse_message` never raises: a line it cannot read
is a :class:`Garbled` message, so a corrupted byte on the wire is something a streamer can reason about,
not an exception that kills it.

>>> parse_message("error:20")
Error(code=20)
>>> parse_message("error:20").text
'unsupported or invalid g-code command'
>>> status = parse_message("<Hold:0|MPos:10.000,20.500,0.000|Bf:15,128|FS:0,0>")
>>> status.state, status.substate, status.mpos, status.planner_free
('Hold', 0, (10.0, 20.5, 0.0), 15)
>>> parse_message("<Idle|MPos:1.0x0,0,0>")
Garbled(text='<Idle|MPos:1.0x0,0,0>', reason="bad number '1.0x0' in field 'MPos'")
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias, cast, get_args

from ..planning.gcode_parse import number_value
from .codes import AlarmInfo, alarm_info, error_text

__all__ = [
    "RX_BUFFER_BYTES",
    "WELCOME",
    "Alarm",
    "Error",
    "Feedback",
    "Garbled",
    "LineSplitter",
    "MachineState",
    "Message",
    "Ok",
    "ParserState",
    "PushMessage",
    "Setting",
    "StartupBlock",
    "StartupExecution",
    "Status",
    "Welcome",
    "format_status",
    "looks_like_reply",
    "parse_message",
]

#: GRBL 1.1's serial receive buffer on an Arduino Uno, in bytes.
RX_BUFFER_BYTES = 128
#: The banner GRBL 1.1h prints at power-up and after every reset.
WELCOME = "Grbl 1.1h ['$' for help]"

MachineState = Literal["Idle", "Run", "Hold", "Jog", "Alarm", "Door", "Check", "Home", "Sleep"]
_STATES = frozenset(get_args(MachineState))
# States that carry a substate after a colon, and the substates GRBL 1.1 uses.
_SUBSTATES = {"Hold": range(2), "Door": range(4)}

_INTEGER = re.compile(r"\d+")
_WELCOME = re.compile(r"Grbl(?:HAL)? (\d+\.\d+[a-z]?)\S* \[.*\]", re.IGNORECASE)
_SETTING = re.compile(r"\$(\d+)=(.*)")
_STARTUP_BLOCK = re.compile(r"\$N(\d+)=(.*)")
_PUSH = re.compile(r"\[([A-Za-z0-9]+):(.*)\]")
_FIELD_NAME = re.compile(r"[A-Z][A-Za-z]*")


# One frozen dataclass per kind of line GRBL sends, as its interface document lists them: the classes are
# parallel on purpose (the `duplicates` tool sees their shapes repeat), each its own type for `match`.


@dataclass(frozen=True)
class Ok:
    """``ok``: the oldest line GRBL had not answered was parsed and accepted."""


@dataclass(frozen=True)
class Error:
    """``error:N``: the oldest line GRBL had not answered was rejected (and not run)."""

    code: int

    @property
    def text(self) -> str:
        """What the code means."""
        return error_text(self.code)


@dataclass(frozen=True)
class Alarm:
    """``ALARM:N``: GRBL stopped everything; it refuses g-code until it is unlocked or reset."""

    code: int

    @property
    def info(self) -> AlarmInfo:
        """What the alarm means and what to do."""
        return alarm_info(self.code)


@dataclass(frozen=True)
class Welcome:
    """The banner after a reset, e.g. ``Grbl 1.1h ['$' for help]``; ``version`` is ``"1.1h"``."""

    version: str
    text: str


@dataclass(frozen=True)
class Setting:
    """One ``$N=value`` line of the ``$$`` report."""

    number: int
    value: str

    @property
    def number_value(self) -> float | None:
        """The value as a number, or None if it is not one."""
        return number_value(self.value)


@dataclass(frozen=True)
class StartupBlock:
    """One ``$Nk=block`` line of the ``$N`` report (a line GRBL runs at every reset)."""

    index: int
    block: str


@dataclass(frozen=True)
class StartupExecution:
    """``>block:ok`` or ``>block:error:N``: GRBL ran a startup block after a reset."""

    block: str
    reply: str


@dataclass(frozen=True)
class Feedback:
    """``[MSG:text]``: a feedback message, e.g. ``'$H'|'$X' to unlock``."""

    text: str


@dataclass(frozen=True)
class ParserState:
    """``[GC:G0 G54 G17 G21 G90 G94 M5 M9 T0 F0 S0]``: the g-code parser's modal state, word by word."""

    words: tuple[str, ...]


@dataclass(frozen=True)
class PushMessage:
    """Any other bracketed push message: ``[VER:…]``, ``[OPT:…]``, ``[HLP:…]``, ``[G54:…]``, ``[PRB:…]``…"""

    kind: str
    body: str


@dataclass(frozen=True)
class Status:
    """A real-time status report ``<State|MPos:…|FS:…|…>``.

    Positions are in the report's units (mm unless ``$13=1``), one number per axis; GRBL sends ``MPos``
    (machine) or ``WPos`` (work) as ``$10`` says, never both. ``feed`` is in units per minute and
    ``spindle`` in rpm (None when the report has ``F:`` instead of ``FS:``). ``planner_free`` and
    ``rx_free`` (``Bf:``) are free planner blocks and free serial receive bytes. ``pins`` and
    ``accessories`` keep their letters (``Pn:XZP``, ``A:SF``); ``overrides`` is feed, rapid and spindle
    in percent. Fields GRBL 1.1 does not define are kept in ``extra``.
    """

    state: MachineState
    substate: int | None = None
    mpos: tuple[float, ...] | None = None
    wpos: tuple[float, ...] | None = None
    feed: float | None = None
    spindle: float | None = None
    planner_free: int | None = None
    rx_free: int | None = None
    line_number: int | None = None
    wco: tuple[float, ...] | None = None
    overrides: tuple[int, int, int] | None = None
    pins: str | None = None
    accessories: str | None = None
    extra: tuple[tuple[str, str], ...] = field(default=())

    def machine_position(self, wco: Sequence[float] | None = None) -> tuple[float, ...] | None:
        """Machine coordinates: ``mpos``, or ``wpos`` plus the work offset (this report's or ``wco``)."""
        if self.mpos is not None:
            return self.mpos
        offset = self.wco if self.wco is not None else wco
        if self.wpos is None or offset is None:
            return None
        return tuple(w + o for w, o in zip(self.wpos, offset, strict=False))

    @property
    def is_alarm(self) -> bool:
        """True while GRBL is in its alarm state."""
        return self.state == "Alarm"


@dataclass(frozen=True)
class Garbled:
    """A line that is none of GRBL 1.1's messages (noise, a corrupted byte, another firmware)."""

    text: str
    reason: str


Message: TypeAlias = (
    Ok
    | Error
    | Alarm
    | Welcome
    | Setting
    | StartupBlock
    | StartupExecution
    | Feedback
    | ParserState
    | PushMessage
    | Status
    | Garbled
)


def looks_like_reply(garbled: Garbled) -> bool:
    """Could this corrupted line have been an ``ok``/``error:N``/``ALARM:N``? Status reports and push
    messages are bracketed, and losing one of those costs nothing.

    >>> looks_like_reply(Garbled("oj", "unknown")), looks_like_reply(Garbled("<Idle|MPos:0,0", "unclosed"))
    (True, False)
    """
    text = garbled.text
    return not (text.startswith(("<", "[")) or text.endswith((">", "]")))


class _Bad(Exception):
    """A status field that cannot be read (internal: becomes a Garbled message)."""


def _numbers(name: str, text: str, count: int | None = None) -> tuple[float, ...]:
    parts = text.split(",")
    if count is not None and len(parts) != count:
        raise _Bad(f"field {name!r} has {len(parts)} values, expected {count}")
    numbers: list[float] = []
    for part in parts:
        number = number_value(part)
        if number is None:
            raise _Bad(f"bad number {part!r} in field {name!r}")
        numbers.append(number)
    return tuple(numbers)


def _integers(name: str, text: str, count: int) -> tuple[int, ...]:
    parts = text.split(",")
    if len(parts) != count or not all(_INTEGER.fullmatch(p) for p in parts):
        raise _Bad(f"field {name!r} needs {count} whole numbers, got {text!r}")
    return tuple(int(p) for p in parts)


def _letters(name: str, text: str, allowed: str) -> str:
    if not text or any(c not in allowed for c in text):
        raise _Bad(f"field {name!r} has letters {text!r}; grbl uses only {allowed!r}")
    return text


def _parse_status(text: str) -> Status | Garbled:
    body = text[1:-1]
    if not body:
        return Garbled(text, "empty status report")
    state_text, *fields = body.split("|")
    name, colon, sub = state_text.partition(":")
    if name not in _STATES:
        return Garbled(text, f"unknown machine state {name!r}")
    substate = None
    if colon:
        if name not in _SUBSTATES or not _INTEGER.fullmatch(sub) or int(sub) not in _SUBSTATES[name]:
            return Garbled(text, f"bad substate {state_text!r}")
        substate = int(sub)
    status = Status(cast(MachineState, name), substate)
    seen: set[str] = set()
    extra: list[tuple[str, str]] = []
    try:
        for item in fields:
            key, colon, value = item.partition(":")
            if not colon:
                raise _Bad(f"field {item!r} has no ':'")
            # MPos and WPos are one field printed two ways, and so are FS and F.
            group = {"WPos": "MPos", "F": "FS"}.get(key, key)
            if group in seen:
                raise _Bad(f"field {key!r} appears twice")
            seen.add(group)
            if key == "MPos":
                status = replace(status, mpos=_numbers(key, value))
            elif key == "WPos":
                status = replace(status, wpos=_numbers(key, value))
            elif key == "FS":
                feed, spindle = _numbers(key, value, 2)
                status = replace(status, feed=feed, spindle=spindle)
            elif key == "F":
                status = replace(status, feed=_numbers(key, value, 1)[0])
            elif key == "Bf":
                planner_free, rx_free = _integers(key, value, 2)
                status = replace(status, planner_free=planner_free, rx_free=rx_free)
            elif key == "Ln":
                status = replace(status, line_number=_integers(key, value, 1)[0])
            elif key == "WCO":
                status = replace(status, wco=_numbers(key, value))
            elif key == "Ov":
                feed_ov, rapid_ov, spindle_ov = _integers(key, value, 3)
                status = replace(status, overrides=(feed_ov, rapid_ov, spindle_ov))
            elif key == "Pn":
                status = replace(status, pins=_letters(key, value, "XYZABCPDHRS"))
            elif key == "A":
                status = replace(status, accessories=_letters(key, value, "SCFM"))
            elif _FIELD_NAME.fullmatch(key):
                extra.append((key, value))
            else:
                raise _Bad(f"bad field name {key!r}")
    except _Bad as exc:
        return Garbled(text, str(exc))
    if status.mpos is None and status.wpos is None:
        return Garbled(text, "status report without MPos or WPos")
    return replace(status, extra=tuple(extra))


def parse_message(line: str | bytes) -> Message:
    """Read one line GRBL 1.1 sent (its ``\\r\\n`` optional) as a message value; never raises.

    >>> parse_message("Grbl 1.1h ['$' for help]")
    Welcome(version='1.1h', text="Grbl 1.1h ['$' for help]")
    >>> parse_message("$130=630.000").number_value
    630.0
    >>> parse_message("[MSG:'$H'|'$X' to unlock]")
    Feedback(text="'$H'|'$X' to unlock")
    """
    text = line.decode("ascii", errors="replace") if isinstance(line, bytes) else line
    text = text.removesuffix("\n").removesuffix("\r")
    if text == "ok":
        return Ok()
    for prefix, kind in (("error:", Error), ("ALARM:", Alarm)):
        if text.startswith(prefix):
            number = text[len(prefix) :]
            if _INTEGER.fullmatch(number) and len(number) <= 3:
                return kind(int(number))
            return Garbled(text, f"bad code {number!r} after {prefix!r}")
    if text.startswith("<") and text.endswith(">"):
        return _parse_status(text)
    if text.startswith("[") and text.endswith("]"):
        if text.startswith("[MSG:"):
            return Feedback(text[5:-1])
        if text.startswith("[GC:"):
            return ParserState(tuple(text[4:-1].split()))
        push = _PUSH.fullmatch(text)
        if push:
            return PushMessage(push.group(1), push.group(2))
        return Garbled(text, "bracketed message without a 'KIND:' prefix")
    if text.lower().startswith("grbl"):
        welcome = _WELCOME.fullmatch(text)
        if welcome:
            return Welcome(welcome.group(1), text)
        return Garbled(text, "a banner that is not grbl's")
    if text.startswith("$"):
        block = _STARTUP_BLOCK.fullmatch(text)
        if block:
            return StartupBlock(int(block.group(1)), block.group(2))
        setting = _SETTING.fullmatch(text)
        if setting:
            return Setting(int(setting.group(1)), setting.group(2))
        return Garbled(text, "a '$' line that is not a setting")
    if text.startswith(">"):
        block_text, colon, reply = text[1:].partition(":")
        if colon and (reply == "ok" or reply.startswith("error:")):
            return StartupExecution(block_text, reply)
        return Garbled(text, "a startup line report without its result")
    return Garbled(text, "not a grbl 1.1 message")


def _axes(values: tuple[float, ...]) -> str:
    return ",".join(f"{v:.3f}" for v in values)


def format_status(status: Status, order: Sequence[str] | None = None) -> str:
    """The report GRBL 1.1 would send for ``status``: the inverse of :func:`parse_message` for reports.

    Positions get three decimals and feeds and speeds none, as GRBL prints them in millimetre mode.
    ``order`` lists the field names (``MPos``/``WPos``, ``Bf``, ``FS``/``F``, ``Ln``, ``WCO``, ``Ov``,
    ``Pn``, ``A`` and any extra) in the order to print them; by default GRBL's order.

    >>> format_status(Status("Idle", mpos=(1.0, 2.0, 0.0), feed=0.0, spindle=0.0, planner_free=15, rx_free=9))
    '<Idle|MPos:1.000,2.000,0.000|Bf:15,9|FS:0,0>'
    """
    fields: dict[str, str] = {}
    if status.mpos is not None:
        fields["MPos"] = _axes(status.mpos)
    if status.wpos is not None:
        fields["WPos"] = _axes(status.wpos)
    if status.planner_free is not None and status.rx_free is not None:
        fields["Bf"] = f"{status.planner_free},{status.rx_free}"
    if status.line_number is not None:
        fields["Ln"] = str(status.line_number)
    if status.feed is not None:
        if status.spindle is not None:
            fields["FS"] = f"{status.feed:.0f},{status.spindle:.0f}"
        else:
            fields["F"] = f"{status.feed:.0f}"
    if status.pins:
        fields["Pn"] = status.pins
    if status.wco is not None:
        fields["WCO"] = _axes(status.wco)
    if status.overrides is not None:
        fields["Ov"] = ",".join(str(v) for v in status.overrides)
    if status.accessories:
        fields["A"] = status.accessories
    for key, value in status.extra:
        fields[key] = value
    names = list(fields) if order is None else [n for n in order if n in fields]
    missing = set(fields) - set(names)
    if missing:
        raise ValueError(f"order {order!r} leaves out the fields {sorted(missing)!r}; list every field")
    state = status.state if status.substate is None else f"{status.state}:{status.substate}"
    return "<" + "|".join([state, *(f"{name}:{fields[name]}" for name in names)]) + ">"


class LineSplitter:
    """Cut the bytes GRBL sends into lines: ``\\n`` ends a line, a ``\\r`` before it is dropped, and empty
    lines (GRBL sends one before its banner) are skipped.

    A run of ``max_line`` bytes without a line end is cut off and returned as a line of its own, so noise
    on the wire cannot grow memory without bound.

    >>> splitter = LineSplitter()
    >>> splitter.feed(b"ok\\r\\n<Idle|MP"), splitter.feed(b"os:0,0,0>\\r\\n\\r\\n")
    (['ok'], ['<Idle|MPos:0,0,0>'])
    """

    def __init__(self, max_line: int = 1024) -> None:
        self._pending = bytearray()
        self._max_line = max_line

    def feed(self, data: bytes) -> list[str]:
        """Add received bytes; return the lines they complete, decoded (bytes that are not ASCII become
        U+FFFD, which no message contains, so such a line parses as :class:`Garbled`)."""
        self._pending += data
        lines: list[str] = []
        while True:
            end = self._pending.find(b"\n")
            if end < 0:
                if len(self._pending) >= self._max_line:
                    lines.append(self._pending.decode("ascii", errors="replace"))
                    self._pending.clear()
                break
            raw = bytes(self._pending[:end]).removesuffix(b"\r")
            del self._pending[: end + 1]
            if raw:
                lines.append(raw.decode("ascii", errors="replace"))
        return lines

    def clear(self) -> None:
        """Forget a partial line (after a reset or a flush of the port)."""
        self._pending.clear()
