"""What every e-board protocol shares: the table's view it reports (:class:`TableView`), what it tells the
table of the app (:class:`AppListener`), and the base of a protocol (:class:`EboardProtocol`), free of I/O.

A transport (a serial line, Bluetooth LE) feeds the bytes the app sends into
:meth:`EboardProtocol.received` and writes what the protocol sends; a protocol with several channels (the
characteristics of a Bluetooth LE service) names the channel of each chunk. Everything a protocol decides
is decided on the table's thread of control: a transport calls it under one lock.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import chess

LOGGER = logging.getLogger(__name__)

#: Sends bytes to the app on a channel ("" for a protocol with one, such as a serial line).
Send = Callable[[bytes, str], None]


@dataclass(frozen=True)
class TableView:
    """What the board reports: the game as the table knows it and the pieces standing on the 64 squares.

    ``placement`` holds only pieces the table can explain: a piece lifted (its square read empty) is not
    in it, and neither is anything on a square where the game has no piece (never an invented piece).
    ``lifted`` names the squares of the game's pieces that are not standing (in the air, or moved
    somewhere the table cannot explain yet). ``chess960`` is the start position's number, or None.
    """

    board: chess.Board
    placement: Mapping[chess.Square, chess.Piece]
    lifted: frozenset[chess.Square] = frozenset()
    chess960: int | None = None

    @classmethod
    def of(cls, board: chess.Board, *, lifted: frozenset[chess.Square] = frozenset()) -> TableView:
        """The view of ``board`` with the pieces on ``lifted`` in the air."""
        placement = {square: piece for square, piece in board.piece_map().items() if square not in lifted}
        lifted = frozenset(square for square in lifted if board.piece_at(square) is not None)
        root = board.root()
        number = root.chess960_pos() if root.chess960 else None
        return cls(board.copy(), placement, lifted, number)

    def piece_at(self, square: chess.Square) -> chess.Piece | None:
        """The piece reported on ``square`` (None: empty, or its piece is in the air)."""
        return self.placement.get(square)

    def board_fen(self) -> str:
        """The placement as the board part of a FEN (what a board that knows its pieces would read)."""
        base = chess.BaseBoard.empty()
        base.set_piece_map(dict(self.placement))
        return base.board_fen()


class AppListener(Protocol):
    """What a protocol tells the table of the app (the e-board core implements it)."""

    def app_connected(self, description: str) -> None:
        """The app spoke for the first time (or again after a silence): ``description`` names it for the
        page and the log (``ChessLink app``, ``DGT client``)."""

    def app_lit(self, squares: frozenset[chess.Square]) -> None:
        """The app lit these squares (an empty set: all off). The table's own LEDs show them."""

    def app_move(self, move: chess.Move) -> None:
        """The app named ``move``, legal in the position of the last report: where it is not the person's
        move to make, the robot makes it."""

    def app_position(self, board: chess.Board) -> None:
        """The app wants this position on the table (a new game from it, or one move on from the game):
        the robot sets it up."""

    def app_new_game(self, chess960: int | None = None) -> None:
        """The app starts a new game (from Chess960 start ``chess960``, or the standard start)."""


@dataclass
class EboardProtocol(ABC):
    """One e-board protocol over bytes, for one connected app.

    ``table`` hears what the app showed or asked for; ``send`` writes to the app. The core calls
    :meth:`report` with every new view (a move made, a piece lifted or set down) and :meth:`received`
    with every chunk the transport read, in any chunking (a message may arrive a byte at a time).
    Bad input (a wrong checksum, a truncated or unknown message, a flood) gets the protocol's answer or
    its silence and a line in the log, never an exception.
    """

    #: The protocol's name on the command line (``millennium``, ``dgt``, ``chessnut``, ``cpp``).
    name: ClassVar[str]
    #: The transports it is served over (``serial``, ``ble``).
    transports: ClassVar[tuple[str, ...]]

    table: AppListener
    send: Send
    view: TableView = field(default_factory=lambda: TableView.of(chess.Board()))

    @abstractmethod
    def received(self, data: bytes, channel: str = "") -> None:
        """Bytes the app sent (on ``channel``)."""

    def report(self, view: TableView) -> None:
        """The table's view changed: remember it and tell the app as the protocol does (at once where it
        reports changes by itself, else when the app next asks)."""
        self.view = view

    def tick(self, now: float) -> None:
        """Called every few tens of milliseconds with the monotonic time (for protocols with timers)."""
        del now  # none by default
