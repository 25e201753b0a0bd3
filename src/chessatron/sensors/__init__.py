"""Occupancy sensors: which table cells hold a piece, from whichever hardware the URL names.

>>> layout = Layout.default()
>>> with open_sensor("sim://", layout, world=SimWorld(layout)) as sensor:
...     len(sensor.scan())  # 32 pieces on the board, 10 spares in reserve
42

URL schemes (each backend's module documents its options):

* ``sim://[WORLD]?bounce=K:P&flicker=P&stuck=e4:1&seed=N`` — the simulated world's twin, with optional
  noise (:mod:`.sim`). Whole table.
* ``mcp23017://BUS?addresses=0x20,…&map=FILE-or-map`` — Hall sensors on MCP23017 expanders over I2C
  (:mod:`.mcp23017`, needs the ``pi`` extra). The cells the pin map wires: the whole table by default.
* ``arduino://PORT?baud=115200`` — an Arduino running ``firmware/chessatron_sensors`` (:mod:`.arduino`).
  Whole table.
* ``bitboard://PORT?baud=9600`` — a LiBoard-style board streaming 64-bit occupancy (:mod:`.bitboard`).
  Board squares only.

``PORT`` is a device path (``arduino:///dev/ttyACM0``) or, after ``+``, any pyserial URL
(``arduino+socket://host:7000``). Every sensor has ``covered_cells``, the cells it can see.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from ..errors import ConfigError
from ..i18n import _
from ..planning.layout import Cell, Layout
from ..ports import DeviceUrl, OccupancySensor
from ..sim.world import SimWorld
from .arduino import ArduinoSensor, arduino_settings, open_arduino
from .bitboard import BitboardSensor, bitboard_settings, open_bitboard
from .mcp23017 import I2cBus, Mcp23017Sensor, mcp23017_settings, open_mcp23017
from .pinmap import PinMap
from .serialbase import SerialPort
from .sim import Noise, SimSensor, open_sim, sim_settings

__all__ = [
    "ArduinoSensor",
    "BitboardSensor",
    "Mcp23017Sensor",
    "Noise",
    "PinMap",
    "SensorDevice",
    "SimSensor",
    "check_sensor_url",
    "open_sensor",
]

SCHEMES = ("sim", "mcp23017", "arduino", "bitboard")


@runtime_checkable
class SensorDevice(OccupancySensor, Protocol):
    """What every sensor :func:`open_sensor` opens offers besides the port: the cells it can see, and
    ``with``."""

    @property
    def covered_cells(self) -> frozenset[Cell]:
        """The table cells with a sensor under them; a scan never reports another."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


def open_sensor(
    url: str,
    layout: Layout,
    *,
    world: SimWorld | None = None,
    bus: I2cBus | None = None,
    port: SerialPort | None = None,
) -> SensorDevice:
    """Open the occupancy sensor ``url`` describes, for the table of ``layout``.

    The keyword arguments stand in for what a backend would open itself, e.g. fakes in tests: ``world``
    for ``sim://``, ``bus`` (an ``smbus2.SMBus``-like object) for ``mcp23017://``, ``port`` (a
    ``serial.Serial``-like object) for ``arduino://`` and ``bitboard://``. The sensor owns what it is given
    and closes it.

    Raises :class:`~chessatron.errors.ConfigError` for a URL it cannot use and
    :class:`~chessatron.errors.SensorError` if the device cannot be opened.
    """
    parsed, scheme = _parse(url)
    _only(scheme, "sim", world=world)
    _only(scheme, "mcp23017", bus=bus)
    _only(scheme, ("arduino", "bitboard"), port=port)
    try:
        if scheme == "sim":
            return open_sim(parsed, layout, world=world)
        if scheme == "mcp23017":
            return open_mcp23017(parsed, layout, bus=bus)
        if scheme == "arduino":
            return open_arduino(parsed, layout, port=port)
        return open_bitboard(parsed, layout, port=port)
    except BaseException:
        # What the caller handed over is the sensor's, even when no sensor comes of it.
        for given in (bus, port):
            if given is not None:
                given.close()
        raise


def check_sensor_url(url: str, layout: Layout) -> None:
    """Check ``url`` as :func:`open_sensor` would, with each backend's own parsing, without opening a
    device or importing a vendor library (``chessatron config check``). ``none://`` (no sensors) passes.

    Raises :class:`~chessatron.errors.ConfigError` naming what is wrong.
    """
    parsed = DeviceUrl.parse(url)
    if parsed.scheme == "none":
        parsed.check_options(())
        return
    parsed, scheme = _parse(url)
    if scheme == "sim":
        sim_settings(parsed, layout)
    elif scheme == "mcp23017":
        mcp23017_settings(parsed, layout)
    elif scheme == "arduino":
        arduino_settings(parsed)
    else:
        bitboard_settings(parsed)


def _parse(url: str) -> tuple[DeviceUrl, str]:
    """The parsed URL and its backend's scheme (``arduino`` for ``arduino+socket://``)."""
    parsed = DeviceUrl.parse(url)
    scheme = parsed.scheme.partition("+")[0]
    if scheme not in SCHEMES:
        if parsed.scheme == "serial":
            raise ConfigError(
                _(
                    "{url!r} names a port but not what talks on it; write arduino://{port} or "
                    "bitboard://{port}"
                ).format(url=url, port=parsed.target)
            )
        raise ConfigError(
            _(
                "unknown sensor URL scheme {scheme!r} in {url!r}; use sim://, mcp23017://1, "
                "arduino:///dev/ttyACM0 or bitboard:///dev/ttyUSB0"
            ).format(scheme=parsed.scheme, url=url)
        )
    if "+" in parsed.scheme and scheme not in ("arduino", "bitboard"):
        raise ConfigError(
            _("{scheme!r} in {url!r}: only serial sensors (arduino+…, bitboard+…) take a '+'").format(
                scheme=parsed.scheme, url=url
            )
        )
    return parsed, scheme


def _only(scheme: str, allowed: str | tuple[str, ...], **given: object) -> None:
    allowed = (allowed,) if isinstance(allowed, str) else allowed
    for name, value in given.items():
        if value is not None and scheme not in allowed:
            raise TypeError(
                f"{name}= is for {' and '.join(s + '://' for s in allowed)} sensors, not {scheme}://"
            )
