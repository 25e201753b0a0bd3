"""LiBoard-style boards that stream their occupancy as a bitboard: ``bitboard:///dev/ttyUSB0``.

Such a board senses the 64 board squares only and sends eight bytes each time the occupancy changes,
nothing in between. The 64 bits are little-endian rank-file mapped (bit 0 = a1, bit 7 = h1, bit 63 = h8),
and the bytes go most significant first, as LiBoard's firmware writes them (``order=big``, the default:
the first byte holds rank 8, h8 in its top bit). ``order=little`` reads boards that send a1's byte first.
LiBoard talks at 9600 baud.

The stream has no framing, so the sensor keeps its place by timing: a frame's bytes follow each other
closely, and a partial frame followed by silence longer than ``gap`` seconds is dropped (logged) so the
next byte starts a new frame. :class:`FrameDecoder` holds that logic without I/O.

The board sends nothing while nothing changes, so the sensor keeps the latest frame and :meth:`scan`
returns it. The first scan waits up to ``wait`` seconds for a first frame (LiBoard's firmware sends
one about three seconds after the port opens, unless the board is empty).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal, ParamSpec, TypeVar

import chess

from ..errors import ConfigError, SensorError, SensorTimeoutError
from ..i18n import N_, _
from ..planning.layout import Cell, Layout
from ..ports import DeviceUrl, Occupancy
from ..serialurl import check_serial_url
from .options import check_options, positive_integer, seconds
from .serialbase import SerialPort, SerialSensor, open_port, port_url

LOGGER = logging.getLogger(__name__)

FRAME_BYTES = 8
DEFAULT_BAUD = 9600
OPTIONS = ("baud", "order", "gap", "wait")
_DRAIN_ROUNDS = 8
ByteOrder = Literal["big", "little"]
_T = TypeVar("_T")
_P = ParamSpec("_P")


def squares(bits: int) -> frozenset[chess.Square]:
    """The squares of a little-endian rank-file bitboard (bit 0 = a1)."""
    return frozenset(square for square in chess.SQUARES if bits >> square & 1)


def frame_bytes(bits: int, order: ByteOrder = "big") -> bytes:
    """The eight bytes a board sends for ``bits``."""
    return bits.to_bytes(FRAME_BYTES, order)


class FrameDecoder:
    """Cuts a byte stream into 8-byte bitboards. Feed it bytes; drop the partial frame after a silence."""

    def __init__(self, order: ByteOrder = "big") -> None:
        self.order: ByteOrder = order
        self._pending = bytearray()

    @property
    def pending(self) -> int:
        """Bytes of a frame begun but not finished."""
        return len(self._pending)

    def feed(self, data: bytes) -> list[int]:
        """The bitboards completed by ``data``, oldest first."""
        self._pending += data
        frames = []
        while len(self._pending) >= FRAME_BYTES:
            frames.append(int.from_bytes(self._pending[:FRAME_BYTES], self.order))
            del self._pending[:FRAME_BYTES]
        return frames

    def drop(self) -> bytes:
        """Forget the partial frame (after a silence: its other bytes were lost) and return it."""
        dropped = bytes(self._pending)
        self._pending.clear()
        return dropped


class BitboardSensor(SerialSensor):
    """The board squares' occupancy from a LiBoard-style stream; cells off the board are not sensed.

    ``port.timeout`` is the inter-byte gap that ends a partial frame; ``wait_s`` how long the first scan
    waits for a first frame. The sensor owns ``port`` and closes it.
    """

    def __init__(
        self,
        port: SerialPort,
        layout: Layout,
        *,
        order: ByteOrder = "big",
        wait_s: float = 4.0,
        name: str | None = None,
    ) -> None:
        super().__init__(port, _("the bitboard") if name is None else name)
        self.layout = layout
        self.wait_s = wait_s
        self.decoder = FrameDecoder(order)
        self.bits: int | None = None
        """The latest complete frame, None before the first."""
        self.covered_cells: frozenset[Cell] = frozenset(layout.board_cells())

    def scan(self) -> Occupancy:
        """The latest occupancy the board sent, after reading everything that has arrived."""
        port = self._open_port()
        self._drain(port)
        bits = self._first_frame(port) if self.bits is None else self.bits
        return frozenset(self.layout.square_cell(square) for square in squares(bits))

    def _drain(self, port: SerialPort) -> None:
        # A few rounds at most: a device that never stops talking must not hold the scan forever.
        for _round in range(_DRAIN_ROUNDS):
            waiting = self._io(lambda: port.in_waiting)
            if waiting:
                self._take(self._io(port.read, waiting))
            elif self.decoder.pending:
                # The rest of the frame may be on its way: wait one gap for it, then give up on the frame.
                needed = FRAME_BYTES - self.decoder.pending
                data = self._io(port.read, needed)
                self._take(data)
                if len(data) < needed:
                    self._drop()
                    return
            else:
                return

    def _first_frame(self, port: SerialPort) -> int:
        timeout = port.timeout or 0.1
        for _attempt in range(max(1, round(self.wait_s / timeout))):
            data = self._io(port.read, FRAME_BYTES - self.decoder.pending)
            if data:
                self._take(data)
            elif self.decoder.pending:
                self._drop()
            if self.bits is not None:
                self._drain(port)
                return self.bits
        raise SensorTimeoutError(
            _(
                "{name} sent no frame within {seconds} s; check the cable and the baud rate. A LiBoard-style "
                "board sends only changes, and nothing while it is empty: put a piece on it"
            ).format(name=self.name, seconds=f"{self.wait_s:g}")
        )

    def _drop(self) -> None:
        dropped = self.decoder.drop()
        LOGGER.warning("%s: dropped the partial frame %r after a silence", self.name, dropped)

    def _take(self, data: bytes) -> None:
        frames = self.decoder.feed(data)
        if frames:
            self.bits = frames[-1]

    def _io(self, action: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        try:
            return action(*args, **kwargs)
        except OSError as exc:
            raise SensorError(
                _("{name} could not be read ({error}); check that it is plugged in").format(
                    name=self.name, error=exc
                )
            ) from exc

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        bits = "no frame yet" if self.bits is None else f"{self.bits:#018x}"
        return f"<BitboardSensor {self.name} {bits} {state}>"


def open_bitboard(url: DeviceUrl, layout: Layout, *, port: SerialPort | None = None) -> BitboardSensor:
    """The sensor a ``bitboard://PORT?baud=9600&order=big&gap=0.05&wait=4`` URL describes.

    ``gap`` is the silence in seconds that ends a partial frame, ``wait`` how long the first scan waits for
    a first frame. ``port`` replaces the serial port, e.g. with a fake in tests.
    """
    target, baud, gap, wait, order = bitboard_settings(url)
    if port is None:
        port = open_port(target, baudrate=baud, timeout=gap, what=N_("the bitboard"))
    elif "gap" in url.params:
        port.timeout = gap
    name = _("the bitboard at {port!r}").format(port=target)
    return BitboardSensor(port, layout, order=order, wait_s=wait, name=name)


def bitboard_settings(url: DeviceUrl) -> tuple[str, int, float, float, ByteOrder]:
    """The port, baud rate, frame gap, first wait (seconds) and byte order a ``bitboard://`` URL names,
    opening nothing. Raises :class:`ConfigError`."""
    check_options(url, OPTIONS, "bitboard:///dev/ttyUSB0?baud=9600")
    baud = positive_integer(url, "baud", DEFAULT_BAUD)
    gap = seconds(url, "gap", 0.05)
    if gap == 0.0:
        raise ConfigError(
            _("option gap=0 in a bitboard:// URL leaves no time between bytes; use e.g. gap=0.05")
        )
    wait = seconds(url, "wait", 4.0)
    order = url.params.get("order", "big")
    if order not in ("big", "little"):
        raise ConfigError(
            _(
                "option order={order!r} in a bitboard:// URL is not a byte order; use big (LiBoard: rank 8's "
                "byte first) or little (a1's byte first)"
            ).format(order=order)
        )
    target = port_url(url)
    check_serial_url(target)
    return target, baud, gap, wait, "big" if order == "big" else "little"
