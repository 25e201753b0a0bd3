"""The wire to GRBL 1.1: bytes out and messages in over one pyserial port, the real-time commands
(``?``, ``!``, ``~``, control-x) and one line sent and answered; the floor
:class:`~chessatron.grbl.link.GrblLink` stands on.

:class:`GrblWire` keeps what GRBL's own messages say of it as they arrive (the latest status report, its
alarm lock, a limit alarm that leaves it deaf to all but a reset) and whether it owes an answer: a board
that owes one for longer than ``timeout_s``, judged by a read that began that late
(:mod:`~chessatron.grbl.waits`), is silent. What a session with GRBL is made of (the connect handshake,
homing, streaming a program) is the link's, above it; the streaming loop
(:mod:`~chessatron.grbl.stream_loop`) talks through this wire too.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Protocol, Self

import serial
from babel.numbers import format_decimal

from ..errors import (
    ChessatronError,
    ConfigError,
    ConnectionLostError,
    DeviceClosedError,
    GarbledReplyError,
    GrblAlarm,
    GrblError,
    GrblResetError,
    SerialPortError,
)
from ..i18n import _
from ..i18n.formats import locale
from .protocol import (
    Alarm,
    Error,
    Feedback,
    Garbled,
    LineSplitter,
    Message,
    Ok,
    Status,
    Welcome,
    looks_like_reply,
    parse_message,
)
from .waits import Pace

__all__ = ["READ_SLICE_S", "SOFT_RESET", "GrblWire", "SerialPort", "number_text"]

# logged under the link's name, as the waits are: what a person reads of the connection is one logger
LOGGER = logging.getLogger("chessatron.grbl.link")

#: Control-x: GRBL's soft reset, a real-time byte.
SOFT_RESET = b"\x18"
#: How long one read may block: the loop's granularity when nothing arrives (s).
READ_SLICE_S = 0.02


class SerialPort(Protocol):
    """The part of a pyserial port the link uses; a fake can stand in for it."""

    timeout: float | None

    @property
    def in_waiting(self) -> int: ...

    def write(self, data: bytes, /) -> int | None: ...

    def read(self, size: int = 1, /) -> bytes: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


class GrblWire:
    """GRBL 1.1 over a serial port, one exchange at a time: what :class:`~chessatron.grbl.link.GrblLink`
    (which see for ``url`` and the arguments) builds its session on.

    A context manager: the port opens on entering and closes (idempotently) on leaving. Raises
    :class:`~chessatron.errors.ConfigError` for a rate or timeout that is not positive.
    """

    def __init__(
        self, url: str, *, baudrate: int = 115200, status_hz: float = 5.0, timeout_s: float = 2.0
    ) -> None:
        if not (math.isfinite(status_hz) and status_hz > 0):
            raise ConfigError(_("status_hz must be a positive rate, got {value!r}").format(value=status_hz))
        if not (math.isfinite(timeout_s) and timeout_s > 0):
            raise ConfigError(_("timeout_s must be positive seconds, got {value!r}").format(value=timeout_s))
        self.url = url
        self.baudrate = baudrate
        self.status_hz = status_hz
        self.timeout_s = timeout_s
        #: The latest status report.
        self.last_status: Status | None = None
        #: Whether this link has held the machine (``!``) and not yet let it go on (``~``, a reset).
        self.is_held = False
        self._locked = False
        self._needs_reset = False  # a limit alarm: grbl answers nothing but a soft reset
        self._port: SerialPort | None = None
        self._closed = False
        self._splitter = LineSplitter()
        self._write_lock = threading.Lock()
        self._last_status_at = -math.inf
        # Since when grbl owes an answer: the first write after the last byte it sent (None: it owes none).
        # A board that owes one for timeout_s, judged by a read that began that late, is silent.
        self._owed_since: float | None = None

    # --- the port ----------------------------------------------------------------------------------

    def open(self) -> None:
        """Open the port (done on entering the context). Raises
        :class:`~chessatron.errors.SerialPortError` if it cannot be opened."""
        if self._closed:
            raise DeviceClosedError(f"the link to {self.url!r} is closed; make a new GrblLink")
        if self._port is not None:
            return
        # a serial device is locked as it opens (pyserial's flock): a sender or a chessatron of another
        # user on it is refused, as one of this user's is by the table's lock (chessatron.tablelock)
        device = "://" not in self.url
        try:
            port: SerialPort = serial.serial_for_url(
                self.url,
                baudrate=self.baudrate,
                timeout=READ_SLICE_S,
                write_timeout=self.timeout_s,
                **({"exclusive": True} if device else {}),
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            if isinstance(exc, ChessatronError):
                raise
            if "exclusively lock" in str(exc):
                raise SerialPortError(
                    _(
                        "another program holds {url!r} (a g-code sender, a chessatron started by another "
                        "user): close it first, then connect again"
                    ).format(url=self.url)
                ) from exc
            raise SerialPortError(
                _(
                    "cannot open {url!r} ({error}); check the port name, the cable and that no other "
                    "program holds the port"
                ).format(url=self.url, error=exc)
            ) from exc
        self._port = port

    def close(self) -> None:
        """Close the port; closing twice is fine."""
        self._closed = True
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError) as exc:
                LOGGER.debug("closing %s: %s", self.url, exc)

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _require_port(self) -> SerialPort:
        if self._port is None:
            self.open()
        assert self._port is not None
        return self._port

    def _lost(
        self, what: str, exc: BaseException | None = None, line: int | None = None
    ) -> ConnectionLostError:
        """The error for a lost connection: ``what`` (a translated clause) went wrong, because of ``exc``
        (the port's own words, kept as they are), while ``line`` ran."""
        if exc is not None:
            # TRANSLATORS: {what} is what failed (e.g. "reading failed"), {error} the port's own message
            what = _("{what} ({error})").format(what=what, error=exc)
        if line is None:
            text = _(
                "lost the connection to grbl on {url!r}: {what}; check the cable and the board's power, "
                "then connect, home and run the program again"
            )
        else:
            text = _(
                "lost the connection to grbl on {url!r} while running program line {line}: {what}; check "
                "the cable and the board's power, then connect, home and run the program again"
            )
        return ConnectionLostError(text.format(url=self.url, what=what, line=line), line=line)

    def _write(self, data: bytes, line: int | None = None) -> None:
        port = self._require_port()
        try:
            with self._write_lock:
                port.write(data)
        except (serial.SerialException, OSError) as exc:
            raise self._lost(_("writing failed"), exc, line) from exc
        if data not in (b"!", b"~") and self._owed_since is None:
            self._owed_since = time.monotonic()  # a line, a '?' or a reset: grbl answers each

    def is_silent(self, since_read_began: float, allowed_s: float | None = None) -> bool:
        """Whether grbl has owed an answer for longer than ``allowed_s`` (default :attr:`timeout_s`),
        judged after a read that began at ``since_read_began`` and brought nothing: the board had its
        chance at that read, however long the host itself stalled before it."""
        owed = self._owed_since
        limit = self.timeout_s if allowed_s is None else allowed_s
        return owed is not None and since_read_began - owed > limit

    def _read(self, line: int | None = None) -> list[Message]:
        """What arrived within one read slice, as messages."""
        port = self._require_port()
        try:
            data = port.read(max(1, port.in_waiting))
        except (serial.SerialException, OSError) as exc:
            raise self._lost(_("reading failed"), exc, line) from exc
        if not data:
            return []
        received = time.monotonic()
        self._owed_since = None
        messages = [parse_message(text) for text in self._splitter.feed(data)]
        for message in messages:
            if isinstance(message, Status):
                self.last_status = message
                self._last_status_at = received
                self._locked = message.is_alarm
            elif isinstance(message, Alarm):
                self._locked = True
            elif isinstance(message, Welcome):
                self._needs_reset = False
            elif isinstance(message, Feedback):
                # after a reset in alarm: "'$H'|'$X' to unlock"; after a limit alarm: "Reset to continue"
                if "to unlock" in message.text:
                    self._locked = True
                elif "Reset to continue" in message.text:
                    self._locked = self._needs_reset = True
                elif message.text.startswith("Caution: Unlocked"):
                    self._locked = False
            elif isinstance(message, Garbled):
                LOGGER.warning(
                    "garbled line from grbl on %s: %r (%s)", self.url, message.text, message.reason
                )
        return messages

    # --- what grbl says ----------------------------------------------------------------------------

    @property
    def is_locked(self) -> bool:
        """True while GRBL is (as far as it has said) locked in its alarm state: after power-up with
        homing enabled, or after any alarm, until ``$H`` or ``$X``."""
        return self._locked

    def _wait_banner(self, seconds: float) -> Welcome | None:
        """The first banner within ``seconds`` (None if none came: the last read began after them)."""
        pace = Pace(self.url)
        deadline = time.monotonic() + seconds
        while True:
            began = pace.before_read()
            messages = self._read()
            pace.after_read()
            for message in messages:
                if isinstance(message, Welcome):
                    return message
            if began >= deadline:
                return None

    # --- commands ----------------------------------------------------------------------------------

    def command(self, line: str, *, timeout_s: float | None = None, silent: bool = False) -> list[Message]:
        """Send one line send-response and wait for its ``ok``; return the messages that came before it.

        ``timeout_s`` caps the whole wait (default: ten times the link's :attr:`timeout_s`); status is
        polled meanwhile, and :attr:`timeout_s` of silence is a lost connection, unless ``silent`` says
        that GRBL answers nothing until it is done (homing): then only the cap counts. Raises
        :class:`~chessatron.errors.GrblError` for ``error:N``, :class:`~chessatron.errors.GrblAlarm` for
        an alarm, :class:`~chessatron.errors.GrblResetError` if GRBL restarts,
        :class:`~chessatron.errors.GarbledReplyError` for a corrupted answer and
        :class:`~chessatron.errors.ConnectionLostError` if it goes silent or the cap passes.
        """
        if "\n" in line or "\r" in line:
            raise ValueError(f"send one line at a time, got {line!r}")
        self._owed_since = None  # what an earlier wait left unanswered is no part of this one
        self._write(line.encode("ascii") + b"\n")
        started = time.monotonic()
        limit = 10.0 * self.timeout_s if timeout_s is None else timeout_s
        cap = started + limit
        next_poll = started + 1.0 / self.status_hz
        collected: list[Message] = []
        pace = Pace(self.url)
        while True:
            # each deadline is judged by the time this read began, after it: grbl had its chance
            now = pace.before_read()
            if not silent and now >= next_poll:  # while homing a ? would only be answered at the end
                self._write(b"?")
                next_poll = now + 1.0 / self.status_hz
            messages = self._read()
            pace.after_read()
            for message in messages:
                if isinstance(message, Ok):
                    return collected
                if isinstance(message, Error):
                    raise GrblError(
                        _("grbl rejected {line!r} with error:{code} ({meaning})").format(
                            line=line, code=message.code, meaning=message.text
                        ),
                        code=message.code,
                    )
                if isinstance(message, Alarm):
                    raise self._alarm(message, None)
                if isinstance(message, Welcome):
                    raise GrblResetError(
                        _("grbl restarted while answering {line!r}; send it again").format(line=line)
                    )
                if isinstance(message, Garbled) and looks_like_reply(message):
                    raise GarbledReplyError(
                        _(
                            "grbl's answer to {line!r} arrived garbled ({text!r}); check the cable and the "
                            "baud rate, then send it again"
                        ).format(line=line, text=message.text)
                    )
                if not isinstance(message, Status):
                    collected.append(message)
            if now >= cap:
                raise self._lost(
                    _("no answer to {line!r} within {seconds} s").format(line=line, seconds=_seconds(limit))
                )
            if not silent and self.is_silent(now):
                raise self._lost(
                    _("nothing for {seconds} s after {line!r}").format(
                        seconds=_seconds(self.timeout_s), line=line
                    )
                )

    def status(self, *, fresh: bool = False, alarms: bool = True) -> Status:
        """GRBL's status: a ``?`` poll, at most :attr:`status_hz` times a second (a report younger than
        that is returned again unless ``fresh``). Raises :class:`~chessatron.errors.GrblAlarm` for an alarm
        that arrives meanwhile (unless ``alarms`` is False: the report then says ``Alarm``), and
        ConnectionLostError if no report comes in time (or a limit alarm makes GRBL deaf to ``?``)."""
        now = time.monotonic()
        if not fresh and self.last_status is not None and now - self._last_status_at < 1.0 / self.status_hz:
            return self.last_status
        asked = now
        self._write(b"?")
        deadline = now + self.timeout_s
        pace = Pace(self.url)
        while True:
            began = pace.before_read()
            messages = self._read()
            pace.after_read()
            for message in messages:
                if isinstance(message, Alarm) and alarms:
                    raise self._alarm(message, None)
            if self.last_status is not None and self._last_status_at >= asked:
                return self.last_status
            if (self._needs_reset and not alarms) or began >= deadline:
                break  # after a limit alarm grbl answers nothing but a soft reset
        raise self._lost(
            _("no status report within {seconds} s of '?'").format(seconds=_seconds(self.timeout_s))
        )

    def status_after_alarm(self) -> Status:
        """A fresh status report, whatever alarm came before it; a board stopped by a limit alarm
        answers nothing but a soft reset, so it gets one (it keeps its position, and stays locked)."""
        for attempt in range(2):
            if self._needs_reset:
                self.soft_reset()
            try:
                return self.status(fresh=True, alarms=False)
            except ConnectionLostError:
                if attempt or not self._needs_reset:
                    raise
        raise AssertionError("unreachable")  # the second attempt returns or raises

    def feed_hold(self) -> None:
        """``!``: decelerate to a stop and hold (safe to call from another thread while streaming)."""
        self._write(b"!")
        self.is_held = True

    def resume(self) -> None:
        """``~``: resume after a feed hold (safe to call from another thread while streaming)."""
        self._write(b"~")
        self.is_held = False

    def soft_reset(self) -> Welcome:
        """Control-x: GRBL stops at once (``ALARM:3`` if it was moving), then prints its banner."""
        self._write(SOFT_RESET)
        self.is_held = False  # a reset ends a feed hold
        welcome = self._wait_banner(self.timeout_s)
        if welcome is None:
            raise self._lost(
                _("no banner within {seconds} s of a soft reset").format(seconds=_seconds(self.timeout_s))
            )
        return welcome

    def _alarm(self, message: Alarm, line: int | None, *, planned: bool = False) -> GrblAlarm:
        """The error for an alarm that came while ``line`` was running (``planned``: that ``line`` set it
        off as GRBL planned it, as a soft limit does)."""
        info = message.info
        if line is None:
            text = _("grbl raised ALARM:{code} ({name}): {meaning}; {remedy}")
        elif planned:
            text = _("grbl raised ALARM:{code} ({name}) at program line {line}: {meaning}; {remedy}")
        else:
            text = _(
                "grbl raised ALARM:{code} ({name}) while running program line {line}: {meaning}; {remedy}"
            )
        said = {"name": info.name, "meaning": info.meaning, "remedy": info.remedy}
        return GrblAlarm(
            text.format(code=message.code, line=line, **said),
            code=message.code,
            line=line,
        )


def number_text(value: float) -> str:
    """A number for a message (seconds, a count of them), with as few decimals as it needs (up to three)
    and the current language's separators: ``2``, ``0.5`` (``0,5`` in German)."""
    return format_decimal(value, format="#,##0.###", locale=locale())


_seconds = number_text
