"""The simulated table as it was really wired: which expander input each cell's Hall sensor pulls low, and
which cell each LED of the chain lies under, whatever the machine config says.

A real table is never wired exactly as drawn: two expander ports swapped, a rank wired right to left,
a sensor that never sees a magnet, two sensors on one input, an input that flickers, LEDs chained in a
zig-zag from another corner. :func:`build_wrong` builds such a table on purpose, from named faults
(``--wrong ports-swapped,leds-serpentine``) or at random from a seed, so that ``chessatron hw
calibrate`` can be run and tested without hardware: the calibration reads the inputs through
:class:`SimInputs` and the LEDs through the strip, and must recover :attr:`Wiring.sensors` and
:attr:`Wiring.leds`, which the software never reads otherwise.

The wiring is kept between commands beside the simulator's state (:func:`build_path`), so that a
``sim://?map=…`` sensor (:mod:`chessatron.sensors.sim`) reads the table through the same wires
afterwards. Without a saved wiring the simulated table is wired as the defaults say
(:meth:`Wiring.default`).

>>> layout = Layout.default()
>>> wiring = build_wrong(layout, "rank-reversed", seed=1)
>>> wiring.faults
('rank 3 wired right to left',)
>>> pins = wiring.sensors.pins
>>> str(pins[layout.square_cell(chess.A3)]), str(pins[layout.square_cell(chess.H3)])
('1A7', '1A0')
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import chess

from .. import files
from ..errors import ConfigError
from ..feedback.mapping import Along, Corner, LedMapping
from ..feedback.mapping import Wiring as LedWiring
from ..i18n import _
from ..planning.layout import Cell, Layout
from ..planning.table import Table
from ..sensors.names import cell_name, parse_cell
from ..sensors.pinmap import BITS_PER_PORT, Pin, PinMap
from .pull import MagnetPull
from .state import default_state_path
from .world import SimWorld
from .wrong_gantry import GANTRY_FAULTS, Drawn, GantryBuild

__all__ = [
    "FAULTS",
    "SensorWiring",
    "SimInputs",
    "Wiring",
    "build_path",
    "build_wrong",
    "built_world",
    "load_wiring",
    "save_wiring",
]

FORMAT = "chessatron-simulator-wiring/1"
#: How often a flickering input reads wrong.
FLICKER_P = 0.3

_PIN = "{expander}{port}{bit}"


@dataclass(frozen=True)
class SensorWiring:
    """The input each cell's sensor really pulls low. Two cells may share an input (a wire joined to
    another); ``dead`` inputs never read a magnet; ``flickering`` ones read wrong now and then."""

    pins: Mapping[Cell, Pin]
    dead: frozenset[Pin] = frozenset()
    flickering: frozenset[Pin] = frozenset()

    @property
    def expanders(self) -> int:
        """How many expanders the table has: enough for every input wired."""
        return 1 + max(pin.expander for pin in self.pins.values())

    def low_pins(self, occupied: Iterable[Cell], rng: random.Random | None = None) -> frozenset[Pin]:
        """The inputs pulled low while ``occupied`` hold pieces (flicker drawn from ``rng``)."""
        low = {self.pins[cell] for cell in occupied if cell in self.pins} - self.dead
        if rng is not None:
            for pin in sorted(self.flickering):
                if rng.random() < FLICKER_P:
                    low ^= {pin}
        return frozenset(low)

    def pin_map(self) -> PinMap:
        """The pin map a perfect calibration writes: every cell on an input of its own that works (a
        cell sharing its input with another, or on a dead one, is left out)."""
        counts: dict[Pin, int] = {}
        for pin in self.pins.values():
            counts[pin] = counts.get(pin, 0) + 1
        return PinMap(
            {cell: pin for cell, pin in self.pins.items() if counts[pin] == 1 and pin not in self.dead}
        )


@dataclass(frozen=True)
class Wiring:
    """The simulated table as built: its sensors' inputs and its LED chain, where its board lies under the
    gantry and how hard its magnet holds (``gantry``, against the board the layout showed when it was
    built: ``drawn``), and the faults in words."""

    sensors: SensorWiring
    leds: LedMapping
    faults: tuple[str, ...] = field(default=())
    gantry: GantryBuild = field(default_factory=GantryBuild)
    drawn: Drawn | None = None

    def true_layout(self, layout: Layout) -> Layout:
        """Where the board really lies for a machine whose layout (now) says ``layout``: as it says when
        the gantry was built right, else where it was built, whatever a calibration wrote since."""
        if self.gantry == GantryBuild() or self.drawn is None:
            return layout
        return self.gantry.true_layout(self.drawn.on(layout))

    def world(self, layout: Layout, table: Table | None = None, *, name: str = "default") -> SimWorld:
        """The simulated world of this table for a machine whose layout says ``layout``: the pieces of
        ``table`` (the start position by default) stand on the real squares, the magnet as weak as built."""
        truth = self.true_layout(layout)
        start = table if table is not None else Table.from_board(layout, chess.Board())
        if truth is not layout:
            start = Table(truth, [(piece, start.node_of(piece.id)) for piece in start])
        pull = None if self.gantry.pull == MagnetPull() else self.gantry.pull
        return SimWorld(truth, start, name=name, pull=pull)

    @classmethod
    def default(cls, layout: Layout) -> Wiring:
        """Wired as the defaults say: :meth:`PinMap.default` and the serpentine chain from a1."""
        return cls(SensorWiring(dict(PinMap.default(layout).pins)), LedMapping.grid(layout))

    def to_json(self, layout: Layout) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "faults": list(self.faults),
            "pins": {cell_name(cell, layout): str(pin) for cell, pin in sorted(self.sensors.pins.items())},
            "dead": sorted(str(pin) for pin in self.sensors.dead),
            "flickering": sorted(str(pin) for pin in self.sensors.flickering),
            "leds": ["-" if cell is None else f"{cell[0]}:{cell[1]}" for cell in self.leds.cells],
            "gantry": self.gantry.spec(),
            "drawn": None if self.drawn is None else self.drawn.to_json(),
        }

    @classmethod
    def from_json(cls, data: Any, layout: Layout, source: str) -> Wiring:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ConfigError(
                _("{source} is not a simulated table's wiring; delete it to wire it as drawn").format(
                    source=source
                )
            )
        try:
            pins = {parse_cell(name, layout): _pin(text) for name, text in data["pins"].items()}
            sensors = SensorWiring(
                pins,
                frozenset(_pin(text) for text in data["dead"]),
                frozenset(_pin(text) for text in data["flickering"]),
            )
            leds = LedMapping.from_entries(data["leds"], layout, source=source)
            gantry = GantryBuild.parse(str(data.get("gantry", "")))
            drawn = None if data.get("drawn") is None else Drawn.from_json(data["drawn"])
            faults = tuple(str(fault) for fault in data["faults"])
            return cls(sensors, leds, faults, gantry, drawn)
        except (KeyError, TypeError, ValueError, AttributeError, ConfigError) as exc:
            raise ConfigError(
                _("{source} is damaged ({error}); delete it to wire the table as drawn").format(
                    source=source, error=exc
                )
            ) from exc


def _pin(text: str) -> Pin:
    text = str(text).strip().upper()
    if len(text) != 3 or not text[0].isdigit() or text[1] not in "AB" or not text[2].isdigit():
        raise ValueError(f"{text!r} is not an input such as 2A4")
    return Pin(int(text[0]), "A" if text[1] == "A" else "B", int(text[2]))


class SimInputs:
    """The expanders' inputs of the simulated table: which are pulled low now (what ``hw calibrate`` reads
    of real expanders, before any pin map)."""

    def __init__(self, world: SimWorld, wiring: SensorWiring, *, seed: int = 0) -> None:
        self.world = world
        self.wiring = wiring
        self.inputs = tuple(
            Pin(expander, port, bit)
            for expander in range(wiring.expanders)
            for port in ("A", "B")
            for bit in range(BITS_PER_PORT)
        )
        self._rng = random.Random(seed)

    def read(self) -> frozenset[Pin]:
        """The inputs pulled low now."""
        return self.wiring.low_pins(self.world.occupied_cells(), self._rng)

    def address(self, pin: Pin) -> int:
        """The I2C address of the pin's expander (0x20 upwards, as the address pins are usually set)."""
        return 0x20 + pin.expander


# --- building it wrong ---------------------------------------------------------------------------------

Fault = Callable[[Wiring, Layout, random.Random], Wiring]


def _board_ports(layout: Layout, wiring: Wiring) -> list[tuple[int, str]]:
    """The ports the board's ranks are on, rank 1 first."""
    ports: list[tuple[int, str]] = []
    for rank in range(8):
        pin = wiring.sensors.pins[layout.square_cell(chess.square(0, rank))]
        ports.append((pin.expander, pin.port))
    return ports


def _remap(
    wiring: Wiring, change: Mapping[tuple[int, str], tuple[int, str]], reverse: set[tuple[int, str]]
) -> dict[Cell, Pin]:
    pins = {}
    for cell, pin in wiring.sensors.pins.items():
        key = (pin.expander, pin.port)
        bit = BITS_PER_PORT - 1 - pin.bit if key in reverse else pin.bit
        expander, port = change.get(key, key)
        pins[cell] = Pin(expander, "A" if port == "A" else "B", bit)
    return pins


def _with(wiring: Wiring, fault: str, **changes: Any) -> Wiring:
    sensors = replace(wiring.sensors, **{k: v for k, v in changes.items() if k != "leds"})
    return replace(
        wiring, sensors=sensors, leds=changes.get("leds", wiring.leds), faults=(*wiring.faults, fault)
    )


def _ports_swapped(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    used = sorted({(pin.expander, pin.port) for pin in wiring.sensors.pins.values()})
    one, two = rng.sample(used, 2)
    pins = _remap(wiring, {one: two, two: one}, set())
    return _with(wiring, f"ports {one[0]}{one[1]} and {two[0]}{two[1]} swapped", pins=pins)


def _rank_reversed(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    rank = rng.randrange(8)
    pins = _remap(wiring, {}, {_board_ports(layout, wiring)[rank]})
    return _with(wiring, f"rank {rank + 1} wired right to left", pins=pins)


def _ranks_shuffled(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    ports = _board_ports(layout, wiring)
    order = ports[:]
    rng.shuffle(order)
    reverse = {port for port in ports if rng.random() < 0.5}
    pins = _remap(wiring, dict(zip(ports, order, strict=True)), reverse)
    return _with(wiring, "the board's ranks on ports in another order, some right to left", pins=pins)


def _files(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    ports = _board_ports(layout, wiring)
    rng.shuffle(ports)
    pins = dict(wiring.sensors.pins)
    for file in range(8):
        upward = rng.random() < 0.5
        expander, port = ports[file]
        for rank in range(8):
            bit = rank if upward else 7 - rank
            pins[layout.square_cell(chess.square(file, rank))] = Pin(
                expander, "A" if port == "A" else "B", bit
            )
    return _with(wiring, "a port per file of the board instead of a port per rank", pins=pins)


def _inputs_shuffled(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    cells = sorted(wiring.sensors.pins)
    pins = [wiring.sensors.pins[cell] for cell in cells]
    rng.shuffle(pins)
    return _with(wiring, "every input wired at random", pins=dict(zip(cells, pins, strict=True)))


def _dead(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    cell = layout.square_cell(rng.choice(chess.SQUARES))
    pin = wiring.sensors.pins[cell]
    return _with(
        wiring,
        f"the sensor of {cell_name(cell, layout)} dead (input {pin})",
        dead=wiring.sensors.dead | {pin},
    )


def _double(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    one, two = (layout.square_cell(square) for square in rng.sample(chess.SQUARES, 2))
    pins = dict(wiring.sensors.pins)
    pins[two] = pins[one]
    names = f"{cell_name(one, layout)} and {cell_name(two, layout)}"
    return _with(wiring, f"{names} both on input {pins[one]}", pins=pins)


def _flicker(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    cell = layout.square_cell(rng.choice(chess.SQUARES))
    pin = wiring.sensors.pins[cell]
    flickering = wiring.sensors.flickering | {pin}
    return _with(wiring, f"the input of {cell_name(cell, layout)} flickers ({pin})", flickering=flickering)


def _leds_grid(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    along: Along = rng.choice(("ranks", "files"))
    order: LedWiring = rng.choice(("serpentine", "rows"))
    origin: Corner = rng.choice(("a1", "h1", "a8", "h8"))
    chain = LedMapping.grid(layout, order, origin=origin, along=along)
    return _with(wiring, f"LEDs chained as {chain.description}", leds=chain)


def _leds_serpentine(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    origin: Corner = rng.choice(("h1", "a8", "h8"))
    chain = LedMapping.grid(layout, "serpentine", origin=origin)
    return _with(wiring, f"LEDs chained as {chain.description}", leds=chain)


def _leds_mirrored(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    origin: Corner = rng.choice(("h1", "h8"))
    chain = LedMapping.grid(layout, "rows", origin=origin)
    return _with(wiring, f"every rank of LEDs mirrored: {chain.description}", leds=chain)


def _leds_table(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
    cells = list(LedMapping.grid(layout).cells)
    rng.shuffle(cells)
    return _with(
        wiring, "LEDs chained in no order at all", leds=LedMapping(tuple(cells), "a chain in no order")
    )


def _gantry(name: str) -> Fault:
    def fault(wiring: Wiring, layout: Layout, rng: random.Random) -> Wiring:
        gantry, said = GANTRY_FAULTS[name](wiring.gantry, layout, rng)
        drawn = wiring.drawn or Drawn.of(layout)
        return replace(wiring, gantry=gantry, drawn=drawn, faults=(*wiring.faults, said))

    return fault


#: Every fault a simulated table can be built with, by the name ``--wrong`` takes.
FAULTS: Mapping[str, Fault] = {
    "ports-swapped": _ports_swapped,
    "rank-reversed": _rank_reversed,
    "ranks-shuffled": _ranks_shuffled,
    "files": _files,
    "inputs-shuffled": _inputs_shuffled,
    "dead": _dead,
    "double": _double,
    "flicker": _flicker,
    "leds-grid": _leds_grid,
    "leds-serpentine": _leds_serpentine,
    "leds-mirrored": _leds_mirrored,
    "leds-table": _leds_table,
    **{name: _gantry(name) for name in GANTRY_FAULTS},
}

_WIRINGS = ("ports-swapped", "rank-reversed", "ranks-shuffled", "files", "inputs-shuffled")
_BREAKS = ("dead", "double", "flicker")
_CHAINS = ("leds-grid", "leds-serpentine", "leds-mirrored", "leds-table")
_GANTRY_ODDS = (("board-turned", 0.7), ("board-scaled", 0.5), ("magnet-weak", 0.7))


def build_wrong(layout: Layout, spec: str | None = None, *, seed: int | None = None) -> Wiring:
    """The table wired wrong: with the faults ``spec`` names (``"files,leds-serpentine"``, in that
    order, drawn with ``seed``), or with no spec a few drawn at random from ``seed``: one or two wirings
    of the sensors, sometimes a broken sensor, an LED chain, the board off where the layout says (often
    turned, sometimes with squares of another size) and often a weak magnet. Raises :class:`ConfigError`
    for a name that is no fault."""
    rng = random.Random(seed)
    if spec is None:
        names = rng.sample(_WIRINGS, rng.choice((1, 1, 2)))
        if rng.random() < 0.3:
            names.append(rng.choice(_BREAKS))
        names.append(rng.choice(_CHAINS))
    else:
        names = [name.strip().lower() for name in spec.split(",") if name.strip()]
        for name in names:
            if name not in FAULTS:
                raise ConfigError(
                    _(
                        "--wrong names {name!r}, which is no fault of a simulated table; use any of "
                        "{faults}, separated by commas"
                    ).format(name=name, faults=", ".join(FAULTS))
                )
    wiring = Wiring.default(layout)
    for name in names:
        wiring = FAULTS[name](wiring, layout, rng)
    if spec is None:  # (drawn after the wiring's, so that a seed wires the sensors and LEDs as it did)
        gantry = ["board-offset"]
        gantry += [name for name, odds in _GANTRY_ODDS if rng.random() < odds]
        for name in gantry:
            wiring = FAULTS[name](wiring, layout, rng)
    return wiring


# --- kept between commands ---------------------------------------------------------------------------


def build_path() -> Path:
    """Where the simulated table's wiring is kept: beside the simulator's state."""
    state = default_state_path()
    return state.with_name("simulator-wiring.json")


def load_wiring(layout: Layout, path: Path | None = None) -> Wiring:
    """The simulated table's saved wiring, or the default one when none was saved."""
    path = path or build_path()
    if files.is_missing(path):
        return Wiring.default(layout)
    return Wiring.from_json(files.load_json(path, files.SIMULATOR_STATE), layout, repr(str(path)))


def built_world(layout: Layout, table: Table | None = None, *, name: str = "default") -> SimWorld:
    """The simulated world of a machine whose layout says ``layout``, built as the saved wiring says
    (:func:`load_wiring`: the board where it was built, the magnet as weak), holding ``table``'s pieces
    (the start position by default); as the layout says when no table was built wrong."""
    if files.is_missing(build_path()):
        return SimWorld(layout, table, name=name)
    return load_wiring(layout).world(layout, table, name=name)


def save_wiring(wiring: Wiring, layout: Layout, path: Path | None = None) -> Path:
    """Keep the wiring (atomically) for the commands after this one; returns where."""
    path = path or build_path()
    text = json.dumps(wiring.to_json(layout), indent=1)
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        raise ConfigError(
            _("cannot keep the simulated wiring in {path}: {error}").format(
                path=repr(str(path)), error=exc.strerror or exc
            )
        ) from exc
    return path
