"""What a player types: moves in any usual notation, a few commands, and a short reason for anything else.

:func:`parse_command` reads one line against the position and never raises: it returns a
:class:`chess.Move` (legal in that position), a :class:`Command`, or a :class:`Rejection` with a reason
to show the player. python-chess parses the notation (``Board.parse_uci``, ``Board.parse_san``); this
module only tries the spellings people use (``nf3``, ``E2E4``, ``o-o``, ``Qxf7#!``) and turns its
exceptions into reasons a player can act on.

Moves:
    UCI ``e2e4``, ``e7e8q``; SAN ``Nf3``, ``exd5``, ``e8=Q``, ``O-O``, ``0-0-0``, with or without ``+``,
    ``#``, ``!``, ``?``; castling as king onto rook (``e1h1``) on any board; on a Chess960 board also
    the king onto its castled square (``b1g1``) when no plain king move goes there.
Commands (case-insensitive):
    ``hint`` (``h``, ``suggest``), ``takeback`` (``undo``, ``u``, ``take back``), ``draw`` (``d``,
    ``offer draw``, ``accept draw``: an offer, or the acceptance of the opponent's), ``resign`` (``give
    up``; no one-letter form, because a stray key should not lose a game), ``quit`` (``q``, ``exit``),
    ``help`` (``?``).

>>> board = chess.Board()
>>> parse_command("nf3", board)
Move.from_uci('g1f3')
>>> parse_command("Undo", board)
<Command.TAKEBACK: 'takeback'>
>>> parse_command("e2e5", board)
Rejection(text='e2e5', reason='e2e5 is not legal here')
"""

from __future__ import annotations

import enum
import io
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final, TypeAlias

import chess


class Command(enum.Enum):
    """Something a player asks for instead of moving."""

    HINT = "hint"
    TAKEBACK = "takeback"
    DRAW = "draw"
    RESIGN = "resign"
    QUIT = "quit"
    HELP = "help"


@dataclass(frozen=True)
class Rejection:
    """A line that is neither a legal move nor a command: what was typed and why it was refused."""

    text: str
    reason: str


KeyboardInput: TypeAlias = chess.Move | Command | Rejection

COMMAND_WORDS: Final[dict[str, Command]] = {
    **dict.fromkeys(["hint", "h", "suggest"], Command.HINT),
    **dict.fromkeys(["takeback", "take back", "undo", "u", "back"], Command.TAKEBACK),
    **dict.fromkeys(["draw", "d", "offer draw", "draw offer", "accept draw", "accept"], Command.DRAW),
    **dict.fromkeys(["resign", "give up", "concede"], Command.RESIGN),
    **dict.fromkeys(["quit", "q", "exit", "bye"], Command.QUIT),
    **dict.fromkeys(["help", "?", "commands"], Command.HELP),
}

HELP_TEXT: Final = """\
type a move: e2e4, e7e8q, Nf3, exd5, e8=Q, O-O (castling also as the king onto its rook: e1h1)
or a command: hint (h), takeback (undo), draw (offers or accepts a draw), resign, quit (q), help (?)"""

MAX_INPUT_CHARS: Final = 40
_ASK: Final = "type a move like e2e4 or Nf3, or 'help'"
_UCI: Final = re.compile(r"[a-h][1-8][a-h][1-8][qrbnk]?", re.ASCII)
_CASTLING: Final = re.compile(r"[o0]-[o0](-[o0])?", re.ASCII)
# Spellings that keyboards and word processors put in place of ASCII: figurines, the multiplication
# sign for captures, dashes that autocorrect makes of "O-O".
_ASCII: Final = str.maketrans(
    {**dict(zip("♔♕♖♗♘♚♛♜♝♞", "KQRBNKQRBN", strict=True)), "×": "x", **dict.fromkeys("‐‑‒–—―−", "-")}
)


def parse_command(text: str, board: chess.Board) -> KeyboardInput:
    """Read one line typed by the player to move on ``board``: a legal move, a command, or a rejection.

    Never raises for any text. Castling comes back in python-chess's form for the board: ``e1g1`` on a
    standard board, king onto rook (``e1h1``) on a Chess960 board, whichever way it was typed.

    >>> parse_command("Nd2", chess.Board("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")).reason
    'Nd2 is ambiguous: Nbd2 or Nfd2?'
    """
    if len(text) > MAX_INPUT_CHARS:
        return Rejection(text, f"that is too long ({len(text)} characters); {_ASK}")
    cleaned = " ".join(unicodedata.normalize("NFKC", text).translate(_ASCII).split())
    if not cleaned:
        return Rejection(text, _ASK)
    command = COMMAND_WORDS.get(cleaned.lower()) or COMMAND_WORDS.get(cleaned.lower().rstrip(".!?"))
    if command is not None:
        return command
    result = _parse_move(cleaned.replace(" ", "").rstrip("!?+#"), board)
    if result is None:
        printable = "".join(char if char.isprintable() else "?" for char in cleaned)
        shown = printable if len(printable) <= 16 else printable[:15] + "…"
        return Rejection(text, f"unknown input {shown!r}; {_ASK}")
    if isinstance(result, str):
        return Rejection(text, result)
    return result


# Reasons in the order to prefer them when several spellings of one input fail differently.
_PROMOTION, _CHECK, _TURN, _ILLEGAL = range(4)


def _parse_move(text: str, board: chess.Board) -> chess.Move | str | None:
    """The legal move ``text`` names, the reason it names none, or None when it is no notation at all."""
    lower = text.lower()
    if _UCI.fullmatch(lower):
        return _parse_uci(lower, board)
    if _CASTLING.fullmatch(lower):
        spellings = [lower.replace("o", "O")]
    else:
        # As typed first: "bxc3" is the b-pawn in SAN even when a bishop could also take on c3. Then a
        # piece letter in the wrong case (nf3, NF3), or a pawn move in capitals (E4, EXD5; but B is a bishop).
        first = text[:1]
        spellings = [text]
        if first and first.lower() in "nbrqk":
            spellings.append(first.upper() + text[1:].lower())
        if first and first in "ACDEFGH":
            spellings.append(text.lower())
    reasons: list[tuple[int, str]] = []
    for san in spellings:
        try:
            move = board.parse_san(san)
        except chess.AmbiguousMoveError:
            return _ambiguity(san, board)
        except chess.IllegalMoveError:
            reasons.append(_diagnose_san(san, board))
            continue
        except ValueError:  # InvalidMoveError: not notation at all in this spelling
            continue
        if move:  # a null move ("--", "Z0") is notation, but not a move a player can make
            return move
    return min(reasons)[1] if reasons else None


def _parse_uci(uci: str, board: chess.Board) -> chess.Move | str:
    try:
        return board.parse_uci(uci)
    except chess.IllegalMoveError:
        pass
    except ValueError:  # InvalidMoveError: from and to the same square
        return f"{uci} is not legal here"
    move = chess.Move.from_uci(uci)
    if board.chess960 and move.promotion is None and board.king(board.turn) == move.from_square:
        # The king onto its castled square; parse_uci only knows this for a king and rooks on their
        # standard squares.
        for castling in board.generate_castling_moves():
            if _castled_king_square(board, castling) == move.to_square:
                return castling
    piece = board.piece_at(move.from_square)
    if piece is None:
        return f"there is no piece on {chess.square_name(move.from_square)}"
    if piece.color != board.turn:
        return _whose_move(board)
    queening = chess.Move(move.from_square, move.to_square, chess.QUEEN)
    if move.promotion is None and piece.piece_type == chess.PAWN and board.is_legal(queening):
        return f"promotion needs a piece: {uci}q"
    if board.is_pseudo_legal(move):
        return _into_check(uci, board)
    return f"{uci} is not legal here"


def _diagnose_san(san: str, board: chess.Board) -> tuple[int, str]:
    """Why python-chess found no legal move for SAN it could read, and how much that reason says."""
    match = chess.SAN_REGEX.match(san)
    if match is None:  # castling: both sides may castle, so "it is White's move" would mislead
        return _ILLEGAL, f"{san} is not legal here"
    wanted = match.group(5)
    promotion = chess.PIECE_SYMBOLS.index(wanted[-1].lower()) if wanted else None
    # python-chess matches SAN against legal moves only; telling "leaves your king in check" apart from
    # "not legal" needs the same filter over pseudo-legal moves.
    candidates = [move for move in board.pseudo_legal_moves if _san_matches(match, move, board)]
    if promotion is None and any(move.promotion for move in candidates):
        return _PROMOTION, f"promotion needs a piece: {san}=Q"
    if any(move.promotion == promotion for move in candidates):
        return _CHECK, _into_check(san, board)
    flipped = board.copy(stack=False)
    flipped.turn = not board.turn
    try:
        flipped.parse_san(san)
    except chess.AmbiguousMoveError:
        return _TURN, _whose_move(board)
    except ValueError:
        return _ILLEGAL, f"{san} is not legal here"
    return _TURN, _whose_move(board)


def _san_matches(match: re.Match[str], move: chess.Move, board: chess.Board) -> bool:
    """Whether ``move`` fits the piece, origin hints and target of a SAN match, as parse_san filters."""
    piece, from_file, from_rank, target = match.group(1, 2, 3, 4)
    if move.to_square != chess.parse_square(target) or board.is_castling(move):
        return False
    if from_file and chess.square_file(move.from_square) != chess.FILE_NAMES.index(from_file):
        return False
    if from_rank and chess.square_rank(move.from_square) != int(from_rank) - 1:
        return False
    if piece:
        return board.piece_type_at(move.from_square) == chess.PIECE_SYMBOLS.index(piece.lower())
    if from_file and from_rank:
        return True
    same_file = chess.square_file(move.from_square) == chess.square_file(move.to_square)
    return board.piece_type_at(move.from_square) == chess.PAWN and (bool(from_file) or same_file)


def _ambiguity(san: str, board: chess.Board) -> str:
    match = chess.SAN_REGEX.match(san)
    options = [] if match is None else [m for m in board.legal_moves if _san_matches(match, m, board)]
    names = sorted(board.san(move).rstrip("+#") for move in options)
    return f"{san} is ambiguous: {_or(names)}?" if names else f"{san} is ambiguous"


def _castled_king_square(board: chess.Board, castling: chess.Move) -> chess.Square:
    file = chess.FILE_NAMES.index("g" if board.is_kingside_castling(castling) else "c")
    return chess.square(file, chess.square_rank(castling.from_square))


def _whose_move(board: chess.Board) -> str:
    return f"it is {chess.COLOR_NAMES[board.turn].capitalize()}'s move"


def _into_check(move: str, board: chess.Board) -> str:
    if board.is_check():
        return f"{move} does not get your king out of check"
    return f"{move} leaves your king in check"


def _or(names: Iterable[str]) -> str:
    *rest, last = names
    return f"{', '.join(rest)} or {last}" if rest else last


def read_stdin_line(prompt: str) -> str | None:
    """``input()`` with end of input (Ctrl-D) as None. Bytes that are not text (in any locale) become
    U+FFFD and so an unknown move, never an exception that would lose the lines read with them."""
    stdin = sys.stdin
    if isinstance(stdin, io.TextIOWrapper) and stdin.errors == "strict":
        stdin.reconfigure(errors="replace")
    try:
        return input(prompt)
    except EOFError:
        return None


class KeyboardPlayer:
    """A person at a terminal: prompts, explains every refused line and asks again.

    ``read_line(prompt)`` returns a line, or None at the end of input; ``write`` shows a line of text.
    ``help`` is answered here with :data:`HELP_TEXT`; every other command goes back to the caller.
    The end of input and Ctrl-C (``KeyboardInterrupt``, ``EOFError`` from ``read_line``) are
    :attr:`Command.QUIT`, so a game can be saved rather than lost to a traceback.

    >>> lines = iter(["e2e5", "e4"])
    >>> KeyboardPlayer(lambda prompt: next(lines), print).ask(chess.Board())
    e2e5 is not legal here
    Move.from_uci('e2e4')
    """

    def __init__(
        self, read_line: Callable[[str], str | None] = read_stdin_line, write: Callable[[str], None] = print
    ) -> None:
        self._read_line = read_line
        self._write = write

    def confirm(self, question: str) -> bool:
        """A yes/no question (``"Another game?"``): True for y/yes; no, anything else, the end of input
        or Ctrl-C is False."""
        try:
            line = self._read_line(f"{question} [y/N] ")
        except (KeyboardInterrupt, EOFError):
            line = None
        if line is None:
            self._write("")
            return False
        return line.strip().lower() in ("y", "yes")

    def ask(self, board: chess.Board) -> chess.Move | Command:
        """The legal move or the command (never :attr:`Command.HELP`) of the player to move on ``board``."""
        prompt = f"{chess.COLOR_NAMES[board.turn].capitalize()} to move: "
        while True:
            try:
                line = self._read_line(prompt)
            except (KeyboardInterrupt, EOFError):
                line = None
            if line is None:
                self._write("")  # end the prompt's line, so that what follows starts on its own
                return Command.QUIT
            result = parse_command(line, board)
            if isinstance(result, Rejection):
                self._write(result.reason)
            elif result is Command.HELP:
                self._write(HELP_TEXT)
            else:
                return result
