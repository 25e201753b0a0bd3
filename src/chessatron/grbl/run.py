"""Run a G-code program file on GRBL with a progress bar: what ``chessatron run PROGRAM.gcode`` does.

The progress and the closing line go to ``console`` (stdout); what went wrong, and what is left of the
program, to ``errors`` (stderr), one line each. A stream stopped by Ctrl-C says where the machine is held
and whether a piece may still hang on the magnet.

Before anything moves the program is checked (:mod:`~chessatron.grbl.guard`): a target outside the
table's envelope, a rapid move with the magnet on, or motion that cannot be checked refuses the whole
program, unless ``raw`` (``run --raw``) asks for it to be sent as it is. A long program is read from the
disk as it is needed, never held whole, and says from the start how far it has got: checking it, then
streaming it (:mod:`~chessatron.grbl.programfile`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from ..errors import GrblLockedError, UnsafeGcodeError
from ..i18n import _, ngettext
from ..i18n.formats import decimal
from ..planning.layout import Layout
from ..ports import DeviceUrl, HostMagnet
from ..tablelock import hold_table
from .charcount import StreamProgress, StreamResult
from .estimate import ProgramEstimate, estimate_program
from .link import GrblLink
from .programfile import ProgramCheck, ProgramFile, check_program_file
from .stream_loop import StreamInterrupted

__all__ = ["ESTIMATE_LINES", "host_magnet_for", "run_program", "simulator_url", "stop_summary"]

#: A program of more lines has no estimate of its machine time beforehand (the time model would keep it
#: silent for minutes): its time left is reckoned from the pace of the lines as they run.
ESTIMATE_LINES = 10_000
#: How often a long program's progress is printed as a line where the output is no terminal (seconds).
PLAIN_EVERY_S = 10.0


def host_magnet_for(url: str, layout: Layout) -> HostMagnet | None:
    """The simulator's host magnet for a servo layout on a ``sim://`` port; None otherwise (a real servo
    comes from the machine config, not from here)."""
    if layout.magnet.method != "servo" or not url.lower().startswith("sim://"):
        return None
    from ..sim.grbl import SimHostMagnet
    from ..sim.world import get_world

    return SimHostMagnet(get_world(DeviceUrl.parse(url).target.strip("/") or "default", layout))


def simulator_url(url: str, speed: float | None) -> str:
    """``url`` (a ``sim://`` one) running at ``speed`` (a factor; None: as fast as the host can), unless
    the URL sets its own speed.

    >>> simulator_url("sim://", None), simulator_url("sim://bench?homing=0", 8.0)
    ('sim://?speed=max', 'sim://bench?homing=0&speed=8')
    """
    if "speed=" in url:
        return url
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}speed={'max' if speed is None else format(speed, 'g')}"


def stop_summary(result: StreamResult) -> str:
    """What is known to have run of a program that stopped: the lines GRBL ran to their end, and those it
    had taken but may not have finished (an alarm or a lost connection stops them short).

    >>> stop_summary(StreamResult(("ok", "ok", "error", "pending"), None, 0.0))
    'lines 1 to 2 ran'
    >>> stop_summary(StreamResult(("error", "pending"), None, 0.0))
    'no line of the program ran'
    >>> stop_summary(StreamResult(("ok", "ok", "ok", "pending"), None, 0.0, unfinished_from=2))
    'line 1 ran; grbl had taken lines 2 to 3 too, but stopped before it had run them all'
    """
    done = result.completed_through
    cut = result.unfinished_from
    if cut is not None and cut <= done:
        if cut == 1:
            taken = (
                _("grbl had taken line {line}, but stopped before it had run them all")
                if cut == done
                else _("grbl had taken lines {first} to {last}, but stopped before it had run them all")
            )
            return taken.format(line=cut, first=cut, last=done)
        taken = (
            _("grbl had taken line {line} too, but stopped before it had run them all")
            if cut == done
            else _("grbl had taken lines {first} to {last} too, but stopped before it had run them all")
        )
        return f"{_ran(cut - 1)}; {taken.format(line=cut, first=cut, last=done)}"
    if done == 0:
        return _("no line of the program ran")
    return _ran(done)


def _ran(last: int) -> str:
    """Lines 1 to ``last`` ran, in words."""
    return _("line 1 ran") if last == 1 else _("lines 1 to {last} ran").format(last=last)


class _TimeLeft(ProgressColumn):
    """The machine time the program still needs, by the time model, at the speed it runs: what is left
    from the start of the line running, less the time it has run (a long drag counts down too)."""

    def __init__(self, estimate: ProgramEstimate, speed: float) -> None:
        super().__init__()
        self.estimate, self.speed = estimate, speed
        self._line, self._since = 0, time.monotonic()

    def render(self, task: Task) -> Text:
        line = int(task.fields.get("line") or 0)
        now = time.monotonic()
        if line != self._line:
            self._line, self._since = line, now
        before, after = self.estimate.remaining_s(line - 1), self.estimate.remaining_s(line)
        left = max(before - (now - self._since) * self.speed, after) / self.speed
        if task.finished or left <= 0:
            return Text("")
        # TRANSLATORS: the time a program still needs, e.g. "about 1:05 left" (minutes:seconds)
        return Text(_("about {duration} left").format(duration=_duration(left)), style="cyan")


def _duration(seconds: float) -> str:
    """``0:42``, ``12:05``, ``1:02:09``."""
    whole = math.ceil(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def run_program(
    path: Path,
    *,
    url: str,
    layout: Layout,
    console: Console | None = None,
    errors: Console | None = None,
    host_magnet: HostMagnet | None = None,
    home: bool = True,
    timeout_s: float = 2.0,
    speed: float | None = 1.0,
    raw: bool = False,
) -> StreamResult:
    """Connect to GRBL at ``url``, print the settings warnings, home (if ``home`` and homing is enabled),
    then stream ``path`` with a progress bar and the time left, and print how it ended. Returns the
    result; the caller decides the exit status (``result.raise_for_error()``). ``speed``: how many times
    faster than real time the machine runs (the simulator's; None: as fast as it can), for the time left.

    The program is checked whole before anything moves (a large file with a progress bar, read from the
    disk as it is needed: :mod:`~chessatron.grbl.programfile`): every line streamable and, unless ``raw``,
    the guard's rules (from home if it homes, else once connected from where the gantry stands):
    :class:`~chessatron.errors.UnsafeGcodeError` names the lines that would leave the envelope, move at
    rapid with the magnet on, or move where the check cannot follow
    (:func:`~chessatron.grbl.guard.check_program`). The machine is the table's while the program runs: a
    second program that would drive it is refused (:mod:`chessatron.tablelock`).

    Raises :class:`~chessatron.errors.ConfigError` for an unreadable file,
    :class:`~chessatron.errors.GcodeError` for a line that cannot be streamed,
    :class:`~chessatron.errors.TableInUseError` when another program drives the machine, the link's
    errors for a failed connection or homing, :class:`~chessatron.errors.GrblLockedError` when GRBL is
    locked and the program needs it unlocked (homing is off, or ``home`` is False and the program moves),
    and :class:`~chessatron.grbl.stream_loop.StreamInterrupted` (after saying where the machine is held)
    when Ctrl-C stops the stream.
    """
    console = console or Console(highlight=False)
    errors = errors or Console(highlight=False, stderr=True)
    program = ProgramFile.open(path)
    magnet = host_magnet if host_magnet is not None else host_magnet_for(url, layout)
    # before connecting, as it will start homed
    check = _check(program, layout, layout.home_mm, home and not raw, magnet is not None, console)
    with hold_table(url), GrblLink(url, layout=layout, host_magnet=magnet, timeout_s=timeout_s) as link:
        for warning in link.connect():
            # TRANSLATORS: the label before a warning about grbl's settings or build
            errors.print(f"[yellow]{escape(_('warning:'))}[/yellow] {escape(warning)}")
        console.print(
            _("grbl {version} on {url}").format(version=escape(link.version or "?"), url=escape(url))
        )
        homing = home and link.settings.get(22) == 1
        if not (raw or homing):  # it starts where the gantry stands: check from there, before it moves
            check = _check(
                program, layout, _position(link) or layout.home_mm, True, magnet is not None, console
            )
        if home:
            if homing:
                # grbl answers nothing while it homes: say how long the wait may be
                console.print(
                    _("homing… (grbl is silent until it is done: up to {seconds} s)").format(
                        seconds=decimal(link.homing_bound_s())
                    )
                )
            link.ready(home=homing)  # locked with homing off: GrblLockedError says what to do
        elif link.is_locked and check.moves:
            raise GrblLockedError(
                _(
                    "grbl on {url!r} is locked in its alarm state and --no-home leaves it so: it would "
                    "refuse every line of {name!r} but $ settings; run it without --no-home to home first, "
                    "or unlock it ($X) once the gantry stands at home"
                ).format(url=url, name=path.name)
            )
        estimate: ProgramEstimate | None = None
        if check.lines <= ESTIMATE_LINES:
            estimate = estimate_program(list(program.lines()), layout, _position(link) or layout.home_mm)
        if estimate is not None and estimate.total_s > 0:
            if speed == 1.0:
                said = ngettext(
                    "{count} line, about {duration} of machine time",
                    "{count} lines, about {duration} of machine time",
                    check.lines,
                )
            elif speed is None:
                said = ngettext(
                    "{count} line, about {duration} of machine time (as fast as it can go)",
                    "{count} lines, about {duration} of machine time (as fast as it can go)",
                    check.lines,
                )
            else:
                said = ngettext(
                    "{count} line, about {duration} of machine time (at {speed}x)",
                    "{count} lines, about {duration} of machine time (at {speed}x)",
                    check.lines,
                )
            duration = _duration(estimate.total_s)
            console.print(said.format(count=check.lines, duration=duration, speed=format(speed or 1.0, "g")))
        elif estimate is None:
            console.print(
                ngettext(
                    "{count} line; the time left is reckoned from its pace as it runs",
                    "{count} lines; the time left is reckoned from their pace as they run",
                    check.lines,
                ).format(count=decimal(check.lines))
            )
        columns: list[ProgressColumn] = [
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            # TRANSLATORS: a progress bar's column: the program line running
            TextColumn(_("line {line}").replace("{line}", "{task.fields[line]}")),
            TimeElapsedColumn(),
        ]
        if estimate is not None and estimate.total_s > 0 and speed is not None:
            columns.append(_TimeLeft(estimate, speed))
        elif estimate is None:
            columns.append(TimeRemainingColumn())
        progress = Progress(*columns, console=console)
        try:
            with progress:
                task = progress.add_task(escape(path.name), total=check.sends, line=0)
                plain = _PlainProgress(console, program)

                def advance(p: StreamProgress) -> None:
                    progress.update(task, total=p.total, completed=p.answered, line=p.line)
                    plain.say(
                        lambda: _("{name}: line {line} of {count} ran").format(
                            name=path.name, line=decimal(p.line), count=decimal(check.lines)
                        )
                    )

                result = link.stream_parts(
                    program.parts(), lines=check.lines, sends=check.sends, on_progress=advance
                )
        except StreamInterrupted as stop:
            errors.print(_interrupted(stop), markup=False)
            raise
    if result.ok:
        console.print(
            ngettext(
                "ran {count} line in {seconds} s", "ran {count} lines in {seconds} s", check.lines
            ).format(count=check.lines, seconds=decimal(result.elapsed_s, 1))
        )
    else:
        # TRANSLATORS: the label before what stopped a program
        errors.print(f"[red]{escape(_('stopped:'))}[/red] {escape(str(result.error))}")
        errors.print(stop_summary(result), markup=False)
    return result


def _check(
    program: ProgramFile,
    layout: Layout,
    start_mm: tuple[float, float],
    guard: bool,
    host_magnet: bool,
    console: Console,
) -> ProgramCheck:
    """Check ``program`` (:func:`check_program_file`), with a progress bar for one read from the disk;
    raise :class:`~chessatron.errors.UnsafeGcodeError` naming the first lines the guard refuses."""
    if program.whole:
        check = check_program_file(program, layout, start_mm, guard=guard, host_magnet=host_magnet)
    else:
        megabytes = program.size / 1e6
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            # TRANSLATORS: megabytes of a program file checked, of its size
            TextColumn(
                _("{done}/{size} MB")
                .replace("{done}", "{task.fields[done]}")
                .replace("{size}", "{task.fields[size]}")
            ),
            TimeElapsedColumn(),
            console=console,
        ) as bar:
            task = bar.add_task(
                _("checking {name}").format(name=escape(program.path.name)),
                total=program.size,
                done=decimal(0.0, 1),
                size=decimal(megabytes, 1),
            )

            plain = _PlainProgress(console, program)

            def read(done: int) -> None:
                bar.update(task, completed=done, done=decimal(done / 1e6, 1))
                plain.say(
                    lambda: _("checking {name}: {done} of {size} MB").format(
                        name=program.path.name, done=decimal(done / 1e6, 1), size=decimal(megabytes, 1)
                    )
                )

            check = check_program_file(
                program, layout, start_mm, guard=guard, host_magnet=host_magnet, on_bytes=read
            )
    if check.refused:
        shown = "; ".join(str(refusal) for refusal in check.refusals)
        more = check.refused - len(check.refusals)
        if more > 0:
            shown = ngettext("{refused} (and {count} more)", "{refused} (and {count} more)", more).format(
                refused=shown, count=more
            )
        raise UnsafeGcodeError(
            _(
                "{name!r} is not sent to the machine: {refused}; nothing moved. Fix the program, or send it "
                "as it is with --raw (only grbl's soft limits, $20=1, then stand between it and the frame)"
            ).format(name=program.path.name, refused=shown),
            lines=tuple(refusal.line for refusal in check.refusals),
        )
    return check


class _PlainProgress:
    """Where a long program has got, as a plain line every :data:`PLAIN_EVERY_S` seconds, for output that
    is no terminal (a log, a pipe): there the progress bar shows only once it is done."""

    def __init__(self, console: Console, program: ProgramFile) -> None:
        self.console = console
        self.wanted = not program.whole and not console.is_terminal
        self.last = time.monotonic()

    def say(self, line: Callable[[], str]) -> None:
        if self.wanted and time.monotonic() - self.last >= PLAIN_EVERY_S:
            self.last = time.monotonic()
            self.console.print(line(), markup=False, highlight=False)


def _interrupted(stop: StreamInterrupted) -> str:
    """What Ctrl-C left: the machine held where it stopped, and the magnet."""
    if not stop.held:
        state = (
            _(
                "interrupted in program line {line}; the feed hold could not be sent: switch the machine off "
                "to stop it"
            )
            if stop.line is not None
            else _("interrupted; the feed hold could not be sent: switch the machine off to stop it")
        )
    else:
        state = (
            _(
                "interrupted in program line {line}: grbl is held where it stopped (feed hold, the position "
                "kept)"
            )
            if stop.line is not None
            else _("interrupted: grbl is held where it stopped (feed hold, the position kept)")
        )
    if stop.magnet_may_be_on:
        magnet = _(
            "the magnet may still be on with a piece on it: to drop the piece there, reset grbl "
            "(Ctrl-X in a sender) or switch the machine off"
        )
    else:
        magnet = _("the magnet is off")
    return f"{state.format(line=stop.line)}; {magnet}"


def _position(link: GrblLink) -> tuple[float, float] | None:
    status = link.last_status
    position = status.machine_position() if status is not None else None
    return (position[0], position[1]) if position is not None and len(position) >= 2 else None
