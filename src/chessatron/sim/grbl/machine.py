"""GRBL's machine inside the simulated firmware: its state, its planner and executor, its alarms.

:class:`GrblMachine` keeps what the firmware keeps (settings, modal state, the receive buffer, the planner's
queue, the running block, dwell, homing cycle or stop delay, the outputs) and runs it: lines the parser
accepted are queued as blocks, planned with GRBL's model (:func:`chessatron.grbl.motion.plan_run`) and run on
the world's twin when they physically happen. :class:`~chessatron.sim.grbl.firmware.SimGrbl` puts the
serial port, the parser and the ``$`` commands in front of it.
"""

# One module on purpose (about 530 lines): the firmware's state, its planner queue and its executor change
# together, under one lock and stepped by one thread, as in GRBL's main loop; the parser and the port are
# apart (:mod:`.parser`, :mod:`.firmware`).

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from ...errors import ConfigError
from ...grbl.motion import Block, MachineProfile, PlannedBlock, plan_run
from ...grbl.protocol import RX_BUFFER_BYTES, WELCOME, MachineState, Status, format_status
from ...grbl.settings import format_setting, layout_settings
from ...i18n import _
from ..world import SimWorld, get_world
from .faults import SimFaults
from .parser import PLANNER_BLOCKS, Modal

LOGGER = logging.getLogger("chessatron.sim.grbl")

#: The lines the recorder keeps (:attr:`GrblMachine.received`, the newest).
RECORDED_LINES = 10_000

# Earlier blocks of a run the planner model looks back at; a longer run is planned from this far back.
_LOOKBACK_BLOCKS = 48
# After a late boot's banner, how long until GRBL reads what the host sent while it booted (its main loop
# starting up): a soft reset sent early is answered this long after the power-up banner.
_START_S = 0.02


@dataclass
class Run:
    """Blocks the machine runs without stopping; ``closed`` once no block may join it any more."""

    blocks: list[Block]
    done: int = 0
    closed: bool = False


@dataclass
class Line:
    """A g-code line the parser accepted, decoded against the modal state at that point."""

    number: int
    text: str
    sync: bool = False
    dwell_s: float = 0.0
    block: Block | None = None
    jog: bool = False
    output: tuple[int, bool, float] | None = None
    run: Run | None = None
    run_index: int = -1
    executing: bool = False
    on_done: Callable[[], None] | None = None


@dataclass
class Running:
    """What the machine is doing now: a block of the planner, a dwell, a homing cycle, or the stop delay
    (``$1``) after motion ended, during which GRBL's stepper interrupt holds everything up."""

    kind: Literal["block", "dwell", "home", "stop"]
    duration_s: float
    start_clock: float
    start_wall: float
    line: Line
    planned: PlannedBlock | None = None
    paused_at: float | None = None


class GrblMachine:
    """The firmware's state and its machine: settings, modal state, buffers, the planner's queue, what
    runs now and the outputs, driving ``world``'s twin (see :class:`~chessatron.sim.grbl.firmware.SimGrbl`
    for the arguments). The parser in front of it is :meth:`_parse_step`'s business."""

    def __init__(
        self,
        world: SimWorld | None,
        *,
        speed: float | None,
        homing: bool,
        soft_limits: bool,
        faults: SimFaults | None,
        idle_grace_s: float,
        step_idle_delay_ms: int | None,
    ) -> None:
        if speed is not None and not (math.isfinite(speed) and speed > 0.0):
            raise ConfigError(
                _("speed must be a positive factor or None (as fast as possible), got {value!r}").format(
                    value=speed
                )
            )
        self.world = world if world is not None else get_world()
        self.layout = self.world.layout
        self.speed = speed
        self.faults = faults or SimFaults()
        self.idle_grace_s = idle_grace_s
        self._cond = threading.Condition()
        self._random = random.Random(self.faults.seed)
        self._settings = layout_settings(self.layout, homing=homing, soft_limits=soft_limits)
        if step_idle_delay_ms is not None:
            self._settings[1] = format_setting(1, step_idle_delay_ms)
        self._profile = self._profile_from_settings()
        #: Every line received, as received (without its line end), ``$`` commands and blank lines too: the
        #: newest :data:`RECORDED_LINES` (a table served for days receives millions).
        self.received: list[str] = []
        #: How many lines were received since the port opened (``received`` keeps the newest only).
        self.lines_received = 0
        #: Protocol misuse by the host: ``\\r`` line ends, receive-buffer overruns.
        self.flags: list[str] = []
        self._closing = False
        with self._cond:
            self._power_on()

    # --- state -------------------------------------------------------------------------------------

    def _power_on(self) -> None:
        self._rx = bytearray()
        self._line = bytearray()
        self._out: deque[tuple[float, bytes]] = deque()
        self._ready = bytearray()
        self._last_release = 0.0
        self._last_rx = time.monotonic()
        self._gcode_lines = 0
        self._parser: Line | None = None
        self._queue: deque[Line] = deque()
        self._blocks_queued = 0
        self._running: Running | None = None
        self._run = Run([], closed=True)
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
        # A late boot (SimFaults.late_boot_s): until _boot_at nothing runs and what the host sends waits
        # in _boot_input; it reaches GRBL _START_S after the banner, at _replay_at.
        self._boot_input = bytearray()
        self._boot_at: float | None = None
        self._replay_at: float | None = None
        if self.faults.late_boot_s > 0.0:
            self._boot_at = time.monotonic() + self.faults.late_boot_s
        else:
            self._greet()

    def _greet(self) -> None:
        """The banner GRBL prints when it starts (and, locked, the way to unlock it)."""
        self._emit("")
        self._emit(WELCOME)
        if self._alarm:
            self._emit("[MSG:'$H'|'$X' to unlock]")

    @property
    def _booting(self) -> bool:
        """True until a late boot's banner is out and what the host sent meanwhile has reached GRBL."""
        return self._boot_at is not None or self._replay_at is not None

    def _boot_step(self, now: float) -> float:
        """The late boot's next step: the banner, then what the host sent meanwhile; seconds to wait."""
        if self._boot_at is not None:
            if now < self._boot_at:
                return self._boot_at - now
            self._boot_at = None
            self._greet()
            if not self._boot_input:
                return 0.0
            self._replay_at = now + _START_S
        assert self._replay_at is not None
        if now < self._replay_at:
            return self._replay_at - now
        self._replay_at = None
        waiting = bytes(self._boot_input)
        self._boot_input.clear()
        self._receive(waiting, now)
        return 0.0

    def _modal_reset(self) -> None:
        self._modal = Modal()

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

    # --- what it reports ---------------------------------------------------------------------------

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

    def _elapsed(self, running: Running, now: float) -> float:
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

    # --- resets and alarms --------------------------------------------------------------------------

    def _restart(self) -> None:
        """What GRBL does after every reset: empty buffers, default modal state, the banner."""
        self._hold = False
        self._rx.clear()
        self._line.clear()
        self._modal_reset()
        self._twin("G0 G90")
        self._greet()

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
        self._run = Run([], closed=True)
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
        if self._booting:
            return self._boot_step(now)
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

    def _alarm_time(self, running: Running) -> float | None:
        """Machine seconds into ``running`` at which the timed alarm fires, if it falls inside it."""
        at = self.faults.alarm_at_s
        if at is None or self._alarm_time_passed:
            return None
        if running.start_clock <= at < running.start_clock + running.duration_s:
            return at - running.start_clock
        return None

    def _may_start(self, head: Line, now: float) -> float | None:
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

    def _start_block(self, head: Line, now: float) -> None:
        if head.number == self.faults.alarm_line:
            self._raise_alarm(self.faults.alarm_code, now)
            return
        run = head.run
        assert run is not None
        # A block's speed profile depends only on the blocks before it and the planner's window after it,
        # all known now: the planner is full or the run is closed.
        lo = max(0, head.run_index - _LOOKBACK_BLOCKS)
        planned = plan_run(run.blocks[lo:], self._profile)[head.run_index - lo]
        self._running = Running("block", planned.duration_s, self._clock, now, head, planned)

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
                self._running = Running("stop", delay, self._clock, ended, line)
        elif running.kind == "stop":
            pass
        elif running.kind == "home":
            assert line.on_done is not None
            line.on_done()
        else:
            self._complete(line)

    def _run_line(self, line: Line) -> None:
        """A line has physically happened: the twin runs it."""
        self._twin(line.text)
        if line.on_done is not None:
            line.on_done()

    # --- the planner ---------------------------------------------------------------------------------

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

    def _execute(self, parsed: Line, now: float) -> None:
        """Run a decoded line whose turn has come (planner room, or the planner empty for a sync)."""
        if parsed.output is not None:
            self._output = parsed.output
        if parsed.dwell_s > 0:
            parsed.executing = True
            self._running = Running("dwell", parsed.dwell_s, self._clock, now, parsed)
            return
        self._complete(parsed)

    def _complete(self, parsed: Line) -> None:
        """Queue a line's motion (or hand it to the twin) and answer it."""
        self._parser = None
        if parsed.block is not None:
            if self._run.closed:
                self._run = Run([])
            parsed.run, parsed.run_index = self._run, len(self._run.blocks)
            self._run.blocks.append(parsed.block)
            self._queue.append(parsed)
            self._blocks_queued += 1
        elif self._queue:
            self._queue.append(parsed)  # keeps its place in line for the twin
        else:
            self._run_line(parsed)
        self._reply()

    def _busy(self) -> bool:
        return self._running is not None or bool(self._queue) or self._hold

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

    def _parse_step(self, now: float) -> bool:
        """Read or run the next line if the parser can; True if it did something (the parser's part)."""
        raise NotImplementedError

    def _receive(self, data: bytes, now: float) -> None:
        """Bytes from the host reaching GRBL (the port's part)."""
        raise NotImplementedError
