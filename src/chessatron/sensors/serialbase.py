"""What the serial sensor backends need of a port, the one place they open one with pyserial, and their
shared base (:class:`SerialSensor`: the port it owns, closed once).

A serial sensor URL names its protocol and, after it, the port: ``arduino:///dev/ttyACM0`` (a device
path; ``arduino://COM3`` on Windows) or, with ``+`` and a pyserial URL scheme, any port pyserial's
``serial_for_url`` can open: ``arduino+socket://pi.local:7000``, ``bitboard+rfc2217://host:2217``,
``arduino+loop://``.
"""

from __future__ import annotations

import logging
from typing import Protocol

from ..errors import ConfigError, SensorError
from ..i18n import _
from ..ports import DeviceUrl
from .base import SensorBase

LOGGER = logging.getLogger(__name__)


class SerialPort(Protocol):
    """The part of ``serial.Serial`` the sensors use; a fake can stand in for it."""

    timeout: float | None

    @property
    def in_waiting(self) -> int: ...

    def write(self, data: bytes, /) -> int | None: ...

    def read(self, size: int = 1, /) -> bytes: ...

    def readline(self) -> bytes: ...

    def reset_input_buffer(self) -> None: ...

    def close(self) -> None: ...


def port_url(url: DeviceUrl) -> str:
    """The pyserial URL or device path a sensor URL points at (``arduino+socket://h:7`` → "
    "``socket://h:7``)."""
    _kind, plus, via = url.scheme.partition("+")
    if plus:
        return f"{via}://{url.target}"
    if not url.target:
        raise ConfigError(
            _(
                "a {scheme}:// URL needs a port, e.g. {scheme}:///dev/ttyACM0 or {scheme}+socket://host:7000"
            ).format(scheme=url.scheme)
        )
    return url.target


def open_port(url: str, *, baudrate: int, timeout: float, what: str) -> SerialPort:
    """Open ``url`` with pyserial; raises :class:`SensorError` naming the port if it cannot be opened.
    ``what`` names the device (English, marked with ``N_``: the log keeps it so, the message translates
    it)."""
    import serial  # pyserial: a core dependency, imported only here among the sensors

    try:
        port: SerialPort = serial.serial_for_url(url, baudrate=baudrate, timeout=timeout)
    except (OSError, ValueError) as exc:
        raise SensorError(
            _(
                "cannot open {what} at {url!r} ({error}); check the cable, the port name and that no other "
                "program (a serial monitor, ModemManager) holds the port"
            ).format(what=_(what), url=url, error=exc)
        ) from exc
    LOGGER.info("opened %s at %r, %d baud", what, url, baudrate)
    return port


class SerialSensor(SensorBase):
    """A sensor on a serial port it owns and closes."""

    def __init__(self, port: SerialPort, name: str) -> None:
        self._port: SerialPort | None = port
        self.name = name

    def _open_port(self) -> SerialPort:
        if self._port is None:
            raise self._closed_error()
        return self._port

    def _close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            port.close()
