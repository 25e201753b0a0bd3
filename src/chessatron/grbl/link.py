"""The GRBL 1.1 driver: a thin I/O loop around :mod:`~chessatron.grbl.protocol` and
:mod:`~chessatron.grbl.stream`, over any port pyserial opens.

>>> import chessatron.grbl
>>> from chessatron.sim.world import SimWorld, register_world
>>> _ = register_world(SimWorld(Layout.default(), name="link-doctest"))
>>> with GrblLink("sim://link-doctest?speed=max", layout=Layout.default()) as link:
...     warnings = link.connect()
...     link.home()
...     result = link.stream(["G0 X100 Y80", "G1 X150 F3000"])
>>> link.version, warnings, result.completed
('1.1h', [], (1, 2))

Every wait has a deadline: a port that stays silent for ``timeout_s`` (status polls included) is a lost
connection, not a hang.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol

import serial

from ..errors import (
    ChessatronError,
    ConfigError,
    ConnectionLostError,
    DeviceClosedError,
    GarbledReplyError,
    GrblAlarm,
    GrblError,
    GrblResetError,
    GrblVersionError,
    SerialPortError,
)
from ..layout import Layout
from ..ports import HostMagnet
from .protocol import (
    RX_BUFFER_BYTES,
    Alarm,
    Error,
    Garbled,
    LineSplitter,
    Message,
    Ok,
    Setting,
    Status,
    Welcome,
    parse_message,
)
from .settings import check_settings
from .stream import HostAction, Outgoing, Streamer, StreamProgress, StreamResult, dwell_s

__all__ = ["GrblLink", "SerialPort"]

LOGGER = logging.getLogger(__name__)

SOFT_RESET = b"\x18"
# How long one read may block: the loop's granularity when nothing arrives.
_READ_SLICE_S = 0.02
# After a garbled reply: how long without an answer (and with GRBL idle) before its buffer is known empty.
_QUIET_S = 0.3


class SerialPort(Protocol):
    """The part of a pyserial port the link uses; a fake can stand in for it."""

    timeout: float | None

    @property
    def in_waiting(self) -> int: ...

    def write(self, data: bytes, /) -> int | None: ...

    def read(self, size: int = 1, /) -> bytes: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


def _looks_like_reply(garbled: Garbled) -> bool:
    """Could this corrupted line have been an ``ok``/``error:N``/``ALARM:N``? Status reports and push
    messages are bracketed, and losing one of those costs nothing."""
    text = garbled.text
    return not (text.startswith(("<", "[")) or text.endswith((">", "]")))


class GrblLink:
    """GRBL 1.1 over a serial port: connect, home, poll status, stream programs safely.

    ``url`` is anything :func:`serial.serial_for_url` opens: ``/dev/ttyUSB0``, ``COM3``,
    ``socket://host:port``, ``rfc2217://host:port``, ``loop://``, or ``sim://[world][?options]`` for the
    simulated GRBL (registered when :mod:`chessatron.grbl` is imported). ``layout`` is what the settings
    are checked against; ``host_magnet`` switches the magnet at ``(MAGNET ON)``/``(MAGNET OFF)`` sync
    points of a servo layout's programs. Status is polled at most ``status_hz`` times a second, and a port
    that stays silent for ``timeout_s`` seconds is a lost connection.

    A context manager: the port opens on entering and closes (idempotently) on leaving. The host magnet
    belongs to the caller and is not closed.

    Raises :class:`~chessatron.errors.ConfigError` for a rate or timeout that is not positive.
    """

    def __init__(
        self,
        url: str,
        *,
        baudrate: int = 115200,
        layout: Layout | None = None,
        host_magnet: HostMagnet | None = None,
        status_hz: float = 5.0,
        timeout_s: float = 2.0,
    ) -> None:
        if not (math.isfinite(status_hz) and status_hz > 0):
            raise ConfigError(f"status_hz must be a positive rate, got {status_hz!r}")
        if not (math.isfinite(timeout_s) and timeout_s > 0):
            raise ConfigError(f"timeout_s must be positive seconds, got {timeout_s!r}")
        self.url = url
        self.baudrate = baudrate
        self.layout = layout
        self.host_magnet = host_magnet
        self.status_hz = status_hz
        self.timeout_s = timeout_s
        #: GRBL's version from its banner (``"1.1h"``), once connected.
        self.version: str | None = None
        #: ``$$`` settings by number, once connected.
        self.settings: dict[int, float] = {}
        #: The latest status report.
        self.last_status: Status | None = None
        #: Whether this link has held the machine (``!``) and not yet let it go on (``~``, a reset).
        self.is_held = False
        self._port: SerialPort | None = None
        self._closed = False
        self._splitter = LineSplitter()
        self._write_lock = threading.Lock()
        self._last_status_at = -math.inf
        self._last_rx = time.monotonic()

    @classmethod
    def over(
        cls,
        port: SerialPort,
        *,
        name: str = "port",
        layout: Layout | None = None,
        host_magnet: HostMagnet | None = None,
        status_hz: float = 5.0,
        timeout_s: float = 2.0,
    ) -> GrblLink:
        """A link over a port that is already open (a :class:`~chessatron.sim.grbl.SimGrbl`, a fake in
        tests, a port opened elsewhere), called ``name`` in messages. Closing the link closes the port."""
        link = cls(name, layout=layout, host_magnet=host_magnet, status_hz=status_hz, timeout_s=timeout_s)
        port.timeout = _READ_SLICE_S
        link._port = port
        return link

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("open" if self._port is not None else "not open")
        return f"<GrblLink {self.url!r} {state} version={self.version!r}>"

    # --- the port ----------------------------------------------------------------------------------

    def open(self) -> None:
        """Open the port (done on entering the context). Raises
        :class:`~chessatron.errors.SerialPortError` if it cannot be opened."""
        if self._closed:
            raise DeviceClosedError(f"the link to {self.url!r} is closed; make a new GrblLink")
        if self._port is not None:
            return
        try:
            port: SerialPort = serial.serial_for_url(
                self.url, baudrate=self.baudrate, timeout=_READ_SLICE_S, write_timeout=self.timeout_s
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            if isinstance(exc, ChessatronError):
                raise
            raise SerialPortError(
                f"cannot open {self.url!r} ({exc}); check the port name, the cable and that no other "
                "program holds the port"
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

    def __enter__(self) -> GrblLink:
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
        at = "" if line is None else f" while running program line {line}"
        reason = f" ({exc})" if exc is not None else ""
        return ConnectionLostError(
            f"lost the connection to grbl on {self.url!r}{at}: {what}{reason}; check the cable and the "
            "board's power, then connect, home and run the program again",
            line=line,
        )

    def _write(self, data: bytes, line: int | None = None) -> None:
        port = self._require_port()
        try:
            with self._write_lock:
                port.write(data)
        except (serial.SerialException, OSError) as exc:
            raise self._lost("writing failed", exc, line) from exc

    def _read(self, line: int | None = None) -> list[Message]:
        """What arrived within one read slice, as messages."""
        port = self._require_port()
        try:
            data = port.read(max(1, port.in_waiting))
        except (serial.SerialException, OSError) as exc:
            raise self._lost("reading failed", exc, line) from exc
        if not data:
            return []
        self._last_rx = time.monotonic()
        messages = [parse_message(text) for text in self._splitter.feed(data)]
        for message in messages:
            if isinstance(message, Status):
                self.last_status = message
                self._last_status_at = self._last_rx
            elif isinstance(message, Garbled):
                LOGGER.warning(
                    "garbled line from grbl on %s: %r (%s)", self.url, message.text, message.reason
                )
        return messages

    # --- commands ----------------------------------------------------------------------------------

    def _wait_banner(self, deadline: float) -> Welcome | None:
        while time.monotonic() < deadline:
            for message in self._read():
                if isinstance(message, Welcome):
                    return message
        return None

    def connect(self) -> list[str]:
        """Open the port, soft-reset GRBL, read its banner and settings; return the warnings where the
        settings disagree with the layout (see :func:`~chessatron.grbl.settings.check_settings`).

        No classic wake-up (``\\r\\n\\r\\n``, sleep, flush): each ``\\r\\n`` makes GRBL answer twice and the
        sleep is a guess. A soft reset (control-x) is a real-time byte that needs no line end, clears a
        half-received line, and the banner it causes marks where the fresh session starts; everything
        before it is dropped. If no banner comes (a board still booting after the port opened ate the
        reset), the reset is sent once more.

        Raises :class:`~chessatron.errors.ConnectionLostError` if no banner comes,
        :class:`~chessatron.errors.GrblVersionError` if it is not GRBL 1.1.
        """
        port = self._require_port()
        try:
            port.reset_input_buffer()
        except (serial.SerialException, OSError) as exc:
            raise self._lost("the port failed", exc) from exc
        self._splitter.clear()
        welcome = None
        for _ in range(2):
            self._write(SOFT_RESET)
            welcome = self._wait_banner(time.monotonic() + self.timeout_s)
            if welcome is not None:
                break
        if welcome is None:
            raise self._lost(
                f"no grbl banner within {2 * self.timeout_s:g} s of a soft reset (is it grbl, at "
                f"{self.baudrate} baud?)"
            )
        if not welcome.version.startswith("1.1"):
            raise GrblVersionError(
                f"{welcome.text!r} answered on {self.url!r}; chessatron needs grbl 1.1 (its messages and "
                "error codes differ between versions): flash grbl 1.1h"
            )
        self.version = welcome.version
        for attempt in range(3):
            try:
                self.settings = self.read_settings()
                break
            except (GrblResetError, GarbledReplyError):
                # The board finished booting and answered a second reset, or noise hit the answer: again.
                if attempt == 2:
                    raise
        self.status(fresh=True)
        return check_settings(self.settings, self.layout)

    def command(self, line: str, *, timeout_s: float | None = None) -> list[Message]:
        """Send one line send-response and wait for its ``ok``; return the messages that came before it.

        ``timeout_s`` caps the whole wait (default: ten times the link's :attr:`timeout_s`); status is
        polled meanwhile, and :attr:`timeout_s` of silence is a lost connection. Raises
        :class:`~chessatron.errors.GrblError` for ``error:N``, :class:`~chessatron.errors.GrblAlarm` for
        an alarm, :class:`~chessatron.errors.GrblResetError` if GRBL restarts,
        :class:`~chessatron.errors.GarbledReplyError` for a corrupted answer and
        :class:`~chessatron.errors.ConnectionLostError` if it goes silent or the cap passes.
        """
        if "\n" in line or "\r" in line:
            raise ValueError(f"send one line at a time, got {line!r}")
        self._write(line.encode("ascii") + b"\n")
        started = time.monotonic()
        limit = 10.0 * self.timeout_s if timeout_s is None else timeout_s
        cap = started + limit
        next_poll = started + 1.0 / self.status_hz
        self._last_rx = started
        collected: list[Message] = []
        while True:
            now = time.monotonic()
            if now >= cap:
                raise self._lost(f"no answer to {line!r} within {limit:g} s")
            if now - self._last_rx > self.timeout_s:
                raise self._lost(f"nothing for {self.timeout_s:g} s after {line!r}")
            if now >= next_poll:
                self._write(b"?")
                next_poll = now + 1.0 / self.status_hz
            for message in self._read():
                if isinstance(message, Ok):
                    return collected
                if isinstance(message, Error):
                    raise GrblError(
                        f"grbl rejected {line!r} with error:{message.code} ({message.text})",
                        code=message.code,
                    )
                if isinstance(message, Alarm):
                    raise self._alarm(message, None)
                if isinstance(message, Welcome):
                    raise GrblResetError(f"grbl restarted while answering {line!r}; send it again")
                if isinstance(message, Garbled) and _looks_like_reply(message):
                    raise GarbledReplyError(
                        f"grbl's answer to {line!r} arrived garbled ({message.text!r}); check the cable and "
                        "the baud rate, then send it again"
                    )
                if not isinstance(message, Status):
                    collected.append(message)

    def read_settings(self) -> dict[int, float]:
        """``$$``: every numeric setting by number."""
        messages = self.command("$$")
        return {
            m.number: value
            for m in messages
            if isinstance(m, Setting) and (value := m.number_value) is not None
        }

    def home(self, *, timeout_s: float = 120.0) -> None:
        """Run the homing cycle (``$H``), waiting up to ``timeout_s``; GRBL is idle at home afterwards.

        Raises :class:`~chessatron.errors.GrblError` (``error:5`` when homing is off: set ``$22=1``).
        """
        try:
            self.command("$H", timeout_s=timeout_s)
        except GrblError as exc:
            if exc.code == 5:
                raise GrblError(
                    "grbl cannot home: homing is off ($22=0); fit limit switches and set $22=1, or place "
                    "the gantry at home by hand and unlock ($X)",
                    code=5,
                ) from exc
            raise

    def unlock(self) -> None:
        """``$X``: leave the alarm state without homing. Only when the user knows where the gantry is."""
        self.command("$X")

    def status(self, *, fresh: bool = False) -> Status:
        """GRBL's status: a ``?`` poll, at most :attr:`status_hz` times a second (a report younger than
        that is returned again unless ``fresh``). Raises ConnectionLostError if none comes in time."""
        now = time.monotonic()
        if not fresh and self.last_status is not None and now - self._last_status_at < 1.0 / self.status_hz:
            return self.last_status
        asked = now
        self._write(b"?")
        deadline = now + self.timeout_s
        while time.monotonic() < deadline:
            for message in self._read():
                if isinstance(message, Alarm):
                    raise self._alarm(message, None)
            if self.last_status is not None and self._last_status_at >= asked:
                return self.last_status
        raise self._lost(f"no status report within {self.timeout_s:g} s of '?'")

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
        welcome = self._wait_banner(time.monotonic() + self.timeout_s)
        if welcome is None:
            raise self._lost(f"no banner within {self.timeout_s:g} s of a soft reset")
        return welcome

    def _alarm(self, message: Alarm, line: int | None) -> GrblAlarm:
        info = message.info
        at = "" if line is None else f" while running program line {line}"
        return GrblAlarm(
            f"grbl raised ALARM:{message.code} ({info.name}){at}: {info.meaning}; {info.remedy}",
            code=message.code,
            line=line,
        )

    # --- streaming ---------------------------------------------------------------------------------

    def stream(
        self,
        lines: Iterable[str],
        *,
        on_progress: Callable[[StreamProgress], None] | None = None,
        on_host: Callable[[str], None] | None = None,
    ) -> StreamResult:
        """Stream a program with character counting and return how it went (see
        :class:`~chessatron.grbl.stream.Streamer` for the rules).

        Host actions run when GRBL answers their ``G4 P0``: the host magnet for ``(MAGNET ON)`` and
        ``(MAGNET OFF)``, ``on_host(name)`` for ``(HOST name)``. ``on_progress`` is called as lines are
        answered (at most about 20 times a second) and at the end.

        Nothing here raises for what GRBL or the port does: an ``error:N``, an alarm, a reset, a garbled
        reply or a lost connection ends the stream at the next safe point (no further motion; a magnet
        left on by the lines sent is released, so the piece drops where it is) and is the result's
        ``error``; :meth:`StreamResult.raise_for_error` raises it. Raises up front
        :class:`~chessatron.errors.GcodeError` for a line that cannot be streamed and
        :class:`~chessatron.errors.ConfigError` for host markers with nothing to run them.
        """
        streamer = Streamer(lines)
        for program_line in streamer.program:
            action = program_line.action
            if action is None:
                continue
            if action.kind != "host" and self.host_magnet is None:
                raise ConfigError(
                    f"program line {action.line} marks ({action.name}) for a host magnet but the link has "
                    "none; pass host_magnet= (a servo or GPIO magnet), or write the program for the "
                    "spindle or coolant output"
                )
            if action.kind == "host" and on_host is None:
                raise ConfigError(
                    f"program line {action.line} marks (HOST {action.name}) but stream() got no on_host"
                )
        if self.version is None:
            for warning in self.connect():
                LOGGER.warning("grbl on %s: %s", self.url, warning)
        return _StreamRun(self, streamer, on_progress, on_host).run()

    def _host(self, action: HostAction, on_host: Callable[[str], None] | None) -> None:
        if action.kind == "host":
            assert on_host is not None
            on_host(action.name)
            return
        magnet = self.host_magnet
        assert magnet is not None
        if action.kind == "magnet-on":
            magnet.engage()
        else:
            magnet.release()


class _StreamRun:
    """One :meth:`GrblLink.stream` call: the I/O loop around a :class:`Streamer`."""

    def __init__(
        self,
        link: GrblLink,
        streamer: Streamer,
        on_progress: Callable[[StreamProgress], None] | None,
        on_host: Callable[[str], None] | None,
    ) -> None:
        self.link = link
        self.streamer = streamer
        self.on_progress = on_progress
        self.on_host = on_host
        self.started = time.monotonic()
        self.failure: ChessatronError | None = None
        self.swallowing = False  # after a garbled reply: drop answers until GRBL is quiet and idle
        self.last_answer = self.started
        self.last_progress = -math.inf
        self.idle_since: float | None = None  # since when GRBL is idle and empty with lines unanswered

    def run(self) -> StreamResult:
        link, streamer = self.link, self.streamer
        link._last_rx = self.started
        next_poll = self.started
        try:
            while not streamer.is_finished or self.swallowing:
                while not self.swallowing and (item := streamer.next_item()) is not None:
                    link._write(item.data, streamer.running_line)
                    streamer.mark_sent(item)
                now = time.monotonic()
                if now >= next_poll:
                    link._write(b"?", streamer.running_line)
                    next_poll = now + 1.0 / link.status_hz
                for message in link._read(streamer.running_line):
                    self._handle(message)
                now = time.monotonic()
                if now - link._last_rx > link.timeout_s:
                    raise link._lost(
                        f"grbl sent nothing for {link.timeout_s:g} s, not even a status report",
                        line=streamer.running_line,
                    )
                if self.swallowing:
                    self._check_quiet(now)
                else:
                    self._check_stuck(now)
                self._progress(now)
        except (ConnectionLostError, GrblAlarm, GrblResetError) as exc:
            self._fail(exc)
            self._release_host()
        except KeyboardInterrupt:
            # The user stopped the run: hold the machine where it is, keep the position.
            with contextlib.suppress(ChessatronError):
                link._write(b"!")
            raise
        self._progress(time.monotonic(), force=True)
        return streamer.result(self.failure, time.monotonic() - self.started)

    def _fail(self, error: ChessatronError) -> None:
        if self.failure is None:
            self.failure = error
        self.streamer.halt()

    def _handle(self, message: Message) -> None:
        link, streamer = self.link, self.streamer
        if isinstance(message, Ok | Error):
            self.last_answer = time.monotonic()
            if self.swallowing:
                return
            ack = streamer.acknowledge(message)
            if ack is None:
                LOGGER.warning("grbl on %s answered %r with nothing in flight", link.url, message)
                return
            if ack.error is not None:
                self._fail(self._rejected(ack.item, ack.error))
            if ack.action is not None:
                self._run_action(ack.action)
        elif isinstance(message, Alarm):
            raise link._alarm(message, streamer.running_line)
        elif isinstance(message, Welcome):
            line = streamer.running_line
            raise GrblResetError(
                f"grbl restarted (its banner arrived) while running program line {line}; the lines it had "
                "buffered are lost and the position may be too: home and run the program again",
                line=line,
            )
        elif isinstance(message, Garbled) and _looks_like_reply(message):
            line = streamer.oldest_line
            self._fail(
                GarbledReplyError(
                    f"a reply from grbl arrived garbled ({message.text!r}) while program line {line} was "
                    "running, so which lines grbl accepted is unknown; the program was stopped and the "
                    "magnet released: check the cable (noise) and the baud rate, then run it again",
                    line=line,
                )
            )
            streamer.forget_in_flight()
            self.swallowing = True

    def _check_stuck(self, now: float) -> None:
        """A reply lost without a trace (noise that ate a whole line) leaves lines unanswered for ever while
        GRBL sits idle with an empty buffer: after :attr:`GrblLink.timeout_s` of that (plus the dwells in
        flight, during which GRBL also reports ``Idle``), stop."""
        link, streamer = self.link, self.streamer
        status = link.last_status
        in_flight = streamer.in_flight
        idle = (
            bool(in_flight)
            and status is not None
            and link._last_status_at > self.last_answer
            and status.state == "Idle"
            and (status.rx_free is None or status.rx_free >= RX_BUFFER_BYTES - 1)
        )
        if not idle:
            self.idle_since = None
            return
        if self.idle_since is None:
            self.idle_since = now
            return
        if now - self.idle_since <= link.timeout_s + sum(dwell_s(item.block) for item in in_flight):
            return
        line = streamer.running_line
        self._fail(
            GarbledReplyError(
                f"grbl is idle with an empty buffer but never answered program line {line}: its answer was "
                "lost, so which lines it accepted is unknown; the program was stopped and the magnet "
                "released: check the cable (noise) and the baud rate, then run it again",
                line=line,
            )
        )
        streamer.forget_in_flight()
        self.idle_since = None

    def _check_quiet(self, now: float) -> None:
        """Leave the garbled-reply state once GRBL has answered everything: idle, receive buffer empty."""
        status = self.link.last_status
        if (
            now - self.last_answer < _QUIET_S
            or status is None
            or self.link._last_status_at <= self.last_answer
        ):
            return
        if status.state == "Idle" and (status.rx_free is None or status.rx_free >= RX_BUFFER_BYTES - 1):
            self.swallowing = False

    def _run_action(self, action: HostAction) -> None:
        streamer = self.streamer
        if streamer.halted and not action.is_release:
            streamer.host_done(action, ran=False)  # after an error nothing new is picked up
            return
        try:
            self.link._host(action, self.on_host)
        except ChessatronError as exc:
            streamer.host_done(action, ran=True, ok=False)
            self._fail(exc)
            return
        streamer.host_done(action, ran=True)

    def _release_host(self) -> None:
        magnet = self.link.host_magnet
        if magnet is None or not self.streamer.host_magnet_on:
            return
        try:
            magnet.release()
            self.streamer.host_done(HostAction("magnet-off", "MAGNET OFF", 0), ran=True)
        except ChessatronError as exc:
            LOGGER.error("could not release the host magnet after %s: %s", self.failure, exc)

    def _rejected(self, item: Outgoing, error: Error) -> GrblError:
        if item.line is None:
            return GrblError(
                f"grbl rejected the streamer's own {item.block!r} with error:{error.code} ({error.text})",
                code=error.code,
            )
        text = self.streamer.program[item.line - 1].text
        return GrblError(
            f"grbl rejected program line {item.line} {text!r} with error:{error.code} ({error.text}); the "
            "program was stopped there and the magnet released: fix the line and run the rest again",
            code=error.code,
            line=item.line,
        )

    def _progress(self, now: float, *, force: bool = False) -> None:
        if self.on_progress is None or (not force and now - self.last_progress < 0.05):
            return
        self.last_progress = now
        self.on_progress(self.streamer.progress(self.link.last_status, now - self.started))
