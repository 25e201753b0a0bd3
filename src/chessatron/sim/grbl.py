"""A simulated GRBL 1.1 on a serial port: the firmware, byte for byte, driving the simulated world's twin.

:class:`SimGrbl` is a pyserial-compatible object (``read``, ``write``, ``in_waiting``, ``timeout``,
``reset_input_buffer``, ``close``, ``is_open``…) with GRBL 1.1 behind it:

* the banner at power-up and after a soft reset (control-x), ``ok`` and ``error:N`` for every line,
  ``ALARM:N``, real-time ``?`` status reports (``<Idle|MPos:…|Bf:15,128|FS:…>``), ``!`` feed hold, ``~``
  resume, and the ``$`` commands a sender uses: ``$$``, ``$N=value``, ``$G``, ``$I`` (the build of GRBL
  for this table: ``[OPT:VCZ,15,128]``, ``C`` exactly when the layout is Core-XY), ``$#``, ``$N``, ``$H``,
  ``$X``, ``$J=`` (``$C``, ``$SLP`` and ``$RST`` answer ``error:3``); what a line means is
  :mod:`~chessatron.sim.grbl_parser`'s business, this module runs it;
* the lock: with homing on (``$22=1``) it boots in the alarm state, and after any alarm it stays there
  (a soft reset included) until ``$H`` or ``$X``, refusing g-code with ``error:9``;
* a rejected line is not run, but the lines behind it in the receive buffer are, as on the firmware;
* a 128-byte receive buffer (bytes beyond it are lost, as on the real board: the host must count
  characters) and a 15-block planner: a line leaves the buffer when the parser is free, a motion line is
  answered once its block is queued, and a line that switches the spindle or coolant, dwells (``G4``) or
  ends the program waits until every queued block has run, as GRBL's ``protocol_buffer_synchronize``
  does;
* motion timed with GRBL's planner model (:func:`chessatron.motion.plan_run`): a block starts when the
  planner is full, when a sync command waits behind it, or when no new line has come for
  ``idle_grace_s`` (then it plans to stop at the last block it knows, as a starved GRBL does). Time runs
  ``speed`` times faster than the wall clock, or with ``speed=None`` as fast as the host feeds it; either
  way :attr:`SimGrbl.machine_s` counts *machine* seconds, to compare with the planner's prediction. Every
  stop (the last block of a run done) costs the step idle delay ``$1`` (none at ``$1=255``), during which
  nothing else runs, as GRBL's ``st_go_idle`` holds everything up;
* homing (``$H``) as GRBL 1.1h built for this table runs it (:mod:`chessatron.grbl.homing`: X's cycle,
  then Y's, each approach, pull-off, locate, pull-off at ``$25``/``$24``, with the ``$26`` debounce), and
  as silent: no ``?`` is answered while it homes, the ones that came get a single ``<Home|…>`` report as
  the cycle ends, before its ``ok``; a feed hold is ignored, a soft reset raises ``ALARM:6``;
* G-code as this table uses it: G0, G1, G4, G17, G20/G21, G54, G90/G91, G94, M2/M30, M3/M4/M5, M8/M9
  (other codes answer ``error:20``, as they would on a GRBL built without them); soft limits (``$20=1``)
  check targets against the layout's envelope (machine coordinates are the layout's, as with
  ``HOMING_FORCE_SET_ORIGIN``): a g-code target outside raises ``ALARM:2``, a jog answers ``error:15``.

Every line runs through the world's twin (``world.twin.run([line], finish=False)`` under
``world.lock``) when it physically happens: a motion line when its block has run, others when GRBL
executes them, so the twin's magnet drags the pieces and an alarm leaves them where the machine stopped.

Faults (:class:`~chessatron.sim.grbl_faults.SimFaults` given to the constructor or to
:meth:`SimGrbl.inject`, or the methods :meth:`SimGrbl.raise_alarm`, :meth:`SimGrbl.pull_cable`,
:meth:`SimGrbl.freeze`, :meth:`SimGrbl.power_cycle`) make it misbehave the ways hardware does. The
recorder: :attr:`SimGrbl.received` (every line as received), :attr:`SimGrbl.flags` (protocol misuse by
the host: ``\\r`` line ends, buffer overruns) and :meth:`SimGrbl.assert_clean`.

>>> from chessatron.layout import Layout
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

from __future__ import annotations

import logging
import math
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import serial

from ..errors import ConfigError
from ..grbl.codes import SETTINGS
from ..grbl.homing import HomingSettings, homing_time_s
from ..grbl.protocol import RX_BUFFER_BYTES, WELCOME, MachineState, Status, format_status
from ..grbl.settings import format_setting, layout_settings
from ..grbl.stream import strip_line
from ..motion import Block, MachineProfile, PlannedBlock, plan_run
from ..ports import DeviceUrl
from .grbl_faults import FAULT_OPTIONS, SimFaults, faults_from_url
from .grbl_parser import HELP, PLANNER_BLOCKS, Modal, Reject, build_info, decode, decode_jog, parameters
from .world import SimWorld, get_world

__all__ = ["PLANNER_BLOCKS", "SimFaults", "SimGrbl", "SimHostMagnet", "sim_grbl_for_url"]

LOGGER = logging.getLogger(__name__)

# GRBL's line buffer: 79 characters and the line end.
_LINE_CHARS = 79
# Earlier blocks of a run the planner model looks back at; a longer run is planned from this far back.
_LOOKBACK_BLOCKS = 48
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)")


@dataclass
class _Run:
    """Blocks the machine runs without stopping; ``closed`` once no block may join it any more."""

    blocks: list[Block]
    done: int = 0
    closed: bool = False


@dataclass
class _Line:
    """A g-code line the parser accepted, decoded against the modal state at that point."""

    number: int
    text: str
    sync: bool = False
    dwell_s: float = 0.0
    block: Block | None = None
    jog: bool = False
    output: tuple[int, bool, float] | None = None
    run: _Run | None = None
    run_index: int = -1
    executing: bool = False
    on_done: Callable[[], None] | None = None


@dataclass
class _Running:
    """What the machine is doing now: a block of the planner, a dwell, a homing cycle, or the stop delay
    (``$1``) after motion ended, during which GRBL's stepper interrupt holds everything up."""

    kind: Literal["block", "dwell", "home", "stop"]
    duration_s: float
    start_clock: float
    start_wall: float
    line: _Line
    planned: PlannedBlock | None = None
    paused_at: float | None = None


class SimGrbl:
    """A simulated GRBL 1.1 behind a pyserial-like port (see the module docs).

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
        if speed is not None and not (math.isfinite(speed) and speed > 0.0):
            raise ConfigError(f"speed must be a positive factor or None (as fast as possible), got {speed!r}")
        self.world = world if world is not None else get_world()
        self.layout = self.world.layout
        self.speed = speed
        self.timeout = timeout
        self.write_timeout: float | None = None
        self.baudrate = 115200
        self.port = port
        self.faults = faults or SimFaults()
        self.idle_grace_s = idle_grace_s
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._random = random.Random(self.faults.seed)
        self._settings = layout_settings(self.layout, homing=homing, soft_limits=soft_limits)
        if step_idle_delay_ms is not None:
            self._settings[1] = format_setting(1, step_idle_delay_ms)
        self._profile = self._profile_from_settings()
        #: Every line received, as received (without its line end), ``$`` commands and blank lines too.
        self.received: list[str] = []
        #: Protocol misuse by the host: ``\\r`` line ends, receive-buffer overruns.
        self.flags: list[str] = []
        self._is_open = False
        self._closing = False
        with self._cond:
            self._power_on()
        if not do_not_open:
            self.open()

    # --- state -------------------------------------------------------------------------------------

    def _power_on(self) -> None:
        self._rx = bytearray()
        self._line = bytearray()
        self._out: deque[tuple[float, bytes]] = deque()
        self._ready = bytearray()
        self._last_release = 0.0
        self._last_rx = time.monotonic()
        self._gcode_lines = 0
        self._parser: _Line | None = None
        self._queue: deque[_Line] = deque()
        self._blocks_queued = 0
        self._running: _Running | None = None
        self._run = _Run([], closed=True)
        self._clock = 0.0
        self._alarm_time_passed = False
        self._xy: tuple[float, float] = self.world.twin.magnet_xy
        self._planned_xy = self._xy
        self._modal_reset()
        # The spindle (M3 M4 M5), coolant and spindle speed at the outputs: what the parser decided
        # (above) reaches them only when GRBL executes the line, after the motion queued before it.
        self._output: tuple[int, bool, float] = (5, False, 0.0)
        self._alarm = self._settings[22] == "1"
        self._critical = False
        self._hold = False
        self._homed = False
        self._unplugged = False
        self._frozen = False
        self._overrun = 0
        self._reports = 0
        self._status_pending = False  # a ? that came while homing, answered when the cycle ends
        self._emit("")
        self._emit(WELCOME)
        if self._alarm:
            self._emit("[MSG:'$H'|'$X' to unlock]")

    def _modal_reset(self) -> None:
        self._modal = Modal()

    # --- pyserial interface ----------------------------------------------------------------------------

    def open(self) -> None:
        """Open the port (power the board up) and start the firmware's thread."""
        with self._cond:
            if self._is_open:
                raise serial.SerialException(f"the simulated grbl {self.port!r} is already open")
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
            if self._frozen:
                return len(data)
            now = time.monotonic()
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
            self._cond.notify_all()
            return len(data)

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

    # --- output ------------------------------------------------------------------------------------

    def _emit(self, text: str, *, reply: bool = False) -> None:
        data = bytearray(text.encode("ascii") + b"\r\n")
        if text and self.faults.garble_rate and self._random.random() < self.faults.garble_rate:
            data[self._random.randrange(len(text))] = self._random.choice(b"#%&*Zq\x7f\xa5\xfe")
        now = time.monotonic()
        at = now + (self.faults.reply_delay_s if reply else 0.0)
        at = max(at, self._last_release)
        self._last_release = at
        self._out.append((at, bytes(data)))
        self._cond.notify_all()

    def _reply(self, code: int = 0) -> None:
        self._emit("ok" if code == 0 else f"error:{code}", reply=True)

    # --- real-time commands ------------------------------------------------------------------------

    def _is_homing(self) -> bool:
        return self._running is not None and self._running.kind == "home"

    def _state(self) -> MachineState:
        if self._alarm or self._critical:
            return "Alarm"
        if self._hold:
            return "Hold"
        running = self._running
        if running is not None and running.kind == "home":
            return "Home"
        if running is not None and running.kind == "block" and running.line.jog:
            return "Jog"
        if self._blocks_queued or (running is not None and running.kind == "stop"):
            return "Run"  # the cycle ends after the stop delay
        return "Idle"  # also during a dwell, as GRBL reports it

    def _position(self, now: float) -> tuple[float, float]:
        running = self._running
        if running is None or running.planned is None or self.speed is None:
            return self._xy
        return running.planned.position_at(self._elapsed(running, now))

    def _elapsed(self, running: _Running, now: float) -> float:
        """Machine seconds into the running activity."""
        if self.speed is None:
            return 0.0
        wall = (running.paused_at if running.paused_at is not None else now) - running.start_wall
        return max(0.0, wall * self.speed)

    def _status_text(self, now: float, state: MachineState | None = None) -> str:
        mask = int(self._settings[10])
        x, y = self._position(now)
        position = (x, y, 0.0)
        running = self._running
        feed = 0.0
        if running is not None and running.planned is not None:
            block = running.planned.block
            feed = block.feed_mm_min if block.feed_mm_min is not None else max(self._profile.max_rate_mm_min)
        out_spindle, out_coolant, out_speed = self._output
        spindle = out_speed if out_spindle in (3, 4) else 0.0
        status = Status(
            self._state() if state is None else state,
            0 if self._hold and not self._alarm else None,
            mpos=position if mask & 1 else None,
            wpos=None if mask & 1 else position,
            feed=feed,
            spindle=spindle,
            planner_free=PLANNER_BLOCKS - self._blocks_queued if mask & 2 else None,
            rx_free=RX_BUFFER_BYTES - len(self._rx) if mask & 2 else None,
        )
        # GRBL adds the work offset and the overrides every few reports, not every time.
        if self._reports % 10 == 0:
            status = replace(status, wco=(0.0, 0.0, 0.0))
        elif self._reports % 10 == 5:
            accessories = ("S" if out_spindle == 3 else "C" if out_spindle == 4 else "") + (
                "F" if out_coolant else ""
            )
            status = replace(status, overrides=(100, 100, 100), accessories=accessories or None)
        self._reports += 1
        return format_status(status)

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

    def _restart(self) -> None:
        """What GRBL does after every reset: empty buffers, default modal state, the banner."""
        self._hold = False
        self._rx.clear()
        self._line.clear()
        self._modal_reset()
        self._twin("G0 G90")
        self._emit("")
        self._emit(WELCOME)
        if self._alarm:
            self._emit("[MSG:'$H'|'$X' to unlock]")

    def _flush_machine(self, now: float, machine_t: float | None = None) -> None:
        """Stop dead: drop the planner and the parser, switch spindle and coolant off (as GRBL's reset).

        ``machine_t`` is how many machine seconds of the running move or dwell had passed (default: what
        the wall clock says).
        """
        running = self._running
        if running is not None:
            t = min(self._elapsed(running, now) if machine_t is None else machine_t, running.duration_s)
            self._clock = running.start_clock + t
            if running.planned is not None:
                # The machine stops where it is; the twin sees the part of the move that happened.
                x, y = running.planned.position_at(t)
                if (x, y) != self._xy:
                    feed = running.planned.block.feed_mm_min or max(self._profile.max_rate_mm_min)
                    self._twin(f"G90 G1 X{x:.3f} Y{y:.3f} F{feed:g}")
                self._xy = (x, y)
        self._running = None
        self._parser = None
        self._queue.clear()
        self._blocks_queued = 0
        self._run = _Run([], closed=True)
        self._planned_xy = self._xy
        if self._output[0] != 5 or self._output[1]:
            self._twin("M5 M9")
        self._output = (5, False, self._output[2])

    def _raise_alarm(self, code: int, now: float, machine_t: float | None = None) -> None:
        if self._critical:
            return
        self._flush_machine(now, machine_t)
        self._alarm = True
        self._emit(f"ALARM:{code}")
        if code in (1, 2):
            # Limit alarms block everything but a reset, so a host that keeps streaming cannot crash.
            self._critical = True
            self._hold = False
            self._rx.clear()
            self._line.clear()
            self._emit("[MSG:Reset to continue]")
        else:
            self._restart()  # GRBL raises the other alarms through a reset

    # --- the twin ----------------------------------------------------------------------------------

    def _twin(self, text: str) -> None:
        with self.world.lock:
            report = self.world.twin.run([text], finish=False)
        for violation in report.violations:
            LOGGER.debug("twin: %s: %s", text, violation)

    def _modal_line(self) -> str:
        return self._modal.twin_line()

    # --- the firmware's main loop ----------------------------------------------------------------------

    def _work(self) -> None:
        with self._cond:
            while not self._closing:
                try:
                    wait = self._step(time.monotonic())
                except Exception:  # a bug in the simulator: fail loudly on the host side, not silently
                    LOGGER.exception("the simulated grbl crashed")
                    self._unplugged = True
                    self._cond.notify_all()
                    return
                if wait is None:
                    self._cond.wait()
                elif wait > 0:
                    self._cond.wait(wait)

    def _step(self, now: float) -> float | None:
        """Do one thing; return 0 to go on at once, seconds to wait, or None to wait for the host."""
        if self._unplugged or self._frozen or self._critical:
            return None
        running = self._running
        if running is not None:
            # While homing, and while the stepper interrupt waits out the stop delay, the main loop
            # (which reads lines) does not run; during motion and holds it does.
            blocked = running.kind in ("home", "stop")
            if self._hold and not blocked:
                return 0.0 if self._parse_step(now) else None
            elapsed = self._elapsed(running, now)
            alarm_t = self._alarm_time(running)
            if alarm_t is not None and (self.speed is None or elapsed >= alarm_t):
                self._alarm_time_passed = True
                self._raise_alarm(self.faults.alarm_code, now, alarm_t)
                return 0.0
            if self.speed is not None and elapsed < running.duration_s:
                if not blocked and self._parse_step(now):
                    return 0.0
                until = running.duration_s if alarm_t is None else alarm_t
                return max((until - elapsed) / self.speed, 1e-4)
            self._finish_running(now)
            return 0.0
        if self._parse_step(now):
            return 0.0
        if self._queue:
            head = self._queue[0]
            if head.block is None:
                self._queue.popleft()
                self._run_line(head)
                return 0.0
            if self._hold:
                return None
            wait = self._may_start(head, now)
            if wait is None:
                self._start_block(head, now)
                return 0.0
            return wait
        return None

    def _alarm_time(self, running: _Running) -> float | None:
        """Machine seconds into ``running`` at which the timed alarm fires, if it falls inside it."""
        at = self.faults.alarm_at_s
        if at is None or self._alarm_time_passed:
            return None
        if running.start_clock <= at < running.start_clock + running.duration_s:
            return at - running.start_clock
        return None

    def _may_start(self, head: _Line, now: float) -> float | None:
        """None if the head block may start now, else seconds to wait for more lines first."""
        run = head.run
        assert run is not None
        if self._blocks_queued >= PLANNER_BLOCKS or run.closed or self._parser is not None:
            run.closed = True  # a sync command waits behind it, or the plan is final anyway
            return None
        idle = now - self._last_rx
        if idle >= self.idle_grace_s:
            # Starved: plan to stop at the last block known; a later block starts a new run.
            run.closed = True
            return None
        return self.idle_grace_s - idle

    def _start_block(self, head: _Line, now: float) -> None:
        if head.number == self.faults.alarm_line:
            self._raise_alarm(self.faults.alarm_code, now)
            return
        run = head.run
        assert run is not None
        # A block's speed profile depends only on the blocks before it and the planner's window after it,
        # all known now: the planner is full or the run is closed.
        lo = max(0, head.run_index - _LOOKBACK_BLOCKS)
        planned = plan_run(run.blocks[lo:], self._profile)[head.run_index - lo]
        self._running = _Running("block", planned.duration_s, self._clock, now, head, planned)

    def _finish_running(self, now: float) -> None:
        running = self._running
        assert running is not None
        self._running = None
        self._clock += running.duration_s
        line = running.line
        if running.kind == "block":
            assert running.planned is not None and line.run is not None
            self._xy = running.planned.block.end
            self._queue.popleft()
            self._blocks_queued -= 1
            line.run.done += 1
            stopped = line.run.done >= len(line.run.blocks)
            if stopped:
                line.run.closed = True  # the machine has stopped
            self._run_line(line)
            delay = self._profile.stop_delay_s
            if stopped and delay > 0.0:
                # st_go_idle: the stepper interrupt holds the motors $1 ms before the cycle may end
                ended = now if self.speed is None else running.start_wall + running.duration_s / self.speed
                self._running = _Running("stop", delay, self._clock, ended, line)
        elif running.kind == "stop":
            pass
        elif running.kind == "home":
            assert line.on_done is not None
            line.on_done()
        else:
            self._complete(line)

    def _run_line(self, line: _Line) -> None:
        """A line has physically happened: the twin runs it."""
        self._twin(line.text)
        if line.on_done is not None:
            line.on_done()

    # --- the parser --------------------------------------------------------------------------------

    def _next_line(self) -> str | None:
        """Move bytes from the receive buffer to the line buffer; a complete line, if one ends."""
        while self._rx:
            byte = self._rx.pop(0)
            if byte in (0x0A, 0x0D):
                text = self._line.decode("ascii", errors="replace")
                self._line.clear()
                if byte == 0x0D:
                    self.flags.append(
                        f"line {len(self.received) + 1} {text!r} ends in '\\r': grbl takes '\\r' and '\\n' "
                        "each as a line end and answers twice; end lines in '\\n' only"
                    )
                self.received.append(text)
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
        if parsed.sync and parsed.number == self.faults.alarm_line:
            self._raise_alarm(self.faults.alarm_code, now)
            return True
        self._execute(parsed, now)
        return True

    def _accept(self, text: str, now: float) -> None:
        block, _ = strip_line(text)
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

    def _decode(self, number: int, block: str, now: float) -> _Line | None:
        """Check a line as GRBL's gc_execute_line does and update the modal state; None if it is done."""
        decoded = decode(block, self._modal, self._planned_xy)
        target = decoded.target
        if target is not None and self._settings[20] == "1" and not self._in_envelope(target):
            self._raise_alarm(2, now)  # soft limit: nothing moves, GRBL waits for a reset
            return None
        self._modal = decoded.modal  # accepted: the modal state changes now, in parse order
        line = _Line(number, block, sync=decoded.sync, dwell_s=decoded.dwell_s, output=decoded.output)
        if target is not None:
            line.block = self._queue_block(target, decoded.feed_mm_min)
        return line

    def _in_envelope(self, xy: tuple[float, float]) -> bool:
        xmin, ymin, xmax, ymax = self.layout.envelope_mm
        return xmin - 1e-6 <= xy[0] <= xmax + 1e-6 and ymin - 1e-6 <= xy[1] <= ymax + 1e-6

    def _queue_block(self, target: tuple[float, float], feed: float | None) -> Block | None:
        """The block a move makes (None for one too short to step), planned position updated."""
        start = self._planned_xy
        self._planned_xy = target
        dx, dy = self._profile.to_planner(target[0] - start[0], target[1] - start[1])
        if math.hypot(dx, dy) < 1e-9:
            return None
        return Block(start, target, feed)

    def _execute(self, parsed: _Line, now: float) -> None:
        """Run a decoded line whose turn has come (planner room, or the planner empty for a sync)."""
        if parsed.output is not None:
            self._output = parsed.output
        if parsed.dwell_s > 0:
            parsed.executing = True
            self._running = _Running("dwell", parsed.dwell_s, self._clock, now, parsed)
            return
        self._complete(parsed)

    def _complete(self, parsed: _Line) -> None:
        """Queue a line's motion (or hand it to the twin) and answer it."""
        self._parser = None
        if parsed.block is not None:
            if self._run.closed:
                self._run = _Run([])
            parsed.run, parsed.run_index = self._run, len(self._run.blocks)
            self._run.blocks.append(parsed.block)
            self._queue.append(parsed)
            self._blocks_queued += 1
        elif self._queue:
            self._queue.append(parsed)  # keeps its place in line for the twin
        else:
            self._run_line(parsed)
        self._reply()

    # --- system commands ---------------------------------------------------------------------------

    def _busy(self) -> bool:
        return self._running is not None or bool(self._queue) or self._hold

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
        if not _NUMBER.fullmatch(text):
            raise Reject(2)
        if self._busy():
            raise Reject(8)
        number, value = int(name), float(text)
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

    def _numeric_settings(self) -> dict[int, float]:
        return {n: float(v) for n, v in self._settings.items()}

    def _profile_from_settings(self) -> MachineProfile:
        """The planner model GRBL runs with its settings: rates, accelerations, junction deviation and the
        stop delay (``$1``)."""
        s = self._numeric_settings()
        return MachineProfile(
            max_rate_mm_min=(s[110], s[111]),
            acceleration_mm_s2=(s[120], s[121]),
            junction_deviation_mm=s[11],
            kinematics=self.layout.profile.kinematics,
            planner_blocks=PLANNER_BLOCKS,
            step_idle_delay_ms=int(s[1]),
        )

    def _home(self, now: float) -> None:
        if self._settings[22] != "1":
            raise Reject(5)
        if self._busy() or self._parser is not None:
            raise Reject(8)
        home = self.layout.home_mm
        line = _Line(0, f"G90 G0 X{home[0]:.3f} Y{home[1]:.3f}")

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
        self._running = _Running("home", seconds, self._clock, now, line)

    def _jog(self, body: str, now: float) -> None:
        if self._alarm:
            raise Reject(9)
        target, feed = decode_jog(body, self._modal, self._planned_xy)
        if self._settings[20] == "1" and not self._in_envelope(target):
            raise Reject(15)
        line = _Line(0, f"G90 G1 X{target[0]:.3f} Y{target[1]:.3f} F{feed:g}", jog=True)
        line.block = self._queue_block(target, feed)

        def restore_modal() -> None:
            self._twin(self._modal_line())

        line.on_done = restore_modal
        if self._queue or self._running is not None or self._blocks_queued >= PLANNER_BLOCKS:
            self._parser = line
        else:
            self._complete(line)


class SimHostMagnet:
    """The host magnet of a servo layout, in the simulated world: engaging and releasing feed the
    ``(MAGNET ON)`` and ``(MAGNET OFF)`` markers to the twin (after a ``G4 P0``, which the twin wants
    before a marker). :attr:`actions` records what it was told to do."""

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.actions: list[str] = []
        self._closed = False

    def _switch(self, marker: str) -> None:
        if self._closed:
            from ..errors import DeviceClosedError

            raise DeviceClosedError("the simulated host magnet is closed; open a new one")
        with self.world.lock:
            self.world.twin.run(["G4 P0", f"({marker})"], finish=False)
        self.actions.append(marker)

    def engage(self) -> None:
        self._switch("MAGNET ON")

    def release(self) -> None:
        self._switch("MAGNET OFF")

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> SimHostMagnet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SimHostMagnet world={self.world.name!r} actions={len(self.actions)}>"


_URL_OPTIONS = (
    frozenset({"speed", "homing", "soft_limits", "idle_grace_s", "step_idle_delay_ms"}) | FAULT_OPTIONS
)


def sim_grbl_for_url(url: str, *, timeout: float | None = None, do_not_open: bool = False) -> SimGrbl:
    """A :class:`SimGrbl` for ``sim://[world][?speed=F|max&homing=0&soft_limits=1&error_line=N&…]``.

    Options: ``speed`` (a factor, or ``max`` for virtual time; default 1), ``homing``, ``soft_limits``,
    ``step_idle_delay_ms`` (``$1``), ``idle_grace_s`` and every field of :class:`SimFaults`. The world is
    looked up by name (created with the default layout if there is none yet). Raises
    :class:`~chessatron.errors.ConfigError` for an unknown option or a bad value.
    """
    world, options = sim_grbl_options(url)
    return SimGrbl(get_world(world), **options, timeout=timeout, port=url, do_not_open=do_not_open)


def sim_grbl_options(url: str) -> tuple[str, dict[str, Any]]:
    """The world's name and :class:`SimGrbl`'s keyword arguments a ``sim://`` URL names, checked without
    making anything (``chessatron config check``). Raises :class:`~chessatron.errors.ConfigError`."""
    parsed = DeviceUrl.parse(url)
    if parsed.scheme != "sim":
        raise ConfigError(f"{url!r} is not a sim:// URL")
    parsed.check_options(_URL_OPTIONS, "sim://?speed=max&homing=0")
    speed_text = parsed.params.get("speed", "1")
    speed = None if speed_text.lower() in ("max", "none") else parsed.number("speed", 1.0)
    if speed is not None and not (math.isfinite(speed) and speed > 0.0):
        raise ConfigError(f"speed={speed_text!r} in {url!r} is not a positive factor or 'max'")
    idle = parsed.integer("step_idle_delay_ms", 0) if "step_idle_delay_ms" in parsed.params else None
    if idle is not None and not 0 <= idle <= 255:
        raise ConfigError(f"step_idle_delay_ms in {url!r} is grbl's $1: a whole number from 0 to 255")
    return parsed.target.strip("/") or "default", {
        "speed": speed,
        "homing": parsed.flag("homing", True),
        "soft_limits": parsed.flag("soft_limits", False),
        "faults": faults_from_url(parsed),
        "idle_grace_s": parsed.number("idle_grace_s", 0.03),
        "step_idle_delay_ms": idle,
    }
