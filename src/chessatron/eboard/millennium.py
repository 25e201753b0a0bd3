"""The Millennium ChessLink protocol (Chess Genius Exclusive, Performance, eONE): the table as the board the
ChessLink apps drive, over a serial line (38400 baud, 7 data bits, odd parity) or Bluetooth LE.

Every message is printable ASCII ending in a block check (two upper-case hex digits: the XOR of the
characters before it). The app asks with an upper-case letter, the board answers with its lower-case:
``V`` version, ``S`` status (``s`` and 64 piece codes, a8 to h8, a7 to h7 ... h1, ``.`` for an empty
square), ``L`` LEDs (a slot time and 81 blink patterns, one LED at every square corner), ``X`` LEDs off,
``W``/``R`` write and read the EEPROM (its address 2 chooses the automatic status reports), ``T`` reset
(no answer), and ``I``, which the Chess.com app sends. A message whose characters or block check are wrong
is ignored in silence, as the board does.

The app's move is read from its LEDs: the legal move whose squares' corners are exactly the LEDs lit,
whatever blink pattern each has (d7-d5 lights every corner of d6 too, so the shapes are compared as
corners). Apps that light every square a move changes (python-mchess: castling's four squares, an en
passant capture's three) are read the same way.

The specification: ``mchess/magic-board.md`` in domschl/python-mchess (Dave Woodfield, 2017).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import chess

from . import lit
from .core import EboardProtocol, TableView

LOGGER = logging.getLogger(__name__)

#: The characters after each command's letter, before its block check.
BODY_LENGTHS = {"V": 0, "S": 0, "X": 0, "T": 0, "R": 2, "W": 4, "L": 2 + 81 * 2}
#: ``I`` (the Chess.com app's identity request) has no published length: it ends where a block check fits.
IDENTITY = "I"
IDENTITY_LONGEST = 16
COMMANDS = frozenset(ord(letter) for letter in [*BODY_LENGTHS, IDENTITY])
HEX_DIGITS = frozenset(b"0123456789ABCDEFabcdef")
#: Stands in the input for a byte whose parity bit is wrong (never a 7-bit character).
PARITY_ERROR = 0x80

#: The version a Millennium ChessLink module answers (``v0103``, firmware 01.03).
VERSION = (0x01, 0x03)
#: The answer to ``I`` the Chess.com app waits for (as the DGT Centaur mod's emulation answers it).
IDENTITY_ANSWER = "i0055mm\n"

# The EEPROM's option bytes (the board keeps 256; the host may use those above 0x10 for itself).
BLOCK_PARITY = 0x00  # b0 = 1: messages without their block check (for a terminal emulator)
SCAN_TIME = 0x01  # units of 2.048 ms, 15..255, anything less sets 20
AUTO_REPORTS = 0x02  # b2-b0: 0 every scan, 1 none, 2 every report time, 3-7 on any change
REPORT_TIME = 0x03  # units of 4.096 ms
BRIGHTNESS = 0x04
EVERY_SCAN, NO_REPORTS, TIMED = 0, 1, 2

#: An app that speaks again after this long is told to the table as connected again.
SILENCE_S = 10.0
#: Bad inputs logged one by one before the log says the rest are left out.
COMPLAINTS_LOGGED = 3


def _default_eeprom() -> bytearray:
    eeprom = bytearray(256)
    eeprom[SCAN_TIME] = 20
    eeprom[AUTO_REPORTS] = EVERY_SCAN
    eeprom[REPORT_TIME] = 20
    eeprom[BRIGHTNESS] = 15
    return eeprom


def has_odd_parity(byte: int) -> bool:
    """Whether the eight bits of ``byte`` hold an odd number of ones (the ChessLink character parity)."""
    return bin(byte & 0xFF).count("1") % 2 == 1


def with_parity(char: int) -> int:
    """The 7-bit ``char`` with bit 7 set where it makes the parity odd (what a UART set to 7O1 sends)."""
    char &= 0x7F
    return char if has_odd_parity(char) else char | 0x80


def block_check(text: str) -> str:
    """The two upper-case hex digits that end a ChessLink message: the XOR of ``text``'s characters.

    >>> block_check("V")
    '56'
    >>> block_check("v0103")
    '74'
    """
    check = 0
    for char in text:
        check ^= ord(char) & 0x7F
    return f"{check:02X}"


def frame(text: str, *, checked: bool = True, parity_bit: bool = False) -> bytes:
    """``text`` as bytes on the wire: its block check appended (unless ``checked`` is off) and, with
    ``parity_bit``, each byte's odd parity in bit 7."""
    whole = text + block_check(text) if checked else text
    data = whole.encode("ascii")
    return bytes(with_parity(byte) for byte in data) if parity_bit else data


def led_index(column: int, row: int) -> int:
    """The LED (0 to 80) at corner ``column`` (0 at the a-file's west edge .. 8 east of h) and ``row`` (0 at
    the 8th rank's north edge .. 8 south of the 1st): LED 1 sits at a8's corner, 9 at a1's, 81 at h1's."""
    return column * 9 + row


def corners(squares: Iterable[chess.Square], *, rotated: bool = False) -> frozenset[int]:
    """The LEDs (0 to 80) at the corners of ``squares`` (``rotated``: the board turned half round, its
    cable on the other side, LED 1 at h1's corner).

    >>> sorted(corners([chess.A8]))
    [0, 1, 9, 10]
    """
    leds = set()
    for square in squares:
        file, rank = chess.square_file(square), chess.square_rank(square)
        for column in (file, file + 1):
            for row in (7 - rank, 8 - rank):
                index = led_index(column, row)
                leds.add(80 - index if rotated else index)
    return frozenset(leds)


def status_codes(view: TableView, *, rotated: bool = False) -> str:
    """The 64 piece codes of ``view`` in the board's order (a8..h8, a7..h7 .. a1..h1; ``rotated``: the
    reverse), ``.`` for an empty square or one whose piece is in the air."""
    codes = []
    for rank in range(7, -1, -1):
        for file in range(8):
            piece = view.piece_at(chess.square(file, rank))
            codes.append(piece.symbol() if piece is not None else ".")
    text = "".join(codes)
    return text[::-1] if rotated else text


def changed_squares(board: chess.Board, move: chess.Move) -> frozenset[chess.Square]:
    """The squares whose content ``move`` changes (from and to; castling's four; en passant's three)."""
    after = board.copy(stack=False)
    after.push(move)
    return frozenset(square for square in chess.SQUARES if board.piece_at(square) != after.piece_at(square))


Verdict = Literal["ok", "wait", "bad"]


@dataclass
class Millennium(EboardProtocol):
    """The ChessLink board for one connected app.

    ``parity_bit``: set each sent byte's odd parity in bit 7, as a real board's Bluetooth LE module does
    (off on a serial line, whose UART adds the parity bit itself); received bytes may carry it or not.
    ``rotated``: report the squares and read the LEDs of a board turned half round (cable on the other
    side: h1 first), for an app that does not find the board's orientation from the start position.
    """

    name: ClassVar[str] = "millennium"
    transports: ClassVar[tuple[str, ...]] = ("serial", "ble")
    #: How a serial transport opens the line (pyserial's keyword arguments), as the real boards' USB port.
    serial_settings: ClassVar[dict[str, object]] = {
        "baudrate": 38400,
        "bytesize": 7,
        "parity": "O",
        "stopbits": 1,
    }
    #: The Bluetooth LE channels: one write characteristic and one notify characteristic, both "".
    ble_channels: ClassVar[dict[str, str]] = {
        "": "write from app (commands), notify to app (answers and automatic status reports)"
    }
    #: The options each transport constructs the protocol with.
    transport_options: ClassVar[dict[str, dict[str, object]]] = {
        "serial": {"parity_bit": False},
        "ble": {"parity_bit": True},
    }

    parity_bit: bool = False
    rotated: bool = False
    _pending: bytearray = field(default_factory=bytearray, init=False, repr=False)
    _eeprom: bytearray = field(default_factory=_default_eeprom, init=False, repr=False)
    _connected: bool = field(default=False, init=False)
    _now: float | None = field(default=None, init=False, repr=False)
    _heard_at: float | None = field(default=None, init=False, repr=False)
    _reported_at: float | None = field(default=None, init=False, repr=False)
    _complaints: int = field(default=0, init=False, repr=False)
    _moved: chess.Move | None = field(default=None, init=False, repr=False)

    # --- what the app sends -------------------------------------------------------------------------

    def received(self, data: bytes, channel: str = "") -> None:
        """Bytes from the app, in any chunking; each whole message is answered as the board does."""
        del channel  # one channel each way
        for byte in data:
            if byte & 0x80 and not has_odd_parity(byte):
                self._pending.append(PARITY_ERROR)
            else:
                self._pending.append(byte & 0x7F)
        self._parse()

    def _parse(self) -> None:
        pending = self._pending
        start = 0
        while start < len(pending):
            if pending[start] not in COMMANDS:
                end = start + 1
                while end < len(pending) and pending[end] not in COMMANDS:
                    end += 1
                self._complain(
                    f"ignored {end - start} byte(s) that start no command: {bytes(pending[start:end][:24])!r}"
                )
                start = end
                continue
            verdict, end, why = self._message_at(start)
            if verdict == "wait":
                break
            text = bytes(pending[start:end]).decode("ascii", errors="replace")
            if verdict == "bad":
                self._complain(f"ignored {text[:24]!r}: {why}")
            else:
                self._heard(text)
            start = end
        del pending[:start]

    def _message_at(self, start: int) -> tuple[Verdict, int, str]:
        """Whether a whole message starts at ``start`` (and where it ends), or may yet, or cannot."""
        pending = self._pending
        letter = chr(pending[start])
        checked = not self._eeprom[BLOCK_PARITY] & 1
        if letter == IDENTITY:
            return self._identity_at(start, checked)
        length = 1 + BODY_LENGTHS[letter] + (2 if checked else 0)
        for index in range(start + 1, min(len(pending), start + length)):
            byte = pending[index]
            if byte not in HEX_DIGITS:
                if byte == PARITY_ERROR:
                    return "bad", index + 1, "a byte with a wrong parity bit"
                if byte in COMMANDS:
                    return "bad", index, "cut short by the next command"
                return "bad", index + 1, f"{chr(byte)!r} where a hex digit belongs"
        if len(pending) - start < length:
            return "wait", start, ""
        end = start + length
        text = pending[start:end].decode("ascii")
        if checked and block_check(text[:-2]) != text[-2:].upper():
            return "bad", end, f"wrong block check (expected {block_check(text[:-2])})"
        return "ok", end, ""

    def _identity_at(self, start: int, checked: bool) -> tuple[Verdict, int, str]:
        pending = self._pending
        if not checked:
            return "ok", start + 1, ""
        text = chr(pending[start])
        for index in range(start + 1, min(len(pending), start + IDENTITY_LONGEST)):
            byte = pending[index]
            if byte == PARITY_ERROR:
                return "bad", index + 1, "a byte with a wrong parity bit"
            if byte in COMMANDS:
                return "bad", index, "cut short by the next command"
            text += chr(byte)
            if len(text) >= 3 and block_check(text[:-2]) == text[-2:].upper():
                return "ok", index + 1, ""
        if len(pending) - start >= IDENTITY_LONGEST:
            return "bad", start + IDENTITY_LONGEST, "no block check fits"
        return "wait", start, ""

    def _complain(self, why: str) -> None:
        self._complaints += 1
        if self._complaints <= COMPLAINTS_LOGGED:
            LOGGER.warning("chesslink app: %s", why)
        elif self._complaints == COMPLAINTS_LOGGED + 1:
            LOGGER.warning(
                "chesslink app: more bad input; the rest is left out of the log until a good message"
            )

    def _heard(self, text: str) -> None:
        if self._complaints > COMPLAINTS_LOGGED:
            LOGGER.warning("chesslink app: %d bad inputs ignored before %r", self._complaints, text[:1])
        self._complaints = 0
        silent = (
            self._now is not None and self._heard_at is not None and self._now - self._heard_at > SILENCE_S
        )
        if not self._connected or (text[0] == "V" and silent):
            self._connected = True
            self.table.app_connected("ChessLink app")
        self._heard_at = self._now
        letter, body = text[0], text[1 : 1 + BODY_LENGTHS.get(text[0], 0)]
        if letter == "V":
            self._answer("v{:02X}{:02X}".format(*VERSION))
        elif letter == "S":
            self._send_status()
        elif letter == "X":
            self._answer("x")
            self._show(frozenset())
        elif letter == "L":
            self._answer("l")
            patterns = [int(body[index : index + 2], 16) for index in range(2, len(body), 2)]
            self._show(frozenset(led for led, pattern in enumerate(patterns) if pattern))
        elif letter == "W":
            self._answer(self._write(int(body[:2], 16), int(body[2:], 16)))
        elif letter == "R":
            address = int(body, 16)
            self._answer(f"r{address:02X}{self._eeprom[address]:02X}")
        elif letter == "T":
            # a hardware reset: no answer; the LEDs go out and the board scans again (its EEPROM stays)
            self._show(frozenset())
            self._reported_at = None
        else:
            self._answer(IDENTITY_ANSWER)

    def _write(self, address: int, value: int) -> str:
        if address == SCAN_TIME and value < 15:
            value = 20  # the board's own rule: anything under its minimum sets the default
        self._eeprom[address] = value
        if address == AUTO_REPORTS:
            self._reported_at = None
        return f"w{address:02X}{value:02X}"

    # --- the app's LEDs -----------------------------------------------------------------------------

    def _corners(self, squares: Iterable[chess.Square]) -> frozenset[int]:
        return corners(squares, rotated=self.rotated)

    def _show(self, leds: frozenset[int]) -> None:
        """Tell the table what the app lit and, where the LEDs name one legal move, the move (once)."""
        board = self.view.board
        move = self._move_lit(leds)
        if move is None:
            self.table.app_lit(self._squares_lit(leds))
            return
        shapes = [*lit.move_shapes(board, move), changed_squares(board, move)]
        shown = next((shape for shape in shapes if self._corners(shape) == leds), frozenset())
        self.table.app_lit(frozenset(shown))
        if move != self._moved:
            # the same LEDs again (an app re-sends them on every status) name the move once a position
            self._moved = move
            self.table.app_move(move)

    def _move_lit(self, leds: frozenset[int]) -> chess.Move | None:
        if len(leds) < 4:
            return None
        board = self.view.board
        found = lit.moves_lit(board, leds, squares_of=self._corners)
        found += [
            move
            for move in board.legal_moves
            if move not in found and self._corners(changed_squares(board, move)) == leds
        ]
        if len({(move.from_square, move.to_square) for move in found}) != 1:
            return None
        # a promotion lights the same squares whatever the piece: the queen's
        return min(found, key=lambda move: 0 if move.promotion in (None, chess.QUEEN) else 1)

    def _squares_lit(self, leds: frozenset[int]) -> frozenset[chess.Square]:
        """The squares with all four corners lit (what the app shows that is not a move)."""
        return frozenset(square for square in chess.SQUARES if self._corners([square]) <= leds)

    # --- what the board reports ---------------------------------------------------------------------

    def report(self, view: TableView) -> None:
        """A new view: an automatic status report where the EEPROM asks for one on a change."""
        before = (status_codes(self.view), self.view.board.fen())
        super().report(view)
        if (status_codes(view), view.board.fen()) == before:
            return
        self._moved = None
        mode = self._eeprom[AUTO_REPORTS] & 7
        if self._connected and mode not in (NO_REPORTS, TIMED):
            self._send_status()

    def tick(self, now: float) -> None:
        """The reports on a clock: every scan (the board's default) or every report time."""
        self._now = now
        mode = self._eeprom[AUTO_REPORTS] & 7
        if not self._connected or mode not in (EVERY_SCAN, TIMED):
            return
        scan_s = self._eeprom[SCAN_TIME] * 2.048e-3
        period = scan_s if mode == EVERY_SCAN else max(scan_s, self._eeprom[REPORT_TIME] * 4.096e-3)
        if self._reported_at is None or now - self._reported_at >= period:
            self._send_status()

    def _send_status(self) -> None:
        self._answer("s" + status_codes(self.view, rotated=self.rotated))
        self._reported_at = self._now

    def _answer(self, text: str) -> None:
        checked = not self._eeprom[BLOCK_PARITY] & 1
        self.send(frame(text, checked=checked, parity_bit=self.parity_bit), "")
