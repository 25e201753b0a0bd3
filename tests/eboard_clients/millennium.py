"""A Millennium ChessLink app, as python-mchess (domschl/python-mchess, ``chess_link*.py``) and the apps
that drive a Millennium board talk: version, EEPROM settings for the automatic reports, the status; the
app's move shown with LEDs at the corners of the squares it changes, each LED with its own blink pattern;
the LEDs off once the move stands.
"""

from __future__ import annotations

import time
from typing import Literal

import chess

from chessatron.eboard.millennium import block_check, corners, frame, has_odd_parity

from .base import AppClient, Link

#: The length of each answer the board sends, its block check included (``i`` has none published).
ANSWER_LENGTHS = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7}
IDENTITY_LONGEST = 16
#: What a board turned half round reports for the start position (python-mchess: "cable left").
ROTATED_START = "RNBKQBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbkqbnr"

Reports = Literal["change", "poll", "scan"]
Leds = Literal["delta", "squares"]


def fen_of(codes: str) -> str:
    """The FEN board part of 64 piece codes in the board's order (a8..h8 .. a1..h1)."""
    board = chess.BaseBoard.empty()
    for index, code in enumerate(codes):
        if code != ".":
            board.set_piece_at(chess.square(index % 8, 7 - index // 8), chess.Piece.from_symbol(code))
    return board.board_fen()


class MillenniumClient(AppClient):
    """A ChessLink app over ``link``.

    ``reports``: ``change`` asks for a status on any change with debounce (``W0207``, and a 100 ms scan
    time, as python-mchess does), ``poll`` switches the reports off and asks ``S``, ``scan`` leaves the
    board's default (a status every scan). ``leds``: ``delta`` lights every square the move changes with
    python-mchess's blink patterns (``0F`` where a piece arrives, ``F0`` where one leaves; corners shared
    by two squares get the later one), ``squares`` lights the from- and to-square ``FF``.
    ``parity_bit``: send each byte's odd parity in bit 7 (python-mchess does, on USB and Bluetooth LE).
    """

    def __init__(
        self, link: Link, *, reports: Reports = "change", leds: Leds = "delta", parity_bit: bool = True
    ) -> None:
        super().__init__(link)
        self.reports: Reports = reports
        self.leds: Leds = leds
        self.parity_bit = parity_bit
        self.rotated = False
        self.version: str | None = None
        self.status: str | None = None
        #: Every status the board sent, as FEN board parts.
        self.statuses: list[str] = []
        #: Every other answer, oldest first (what :meth:`ask` waits on).
        self.answers: list[str] = []
        #: What the app could not read (bytes with a wrong parity bit or a wrong block check).
        self.errors: list[str] = []
        self._pending = bytearray()
        self._fresh_status = False

    # --- talking ----------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        """``text`` with its block check, as the app writes it."""
        self.link.write(frame(text, parity_bit=self.parity_bit))

    def ask(self, text: str, answer: str, timeout: float = 5.0) -> str:
        """Send ``text`` and wait for the answer starting with ``answer`` (automatic reports may come
        between a command and its answer: the answers are matched by their letter)."""
        if answer == "s":
            self._fresh_status = False  # the answer, not a report that came before it
        self.send(text)
        return self.wait_answer(answer, timeout)

    def wait_answer(self, answer: str, timeout: float = 5.0) -> str:
        """The next answer starting with ``answer``, reading until ``timeout`` seconds have passed."""
        deadline = time.monotonic() + timeout
        while True:
            for index, message in enumerate(self.answers):
                if message.startswith(answer):
                    return self.answers.pop(index)
            if answer == "s" and self.status is not None and self._fresh_status:
                self._fresh_status = False
                return self.status
            left = deadline - time.monotonic()
            if left <= 0 or not self.pump(left):
                raise TimeoutError(f"no {answer!r} answer from the board in {timeout} s")

    def pump(self, timeout: float) -> bool:
        """Read one chunk (waiting up to ``timeout`` seconds) and take in the messages it completes."""
        chunk = self.link.read(timeout)
        if chunk is None:
            return False
        for byte in chunk[1]:
            if byte & 0x80 and not has_odd_parity(byte):
                self.errors.append(f"wrong parity bit in {byte:#04x}")
                self._pending.append(0x80)
            else:
                self._pending.append(byte & 0x7F)
        self._take()
        return True

    def _take(self) -> None:
        pending = self._pending
        while pending:
            letter = chr(pending[0])
            if letter == "i":
                text = pending[:IDENTITY_LONGEST].decode("ascii", errors="replace")
                ends = [n for n in range(3, len(text) + 1) if block_check(text[: n - 2]) == text[n - 2 : n]]
                if not ends:
                    if len(pending) < IDENTITY_LONGEST:
                        return
                    self.errors.append(f"no block check in {text!r}")
                    del pending[:1]
                    continue
                self.answers.append(text[: ends[0] - 2])
                del pending[: ends[0]]
                continue
            length = ANSWER_LENGTHS.get(letter)
            if length is None:
                self.errors.append(f"unexpected byte {pending[0]:#04x}")
                del pending[:1]
                continue
            if len(pending) < length:
                return
            text = pending[:length].decode("ascii", errors="replace")
            if block_check(text[:-2]) != text[-2:]:
                self.errors.append(f"wrong block check in {text!r}")
                del pending[:1]
                continue
            del pending[:length]
            if letter == "s":
                self._status(text[1:-2])
            else:
                self.answers.append(text[:-2])

    def _status(self, codes: str) -> None:
        if self.rotated:
            codes = codes[::-1]
        fen = fen_of(codes)
        if fen == ROTATED_START:
            # python-mchess finds the board's orientation from the start position
            self.rotated = not self.rotated
            fen = fen_of(codes[::-1])
        self.status = fen
        self._fresh_status = True
        self.statuses.append(fen)

    # --- the app ----------------------------------------------------------------------------------

    def connect(self) -> None:
        self.version = self.ask("V", "v")[1:]
        if self.reports == "change":
            self.ask("W0207", "w")  # status on any change, 5 scans' debounce
            self.ask("R01", "r")
            self.ask("W0130", "w")  # scan every 98 ms
            self.ask("R01", "r")
        elif self.reports == "poll":
            self.ask("W0201", "w")
        self.ask("S", "s")

    def board_fen(self, timeout: float = 5.0) -> str:
        if self.reports == "poll" or self.status is None:
            return self.ask("S", "s", timeout)
        while self.pump(0.0):
            pass
        return self.status

    def led_codes(self, board: chess.Board, move: chess.Move) -> list[int]:
        """The 81 blink patterns that show ``move`` (legal on ``board``) in this client's way."""
        codes = [0] * 81
        if self.leds == "squares":
            shown = [(move.from_square, 0xFF), (move.to_square, 0xFF)]
        else:
            after = board.copy(stack=False)
            after.push(move)
            shown = [
                (square, 0x0F if after.piece_at(square) is not None else 0xF0)
                for square in chess.SQUARES
                if board.piece_at(square) != after.piece_at(square)
            ]
        for square, pattern in shown:
            for led in corners([square], rotated=self.rotated):
                codes[led] = pattern
        return codes

    def show_move(self, board: chess.Board, move: chess.Move) -> None:
        codes = self.led_codes(board, move)
        self.ask("L20" + "".join(f"{code:02X}" for code in codes), "l")

    def clear(self) -> None:
        self.ask("X", "x")
