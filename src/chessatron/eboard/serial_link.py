"""The serial transport: an app on a serial line (the Pi's USB gadget port ``/dev/ttyGS0``, a USB-serial
adapter, a pseudo-terminal, or any pyserial URL such as ``socket://host:port``), opened with the
protocol's own settings (ChessLink's 38400 baud, 7 data bits, odd parity).

A line that goes away (a cable pulled, the app's end closed) is told once and opened again every second
until it is back: the game goes on meanwhile, and the app reads the position again when it reconnects.
"""

from __future__ import annotations

import contextlib
import logging
import termios
import threading
from collections.abc import Callable, Mapping
from typing import Any

import serial

from ..errors import HardwareError
from ..i18n import _
from .core import EboardProtocol

LOGGER = logging.getLogger(__name__)

#: Read at most this long before the protocol's timers tick (seconds).
READ_S = 0.02
#: Wait this long before opening a line that went away again (seconds).
REOPEN_S = 1.0


class SerialTransport:
    """The app at ``url``; :meth:`serve` feeds what it sends to the protocol (under ``lock``)."""

    def __init__(
        self,
        url: str,
        settings: Mapping[str, Any],
        lock: threading.RLock,
        *,
        notice: Callable[[str], None] = lambda message: None,
    ) -> None:
        self.url = url
        self.settings = dict(settings)
        self.lock = lock
        self.notice = notice
        self._port: serial.SerialBase | None = None
        self._write_lock = threading.Lock()

    def open(self) -> None:
        """Open the line. Raises :class:`~chessatron.errors.HardwareError` saying why it cannot be."""
        try:
            self._port = serial.serial_for_url(self.url, timeout=READ_S, write_timeout=1.0, **self.settings)
        except (serial.SerialException, ValueError, OSError, termios.error) as exc:
            raise HardwareError(
                _("cannot open the app's serial line {port!r}: {reason}").format(port=self.url, reason=exc)
            ) from exc

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def send(self, data: bytes, channel: str = "") -> None:
        """Write ``data`` to the app (a line that is gone drops it: the app asks again once back)."""
        del channel  # one line, one channel
        port = self._port
        if port is None:
            return
        with self._write_lock:
            try:
                port.write(data)
            except (serial.SerialException, OSError) as exc:
                LOGGER.warning("could not write to the app on %s: %s", self.url, exc)

    def serve(self, protocol: EboardProtocol, stop: threading.Event) -> None:
        """Hand the protocol what the app sends, and tick its timers, until ``stop`` is set."""
        lost = False
        while not stop.is_set():
            port = self._port
            if port is None:
                stop.wait(REOPEN_S)
                try:
                    self.open()
                except HardwareError as exc:
                    LOGGER.debug("%s", exc)
                    continue
                if lost:
                    self.notice(_("the app's line {port} is back").format(port=self.url))
                    lost = False
                continue
            try:
                data = port.read(max(1, port.in_waiting or 1))
            except (serial.SerialException, OSError) as exc:
                if not lost:
                    self.notice(
                        _("the app's line {port} went away ({reason}); waiting for it to come back").format(
                            port=self.url, reason=exc
                        )
                    )
                    lost = True
                self.close()
                continue
            if data:
                with self.lock:
                    try:
                        protocol.received(data)
                    except Exception:  # a protocol's bug must not end the game: logged, the line goes on
                        LOGGER.exception("the %s protocol failed on %r", protocol.name, data[:64])
