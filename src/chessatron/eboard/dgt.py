"""The DGT board protocol: the table as a DGT USB/serial e-board (9600 baud, 8N1), with a DGT 3000 clock.

The app sends one-byte commands (``DGT_SEND_BRD``, ``DGT_SEND_UPDATE_NICE``...) and two framed ones: a
clock message (``0x2b``, size, ``0x03``, clock command, content, ``0x00``) and the Revelation II's LEDs
(``0x60``, size, pattern, from, to, ``0x00``). The board answers with messages of a three-byte header (id
with the top bit set, the total size in two 7-bit bytes) and data bytes below ``0x80``. Fields are
numbered 0 (a8) to 63 (h1), row by row as read from White's side.

A DGT board knows only what stands on it: a lifted piece is an empty field. The protocol has no message
for an app's move; apps (PicoChess, DGT LiveChess, the DGT Rabbit plugin) show their engine's move on the
clock (text such as ``e2e4``, ``Nf3`` or ``12.Nf3``, or a DGT XL's six 7-segment digits) or light its
two squares on a Revelation II. Where that names one legal move, :meth:`AppListener.app_move` hears it.
Specification: DGT's ``dgtbrd.h`` (as shipped with PicoChess), python-asyncdgt, PicoChess's ``dgt/``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import chess

from . import lit
from .core import EboardProtocol, TableView
from .dgt_clock import move_in_text, xl_text

LOGGER = logging.getLogger(__name__)

# Commands from the app to the board.
SEND_RESET = 0x40
SEND_CLK = 0x41
SEND_BRD = 0x42
SEND_UPDATE = 0x43
SEND_UPDATE_BRD = 0x44
RETURN_SERIALNR = 0x45
RETURN_BUSADRES = 0x46
SEND_TRADEMARK = 0x47
SEND_EE_MOVES = 0x49
TO_BUSMODE = 0x4A
SEND_UPDATE_NICE = 0x4B
SEND_BATTERY_STATUS = 0x4C
SEND_VERSION = 0x4D
STARTBOOTLOADER = 0x4E
RETURN_LONG_SERIALNR = 0x55
SET_LEDS = 0x60
CLOCK_MESSAGE = 0x2B
#: Draughts boards' scan and dump commands (50 squares): a chess board ignores them.
DRAUGHTS_COMMANDS = frozenset({0x50, 0x51, 0x52, 0x53, 0x54})

# Messages from the board to the app.
MESSAGE_BIT = 0x80
MSG_BOARD_DUMP = MESSAGE_BIT | 0x06
MSG_BWTIME = MESSAGE_BIT | 0x0D
MSG_FIELD_UPDATE = MESSAGE_BIT | 0x0E
MSG_EE_MOVES = MESSAGE_BIT | 0x0F
MSG_BUSADRES = MESSAGE_BIT | 0x10
MSG_SERIALNR = MESSAGE_BIT | 0x11
MSG_TRADEMARK = MESSAGE_BIT | 0x12
MSG_VERSION = MESSAGE_BIT | 0x13
MSG_BATTERY_STATUS = MESSAGE_BIT | 0x20
MSG_LONG_SERIALNR = MESSAGE_BIT | 0x22
EE_EOF = 0x6B

# Clock commands inside a clock message, and the framing bytes around them.
CLOCK_START_MESSAGE = 0x03
CLOCK_END_MESSAGE = 0x00
CLOCK_DISPLAY = 0x01
CLOCK_ICONS = 0x02
CLOCK_END = 0x03
CLOCK_BUTTON = 0x08
CLOCK_VERSION = 0x09
CLOCK_SETNRUN = 0x0A
CLOCK_BEEP = 0x0B
CLOCK_ASCII = 0x0C
REV2_ASCII = 0x0D
CLOCK_COMMANDS = frozenset(
    {CLOCK_DISPLAY, CLOCK_ICONS, CLOCK_END, CLOCK_BUTTON, CLOCK_VERSION, CLOCK_SETNRUN, CLOCK_BEEP}
    | {CLOCK_ASCII, REV2_ASCII}
)
#: A clock ack's first byte when all is well (0x40: an error).
ACK_OK = 0x10

#: The largest size byte a framed command carries (a Revelation II text: 15).
MAX_FRAME = 0x20
#: Seconds a message may stay half received before the board forgets it (a truncated message).
STALE_AFTER = 0.5
#: Seconds of silence after which the next byte is a newly connected app.
SILENCE = 30.0

PIECE_CODES = {chess.PAWN: 1, chess.ROOK: 2, chess.KNIGHT: 3, chess.BISHOP: 4, chess.KING: 5, chess.QUEEN: 6}
EMPTY = 0x00

Mode = Literal["idle", "update", "update_board", "update_nice"]
MODES: dict[int, Mode] = {
    SEND_RESET: "idle",
    SEND_UPDATE: "update",
    SEND_UPDATE_BRD: "update_board",
    SEND_UPDATE_NICE: "update_nice",
}


def square_of(number: int) -> chess.Square:
    """The square of DGT field ``number`` (0-63; a8 is 0, h1 63): the ranks counted from the top."""
    return number ^ 0x38


def piece_code(piece: chess.Piece | None) -> int:
    """The DGT piece code (0 empty, 1-6 white P R N B K Q, 7-12 black)."""
    if piece is None:
        return EMPTY
    return PIECE_CODES[piece.piece_type] + (0 if piece.color == chess.WHITE else 6)


def board_codes(view: TableView) -> bytes:
    """The 64 piece codes of the board dump, field 0 (a8) first; a lifted piece is an empty field."""
    return bytes(piece_code(view.piece_at(square_of(number))) for number in range(64))


def message(message_id: int, data: bytes = b"") -> bytes:
    """A board message: the id, the total size (header included) in two 7-bit bytes, the data."""
    size = len(data) + 3
    return bytes((message_id, (size >> 7) & 0x7F, size & 0x7F)) + data


def clock_ack(command: int, ack2: int = 0, ack3: int = 0, ack0: int = ACK_OK) -> bytes:
    """A ``DGT_MSG_BWTIME`` clock ack of ``command``: four ack bytes spread over seven 7-bit bytes, the
    top bit of each carried in bits 4 and 5 of bytes 0 and 3 (whose low nibble 0x0a marks an ack)."""

    def top(value: int, shift: int) -> int:
        return ((value >> 7) & 1) << shift

    return message(
        MSG_BWTIME,
        bytes(
            (
                0x0A | top(ack2, 4) | top(ack3, 5),
                ack0 & 0x7F,
                command & 0x7F,
                0x0A | top(ack0, 4) | top(command, 5),
                ack2 & 0x7F,
                ack3 & 0x7F,
                0x00,
            )
        ),
    )


def _bcd(value: int) -> int:
    return (value // 10) * 16 + value % 10


@dataclass
class Clock:
    """The clock's times as the app last set them (seconds; the clock does not count them down) and the
    side counting down (``0x01`` left, ``0x02`` right, 0: paused)."""

    left: int = 0
    right: int = 0
    running: int = 0

    def bwtime(self) -> bytes:
        """The ``DGT_MSG_BWTIME`` clock times message (right player first, as the clock sends it)."""
        data = bytearray()
        for seconds in (self.right, self.left):
            hours, rest = divmod(min(seconds, 9 * 3600 + 3599), 3600)
            data += bytes((hours, _bcd(rest // 60), _bcd(rest % 60)))
        status = 0x00
        if self.running & 0x03:
            status |= 0x01 | (0x08 if self.running & 0x02 else 0x10)
        data.append(status)
        return message(MSG_BWTIME, bytes(data))


@dataclass
class Dgt(EboardProtocol):
    """The DGT board protocol for one app, with a DGT 3000 clock attached to the board.

    Field updates go out in the update modes (``DGT_SEND_UPDATE``, ``_UPDATE_BRD``, ``_UPDATE_NICE``)
    on every change of the view; clock commands are acked as a DGT 3000 does, in the update modes with
    clock data only (``DGT_SEND_UPDATE``, ``_UPDATE_NICE``), as the board does.
    """

    name: ClassVar[str] = "dgt"
    transports: ClassVar[tuple[str, ...]] = ("serial",)
    serial_settings: ClassVar[dict[str, object]] = {
        "baudrate": 9600,
        "bytesize": 8,
        "parity": "N",
        "stopbits": 1,
    }
    ble_channels: ClassVar[dict[str, str]] = {}
    #: What the board says of itself. The bus address is the serial number, in two 7-bit bytes.
    serial_number: ClassVar[str] = "02024"
    long_serial_number: ClassVar[str] = "0000002024"
    version: ClassVar[tuple[int, int]] = (1, 7)
    clock_version: ClassVar[int] = 0x22  # a DGT 3000 (main version 2): apps send it ASCII text
    trademark: ClassVar[str] = (
        "chessatron robot table - speaks the DGT board protocol.\n"
        "DGT is a trade mark of its owner; this table is not a DGT product.\n"
    )

    mode: Mode = field(default="idle", init=False)
    clock: Clock = field(default_factory=Clock, init=False)
    lit_squares: frozenset[chess.Square] = field(default=frozenset(), init=False)
    _codes: bytes = field(default=b"", init=False, repr=False)
    _buffer: bytearray = field(default_factory=bytearray, init=False, repr=False)
    _ignored: bytearray = field(default_factory=bytearray, init=False, repr=False)
    _named: tuple[str, chess.Move] | None = field(default=None, init=False, repr=False)
    _connected: bool = field(default=False, init=False, repr=False)
    _heard: bool = field(default=False, init=False, repr=False)
    _heard_at: float | None = field(default=None, init=False, repr=False)
    _pending_since: float | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._codes = board_codes(self.view)

    # What the table reports.

    def report(self, view: TableView) -> None:
        """Field updates for every field whose piece changed (the emptied fields first, as a hand lifts
        before it sets down), in the update modes."""
        codes = board_codes(view)
        if self.mode != "idle":
            changes = [
                (number, code)
                for number, (old, code) in enumerate(zip(self._codes, codes, strict=True))
                if old != code
            ]
            changes.sort(key=lambda change: change[1] != EMPTY)
            if changes:
                self.send(b"".join(message(MSG_FIELD_UPDATE, bytes(change)) for change in changes), "")
        self._codes = codes
        super().report(view)

    def tick(self, now: float) -> None:
        """Forget a message left half received (a truncated one) after :data:`STALE_AFTER` seconds, and
        take the next byte after a silence of :data:`SILENCE` seconds for a newly connected app."""
        if self._heard:
            self._heard = False
            self._heard_at = now
            self._pending_since = now if self._buffer else None
        elif self._heard_at is not None and now - self._heard_at > SILENCE:
            self._connected = False
        if self._buffer and self._pending_since is not None and now - self._pending_since > STALE_AFTER:
            LOGGER.warning("dgt: forgot a truncated message from the app: %s", self._buffer.hex(" "))
            self._buffer.clear()
            self._pending_since = None

    # What the app sends.

    def received(self, data: bytes, channel: str = "") -> None:
        """Parse what the app sent; answer every complete command; keep a partial one for the next chunk."""
        del channel  # one serial line
        self._heard = True
        self._buffer += data
        while self._buffer:
            first = self._buffer[0]
            if first in (CLOCK_MESSAGE, SET_LEDS):
                frame = self._frame()
                if frame is None:
                    break  # the rest has not arrived yet
                if frame:
                    self._greet()
                    if first == CLOCK_MESSAGE:
                        self._clock_message(frame)
                    else:
                        self._leds(frame)
                continue
            del self._buffer[0]
            self._command(first)
        if self._ignored:
            LOGGER.warning(
                "dgt: ignored %d byte(s) the board does not know: %s",
                len(self._ignored),
                self._ignored[:16].hex(" "),
            )
            self._ignored.clear()

    def _frame(self) -> bytes | None:
        """The body of the framed command at the buffer's start (taken out of it), None while it is
        incomplete, or b"" where it was bad (the bad bytes taken out, with a log line)."""
        buffer = self._buffer
        if len(buffer) < 2:
            return None
        size = buffer[1]
        if not 2 <= size <= MAX_FRAME:
            LOGGER.warning("dgt: bad size %#04x after command %#04x; skipped", size, buffer[0])
            del buffer[0]  # what follows may be a command of its own
            return b""
        body = buffer[2 : 2 + size]
        high = next((index for index, byte in enumerate(body) if byte & 0x80), None)
        if high is not None:
            LOGGER.warning("dgt: a byte with its top bit set in %s; skipped", buffer[: 2 + high].hex(" "))
            del buffer[: 2 + high]
            return b""
        if buffer[0] == CLOCK_MESSAGE and body and body[0] != CLOCK_START_MESSAGE:
            LOGGER.warning("dgt: a clock message without its start byte: %s; skipped", buffer[:3].hex(" "))
            del buffer[:2]
            return b""
        if len(body) < size:
            return None
        del buffer[: 2 + size]
        if body[-1] != CLOCK_END_MESSAGE:
            LOGGER.warning("dgt: a message without its end byte: %s; skipped", body.hex(" "))
            return b""
        return bytes(body)

    def _greet(self) -> None:
        if not self._connected:
            self._connected = True
            self.table.app_connected("DGT board app")

    def _reply(self, data: bytes) -> None:
        self.send(data, "")

    def _command(self, command: int) -> None:
        if command in MODES:
            self._greet()
            self.mode = MODES[command]
            LOGGER.debug("dgt: %s mode", self.mode)
        elif command in _ANSWERS:
            self._greet()
            self._reply(_ANSWERS[command](self))
        elif command in (TO_BUSMODE, STARTBOOTLOADER) or command in DRAUGHTS_COMMANDS:
            self._greet()
            LOGGER.info("dgt: command %#04x is not for this board (bus mode, boot loader, draughts)", command)
        else:
            self._ignored.append(command)

    def _clock_message(self, body: bytes) -> None:
        command, content = body[1] if len(body) > 2 else -1, body[2:-1]
        if command not in CLOCK_COMMANDS:
            LOGGER.warning("dgt: unknown clock command in %s; no ack", body.hex(" "))
            return
        if command == CLOCK_ASCII and content:
            self._shown(content[:8].decode("ascii", "replace"))
        elif command == REV2_ASCII and content:
            self._shown(content[:11].decode("ascii", "replace"))
        elif command == CLOCK_DISPLAY and len(content) >= 6:
            self._shown(xl_text(content[:6]))
        elif command == CLOCK_END:
            self._named = None  # the app took its move off the clock: shown again, it is asked again
        elif command == CLOCK_SETNRUN and len(content) >= 7:
            hours_minutes_seconds = [
                byte & 0x0F if index % 3 == 0 else byte for index, byte in enumerate(content)
            ]
            lh, lm, ls, rh, rm, rs = hours_minutes_seconds[:6]
            self.clock = Clock(lh * 3600 + lm * 60 + ls, rh * 3600 + rm * 60 + rs, content[6] & 0x03)
        if self.mode in ("update", "update_nice"):
            self._reply(clock_ack(command, ack2=self.clock_version if command == CLOCK_VERSION else 0))
            if command == CLOCK_SETNRUN:
                self._reply(self.clock.bwtime())  # the times changed

    def _shown(self, text: str) -> None:
        """The clock shows ``text``: the app's move where it names one in the view's position."""
        LOGGER.debug("dgt: the clock shows %r", text)
        self._name(move_in_text(self.view.board, text))

    def _leds(self, body: bytes) -> None:
        if len(body) < 4:
            LOGGER.warning("dgt: a short LED command %s; skipped", body.hex(" "))
            return
        pattern, start, end = body[0], body[1], body[2]
        if pattern == 0x02:
            return  # a setting of the board's own LED behaviour
        squares = {square_of(number) for number in (start, end) if number < 64}
        if pattern == 0x00:
            self.lit_squares = frozenset() if start >= 64 else self.lit_squares - squares
            if not self.lit_squares:
                self._named = None  # as for the clock's end of a message
        else:
            self.lit_squares = frozenset(squares)
        self.table.app_lit(self.lit_squares)
        self._name(lit.move_lit(self.view.board, self.lit_squares))

    def _name(self, move: chess.Move | None) -> None:
        """Tell the table the app's move, once for each position until the app takes it off (an app that
        shows it on the clock and the LEDs, or sends the text again, names it once)."""
        if move is None:
            return
        named = (self.view.board.fen(), move)
        if named != self._named:
            self._named = named
            self.table.app_move(move)

    # The answers.

    def _board_dump(self) -> bytes:
        return message(MSG_BOARD_DUMP, self._codes)

    def _serial_number(self) -> bytes:
        return message(MSG_SERIALNR, self.serial_number.encode("ascii"))

    def _long_serial_number(self) -> bytes:
        return message(MSG_LONG_SERIALNR, self.long_serial_number.encode("ascii"))

    def _bus_address(self) -> bytes:
        number = int(self.serial_number) & 0x3FFF
        return message(MSG_BUSADRES, bytes((number >> 7, number & 0x7F)))

    def _trademark(self) -> bytes:
        return message(MSG_TRADEMARK, self.trademark.encode("ascii"))

    def _version(self) -> bytes:
        return message(MSG_VERSION, bytes(self.version))

    def _battery(self) -> bytes:
        # Full, no time left to tell (0x7f), on and standby times zero, neither charging nor discharging:
        # the table runs on mains.
        return message(MSG_BATTERY_STATUS, bytes((100, 0x7F, 0x7F, 0, 0, 0, 0, 0, 0)))

    def _ee_moves(self) -> bytes:
        return message(MSG_EE_MOVES, bytes((EE_EOF,)))  # nothing stored: the game lives in the table

    def _clock_times(self) -> bytes:
        return self.clock.bwtime()


_ANSWERS = {
    SEND_BRD: Dgt._board_dump,
    SEND_CLK: Dgt._clock_times,
    RETURN_SERIALNR: Dgt._serial_number,
    RETURN_LONG_SERIALNR: Dgt._long_serial_number,
    RETURN_BUSADRES: Dgt._bus_address,
    SEND_TRADEMARK: Dgt._trademark,
    SEND_VERSION: Dgt._version,
    SEND_BATTERY_STATUS: Dgt._battery,
    SEND_EE_MOVES: Dgt._ee_moves,
}
