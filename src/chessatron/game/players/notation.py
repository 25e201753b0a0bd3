"""What a player types: moves in any usual notation, a few commands, and a short reason for anything else.

:func:`parse_command` reads one line against the position and never raises: it returns a
:class:`chess.Move` (legal in that position), a :class:`Command`, or a :class:`Rejection` with a reason
to show the player. python-chess parses the notation (``Board.parse_uci``, ``Board.parse_san``); this
module only tries the spellings people use (``nf3``, ``E2E4``, ``o-o``, ``Qxf7#!``) and turns its
exceptions into reasons a player can act on (:mod:`..telling.reasons` asks python-chess why a move fails:
no piece of yours there, the way is blocked, a pin, check, castling rights).

Moves:
    UCI ``e2e4``, ``e7e8q``; SAN ``Nf3``, ``exd5``, ``e8=Q``, ``O-O``, ``0-0-0``, with or without ``+``,
    ``#``, ``!``, ``?``; castling also as the king onto its rook (``e1h1``, ``Kxh1``) or two squares
    (``e1g1``, ``Kg1``) on any board; on a Chess960 board also the king onto its castled square
    (``b1g1``) when no plain king move goes there. SAN is read with the piece letters of the player's
    language first (:mod:`chessatron.i18n.notation`: ``Sf3`` in German, ``Cf3`` in French) and in English
    too; where the two differ (French, Spanish and Italian write the king ``R``) the language's reading
    counts unless it is no legal move. A capital letter that is a piece's in the language is never a
    pawn's file (German ``D``, French ``C``), as English ``B`` is not.
Commands (case-insensitive, accents aside):
    ``hint`` (``h``, ``suggest``), ``takeback`` (``undo``, ``u``, ``take back``), ``draw`` (``d``,
    ``offer draw``, ``accept draw``: an offer, or the acceptance of the opponent's), ``resign`` (``give
    up``; no one-letter form, because a stray key should not lose a game), ``quit`` (``q``, ``exit``),
    ``help`` (``?``); and the words of the player's language for them (German ``remis``, ``aufgeben``).

>>> board = chess.Board()
>>> parse_command("nf3", board)
Move.from_uci('g1f3')
>>> parse_command("Undo", board)
<Command.TAKEBACK: 'takeback'>
>>> parse_command("e5", board).reason
"no white pawn can go to e5 (it is White's move)"
>>> from chessatron.i18n import using
>>> with using("de"):
...     parse_command("Sf3", board), parse_command("Nf3", board)
(Move.from_uci('g1f3'), Move.from_uci('g1f3'))
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, TypeAlias

import chess

from ...i18n import N_, _, ngettext, pgettext
from ...i18n.notation import english_san, letters, san_in
from ..telling.names import listed
from ..telling.reasons import (
    is_castling_attempt,
    no_piece_goes,
    only_pawns_promote,
    why_into_check,
    why_not_castle,
    why_not_move,
)
from .base import Command


@dataclass(frozen=True)
class Rejection:
    """A line that is neither a legal move nor a command: what was typed and why it was refused."""

    text: str
    reason: str
    #: False when the text could not be read as a move at all (the reason then says how to type one);
    #: True when it names a move that cannot be played (the reason says why).
    is_move: bool = True


KeyboardInput: TypeAlias = chess.Move | Command | Rejection

#: The commands' English words, understood in every language.
COMMAND_WORDS: Final[dict[str, Command]] = {
    **dict.fromkeys(["hint", "h", "suggest"], Command.HINT),
    **dict.fromkeys(["takeback", "take back", "undo", "u", "back"], Command.TAKEBACK),
    **dict.fromkeys(["draw", "d", "offer draw", "draw offer", "accept draw", "accept"], Command.DRAW),
    **dict.fromkeys(["resign", "give up", "concede"], Command.RESIGN),
    **dict.fromkeys(["quit", "q", "exit", "bye"], Command.QUIT),
    **dict.fromkeys(["help", "?", "commands"], Command.HELP),
}

MAX_INPUT_CHARS: Final = 40
# TRANSLATORS: how to type a move, after a line that is none: write Nf3 with your language's letters (Sf3,
# Cf3) and 'help' as your language's word for it
_ASK: Final = N_("type a move like e2e4 or Nf3, or 'help'")
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
        # TRANSLATORS: {count}: how many characters were typed; the rest as in "type a move like ..."
        too_long = ngettext(
            "that is too long ({count} character); type a move like e2e4 or Nf3, or 'help'",
            "that is too long ({count} characters); type a move like e2e4 or Nf3, or 'help'",
            len(text),
        )
        return Rejection(text, too_long.format(count=len(text)), is_move=False)
    cleaned = " ".join(unicodedata.normalize("NFKC", text).translate(_ASCII).split())
    if not cleaned:
        return Rejection(text, _(_ASK), is_move=False)
    words = command_words()
    command = words.get(_word_key(cleaned)) or words.get(_word_key(cleaned.rstrip(".!?")))
    if command is not None:
        return command
    result = _parse_move(cleaned.replace(" ", "").rstrip("!?+#"), board)
    if result is None:
        printable = "".join(char if char.isprintable() else "?" for char in cleaned)
        shown = printable if len(printable) <= 16 else printable[:15] + "…"
        # TRANSLATORS: {text}: what was typed, quoted; the rest as in "type a move like ..."
        unknown = _("unknown input {text!r}; type a move like e2e4 or Nf3, or 'help'")
        return Rejection(text, unknown.format(text=shown), is_move=False)
    if isinstance(result, str):
        return Rejection(text, result)
    return result


def _word_key(text: str) -> str:
    """A typed word as commands are looked up: lower case, accents and repeated spaces aside."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(plain.casefold().split())


def local_commands() -> dict[Command, list[str]]:
    """The words of the player's language for each command, the usual one first."""
    lists = {
        # TRANSLATORS: the words a player may type at the move prompt to ask for a hint, separated by
        # commas, the usual one first (the English words are understood too); no word may be a move
        Command.HINT: pgettext("typed command", "hint, h, suggest"),
        # TRANSLATORS: typed to take back a move: words separated by commas, the usual one first
        Command.TAKEBACK: pgettext("typed command", "takeback, take back, undo, u, back"),
        # TRANSLATORS: typed to offer a draw (or accept one): words separated by commas, the usual one first
        Command.DRAW: pgettext("typed command", "draw, d, offer draw, draw offer, accept draw, accept"),
        # TRANSLATORS: typed to resign: words separated by commas, the usual one first; none of one letter
        Command.RESIGN: pgettext("typed command", "resign, give up, concede"),
        # TRANSLATORS: typed to stop playing (the game is saved): words separated by commas
        Command.QUIT: pgettext("typed command", "quit, q, exit, bye"),
        # TRANSLATORS: typed for the help text: words separated by commas, the usual one first
        Command.HELP: pgettext("typed command", "help, ?, commands"),
    }
    return {
        command: [word.strip() for word in words.split(",") if word.strip()]
        for command, words in lists.items()
    }


def command_words() -> dict[str, Command]:
    """Every word typed for a command (as :func:`_word_key` has it): the player's language's, and the
    English ones (:data:`COMMAND_WORDS`) always."""
    words = {_word_key(word): command for word, command in COMMAND_WORDS.items()}
    for command, local in local_commands().items():
        words.update((_word_key(word), command) for word in local)
    return words


def command_word(command: Command) -> str:
    """The usual word of the player's language for ``command`` (``draw``; German ``remis``)."""
    local = local_commands()[command]
    return local[0] if local else command.value


# Reasons in the order to prefer them when several spellings of one input fail differently: a promotion
# without its piece, a move into check, a named piece that cannot go there, no piece that can.
_PROMOTION, _CHECK, _PIECE, _NONE = range(4)


def _readings(text: str) -> list[str]:
    """The SAN ``text`` may stand for, in English letters, the ones to try first first: as typed, then a
    piece letter in the wrong case (nf3, NF3), then a pawn move in capitals (E4, EXD5; but a capital that
    is a piece's letter is that piece); each read with the language's letters, then with English ones."""
    own = letters()
    first = text[:1]
    spellings = [text]
    if first and first.lower() in (own + "KQRBN").lower():
        spellings.append(first.upper() + text[1:].lower())
    if first and first in "ACDEFGH" and first not in own:
        spellings.append(text.lower())
    readings: list[str] = []
    for spelling in spellings:
        if own != "KQRBN":
            readings.append(english_san(spelling))
        readings.append(spelling)
    return list(dict.fromkeys(readings))


def _parse_move(text: str, board: chess.Board) -> chess.Move | str | None:
    """The legal move ``text`` names, the reason it names none, or None when it is no notation at all."""
    lower = text.lower()
    if _UCI.fullmatch(lower):
        return _parse_uci(lower, board)
    # As typed first: "bxc3" is the b-pawn in SAN even when a bishop could also take on c3.
    readings = [lower.replace("o", "O")] if _CASTLING.fullmatch(lower) else _readings(text)
    reasons: list[tuple[int, int, str]] = []
    for order, san in enumerate(readings):
        try:
            move = board.parse_san(san)
        except chess.AmbiguousMoveError:
            return _ambiguity(san, board)
        except chess.IllegalMoveError:
            castling = _king_castling(san, board)
            if castling is not None:
                return castling
            rank, reason = _diagnose_san(san, board)
            reasons.append((rank, order, reason))
            continue
        except ValueError:  # InvalidMoveError: not notation at all in this spelling
            continue
        if move:  # a null move ("--", "Z0") is notation, but not a move a player can make
            return move
    return min(reasons)[2] if reasons else None


def _parse_uci(uci: str, board: chess.Board) -> chess.Move | str:
    if uci[:2] == uci[2:4]:
        return _("{move} does not move the piece; type where it goes as well, like e2e4").format(move=uci)
    try:
        return board.parse_uci(uci)
    except chess.IllegalMoveError:
        pass
    except ValueError:  # InvalidMoveError
        # TRANSLATORS: {move}: what was typed, four or five letters and digits like a move in UCI
        return _("{move} is not a move; type one like e2e4").format(move=uci)
    move = chess.Move.from_uci(uci)
    if board.chess960 and move.promotion is None and board.king(board.turn) == move.from_square:
        # The king onto its castled square; parse_uci only knows this for a king and rooks on their
        # standard squares.
        for castling in board.generate_castling_moves():
            if _castled_king_square(board, castling) == move.to_square:
                return castling
    return why_not_move(board, move, uci)


def _king_castling(san: str, board: chess.Board) -> chess.Move | None:
    """Castling written as a king move: onto its own rook (``Kxh1``, as Chess960 players do) or two
    files along the back rank (``Kg1``)."""
    match = chess.SAN_REGEX.match(san)
    king = board.king(board.turn)
    if match is None or match.group(1) != "K" or match.group(5) or king is None:
        return None
    move = chess.Move(king, chess.parse_square(match.group(4)))
    if not is_castling_attempt(board, move):
        return None
    found = _parse_uci(move.uci(), board)
    return found if isinstance(found, chess.Move) else None


def _diagnose_san(san: str, board: chess.Board) -> tuple[int, str]:
    """Why python-chess found no legal move for SAN it could read (English letters), and how much that
    reason says. Moves in the reason are shown with the language's letters."""
    shown = san_in(san)
    match = chess.SAN_REGEX.match(san)
    if match is None:  # castling: O-O or O-O-O (or with zeros)
        return _PIECE, why_not_castle(board, kingside=san.count("-") == 1, text=shown)
    piece_letter, file_hint, rank_hint, target_name, wanted = match.group(1, 2, 3, 4, 5)
    target = chess.parse_square(target_name)
    promotion = chess.PIECE_SYMBOLS.index(wanted[-1].lower()) if wanted else None
    # python-chess matches SAN against legal moves only; telling "leaves your king in check" apart from
    # "not legal" needs the same filter over pseudo-legal moves.
    candidates = [move for move in board.pseudo_legal_moves if _san_matches(match, move, board)]
    promoting = [move for move in candidates if move.promotion]
    square = target_name
    if promotion is None and promoting:
        queen, rook, bishop, knight = (san_in(f"{square}={letter}") for letter in "QRBN")
        # TRANSLATORS: {queen}, {rook}, {bishop}, {knight}: the promotion to each (e8=Q, e8=R...)
        message = _("say which piece the pawn becomes: {queen}, {rook}, {bishop} or {knight}")
        return _PROMOTION, message.format(queen=queen, rook=rook, bishop=bishop, knight=knight)
    if promotion is not None and promoting and promotion in (chess.KING, chess.PAWN):
        # TRANSLATORS: {move}: the promotion to a queen (e8=Q, in the language's letters)
        message = _("a pawn becomes a queen, rook, bishop or knight: {move}")
        return _PROMOTION, message.format(move=san_in(f"{square}=Q"))
    if promotion is not None and not promoting and candidates:
        return _PROMOTION, only_pawns_promote(shown.split("=")[0])
    chosen = [move for move in candidates if move.promotion == promotion]
    if chosen:
        return _CHECK, why_into_check(board, chosen[0], shown)
    piece_type = chess.PIECE_SYMBOLS.index(piece_letter.lower()) if piece_letter else chess.PAWN
    from_file = chess.FILE_NAMES.index(file_hint) if file_hint else None
    from_rank = int(rank_hint) - 1 if rank_hint else None
    vague, reason = no_piece_goes(
        board, piece_type, target, from_file=from_file, from_rank=from_rank, capture="x" in san
    )
    return (_NONE if vague else _PIECE), reason


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
    names = sorted(san_in(board.san(move).rstrip("+#")) for move in options)
    if names:
        # TRANSLATORS: {move}: the move as typed; {moves}: the moves it may be ("Nbd2 or Nfd2")
        return _("{move} is ambiguous: {moves}?").format(move=san_in(san), moves=listed(names, "or"))
    return _("{move} is ambiguous").format(move=san_in(san))


def _castled_king_square(board: chess.Board, castling: chess.Move) -> chess.Square:
    file = chess.FILE_NAMES.index("g" if board.is_kingside_castling(castling) else "c")
    return chess.square(file, chess.square_rank(castling.from_square))


def typed_words(board: chess.Board) -> list[str]:
    """What a player may type on ``board``, for Tab to complete: every legal move in SAN (with the
    language's letters) and in UCI, and the commands (the language's usual words, and English ones).

    >>> words = typed_words(chess.Board())
    >>> "Nf3" in words and "g1f3" in words and "takeback" in words
    True
    """
    moves = [san_in(board.san(move)) for move in board.legal_moves]
    moves += [board.uci(move) for move in board.legal_moves]
    local = [command_word(command) for command in Command]
    return moves + local + [command.value for command in Command]


class MoveSpellings:
    """Every way :func:`parse_command` reads each legal move on ``board``, to tell which moves a line not
    yet finished may become (what a person is typing, while they type it): SAN with or without ``x``,
    ``=`` and origin hints (``Ngf3``, ``Ng1-f3``), UCI, castling as ``O-O``, ``0-0`` or the king's move;
    pieces with the letters of the player's language (when the spellings are made) and English ones.

    >>> spellings = MoveSpellings(chess.Board())
    >>> [move.uci() for move in spellings.fitting("Nf")], [move.uci() for move in spellings.fitting("nf3")]
    (['g1f3'], ['g1f3'])
    >>> sorted(move.uci() for move in spellings.fitting("e2"))
    ['e2e3', 'e2e4']
    >>> spellings.fitting("Nf9")
    frozenset()
    """

    def __init__(self, board: chess.Board) -> None:
        self.moves = frozenset(board.legal_moves)
        #: The language's piece letters (king queen rook bishop knight): a capital one is never a pawn's.
        self._letters = letters()
        # (move, a spelling in lower case, whether it is a pawn's SAN: a capital B never starts one)
        self._spellings = [
            (move, spelling.lower(), pawn)
            for move in self.moves
            for spelling, pawn in _spellings(board, move, self._letters)
        ]

    def fitting(self, text: str) -> frozenset[chess.Move]:
        """The legal moves some spelling of which begins with ``text`` (read as :func:`parse_command` reads
        a line: case aside, but a capital B is a bishop, as a capital piece letter of the language is its
        piece; spaces, ``+``, ``#``, ``!`` and ``?`` left out):
        every legal move for an empty text, none for a text no move begins with."""
        cleaned = "".join(unicodedata.normalize("NFKC", text).translate(_ASCII).split()).rstrip("!?+#")
        if not cleaned:
            return self.moves
        lower, piece = cleaned.lower(), cleaned[:1] in "B" + self._letters
        return frozenset(
            move
            for move, spelling, pawn in self._spellings
            if spelling.startswith(lower) and not (piece and pawn)
        )


_SEPARATORS: Final = ("", "x", "-")


def _spellings(board: chess.Board, move: chess.Move, own: str = "KQRBN") -> Iterator[tuple[str, bool]]:
    """The spellings of ``move`` (python-chess's SAN grammar, UCI, castling), each with whether it is a
    pawn's SAN; pieces with English letters and ``own`` ones (a language's, king queen rook bishop
    knight)."""
    theirs = dict(zip("KQRBN", own, strict=True))
    origin = chess.square_name(move.from_square)
    hints = ("", origin[0], origin[1], origin)
    if board.is_castling(move):
        san = board.san(move).rstrip("+#")
        yield san, False
        yield san.replace("O", "0"), False
        rank = chess.square_rank(move.from_square)
        kingside = board.is_kingside_castling(move)
        rook = move.to_square if board.chess960 else chess.square(7 if kingside else 0, rank)
        # the king two squares along (e1g1, Kg1) or onto its rook (e1h1, Kxh1)
        for target in {chess.square_name(chess.square(6 if kingside else 2, rank)), chess.square_name(rook)}:
            yield origin + target, False
            for king in dict.fromkeys(("K", theirs["K"])):
                yield from ((f"{king}{hint}{sep}{target}", False) for hint in hints for sep in _SEPARATORS)
        return
    target = chess.square_name(move.to_square)
    promotion = "" if move.promotion is None else chess.piece_symbol(move.promotion)
    # long algebraic without the piece's letter (g1-f3, f3xe5) is any piece's, as UCI is
    yield from ((f"{origin}{sep}{target}{promotion}", False) for sep in _SEPARATORS)
    piece = board.piece_type_at(move.from_square)
    if piece != chess.PAWN:
        english = chess.piece_symbol(piece or chess.PAWN).upper()
        for letter in dict.fromkeys((english, theirs[english])):
            yield from ((f"{letter}{hint}{sep}{target}", False) for hint in hints for sep in _SEPARATORS)
        return
    ends = [target]
    if move.promotion is not None:
        english = chess.piece_symbol(move.promotion).upper()
        symbols = dict.fromkeys((english, theirs[english]))
        ends = [end for symbol in symbols for end in (f"{target}={symbol}", f"{target}{symbol}")]
    capture = chess.square_file(move.from_square) != chess.square_file(move.to_square)
    for hint in hints[1:] if capture else hints:  # a pawn's capture names its file
        yield from ((f"{hint}{sep}{end}", True) for sep in _SEPARATORS for end in ends)
