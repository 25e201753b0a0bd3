"""The devices a calibration from the web page opens, each part run and written as ``chessatron hw
calibrate`` runs and writes it (the sensors' and the LEDs' lines of its bench, copied from
:mod:`chessatron.cli.calibrate` until one bench serves both).

On the simulator the calibration has a simulated table of its own (empty, apart from the game's, which
keeps its pieces), wired as the simulated table was built (:func:`~chessatron.sim.wiring.load_wiring`:
wrong on purpose after ``hw calibrate --wrong`` or ``--seed``); its hands put pieces where each step says
while the person answers on the page, and the page is shown what its LEDs really light (:meth:`lit`),
which a person at a real table sees for themselves.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Final

import chess

from ..calibrate.person import Person
from ..calibrate.saving import Saved
from ..config import Config
from ..errors import ChessatronError
from ..i18n import N_, _
from ..planning.layout import Cell
from ..ports import RGB, DeviceUrl

LOGGER = logging.getLogger(__name__)

#: The parts the page offers, in the order ``all`` runs them, with their titles.
PART_TITLES: Final = {"sensors": N_("The sensors"), "leds": N_("The LEDs")}
#: The parts that run at the terminal only for now: they drive the gantry, which the page's runner holds.
TERMINAL_ONLY: Final = ("board", "magnet")


class NotHereError(ChessatronError, RuntimeError):
    """A part that cannot run on this table (no such device, or not from the page)."""


class WebBench:
    """What a calibration from the page runs on: the machine config at ``config_path``, and on the
    simulator the table's wiring kept at ``wiring_path``."""

    def __init__(self, config_path: Path, wiring_path: Path | None = None) -> None:
        self.config_path = config_path
        self.wiring_path = wiring_path
        self.world: Any = None
        self.wiring: Any = None
        self.hands: Any = None
        self.strip: Any = None
        self.sensors_done = False

    def run(self, part: str, person: Person, stack: ExitStack) -> list[str]:
        """Run ``part`` with ``person`` and write what it learnt; the lines to show at its end (what was
        written, what to look at). Raises :class:`~chessatron.calibrate.person.Stopped`, and
        :class:`NotHereError` for a part this table cannot run here."""
        settings = Config.load(self.config_path)
        on_sim = any(DeviceUrl.parse(settings.urls[k]).scheme == "sim" for k in ("sensors", "leds"))
        if on_sim and self.world is None:
            self._simulate(settings)
        if part == "sensors":
            return self._sensors(settings, person, stack)
        if part == "leds":
            return self._leds(settings, person, stack)
        raise NotHereError(
            _("the {part} part moves the gantry: run `chessatron hw calibrate {part}` at the table").format(
                part=part
            )
        )

    def _simulate(self, settings: Config) -> None:
        from ..calibrate.simperson import SimHands
        from ..sim.wiring import load_wiring
        from ..sim.world import SimWorld

        layout = settings.layout
        self.wiring = load_wiring(layout, self.wiring_path)
        # a table of the calibration's own: the game's world keeps its pieces where they stand
        self.world = SimWorld(layout, name="calibration")
        self.hands = SimHands(self.world, lit=self._lit_cell)

    # --- what the simulated LEDs show ---------------------------------------------------------------

    def _lit_cells(self) -> dict[Cell, RGB]:
        from ..feedback.leds import SimLedStrip, unpack

        if not isinstance(self.strip, SimLedStrip) or self.wiring is None:
            return {}
        chain = self.wiring.leds.cells
        shown = self.strip.pixels.shown
        return {
            chain[i]: unpack(c) for i, c in enumerate(shown) if c and i < len(chain) and chain[i] is not None
        }

    def _lit_cell(self) -> Cell | None:
        cells = list(self._lit_cells())
        return cells[0] if len(cells) == 1 else None

    def lit(self) -> dict[str, RGB]:
        """The squares the simulated LEDs really light now and their colours (empty on a real table,
        whose person looks at it)."""
        if self.strip is None or self.world is None:
            return {}
        layout = self.world.layout
        found = {}
        for cell, colour in self._lit_cells().items():
            square = layout.node_square(layout.cell_node(cell))
            if square is not None:
                found[chess.square_name(square)] = colour
        return found

    # --- the parts ------------------------------------------------------------------------------------

    def _sensors(self, settings: Config, person: Person, stack: ExitStack) -> list[str]:
        from ..calibrate.sensors import SensorTable, calibrate_sensors, write_sensors
        from ..sensors import open_sensor
        from ..sensors.mcp23017 import Mcp23017Sensor
        from ..sim.wiring import SimInputs

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
        saved = write_sensors(result, self.config_path, url, settings.layout)
        self.sensors_done = True
        return [*_findings(result.findings), *written(saved)]

    def _leds(self, settings: Config, person: Person, stack: ExitStack) -> list[str]:
        from ..calibrate.leds import LedTable, calibrate_leds, write_leds
        from ..feedback.leds import PixelLedStrip, open_leds
        from ..sensors import open_sensor

        url = settings.urls["leds"]
        if DeviceUrl.parse(url).scheme == "none":
            raise NotHereError(_("There are no LEDs in the config; nothing to calibrate."))
        strip = stack.enter_context(open_leds(url, settings.layout))
        assert isinstance(strip, PixelLedStrip)
        self.strip = strip
        sensors = None
        if self.sensors_done:
            sim = DeviceUrl.parse(settings.urls["sensors"]).scheme == "sim"
            sensors = stack.enter_context(
                open_sensor(settings.urls["sensors"], settings.layout, world=self.world if sim else None)
            )
        wait_s = 0.0 if self.world is not None else 30.0
        table = LedTable(settings.layout, strip, strip.mapping.count, sensors, self.hands, wait_s=wait_s)
        try:
            result = calibrate_leds(table, person)
        finally:
            self.strip = None
        saved = write_leds(result, self.config_path, url, settings.layout)
        return [*_findings(result.findings), *written(saved)]


class _ExpanderInputs:
    """A real table's expanders, read bit by bit (as ``hw calibrate``'s own, in :mod:`.cli.calibrate`)."""

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


def _findings(findings: tuple[str, ...]) -> list[str]:
    return [_("Look at: {finding}").format(finding=finding) for finding in findings]


def written(saved: Saved) -> list[str]:
    """What a part wrote, in words: each file, and the previous one kept beside it."""
    lines = []
    for path, kept in ((saved.file, saved.file_backup), (saved.config, saved.config_backup)):
        if path is None:
            continue
        if kept is None:
            lines.append(_("{file} written.").format(file=path))
        else:
            lines.append(
                _("{file} written; the previous one is kept as {kept}.").format(file=path, kept=kept)
            )
    return lines
