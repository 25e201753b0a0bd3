"""``chessatron hw calibrate``: the table finds its sensors' wiring, its LED chain, where the board lies
under the gantry and the magnet's pull, with the person's help, each part written into the config (or the
layout) as soon as it is done, the previous file kept.

On the simulator the table can be built wrong on purpose (``--wrong FAULT,…`` or ``--seed N``: see
:mod:`chessatron.sim.wiring` and :mod:`chessatron.sim.wrong_gantry`; kept between commands, so that later
ones, a game too, see the same table) and a simulated person can follow the instructions (``--hand``);
without ``--hand`` the simulated table's hands still move the pieces it asks for, the terminal says where
the magnet really is, and the person at the terminal answers.

The board and the magnet are written into the layout file the config's ``layout =`` names; with the
built-in layout, into ``table.toml`` beside the config, which ``layout =`` then names.
"""

from __future__ import annotations

import logging
import re
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import chess
import click
from rich.console import Console, RenderableType

from ..calibrate.person import Person, Stopped
from ..config import Config, default_config_path
from ..config_write import save_settings, settings_in
from ..errors import ChessatronError
from ..i18n import N_, _
from ..planning.layout import Cell
from ..ports import RGB, DeviceUrl
from ..render import terminal_console
from .common import EXIT_STOPPED, config_option, friendly
from .main import Command

LOGGER = logging.getLogger(__name__)

#: The parts, in the order ``all`` runs them: the sensors first, which the LEDs' part may use.
PARTS = ("sensors", "leds", "board", "magnet")


@click.command(
    "calibrate",
    cls=Command,
    help=N_(
        "Calibrate the table with your help: which input each sensor is on, the LEDs' chain, the board "
        "under the gantry, the magnet's pull (PART: sensors, leds, board, magnet or all, the default).\n\n"
        "Each part writes what it learnt into the config (the board and the magnet: into the layout) as "
        "soon as it is done, the previous file kept beside it as .bak; Ctrl-C stops the part under way and "
        "writes nothing of it. Run it again at any time."
    ),
)
@click.argument("parts", nargs=-1, type=click.Choice([*PARTS, "all"]))
@click.option(
    "--hand",
    is_flag=True,
    help=N_("On the simulator: a simulated person follows the instructions and answers."),
)
@click.option(
    "--wrong",
    metavar="FAULT,...",
    default=None,
    help=N_(
        "On the simulator: build the table wrong first, with these faults "
        "(e.g. ports-swapped,leds-serpentine,board-offset,board-turned,magnet-weak)."
    ),
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help=N_("On the simulator: build the table wrong at random from this seed."),
)
@config_option
@friendly
def calibrate_command(
    parts: tuple[str, ...], hand: bool, wrong: str | None, seed: int | None, config_path: Path | None
) -> None:
    # (the help is the command's decorator's, marked for translation)
    from ..sim.state import default_state_path
    from ..tablelock import hold_table, table_url

    chosen = [p for p in PARTS if p in parts or "all" in parts or not parts]
    path = config_path or default_config_path()
    settings = Config.load(config_path)
    console = terminal_console()
    simulated = {kind: DeviceUrl.parse(url).scheme == "sim" for kind, url in settings.urls.items()}
    on_sim = simulated["sensors"] or simulated["leds"] or simulated["grbl"]
    if (hand or wrong is not None or seed is not None) and not on_sim:
        raise click.UsageError(_("--hand, --wrong and --seed are for a simulated table (sim:// devices)"))
    with ExitStack() as stack:
        # one program drives the table at a time (the simulated one: the table saved between commands)
        stack.enter_context(
            hold_table(table_url(settings.urls), state=default_state_path() if on_sim else None)
        )
        bench = _Bench(settings, path, console, stack)
        if on_sim:
            bench.simulate(wrong, seed)
        person = bench.person(hand, seed)
        for part in chosen:
            console.rule(part)
            try:
                done = bench.run(part, person)
            except (Stopped, KeyboardInterrupt):
                console.print(
                    _("Stopped: nothing of the {part} part was written; run it again at any time.").format(
                        part=part
                    )
                )
                sys.exit(EXIT_STOPPED)
            if not done:
                continue
            bench.settings = Config.load(path)


class _Bench:
    """The devices a calibration opens, and on the simulator its world and how it was really built."""

    def __init__(self, settings: Config, path: Path, console: Console, stack: ExitStack) -> None:
        self.settings = settings
        self.path = path
        self.console = console
        self.stack = stack
        self.world: Any = None
        self.wiring: Any = None
        self.hands: Any = None
        self.strip: Any = None
        self.sensors_done = False
        self.gantry: Any = None

    def simulate(self, wrong: str | None, seed: int | None) -> None:
        from ..calibrate.simperson import SimHands
        from ..sim.wiring import build_wrong, load_wiring, save_wiring
        from ..sim.world import register_world

        layout = self.settings.layout
        if wrong is not None or seed is not None:
            self.wiring = build_wrong(layout, wrong, seed=seed)
            save_wiring(self.wiring, layout)
            LOGGER.info("simulated table built wrong: %s", "; ".join(self.wiring.faults))
            self.console.print(_("The simulated table was built wrong on purpose; calibrate it."))
        else:
            self.wiring = load_wiring(layout)
        name = DeviceUrl.parse(self.settings.urls["sensors"]).target.strip("/") or "default"
        self.world = register_world(self.wiring.world(layout, name=name))
        self.hands = SimHands(self.world, lit=self.lit_cell)

    def lit(self) -> dict[Cell, RGB]:
        """The cells the simulated LEDs really light now, through the chain as it was built."""
        from ..feedback.leds import SimLedStrip, unpack

        if not isinstance(self.strip, SimLedStrip) or self.wiring is None:
            return {}
        chain = self.wiring.leds.cells
        shown = self.strip.pixels.shown
        return {
            chain[i]: unpack(c) for i, c in enumerate(shown) if c and i < len(chain) and chain[i] is not None
        }

    def lit_cell(self) -> Cell | None:
        cells = list(self.lit())
        return cells[0] if len(cells) == 1 else None

    def picture(self) -> RenderableType | None:
        from ..feedback.view import leds_panel

        lit = self.lit()
        return leds_panel(lit, self.settings.layout, title=_("the LEDs as they light")) if lit else None

    def seen(self, question: str) -> str | None:
        """Where the simulated magnet really is from the centre of the square ``question`` names, as a
        person beside the table sees it (from white's side)."""
        found = re.search(r"\b([a-h][1-8])\b", question)
        if self.world is None or found is None:
            return None
        layout = self.world.layout
        with self.world.lock:
            magnet = self.world.twin.magnet_xy
        centre = layout.node_mm(layout.square_node(chess.parse_square(found.group(1))))
        (cx, cy), (mx, my) = layout.machine_to_table(centre), layout.machine_to_table(magnet)
        return _(
            "On the simulated table the centre of {square} is {right} mm toward the h-file and {up} mm "
            "toward the 8th rank from the magnet."
        ).format(square=found.group(1), right=f"{cx - mx:+.2f}", up=f"{cy - my:+.2f}")

    def person(self, hand: bool, seed: int | None) -> Person:
        def echo(text: str) -> None:
            self.console.print(text, markup=False, highlight=False)

        if hand:
            from ..calibrate.simperson import SimMaker, SimPerson
            from ..sim.calibration_person import GantryPerson

            return SimMaker(
                SimPerson(self.settings.layout, self.wiring, lit=self.lit, echo=echo),
                GantryPerson(self.world, seed=seed or 0),
                echo=echo,
            )
        from ..calibrate.terminal import TerminalPerson

        simulated = self.world is not None
        return TerminalPerson(
            self.console,
            picture=self.picture if simulated else None,
            look=self.seen if simulated else None,
        )

    def run(self, part: str, person: Person) -> bool:
        """Run one part and write what it learnt; False when it could not run here."""
        from ..calibrate.simperson import SimMaker

        if isinstance(person, SimMaker):
            person.part = part
        if part == "sensors":
            return self.sensors(person)
        if part == "leds":
            return self.leds(person)
        if part == "board":
            return self.board(person)
        return self.magnet(person)

    def sensors(self, person: Person) -> bool:
        from ..calibrate.sensors import SensorTable, calibrate_sensors, write_sensors
        from ..sensors import open_sensor
        from ..sensors.mcp23017 import Mcp23017Sensor
        from ..sim.wiring import SimInputs

        settings = self.settings
        url = settings.urls["sensors"]
        scheme = DeviceUrl.parse(url).scheme
        if scheme == "sim":
            table = SensorTable(
                settings.layout,
                SimInputs(self.world, self.wiring.sensors, seed=0),
                self.hands,
                wait_s=0.0,
                gap_s=0.0,
            )
        elif scheme == "mcp23017":
            device = self.stack.enter_context(open_sensor(url, settings.layout))
            assert isinstance(device, Mcp23017Sensor)
            table = SensorTable(settings.layout, _ExpanderInputs(device))
        else:
            self.console.print(
                _(
                    "Sensors on {scheme}:// are wired as their firmware says; there is nothing to calibrate."
                ).format(scheme=scheme)
            )
            return False
        result = calibrate_sensors(table, person)
        for finding in result.findings:
            self.console.print(_("Look at: {finding}").format(finding=finding), markup=False)
        saved = write_sensors(result, self.path, url, settings.layout)
        self._said(saved.config, saved.config_backup, saved.file, saved.file_backup)
        self.sensors_done = True
        return True

    def leds(self, person: Person) -> bool:
        from ..calibrate.leds import LedTable, calibrate_leds, write_leds
        from ..feedback.leds import PixelLedStrip, open_leds
        from ..sensors import open_sensor

        settings = self.settings
        url = settings.urls["leds"]
        if DeviceUrl.parse(url).scheme == "none":
            self.console.print(_("There are no LEDs in the config; nothing to calibrate."))
            return False
        strip = self.stack.enter_context(open_leds(url, settings.layout))
        assert isinstance(strip, PixelLedStrip)
        self.strip = strip
        sensors = None
        if self.sensors_done:
            world = self.world if DeviceUrl.parse(settings.urls["sensors"]).scheme == "sim" else None
            sensors = self.stack.enter_context(
                open_sensor(settings.urls["sensors"], settings.layout, world=world)
            )
        wait_s = 0.0 if self.world is not None else 30.0
        table = LedTable(settings.layout, strip, strip.mapping.count, sensors, self.hands, wait_s=wait_s)
        result = calibrate_leds(table, person)
        for finding in result.findings:
            self.console.print(_("Look at: {finding}").format(finding=finding), markup=False)
        saved = write_leds(result, self.path, url, settings.layout)
        self._said(saved.config, saved.config_backup, saved.file, saved.file_backup)
        return True

    def gantry_table(self) -> Any:
        """The gantry, opened (and homed) once for the board and the magnet; None without one."""
        from ..calibrate.machine import GantryTable

        if self.gantry is None:
            if DeviceUrl.parse(self.settings.urls["grbl"]).scheme == "none":
                self.console.print(_("There is no gantry in the config; the board and the magnet need one."))
                return None
            self.gantry = self.stack.enter_context(GantryTable.open(self.settings))
        return self.gantry

    def layout_file(self) -> tuple[Path, bool]:
        """The layout file the board and the magnet are written to, and whether the config names it
        already (if not: ``table.toml`` beside the config, which ``layout =`` is then set to)."""
        named = settings_in(self.path).get("layout")
        if isinstance(named, str) and named.strip():
            file = Path(named)
            return (file if file.is_absolute() else self.path.parent / file), True
        return self.path.parent / "table.toml", False

    def _write_layout(self, write: Any, result: Any) -> None:
        """``write(result, file)`` into the layout file, the config pointed at it, what was written said;
        the gantry's layout is the written one from now on."""
        file, named = self.layout_file()
        written = write(result, file)
        config, backup = None, None
        if not named:
            saved = save_settings(self.path, {"layout": file.name})
            config, backup = saved.path, saved.previous
        self.console.print(_("Written: {file}").format(file=written.path), markup=False, soft_wrap=True)
        if config is not None:
            self.console.print(_("Written: {config}").format(config=config), markup=False, soft_wrap=True)
        for kept in (written.previous, backup):
            if kept is not None:
                said = _("The previous one is kept as {kept}").format(kept=kept)
                self.console.print(said, markup=False, soft_wrap=True)
        self.gantry.layout = written.layout
        self.gantry.layout_path = file

    def board(self, person: Person) -> bool:
        from ..calibrate.board import calibrate_board, write_board

        table = self.gantry_table()
        if table is None:
            return False
        result = calibrate_board(table, person)
        if not result.confirmed:
            self.console.print(
                _(
                    "Look at: the magnet missed {places} on the board as measured; it is written anyway: "
                    "run `chessatron hw calibrate board` again to measure it once more."
                ).format(places=", ".join(result.missed)),
                markup=False,
            )
        self._write_layout(write_board, result)
        return True

    def magnet(self, person: Person) -> bool:
        from ..calibrate.magnet import calibrate_magnet, write_magnet

        table = self.gantry_table()
        if table is None:
            return False
        result = calibrate_magnet(table, person)
        if result.carry_feed_mm_min is None:
            self.console.print(
                _("Nothing of the magnet part was written: no drag speed carried the piece."), markup=False
            )
            return False
        self._write_layout(write_magnet, result)
        return True

    def _said(self, config: Path, backup: Path | None, file: Path | None, file_backup: Path | None) -> None:
        if file is not None:
            self.console.print(_("Written: {file}").format(file=file), markup=False, soft_wrap=True)
        self.console.print(_("Written: {config}").format(config=config), markup=False, soft_wrap=True)
        for kept in (backup, file_backup):
            if kept is not None:
                said = _("The previous one is kept as {kept}").format(kept=kept)
                self.console.print(said, markup=False, soft_wrap=True)


class _ExpanderInputs:
    """A real table's expanders, read bit by bit."""

    def __init__(self, sensor: Any) -> None:
        from ..sensors.pinmap import Pin

        self.sensor = sensor
        self.inputs = tuple(
            Pin(index, port, bit)
            for index in range(len(sensor.addresses))
            for port in ("A", "B")
            for bit in range(8)
        )

    def read(self) -> Any:
        return self.sensor.low_pins()

    def address(self, pin: Any) -> int:
        return int(self.sensor.addresses[pin.expander])


def offer_calibration(failed: list[str], yes: bool, config_path: Path | None) -> None:
    """After ``hw test``: when the sensors or the LEDs failed, say which part of ``hw calibrate`` finds
    their right values, and offer to run it."""
    parts = [part for part in ("sensors", "leds") if part in failed]
    if not parts:
        return
    click.echo(
        _("`chessatron hw calibrate {parts}` finds their right values with you.").format(
            parts=" ".join(parts)
        )
    )
    if yes or not sys.stdin.isatty():
        return
    if click.confirm(_("Calibrate them now?"), default=False):
        args = list(parts) + (["--config", str(config_path)] if config_path else [])
        try:
            calibrate_command.main(args, standalone_mode=False)
        except ChessatronError as exc:
            click.echo(f"chessatron: {exc}", err=True)
