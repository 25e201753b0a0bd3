"""Reading the app's move from the squares it lit: the legal move whose squares are exactly the ones lit.

Apps light a move's from- and to-square; for castling some light the king's two squares, some the rook's
too, and in Chess960 the king's square and the rook's (king onto rook). A protocol whose LEDs are not one
a square (Millennium's 81 sit at the squares' corners) passes its own ``squares_of`` to compare with.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import chess

SquaresOf = Callable[[Iterable[chess.Square]], frozenset[int]]


def _identity(squares: Iterable[chess.Square]) -> frozenset[int]:
    return frozenset(squares)


def move_shapes(board: chess.Board, move: chess.Move) -> list[frozenset[chess.Square]]:
    """The sets of squares an app may light for ``move`` (legal on ``board``): from and to; for castling
    also the king's from and to as the standard game writes them, and all four squares of king and rook."""
    shapes = {frozenset((move.from_square, move.to_square))}
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        kingside = board.is_kingside_castling(move)
        king_to = chess.square(6 if kingside else 2, rank)
        rook_to = chess.square(5 if kingside else 3, rank)
        if board.piece_type_at(move.to_square) == chess.ROOK and board.color_at(move.to_square) == board.turn:
            rook_from = move.to_square  # written king onto rook (Chess960)
        else:
            rook_from = chess.square(7 if kingside else 0, rank)
        shapes |= {
            frozenset((move.from_square, king_to)),
            frozenset((move.from_square, rook_from)),
            frozenset((move.from_square, king_to, rook_from, rook_to)),
        }
    return [shape for shape in shapes if len(shape) >= 2]


def moves_lit(
    board: chess.Board, lit: Iterable[int], *, squares_of: SquaresOf = _identity
) -> list[chess.Move]:
    """The legal moves on ``board`` whose squares, as ``squares_of`` maps them (the identity: squares),
    are exactly ``lit``. Promotions to different pieces light the same squares: all are returned, the
    queen first.

    >>> board = chess.Board()
    >>> moves_lit(board, {chess.E2, chess.E4})
    [Move.from_uci('e2e4')]
    >>> moves_lit(board, {chess.E2})
    []
    """
    wanted = frozenset(lit)
    if len(wanted) < 2:
        return []
    found = [
        move
        for move in board.legal_moves
        if any(squares_of(shape) == wanted for shape in move_shapes(board, move))
    ]
    found.sort(key=lambda move: 0 if move.promotion in (None, chess.QUEEN) else 1)
    return found


def move_lit(
    board: chess.Board, lit: Iterable[int], *, squares_of: SquaresOf = _identity
) -> chess.Move | None:
    """The one move ``lit`` names (a promotion: the queen's), or None where it names none or several."""
    found = moves_lit(board, lit, squares_of=squares_of)
    distinct = {(move.from_square, move.to_square) for move in found}
    return found[0] if len(distinct) == 1 else None
