"""The Chessnut e-boards over Bluetooth LE: the Air (and Air+, Go, Pro) and the robotic Move.

Every command the app writes is framed ``[command, length, payload...]`` on the write characteristic; the
board answers on two notify characteristics: the position on ``board``, everything else on ``misc``.

- ``21 01 00`` turns on real-time reports: the board answers ``23 01 00`` (the Air's generic
  acknowledgement) and from then on notifies ``01 24`` + 32 bytes of position + a 4-byte little-endian
  counter (seconds since power-on) at every change. The 32 bytes hold a square a nibble, low nibble
  first, in the order h8, g8 ... a8, h7 ... a1, with the piece codes of :data:`PIECE_CODES`.
- ``0a 08`` + 8 bytes lights the Air's LEDs, a bit a square: byte 0 is rank 8, bit 0 the h-file, bit 7
  the a-file. The app shows its move this way; the move whose squares are exactly the ones lit is
  :func:`~chessatron.eboard.lit.move_lit`'s.
- ``42 21`` + 32 bytes of position + a force flag sets the Move's target position: its robot takes the
  pieces there, and it sends no position while it moves. A target one legal move on from the game is
  the app's move; any other target is a position to set up (a start position: a new game); a target of
  all zeros stops the robot.
- ``43 20`` + 32 bytes lights the Move's LEDs, a colour nibble a square in the position's order.
- ``29 01 00`` (Air) asks the battery: ``2a 02 <level, bit 7 charging> 00``; ``41 01 0c`` (Move):
  ``41 03 0c <charging> <level>``; ``41 01 09`` the firmware version: ``41 <n> 09 <text>``; ``2b 01 00``
  the device name: ``2c <n> <name>``.

Sources: ``chessnutech/Chessnut_eBoards`` and ``chessnutech/chess_move_api`` (the vendor's documents),
checked against what independent clients and emulators read and send (the ack, the counter, the LED bit
order, the commands the Chessnut apps send that no document lists: beep, haptics, offline games).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import chess

from .core import EboardProtocol, TableView
from .lit import move_lit

LOGGER = logging.getLogger(__name__)

#: The piece of each nibble value (0: an empty square).
PIECE_CODES: tuple[str, ...] = ("", "q", "k", "b", "p", "n", "R", "P", "r", "B", "N", "Q", "K")
_CODE_OF = {symbol: code for code, symbol in enumerate(PIECE_CODES) if symbol}

#: The real boards' GATT services and characteristics, by channel.
BLE_UUIDS: dict[str, tuple[str, str]] = {
    "board": ("1b7e8261-2877-41c3-b46e-cf057c562023", "1b7e8262-2877-41c3-b46e-cf057c562023"),
    "write": ("1b7e8271-2877-41c3-b46e-cf057c562023", "1b7e8272-2877-41c3-b46e-cf057c562023"),
    "misc": ("1b7e8271-2877-41c3-b46e-cf057c562023", "1b7e8273-2877-41c3-b46e-cf057c562023"),
}

POSITION_BYTES = 32
#: An incomplete message left this long without another byte is dropped (seconds): a Bluetooth write
#: carries a whole command, so the rest of one is never late, and the app's next command must work.
PARTIAL_TIMEOUT_S = 0.5
#: A Move target the table has not reached after this long lets the position reports flow again (s).
AUTO_MOVE_TIMEOUT_S = 60.0
#: The longest payload a command may announce; a longer length byte is no command's (garbage).
MAX_PAYLOAD = 64

ACK = bytes((0x23, 0x01, 0x00))
ENABLE_REPORTS, LEDS_AIR, BEEP, BATTERY_AIR, DEVICE_NAME = 0x21, 0x0A, 0x0B, 0x29, 0x2B
QUERY_MOVE, TARGET_MOVE, LEDS_MOVE = 0x41, 0x42, 0x43
QUERY_FIRMWARE, QUERY_BATTERY = 0x09, 0x0C
#: Commands whose payload has one length; a different length byte is a corrupt command.
FIXED_LENGTHS = {ENABLE_REPORTS: 1, LEDS_AIR: 8, BATTERY_AIR: 1, DEVICE_NAME: 1, QUERY_MOVE: 1,
                 TARGET_MOVE: POSITION_BYTES + 1, LEDS_MOVE: POSITION_BYTES}  # fmt: skip
#: Commands the Chessnut apps send that a board obeys silently (the table has nothing to do for them).
SILENT = {
    0x1B: "buzzer on/off",
    0x26: "device time",
    0x27: "haptics",
    0x31: "sound / offline games",
    0x33: "app ready",
    0x34: "offline game transfer",
    0x39: "offline games wipe",
}
#: Every command byte a Chessnut app writes; any other byte starts no command (it is skipped).
KNOWN = frozenset(FIXED_LENGTHS) | {BEEP} | frozenset(SILENT)


def _nibble_square(index: int) -> chess.Square:
    """The square of nibble ``index`` (0: h8, 7: a8, 8: h7 ... 63: a1)."""
    return chess.square(7 - index % 8, 7 - index // 8)


def encode_position(placement: Mapping[chess.Square, chess.Piece]) -> bytes:
    """The 32 bytes of a placement, a square a nibble, low nibble first, from h8 to a1.

    >>> encode_position(chess.Board().piece_map()).hex()
    '58233185444444440000000000000000000000000000000077777777a6c99b6a'
    """
    data = bytearray(POSITION_BYTES)
    for index in range(64):
        piece = placement.get(_nibble_square(index))
        code = _CODE_OF[piece.symbol()] if piece is not None else 0
        data[index // 2] |= code << (4 * (index % 2))
    return bytes(data)


def decode_position(data: bytes) -> dict[chess.Square, chess.Piece]:
    """The placement in 32 position bytes. Raises ValueError on a nibble that is no piece's code."""
    placement = {}
    for index in range(64):
        code = (data[index // 2] >> (4 * (index % 2))) & 0x0F
        if code >= len(PIECE_CODES):
            raise ValueError(f"nibble {code:#x} at {chess.square_name(_nibble_square(index))} is no piece")
        if code:
            placement[_nibble_square(index)] = chess.Piece.from_symbol(PIECE_CODES[code])
    return placement


def encode_leds(squares: Iterable[chess.Square]) -> bytes:
    """The Air's 8 LED bytes lighting ``squares``: byte 0 is rank 8, bit 7 the a-file, bit 0 the h-file.

    >>> encode_leds([chess.E2, chess.E4]).hex()
    '0000000008000800'
    """
    data = bytearray(8)
    for square in squares:
        data[7 - chess.square_rank(square)] |= 0x80 >> chess.square_file(square)
    return bytes(data)


def decode_leds(data: bytes) -> frozenset[chess.Square]:
    """The squares the Air's 8 LED bytes light."""
    return frozenset(
        chess.square(file, 7 - row) for row in range(8) for file in range(8) if data[row] & (0x80 >> file)
    )


def decode_colour_leds(data: bytes) -> frozenset[chess.Square]:
    """The squares the Move's 32 LED bytes light (any colour). Raises ValueError on an unknown colour."""
    lit = set()
    for index in range(64):
        colour = (data[index // 2] >> (4 * (index % 2))) & 0x0F
        if colour > 3:
            raise ValueError(f"LED colour {colour} at {chess.square_name(_nibble_square(index))} is none")
        if colour:
            lit.add(_nibble_square(index))
    return frozenset(lit)


@dataclass
class Chessnut(EboardProtocol):
    """A Chessnut Air or Move as the Chessnut apps see it over Bluetooth LE (both at once: the Air's
    commands and the Move's share the characteristics and never the command bytes).

    Needs :meth:`tick`: it drops an incomplete command the app never finished, and gives up waiting for
    a Move target the table never reached.
    """

    name: ClassVar[str] = "chessnut"
    transports: ClassVar[tuple[str, ...]] = ("ble",)
    #: Channel -> what it is (the Bluetooth LE transport maps them to :data:`BLE_UUIDS`).
    ble_channels: ClassVar[dict[str, str]] = {
        "write": "write from app: every command (characteristic 1b7e8272)",
        "board": "notify: board state, 01 24 + position + counter (characteristic 1b7e8262)",
        "misc": "notify: acknowledgements, battery, version, name (characteristic 1b7e8273)",
    }
    ble_uuids: ClassVar[dict[str, tuple[str, str]]] = BLE_UUIDS
    #: Names the real boards advertise (apps scan for the prefix ``Chessnut``).
    ble_names: ClassVar[tuple[str, ...]] = ("Chessnut Air", "Chessnut Move")

    #: The name the device-name request answers.
    device_name: str = "Chessnut Air"
    #: The firmware version the Move's version request answers.
    firmware: str = "chessatron"
    #: The battery level answered (percent): the table runs on mains, never charging.
    battery: int = 100

    _buffer: bytearray = field(default_factory=bytearray, init=False, repr=False)
    _buffer_since: float | None = field(default=None, init=False, repr=False)
    _now: float | None = field(default=None, init=False, repr=False)
    _started: float | None = field(default=None, init=False, repr=False)
    _connected: bool = field(default=False, init=False, repr=False)
    _reporting: bool = field(default=False, init=False, repr=False)
    _last_sent: bytes | None = field(default=None, init=False, repr=False)
    _last_named: tuple[str, object] | None = field(default=None, init=False, repr=False)
    #: The Move's pending target: its position bytes, the game it was set in, when (tick time).
    _target: tuple[bytes, str, float | None] | None = field(default=None, init=False, repr=False)

    # -- what the app sends -------------------------------------------------------------------------

    def received(self, data: bytes, channel: str = "") -> None:
        """Commands written to the ``write`` characteristic, in any chunking."""
        if channel not in ("write", ""):
            LOGGER.warning(
                "chessnut: ignored %d bytes written to %r, which takes no writes", len(data), channel
            )
            return
        self._buffer += data
        self._buffer_since = None  # still arriving: the partial timeout counts from the next tick
        buffer, at, skipped, why = self._buffer, 0, bytearray(), ""
        while at < len(buffer):
            command = buffer[at]
            if command not in KNOWN:
                skipped.append(command)  # no command starts so: look at the next byte
                at += 1
                continue
            if len(buffer) - at < 2:
                break
            length, expected = buffer[at + 1], FIXED_LENGTHS.get(command)
            if length > MAX_PAYLOAD or (expected is not None and length != expected):
                skipped.append(command)  # a corrupt length: no command starts here either
                at += 1
                continue
            if len(buffer) - at < 2 + length:
                break
            wrong = self._handle(command, bytes(buffer[at + 2 : at + 2 + length]))
            if wrong is None:
                at += 2 + length
            else:
                why = f" ({wrong})"
                skipped.append(command)
                at += 1
        del buffer[:at]
        if skipped:
            shown = skipped[:24].hex(" ") + (" ..." if len(skipped) > 24 else "")
            LOGGER.warning("chessnut: skipped %d bytes that start no command%s: %s", len(skipped), why, shown)

    def tick(self, now: float) -> None:
        """Drop a command left incomplete, end a Move target's wait, and count the uptime."""
        self._now = now
        if self._started is None:
            self._started = now
        if self._buffer:
            if self._buffer_since is None:
                self._buffer_since = now
            elif now - self._buffer_since > PARTIAL_TIMEOUT_S:
                LOGGER.warning("chessnut: dropped an incomplete command: %s", self._buffer.hex(" "))
                self._buffer.clear()
                self._buffer_since = None
        if self._target is not None:
            since = self._target[2]
            if since is None:
                self._target = (self._target[0], self._target[1], now)
            elif now - since > AUTO_MOVE_TIMEOUT_S:
                LOGGER.warning("chessnut: the table did not reach the app's target; reporting again")
                self._target = None
                self._notify_position()

    def _handle(self, command: int, payload: bytes) -> str | None:
        """Obey one whole command; what is wrong where its payload shows it is none (then its first byte
        is skipped, and the search for a command goes on at the next)."""
        if command == TARGET_MOVE:
            try:
                target = decode_position(payload[:POSITION_BYTES])
            except ValueError as exc:
                return f"a target position with {exc}"
            if payload[POSITION_BYTES] not in (0, 1):
                return f"a target position with force flag {payload[POSITION_BYTES]:#x}"
            self._hello()
            self._target_position(target, payload[:POSITION_BYTES])
        elif command == LEDS_MOVE:
            try:
                lit = decode_colour_leds(payload)
            except ValueError as exc:
                return f"an LED command with {exc}"
            self._hello()
            self._lit(lit)
        elif command == LEDS_AIR:
            self._hello()
            self._lit(decode_leds(payload))
            self._answer(ACK)
        elif command == ENABLE_REPORTS:
            self._hello(again=True)
            self._answer(ACK)
            if payload[0] == 0x00:
                self._reporting = True
                self._last_sent = None
                self._notify_position()
            else:
                LOGGER.info("chessnut: report mode %#x (offline-game upload) is not served", payload[0])
        elif command == BATTERY_AIR:
            self._hello()
            self._answer(bytes((0x2A, 0x02, self.battery & 0x7F, 0x00)))
        elif command == DEVICE_NAME:
            self._hello()
            name = self.device_name.encode("ascii", "replace")[:MAX_PAYLOAD]
            self._answer(bytes((0x2C, len(name))) + name)
        elif command == QUERY_MOVE:
            self._hello()
            self._query(payload[0])
        elif command == BEEP:
            self._hello()
            self._answer(ACK)
        else:  # one of SILENT
            self._hello()
            LOGGER.debug("chessnut: %s %s", SILENT[command], payload.hex(" "))
        return None

    def _query(self, register: int) -> None:
        if register == QUERY_BATTERY:
            self._answer(bytes((0x41, 0x03, QUERY_BATTERY, 0x00, self.battery)))
        elif register == QUERY_FIRMWARE:
            text = self.firmware.encode("ascii", "replace")[: MAX_PAYLOAD - 1]
            self._answer(bytes((0x41, len(text) + 1, QUERY_FIRMWARE)) + text)
        else:
            # The robot pieces' status (0x0b) and the Wi-Fi registers are the Move's hardware alone.
            LOGGER.warning("chessnut: the Move's register %#04x is not served", register)

    def _hello(self, *, again: bool = False) -> None:
        """Tell the table an app speaks: at its first command, and again at each init (a reconnection)."""
        if again or not self._connected:
            self._connected = True
            self.table.app_connected("Chessnut app")

    def _lit(self, lit: frozenset[chess.Square]) -> None:
        """The app lit ``lit``: the table shows it, and where it names one legal move, that is the app's."""
        self.table.app_lit(lit)
        move = move_lit(self.view.board, lit)
        if move is None:
            return
        named = (self.view.board.fen(), move)
        if named != self._last_named:  # apps send the same LEDs again; the move is named once a position
            self._last_named = named
            self.table.app_move(move)

    def _target_position(self, target: dict[chess.Square, chess.Piece], raw: bytes) -> None:
        """The Move's target: the app's move, a position to set up, a new game, or (all empty) stop."""
        board = self.view.board
        if not target:
            LOGGER.info("chessnut: the app stopped the robot")
            self._target = None
            self._notify_position()
            return
        wanted = chess.BaseBoard.empty()
        wanted.set_piece_map(target)
        if wanted.board_fen() == self.view.board_fen():
            return  # already standing: nothing to move, and the reports go on
        self._target = (raw, board.fen(), self._now)
        named = (board.fen(), wanted.board_fen())
        if named == self._last_named:
            return
        self._last_named = named
        for move in board.legal_moves:
            board.push(move)
            after = board.board_fen()
            board.pop()
            if after == wanted.board_fen():
                self.table.app_move(move)
                return
        number = wanted.chess960_pos()
        if number is not None:
            self.table.app_new_game(None if number == 518 else number)
            return
        position = chess.Board(None)
        position.set_board_fen(wanted.board_fen())
        position.turn = board.turn  # the target does not say whose move; the game's turn is the best guess
        position.castling_rights = chess.BB_CORNERS
        position.castling_rights = position.clean_castling_rights()
        self.table.app_position(position)

    # -- what the board reports ---------------------------------------------------------------------

    def report(self, view: TableView) -> None:
        """A new view: notify the position where it changed (not while the Move's robot is on its way)."""
        if view.board.fen() != self.view.board.fen():
            self._last_named = None  # a new position (or one taken back to): the app may name a move again
        self.view = view
        self._notify_position()

    def _notify_position(self) -> None:
        if not self._reporting:
            return
        position = encode_position(self.view.placement)
        if self._target is not None:
            raw, game, _ = self._target
            if position != raw and self.view.board.fen() == game:
                return  # the real Move reports nothing while its robot moves to the target
            self._target = None
        if position == self._last_sent:
            return
        self._last_sent = position
        uptime = 0 if self._now is None or self._started is None else int(self._now - self._started)
        self.send(bytes((0x01, 0x24)) + position + (uptime & 0xFFFFFFFF).to_bytes(4, "little"), "board")

    def _answer(self, data: bytes) -> None:
        self.send(data, "misc")
