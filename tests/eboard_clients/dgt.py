"""A DGT board app, written from DGT's ``dgtbrd.h`` and the way python-asyncdgt and PicoChess talk.

It connects as they do (reset, serial number, version, update mode ``DGT_SEND_UPDATE_NICE``, a board dump,
the clock's version), keeps the position from the dump and the field updates, asks for a dump when it
wants to be sure (PicoChess does once the field updates settle), and shows its engine's move as PicoChess
does: as text on the DGT 3000 clock (SAN by default, or UCI), on a DGT XL's 7-segment digits, and/or on
a Revelation II's LEDs. It waits for each clock command's ack before the next, as the spec asks.
"""

from __future__ import annotations

import contextlib
import time
from typing import Literal

import chess

from .base import AppClient, Link

# Commands (app -> board) and messages (board -> app), from dgtbrd.h.
RESET, SEND_BRD, SEND_UPDATE_NICE, RETURN_SERIALNR, SEND_VERSION = 0x40, 0x42, 0x4B, 0x45, 0x4D
CLOCK_MESSAGE, SET_LEDS = 0x2B, 0x60
BOARD_DUMP, BWTIME, FIELD_UPDATE, SERIALNR, VERSION = 0x86, 0x8D, 0x8E, 0x91, 0x93
CLOCK_DISPLAY, CLOCK_END, CLOCK_VERSION, CLOCK_ASCII = 0x01, 0x03, 0x09, 0x0C

PIECES = ".PRNBKQprnbkq"
XL_SEGMENTS = dict(
    zip("0123456789abcdefghnqr ", bytes.fromhex("3f065b4f666d7d077f6f5f7c585e7b713d7454675000"), strict=True)
)

Style = Literal["san", "uci", "xl", "leds", "san+leds"]


def fen_of(codes: bytes | bytearray) -> str:
    """The FEN board part of 64 DGT piece codes (field 0 is a8)."""
    rows = []
    for rank in range(8):
        row, empty = "", 0
        for code in codes[rank * 8 : rank * 8 + 8]:
            if code == 0:
                empty += 1
                continue
            row += (str(empty) if empty else "") + PIECES[code]
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def field(square: chess.Square) -> int:
    """The DGT field of ``square`` (a8 is 0)."""
    return (7 - chess.square_rank(square)) * 8 + chess.square_file(square)


class DgtClient(AppClient):
    """An app on a DGT board with a clock (``style`` says how it shows its move)."""

    def __init__(self, link: Link, style: Style = "san") -> None:
        super().__init__(link)
        self.style = style
        self.codes = bytearray(64)
        self.serial_number = ""
        self.version = ""
        self.clock_version = ""
        self.acks: list[tuple[int, int, int, int]] = []
        self.messages: list[tuple[int, bytes]] = []  # everything received, in order
        self._pending = bytearray()
        self._dumps = 0

    # Reading what the board sends.

    def pump(self, timeout: float = 0.0) -> int:
        """Read what the board has sent, waiting up to ``timeout`` seconds for the first chunk; the number
        of complete messages handled."""
        handled = 0
        while (chunk := self.link.read(timeout)) is not None:
            self._pending += chunk[1]
            handled += self._parse()
            timeout = 0.0
        return handled

    def _parse(self) -> int:
        handled = 0
        buffer = self._pending
        while buffer:
            if not buffer[0] & 0x80:
                del buffer[0]  # not a message start: skip, as PicoChess does
                continue
            if len(buffer) < 3:
                break
            size = (buffer[1] << 7) | buffer[2]
            if len(buffer) < size:
                break
            message_id, data = buffer[0], bytes(buffer[3:size])
            del buffer[:size]
            assert all(byte < 0x80 for byte in data), f"a data byte with its top bit set in {data.hex(' ')}"
            self.messages.append((message_id, data))
            self._handle(message_id, data)
            handled += 1
        return handled

    def _handle(self, message_id: int, data: bytes) -> None:
        if message_id == BOARD_DUMP:
            assert len(data) == 64
            self.codes[:] = data
            self._dumps += 1
        elif message_id == FIELD_UPDATE:
            assert len(data) == 2 and data[0] < 64 and data[1] <= 12
            self.codes[data[0]] = data[1]
        elif message_id == SERIALNR:
            self.serial_number = data.decode("ascii")
        elif message_id == VERSION:
            self.version = f"{data[0]}.{data[1]}"
        elif message_id == BWTIME and (data[0] & 0x0F == 0x0A or data[3] & 0x0F == 0x0A):
            ack = (
                (data[1] & 0x7F) | ((data[3] << 3) & 0x80),
                (data[2] & 0x7F) | ((data[3] << 2) & 0x80),
                (data[4] & 0x7F) | ((data[0] << 3) & 0x80),
                (data[5] & 0x7F) | ((data[0] << 2) & 0x80),
            )
            self.acks.append(ack)
            if ack[0] == 0x10 and ack[1] == CLOCK_VERSION:
                self.clock_version = f"{ack[2] >> 4}.{ack[2] & 0x0F}"

    def request(self, command: bytes, answer: int, timeout: float = 5.0) -> bytes:
        """Send ``command``, wait for the message ``answer`` and return its data (AssertionError after
        ``timeout``)."""
        self.pump()
        seen = len(self.messages)
        self.link.write(command)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message_id, data in self.messages[seen:]:
                if message_id == answer:
                    return data
            seen = len(self.messages)
            self.pump(min(0.05, max(0.0, deadline - time.monotonic())))
        raise AssertionError(f"no message {answer:#04x} after {command.hex(' ')}")

    def clock(self, command: int, content: bytes = b"", timeout: float = 5.0) -> tuple[int, int, int, int]:
        """Send a clock command and wait for its ack, as apps must before the next one."""
        body = bytes((0x03, command)) + content + b"\x00"
        self.pump()
        acks = len(self.acks)
        self.link.write(bytes((CLOCK_MESSAGE, len(body))) + body)
        deadline = time.monotonic() + timeout
        while len(self.acks) == acks and time.monotonic() < deadline:
            self.pump(0.05)
        assert len(self.acks) > acks, f"the clock did not ack command {command:#04x}"
        return self.acks[acks]

    # The app.

    def connect(self) -> None:
        self.link.write(bytes((RESET,)))
        self.request(bytes((RETURN_SERIALNR,)), SERIALNR)
        self.request(bytes((SEND_VERSION,)), VERSION)
        self.link.write(bytes((SEND_UPDATE_NICE,)))
        self.request(bytes((SEND_BRD,)), BOARD_DUMP)
        self.clock(CLOCK_VERSION)

    def seen_fen(self) -> str:
        """The placement from the dump and the field updates received so far (without asking)."""
        self.pump()
        return fen_of(self.codes)

    def board_fen(self, timeout: float = 5.0) -> str:
        """Ask for a board dump, as PicoChess does once the field updates settle."""
        with contextlib.suppress(AssertionError):  # none: the last seen
            self.request(bytes((SEND_BRD,)), BOARD_DUMP, timeout=timeout)
        return fen_of(self.codes)

    def clock_text(self, text: str, right: bool = True) -> None:
        """Show ``text`` on the DGT 3000 (eight characters, right-aligned for the right player, beeping)."""
        padded = text.rjust(8) if right else text.ljust(8)
        self.clock(CLOCK_ASCII, padded[:8].encode("ascii") + b"\x03")

    def xl_text(self, text: str) -> None:
        """Show six characters on a DGT XL (segments sent in C B A F E D order, no icons, a beep)."""
        t = [XL_SEGMENTS[ch] for ch in text.ljust(6)[:6]]
        self.clock(CLOCK_DISPLAY, bytes((t[2], t[1], t[0], t[5], t[4], t[3], 0x00, 0x03)))

    def leds(self, *squares: chess.Square) -> None:
        """Light a Revelation II's LEDs on the move's from and to (none: all off)."""
        if squares:
            start, end = field(squares[0]), field(squares[-1])
            self.link.write(bytes((SET_LEDS, 0x04, 0x01, start, end, 0x00)))
        else:
            self.link.write(bytes((SET_LEDS, 0x04, 0x00, 0x40, 0x40, 0x00)))

    def show_move(self, board: chess.Board, move: chess.Move) -> None:
        right = board.turn == chess.BLACK  # the engine's side of the clock, as PicoChess pads it
        if self.style in ("san", "san+leds"):
            self.clock_text(board.san(move), right)
        elif self.style == "uci":
            self.clock_text(move.uci(), right)
        elif self.style == "xl":
            uci = move.uci()
            self.xl_text(uci[:2].ljust(3) + uci[2:].ljust(3))
        if self.style in ("leds", "san+leds"):
            self.leds(move.from_square, move.to_square)

    def clear(self) -> None:
        """The move stands: the clock back to its times, the LEDs off."""
        if self.style != "leds":
            self.clock(CLOCK_END)
        if self.style in ("leds", "san+leds"):
            self.leds()
