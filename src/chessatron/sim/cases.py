"""The hard cases of recognition, generated: every capture geometry in which a piece has two or more
captures that leave the same occupancy, and every castling of every Chess960 start.

Sensors see a capture as the capturing piece's square emptied (and, if the player lifts the victim in
view, the victim's square emptied and filled again). A piece with several captures leaves the same
occupancy whichever it makes, so these are the positions where the order of events must decide.

>>> geometries = capture_geometries()
>>> len(geometries) > 400, geometries[0].piece
(True, 'N')
>>> board, moves = geometries[0].position()
>>> all(board.is_capture(m) for m in moves), len(moves)
(True, 2)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import chess

#: Where the capturing piece stands: central, so every ray has room for three targets.
MOVER_SQUARE = chess.D4

_RAYS = {
    "B": [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    "R": [(1, 0), (-1, 0), (0, 1), (0, -1)],
}
_RAYS["Q"] = _RAYS["B"] + _RAYS["R"]
_LEAPS = {
    "N": [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)],
    "K": [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)],
}
#: Pieces that may stand as victims, in turn, each no more often than a side owns it, tried from each
#: starting point until the position is legal and every capture of the geometry is a legal move (a victim
#: must not give check to the capturing side's king).
_VICTIMS = "nbrpq"
_OWNED = {"n": 2, "b": 2, "r": 2, "p": 8, "q": 1}
#: Where the kings may stand, tried in order: off every ray of the capturing piece.
_KING_SQUARES = [
    (chess.H1, chess.A8),
    (chess.A8, chess.H1),
    (chess.H8, chess.B1),
    (chess.B1, chess.H8),
    (chess.H2, chess.A6),
]


@dataclass(frozen=True)
class CaptureGeometry:
    """A piece (``piece``, a white FEN letter; ``P`` and ``p`` are a white and a black pawn) on
    ``origin`` with victims on ``targets``: each capture leaves the same occupancy."""

    piece: str
    origin: chess.Square
    targets: tuple[chess.Square, ...]

    def __str__(self) -> str:
        names = ",".join(chess.square_name(s) for s in self.targets)
        return f"{self.piece}{chess.square_name(self.origin)}x{names}"

    def position(self) -> tuple[chess.Board, list[chess.Move]]:
        """A legal position with the capturing side to move, and the captures (promotions to a queen).
        Raises ValueError when no placement of kings and victims makes one."""
        found = _position(self)
        if found is None:
            raise ValueError(f"no legal position for the capture geometry {self}")
        fen, ucis = found
        return chess.Board(fen), [chess.Move.from_uci(u) for u in ucis]


@cache
def _position(geometry: CaptureGeometry) -> tuple[str, tuple[str, ...]] | None:
    colour = chess.BLACK if geometry.piece == "p" else chess.WHITE
    mover = chess.Piece.from_symbol(geometry.piece.upper() if colour else geometry.piece)
    tries = itertools.product(_KING_SQUARES, range(len(_VICTIMS)), (False, True))
    for (own_king, their_king), first, alike in tries:
        if colour == chess.BLACK:
            own_king, their_king = chess.square_mirror(own_king), chess.square_mirror(their_king)
        squares = {geometry.origin, *geometry.targets}
        if own_king in squares or their_king in squares:
            continue
        board = chess.Board(None)
        board.set_piece_at(geometry.origin, mover)
        if mover.piece_type != chess.KING:
            board.set_piece_at(own_king, chess.Piece(chess.KING, colour))
        board.set_piece_at(their_king, chess.Piece(chess.KING, not colour))
        victims = _victims(geometry.targets, first, alike)
        if victims is None:
            continue
        for target, kind in zip(geometry.targets, victims, strict=True):
            board.set_piece_at(target, chess.Piece(kind, not colour))
        board.turn = colour
        if not board.is_valid():
            continue
        moves = []
        for target in geometry.targets:
            promotion = (
                chess.QUEEN
                if mover.piece_type == chess.PAWN and chess.square_rank(target) in (0, 7)
                else None
            )
            move = chess.Move(geometry.origin, target, promotion)
            if not board.is_legal(move):
                break
            moves.append(move.uci())
        else:
            return board.fen(), tuple(moves)
    return None


def _victims(targets: tuple[chess.Square, ...], first: int, alike: bool) -> list[chess.PieceType] | None:
    """A victim for each target, in turn from ``_VICTIMS[first]`` (or, ``alike``, the same one while a
    side owns more), within what a side owns, no pawn on a back rank; None if they run out."""
    order = _VICTIMS[first:] + _VICTIMS[:first]
    used = dict.fromkeys(_OWNED, 0)
    kinds = []
    for k, target in enumerate(targets):
        back_rank = chess.square_rank(target) in (0, 7)
        turn = 0 if alike else k % len(order)
        choice = next(
            (v for v in order[turn:] + order[:turn] if used[v] < _OWNED[v] and not (v == "p" and back_rank)),
            None,
        )
        if choice is None:
            return None
        used[choice] += 1
        kinds.append(chess.Piece.from_symbol(choice).piece_type)
    return kinds


def _on_board(square: chess.Square, dx: int, dy: int) -> chess.Square | None:
    file, rank = chess.square_file(square) + dx, chess.square_rank(square) + dy
    return chess.square(file, rank) if 0 <= file < 8 and 0 <= rank < 8 else None


def _targets(piece: str) -> list[list[chess.Square]]:
    """The squares the piece could capture on, by ray (one square per ray for leapers)."""
    rays: list[list[chess.Square]] = []
    for dx, dy in _RAYS.get(piece, []):
        ray = []
        for step in range(1, 4):
            square = _on_board(MOVER_SQUARE, dx * step, dy * step)
            if square is not None:
                ray.append(square)
        rays.append(ray)
    for dx, dy in _LEAPS.get(piece, []):
        square = _on_board(MOVER_SQUARE, dx, dy)
        if square is not None:
            rays.append([square])
    return rays


def _geometries() -> Iterator[CaptureGeometry]:
    for piece in "NBRQK":
        rays = _targets(piece)
        for (i, a), (j, b) in itertools.combinations(list(enumerate(rays)), 2):
            del i, j
            for x, y in itertools.product(a, b):
                yield CaptureGeometry(piece, MOVER_SQUARE, (x, y))
        # every ray at once, at the nearest square: the most rivals a piece can have
        yield CaptureGeometry(piece, MOVER_SQUARE, tuple(ray[0] for ray in rays))
    yield CaptureGeometry("P", chess.D4, (chess.C5, chess.E5))
    yield CaptureGeometry("p", chess.D5, (chess.C4, chess.E4))
    yield CaptureGeometry("P", chess.D7, (chess.C8, chess.E8))  # capture-promotions
    yield CaptureGeometry("p", chess.D2, (chess.C1, chess.E1))


@cache
def capture_geometries() -> tuple[CaptureGeometry, ...]:
    """Every geometry of a piece with two captures on different rays (three squares deep), each piece
    with a victim on every ray at once, and the pawns' two captures (plain and promoting, both colours);
    only those for which a legal position exists."""
    return tuple(g for g in _geometries() if _position(g) is not None)


@dataclass(frozen=True)
class CastlingCase:
    """A Chess960 start (``number``, 518 the standard one) with the squares castling needs cleared, the
    side to move about to castle ``move`` (king-onto-rook, as python-chess writes Chess960 castling)."""

    number: int
    colour: chess.Color
    side: str
    """``"O-O"`` or ``"O-O-O"``."""
    fen: str
    move: chess.Move

    def board(self) -> chess.Board:
        return chess.Board(self.fen, chess960=True)

    def kind(self) -> str:
        """How king and rook move; see :func:`castling_kind`."""
        return castling_kind(self.board(), self.move)


def castling_case(number: int, colour: chess.Color, side: str) -> CastlingCase:
    """The position of Chess960 start ``number`` in which ``colour`` may castle on ``side`` at once:
    every piece of that colour's back rank but the king and the castling rook is taken away, so nothing
    stands between; the other side keeps its start. Raises ValueError for a number outside 0..959."""
    if not 0 <= number <= 959:
        raise ValueError(f"Chess960 start {number!r} is not in 0..959")
    board = chess.Board.from_chess960_pos(number)
    back = chess.BB_RANK_1 if colour == chess.WHITE else chess.BB_RANK_8
    rooks = sorted(chess.SquareSet(board.pieces_mask(chess.ROOK, colour)))
    rook = rooks[-1] if side == "O-O" else rooks[0]
    for square in chess.SquareSet(back & board.occupied_co[colour]):
        if square not in (rook, board.king(colour)):
            board.remove_piece_at(square)
    board.turn = colour
    king = board.king(colour)
    assert king is not None
    move = chess.Move(king, rook)
    if not board.is_legal(move):
        raise ValueError(f"start {number}: {side} is not legal in {board.fen()!r}")
    return CastlingCase(number, colour, side, board.fen(), move)


def castling_kind(board: chess.Board, move: chess.Move) -> str:
    """How a castling moves its pieces: ``"one piece"`` (king or rook already on its target), ``"swap"``
    (king and rook trade squares), ``"king onto rook square"``, ``"rook onto king square"``, else
    ``"both move"``."""
    from ..planning.planner import castling_squares

    king_from, king_to, rook_from, rook_to = castling_squares(board, move)
    if king_from == king_to or rook_from == rook_to:
        return "one piece"
    if king_to == rook_from and rook_to == king_from:
        return "swap"
    if king_to == rook_from:
        return "king onto rook square"
    if rook_to == king_from:
        return "rook onto king square"
    return "both move"


def move_kind(board: chess.Board, move: chess.Move) -> str:
    """The kind of a move as recognition sees it: ``"quiet"``, ``"capture"`` (the mover had no other
    capture), ``"capture with rivals"`` (it had: the occupancy alone cannot tell which), ``"en passant"``,
    ``"promotion"``, or ``"castling: <kind>"`` (see :func:`castling_kind`)."""
    if board.is_castling(move):
        return f"castling: {castling_kind(board, move)}"
    if move.promotion is not None:
        return "promotion"
    if board.is_en_passant(move):
        return "en passant"
    if board.is_capture(move):
        others = {
            m.to_square
            for m in board.legal_moves
            if m.from_square == move.from_square and board.is_capture(m) and not board.is_en_passant(m)
        }
        return "capture with rivals" if len(others) > 1 else "capture"
    return "quiet"
