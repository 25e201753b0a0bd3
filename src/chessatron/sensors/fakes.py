"""Simulated sensor hardware, driven by a simulated world: an I2C bus of MCP23017 expanders, an Arduino
running ``firmware/chessatron_sensors`` and a LiBoard-style board.

Each fake models the device, not the driver: the expander's registers and pin levels, the sketch's shift
registers and replies, the LiBoard firmware's send-on-change loop. Hand one to :func:`open_sensor` to run a
hardware backend with no hardware (``bus=`` or ``port=``), in tests or on a laptop. Each has ``unplug()``,
after which every call raises :class:`OSError` as the real bus or port would.

>>> from chessatron.planning.layout import Layout
>>> from chessatron.sensors import open_sensor
>>> world = SimWorld(Layout.default())
>>> with open_sensor("arduino:///dev/fake", world.layout, port=FakeArduinoBoard(world)) as sensor:
...     len(sensor.scan())
42
"""

from __future__ import annotations

import errno
from collections import Counter

from ..planning.layout import Cell
from ..sim.world import SimWorld
from .bitboard import ByteOrder, frame_bytes
from .pinmap import PinMap

# MCP23017 registers with IOCON.BANK = 0 (the driver's constants are not reused: this is the chip's side).
_IODIRA, _IODIRB, _IPOLA, _IPOLB, _IOCON = 0x00, 0x01, 0x02, 0x03, 0x0A
_GPPUA, _GPPUB, _GPIOA, _GPIOB, _OLATA, _OLATB = 0x0C, 0x0D, 0x12, 0x13, 0x14, 0x15
_REGISTERS = 0x16
_SEQOP = 0x20


class FakeMcp23017Bus:
    """An I2C bus with MCP23017 expanders whose pins see the cells of ``pin_map`` in ``world``.

    Like a Hall sensor's open-drain output, a pin is pulled low while its cell holds a piece and floats
    otherwise. A floating input reads 1 only with the expander's pull-up enabled; this fake reads it as 0
    without one, so a driver that forgets the pull-ups sees pieces everywhere. Addresses with no expander
    raise ``OSError(EREMOTEIO)``, as Linux's i2c-dev does for a missing acknowledge.
    """

    def __init__(self, world: SimWorld, pin_map: PinMap, addresses: tuple[int, ...] | None = None) -> None:
        self.world = world
        self.addresses = addresses or tuple(range(0x20, 0x20 + pin_map.expanders))
        self._cells: dict[int, tuple[tuple[Cell | None, ...], tuple[Cell | None, ...]]] = {
            address: (pin_map.port_cells(index, "A"), pin_map.port_cells(index, "B"))
            for index, address in enumerate(self.addresses)
        }
        # Power-on state: every pin an input, no pull-ups, no inversion, sequential addressing.
        self.registers = {address: [0xFF, 0xFF] + [0] * (_REGISTERS - 2) for address in self.addresses}
        self.reads: Counter[int] = Counter()
        """Read transactions per address."""
        self.closed = False
        self.unplugged = False

    def unplug(self) -> None:
        """Pull the bus cable: every transaction fails from now on."""
        self.unplugged = True

    def _chip(self, address: int) -> list[int]:
        if self.closed:
            raise OSError(errno.EBADF, "Bad file descriptor")
        if self.unplugged or address not in self.registers:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        return self.registers[address]

    def write_byte_data(self, i2c_addr: int, register: int, value: int, force: bool | None = None) -> None:
        registers = self._chip(i2c_addr)
        if not 0 <= register < _REGISTERS or not 0 <= value <= 0xFF:
            raise OSError(errno.EIO, "Input/output error")
        if register in (_GPIOA, _GPIOB):
            register += _OLATA - _GPIOA  # writing GPIO writes the output latch
        registers[register] = value

    def read_byte_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int:
        registers = self._chip(i2c_addr)
        self.reads[i2c_addr] += 1
        return self._register(i2c_addr, registers, register)

    def read_i2c_block_data(
        self, i2c_addr: int, register: int, length: int, force: bool | None = None
    ) -> list[int]:
        registers = self._chip(i2c_addr)
        self.reads[i2c_addr] += 1
        values = []
        for _ in range(length):
            values.append(self._register(i2c_addr, registers, register))
            if registers[_IOCON] & _SEQOP:
                register ^= 1  # sequential operation off: the pointer toggles within the A/B pair
            else:
                register = (register + 1) % _REGISTERS
        return values

    def _register(self, address: int, registers: list[int], register: int) -> int:
        if register not in (_GPIOA, _GPIOB):
            return registers[register]
        port = register - _GPIOA
        occupied = self.world.occupied_cells()
        value = 0
        for bit, cell in enumerate(self._cells[address][port]):
            mask = 1 << bit
            if not registers[_IODIRA + port] & mask:
                level = bool(registers[_OLATA + port] & mask)  # an output reads its latch
            elif cell is not None and cell in occupied:
                level = False  # the sensor pulls low
            else:
                level = bool(registers[_GPPUA + port] & mask)  # floating: high only with the pull-up
            if level != bool(registers[_IPOLA + port] & mask):
                value |= mask
        return value

    def close(self) -> None:
        self.closed = True


class _FakePort:
    """A serial port whose far end is a simulated device; the pyserial calls the sensors make."""

    def __init__(self, timeout: float | None = 0.5) -> None:
        self.timeout = timeout
        self.closed = False
        self.unplugged = False
        self._outgoing = bytearray()  # device → host
        self._in_flight = bytearray()  # sent, arriving while the host waits in its next read()

    def unplug(self) -> None:
        """Pull the USB cable: every call fails from now on."""
        self.unplugged = True

    def _check(self) -> None:
        if self.closed:
            raise OSError(errno.EBADF, "Attempting to use a port that is not open")
        if self.unplugged:
            raise OSError(errno.EIO, "device reports readiness to read but returned no data (unplugged?)")

    def _tick(self) -> None:
        """Let the device run until the host's next call."""

    def _received(self, data: bytes) -> None:
        """Bytes from the host."""

    def send(self, data: bytes) -> None:
        """Make the device send raw bytes, e.g. line noise."""
        self._outgoing += data

    def send_later(self, data: bytes) -> None:
        """Bytes still on the wire: they arrive during the host's next :meth:`read`, within its timeout."""
        self._in_flight += data

    @property
    def in_waiting(self) -> int:
        self._check()
        self._tick()
        return len(self._outgoing)

    def write(self, data: bytes, /) -> int:
        self._check()
        self._received(bytes(data))
        return len(data)

    def read(self, size: int = 1, /) -> bytes:
        # Never blocks: what has not been sent by now would not arrive before the timeout either.
        self._check()
        self._tick()
        self._outgoing += self._in_flight
        self._in_flight.clear()
        data = bytes(self._outgoing[:size])
        del self._outgoing[:size]
        return data

    def readline(self) -> bytes:
        self._check()
        self._tick()
        end = self._outgoing.find(b"\n")
        size = len(self._outgoing) if end < 0 else end + 1
        data = bytes(self._outgoing[:size])
        del self._outgoing[:size]
        return data

    def reset_input_buffer(self) -> None:
        self._check()
        self._outgoing.clear()

    def close(self) -> None:
        self.closed = True


class FakeArduinoBoard(_FakePort):
    """An Arduino running ``chessatron_sensors.ino`` under the table of ``world``, seen from its USB port.

    A Python model of the sketch: the Hall sensors pull the inputs of a chain of 74HC165 shift registers
    low, cell ``row * COLUMNS + column`` on input ``n % 8`` of register ``n // 8``; ``chessatron\\n`` latches
    and shifts them in and prints the reply. ``columns`` and ``rows`` are the sketch's (the world's table
    unless given). Faults: :meth:`garble` spoils the next replies, ``ignore`` requests go unanswered (a
    board still in its bootloader), :meth:`unplug`.
    """

    def __init__(
        self, world: SimWorld, *, columns: int | None = None, rows: int | None = None, ignore: int = 0
    ) -> None:
        super().__init__()
        self.world = world
        self.columns = columns or world.layout.columns
        self.rows = rows or world.layout.rows
        self.ignore = ignore
        self.requests = 0
        self._incoming = bytearray()
        self._garble: list[str] = []

    def garble(self, *lines: str) -> None:
        """Replace row lines of the next replies, one reply per argument: ``garble("1,0,x")``."""
        self._garble.extend(lines)

    def _received(self, data: bytes) -> None:
        self._incoming += data
        while (end := self._incoming.find(b"\n")) >= 0:
            line = self._incoming[:end].decode("ascii", errors="replace").strip("\r")
            del self._incoming[: end + 1]
            if not line:
                continue
            self.requests += 1
            if self.ignore:
                self.ignore -= 1
            elif line == "chessatron":
                self._report()
            else:
                self.send(b"error unknown command\r\n")

    def _shift_in(self) -> list[int]:
        # The 74HC165 chain, latched: one byte per register, bit k = input Dk (1 = no magnet).
        occupied = self.world.occupied_cells()
        chips = [0xFF] * ((self.columns * self.rows + 7) // 8)
        for column, row in occupied:
            if column < self.columns and row < self.rows:
                n = row * self.columns + column
                chips[n // 8] &= ~(1 << (n % 8)) & 0xFF
        return chips

    def _report(self) -> None:
        chips = self._shift_in()
        lines = [f"chessatron 1 {self.columns} {self.rows}"]
        count = 0
        for row in range(self.rows - 1, -1, -1):
            values = []
            for column in range(self.columns):
                n = row * self.columns + column
                occupied = not chips[n // 8] >> (n % 8) & 1
                count += occupied
                values.append("1" if occupied else "0")
            lines.append(",".join(values))
        lines.append(f"end {count}")
        if self._garble:
            lines[1 + self.rows // 2] = self._garble.pop(0)
        self.send("".join(line + "\r\n" for line in lines).encode("ascii"))


class FakeLiBoard(_FakePort):
    """A LiBoard-style board on the board squares of ``world``: sends 8 bytes whenever they change.

    Like LiBoard's firmware, it starts from an empty board, so its first frame comes as soon as a piece
    stands on it. :meth:`send` injects raw bytes (a partial frame, noise).
    """

    def __init__(self, world: SimWorld, *, order: ByteOrder = "big", gap_s: float = 0.05) -> None:
        super().__init__(timeout=gap_s)
        self.world = world
        self.order: ByteOrder = order
        self.frames = 0
        self._last = 0

    def bits(self) -> int:
        """The board's occupancy now, bit 0 = a1."""
        layout = self.world.layout
        bits = 0
        for cell in self.world.occupied_cells():
            square = layout.node_square(layout.cell_node(cell))
            if square is not None:
                bits |= 1 << square
        return bits

    def _tick(self) -> None:
        bits = self.bits()
        if bits != self._last:
            self.send(frame_bytes(bits, self.order))
            self._last = bits
            self.frames += 1
