"""A Chessnut app (an Air's or a Move's) as the vendor's documents and the apps' traffic describe it.

Written from the specification, apart from the protocol's own code: it subscribes to the two notify
characteristics (``board``: the position, ``misc``: everything else), writes ``21 01 00`` to start the
real-time reports, asks the battery, keeps the position from the board's notifications, and shows its
move with the LEDs (Air: ``0a 08`` + a bit a square) or by sending the position after its move (Move:
``42 21`` + position + force flag).
"""

from __future__ import annotations

import time
from typing import Literal

import chess

from .base import AppClient, Link

#: The nibble codes of the documents: 0 empty, 1 q, 2 k, 3 b, 4 p, 5 n, 6 R, 7 P, 8 r, 9 B, 10 N, 11 Q, 12 K.
PIECES = ["", "q", "k", "b", "p", "n", "R", "P", "r", "B", "N", "Q", "K"]
INIT = bytes((0x21, 0x01, 0x00))


def fen_of(data: bytes) -> str:
    """The FEN board part of a ``01 24`` notification, read as the vendor's JavaScript example reads it."""
    rows = []
    for row in range(8):
        text, empty = "", 0
        for col in range(7, -1, -1):
            value = data[(row * 8 + col) // 2 + 2]
            piece = PIECES[value & 0x0F if col % 2 == 0 else value >> 4]
            if not piece:
                empty += 1
                continue
            text += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(text + (str(empty) if empty else ""))
    return "/".join(rows)


def position_bytes(board: chess.BaseBoard) -> bytes:
    """The 32 bytes of ``board``'s placement: row by row from rank 8, two files a byte, h in the low
    nibble of the row's first byte (the Move API's encoding)."""
    data = bytearray(32)
    for row in range(8):
        for col in range(8):
            piece = board.piece_at(chess.square(col, 7 - row))
            code = PIECES.index(piece.symbol()) if piece else 0
            index = row * 8 + (7 - col)
            data[index // 2] |= code << (4 * (index % 2))
    return bytes(data)


def led_bytes(squares: list[chess.Square]) -> bytes:
    """The Air's LED bytes: byte 0 is rank 8, file a is 128, file h is 1 (as the apps' tables have it)."""
    data = bytearray(8)
    for square in squares:
        data[7 - chess.square_rank(square)] |= 128 >> chess.square_file(square)
    return bytes(data)


class ChessnutClient(AppClient):
    """The Chessnut app of an Air (``model="air"``) or a Move (``model="move"``)."""

    def __init__(self, link: Link, model: Literal["air", "move"] = "air") -> None:
        super().__init__(link)
        self.model = model
        self.fen: str | None = None
        #: Every notification on ``misc`` (acknowledgements, battery, version answers), in order.
        self.misc: list[bytes] = []
        #: How many position notifications came (the Move sends none while its robot moves).
        self.reports = 0

    def command(self, data: bytes) -> None:
        """Write one command to the write characteristic."""
        self.link.write(data, "write")

    def pump(self, timeout: float = 0.0) -> bool:
        """Read what the board sent (waiting up to ``timeout`` for the first chunk); True if anything."""
        got = False
        chunk = self.link.read(timeout)
        while chunk is not None:
            got = True
            channel, data = chunk
            if channel == "board" and data[:2] == b"\x01\x24" and len(data) >= 34:
                self.fen = fen_of(data)
                self.reports += 1
            elif channel == "misc":
                self.misc.append(data)
            chunk = self.link.read(0.0)
        return got

    def wait_misc(self, header: bytes, timeout: float = 2.0) -> bytes | None:
        """The next ``misc`` notification starting with ``header`` (as the apps wait for an answer)."""
        deadline = time.monotonic() + timeout
        while True:
            for index, data in enumerate(self.misc):
                if data.startswith(header):
                    del self.misc[: index + 1]
                    return data
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.pump(min(left, 0.1))

    def connect(self) -> None:
        # The notifications are enabled by the transport (a CCCD write); then the init code, then the
        # battery, as the apps and the community libraries do.
        self.command(INIT)
        deadline = time.monotonic() + 5.0
        while self.fen is None and time.monotonic() < deadline:
            self.pump(0.1)
        if self.model == "air":
            self.command(bytes((0x29, 0x01, 0x00)))
            self.wait_misc(b"\x2a\x02")
        else:
            self.command(bytes((0x41, 0x01, 0x0C)))
            self.wait_misc(b"\x41\x03\x0c")

    def board_fen(self, timeout: float = 5.0) -> str:
        self.pump()
        deadline = time.monotonic() + timeout
        while self.fen is None and time.monotonic() < deadline:
            self.pump(0.1)
        return self.fen or ""

    def show_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.model == "air":
            self.command(bytes((0x0A, 0x08)) + led_bytes([move.from_square, move.to_square]))
            return
        after = board.copy(stack=False)
        after.push(move)
        self.command(bytes((0x42, 0x21)) + position_bytes(after) + b"\x00")

    def clear(self) -> None:
        if self.model == "air":
            self.command(bytes((0x0A, 0x08)) + bytes(8))
        else:
            self.command(bytes((0x43, 0x20)) + bytes(32))
