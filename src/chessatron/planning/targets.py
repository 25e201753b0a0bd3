"""What the table can be set up for, and whether it can: set-up targets by name, number or FEN (the standard
start, any Chess960 start, Double Fischer Random), the flaws a position must not have, and the pieces a
set-up needs against those the table holds. :mod:`.reset` plans the set-up itself.

>>> chess960_target(518).board == chess.Board()
True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import chess

from ..errors import ConfigError
from ..i18n import N_, _
from .layout import Layout
from .table import Table, describe_pieces

__all__ = [
    "SetupTarget",
    "chess960_target",
    "describe_pieces",
    "double_fischer_random_target",
    "full_inventory",
    "missing_pieces",
    "parse_target",
    "position_flaws",
    "require_pieces",
]


@dataclass(frozen=True)
class SetupTarget:
    """A position for the robot to set up, with a name for people."""

    board: chess.Board
    name: str


def parse_target(text: str) -> SetupTarget:
    """A set-up target from the command line: ``518`` (Chess960 number, 518 is the standard start),
    ``dfrc:N:M`` or ``N:M`` (Double Fischer Random: white's number, black's number), ``standard``, or a
    FEN. Raises :class:`ConfigError` with what was wrong."""
    text = text.strip()
    if text.lower() in ("standard", "start", "startpos"):
        return SetupTarget(chess.Board(), _("the standard start"))
    if re.fullmatch(r"\d+", text):
        return chess960_target(int(text))
    match = re.fullmatch(r"(?:dfrc:)?(\d+):(\d+)", text, flags=re.IGNORECASE)
    if match:
        return double_fischer_random_target(int(match[1]), int(match[2]))
    try:
        board = chess.Board(text, chess960=True)
    except ValueError as exc:
        raise ConfigError(
            _(
                "{text!r} is neither a Chess960 number (0-959), N:M for Double Fischer Random, nor a FEN: "
                "{error}"
            ).format(text=text, error=exc)
        ) from exc
    status = board.status() & ~chess.STATUS_BAD_CASTLING_RIGHTS
    if status != chess.STATUS_VALID:
        raise ConfigError(
            _("the FEN {text!r} is not a legal position: {flaws}").format(
                text=text, flaws="; ".join(position_flaws(board, castling=False))
            )
        )
    return SetupTarget(board, _("the position {fen}").format(fen=board.fen()))


def chess960_target(number: int) -> SetupTarget:
    if not 0 <= number <= 959:
        raise ConfigError(
            _("Chess960 start positions are numbered 0 to 959, not {number!r}").format(number=number)
        )
    board = chess.Board.from_chess960_pos(number)
    if number == 518:
        return SetupTarget(board, _("the standard start (Chess960 #518)"))
    return SetupTarget(board, _("Chess960 start #{number}").format(number=number))


def double_fischer_random_target(white: int, black: int) -> SetupTarget:
    """Each side's back rank from its own Chess960 number."""
    for number in (white, black):
        if not 0 <= number <= 959:
            raise ConfigError(
                _("Chess960 start positions are numbered 0 to 959, not {number!r}").format(number=number)
            )
    board = chess.Board.empty(chess960=True)
    white_rank = chess.BaseBoard.from_chess960_pos(white)
    black_rank = chess.BaseBoard.from_chess960_pos(black)
    for square in chess.SQUARES:
        rank = chess.square_rank(square)
        source = white_rank if rank < 4 else black_rank
        piece = source.piece_at(square)
        if piece is not None:
            board.set_piece_at(square, piece)
    board.castling_rights = _all_rook_rights(board)
    return SetupTarget(
        board, _("Double Fischer Random start #{white}/#{black}").format(white=white, black=black)
    )


def _all_rook_rights(board: chess.Board) -> int:
    rights = 0
    for colour, rank in ((chess.WHITE, 0), (chess.BLACK, 7)):
        rooks = sorted(s for s in board.pieces(chess.ROOK, colour) if chess.square_rank(s) == rank)
        if rooks:
            rights |= chess.BB_SQUARES[rooks[0]] | chess.BB_SQUARES[rooks[-1]]
    return rights


#: What each of python-chess's position flaws (:meth:`chess.Board.status`) means, for people.
_FLAWS: dict[int, str] = {
    chess.STATUS_EMPTY: N_("the board is empty"),
    chess.STATUS_NO_WHITE_KING: N_("White has no king"),
    chess.STATUS_NO_BLACK_KING: N_("Black has no king"),
    chess.STATUS_TOO_MANY_KINGS: N_("a side has more than one king"),
    chess.STATUS_TOO_MANY_WHITE_PAWNS: N_("White has more than 8 pawns"),
    chess.STATUS_TOO_MANY_BLACK_PAWNS: N_("Black has more than 8 pawns"),
    chess.STATUS_PAWNS_ON_BACKRANK: N_("a pawn stands on the first or the last rank"),
    chess.STATUS_TOO_MANY_WHITE_PIECES: N_("White has more than 16 pieces"),
    chess.STATUS_TOO_MANY_BLACK_PIECES: N_("Black has more than 16 pieces"),
    chess.STATUS_INVALID_EP_SQUARE: N_(
        "its en passant square does not fit (no pawn can have just passed it)"
    ),
    chess.STATUS_OPPOSITE_CHECK: N_("the side that has just moved is in check"),
    chess.STATUS_TOO_MANY_CHECKERS: N_("the king is in check from more pieces than one move can give"),
    chess.STATUS_IMPOSSIBLE_CHECK: N_("the check could not have come from any last move"),
}


def position_flaws(board: chess.Board, *, castling: bool = True, fen: str | None = None) -> list[str]:
    """Why ``board`` is no position a game can reach, in words (empty when it is valid). Castling rights
    that do not fit say which would (``castling=False``: they are not looked at); ``fen``: the text the
    board was read from, whose castling field is quoted as written.

    >>> fen = "r3k2r/8/8/8/8/8/4K3/R6R w KQkq - 0 1"
    >>> position_flaws(chess.Board(fen, chess960=True), fen=fen)
    ["the castling rights 'KQkq' do not fit the position: castling needs the king and that rook on their \
start squares, so only 'kq' can stand here"]
    >>> position_flaws(chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1"))
    ['Black has no king']
    """
    status = board.status()
    flaws = [_(words) for flag, words in _FLAWS.items() if status & flag]
    if castling and status & chess.STATUS_BAD_CASTLING_RIGHTS:
        fields = (fen or "").split()
        given = fields[2] if len(fields) > 2 else board.castling_xfen()
        fitting = board.copy(stack=False)
        fitting.castling_rights = board.clean_castling_rights()
        flaws.append(
            _(
                "the castling rights {given!r} do not fit the position: castling needs the king and that "
                "rook on "
                "their start squares, so only {fitting!r} can stand here"
            ).format(given=given, fitting=fitting.castling_xfen())
        )
    return flaws


def require_pieces(board: chess.BaseBoard, inventory: Mapping[str, int]) -> None:
    """Raise :class:`ConfigError` when ``board`` needs more pieces of a kind than the table owns
    (``inventory``: its sets and the reserve's spares by FEN letter, as :meth:`Table.inventory` counts
    them): a set-up the robot could never finish.

    >>> require_pieces(chess.Board("QQQQk3/8/8/8/8/8/8/4K3 w - - 0 1"), full_inventory(Layout.default()))
    Traceback (most recent call last):
    ...
    chessatron.errors.ConfigError: the table cannot set this position up: it needs 4 white queens (Q) and \
the table has 3 (with its spares); choose a position with fewer
    """
    needed: Counter[str] = Counter(piece.symbol() for piece in board.piece_map().values())
    short = {symbol: count for symbol, count in needed.items() if count > inventory.get(symbol, 0)}
    if not short:
        return
    parts = []
    for symbol, count in sorted(short.items(), key=lambda item: "KQRBNPkqrbnp".index(item[0])):
        owned = inventory.get(symbol, 0)
        # TRANSLATORS: {pieces} is e.g. "4 white queens (Q)"
        parts.append(
            _("{pieces} and the table has {owned}").format(
                pieces=describe_pieces({symbol: count}), owned=owned
            )
        )
    raise ConfigError(
        _(
            "the table cannot set this position up: it needs {needs} (with its spares); choose a position "
            "with "
            "fewer"
        ).format(needs="; ".join(parts))
    )


# --- the target arrangement ------------------------------------------------------------------------


def full_inventory(layout: Layout) -> Counter[str]:
    """Every piece the table owns: two standard sets and the reserve's spares."""
    inventory: Counter[str] = Counter("KQRRBBNNPPPPPPPPkqrrbbnnpppppppp")
    inventory.update(slot.symbol for slot in layout.reserve)
    return inventory


def missing_pieces(table: Table) -> Counter[str]:
    """Pieces of the full set that are not on the table."""
    return full_inventory(table.layout) - table.inventory()
