"""The physical state of the table: where every physical piece stands.

Pieces are tracked by identity, never created or destroyed: a promotion moves the pawn off the board and
brings a spare in, a capture sends the victim to its colour's capture zone. The 8x8 part always equals
the python-chess position the game is in (:meth:`Table.check_matches`).

>>> table = Table.from_board(Layout.default(), chess.Board())
>>> table.piece_at(table.layout.square_node(chess.E1))
PhysicalPiece('wK1', 'K')
>>> len(table)  # 32 on the board, 10 spares in reserve
42
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias

import chess

from ..errors import MissingPieceError, NoRoomError, NoSparePieceError, PieceError, StateError
from ..i18n import N_, _, ngettext
from ..i18n.formats import both
from .layout import Cell, Layout, Node

PieceId: TypeAlias = str
Place = Literal["board", "capture", "reserve", "parked"]

#: The pieces each side owns besides its spares.
STANDARD_SET: Mapping[chess.PieceType, int] = {
    chess.KING: 1,
    chess.QUEEN: 1,
    chess.ROOK: 2,
    chess.BISHOP: 2,
    chess.KNIGHT: 2,
    chess.PAWN: 8,
}


@dataclass(frozen=True)
class PhysicalPiece:
    """One physical chess piece with a stable identity such as ``wQ2``."""

    id: PieceId
    symbol: str
    """FEN letter: upper case white, lower case black."""

    def __post_init__(self) -> None:
        if len(self.symbol) != 1 or self.symbol not in "PNBRQKpnbrqk":
            raise PieceError(
                _("piece {id!r} has the symbol {symbol!r}; use a FEN letter, PNBRQK or pnbrqk").format(
                    id=self.id, symbol=self.symbol
                )
            )

    @property
    def piece(self) -> chess.Piece:
        return chess.Piece.from_symbol(self.symbol)

    @property
    def color(self) -> chess.Color:
        return self.symbol.isupper()

    def __repr__(self) -> str:
        return f"PhysicalPiece({self.id!r}, {self.symbol!r})"


class Table:
    """Where every physical piece stands, in nodes. Mutable; :meth:`copy` for what-if planning."""

    def __init__(self, layout: Layout, placement: Iterable[tuple[PhysicalPiece, Node]]) -> None:
        self.layout = layout
        self._node: dict[PieceId, Node] = {}
        self._piece: dict[PieceId, PhysicalPiece] = {}
        self._at: dict[Node, PieceId] = {}
        for piece, node in placement:
            if piece.id in self._piece:
                raise StateError(f"piece id {piece.id!r} is used twice")
            if node in self._at:
                raise StateError(f"two pieces stand on node {node!r}: {self._at[node]!r} and {piece.id!r}")
            self._piece[piece.id] = piece
            self._node[piece.id] = node
            self._at[node] = piece.id

    # --- construction ------------------------------------------------------------------------------

    @classmethod
    def from_board(cls, layout: Layout, board: chess.Board) -> Table:
        """The table set up for ``board``: its pieces on their squares, unused spares in the reserve,
        the rest of the standard set in the capture zones.

        Raises :class:`NoSparePieceError` when the position needs more pieces of a type than the standard
        set and the reserve hold together.
        """
        placement: list[tuple[PhysicalPiece, Node]] = []
        for colour in chess.COLORS:
            placement.extend(_side_placement(layout, board, colour))
        return cls(layout, placement)

    def copy(self) -> Table:
        return Table(self.layout, ((self._piece[pid], node) for pid, node in self._node.items()))

    # --- queries -----------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._piece)

    def __iter__(self) -> Iterator[PhysicalPiece]:
        return iter(self._piece.values())

    def __repr__(self) -> str:
        return f"<Table {len(self)} pieces, board {self.board_fen()!r}>"

    def piece(self, piece_id: PieceId) -> PhysicalPiece:
        try:
            return self._piece[piece_id]
        except KeyError:
            raise StateError(f"no piece {piece_id!r} on the table") from None

    def node_of(self, piece_id: PieceId) -> Node:
        self.piece(piece_id)
        return self._node[piece_id]

    def piece_at(self, node: Node) -> PhysicalPiece | None:
        piece_id = self._at.get(node)
        return None if piece_id is None else self._piece[piece_id]

    def placement(self) -> dict[PieceId, Node]:
        return dict(self._node)

    def occupied_nodes(self, *, excluding: Iterable[PieceId] = ()) -> list[Node]:
        skip = set(excluding)
        return [node for pid, node in self._node.items() if pid not in skip]

    def place_of(self, piece_id: PieceId) -> Place:
        node = self.node_of(piece_id)
        cell = self.layout.node_cell(node)
        kind = "free" if cell is None else self.layout.cell_kind(cell)
        if kind == "board":
            return "board"
        if kind == "reserve":
            return "reserve"
        if kind.startswith("capture"):
            return "capture"
        return "parked"

    def is_parked(self, piece_id: PieceId) -> bool:
        """Whether a piece waits on a cell off the board where it does not belong: outside its colour's
        capture zone and reserve (a victim or a promoted pawn the robot set down beside the board during
        its reply, to be taken on to its zone while the person thinks: :mod:`.tidy`)."""
        node = self.node_of(piece_id)
        cell = self.layout.node_cell(node)
        if cell is None:
            return False  # between cells: a piece a stopped drag left there, for a person to put back
        kind = self.layout.cell_kind(cell)
        if kind == "board":
            return False
        piece = self._piece[piece_id]
        if kind == "reserve":
            return not any(s.cell == cell and s.piece.color == piece.color for s in self.layout.reserve)
        return kind != ("capture-white" if piece.color else "capture-black")

    def parked(self) -> list[PhysicalPiece]:
        """The pieces :meth:`is_parked` says wait where they do not belong, by id."""
        return [self._piece[pid] for pid in sorted(self._piece) if self.is_parked(pid)]

    def is_free_cell(self, cell: Cell) -> bool:
        """True when no piece stands within the clearance of the cell's centre."""
        centre = self.layout.cell_node(cell)
        reach = self.layout.clearance_nodes
        return all(
            (node[0] - centre[0]) ** 2 + (node[1] - centre[1]) ** 2 >= reach * reach - 1e-9
            for node in self._node.values()
        )

    def board_pieces(self) -> dict[chess.Square, PhysicalPiece]:
        result = {}
        for pid, node in self._node.items():
            square = self.layout.node_square(node)
            if square is not None:
                result[square] = self._piece[pid]
        return result

    def board_fen(self) -> str:
        """The board part as a FEN piece-placement field."""
        board = chess.BaseBoard.empty()
        for square, piece in self.board_pieces().items():
            board.set_piece_at(square, piece.piece)
        return board.board_fen()

    def check_matches(self, board: chess.BaseBoard) -> None:
        """Raise :class:`StateError` unless the 8x8 part holds exactly ``board``'s pieces and every
        other board node is empty."""
        if self.board_fen() != board.board_fen():
            raise StateError(
                _("the table shows {table!r} but the game is at {game!r}").format(
                    table=self.board_fen(), game=board.board_fen()
                )
            )
        pitch_board = {self.layout.square_node(s) for s in chess.SQUARES}
        lo = (min(n[0] for n in pitch_board) - 1, min(n[1] for n in pitch_board) - 1)
        hi = (max(n[0] for n in pitch_board) + 1, max(n[1] for n in pitch_board) + 1)
        for pid, node in self._node.items():
            on_board_area = lo[0] < node[0] < hi[0] and lo[1] < node[1] < hi[1]
            if on_board_area and node not in pitch_board:
                raise StateError(
                    _("piece {id!r} stands between squares at node {node!r}").format(id=pid, node=node)
                )

    def inventory(self) -> Counter[str]:
        """How many pieces of each FEN letter the table holds."""
        return Counter(piece.symbol for piece in self._piece.values())

    def free_capture_cells(self, colour: chess.Color, symbol: str | None = None) -> list[Cell]:
        """Empty cells where a piece of ``colour`` can go off the board: its capture zone, and the
        reserve slots that spares of the same letter have left (a captured spare queen may go home).
        Other reserve slots of that colour only when the zone is full."""
        layout = self.layout

        def is_empty(cell: Cell) -> bool:
            return layout.cell_node(cell) not in self._at

        own_reserve = [slot for slot in layout.reserve if slot.piece.color == colour]
        free = [cell for cell in layout.capture_cells[colour] if is_empty(cell)]
        free += [slot.cell for slot in own_reserve if slot.symbol == symbol and is_empty(slot.cell)]
        if not free:
            free = [slot.cell for slot in own_reserve if is_empty(slot.cell)]
        if not free:
            raise NoRoomError(
                _("white's capture zone and reserve are full")
                if colour == chess.WHITE
                else _("black's capture zone and reserve are full")
            )
        return free

    def spares(self, symbol: str) -> list[PhysicalPiece]:
        """Off-board pieces of a FEN letter that can come in for a promotion: the reserve first, then
        the capture zone (and pieces parked off the board)."""
        found: dict[Place, list[PhysicalPiece]] = {"reserve": [], "capture": [], "parked": [], "board": []}
        for pid, piece in self._piece.items():
            if piece.symbol == symbol:
                found[self.place_of(pid)].append(piece)
        result = found["reserve"] or found["capture"] or found["parked"]
        if not result:
            raise NoSparePieceError(
                _(_NO_SPARE[chess.Piece.from_symbol(symbol).piece_type]).format(symbol=symbol)
            )
        return result

    # --- changes -----------------------------------------------------------------------------------

    def relocate(self, piece_id: PieceId, node: Node) -> None:
        """Move a piece to a free node."""
        current = self.node_of(piece_id)
        other = self._at.get(node)
        if other is not None and other != piece_id:
            raise StateError(
                _("cannot put {id!r} on node {node!r}: {other!r} stands there").format(
                    id=piece_id, node=node, other=other
                )
            )
        width, height = self.layout.node_extent
        if not (0 <= node[0] < width and 0 <= node[1] < height):
            raise StateError(_("node {node!r} is off the table").format(node=node))
        del self._at[current]
        self._at[node] = piece_id
        self._node[piece_id] = node


def _side_placement(
    layout: Layout, board: chess.Board, colour: chess.Color
) -> list[tuple[PhysicalPiece, Node]]:
    letter = "w" if colour else "b"
    counters: Counter[str] = Counter()

    def make(symbol: str) -> PhysicalPiece:
        counters[symbol] += 1
        return PhysicalPiece(f"{letter}{symbol.upper()}{counters[symbol]}", symbol)

    originals = {
        ptype: [make(chess.Piece(ptype, colour).symbol()) for _count in range(n)]
        for ptype, n in STANDARD_SET.items()
    }
    spares = [(slot, make(slot.symbol)) for slot in layout.reserve if slot.piece.color == colour]
    placement: list[tuple[PhysicalPiece, Node]] = []
    for square in chess.SquareSet(board.occupied_co[colour]):
        kind = board.piece_at(square)
        assert kind is not None
        pool = originals[kind.piece_type]
        if pool:
            chosen = pool.pop(0)
        else:
            matching = [entry for entry in spares if entry[1].symbol == kind.symbol()]
            if not matching:
                needed = len(board.pieces(kind.piece_type, colour))
                raise NoSparePieceError(
                    _(
                        "the position needs {pieces} but the table has too few; add spares to the reserve in "
                        "the layout"
                    ).format(pieces=describe_pieces({kind.symbol(): needed}))
                )
            spares.remove(matching[0])
            chosen = matching[0][1]
        placement.append((chosen, layout.square_node(square)))
    for slot, spare in spares:
        placement.append((spare, layout.cell_node(slot.cell)))
    leftovers = [piece for pool in originals.values() for piece in pool]
    if any(piece.piece.piece_type == chess.KING for piece in leftovers):
        raise MissingPieceError(
            _("the position has no white king")
            if colour == chess.WHITE
            else _("the position has no black king")
        )
    free = list(layout.capture_cells[colour])
    free += [slot.cell for slot in layout.reserve if slot.piece.color == colour]
    used = {node for _piece, node in placement}
    free = [cell for cell in free if layout.cell_node(cell) not in used]
    if len(free) < len(leftovers):
        count = len(leftovers)
        text = (
            ngettext(
                "white's capture zone has no room for {count} piece",
                "white's capture zone has no room for {count} pieces",
                count,
            )
            if colour == chess.WHITE
            else ngettext(
                "black's capture zone has no room for {count} piece",
                "black's capture zone has no room for {count} pieces",
                count,
            )
        )
        raise NoRoomError(text.format(count=count))
    for leftover, cell in zip(leftovers, free, strict=False):
        placement.append((leftover, layout.cell_node(cell)))
    return placement


#: No spare piece of a kind for a promotion: one message for each (the names' genders differ).
_NO_SPARE = {
    chess.PAWN: N_(
        "no spare pawn ({symbol!r}) off the board for the promotion; add one to the reserve in the layout"
    ),
    chess.KNIGHT: N_(
        "no spare knight ({symbol!r}) off the board for the promotion; add one to the reserve in the layout"
    ),
    chess.BISHOP: N_(
        "no spare bishop ({symbol!r}) off the board for the promotion; add one to the reserve in the layout"
    ),
    chess.ROOK: N_(
        "no spare rook ({symbol!r}) off the board for the promotion; add one to the reserve in the layout"
    ),
    chess.QUEEN: N_(
        "no spare queen ({symbol!r}) off the board for the promotion; add one to the reserve in the layout"
    ),
    chess.KING: N_(
        "no spare king ({symbol!r}) off the board for the promotion; add one to the reserve in the layout"
    ),
}

#: How many pieces of one kind, by FEN letter: one message for each (the names' genders differ).
_COUNTED: dict[str, Callable[[int], str]] = {
    "K": lambda n: ngettext("{count} white king ({symbol})", "{count} white kings ({symbol})", n),
    "Q": lambda n: ngettext("{count} white queen ({symbol})", "{count} white queens ({symbol})", n),
    "R": lambda n: ngettext("{count} white rook ({symbol})", "{count} white rooks ({symbol})", n),
    "B": lambda n: ngettext("{count} white bishop ({symbol})", "{count} white bishops ({symbol})", n),
    "N": lambda n: ngettext("{count} white knight ({symbol})", "{count} white knights ({symbol})", n),
    "P": lambda n: ngettext("{count} white pawn ({symbol})", "{count} white pawns ({symbol})", n),
    "k": lambda n: ngettext("{count} black king ({symbol})", "{count} black kings ({symbol})", n),
    "q": lambda n: ngettext("{count} black queen ({symbol})", "{count} black queens ({symbol})", n),
    "r": lambda n: ngettext("{count} black rook ({symbol})", "{count} black rooks ({symbol})", n),
    "b": lambda n: ngettext("{count} black bishop ({symbol})", "{count} black bishops ({symbol})", n),
    "n": lambda n: ngettext("{count} black knight ({symbol})", "{count} black knights ({symbol})", n),
    "p": lambda n: ngettext("{count} black pawn ({symbol})", "{count} black pawns ({symbol})", n),
}


def describe_pieces(counts: Mapping[str, int]) -> str:
    """Pieces counted by kind, in words: ``2 white knights (N) and 1 black rook (r)``."""
    parts = []
    for symbol, count in sorted(counts.items(), key=lambda item: "KQRBNPkqrbnp".index(item[0])):
        parts.append(_COUNTED[symbol](count).format(count=count, symbol=symbol))
    return both(parts)
