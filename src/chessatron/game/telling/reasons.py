"""Why a move a player named cannot be played, said in the player's terms.

python-chess decides what is legal; this module only asks it the questions a person would ask next. Is
there a piece of mine on that square? Could it go there on an empty board (then something is in the
way), and what stands there? Is it pinned, am I in check, does my king step into an attack? Why can I
not castle: have my king or rook moved, is something between them, am I in check or would I pass an
attacked square? Every function takes a move that python-chess already refused and never raises.

>>> why_not_move(chess.Board(), chess.Move.from_uci("f1b5"), "f1b5")
'the bishop on f1 cannot get to b5: the way is blocked at e2'
>>> why_not_castle(chess.Board(), kingside=True, text="O-O")
'you cannot castle kingside yet: f1 and g1 must be empty first'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import chess

__all__ = [
    "colour_word",
    "is_castling_attempt",
    "why_into_check",
    "why_no_piece_goes",
    "why_not_castle",
    "why_not_move",
]

#: How each piece moves, for a person who asked for a move it does not make.
_MOVES_LIKE: Final[dict[chess.PieceType, str]] = {
    chess.KNIGHT: "knights jump in an L",
    chess.BISHOP: "bishops move diagonally",
    chess.ROOK: "rooks move along ranks and files",
    chess.QUEEN: "queens move along ranks, files and diagonals",
    chess.KING: "the king steps one square, or castles",
    chess.PAWN: "a pawn moves one square forward, or two from its starting square",
}


def colour_word(colour: chess.Color) -> str:
    """``"White"`` or ``"Black"``."""
    return chess.COLOR_NAMES[colour].capitalize()


def _turn(board: chess.Board) -> str:
    return f"it is {colour_word(board.turn)}'s move"


def _squares(squares: Iterable[chess.Square]) -> str:
    names = [chess.square_name(square) for square in squares]
    *rest, last = names
    return f"{', '.join(rest)} and {last}" if rest else last


def why_not_move(board: chess.Board, move: chess.Move, text: str) -> str:
    """Why ``move`` (from and to as typed, ``text`` as the player wrote it) cannot be played on
    ``board``, whose side to move is the player's.

    >>> why_not_move(chess.Board(), chess.Move.from_uci("e7e5"), "e7e5")
    "the pawn on e7 is Black's, and it is White's move"
    """
    origin, target = move.from_square, move.to_square
    piece = board.piece_at(origin)
    if origin == target:
        return f"{text} does not move the piece; type where it goes as well, like e2e4"
    if piece is None:
        return f"there is no piece on {chess.square_name(origin)}"
    name = chess.piece_name(piece.piece_type)
    here = f"the {name} on {chess.square_name(origin)}"
    if piece.color != board.turn:
        return f"{here} is {colour_word(piece.color)}'s, and {_turn(board)}"
    if piece.piece_type == chess.KING and is_castling_attempt(board, move):
        return why_not_castle(board, kingside=target > origin, text=text)
    plain = chess.Move(origin, target)
    queening = chess.Move(origin, target, chess.QUEEN)
    promotes = piece.piece_type == chess.PAWN and board.is_pseudo_legal(queening)
    if move.promotion is not None and not promotes:
        if board.is_legal(plain):
            return f"only a pawn reaching the last rank is promoted; type {plain.uci()}"
        move = plain
    elif move.promotion in (chess.KING, chess.PAWN):
        return f"a pawn becomes a queen, rook, bishop or knight: {plain.uci()}q, r, b or n"
    elif move.promotion is None and promotes:
        if board.is_legal(queening):
            return f"say which piece the pawn becomes: {plain.uci()}q (queen), r, b or n"
        move = queening
    if board.is_pseudo_legal(move):
        return why_into_check(board, move, text)
    return _why_not_reached(board, piece, origin, target)


def why_into_check(board: chess.Board, move: chess.Move, text: str) -> str:
    """Why a move the piece can make is still illegal: it leaves or puts the player's king in check."""
    piece = board.piece_at(move.from_square)
    target = chess.square_name(move.to_square)
    if piece is not None and piece.piece_type == chess.KING and not board.is_castling(move):
        # the squares attacked once the king has left its own (it no longer shields a line through it)
        without_king = board.occupied & ~chess.BB_SQUARES[move.from_square]
        for attacker in chess.SquareSet(board.attackers_mask(not board.turn, move.to_square, without_king)):
            by = board.piece_at(attacker)
            if by is not None:
                return (
                    f"your king cannot go to {target}: {colour_word(by.color)}'s "
                    f"{chess.piece_name(by.piece_type)} on {chess.square_name(attacker)} attacks it"
                )
    if board.is_check():
        return f"you are in check, and {text} does not get your king out of it"
    if piece is not None and board.is_pinned(board.turn, move.from_square):
        return (
            f"the {chess.piece_name(piece.piece_type)} on {chess.square_name(move.from_square)} is pinned: "
            f"{text} would leave your king in check"
        )
    return f"{text} would leave your king in check"


def _why_not_reached(
    board: chess.Board, piece: chess.Piece, origin: chess.Square, target: chess.Square
) -> str:
    """Why a piece of the player's cannot get from ``origin`` to ``target`` at all: it does not move
    that way, its own side's piece stands there, or something is in the way."""
    name = chess.piece_name(piece.piece_type)
    here = f"the {name} on {chess.square_name(origin)}"
    there = chess.square_name(target)
    if origin == target:
        return f"your {name} is already on {there}"
    occupant = board.piece_at(target)
    own = occupant is not None and occupant.color == piece.color
    attacks = chess.SquareSet(_alone(piece, origin).attacks_mask(origin))
    if target not in _reach(piece, origin):
        return f"{here} cannot go to {there}: {_MOVES_LIKE[piece.piece_type]}"
    if piece.piece_type == chess.PAWN and target not in attacks:  # a push: nothing may stand in the way
        blocker = _first_blocker(board, origin, target, include_target=True)
        if blocker is not None and not (own and blocker == target):
            return f"{here} cannot go to {there}: it is blocked at {chess.square_name(blocker)}"
    if own:
        assert occupant is not None
        return f"{here} cannot go to {there}: your own {chess.piece_name(occupant.piece_type)} stands there"
    if piece.piece_type == chess.PAWN:
        return f"{here} cannot go to {there}: a pawn moves diagonally only to capture, and {there} is empty"
    blocker = _first_blocker(board, origin, target)
    if blocker is not None:
        return f"{here} cannot get to {there}: the way is blocked at {chess.square_name(blocker)}"
    return f"{here} cannot go to {there}"


def _alone(piece: chess.Piece, square: chess.Square) -> chess.Board:
    """A board with just ``piece`` on ``square``, its side to move."""
    alone = chess.Board(None)
    alone.set_piece_at(square, piece)
    alone.turn = piece.color
    return alone


def _reach(piece: chess.Piece, square: chess.Square) -> chess.SquareSet:
    """Where ``piece`` could go from ``square`` on an otherwise empty board (a pawn: its pushes and the
    squares it captures on)."""
    alone = _alone(piece, square)
    reach = chess.SquareSet(alone.attacks_mask(square))
    if piece.piece_type == chess.PAWN:
        reach |= chess.SquareSet(move.to_square for move in alone.generate_pseudo_legal_moves())
    return reach


def _first_blocker(
    board: chess.Board, origin: chess.Square, target: chess.Square, *, include_target: bool = False
) -> chess.Square | None:
    """The occupied square nearest ``origin`` on the way to ``target``."""
    way = chess.SquareSet(chess.between(origin, target))
    if include_target:
        way.add(target)
    occupied = [square for square in way if board.piece_at(square) is not None]
    return min(occupied, key=lambda square: chess.square_distance(origin, square), default=None)


def is_castling_attempt(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` of the player's king means castling: onto one of its own rooks, or two files
    along its back rank."""
    origin, target = move.from_square, move.to_square
    if chess.square_rank(origin) != chess.square_rank(target):
        return False
    occupant = board.piece_at(target)
    if occupant is not None and occupant == chess.Piece(chess.ROOK, board.turn):
        return True
    back_rank = 0 if board.turn == chess.WHITE else 7
    return (
        chess.square_rank(origin) == back_rank
        and abs(chess.square_file(target) - chess.square_file(origin)) == 2
    )


def why_not_castle(board: chess.Board, *, kingside: bool, text: str) -> str:
    """Why the player cannot castle on that side now.

    >>> why_not_castle(chess.Board("4k3/8/8/8/8/8/8/4K2R w - - 0 1"), kingside=True, text="O-O")
    'you can no longer castle kingside: your king or that rook has moved'
    """
    side = "kingside" if kingside else "queenside"
    king = board.king(board.turn)
    back_rank = chess.BB_RANK_1 if board.turn == chess.WHITE else chess.BB_RANK_8
    rooks = [
        square
        for square in chess.SquareSet(board.clean_castling_rights() & back_rank)
        if king is not None and (square > king) == kingside
    ]
    if king is None or not rooks:
        return f"you can no longer castle {side}: your king or that rook has moved"
    if board.is_check():
        return "you cannot castle while you are in check"
    rook = rooks[0]
    rank = chess.square_rank(king)
    king_to = chess.square(6 if kingside else 2, rank)
    rook_to = chess.square(5 if kingside else 3, rank)
    needed = chess.SquareSet(chess.between(king, king_to) | chess.between(rook, rook_to))
    needed |= chess.SquareSet(chess.BB_SQUARES[king_to] | chess.BB_SQUARES[rook_to])
    needed -= chess.SquareSet(chess.BB_SQUARES[king] | chess.BB_SQUARES[rook])
    full = [square for square in needed if board.piece_at(square) is not None]
    if full:
        return f"you cannot castle {side} yet: {_squares(sorted(needed))} must be empty first"
    passed = chess.SquareSet(chess.between(king, king_to) | chess.BB_SQUARES[king_to])
    attacked = [square for square in passed if board.is_attacked_by(not board.turn, square)]
    if attacked:
        return (
            f"you cannot castle {side} now: your king would pass through or land on "
            f"{_squares(sorted(attacked))}, which {colour_word(not board.turn)} attacks"
        )
    return f"{text} is not possible here"


def why_no_piece_goes(
    board: chess.Board,
    piece_type: chess.PieceType,
    target: chess.Square,
    *,
    from_file: int | None = None,
    from_rank: int | None = None,
    capture: bool = False,
) -> str:
    """Why no piece of the player's of ``piece_type`` (on the file or rank given, if any) can go to
    ``target``: there is none, or the one there is cannot (and why), or none of several can.

    >>> why_no_piece_goes(chess.Board(), chess.PAWN, chess.E5)
    "no white pawn can go to e5 (it is White's move)"
    """
    mask = chess.BB_ALL
    if from_file is not None:
        mask &= chess.BB_FILES[from_file]
    if from_rank is not None:
        mask &= chess.BB_RANKS[from_rank]
    own = chess.SquareSet(board.pieces_mask(piece_type, board.turn) & mask)
    name = chess.piece_name(piece_type)
    there = chess.square_name(target)
    colour = colour_word(board.turn).lower()
    where = ""
    if from_file is not None and from_rank is not None:
        where = f" on {chess.square_name(chess.square(from_file, from_rank))}"
    elif from_file is not None:
        where = f" on the {chess.FILE_NAMES[from_file]}-file"
    elif from_rank is not None:
        where = f" on rank {from_rank + 1}"
    if not own:
        return f"you have no {name}{where}"
    king = board.king(board.turn)
    if piece_type == chess.KING and king is not None and is_castling_attempt(board, chess.Move(king, target)):
        return why_not_castle(board, kingside=target > king, text=f"K{there}")
    occupant = board.piece_at(target)
    if capture and occupant is None and not (piece_type == chess.PAWN and target == board.ep_square):
        return f"there is nothing to take on {there}"
    # the pieces that could go there if nothing were in the way: with just one, say what stops it
    piece = chess.Piece(piece_type, board.turn)
    reaching = [square for square in own if square == target or target in _reach(piece, square)]
    if len(reaching) == 1 or len(own) == 1:
        (origin,) = reaching if len(reaching) == 1 else own
        return _why_not_reached(board, piece, origin, target)
    if reaching and occupant is not None and occupant.color == board.turn:
        mine = chess.piece_name(occupant.piece_type)
        return f"no {colour} {name} can go to {there}: your own {mine} stands there"
    flipped = board.copy(stack=False)
    flipped.turn = not board.turn
    theirs = any(
        move.to_square == target and flipped.piece_type_at(move.from_square) == piece_type
        for move in flipped.generate_legal_moves(to_mask=chess.BB_SQUARES[target])
    )
    return f"no {colour} {name} can go to {there}" + (f" ({_turn(board)})" if theirs else "")
