"""The Chess Peripheral Protocol's text: its words, and where one command ends in a stream of chunks.

CPP (``vovagorodok/chess_peripheral_protocol``) is lower-case text, one command a Bluetooth LE write or
notification with no terminator (``move e2e4``, ``begin <fen>``). A command that arrives split (a long
write in pieces, or a test feeding it a byte at a time) is whole when it reads as a complete command at
the end of a chunk; a newline, carriage return or NUL also ends one (a serial link's framing). What can
never become a command is dropped up to the next word boundary, so the next good command still works.
"""

from __future__ import annotations

import re
from typing import Literal

import chess

#: The features of the specification (``feature <name>``), whether or not this board supports them.
FEATURES = frozenset(
    {
        "get_state",
        "set_state",
        "submove_state",
        "last_move",
        "check",
        "moved",
        "msg",
        "resign",
        "undo_redo",
        "undo_offer",
        "draw_offer",
        "side",
        "time",
        "score",
        "option",
        "draw_reason",
        "variant_reason",
    }
)
#: The variants of the specification (``variant <name>``, ``set_variant <name>``).
VARIANTS = frozenset(
    {
        "standard",
        "chess_960",
        "3_check",
        "atomic",
        "king_of_the_hill",
        "anti_chess",
        "horde",
        "racing_kings",
        "crazy_house",
        "draughts_standard",
        "draughts_russian",
        "draughts_brazilian",
        "draughts_english",
        "draughts_breakthrough",
        "draughts_frisian",
        "draughts_frysk",
        "anti_draughts",
    }
)
#: The end reasons (``end <reason>``), the draw and variant reasons among them.
END_REASONS = frozenset(
    {
        "undefined",
        "checkmate",
        "draw",
        "timeout",
        "resign",
        "abort",
        "draw_offer",
        "stalemate",
        "threefold_repetition",
        "fifty_move",
        "insufficient_material",
        "dead_position",
        "3_check",
        "king_of_the_hill",
    }
)

#: Commands the app sends without an argument.
BARE = frozenset(
    {"ok", "nok", "get_state", "set_state", "undo_offer", "draw_offer", "options_begin", "options_reset"}
)
#: Commands whose argument is one name from a list (an unknown name is a whole command too: it is refused).
NAMED: dict[str, frozenset[str]] = {
    "feature": FEATURES,
    "variant": VARIANTS,
    "set_variant": VARIANTS,
    "end": END_REASONS,
    "side": frozenset({"w", "b", "?"}),
}
MOVES = frozenset({"move", "promote", "last_move"})
POSITIONS = frozenset({"begin", "undo", "redo", "state"})
#: Commands whose argument is free text (a message, numbers): whole at the end of a chunk.
TEXT = frozenset({"msg", "err", "set_option", "time", "score", "drop"})
COMMANDS = BARE | NAMED.keys() | MOVES | POSITIONS | TEXT | {"check"}

#: A command ends here on a serial-style link.
TERMINATORS = frozenset("\r\n\0")

Status = Literal["complete", "partial", "invalid"]

_UCI_PREFIX = re.compile(r"[a-h]([1-8]([a-h]([1-8][qrbnk]?)?)?)?")
_RANK_PREFIX = re.compile(r"[pnbrqkPNBRQK1-8]*")
_WORD = re.compile(r"[a-z0-9_]")


def scan(text: str, board: chess.Board) -> Status:
    """Whether ``text`` is a whole command (``complete``), the start of one (``partial``) or can never
    become one (``invalid``). ``board`` (the app's game) says whether a four-letter pawn move to the last
    rank still waits for its promotion letter.

    >>> scan("move e2e4", chess.Board()), scan("mo", chess.Board()), scan("hello", chess.Board())
    ('complete', 'partial', 'invalid')
    """
    word, space, rest = text.partition(" ")
    if not space:
        if word in BARE:
            return "complete"
        if any(command.startswith(word) for command in COMMANDS):
            return "partial"
        return "invalid"
    if word in NAMED:
        return _scan_name(rest, NAMED[word])
    if word in MOVES:
        return _scan_move(rest, board)
    if word in POSITIONS:
        return _scan_position(rest, board_only=word == "state")
    if word in TEXT:
        return "complete" if rest else "partial"
    if word == "check":  # the king's square
        if not re.fullmatch(r"[a-h][1-8]?", rest):
            return "invalid" if rest else "partial"
        return "complete" if len(rest) == 2 else "partial"
    return "invalid"


def _scan_name(rest: str, names: frozenset[str]) -> Status:
    if not rest:
        return "partial"
    if not re.fullmatch(r"[a-z0-9_?]+", rest):
        return "invalid"
    if rest not in names and any(name.startswith(rest) for name in names):
        return "partial"
    return "complete"


def _scan_move(rest: str, board: chess.Board) -> Status:
    if not _UCI_PREFIX.fullmatch(rest):
        return "invalid" if rest else "partial"
    if len(rest) < 4:
        return "partial"
    if len(rest) == 4:
        from_square = chess.parse_square(rest[:2])
        last_rank = 7 if board.turn == chess.WHITE else 0
        if (
            board.piece_type_at(from_square) == chess.PAWN
            and chess.square_rank(chess.parse_square(rest[2:])) == last_rank
        ):
            return "partial"  # its promotion letter may follow
    return "complete"


def _scan_position(rest: str, *, board_only: bool) -> Status:
    """A FEN: whole with its side to move and nothing after it, or with all six fields; the board part
    alone only for ``state`` (the rest is decided by :func:`flushable` once the app is quiet)."""
    fields = rest.split(" ")
    ranks = fields[0].split("/")
    if len(ranks) > 8 or not all(_RANK_PREFIX.fullmatch(rank) and _width(rank) <= 8 for rank in ranks):
        return "invalid"
    board_whole = len(ranks) == 8 and all(_width(rank) == 8 for rank in ranks)
    if len(fields) == 1:
        return "complete" if board_whole and board_only else "partial"
    if not board_whole:
        return "invalid"
    if fields[1] not in ("w", "b", ""):
        return "invalid"
    if len(fields) == 2:
        return "complete" if fields[1] else "partial"
    return "complete" if len(fields) >= 6 and fields[5] else "partial"


def _width(rank: str) -> int:
    return sum(int(char) if char.isdigit() else 1 for char in rank)


def resync(text: str) -> int:
    """Where the next command may begin in ``text`` (which cannot become one): after the first character
    that cannot be inside a word (a space, a control or non-ASCII byte), or its length (drop it all)."""
    for index in range(1, len(text)):
        if not _WORD.fullmatch(text[index - 1]) and _WORD.fullmatch(text[index]):
            return index
    return len(text)
