"""The simulated sensor: what Hall sensors under every cell would see in a simulated world, noise included.

``sim://[WORLD]?bounce=K:P&flicker=P&stuck=e4:1,c0r9:0&seed=N&range=12`` reads the world named
``WORLD`` (``default`` when left out; see :mod:`chessatron.sim.world`). Without options it is perfect.
The noise options imitate real sensors, deterministically for a given seed:

* ``bounce=K:P`` — a cell whose piece just came or went reads its old value in each of the next ``K``
  scans with probability ``P`` (``bounce=K`` alone: always, a lag of K scans), as a piece sliding over
  the sensor's edge does.
* ``flicker=P`` — in each scan each cell reads wrong with probability ``P``: electrical noise.
* ``stuck=CELL:V,…`` — these cells always read ``V`` (1 occupied, 0 empty): a dead or shorted sensor.
* ``seed=N`` — the noise's random seed; without it a fresh seed is drawn and logged.
* ``range=MM`` — how far from a cell's centre a piece is still seen (12 mm by default).
* ``map=FILE-or-map`` — the simulated table's sensors are on MCP23017 inputs, wired as the simulated table
  was built (:mod:`chessatron.sim.wiring`: as drawn, unless ``hw calibrate --wrong`` built it otherwise),
  and read through this pin map, as ``mcp23017://``'s ``map=`` (:mod:`.pinmap`): a map that does not fit
  the wiring reads pieces on the wrong cells, as on a real table. ``hw calibrate`` writes it.

:class:`NoiseModel` is the noise alone, over plain occupancies; :class:`SimSensor` is the device.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import ConfigError, SensorError
from ..i18n import _
from ..planning.layout import Cell, Layout
from ..ports import DeviceUrl, Occupancy
from ..sim.world import SENSOR_RANGE_MM, SimWorld, get_world
from .base import SensorBase
from .mcp23017 import pin_map_option as _pin_map
from .names import cell_name, parse_cell
from .options import check_options

LOGGER = logging.getLogger(__name__)

OPTIONS = ("bounce", "flicker", "stuck", "seed", "range", "map")


@dataclass(frozen=True)
class Noise:
    """How a simulated sensor misreads: see the module's description of the URL options."""

    bounce_scans: int = 0
    bounce_p: float = 0.0
    flicker_p: float = 0.0
    stuck: Mapping[Cell, bool] = field(default_factory=dict)
    """Cells that always read True (occupied) or False (empty)."""

    def __post_init__(self) -> None:
        if self.bounce_scans < 0:
            raise ConfigError(
                _("bounce lasts {scans!r} scans; use zero or more").format(scans=self.bounce_scans)
            )
        for name, p in (("bounce", self.bounce_p), ("flicker", self.flicker_p)):
            if not 0.0 <= p <= 1.0:
                raise ConfigError(
                    _("{option} probability {value!r} is not between 0 and 1").format(option=name, value=p)
                )

    @property
    def is_quiet(self) -> bool:
        """True if the sensor reads perfectly."""
        return not (self.bounce_scans and self.bounce_p) and not self.flicker_p and not self.stuck

    @classmethod
    def from_url(cls, url: DeviceUrl, layout: Layout) -> Noise:
        """The noise a ``sim://`` URL's bounce, flicker and stuck options describe."""
        bounce_scans, bounce_p = 0, 0.0
        bounce = url.params.get("bounce")
        if bounce is not None:
            scans_text, colon, p_text = bounce.partition(":")
            try:
                bounce_scans = int(scans_text)
                bounce_p = float(p_text) if colon else 1.0
            except ValueError:
                raise ConfigError(
                    _(
                        "option bounce={value!r} in a sim:// URL is not SCANS:PROBABILITY, e.g. bounce=2:0.3"
                    ).format(value=bounce)
                ) from None
        stuck: dict[Cell, bool] = {}
        for item in url.params.get("stuck", "").split(","):
            if not item.strip():
                continue
            name, colon, value = item.partition(":")
            if not colon or value.strip() not in ("0", "1"):
                raise ConfigError(
                    _(
                        "stuck={value!r} in a sim:// URL is not CELL:0 or CELL:1, e.g. stuck=e4:1,c0r9:0"
                    ).format(value=item)
                )
            stuck[parse_cell(name, layout)] = value.strip() == "1"
        return cls(bounce_scans, bounce_p, url.number("flicker", 0.0), stuck)


class NoiseModel:
    """Applies :class:`Noise` to a sequence of true occupancies, one scan at a time."""

    def __init__(self, noise: Noise, cells: Iterable[Cell], seed: int) -> None:
        self.noise = noise
        self.seed = seed
        self._cells = sorted(cells)
        self._rng = random.Random(seed)
        self._truth: Occupancy | None = None
        self._bouncing: dict[Cell, tuple[bool, int]] = {}  # cell: (value before the change, scans left)

    def apply(self, truth: Occupancy) -> Occupancy:
        """What the sensor reports this scan when ``truth`` is what lies on the table."""
        noise = self.noise
        shown = set(truth)
        if noise.bounce_scans and noise.bounce_p and self._truth is not None:
            for cell in sorted(truth ^ self._truth):
                self._bouncing[cell] = (cell in self._truth, noise.bounce_scans)
        self._truth = truth
        for cell in sorted(self._bouncing):
            old, left = self._bouncing[cell]
            if self._rng.random() < noise.bounce_p:
                _set(shown, cell, old)
            if left > 1:
                self._bouncing[cell] = (old, left - 1)
            else:
                del self._bouncing[cell]
        if noise.flicker_p:
            for cell in self._cells:
                if self._rng.random() < noise.flicker_p:
                    _set(shown, cell, cell not in shown)
        for cell, value in noise.stuck.items():
            _set(shown, cell, value)
        return frozenset(shown)


def _set(cells: set[Cell], cell: Cell, occupied: bool) -> None:
    if occupied:
        cells.add(cell)
    else:
        cells.discard(cell)


class SimSensor(SensorBase):
    """A sensor under every cell of the simulated table, reading ``world`` through an optional noise.

    World controls: :meth:`unplug` and :meth:`plug` imitate a pulled cable (scans raise
    :class:`SensorError` meanwhile). Pieces move through ``world.twin`` (``place``, ``lift``).
    """

    def __init__(
        self,
        world: SimWorld,
        *,
        noise: Noise | None = None,
        seed: int | None = None,
        range_mm: float = SENSOR_RANGE_MM,
    ) -> None:
        self.world = world
        self.name = _("sim world {world!r}").format(world=world.name)
        self.layout = world.layout
        self.range_mm = range_mm
        self.covered_cells: frozenset[Cell] = frozenset(world.layout.cells())
        self.noise = noise or Noise()
        if seed is None:
            seed = random.SystemRandom().randrange(2**32)
            if not self.noise.is_quiet:
                LOGGER.info(
                    "sim sensor on world %r: noise seed %d (pass seed=%d to repeat)", world.name, seed, seed
                )
        for cell in self.noise.stuck:
            if cell not in self.covered_cells:
                raise ConfigError(
                    _("stuck cell {cell!r} is not on the {columns} x {rows} table").format(
                        cell=cell, columns=self.layout.columns, rows=self.layout.rows
                    )
                )
        self._model = NoiseModel(self.noise, self.covered_cells, seed)
        self.seed = seed
        self._unplugged = False
        self._through: Callable[[Occupancy], Occupancy] | None = None

    def read_through(self, decode: Callable[[Occupancy], Occupancy], cells: frozenset[Cell]) -> None:
        """Read the table through ``decode`` (the cells a wiring and a pin map report for the cells that
        hold a piece), which sees only ``cells``."""
        self._through = decode
        self.covered_cells = cells

    def scan(self) -> Occupancy:
        """The cells holding a piece now, as the (noisy) sensors report them."""
        self._check_open()
        if self._unplugged:
            raise SensorError(
                _(
                    "the sim sensor on world {world!r} is unplugged (a simulated fault); call plug() to "
                    "reconnect it"
                ).format(world=self.world.name)
            )
        occupied = self.world.occupied_cells(self.range_mm)
        if self._through is not None:
            occupied = self._through(occupied)
        return self._model.apply(occupied)

    def unplug(self) -> None:
        """Simulate a pulled cable: scans raise :class:`SensorError` until :meth:`plug`."""
        self._unplugged = True

    def plug(self) -> None:
        self._unplugged = False

    def __repr__(self) -> str:
        parts = [f"world {self.world.name!r}"]
        if not self.noise.is_quiet:
            parts.append(f"noise {self._describe_noise()} seed {self.seed}")
        if self._closed:
            parts.append("closed")
        return f"<SimSensor {' '.join(parts)}>"

    def _describe_noise(self) -> str:
        noise = self.noise
        stuck = ",".join(f"{cell_name(c, self.layout)}:{int(v)}" for c, v in sorted(noise.stuck.items()))
        return (
            f"bounce={noise.bounce_scans}:{noise.bounce_p:g} flicker={noise.flicker_p:g} stuck={stuck or '-'}"
        )


def open_sim(url: DeviceUrl, layout: Layout, *, world: SimWorld | None = None) -> SimSensor:
    """The sensor a ``sim://[WORLD]?…`` URL describes, on ``world`` if given, else the world of that name
    (created with ``layout`` on first use). Raises :class:`ConfigError` if that world's table is not
    ``layout``'s."""
    noise, seed, range_mm = sim_settings(url, layout)
    if world is None:
        world = get_world(url.target.strip("/") or "default", layout)
    mine, theirs = (
        (layout.columns, layout.rows, layout.board_cell),
        (
            world.layout.columns,
            world.layout.rows,
            world.layout.board_cell,
        ),
    )
    if mine != theirs:
        raise ConfigError(
            _(
                "sim world {world!r} has a {columns} x {rows} table with a1 at {a1!r}, the layout a "
                "{layout_columns} x {layout_rows} one with a1 at {layout_a1!r}; use another world name "
                "(sim://NAME)"
            ).format(
                world=world.name,
                columns=theirs[0],
                rows=theirs[1],
                a1=theirs[2],
                layout_columns=mine[0],
                layout_rows=mine[1],
                layout_a1=mine[2],
            )
        )
    sensor = SimSensor(world, noise=noise, seed=seed, range_mm=range_mm)
    if "map" in url.params:
        from ..sim.wiring import load_wiring

        wiring = load_wiring(layout).sensors
        pin_map = _pin_map(url.params["map"], layout)
        cells = {pin: cell for cell, pin in pin_map.pins.items()}
        rng = random.Random(sensor.seed)

        def decode(occupied: Occupancy) -> Occupancy:
            return frozenset(cells[pin] for pin in wiring.low_pins(occupied, rng) if pin in cells)

        sensor.read_through(decode, pin_map.cells())
    return sensor


def sim_settings(url: DeviceUrl, layout: Layout) -> tuple[Noise, int | None, float]:
    """The noise, the seed (None: draw one) and the range in millimetres a ``sim://`` URL's options say,
    opening nothing. Raises :class:`ConfigError` for an unknown option or a value out of range."""
    check_options(url, OPTIONS, "sim://?flicker=0.001&seed=1")
    seed = url.integer("seed", -1) if "seed" in url.params else None
    range_mm = url.number("range", SENSOR_RANGE_MM)
    if not 0 < range_mm <= layout.square_mm:
        raise ConfigError(
            _(
                "option range={value!r} in a sim:// URL must be positive millimetres, at most a square "
                "({square} mm)"
            ).format(value=url.params["range"], square=f"{layout.square_mm:g}")
        )
    if "map" in url.params:
        _pin_map(url.params["map"], layout)
    return Noise.from_url(url, layout), seed, range_mm
