"""The GRBL 1.1 driver: a session with GRBL over any port pyserial opens (connect, home, stream a
program), on the wire of :mod:`~chessatron.grbl.wire` and the streaming loop of
:mod:`~chessatron.grbl.stream_loop`.

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
connection, not a hang. The one silence that is expected is homing's: GRBL 1.1h runs its homing cycle
without its real-time protocol and answers no ``?`` until the cycle is over, so :meth:`GrblLink.home`
waits in silence as long as the cycle can take with the board's settings
(:func:`~chessatron.grbl.homing.homing_bound_s`), and no longer.

After any alarm, and after power-up with homing enabled, GRBL is locked: it refuses g-code
(``error:9``) until it is homed (``$H``) or unlocked (``$X``). The link follows that state from what GRBL
says (:attr:`GrblLink.is_locked`), and :meth:`GrblLink.ready` homes a locked board or says what to do.
"""

# One module on purpose (about 510 lines): connect, home and stream are the steps of one session on one
# wire; what it says when a step fails, whole sentences in every language (chessatron.i18n), took it past 500.

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Sequence

import serial

from ..errors import (
    ConfigError,
    ConnectionLostError,
    DeviceClosedError,
    GarbledReplyError,
    GrblAlarm,
    GrblBuildError,
    GrblError,
    GrblLockedError,
    GrblResetError,
    GrblVersionError,
)
from ..i18n import _
from ..i18n.formats import decimal
from ..planning.layout import Layout
from ..ports import HostMagnet
from .build import BuildInfo, check_build
from .charcount import LineState, MagnetState, ProgramLine, Streamer, StreamProgress, StreamResult
from .handshake import BannerWatch, build_answer_problem, settings_answer_problem
from .homing import HomingSettings, homing_bound_s
from .motion import MachineProfile
from .protocol import Message, Setting, Status, Welcome
from .settings import check_settings, layout_settings
from .stream_loop import StreamRun
from .waits import Pace
from .wire import READ_SLICE_S, SOFT_RESET, GrblWire, SerialPort, number_text

__all__ = ["GrblLink", "SerialPort"]

LOGGER = logging.getLogger(__name__)

# Homing: the wait is the longest cycle the settings allow, times this, plus the link's timeout.
_HOMING_MARGIN = 1.5
# After homing, GRBL's position must be the layout's home_mm within this (mm).
_HOME_TOLERANCE_MM = 1.0


class _OutOfStep(Exception):
    """The connect exchange went out of step (an answer of the wrong shape, a restart, a garbled line);
    internal: :meth:`GrblLink.connect` starts it over, once."""


class GrblLink(GrblWire):
    """GRBL 1.1 over a serial port: connect, home, poll status, stream programs safely.

    ``url`` is anything :func:`serial.serial_for_url` opens: ``/dev/ttyUSB0``, ``COM3``,
    ``socket://host:port``, ``rfc2217://host:port``, ``loop://``, or ``sim://[world][?options]`` for the
    simulated GRBL (registered when :mod:`chessatron.grbl` is imported). ``layout`` is what the settings
    are checked against; ``host_magnet`` switches the magnet at ``(MAGNET ON)``/``(MAGNET OFF)`` sync
    points of a servo layout's programs. Status is polled at most ``status_hz`` times a second, and a port
    that stays silent for ``timeout_s`` seconds is a lost connection.

    A context manager: the port opens on entering and closes (idempotently) on leaving. The host magnet
    belongs to the caller and is not closed. What takes one exchange (:meth:`command`, :meth:`status`,
    :meth:`feed_hold`, :meth:`resume`, :meth:`soft_reset`) is the wire's it stands on
    (:class:`~chessatron.grbl.wire.GrblWire`).

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
        super().__init__(url, baudrate=baudrate, status_hz=status_hz, timeout_s=timeout_s)
        self.layout = layout
        self.host_magnet = host_magnet
        #: GRBL's version from its banner (``"1.1h"``), once connected.
        self.version: str | None = None
        #: ``$$`` settings by number, once connected.
        self.settings: dict[int, float] = {}
        #: How the firmware was built (its ``$I`` answer), once connected.
        self.build: BuildInfo | None = None

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
        port.timeout = READ_SLICE_S
        link._port = port
        return link

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("open" if self._port is not None else "not open")
        return f"<GrblLink {self.url!r} {state} version={self.version!r}>"

    # --- the session -------------------------------------------------------------------------------

    def connect(self) -> list[str]:
        """Open the port, soft-reset GRBL, wait for the banner that opens the session, then read its build
        (``$I``) and settings (``$$``); return the warnings where they disagree with the layout (see
        :func:`~chessatron.grbl.settings.check_settings` and :func:`~chessatron.grbl.build.check_build`).

        No classic wake-up (``\\r\\n\\r\\n``, sleep, flush): each ``\\r\\n`` makes GRBL answer twice and the
        sleep is a guess. A soft reset (control-x) is a real-time byte that needs no line end and clears a
        half-received line; everything before its banner is dropped. A board that boots as the port opens
        (an Arduino's DTR reset) prints its power-up banner late, maybe after the reset was sent and before
        the reset's own banner, so the session opens only once no further banner can come (see
        :class:`~chessatron.grbl.handshake.BannerWatch`); with no banner at all (the bootloader ate the
        reset) the reset is sent once more. Each answer is then checked line by line: an exchange out of
        step starts over from a fresh reset, once.

        Raises :class:`~chessatron.errors.ConnectionLostError` if no banner comes,
        :class:`~chessatron.errors.GrblVersionError` if it is not GRBL 1.1 and
        :class:`~chessatron.errors.GrblBuildError` if its build cannot be read twice running, or does not fit
        the table (a Cartesian build on a Core-XY table or the other way round, no ``Z``, ``L`` with homing
        on, a small receive buffer: :func:`~chessatron.grbl.build.check_build`). Nothing moves before.
        """
        problem = ""
        for attempt in range(2):
            self._check_version(self._open_session())
            try:
                build, settings = self._exchange()
            except _OutOfStep as exc:
                problem = str(exc)
                if attempt == 0:
                    LOGGER.warning("connecting to grbl on %s: %s; starting over", self.url, problem)
                continue
            break
        else:
            raise GrblBuildError(
                _(
                    "grbl on {url!r} did not say how it was built, twice running ({problem}), so whether it "
                    "drives a core-xy gantry and homes to the origin cannot be checked, and chessatron will "
                    "not move it: check that nothing else uses the port (a g-code sender, a second "
                    "chessatron), the cable and the baud rate ({baud}), that the board runs grbl 1.1h built "
                    "for this table (docs/raspberry-pi.md), then connect again"
                ).format(url=self.url, problem=problem, baud=self.baudrate)
            )
        self.build, self.settings = build, settings
        warnings = check_settings(settings, self.layout)
        where = _("grbl on {url!r}").format(url=self.url)
        warnings += check_build(build, self.layout, settings=settings, where=where)
        self.status(fresh=True)
        return warnings

    def _open_session(self) -> Welcome:
        """Drop what came before, soft-reset, and wait until the banner that opens the session is in and
        no further one can come (:class:`~chessatron.grbl.handshake.BannerWatch`); return it."""
        port = self._require_port()
        try:
            port.reset_input_buffer()
        except (serial.SerialException, OSError) as exc:
            raise self._lost(_("the port failed"), exc) from exc
        self._splitter.clear()
        watch = BannerWatch()
        pace = Pace(self.url)
        started = time.monotonic()
        cap = started + 2 * self.timeout_s
        self._write(SOFT_RESET)
        watch.sent_reset(time.monotonic())
        while True:
            began = pace.before_read()
            messages = self._read()
            watch.heard(messages, pace.after_read())
            if watch.welcome is not None and watch.settled(began):
                LOGGER.debug(
                    "grbl on %s: %d banner(s) after %d reset(s)", self.url, watch.banners, watch.resets_sent
                )
                return watch.welcome
            if (began >= cap and watch.welcome is None) or watch.banners > watch.resets_sent + 3:
                break  # nothing at all, or a board that keeps restarting by itself
            if watch.banners == 0 and watch.resets_sent == 1 and began >= started + self.timeout_s:
                self._write(SOFT_RESET)  # a board still booting as the port opened ate the first
                watch.sent_reset(time.monotonic())
        if watch.welcome is None:
            raise self._lost(
                _("no grbl banner within {seconds} s of a soft reset (is it grbl, at {baud} baud?)").format(
                    seconds=number_text(2 * self.timeout_s), baud=self.baudrate
                )
            )
        raise self._lost(
            _(
                "grbl kept restarting: {banners} banners after {resets} soft reset(s) in {seconds} s, so no "
                "session could start (a board that resets by itself is short of power)"
            ).format(
                banners=watch.banners,
                resets=watch.resets_sent,
                seconds=decimal(time.monotonic() - started, 1),
            )
        )

    def _check_version(self, welcome: Welcome) -> None:
        if not welcome.version.startswith("1.1"):
            raise GrblVersionError(
                _(
                    "{banner!r} answered on {url!r}; chessatron needs grbl 1.1 (its messages and error codes "
                    "differ between versions): flash grbl 1.1h"
                ).format(banner=welcome.text, url=self.url)
            )
        self.version = welcome.version

    def _exchange(self) -> tuple[BuildInfo, dict[int, float]]:
        """``$I`` then ``$$``, each answer checked line by line. Raises :class:`_OutOfStep` for an answer
        of the wrong shape, a restart or a garbled line."""
        try:
            answer = self.command("$I")
            problem = build_answer_problem(answer)
            if problem is None:
                build = BuildInfo.from_messages(answer)
                listed = self.command("$$")
                problem = settings_answer_problem(listed)
        except (GrblResetError, GarbledReplyError) as exc:
            raise _OutOfStep(str(exc)) from exc
        if problem is not None:
            raise _OutOfStep(problem)
        return build, _settings(listed)

    def ready(self, *, home: bool = False) -> bool:
        """Make GRBL take g-code: home it if ``home`` asks for it, or if it is locked in its alarm state
        (since power-up with homing enabled, or after any alarm) and homing is enabled (``$22=1``); return
        True if it homed. A board still stopped by a limit alarm is soft-reset first (it answers nothing
        else).

        Call it before anything that moves, after :meth:`connect`. Raises
        :class:`~chessatron.errors.GrblLockedError` if GRBL is locked and homing is off (where the gantry
        stands is then unknown), and what :meth:`home` raises.
        """
        if self.version is None:
            raise DeviceClosedError(f"the link to {self.url!r} is not connected; call connect() first")
        status = self.status_after_alarm()
        if not (home or status.is_alarm):
            return False
        if status.is_alarm and self.settings.get(22) != 1:
            home_mm = None if self.layout is None else self.layout.home_mm
            raise GrblLockedError(
                _(
                    "grbl on {url!r} is locked in its alarm state (after an alarm, or since it was switched "
                    "on) and homing is off ($22=0), so where the gantry stands is unknown: switch the "
                    "machine off, push the magnet to home_mm {home_mm!r} by hand and switch it on again; or "
                    "fit limit switches and set $22=1, and it will home itself"
                ).format(url=self.url, home_mm=home_mm)
            )
        self.home()
        return True

    def read_settings(self) -> dict[int, float]:
        """``$$``: every numeric setting by number."""
        return _settings(self.command("$$"))

    def homing_bound_s(self) -> float:
        """The longest GRBL's homing cycle can take with its settings (the layout's before connecting)
        and the layout's kinematics: both approaches searching their whole distance (seconds)."""
        settings: dict[int, float] = dict(self.settings)
        if not settings and self.layout is not None:
            settings = {n: float(v) for n, v in layout_settings(self.layout).items()}
        profile = self.layout.profile if self.layout is not None else MachineProfile()
        return homing_bound_s(HomingSettings.from_settings(settings), profile)

    def homing_wait_s(self) -> float:
        """How long to wait in silence for homing's answer: :meth:`homing_bound_s` with a margin."""
        return _HOMING_MARGIN * self.homing_bound_s() + self.timeout_s

    def home(self, *, timeout_s: float | None = None) -> None:
        """Run the homing cycle (``$H``); GRBL is idle at home afterwards, unlocked.

        GRBL answers nothing while it homes, so the link waits in silence for its ``ok`` (or an alarm) up
        to ``timeout_s``: by default the longest cycle the settings allow (:meth:`homing_bound_s`) with a
        margin. Raises :class:`~chessatron.errors.GrblError` (``error:5`` when homing is off: set
        ``$22=1``), :class:`~chessatron.errors.GrblAlarm` when homing fails (``ALARM:8``/``ALARM:9``: a
        switch not found or not cleared), :class:`~chessatron.errors.ConnectionLostError` when no answer
        comes in time, and :class:`~chessatron.errors.GrblBuildError` when the position GRBL gives home
        is not the layout's ``home_mm``.
        """
        bound = self.homing_bound_s()
        limit = self.homing_wait_s() if timeout_s is None else timeout_s
        started = time.monotonic()
        try:
            self.command("$H", timeout_s=limit, silent=True)
        except GrblError as exc:
            if exc.code == 5:
                raise GrblError(
                    _(
                        "grbl cannot home: homing is off ($22=0); fit limit switches and set $22=1, or place "
                        "the gantry at home by hand and unlock ($X)"
                    ),
                    code=5,
                ) from exc
            raise
        except GrblAlarm as exc:
            if exc.code != 9:
                raise
            # $I shows every build option the table needs but the homing cycle's axes
            raise GrblAlarm(
                _(
                    "{alarm}; the build was checked ({build}), but $I cannot show the homing cycle: a grbl "
                    "built with the stock cycle drives Z first, which has no switch, so check that grbl's "
                    "config.h says #define HOMING_CYCLE_0 (1<<X_AXIS) and #define HOMING_CYCLE_1 (1<<Y_AXIS) "
                    "(docs/raspberry-pi.md)"
                ).format(alarm=exc, build=self.build or "grbl"),
                code=exc.code,
            ) from exc
        except ConnectionLostError as exc:
            if time.monotonic() - started < limit:
                raise  # the port failed: that message says it
            raise self._lost(
                _(
                    "no answer to '$H' within {limit} s, though the homing cycle takes at most {bound} s "
                    "with its settings ($130/$131 travel, $24/$25 rates): grbl has stopped answering (a "
                    "frozen board, or a switch that never closes and a firmware that does not give up); "
                    "switch the machine off and on, check the switches and the cable, then home"
                ).format(limit=decimal(limit), bound=decimal(bound))
            ) from exc
        self._locked = False
        self._check_home(self.status(fresh=True))

    def _check_home(self, status: Status) -> None:
        """After homing GRBL's machine position must be the layout's ``home_mm``, or every coordinate is
        off (a firmware homing to the other end, or without ``HOMING_FORCE_SET_ORIGIN``)."""
        position = status.machine_position()
        if self.layout is None or position is None or len(position) < 2:
            return
        home = self.layout.home_mm
        if math.dist(position[:2], home) <= _HOME_TOLERANCE_MM:
            return
        raise GrblBuildError(
            _(
                "after homing grbl on {url!r} says the magnet is at {position}, but the layout's home_mm is "
                "{home!r}, so every move would go elsewhere: build grbl with #define HOMING_FORCE_SET_ORIGIN "
                "and home towards home_mm ($23, see `chessatron config grbl-settings`), or set home_mm and "
                "envelope_mm in the layout to grbl's coordinates"
            ).format(url=self.url, position=f"X{position[0]:g} Y{position[1]:g}", home=home)
        )

    def unlock(self) -> None:
        """``$X``: leave the alarm state without homing. Only when the user knows where the gantry is."""
        self.command("$X")

    # --- streaming ---------------------------------------------------------------------------------

    def stream(
        self,
        lines: Iterable[str],
        *,
        on_progress: Callable[[StreamProgress], None] | None = None,
        on_host: Callable[[str], None] | None = None,
    ) -> StreamResult:
        """Stream a program with character counting and return how it went (see
        :class:`~chessatron.grbl.charcount.Streamer` for the rules).

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
        self.check_markers(streamer.program, on_host=on_host is not None)
        if self.version is None:
            for warning in self.connect():
                LOGGER.warning("grbl on %s: %s", self.url, warning)
        return StreamRun(
            self,
            streamer,
            on_progress=on_progress,
            on_host=on_host,
            host_magnet=self.host_magnet,
            homing_wait_s=self.homing_wait_s,
        ).run()

    def stream_parts(
        self,
        parts: Iterable[Sequence[str]],
        *,
        lines: int,
        sends: int,
        on_progress: Callable[[StreamProgress], None] | None = None,
        on_host: Callable[[str], None] | None = None,
    ) -> StreamResult:
        """Stream a program too long to hold whole (millions of lines), a part at a time: ``parts`` yields
        its lines in order, a part each (read as they are needed: the parts after one that stopped are
        never read); ``lines`` is how many it has and ``sends`` how many of them are sent (comments are
        not), for the progress.

        Each part goes as :meth:`stream` streams a program (whose rules and result see), numbered on from
        the part before it, with the magnet as that part left it (a drag across two parts still goes one
        accepted line at a time); only the last ends in a ``G4 P0``, so GRBL's buffer stays full from one
        to the next. The result is the whole program's: after a part that stopped, the lines of the parts
        after it are ``pending``. Check the program whole before (:func:`~chessatron.grbl.charcount.
        program_line`, :meth:`check_markers`): a part that cannot be streamed raises only once the parts
        before it ran."""
        if self.version is None:
            for warning in self.connect():
                LOGGER.warning("grbl on %s: %s", self.url, warning)
        started = time.monotonic()
        states: list[LineState] = []
        carried: MagnetState | None = None
        done = StreamProgress(sends, 0, 0, 0, None, 0.0)
        result = StreamResult((), None, 0.0)
        upcoming = iter(parts)
        part = next(upcoming, None)
        while part is not None:
            following = next(upcoming, None)
            streamer = Streamer(
                part, first_line=len(states) + 1, carried=carried, final_sync=following is None
            )
            self.check_markers(streamer.program, on_host=on_host is not None)

            def progress(now: StreamProgress, before: StreamProgress = done) -> None:
                assert on_progress is not None
                sent, answered = before.sent + now.sent, before.answered + now.answered
                elapsed = time.monotonic() - started
                on_progress(StreamProgress(sends, sent, answered, now.line, now.status, elapsed))

            run = StreamRun(
                self,
                streamer,
                on_progress=progress if on_progress is not None else None,
                on_host=on_host,
                host_magnet=self.host_magnet,
                homing_wait_s=self.homing_wait_s,
            )
            result = run.run()
            states.extend(result.states)
            if not result.ok:
                states.extend(["pending"] * (lines - len(states)))
                break
            last = streamer.progress(self.last_status, 0.0)
            done = StreamProgress(sends, done.sent + last.sent, done.answered + last.answered, 0, None, 0.0)
            carried, part = streamer.carried, following
        elapsed = time.monotonic() - started
        return StreamResult(tuple(states), result.error, elapsed, result.unfinished_from)

    def check_markers(self, program: Iterable[ProgramLine], *, on_host: bool) -> None:
        """Raise :class:`~chessatron.errors.ConfigError` for a host marker of ``program`` with nothing to
        run it: ``(MAGNET ON)``/``(MAGNET OFF)`` without a host magnet, ``(HOST name)`` without
        ``on_host``."""
        for program_line in program:
            action = program_line.action
            if action is None:
                continue
            if action.kind != "host" and self.host_magnet is None:
                raise ConfigError(
                    _(
                        "program line {line} marks ({marker}) for a host magnet but the link has none; pass "
                        "host_magnet= (a servo or GPIO magnet), or write the program for the spindle or "
                        "coolant output"
                    ).format(line=action.line, marker=action.name)
                )
            if action.kind == "host" and not on_host:
                raise ConfigError(
                    f"program line {action.line} marks (HOST {action.name}) but stream() got no on_host"
                )


def _settings(messages: Iterable[Message]) -> dict[int, float]:
    """The numeric settings of a ``$$`` answer, by number."""
    return {
        m.number: value for m in messages if isinstance(m, Setting) and (value := m.number_value) is not None
    }
