"""The sentences of :mod:`.reasons`, marked for translation: one message for each piece and colour where the
words agree with them ("keine weiße Dame", "kein weißer Bauer"), keyed by the piece type, the colour or the
castling side. :mod:`.reasons` chooses one and translates it where it is said.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import chess

from ...i18n import N_

__all__ = [
    "ALREADY",
    "ATTACKED_BY",
    "CANNOT_GO",
    "MOVES_LIKE",
    "NONE",
    "NONE_GOES",
    "NONE_ON_FILE",
    "NONE_ON_RANK",
    "NONE_ON_SQUARE",
    "NOT_EMPTY",
    "NOT_YOURS",
    "NO_LONGER",
    "OWN_THERE",
    "PINNED",
    "THROUGH_CHECK",
    "TURN",
    "WAY_BLOCKED",
]

_P, _N, _B, _R, _Q, _K = chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING
_W, _BL = chess.WHITE, chess.BLACK

#: A piece that cannot go where it was asked to, and how it moves (for a person who asked for a move it
#: does not make).
MOVES_LIKE: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: a refused move and how the piece moves; {origin}, {target}: squares (e2, e5)
    _P: N_(
        "the pawn on {origin} cannot go to {target}: a pawn moves one square forward, or two from its "
        "starting square"
    ),
    _N: N_("the knight on {origin} cannot go to {target}: knights jump in an L"),
    _B: N_("the bishop on {origin} cannot go to {target}: bishops move diagonally"),
    _R: N_("the rook on {origin} cannot go to {target}: rooks move along ranks and files"),
    _Q: N_("the queen on {origin} cannot go to {target}: queens move along ranks, files and diagonals"),
    _K: N_("the king on {origin} cannot go to {target}: the king steps one square, or castles"),
}
#: A piece that cannot go where it was asked to (alone, or the first clause of "{refusal}: {reason}").
CANNOT_GO: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: a refused move, alone or before the reason; {origin}, {target}: squares
    _P: N_("the pawn on {origin} cannot go to {target}"),
    _N: N_("the knight on {origin} cannot go to {target}"),
    _B: N_("the bishop on {origin} cannot go to {target}"),
    _R: N_("the rook on {origin} cannot go to {target}"),
    _Q: N_("the queen on {origin} cannot go to {target}"),
    _K: N_("the king on {origin} cannot go to {target}"),
}
#: Something stands between the piece and where it was asked to go.
WAY_BLOCKED: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: {origin}, {target}: squares; {square}: the first square in the way
    _P: N_("the pawn on {origin} cannot get to {target}: the way is blocked at {square}"),
    _N: N_("the knight on {origin} cannot get to {target}: the way is blocked at {square}"),
    _B: N_("the bishop on {origin} cannot get to {target}: the way is blocked at {square}"),
    _R: N_("the rook on {origin} cannot get to {target}: the way is blocked at {square}"),
    _Q: N_("the queen on {origin} cannot get to {target}: the way is blocked at {square}"),
    _K: N_("the king on {origin} cannot get to {target}: the way is blocked at {square}"),
}
#: The player's own piece stands on the square (the second clause of "{refusal}: {reason}").
OWN_THERE: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: why a move is refused, after "the knight on b1 cannot go to d2: "
    _P: N_("your own pawn stands there"),
    _N: N_("your own knight stands there"),
    _B: N_("your own bishop stands there"),
    _R: N_("your own rook stands there"),
    _Q: N_("your own queen stands there"),
    _K: N_("your own king stands there"),
}
#: The player asked for a piece to go where it already is.
ALREADY: Final[Mapping[chess.PieceType, str]] = {
    _P: N_("your pawn is already on {square}"),
    _N: N_("your knight is already on {square}"),
    _B: N_("your bishop is already on {square}"),
    _R: N_("your rook is already on {square}"),
    _Q: N_("your queen is already on {square}"),
    _K: N_("your king is already on {square}"),
}
#: The piece on the square is the opponent's (its colour), and it is the player's move.
NOT_YOURS: Final[Mapping[tuple[chess.PieceType, chess.Color], str]] = {
    # TRANSLATORS: the player named a piece of the other side; {square}: where it stands
    (_P, _W): N_("the pawn on {square} is White's, and it is Black's move"),
    (_N, _W): N_("the knight on {square} is White's, and it is Black's move"),
    (_B, _W): N_("the bishop on {square} is White's, and it is Black's move"),
    (_R, _W): N_("the rook on {square} is White's, and it is Black's move"),
    (_Q, _W): N_("the queen on {square} is White's, and it is Black's move"),
    (_K, _W): N_("the king on {square} is White's, and it is Black's move"),
    (_P, _BL): N_("the pawn on {square} is Black's, and it is White's move"),
    (_N, _BL): N_("the knight on {square} is Black's, and it is White's move"),
    (_B, _BL): N_("the bishop on {square} is Black's, and it is White's move"),
    (_R, _BL): N_("the rook on {square} is Black's, and it is White's move"),
    (_Q, _BL): N_("the queen on {square} is Black's, and it is White's move"),
    (_K, _BL): N_("the king on {square} is Black's, and it is White's move"),
}
#: The player's king may not step onto a square the opponent's piece (its colour, its kind) attacks.
ATTACKED_BY: Final[Mapping[tuple[chess.PieceType, chess.Color], str]] = {
    # TRANSLATORS: {square}: where the king would go; {attacker}: the square of the piece attacking it
    (_P, _W): N_("your king cannot go to {square}: White's pawn on {attacker} attacks it"),
    (_N, _W): N_("your king cannot go to {square}: White's knight on {attacker} attacks it"),
    (_B, _W): N_("your king cannot go to {square}: White's bishop on {attacker} attacks it"),
    (_R, _W): N_("your king cannot go to {square}: White's rook on {attacker} attacks it"),
    (_Q, _W): N_("your king cannot go to {square}: White's queen on {attacker} attacks it"),
    (_K, _W): N_("your king cannot go to {square}: White's king on {attacker} attacks it"),
    (_P, _BL): N_("your king cannot go to {square}: Black's pawn on {attacker} attacks it"),
    (_N, _BL): N_("your king cannot go to {square}: Black's knight on {attacker} attacks it"),
    (_B, _BL): N_("your king cannot go to {square}: Black's bishop on {attacker} attacks it"),
    (_R, _BL): N_("your king cannot go to {square}: Black's rook on {attacker} attacks it"),
    (_Q, _BL): N_("your king cannot go to {square}: Black's queen on {attacker} attacks it"),
    (_K, _BL): N_("your king cannot go to {square}: Black's king on {attacker} attacks it"),
}
#: The piece the player would move is pinned to their king.
PINNED: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: {square}: where the pinned piece stands; {move}: the move as the player typed it
    _P: N_("the pawn on {square} is pinned: {move} would leave your king in check"),
    _N: N_("the knight on {square} is pinned: {move} would leave your king in check"),
    _B: N_("the bishop on {square} is pinned: {move} would leave your king in check"),
    _R: N_("the rook on {square} is pinned: {move} would leave your king in check"),
    _Q: N_("the queen on {square} is pinned: {move} would leave your king in check"),
    _K: N_("the king on {square} is pinned: {move} would leave your king in check"),
}
#: The player has no piece of that kind (anywhere, on a square, a file or a rank).
NONE: Final[Mapping[chess.PieceType, str]] = {
    _P: N_("you have no pawn"),
    _N: N_("you have no knight"),
    _B: N_("you have no bishop"),
    _R: N_("you have no rook"),
    _Q: N_("you have no queen"),
    _K: N_("you have no king"),
}
NONE_ON_SQUARE: Final[Mapping[chess.PieceType, str]] = {
    _P: N_("you have no pawn on {square}"),
    _N: N_("you have no knight on {square}"),
    _B: N_("you have no bishop on {square}"),
    _R: N_("you have no rook on {square}"),
    _Q: N_("you have no queen on {square}"),
    _K: N_("you have no king on {square}"),
}
NONE_ON_FILE: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: {file}: a file's letter (a to h)
    _P: N_("you have no pawn on the {file}-file"),
    _N: N_("you have no knight on the {file}-file"),
    _B: N_("you have no bishop on the {file}-file"),
    _R: N_("you have no rook on the {file}-file"),
    _Q: N_("you have no queen on the {file}-file"),
    _K: N_("you have no king on the {file}-file"),
}
NONE_ON_RANK: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: {rank}: a rank's number (1 to 8)
    _P: N_("you have no pawn on rank {rank}"),
    _N: N_("you have no knight on rank {rank}"),
    _B: N_("you have no bishop on rank {rank}"),
    _R: N_("you have no rook on rank {rank}"),
    _Q: N_("you have no queen on rank {rank}"),
    _K: N_("you have no king on rank {rank}"),
}
#: No piece of the player's (their colour, the kind) can go to the square.
NONE_GOES: Final[Mapping[tuple[chess.PieceType, chess.Color], str]] = {
    # TRANSLATORS: alone, or before a reason: "{refusal}: {reason}", "{refusal} ({reason})"
    (_P, _W): N_("no white pawn can go to {square}"),
    (_N, _W): N_("no white knight can go to {square}"),
    (_B, _W): N_("no white bishop can go to {square}"),
    (_R, _W): N_("no white rook can go to {square}"),
    (_Q, _W): N_("no white queen can go to {square}"),
    (_K, _W): N_("no white king can go to {square}"),
    (_P, _BL): N_("no black pawn can go to {square}"),
    (_N, _BL): N_("no black knight can go to {square}"),
    (_B, _BL): N_("no black bishop can go to {square}"),
    (_R, _BL): N_("no black rook can go to {square}"),
    (_Q, _BL): N_("no black queen can go to {square}"),
    (_K, _BL): N_("no black king can go to {square}"),
}
#: Whose move it is (the second clause of "{refusal}, and {reason}" or "{refusal} ({reason})").
TURN: Final[Mapping[chess.Color, str]] = {
    _W: N_("it is White's move"),
    _BL: N_("it is Black's move"),
}
NO_LONGER: Final[Mapping[bool, str]] = {
    True: N_("you can no longer castle kingside: your king or that rook has moved"),
    False: N_("you can no longer castle queenside: your king or that rook has moved"),
}
NOT_EMPTY: Final[Mapping[bool, str]] = {
    # TRANSLATORS: {squares}: a list of squares ("b1, c1 and d1")
    True: N_("you cannot castle kingside yet: {squares} must be empty first"),
    False: N_("you cannot castle queenside yet: {squares} must be empty first"),
}
#: The king would pass through or land on squares the opponent (its colour) attacks.
THROUGH_CHECK: Final[Mapping[tuple[bool, chess.Color], str]] = {
    # TRANSLATORS: {squares}: a list of squares ("f1", "c1 and d1")
    (True, _W): N_(
        "you cannot castle kingside now: your king would pass through or land on {squares}, which White "
        "attacks"
    ),
    (True, _BL): N_(
        "you cannot castle kingside now: your king would pass through or land on {squares}, which Black "
        "attacks"
    ),
    (False, _W): N_(
        "you cannot castle queenside now: your king would pass through or land on {squares}, which White "
        "attacks"
    ),
    (False, _BL): N_(
        "you cannot castle queenside now: your king would pass through or land on {squares}, which Black "
        "attacks"
    ),
}
