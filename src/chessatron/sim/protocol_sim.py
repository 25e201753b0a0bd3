"""pyserial's handler for ``sim://`` URLs: ``serial.serial_for_url("sim://lab?speed=max")`` opens a
simulated GRBL 1.1 (:class:`chessatron.sim.grbl.SimGrbl`) on the world named ``lab``.

pyserial finds handlers as ``<package>.protocol_<scheme>`` for every package in
``serial.protocol_handler_packages``; importing :mod:`chessatron.grbl` adds ``chessatron.sim`` to that list.
URL options are those of :func:`chessatron.sim.grbl.sim_grbl_for_url`.

>>> import chessatron.grbl, serial
>>> with serial.serial_for_url("sim://doctest?speed=max&homing=0", timeout=1.0) as port:
...     port.readline(), port.readline()
(b'\\r\\n', b"Grbl 1.1h ['$' for help]\\r\\n")
"""

from __future__ import annotations

from typing import Any

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from ..i18n import _
from .grbl import SimGrbl, sim_grbl_for_url

__all__ = ["Serial"]


class Serial(SerialBase):  # type: ignore[misc]  # pyserial has no type information
    """A pyserial port whose other end is a :class:`SimGrbl`; :attr:`grbl` is that board, for world
    controls and fault injection."""

    is_open: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.grbl: SimGrbl | None = None
        super().__init__(*args, **kwargs)

    def open(self) -> None:
        if self.is_open:
            raise SerialException(_("{port!r} is already open").format(port=self.portstr))
        if self._port is None:
            raise SerialException(_("a sim:// port needs a URL before it can be opened"))
        self.grbl = sim_grbl_for_url(self._port, timeout=self._timeout)
        self.is_open = True

    def close(self) -> None:
        grbl, self.grbl = self.grbl, None
        self.is_open = False
        if grbl is not None:
            grbl.close()

    def _board(self) -> SimGrbl:
        if not self.is_open or self.grbl is None:
            raise PortNotOpenError()
        return self.grbl

    def _reconfigure_port(self, *args: Any, **kwargs: Any) -> None:
        if self.grbl is not None:
            self.grbl.timeout = self._timeout

    def _update_dtr_state(self) -> None:
        """No DTR line: opening the port is the power-up."""

    def _update_rts_state(self) -> None:
        """No RTS line."""

    def _update_break_state(self) -> None:
        """No break condition."""

    @property
    def in_waiting(self) -> int:
        return self._board().in_waiting

    def read(self, size: int = 1) -> bytes:
        return self._board().read(size)

    def write(self, data: bytes) -> int:
        return self._board().write(bytes(data))

    def flush(self) -> None:
        self._board().flush()

    def reset_input_buffer(self) -> None:
        self._board().reset_input_buffer()

    def reset_output_buffer(self) -> None:
        self._board().reset_output_buffer()

    @property
    def out_waiting(self) -> int:
        return 0

    @property
    def cts(self) -> bool:
        return True

    @property
    def dsr(self) -> bool:
        return True

    @property
    def ri(self) -> bool:
        return False

    @property
    def cd(self) -> bool:
        return True
