"""Snapshot scripts: write what a player's hands do, get the sensor scans a board would deliver."""

from __future__ import annotations

from typing import TypeVar

import chess

from chessatron.recognition import Committed, Recognizer, RecognizerEvent, Revised, TookBack

SCAN_S = 0.02

E = TypeVar("E")


class Script:
    """Scans every 20 ms of a board whose squares a test lifts and places."""

    def __init__(self, recognizer: Recognizer) -> None:
        self.recognizer = recognizer
        self.t = 0.0
        self.occupied = int(recognizer.board.occupied)
        self.events: list[RecognizerEvent] = []
        self.scan()

    def scan(self, occupied: int | None = None) -> None:
        self.events += self.recognizer.feed_occupancy(
            round(self.t, 4), self.occupied if occupied is None else occupied
        )
        self.t += SCAN_S

    def hold(self, seconds: float) -> Script:
        for _ in range(max(1, round(seconds / SCAN_S))):
            self.scan()
        return self

    def lift(self, square: str, hold: float = 0.12) -> Script:
        self.occupied &= ~chess.BB_SQUARES[chess.parse_square(square)]
        return self.hold(hold)

    def place(self, square: str, hold: float = 0.12) -> Script:
        self.occupied |= chess.BB_SQUARES[chess.parse_square(square)]
        return self.hold(hold)

    def move(self, origin: str, target: str, hold: float = 0.12) -> Script:
        return self.lift(origin, hold).place(target, hold)

    def blip(self, square: str) -> Script:
        """One-scan flicker of a square."""
        self.scan(self.occupied ^ chess.BB_SQUARES[chess.parse_square(square)])
        return self

    def settle(self, seconds: float = 0.8) -> Script:
        return self.hold(seconds)

    def moves(self) -> list[str]:
        """The moves of the game as it stands now (revisions and takebacks applied)."""
        return [m.uci() for m in self.recognizer.board.move_stack]

    def of(self, kind: type[E]) -> list[E]:
        """The events of one kind so far."""
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def committed(self) -> list[str]:
        return [m.uci() for e in self.events if isinstance(e, Committed | Revised) for m in e.moves]

    @property
    def took_back(self) -> int:
        return sum(e.plies for e in self.events if isinstance(e, TookBack))
