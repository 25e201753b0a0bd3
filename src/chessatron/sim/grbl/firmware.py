"""The simulated GRBL's front: a pyserial-compatible port, the real-time commands, the line parser and the
``$`` commands, in front of :class:`~chessatron.sim.grbl.machine.GrblMachine` (see the package's docs).

>>> from chessatron.planning.layout import Layout
>>> from chessatron.sim.world import SimWorld
>>> with SimGrbl(SimWorld(Layout.default()), speed=None, timeout=1.0, homing=False) as grbl:
...     _ = grbl.write(b"G0 X10 Y5\\n?")
...     for _ in range(4):
...         print(repr(grbl.readline().decode()))
'\\r\\n'
"Grbl 1.1h ['$' for help]\\r\\n"
'<Idle|MPos:0.000,0.000,0.000|Bf:15,118|FS:0,0|WCO:0.000,0.000,0.000>\\r\\n'
'ok\\r\\n'
"""

# One module on purpose (about 560 lines): the port, the real-time bytes, the line parser's steps, the ``$``
# commands and the world controls all act on the receive buffer and the machine's state at the instant a
# byte arrives, under the machine's lock; the machine and the parser are apart.

from __future__ import annotations

import random
import threading
import time

import serial

from ...errors import ConfigError
from ...grbl.charcount import strip_line
from ...grbl.codes import SETTINGS
from ...grbl.homing import HomingSettings, homing_time_s
from ...grbl.protocol import RX_BUFFER_BYTES, MachineState
from ...grbl.settings import format_setting
from ...i18n import _
from ...planning.gcode_parse import number_value
from ..world import SimWorld
from .faults import SimFaults
from .machine import RECORDED_LINES, GrblMachine, Line, Running
from .parser import HELP, PLANNER_BLOCKS, Reject, build_info, decode, decode_jog, parameters

# GRBL's line buffer: 79 characters and the line end.
_LINE_CHARS = 79


class SimGrbl(GrblMachine):
    """A simulated GRBL 1.1 behind a pyserial-like port (see the package docs).

    ``world`` is the table it drives (default: the ``default`` world). ``speed``: machine seconds per wall
    second, or None for virtual time. ``timeout``: seconds :meth:`read` waits (None: for ever; 0: not at
    all). ``homing`` and ``soft_limits`` set ``$22`` and ``$20`` (with homing on, GRBL starts in the alarm
    state until ``$H`` or ``$X``, as real GRBL with its homing lock); ``step_idle_delay_ms`` sets ``$1``
    (default: the layout's). Every other setting is what ``chessatron config grbl-settings`` prints for
    the layout. The port opens on construction unless ``do_not_open``.

    Raises :class:`~chessatron.errors.ConfigError` for a speed that is not positive.
    """

    def __init__(
        self,
        world: SimWorld | None = None,
        *,
        speed: float | None = 1.0,
        timeout: float | None = None,
        homing: bool = True,
        soft_limits: bool = False,
        faults: SimFaults | None = None,
        idle_grace_s: float = 0.03,
        step_idle_delay_ms: int | None = None,
        port: str = "sim://",
        do_not_open: bool = False,
    ) -> None:
        self.timeout = timeout
        self.write_timeout: float | None = None
        self.baudrate = 115200
        self.port = port
        self._thread: threading.Thread | None = None
        self._is_open = False
        self._host_resets = 0  # soft resets the host has sent (SimFaults.host_stall_reset counts them)
        self._stall_armed = False  # the host's next read stalls (SimFaults.host_stall_s)
        super().__init__(
            world,
            speed=speed,
            homing=homing,
            soft_limits=soft_limits,
            faults=faults,
            idle_grace_s=idle_grace_s,
            step_idle_delay_ms=step_idle_delay_ms,
        )
        if not do_not_open:
            self.open()

    # --- pyserial interface ----------------------------------------------------------------------------

    def open(self) -> None:
        """Open the port (power the board up) and start the firmware's thread."""
        with self._cond:
            if self._is_open:
                raise serial.SerialException(
                    _("the simulated grbl {port!r} is already open").format(port=self.port)
                )
            self._is_open = True
            self._closing = False
        self._thread = threading.Thread(target=self._work, name=f"sim-grbl {self.port}", daemon=True)
        self._thread.start()

    @property
    def is_open(self) -> bool:
        return self._is_open

    def close(self) -> None:
        """Close the port and stop the firmware's thread; closing twice is fine."""
        with self._cond:
            if not self._is_open:
                return
            self._is_open = False
            self._closing = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        self._thread = None

    def __enter__(self) -> SimGrbl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check(self) -> None:
        if not self._is_open:
            raise serial.PortNotOpenError()
        if self._unplugged:
            raise serial.SerialException(
                f"device reports readiness to read but returned no data ({self.port})"
            )

    def _release(self, now: float) -> float | None:
        """Move replies whose time has come to the readable buffer; the time of the next, if any."""
        while self._out and self._out[0][0] <= now:
            self._ready += self._out.popleft()[1]
        return self._out[0][0] if self._out else None

    @property
    def in_waiting(self) -> int:
        """Bytes ready to read."""
        with self._cond:
            self._check()
            self._release(time.monotonic())
            return len(self._ready)

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes: waits until there are that many or :attr:`timeout` passes."""
        with self._cond:
            self._check()
            if self._stall_armed:
                # SimFaults.host_stall_s: this read ends before the answer it waits for arrives, and the
                # host then stops running for a while; the board does not
                self._stall_armed = False
                self._stall(self.faults.host_stall_s)
                self._check()
                return b""
            deadline = None if self.timeout is None else time.monotonic() + self.timeout
            while True:
                now = time.monotonic()
                next_release = self._release(now)
                if len(self._ready) >= size or (deadline is not None and now >= deadline):
                    break
                waits = [t - now for t in (deadline, next_release) if t is not None]
                self._cond.wait(min(waits) if waits else None)
                self._check()
            data = bytes(self._ready[:size])
            del self._ready[:size]
            return data

    def readline(self) -> bytes:
        """Bytes up to and including ``\\n``, or what came before :attr:`timeout`."""
        line = bytearray()
        while not line.endswith(b"\n"):
            byte = self.read(1)
            if not byte:
                break
            line += byte
        return bytes(line)

    def write(self, data: bytes) -> int:
        """Send bytes to the board: real-time commands act at once, the rest go to the receive buffer."""
        with self._cond:
            self._check()
            for byte in data:
                if byte == 0x18:
                    self._host_resets += 1
                    if self.faults.stalls_host_after_reset(self._host_resets):
                        self._stall_armed = True
            if self._frozen:
                return len(data)
            if self._booting:
                self._boot_input += data  # waits in the port's buffer until the firmware runs
            else:
                self._receive(data, time.monotonic())
            self._cond.notify_all()
            return len(data)

    def _receive(self, data: bytes, now: float) -> None:
        """Bytes reaching GRBL: real-time commands act at once, the rest go to the receive buffer."""
        for byte in data:
            if byte == 0x3F:  # ?
                if self._is_homing():
                    self._status_pending = True  # GRBL's homing loop runs no real-time protocol
                elif not self._critical:
                    self._emit(self._status_text(now))
            elif byte == 0x21:  # !
                self._feed_hold(now)
            elif byte == 0x7E:  # ~
                self._cycle_start(now)
            elif byte == 0x18:
                self._soft_reset(now)
            elif byte >= 0x80:
                pass  # overrides, jog cancel, safety door: not simulated, never buffered (as in GRBL)
            elif len(self._rx) < RX_BUFFER_BYTES:
                self._rx.append(byte)
                self._last_rx = now
            else:
                self._overrun += 1
        if self._overrun:
            self.flags.append(f"receive buffer overrun: {self._overrun} bytes lost; count characters")
            self._overrun = 0

    def flush(self) -> None:
        """Nothing to wait for: writes reach the board at once."""

    def reset_input_buffer(self) -> None:
        """Drop what the board sent and the host has not read."""
        with self._cond:
            self._check()
            self._out.clear()
            self._ready.clear()

    def reset_output_buffer(self) -> None:
        """Nothing is ever waiting to leave the host."""

    # --- world controls and the recorder ------------------------------------------------------------

    @property
    def machine_s(self) -> float:
        """Machine seconds of motion and dwells run since power-up (the virtual clock)."""
        with self._cond:
            return self._clock

    @property
    def position(self) -> tuple[float, float]:
        """Machine x, y (mm) now."""
        with self._cond:
            return self._position(time.monotonic())

    @property
    def state(self) -> MachineState:
        with self._cond:
            return self._state()

    @property
    def resets_received(self) -> int:
        """Soft resets (control-x) the host has sent since the port opened."""
        with self._cond:
            return self._host_resets

    @property
    def planner_blocks(self) -> int:
        """Motion blocks queued in the planner, the running one included."""
        with self._cond:
            return self._blocks_queued

    @property
    def settings(self) -> dict[int, str]:
        with self._cond:
            return dict(self._settings)

    def inject(self, faults: SimFaults) -> None:
        """Replace the faults to inject from now on (line numbers still count from power-up)."""
        with self._cond:
            self.faults = faults
            self._random = random.Random(faults.seed)
            self._alarm_time_passed = False

    def raise_alarm(self, code: int = 1) -> None:
        """Raise ``ALARM:code`` now, as a limit switch would (codes 1 and 2 then wait for a reset)."""
        with self._cond:
            self._raise_alarm(code, time.monotonic())
            self._cond.notify_all()

    def pull_cable(self) -> None:
        """Pull the USB cable: the board (powered by USB) stops dead with its outputs off, so a magnet
        on them drops its piece; reads and writes raise :class:`serial.SerialException`."""
        with self._cond:
            self._unplug(time.monotonic())
            self._cond.notify_all()

    def _unplug(self, now: float) -> None:
        if not self._unplugged:
            self._flush_machine(now)
            self._unplugged = True

    def power_cycle(self) -> None:
        """Switch the board off and on (or reset it with the DTR line, as opening a port does to an
        Arduino): the machine stops dead, its outputs go off, and GRBL boots with the settings it keeps
        in EEPROM: locked in the alarm state when homing is enabled."""
        with self._cond:
            self._flush_machine(time.monotonic())
            self._power_on()
            self._cond.notify_all()

    def stall_host(self, seconds: float) -> None:
        """Stall the host: the calling (host) thread stops for ``seconds`` while the board runs on, as a
        busy Raspberry Pi or a slow SD card stops a program; what the board sends meanwhile waits in the
        port's buffer. (:attr:`SimFaults.host_stall_s` puts such a stall inside the link's own reads.)"""
        with self._cond:
            self._stall(seconds)

    def _stall(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self._cond.wait(left)  # lets the firmware's thread run

    def freeze(self) -> None:
        """Hang the firmware: the port stays open but nothing is answered or run any more, not even a
        soft reset, and its outputs stay as they are (a magnet on keeps its piece)."""
        with self._cond:
            self._frozen = True
            self._cond.notify_all()

    def assert_clean(self) -> None:
        """Raise AssertionError if the host misused the protocol (see :attr:`flags`)."""
        if self.flags:
            raise AssertionError(f"the host misused grbl's protocol: {self.flags!r}")

    def __repr__(self) -> str:
        return (
            f"<SimGrbl {self.port!r} world={self.world.name!r} state={self._state()} "
            f"machine_s={self._clock:.3f} open={self._is_open}>"
        )

    # --- real-time commands ------------------------------------------------------------------------

    def _feed_hold(self, now: float) -> None:
        if self._alarm or self._critical or self._hold or self._is_homing():
            return  # the homing loop looks at nothing but the switches and a reset
        self._hold = True
        if self._running is not None:
            self._running.paused_at = now

    def _cycle_start(self, now: float) -> None:
        if not self._hold:
            return
        self._hold = False
        running = self._running
        if running is not None and running.paused_at is not None:
            running.start_wall += now - running.paused_at
            running.paused_at = None

    def _soft_reset(self, now: float) -> None:
        if self._is_homing():
            self._raise_alarm(6, now)  # homing fail: the cycle was reset
            return
        moving = self._running is not None or bool(self._queue) or self._parser is not None
        if moving and not (self._alarm or self._critical):
            self._raise_alarm(3, now)  # reset while moving: the position may be lost
            return
        self._flush_machine(now)
        self._critical = False
        self._restart()

    # --- the parser --------------------------------------------------------------------------------

    def _next_line(self) -> str | None:
        """Move bytes from the receive buffer to the line buffer; a complete line, if one ends."""
        while self._rx:
            byte = self._rx.pop(0)
            if byte in (0x0A, 0x0D):
                text = self._line.decode("ascii", errors="replace")
                self._line.clear()
                self.lines_received += 1
                if byte == 0x0D:
                    self.flags.append(
                        f"line {self.lines_received} {text!r} ends in '\\r': grbl takes '\\r' and '\\n' "
                        "each as a line end and answers twice; end lines in '\\n' only"
                    )
                self.received.append(text)
                if len(self.received) > 2 * RECORDED_LINES:
                    del self.received[:-RECORDED_LINES]
                return text
            self._line.append(byte)
        return None

    def _parse_step(self, now: float) -> bool:
        """Read or run the next line if the parser can; True if it did something."""
        parsed = self._parser
        if parsed is None:
            text = self._next_line()
            if text is None:
                return False
            self._accept(text, now)
            return True
        if parsed.executing:
            return False
        if parsed.sync and (self._queue or self._running is not None):
            return False  # GRBL's protocol_buffer_synchronize: wait for the planner to empty
        if parsed.block is not None and self._blocks_queued >= PLANNER_BLOCKS:
            return False
        if parsed.number == self.faults.alarm_line and (parsed.sync or parsed.block is None):
            # a line that does not move runs here (a move's alarm fires when its block starts)
            self._raise_alarm(self.faults.alarm_code, now)
            return True
        self._execute(parsed, now)
        return True

    def _accept(self, text: str, now: float) -> None:
        block, _comments = strip_line(text)
        if len(block) > _LINE_CHARS:
            self._reply(11)
            return
        if not block:
            self._reply()  # blank and comment-only lines are answered, for syncing
            return
        if block.startswith("$"):
            try:
                self._system(block, now)
            except Reject as exc:
                self._reply(exc.code)
            return
        self._gcode_lines += 1
        number = self._gcode_lines
        if self.faults.stalls_host_after_line(number):
            self._stall_armed = True
        if number == self.faults.pull_cable_line:
            self._unplug(now)
            return
        if number == self.faults.freeze_line:
            self._frozen = True
            return
        if number == self.faults.error_line:
            self._reply(self.faults.error_code)
            return
        if self._alarm:
            self._reply(9)
            return
        try:
            self._parser = self._decode(number, block, now)
        except Reject as exc:
            self._reply(exc.code)

    def _decode(self, number: int, block: str, now: float) -> Line | None:
        """Check a line as GRBL's gc_execute_line does and update the modal state; None if it is done."""
        decoded = decode(block, self._modal, self._planned_xy)
        target = decoded.target
        if target is not None and self._settings[20] == "1" and not self._in_envelope(target):
            self._raise_alarm(2, now)  # soft limit: nothing moves, GRBL waits for a reset
            return None
        self._modal = decoded.modal  # accepted: the modal state changes now, in parse order
        line = Line(number, block, sync=decoded.sync, dwell_s=decoded.dwell_s, output=decoded.output)
        if target is not None:
            line.block = self._queue_block(target, decoded.feed_mm_min)
        return line

    # --- system commands ---------------------------------------------------------------------------

    def _system(self, block: str, now: float) -> None:
        command = block[1:]
        if command == "":
            self._emit(HELP)
        elif command == "$":
            if self._busy():
                raise Reject(8)
            for number, value in self._settings.items():
                self._emit(f"${number}={value}")
        elif command == "G":
            self._emit(self._modal.report())
        elif command in ("I", "#"):
            for text in build_info(self.layout) if command == "I" else parameters():
                self._emit(text)
        elif command == "N":
            self._emit("$N0=")
            self._emit("$N1=")
        elif command == "X":
            if self._alarm:
                self._alarm = False
                self._emit("[MSG:Caution: Unlocked]")
        elif command == "H":
            self._home(now)
            return
        elif command.startswith("J="):
            self._jog(command[2:], now)
            return
        elif "=" in command:
            self._write_setting(command)
        else:
            raise Reject(3)
        self._reply()

    def _write_setting(self, command: str) -> None:
        name, _, text = command.partition("=")
        if not name.isdigit() or int(name) not in SETTINGS:
            raise Reject(3)
        value = number_value(text)
        if value is None:
            raise Reject(2)
        if self._busy():
            raise Reject(8)
        number = int(name)
        if value < 0:
            raise Reject(4)
        if number == 20 and value and self._settings[22] != "1":
            raise Reject(10)
        if number == 1 and value > 255:
            raise Reject(4)  # GRBL keeps $1 in a byte
        before = self._settings[number]
        self._settings[number] = format_setting(number, value)
        try:
            self._profile = self._profile_from_settings()
        except ConfigError:
            self._settings[number] = before
            raise Reject(4) from None

    def _home(self, now: float) -> None:
        if self._settings[22] != "1":
            raise Reject(5)
        if self._busy() or self._parser is not None:
            raise Reject(8)
        home = self.layout.home_mm
        line = Line(0, f"G90 G0 X{home[0]:.3f} Y{home[1]:.3f}")

        def homed() -> None:
            self._alarm = False
            self._homed = True
            self._xy = self._planned_xy = home
            self._parser = None
            if self._status_pending:
                # the one report asked for during the cycle, sent as the cycle ends (still homing)
                self._status_pending = False
                self._emit(self._status_text(time.monotonic(), state="Home"))
            self._reply()

        line.on_done = homed
        line.executing = True
        self._parser = line
        # X's cycle, then Y's (one axis at a time, as on Core-XY). The twin's gantry goes home at once:
        # GRBL reports nothing while it homes, so nobody sees it on the way; the clock takes the time.
        self._twin(f"G90 G0 X{home[0]:.3f} Y{self._xy[1]:.3f}")
        self._twin(line.text)
        self._twin(self._modal_line())
        homing = HomingSettings.from_settings(self._numeric_settings())
        seconds = homing_time_s(self._xy, home, homing, self._profile)
        self._running = Running("home", seconds, self._clock, now, line)

    def _jog(self, body: str, now: float) -> None:
        if self._alarm:
            raise Reject(9)
        target, feed = decode_jog(body, self._modal, self._planned_xy)
        if self._settings[20] == "1" and not self._in_envelope(target):
            raise Reject(15)
        line = Line(0, f"G90 G1 X{target[0]:.3f} Y{target[1]:.3f} F{feed:g}", jog=True)
        line.block = self._queue_block(target, feed)

        def restore_modal() -> None:
            self._twin(self._modal_line())

        line.on_done = restore_modal
        if self._queue or self._running is not None or self._blocks_queued >= PLANNER_BLOCKS:
            self._parser = line
        else:
            self._complete(line)
