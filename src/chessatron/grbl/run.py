"""Run a G-code program file on GRBL with a progress bar: what ``chessatron run PROGRAM.gcode`` does."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .. import files
from ..planning.layout import Layout
from ..ports import DeviceUrl, HostMagnet
from .link import GrblLink
from .stream import StreamProgress, StreamResult

__all__ = ["host_magnet_for", "read_program", "run_program"]


def read_program(path: Path) -> list[str]:
    """The lines of a program file. Raises :class:`~chessatron.errors.ConfigError` if it cannot be read."""
    return files.read_text(path, files.PROGRAM).splitlines()


def host_magnet_for(url: str, layout: Layout) -> HostMagnet | None:
    """The simulator's host magnet for a servo layout on a ``sim://`` port; None otherwise (a real servo
    comes from the machine config, not from here)."""
    if layout.magnet.method != "servo" or not url.lower().startswith("sim://"):
        return None
    from ..sim.grbl import SimHostMagnet
    from ..sim.world import get_world

    return SimHostMagnet(get_world(DeviceUrl.parse(url).target.strip("/") or "default", layout))


def run_program(
    path: Path,
    *,
    url: str,
    layout: Layout,
    console: Console | None = None,
    host_magnet: HostMagnet | None = None,
    home: bool = True,
    timeout_s: float = 2.0,
) -> StreamResult:
    """Connect to GRBL at ``url``, print the settings warnings, home (if ``home`` and homing is enabled),
    then stream ``path`` with a progress bar and print how it ended. Returns the result; the caller
    decides the exit status (``result.raise_for_error()``).

    Raises :class:`~chessatron.errors.ConfigError` for an unreadable file,
    :class:`~chessatron.errors.GcodeError` for a line that cannot be streamed, the link's errors for a
    failed connection or homing, and :class:`~chessatron.errors.GrblLockedError` when GRBL is locked,
    homing is off and ``home`` asked for a usable machine.
    """
    console = console or Console(highlight=False)
    lines = read_program(path)
    magnet = host_magnet if host_magnet is not None else host_magnet_for(url, layout)
    with GrblLink(url, layout=layout, host_magnet=magnet, timeout_s=timeout_s) as link:
        for warning in link.connect():
            console.print(f"[yellow]warning:[/yellow] {warning}")
        console.print(f"grbl {link.version} on {url}")
        if home:
            homing = link.settings.get(22) == 1
            if homing:
                # grbl answers nothing while it homes: say how long the wait may be
                console.print(
                    f"homing… (grbl is silent until it is done: up to {link.homing_bound_s():.0f} s)"
                )
            link.ready(home=homing)  # locked with homing off: GrblLockedError says what to do
        elif link.is_locked:
            console.print(
                "[yellow]warning:[/yellow] grbl is locked in its alarm state: it takes $ commands only, "
                "until it is homed ($H) or unlocked ($X)"
            )
        progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("line {task.fields[line]}"),
            TimeElapsedColumn(),
            console=console,
        )
        with progress:
            task = progress.add_task(path.name, total=None, line=0)

            def advance(p: StreamProgress) -> None:
                progress.update(task, total=p.total, completed=p.answered, line=p.line)

            result = link.stream(lines, on_progress=advance)
    if result.ok:
        console.print(f"ran {len(lines)} lines in {result.elapsed_s:.1f} s")
    else:
        console.print(f"[red]stopped:[/red] {result.error}")
        console.print(f"lines 1 to {result.completed_through} completed")
    return result
