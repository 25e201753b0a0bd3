"""Which MCP23017 pin each table cell's sensor is wired to, in a text format a builder can check by eye.

The format has one line per expander port, naming the cells its bits 0 to 7 see::

    # PORT: BIT0 BIT1 BIT2 BIT3 BIT4 BIT5 BIT6 BIT7
    0A: a1 b1 c1 d1 e1 f1 g1 h1
    0B: a2 b2 c2 d2 e2 f2 g2 h2
    4A: c0r0 c1r0 c2r0 c3r0 c4r0 c5r0 c6r0 c7r0
    7B: - - - - - - - -

* ``PORT`` is the expander's position in the URL's ``addresses=`` list (0 for the first, up to 7) and its
  port letter, ``A`` (pins GPA0-7) or ``B`` (GPB0-7).
* Each line names exactly eight cells, bit 0 (GPx0) first: a chess square such as ``e4`` for a board cell,
  ``cCOLrROW`` such as ``c0r9`` for any table cell (see :mod:`chessatron.sensors.names`), ``-`` for a
  bit with no sensor. Names are separated by spaces or commas.
* ``#`` starts a comment; blank lines are ignored; a port without a line has no sensors.
* In a URL the lines may be separated by ``;`` instead of newlines:
  ``mcp23017://1?addresses=0x20&map=0A:a1,b1,c1,d1,e1,f1,g1,h1;0B:a2,b2,c2,d2,e2,f2,g2,h2``.

Every cell appears at most once; a table cell missing from the map is not sensed.

The default map (:meth:`PinMap.default`) gives each rank of the board a port, rank 1 on ``0A`` and rank 8
on ``3B`` with the a-file on bit 0, then wires the cells off the board in rows from the table corner
(row 0 first, columns left to right), eight to a port, from ``4A`` on. On the classic 12 x 10 table that
is 120 cells on 15 of the 16 ports of eight expanders; ``7B`` stays free.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import chess

from ..errors import ConfigError
from ..i18n import _, ngettext
from ..planning.layout import Cell, Layout
from .names import cell_name, parse_cell

Port: TypeAlias = Literal["A", "B"]

#: Expanders one I2C bus can carry: three address pins give 0x20 to 0x27.
MAX_EXPANDERS = 8
BITS_PER_PORT = 8

_PORT_KEY = re.compile(r"([0-7])([AB])")


@dataclass(frozen=True, order=True)
class Pin:
    """One input of one expander: its index in ``addresses=``, its port and its bit (0-7)."""

    expander: int
    port: Port
    bit: int

    def __str__(self) -> str:
        return f"{self.expander}{self.port}{self.bit}"


@dataclass(frozen=True)
class PinMap:
    """A validated wiring: the pin each sensed cell is on. Build it with :meth:`parse` or :meth:`default`."""

    pins: Mapping[Cell, Pin]

    def __post_init__(self) -> None:
        if not self.pins:
            raise ConfigError(
                _("the pin map wires no cell to a sensor; give at least one line such as '0A: a1 …'")
            )
        seen: dict[Pin, Cell] = {}
        for cell, pin in self.pins.items():
            if not (0 <= pin.expander < MAX_EXPANDERS and pin.port in ("A", "B") and 0 <= pin.bit < 8):
                raise ConfigError(
                    _(
                        "pin {pin!r} of cell {cell!r} does not exist; expanders 0-7, ports A/B, bits 0-7"
                    ).format(pin=pin, cell=cell)
                )
            if pin in seen:
                raise ConfigError(
                    _("pin {pin} is wired to cells {first!r} and {second!r}; give each pin one cell").format(
                        pin=pin, first=seen[pin], second=cell
                    )
                )
            seen[pin] = cell

    # --- construction ------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, layout: Layout, *, source: str | None = None) -> PinMap:
        """Read the text format above; raises :class:`ConfigError` naming the line that is wrong (and
        ``source``, what the map is called: "the pin map" unless it says)."""
        source = _("the pin map") if source is None else source
        pins: dict[Cell, Pin] = {}
        where: dict[Cell, int] = {}
        ports: dict[tuple[int, Port], int] = {}
        for number, raw in enumerate(re.split(r"[\n;]", text), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            key, colon, rest = line.partition(":")
            match = _PORT_KEY.fullmatch(key.strip().upper())
            if not colon or match is None:
                raise ConfigError(
                    _(
                        "{source}, line {line} ({text!r}): start it with an expander index and port such as "
                        "'0A:' or '3B:' (expanders 0-7 in the order of addresses=, ports A or B)"
                    ).format(source=source, line=number, text=raw.strip())
                )
            expander, port = int(match[1]), _port(match[2])
            if (expander, port) in ports:
                raise ConfigError(
                    _(
                        "{source}, line {line}: port {port} was already given on line {other}; give each "
                        "port one line"
                    ).format(
                        source=source, line=number, port=f"{expander}{port}", other=ports[expander, port]
                    )
                )
            ports[expander, port] = number
            names = [name for name in re.split(r"[\s,]+", rest.strip()) if name]
            if len(names) != BITS_PER_PORT:
                raise ConfigError(
                    ngettext(
                        "{source}, line {line}: port {port} lists {count} cell {names!r}; list exactly 8, "
                        "bit 0 "
                        "first, with '-' for a bit without a sensor",
                        "{source}, line {line}: port {port} lists {count} cells {names!r}; list exactly 8, "
                        "bit "
                        "0 first, with '-' for a bit without a sensor",
                        len(names),
                    ).format(
                        source=source, line=number, port=f"{expander}{port}", count=len(names), names=names
                    )
                )
            for bit, name in enumerate(names):
                if name == "-":
                    continue
                try:
                    cell = parse_cell(name, layout)
                except ConfigError as exc:
                    raise ConfigError(
                        _("{source}, line {line}: {problem}").format(source=source, line=number, problem=exc)
                    ) from None
                pin = Pin(expander, port, bit)
                if cell in pins:
                    raise ConfigError(
                        _(
                            "{source}, line {line}: cell {name!r} is wired to pin {pin} and already to pin "
                            "{other} (line {other_line}); each cell has exactly one sensor"
                        ).format(
                            source=source,
                            line=number,
                            name=name,
                            pin=pin,
                            other=pins[cell],
                            other_line=where[cell],
                        )
                    )
                pins[cell] = pin
                where[cell] = number
        return cls(pins)

    @classmethod
    def default(cls, layout: Layout) -> PinMap:
        """A port per board rank (rank 1 on 0A, a-file on bit 0), then the other cells row by row from 4A on.

        Raises :class:`ConfigError` if the table has more cells than eight expanders have inputs.
        """
        ranks = [[layout.square_cell(chess.square(file, rank)) for file in range(8)] for rank in range(8)]
        board = {cell for rank in ranks for cell in rank}
        others = [(c, r) for r in range(layout.rows) for c in range(layout.columns) if (c, r) not in board]
        ports = ranks + [others[i : i + BITS_PER_PORT] for i in range(0, len(others), BITS_PER_PORT)]
        if len(ports) > 2 * MAX_EXPANDERS:
            raise ConfigError(
                _(
                    "the {columns} x {rows} table has {cells} cells, more than the {inputs} inputs of eight "
                    "expanders; give map= a pin map of the cells you wire"
                ).format(
                    columns=layout.columns,
                    rows=layout.rows,
                    cells=layout.columns * layout.rows,
                    inputs=2 * MAX_EXPANDERS * BITS_PER_PORT,
                )
            )
        pins = {}
        for index, cells in enumerate(ports):
            for bit, cell in enumerate(cells):
                pins[cell] = Pin(index // 2, _port("AB"[index % 2]), bit)
        return cls(pins)

    # --- what it says ------------------------------------------------------------------------------

    @property
    def expanders(self) -> int:
        """How many expanders the map uses: one more than the highest index it names."""
        return 1 + max(pin.expander for pin in self.pins.values())

    def cells(self) -> frozenset[Cell]:
        """The cells that have a sensor."""
        return frozenset(self.pins)

    def port_cells(self, expander: int, port: Port) -> tuple[Cell | None, ...]:
        """The cells bits 0-7 of one port see (None: no sensor)."""
        found: list[Cell | None] = [None] * BITS_PER_PORT
        for cell, pin in self.pins.items():
            if pin.expander == expander and pin.port == port:
                found[pin.bit] = cell
        return tuple(found)

    def to_text(self, layout: Layout) -> str:
        """The map in the text format, one line per port that has a sensor, ready to edit and pass as map=."""
        lines = ["# PORT: BIT0 BIT1 BIT2 BIT3 BIT4 BIT5 BIT6 BIT7  (cells: e4, or c0r9 for column 0, row 9)"]
        for expander, port in _all_ports(self.expanders):
            cells = self.port_cells(expander, port)
            if any(cells):
                names = ("-" if cell is None else cell_name(cell, layout) for cell in cells)
                lines.append(f"{expander}{port}: " + " ".join(names))
        return "\n".join(lines) + "\n"

    def decoder(self) -> PortDecoder:
        """A fast lookup from port readings to cells, for the sensor's scan loop."""
        return PortDecoder(self)

    def __repr__(self) -> str:
        return f"PinMap({len(self.pins)} cells on {self.expanders} expanders)"


class PortDecoder:
    """Turns the (GPIOA, GPIOB) bytes of each expander into the occupied cells. Sensors pull low: a 0 bit
    is a magnet, so a piece."""

    def __init__(self, pin_map: PinMap) -> None:
        self._ports: list[tuple[tuple[int, Cell], ...]] = []
        for expander, port in _all_ports(pin_map.expanders):
            cells = pin_map.port_cells(expander, port)
            self._ports.append(tuple((1 << bit, cell) for bit, cell in enumerate(cells) if cell is not None))

    def occupied(self, readings: Sequence[tuple[int, int]]) -> frozenset[Cell]:
        """``readings[i]`` is (GPIOA, GPIOB) of expander ``i``, as read from the bus."""
        found = []
        for index, value in enumerate(_flatten(readings)):
            for mask, cell in self._ports[index]:
                if not value & mask:
                    found.append(cell)
        return frozenset(found)


def _flatten(readings: Iterable[tuple[int, int]]) -> Iterator[int]:
    for gpioa, gpiob in readings:
        yield gpioa
        yield gpiob


def _all_ports(expanders: int) -> Iterator[tuple[int, Port]]:
    for expander in range(expanders):
        yield expander, "A"
        yield expander, "B"


def _port(letter: str) -> Port:
    return "A" if letter == "A" else "B"
