"""Hall sensors on MCP23017 I2C port expanders: ``mcp23017://BUS?addresses=0x20,0x21&map=…``.

Each expander has 16 inputs (ports A and B); eight expanders on one bus (addresses 0x20-0x27, set by their
A0-A2 pins) read up to 128 cells, the whole classic 12 x 10 table. The Hall sensors have open-drain
outputs that pull low near a magnet, so every pin is an input with the expander's 100 kΩ pull-up and a
0 bit means a piece. Which pin sees which cell comes from a pin map (:mod:`chessatron.sensors.pinmap`).

This is the only module that imports smbus2 (the ``pi`` extra); tests hand the sensor a fake bus.

>>> from chessatron.sensors.fakes import FakeMcp23017Bus
>>> from chessatron.sim.world import SimWorld
>>> world = SimWorld(Layout.default())
>>> pin_map = PinMap.default(world.layout)
>>> with Mcp23017Sensor(FakeMcp23017Bus(world, pin_map), world.layout, pin_map) as sensor:
...     len(sensor.scan())
42
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from .. import files
from ..errors import ConfigError, MissingLibraryError, SensorError
from ..i18n import N_, _
from ..planning.layout import Cell, Layout
from ..ports import DeviceUrl, Occupancy
from .base import SensorBase
from .options import check_options
from .pinmap import Pin, PinMap, Port

LOGGER = logging.getLogger(__name__)

# Register addresses with IOCON.BANK = 0, the power-on default (datasheet DS20001952, table 3-1).
IODIRA, IODIRB = 0x00, 0x01
IPOLA, IPOLB = 0x02, 0x03
GPINTENB = 0x05
IOCON = 0x0A
GPPUA, GPPUB = 0x0C, 0x0D
GPIOA, GPIOB = 0x12, 0x13

FIRST_ADDRESS, LAST_ADDRESS = 0x20, 0x27
OPTIONS = ("addresses", "map")


class I2cBus(Protocol):
    """What the sensor needs of an I2C bus: the subset of ``smbus2.SMBus`` it calls."""

    def read_byte_data(self, i2c_addr: int, register: int) -> int: ...

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None: ...

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]: ...

    def close(self) -> None: ...


class Mcp23017Sensor(SensorBase):
    """Occupancy from MCP23017 expanders: one two-byte read (GPIOA, GPIOB) per expander per scan.

    ``addresses`` are the expanders' I2C addresses in the order the pin map's indices count them. The
    sensor configures every expander when it is made and owns ``bus``: :meth:`close` closes it.

    Raises :class:`ConfigError` for addresses outside 0x20-0x27, repeated, or not matching the map, and
    :class:`SensorError` naming the address when the bus fails.
    """

    def __init__(
        self,
        bus: I2cBus,
        layout: Layout,
        pin_map: PinMap,
        addresses: Sequence[int] | None = None,
        *,
        bus_name: str = "1",
    ) -> None:
        self._bus: I2cBus | None = bus
        self.bus_name = bus_name
        self.name = _("i2c bus {bus!r}").format(bus=bus_name)
        try:
            _check_cells(pin_map, layout)
            self.addresses = _check_addresses(pin_map, addresses)
            self.pin_map = pin_map
            self.covered_cells: frozenset[Cell] = pin_map.cells()
            self._decoder = pin_map.decoder()
            for address in self.addresses:
                self._configure(bus, address)
        except BaseException:
            self.close()
            raise
        LOGGER.info("mcp23017 sensor on i2c bus %s: %r at %s", bus_name, pin_map, _hex(self.addresses))

    def _configure(self, bus: I2cBus, address: int) -> None:
        # IOCON = 0 keeps BANK = 0 (these register addresses) and SEQOP = 0, so one block read from GPIOA
        # continues to GPIOB. If an earlier program left BANK = 1, address 0x05 is IOCON there; in BANK = 0
        # it is GPINTENB, harmless to clear. Writing it first brings either state back to BANK = 0.
        writes = (
            (GPINTENB, 0x00),
            (IOCON, 0x00),
            (IODIRA, 0xFF),  # all inputs
            (IODIRB, 0xFF),
            (IPOLA, 0x00),  # no inversion: a magnet reads 0
            (IPOLB, 0x00),
            (GPPUA, 0xFF),  # pull-ups: the sensors only ever pull low
            (GPPUB, 0xFF),
        )
        for register, value in writes:
            try:
                bus.write_byte_data(address, register, value)
            except OSError as exc:
                raise self._error(
                    address,
                    N_(
                        "mcp23017 at {address} on i2c bus {bus!r} did not accept its configuration "
                        "({error}); "
                        "check its power, its SDA/SCL wiring and that its A0-A2 pins give address {address} "
                        "(i2cdetect -y {bus})"
                    ),
                    exc,
                ) from exc

    def scan(self) -> Occupancy:
        """Read every expander once and return the cells whose sensor pulls low."""
        bus = self._open_bus()
        readings = []
        for address in self.addresses:
            try:
                data = bus.read_i2c_block_data(address, GPIOA, 2)
            except OSError as exc:
                raise self._error(
                    address,
                    N_(
                        "mcp23017 at {address} on i2c bus {bus!r} could not be read ({error}); check its "
                        "power, "
                        "its SDA/SCL wiring and that its A0-A2 pins give address {address} (i2cdetect -y "
                        "{bus})"
                    ),
                    exc,
                ) from exc
            if len(data) != 2:
                raise SensorError(
                    _(
                        "mcp23017 at {address} on i2c bus {bus!r} returned {data!r} for GPIOA and GPIOB; "
                        "expected two bytes. Check the bus wiring and pull-ups"
                    ).format(address=f"{address:#04x}", bus=self.bus_name, data=data)
                )
            readings.append((data[0], data[1]))
        return self._decoder.occupied(readings)

    def low_pins(self) -> frozenset[Pin]:
        """Every input of every expander pulled low now, whatever the pin map says (``hw calibrate``
        reads the wiring with it)."""
        bus = self._open_bus()
        low: set[Pin] = set()
        ports: tuple[Port, Port] = ("A", "B")
        for index, address in enumerate(self.addresses):
            try:
                data = bus.read_i2c_block_data(address, GPIOA, 2)
            except OSError as exc:
                raise self._error(address, "could not be read", exc) from exc
            for port, value in zip(ports, data, strict=False):
                low.update(Pin(index, port, bit) for bit in range(8) if not value >> bit & 1)
        return frozenset(low)

    def _open_bus(self) -> I2cBus:
        if self._bus is None:
            raise self._closed_error()
        return self._bus

    def _error(self, address: int, message: str, exc: OSError) -> SensorError:
        """``message`` (marked with ``N_``: ``{address}``, ``{bus}``, ``{error}``) for ``exc``."""
        reason = exc.strerror or str(exc) or type(exc).__name__
        return SensorError(_(message).format(address=f"{address:#04x}", bus=self.bus_name, error=reason))

    def _close(self) -> None:
        bus, self._bus = self._bus, None
        if bus is not None:
            bus.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        cells = len(self.covered_cells)
        return f"<Mcp23017Sensor bus {self.bus_name!r} {_hex(self.addresses)} {cells} cells {state}>"


def open_mcp23017(url: DeviceUrl, layout: Layout, *, bus: I2cBus | None = None) -> Mcp23017Sensor:
    """The sensor a ``mcp23017://BUS?addresses=…&map=…`` URL describes.

    ``BUS`` is the I2C bus number (``1`` on a Raspberry Pi, the default) or a device path such as
    ``/dev/i2c-1``. ``addresses`` defaults to 0x20 upwards, as many as the map uses. ``map`` is a pin map
    file, the map itself (lines separated by ``;``), or ``default`` (:meth:`PinMap.default`, also used
    when it is left out). ``bus`` replaces the real bus, e.g. with a fake in tests.
    """
    pin_map, addresses, target = mcp23017_settings(url, layout)
    if bus is None:
        bus = _smbus(target)
    return Mcp23017Sensor(bus, layout, pin_map, addresses, bus_name=target)


def mcp23017_settings(url: DeviceUrl, layout: Layout) -> tuple[PinMap, tuple[int, ...], str]:
    """The pin map, the expanders' addresses and the bus an ``mcp23017://`` URL names, checked against
    each other and the layout, without opening the bus or importing smbus2. Raises :class:`ConfigError`."""
    check_options(url, OPTIONS, "mcp23017://1?addresses=0x20,0x21&map=pins.txt")
    target = url.target or "1"
    if not (target.isdigit() or target.startswith("/")):
        raise ConfigError(
            _(
                "mcp23017://{target} does not name an I2C bus; write its number (mcp23017://1) or its device "
                "(mcp23017:///dev/i2c-1)"
            ).format(target=url.target)
        )
    pin_map = pin_map_option(url.params.get("map", "default"), layout)
    _check_cells(pin_map, layout)
    return pin_map, _check_addresses(pin_map, url.integers("addresses", []) or None), target


def _smbus(target: str) -> I2cBus:
    try:
        import smbus2
    except ImportError as exc:
        raise MissingLibraryError(
            _(
                "mcp23017:// sensors need the smbus2 library; install chessatron with the pi extra "
                "(pip install 'chessatron[pi]')"
            )
        ) from exc
    where: int | str = int(target) if target.isdigit() else target
    try:
        bus: I2cBus = smbus2.SMBus(where)
    except OSError as exc:
        raise SensorError(
            _(
                "cannot open i2c bus {bus!r} ({error}); enable I2C (raspi-config) and check that /dev/i2c-* "
                "exists and that you may use it (group i2c)"
            ).format(bus=target, error=exc.strerror or exc)
        ) from exc
    return bus


def pin_map_option(text: str, layout: Layout) -> PinMap:
    """The pin map a ``map=`` option names: a file, the map itself (``;`` between lines), or ``default``."""
    if text.strip().lower() in ("", "default"):
        return PinMap.default(layout)
    if ":" in text.split("#", 1)[0] and files.is_missing(text):
        return PinMap.parse(text, layout, source=_("the map= option"))
    return PinMap.parse(files.read_text(text, files.PIN_MAP), layout, source=repr(text))


def _check_cells(pin_map: PinMap, layout: Layout) -> None:
    for cell, pin in sorted(pin_map.pins.items()):
        if not (0 <= cell[0] < layout.columns and 0 <= cell[1] < layout.rows):
            raise ConfigError(
                _(
                    "pin {pin} is wired to cell {cell!r}, outside the {columns} x {rows} table; fix the pin "
                    "map "
                    "or the layout"
                ).format(pin=pin, cell=cell, columns=layout.columns, rows=layout.rows)
            )


def _check_addresses(pin_map: PinMap, addresses: Sequence[int] | None) -> tuple[int, ...]:
    if addresses is None:
        return tuple(range(FIRST_ADDRESS, FIRST_ADDRESS + pin_map.expanders))
    for address in addresses:
        if not FIRST_ADDRESS <= address <= LAST_ADDRESS:
            raise ConfigError(
                _(
                    "i2c address {address} is not an mcp23017 address; use 0x20-0x27 (set by pins A0-A2)"
                ).format(address=f"{address:#04x}")
            )
    repeated = sorted({a for a in addresses if list(addresses).count(a) > 1})
    if repeated:
        raise ConfigError(
            _("addresses= lists {addresses} more than once; give each expander once").format(
                addresses=_hex(repeated)
            )
        )
    if len(addresses) < pin_map.expanders:
        raise ConfigError(
            _(
                "the pin map uses {count} expanders (0-{last}) but addresses= lists {given} ({addresses}); "
                "add "
                "the missing addresses in the map's order"
            ).format(
                count=pin_map.expanders,
                last=pin_map.expanders - 1,
                given=len(addresses),
                addresses=_hex(addresses),
            )
        )
    if len(addresses) > pin_map.expanders:
        raise ConfigError(
            _(
                "addresses= lists {given} expanders ({addresses}) but the pin map uses only {count}; remove "
                "the "
                "unused addresses or map their pins"
            ).format(given=len(addresses), addresses=_hex(addresses), count=pin_map.expanders)
        )
    return tuple(addresses)


def _hex(addresses: Sequence[int]) -> str:
    return ",".join(f"{a:#04x}" for a in addresses)
