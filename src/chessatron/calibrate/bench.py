"""One bench for ``chessatron hw calibrate`` and the web page's calibration: the devices each part opens
from the machine config (the sensors' inputs, the LED strip, the gantry), the part run with a
:class:`~.person.Person`, what it learnt written, and what was written said as an :class:`Outcome`. The
command shows the outcome at the terminal, the page on the phone; both run this code.

On the simulator the bench has the simulated table as it was built (:meth:`Bench.simulate`: wrong on
purpose after ``hw calibrate --wrong`` or ``--seed``), registered as the world the ``sim://`` devices
reach; its hands put pieces where a part asks, :meth:`Bench.lit` is what its LEDs really light and
:meth:`Bench.hint` where its magnet really is, which a person at a real table sees for themselves.

The board and the magnet are written into the layout file the config's ``layout =`` names; with the
built-in layout, into ``table.toml`` beside the config, which ``layout =`` then names.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess

from ..config import Config
from ..config_write import save_settings, settings_in
from ..errors import ChessatronError
from ..i18n import _
from ..planning.layout import Cell
from ..planning.table import Table
from ..ports import RGB, DeviceUrl
from .person import Person

__all__ = ["PARTS", "Bench", "NotHereError", "Outcome"]

LOGGER = logging.getLogger(__name__)

#: The parts, in the order ``all`` runs them: the sensors first, which the LEDs' part may use.
PARTS = ("sensors", "leds", "board", "magnet")


class NotHereError(ChessatronError, RuntimeError):
    """A part that cannot run on this table (it has no such device); nothing was written."""


@dataclass(frozen=True)
class Outcome:
    """What a part ended with: ``lines`` to show the person (what to look at), and each file written
    with the previous one kept beside it (None: there was none), in the order they were written."""

    lines: tuple[str, ...] = ()
    files: tuple[tuple[Path, Path | None], ...] = ()

    @property
    def written(self) -> bool:
        return bool(self.files)


def _look_at(findings: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_("Look at: {finding}").format(finding=finding) for finding in findings)


class Bench:
    """What a calibration runs on: the machine config at ``config_path`` (``settings``: as it was read),
    the devices opened on each part's ``stack`` and on the simulator its world, wired as built
    (the wiring kept at ``wiring_path``; None: beside the simulator's state)."""

    def __init__(self, config_path: Path, settings: Config, *, wiring_path: Path | None = None) -> None:
        self.path = config_path
        self.settings = settings
        self.wiring_path = wiring_path
        self.world: Any = None
        self.wiring: Any = None
        self.hands: Any = None
        self.strip: Any = None
        self.gantry: Any = None
        self.sensors_done = False

    @property
    def simulated(self) -> bool:
        """Whether any of the devices the parts use is the simulator's."""
        urls = self.settings.urls
        return any(DeviceUrl.parse(urls[kind]).scheme == "sim" for kind in ("sensors", "leds", "grbl"))

    def simulate(
        self, wrong: str | None = None, seed: int | None = None, *, table: Table | None = None
    ) -> bool:
        """Register the simulated table as it was built (first built wrong with the faults ``wrong`` or at
        random from ``seed``, and kept so), holding ``table``'s pieces (None: the start position). True
        when it was built wrong now."""
        from ..calibrate.simperson import SimHands
        from ..sim.wiring import build_wrong, load_wiring, save_wiring
        from ..sim.world import register_world

        layout = self.settings.layout
        built = wrong is not None or seed is not None
        if built:
            self.wiring = build_wrong(layout, wrong, seed=seed)
            save_wiring(self.wiring, layout, self.wiring_path)
            LOGGER.info("simulated table built wrong: %s", "; ".join(self.wiring.faults))
        else:
            self.wiring = load_wiring(layout, self.wiring_path)
        name = DeviceUrl.parse(self.settings.urls["sensors"]).target.strip("/") or "default"
        self.world = register_world(self.wiring.world(layout, table, name=name))
        self.hands = SimHands(self.world, lit=self.lit_cell)
        return built

    def reload(self) -> None:
        """Read the config again: a part wrote it."""
        self.settings = Config.load(self.path)

    # --- what a person beside the simulated table sees -----------------------------------------------

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

    def hint(self, question: str) -> str | None:
        """Where the simulated magnet really is from the centre of the square ``question`` names, as a
        person beside the table sees it (from white's side); None on a real table."""
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

    # --- the parts ------------------------------------------------------------------------------------

    def run(self, part: str, person: Person, stack: ExitStack) -> Outcome:
        """Run ``part`` with ``person``, its devices opened on ``stack``, and write what it learnt.
        Raises :class:`~.person.Stopped`, :class:`NotHereError` for a part this table has no device for,
        and what the part raises."""
        runs: dict[str, Callable[[Person, ExitStack], Outcome]] = {
            "sensors": self.sensors,
            "leds": self.leds,
            "board": self.board,
            "magnet": self.magnet,
        }
        return runs[part](person, stack)

    def sensors(self, person: Person, stack: ExitStack) -> Outcome:
        from ..calibrate.sensors import SensorTable, calibrate_sensors, write_sensors
        from ..sensors import open_sensor
        from ..sensors.mcp23017 import Mcp23017Sensor
        from ..sim.wiring import SimInputs

        settings = self.settings
        url = settings.urls["sensors"]
        scheme = DeviceUrl.parse(url).scheme
        if scheme == "sim":
            inputs: Any = SimInputs(self.world, self.wiring.sensors, seed=0)
            table = SensorTable(settings.layout, inputs, self.hands, wait_s=0.0, gap_s=0.0)
        elif scheme == "mcp23017":
            device = stack.enter_context(open_sensor(url, settings.layout))
            assert isinstance(device, Mcp23017Sensor)
            table = SensorTable(settings.layout, _ExpanderInputs(device))
        else:
            raise NotHereError(
                _(
                    "Sensors on {scheme}:// are wired as their firmware says; there is nothing to calibrate."
                ).format(scheme=scheme)
            )
        result = calibrate_sensors(table, person)
        saved = write_sensors(result, self.path, url, settings.layout)
        self.sensors_done = True
        files = ((saved.file, saved.file_backup),) if saved.file is not None else ()
        return Outcome(_look_at(result.findings), (*files, (saved.config, saved.config_backup)))

    def leds(self, person: Person, stack: ExitStack) -> Outcome:
        from ..calibrate.leds import LedTable, calibrate_leds, write_leds
        from ..feedback.leds import PixelLedStrip, open_leds
        from ..sensors import open_sensor

        settings = self.settings
        url = settings.urls["leds"]
        if DeviceUrl.parse(url).scheme == "none":
            raise NotHereError(_("There are no LEDs in the config; nothing to calibrate."))
        strip = stack.enter_context(open_leds(url, settings.layout))
        assert isinstance(strip, PixelLedStrip)
        self.strip = strip
        stack.callback(setattr, self, "strip", None)
        sensors = None
        if self.sensors_done:
            sim = DeviceUrl.parse(settings.urls["sensors"]).scheme == "sim"
            sensors = stack.enter_context(
                open_sensor(settings.urls["sensors"], settings.layout, world=self.world if sim else None)
            )
        wait_s = 0.0 if self.world is not None else 30.0
        table = LedTable(settings.layout, strip, strip.mapping.count, sensors, self.hands, wait_s=wait_s)
        result = calibrate_leds(table, person)
        saved = write_leds(result, self.path, url, settings.layout)
        files = ((saved.file, saved.file_backup),) if saved.file is not None else ()
        return Outcome(_look_at(result.findings), (*files, (saved.config, saved.config_backup)))

    def gantry_table(self, stack: ExitStack) -> Any:
        """The gantry, opened (and homed) once for the board and the magnet while ``stack`` is open.
        Raises :class:`NotHereError` without one."""
        from ..calibrate.machine import GantryTable

        if self.gantry is None:
            if DeviceUrl.parse(self.settings.urls["grbl"]).scheme == "none":
                raise NotHereError(_("There is no gantry in the config; the board and the magnet need one."))
            self.gantry = stack.enter_context(GantryTable.open(self.settings))
            stack.callback(setattr, self, "gantry", None)
        return self.gantry

    def layout_file(self) -> tuple[Path, bool]:
        """The layout file the board and the magnet are written to, and whether the config names it
        already (if not: ``table.toml`` beside the config, which ``layout =`` is then set to)."""
        named = settings_in(self.path).get("layout")
        if isinstance(named, str) and named.strip():
            file = Path(named)
            return (file if file.is_absolute() else self.path.parent / file), True
        return self.path.parent / "table.toml", False

    def _write_layout(self, write: Any, result: Any) -> tuple[tuple[Path, Path | None], ...]:
        """``write(result, file)`` into the layout file and the config pointed at it; the gantry's layout
        is the written one from now on. The files written, each with the previous one kept."""
        file, named = self.layout_file()
        written = write(result, file)
        files: list[tuple[Path, Path | None]] = [(written.path, written.previous)]
        if not named:
            saved = save_settings(self.path, {"layout": file.name})
            files.append((saved.path, saved.previous))
        self.gantry.layout = written.layout
        self.gantry.layout_path = file
        return tuple(files)

    def board(self, person: Person, stack: ExitStack) -> Outcome:
        from ..calibrate.board import calibrate_board, write_board

        table = self.gantry_table(stack)
        result = calibrate_board(table, person)
        lines: tuple[str, ...] = ()
        if not result.confirmed:
            lines = (
                _(
                    "Look at: the magnet missed {places} on the board as measured; it is written anyway: "
                    "run `chessatron hw calibrate board` again to measure it once more."
                ).format(places=", ".join(result.missed)),
            )
        return Outcome(lines, self._write_layout(write_board, result))

    def magnet(self, person: Person, stack: ExitStack) -> Outcome:
        from ..calibrate.magnet import calibrate_magnet, write_magnet

        table = self.gantry_table(stack)
        result = calibrate_magnet(table, person)
        if result.carry_feed_mm_min is None:
            return Outcome((_("Nothing of the magnet part was written: no drag speed carried the piece."),))
        return Outcome((), self._write_layout(write_magnet, result))


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
