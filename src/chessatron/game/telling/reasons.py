"""Why a move a player named cannot be played, said in the player's terms and language.

python-chess decides what is legal; this module only asks it the questions a person would ask next. Is
there a piece of mine on that square? Could it go there on an empty board (then something is in the
way), and what stands there? Is it pinned, am I in check, does my king step into an attack? Why can I
not castle: have my king or rook moved, is something between them, am I in check or would I pass an
attacked square? Every function takes a move that python-chess already refused and never raises.

Each reason is a whole sentence of the language (:mod:`chessatron.i18n`); where its words agree with a
piece or a colour ("keine weiße Dame", "kein weißer Bauer") there is one message for each, and where a
refusal and its cause are two clauses the language joins them (``"{refusal}: {reason}"``). A move the
player typed is shown as typed (``text``: in the language's letters).

>>> why_not_move(chess.Board(), chess.Move.from_uci("f1b5"), "f1b5")
'the bishop on f1 cannot get to b5: the way is blocked at e2'
>>> why_not_castle(chess.Board(), kingside=True, text="O-O")
'you cannot castle kingside yet: f1 and g1 must be empty first'
"""

from __future__ import annotations

from collections.abc import Iterable

import chess

from ...i18n import _
from ...i18n.notation import san_in
from . import reason_words as words
from .names import colour_word, listed

__all__ = [
    "colour_word",
    "is_castling_attempt",
    "no_piece_goes",
    "why_into_check",
    "why_no_piece_goes",
    "why_not_castle",
    "why_not_move",
]


def _joined(refusal: str, reason: str) -> str:
    # TRANSLATORS: a refused move, then why ("the knight on b1 cannot go to d2: your own pawn stands there")
    return _("{refusal}: {reason}").format(refusal=refusal, reason=reason)


def _turn(board: chess.Board) -> str:
    return _(words.TURN[board.turn])


def why_not_move(board: chess.Board, move: chess.Move, text: str) -> str:
    """Why ``move`` (from and to as typed, ``text`` as the player wrote it) cannot be played on
    ``board``, whose side to move is the player's.

    >>> why_not_move(chess.Board(), chess.Move.from_uci("e7e5"), "e7e5")
    "the pawn on e7 is Black's, and it is White's move"
    """
    origin, target = move.from_square, move.to_square
    piece = board.piece_at(origin)
    if origin == target:
        return _("{move} does not move the piece; type where it goes as well, like e2e4").format(move=text)
    if piece is None:
        return _("there is no piece on {square}").format(square=chess.square_name(origin))
    if piece.color != board.turn:
        return _(words.NOT_YOURS[piece.piece_type, piece.color]).format(square=chess.square_name(origin))
    if piece.piece_type == chess.KING and is_castling_attempt(board, move):
        return why_not_castle(board, kingside=target > origin, text=text)
    plain = chess.Move(origin, target)
    queening = chess.Move(origin, target, chess.QUEEN)
    promotes = piece.piece_type == chess.PAWN and board.is_pseudo_legal(queening)
    if move.promotion is not None and not promotes:
        if board.is_legal(plain):
            return only_pawns_promote(plain.uci())
        move = plain
    elif move.promotion in (chess.KING, chess.PAWN):
        # TRANSLATORS: {move}: a move in UCI without its last letter (e7e8); q r b n are UCI's letters
        return _("a pawn becomes a queen, rook, bishop or knight: {move}q, r, b or n").format(
            move=plain.uci()
        )
    elif move.promotion is None and promotes:
        if board.is_legal(queening):
            # TRANSLATORS: {move}: a move in UCI without its last letter (e7e8); q r b n are UCI's letters
            return _("say which piece the pawn becomes: {move}q (queen), r, b or n").format(move=plain.uci())
        move = queening
    if board.is_pseudo_legal(move):
        return why_into_check(board, move, text)
    return _why_not_reached(board, piece, origin, target)


def only_pawns_promote(move: str) -> str:
    """The reason for a promotion asked of a move that promotes nothing: ``move`` is the move without it."""
    # TRANSLATORS: {move}: the move the player meant, without a promotion (e2e4, e4)
    return _("only a pawn reaching the last rank is promoted; type {move}").format(move=move)


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
                return _(words.ATTACKED_BY[by.piece_type, by.color]).format(
                    square=target, attacker=chess.square_name(attacker)
                )
    if board.is_check():
        # TRANSLATORS: {move}: the move as the player typed it
        return _("you are in check, and {move} does not get your king out of it").format(move=text)
    if piece is not None and board.is_pinned(board.turn, move.from_square):
        return _(words.PINNED[piece.piece_type]).format(square=chess.square_name(move.from_square), move=text)
    # TRANSLATORS: {move}: the move as the player typed it
    return _("{move} would leave your king in check").format(move=text)


def _why_not_reached(
    board: chess.Board, piece: chess.Piece, origin: chess.Square, target: chess.Square
) -> str:
    """Why a piece of the player's cannot get from ``origin`` to ``target`` at all: it does not move
    that way, its own side's piece stands there, or something is in the way."""
    kind = piece.piece_type
    squares = {"origin": chess.square_name(origin), "target": chess.square_name(target)}
    if origin == target:
        return _(words.ALREADY[kind]).format(square=squares["target"])
    occupant = board.piece_at(target)
    own = occupant is not None and occupant.color == piece.color
    attacks = chess.SquareSet(_alone(piece, origin).attacks_mask(origin))
    if target not in _reach(piece, origin):
        return _(words.MOVES_LIKE[kind]).format(**squares)
    if kind == chess.PAWN and target not in attacks:  # a push: nothing may stand in the way
        blocker = _first_blocker(board, origin, target, include_target=True)
        if blocker is not None and not (own and blocker == target):
            # TRANSLATORS: {origin}, {target}: squares; {square}: the square in the pawn's way
            return _("the pawn on {origin} cannot go to {target}: it is blocked at {square}").format(
                square=chess.square_name(blocker), **squares
            )
    if own:
        assert occupant is not None
        return _joined(_(words.CANNOT_GO[kind]).format(**squares), _(words.OWN_THERE[occupant.piece_type]))
    if kind == chess.PAWN:
        return _(
            "the pawn on {origin} cannot go to {target}: a pawn moves diagonally only to capture, and "
            "{target} is empty"
        ).format(**squares)
    blocker = _first_blocker(board, origin, target)
    if blocker is not None:
        return _(words.WAY_BLOCKED[kind]).format(square=chess.square_name(blocker), **squares)
    return _(words.CANNOT_GO[kind]).format(**squares)


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


def _squares(squares: Iterable[chess.Square]) -> str:
    return listed([chess.square_name(square) for square in squares])


def why_not_castle(board: chess.Board, *, kingside: bool, text: str) -> str:
    """Why the player cannot castle on that side now.

    >>> why_not_castle(chess.Board("4k3/8/8/8/8/8/8/4K2R w - - 0 1"), kingside=True, text="O-O")
    'you can no longer castle kingside: your king or that rook has moved'
    """
    king = board.king(board.turn)
    back_rank = chess.BB_RANK_1 if board.turn == chess.WHITE else chess.BB_RANK_8
    rooks = [
        square
        for square in chess.SquareSet(board.clean_castling_rights() & back_rank)
        if king is not None and (square > king) == kingside
    ]
    if king is None or not rooks:
        return _(words.NO_LONGER[kingside])
    if board.is_check():
        return _("you cannot castle while you are in check")
    rook = rooks[0]
    rank = chess.square_rank(king)
    king_to = chess.square(6 if kingside else 2, rank)
    rook_to = chess.square(5 if kingside else 3, rank)
    needed = chess.SquareSet(chess.between(king, king_to) | chess.between(rook, rook_to))
    needed |= chess.SquareSet(chess.BB_SQUARES[king_to] | chess.BB_SQUARES[rook_to])
    needed -= chess.SquareSet(chess.BB_SQUARES[king] | chess.BB_SQUARES[rook])
    full = [square for square in needed if board.piece_at(square) is not None]
    if full:
        return _(words.NOT_EMPTY[kingside]).format(squares=_squares(sorted(needed)))
    passed = chess.SquareSet(chess.between(king, king_to) | chess.BB_SQUARES[king_to])
    attacked = [square for square in passed if board.is_attacked_by(not board.turn, square)]
    if attacked:
        return _(words.THROUGH_CHECK[kingside, not board.turn]).format(squares=_squares(sorted(attacked)))
    # TRANSLATORS: {move}: castling as the player typed it (O-O, Kg1)
    return _("{move} is not possible here").format(move=text)


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
    return no_piece_goes(
        board,
        piece_type,
        target,
        from_file=from_file,
        from_rank=from_rank,
        capture=capture,
    )[1]


def no_piece_goes(
    board: chess.Board,
    piece_type: chess.PieceType,
    target: chess.Square,
    *,
    from_file: int | None = None,
    from_rank: int | None = None,
    capture: bool = False,
) -> tuple[bool, str]:
    """:func:`why_no_piece_goes`, with whether the reason names no piece in particular ("no white pawn
    can go to e5"): a reason that says less than one about a piece the player has."""
    mask = chess.BB_ALL
    if from_file is not None:
        mask &= chess.BB_FILES[from_file]
    if from_rank is not None:
        mask &= chess.BB_RANKS[from_rank]
    own = chess.SquareSet(board.pieces_mask(piece_type, board.turn) & mask)
    there = chess.square_name(target)
    if not own:
        if from_file is not None and from_rank is not None:
            square = chess.square_name(chess.square(from_file, from_rank))
            return False, _(words.NONE_ON_SQUARE[piece_type]).format(square=square)
        if from_file is not None:
            return False, _(words.NONE_ON_FILE[piece_type]).format(file=chess.FILE_NAMES[from_file])
        if from_rank is not None:
            return False, _(words.NONE_ON_RANK[piece_type]).format(rank=from_rank + 1)
        return False, _(words.NONE[piece_type])
    king = board.king(board.turn)
    if piece_type == chess.KING and king is not None and is_castling_attempt(board, chess.Move(king, target)):
        return False, why_not_castle(board, kingside=target > king, text=san_in(f"K{there}"))
    occupant = board.piece_at(target)
    if capture and occupant is None and not (piece_type == chess.PAWN and target == board.ep_square):
        return False, _("there is nothing to take on {square}").format(square=there)
    # the pieces that could go there if nothing were in the way: with just one, say what stops it
    piece = chess.Piece(piece_type, board.turn)
    reaching = [square for square in own if square == target or target in _reach(piece, square)]
    if len(reaching) == 1 or len(own) == 1:
        (origin,) = reaching if len(reaching) == 1 else own
        return False, _why_not_reached(board, piece, origin, target)
    refusal = _(words.NONE_GOES[piece_type, board.turn]).format(square=there)
    if reaching and occupant is not None and occupant.color == board.turn:
        return True, _joined(refusal, _(words.OWN_THERE[occupant.piece_type]))
    flipped = board.copy(stack=False)
    flipped.turn = not board.turn
    theirs = any(
        move.to_square == target and flipped.piece_type_at(move.from_square) == piece_type
        for move in flipped.generate_legal_moves(to_mask=chess.BB_SQUARES[target])
    )
    if theirs:
        # TRANSLATORS: a refused move, then a remark ("no white pawn can go to e5 (it is White's move)")
        return True, _("{refusal} ({reason})").format(refusal=refusal, reason=_turn(board))
    return True, refusal
