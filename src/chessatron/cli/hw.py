"""The machine's own commands: ``hw test``, ``run`` (a G-code program) and ``sim-grbl`` (the simulated GRBL
on a pseudo-terminal)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import Config
from ..i18n import N_, _
from ..render import terminal_console
from .calibrate import calibrate_command, offer_calibration
from .common import (
    EXIT_STOPPED,
    READ_FILE,
    SPEED_HELP,
    config_option,
    friendly,
    layout_option,
    load_layout,
    parse_speed,
    speed_option,
)
from .helptext import composed
from .main import main


@main.command(
    "sim-grbl",
    help=N_(
        "Run the simulated GRBL on a pseudo-terminal so any GRBL sender can talk to it.\n\n"
        "Prints the device path as its first line and serves until interrupted."
    ),
)
@click.option(
    "--pty", "use_pty", is_flag=True, required=True, help=N_("Serve on a pseudo-terminal (required).")
)
@speed_option("sender")
@click.option("--world", default="default", show_default=True, help=N_("Name of the simulated table."))
@click.option("--no-homing", is_flag=True, help=N_("Start unlocked, as GRBL with homing disabled ($22=0)."))
@layout_option
@friendly
def sim_grbl(use_pty: bool, speed_text: str, world: str, no_homing: bool, layout_path: Path | None) -> None:
    from ..grbl.pty import serve_pty
    from ..sim.world import get_world

    serve_pty(get_world(world, load_layout(layout_path)), speed=parse_speed(speed_text), homing=not no_homing)


@main.command(
    help=N_(
        "Stream a G-code file to the machine; exit 0 when GRBL has finished it, non-zero on error: or "
        "ALARM:. Ctrl-C holds the machine where it is (feed hold) and says whether the magnet may still be "
        "on.\n\n"
        "Before anything moves the program is checked: a target outside the table's envelope, a rapid "
        "move (G0) with the magnet on, or motion that cannot be checked (arcs, G28/G30, offsets) refuses "
        "it; --raw sends it as it is."
    )
)
@click.argument("program", metavar="PROGRAM.gcode", type=READ_FILE)
@click.option(
    "--port", default=None, help=N_("GRBL's serial port or pyserial URL (default: the config's, sim://).")
)
@click.option("--no-home", is_flag=True, help=N_("Do not home before streaming, even if homing is enabled."))
@click.option(
    "--raw",
    is_flag=True,
    help=N_(
        "Send the program as it is: no check that it stays inside the table's envelope, never moves at "
        "rapid (G0) with the magnet on, and moves only as G0/G1 (arcs, G28, offsets). For a maker who knows."
    ),
)
@click.option(
    "--speed",
    "speed_text",
    metavar="FACTOR|max",
    default=None,
    help=composed(
        SPEED_HELP, N_("The default is the sim:// URL's speed=, or else 1: the real machine's timing.")
    ),
)
@config_option
@layout_option
@friendly
def run(
    program: Path,
    port: str | None,
    no_home: bool,
    raw: bool,
    speed_text: str | None,
    config_path: Path | None,
    layout_path: Path | None,
) -> None:
    from ..gantry.magnet import open_magnet
    from ..grbl.run import run_program, simulator_url
    from ..grbl.stream_loop import StreamInterrupted
    from ..ports import DeviceUrl

    settings = Config.load(config_path)
    layout = load_layout(layout_path) if layout_path is not None else settings.layout
    url = port or settings.urls["grbl"]
    device = DeviceUrl.parse(url)
    speed: float | None = 1.0
    if speed_text is not None:
        if device.scheme != "sim":
            raise click.BadParameter(
                _(
                    "only the simulator (sim://) runs at another speed; {url!r} is a machine, which runs at "
                    "its own pace"
                ).format(url=url),
                param_hint="--speed",
            )
        speed = parse_speed(speed_text)
        url = simulator_url(url, speed)
    elif device.scheme == "sim" and "speed" in device.params:
        speed = parse_speed(device.params["speed"])
    console, errors = terminal_console(), terminal_console(stderr=True)
    magnet_url = settings.urls["magnet"]
    try:
        if layout.magnet.method == "servo" and not magnet_url.startswith("sim"):
            with open_magnet(magnet_url) as magnet:
                result = run_program(
                    program,
                    url=url,
                    layout=layout,
                    home=not no_home,
                    host_magnet=magnet,
                    console=console,
                    errors=errors,
                    speed=speed,
                    raw=raw,
                )
        else:
            result = run_program(
                program,
                url=url,
                layout=layout,
                home=not no_home,
                console=console,
                errors=errors,
                speed=speed,
                raw=raw,
            )
    except StreamInterrupted:
        sys.exit(EXIT_STOPPED)  # what the machine was left in is said already
    if not result.ok:
        sys.exit(1)


@main.group(
    short_help=N_("Walk through the hardware, device by device (hw test)."), help=N_("Hardware tools.")
)
def hw() -> None:
    pass


hw.add_command(calibrate_command)


@hw.command(
    "test",
    help=N_(
        "Walk through the build: GRBL and homing, the magnet to each corner, LEDs, sensors, display, buzzer, "
        "buttons, speaker and microphone."
    ),
)
@click.option("--yes", is_flag=True, help=N_("Answer yes to every question (for scripts)."))
@click.option(
    "--only",
    multiple=True,
    type=click.Choice(
        ["gantry", "magnet", "leds", "sensors", "display", "buzzer", "buttons", "speech", "microphone"]
    ),
    help=N_("Walk through this step only (give it again for more steps: --only leds --only sensors)."),
)
@click.option(
    "--seconds",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help=N_("How long to show the sensors live."),
)
@config_option
@friendly
def hw_test(yes: bool, only: tuple[str, ...], seconds: float, config_path: Path | None) -> None:
    from ..hwtest import hardware_test, step_title
    from ..tablelock import hold_table, table_url

    settings = Config.load(config_path)
    console = terminal_console()

    def ask(question: str) -> bool:
        return yes or click.confirm(question, default=True)

    with hold_table(table_url(settings.urls)):  # (on the simulator a table of its own: no lock)
        results = hardware_test(
            settings, console=console, ask=ask, sensor_seconds=seconds, only=set(only) or None
        )
    failed = [r.name for r in results if not r.ok]
    counts = {
        "ok": len(results) - len(failed),
        "count": len(results),
        "failed": ", ".join(step_title(name) for name in failed),
    }
    said = _("{ok} of {count} steps ok; failed: {failed}") if failed else _("{ok} of {count} steps ok")
    console.print(said.format(**counts), markup=False)
    offer_calibration(failed, yes, config_path)
    if failed:
        sys.exit(1)
