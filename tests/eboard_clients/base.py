"""What every test client shares: the link it talks over, and the fake table an in-process protocol tells."""

from __future__ import annotations

import queue
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import chess

from chessatron.eboard.core import EboardProtocol, TableView


class Link(ABC):
    """How a client reaches the board: bytes written on a channel, bytes read with their channel."""

    @abstractmethod
    def write(self, data: bytes, channel: str = "") -> None: ...

    @abstractmethod
    def read(self, timeout: float) -> tuple[str, bytes] | None:
        """The next chunk the board sent (its channel and bytes), or None after ``timeout`` seconds."""


class AppClient(ABC):
    """An app connected to the board over ``link``, as the protocol's apps behave."""

    def __init__(self, link: Link) -> None:
        self.link = link

    @abstractmethod
    def connect(self) -> None:
        """What the app sends when it connects (its handshake), waiting for the answers it needs."""

    @abstractmethod
    def board_fen(self, timeout: float = 5.0) -> str:
        """The placement as the app sees it now (asking, or from the board's own reports), as a FEN
        board part; a square whose piece is in the air is empty."""

    @abstractmethod
    def show_move(self, board: chess.Board, move: chess.Move) -> None:
        """Show the app's ``move`` (legal on ``board``) the way this protocol's apps do."""

    def clear(self) -> None:
        """What the app does once its move stands on the board (its LEDs off); nothing by default."""
        return None

    def wait_fen(self, wanted: str, timeout: float = 10.0) -> str:
        """Wait until the app sees ``wanted`` (a FEN board part); the last seen after ``timeout``."""
        deadline = time.monotonic() + timeout
        seen = self.board_fen(timeout=max(0.1, deadline - time.monotonic()))
        while seen != wanted and time.monotonic() < deadline:
            time.sleep(0.02)
            seen = self.board_fen(timeout=max(0.1, deadline - time.monotonic()))
        return seen


@dataclass
class FakeTable:
    """The table as a protocol sees it, recording what the app told it."""

    lit: list[frozenset[chess.Square]] = field(default_factory=list)
    moves: list[chess.Move] = field(default_factory=list)
    positions: list[chess.Board] = field(default_factory=list)
    new_games: list[int | None] = field(default_factory=list)
    connected: list[str] = field(default_factory=list)

    def app_connected(self, description: str) -> None:
        self.connected.append(description)

    def app_lit(self, squares: frozenset[chess.Square]) -> None:
        self.lit.append(squares)

    def app_move(self, move: chess.Move) -> None:
        self.moves.append(move)

    def app_position(self, board: chess.Board) -> None:
        self.positions.append(board.copy())

    def app_new_game(self, chess960: int | None = None) -> None:
        self.new_games.append(chess960)


class InProcessLink(Link):
    """A client wired straight to a protocol object (how the Bluetooth LE protocols are tested: the
    transport is thin). What the protocol sends is queued for the client."""

    def __init__(self) -> None:
        self.protocol: EboardProtocol | None = None
        self.inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()

    def sent(self, data: bytes, channel: str = "") -> None:
        """The protocol's ``send``."""
        self.inbox.put((channel, bytes(data)))

    def write(self, data: bytes, channel: str = "") -> None:
        assert self.protocol is not None
        self.protocol.received(data, channel)

    def read(self, timeout: float) -> tuple[str, bytes] | None:
        try:
            return self.inbox.get(timeout=timeout)
        except queue.Empty:
            return None


def wire(
    protocol_class: type[EboardProtocol], board: chess.Board | None = None
) -> tuple[EboardProtocol, FakeTable, InProcessLink]:
    """A protocol for a fake table, and a link a client talks to it over."""
    table = FakeTable()
    link = InProcessLink()
    protocol = protocol_class(table, link.sent, TableView.of(board or chess.Board()))
    link.protocol = protocol
    return protocol, table, link
