"""What the words the recogniser heard mean on the board: a move, a command, a request to the voice
player, a setting of the next game, yes or no, or nothing clear (:func:`understand`).

A move is built as SAN from the words and python-chess parses it against the board
(``Board.parse_san``), so legality, check and castling rights are python-chess's; words that fit several
moves ("knight f three" when both knights can go there) come back as all of them, for the player to be
asked which (:func:`which`). The words themselves are :mod:`~chessatron.voice.words`'.

>>> board = chess.Board()
>>> understand("knight f three", board)
MoveHeard(moves=(Move.from_uci('g1f3'),), words='knight f three')
>>> understand("take back", board)
CommandHeard(command=<Command.TAKEBACK: 'takeback'>, words='take back')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeAlias

import chess

from ..game.players.base import Command
from .words import (
    CAPTURE_WORDS,
    CASTLE_WORDS,
    CHECK_WORDS,
    COMMAND_PHRASES,
    FILE_WORDS,
    KINGSIDE_WORDS,
    NO_WORDS,
    NUMBER_PHRASES,
    PIECE_WORDS,
    PROMOTE_WORDS,
    QUEENSIDE_WORDS,
    RANDOM_WORDS,
    RANK_WORDS,
    REQUEST_PHRASES,
    SETTING_PHRASES,
    YES_WORDS,
    Request,
    Setting,
)

__all__ = [
    "Answer",
    "CommandHeard",
    "Heard",
    "MoveHeard",
    "RequestHeard",
    "SettingHeard",
    "SpokenMove",
    "Unclear",
    "number_of",
    "parse_spoken_move",
    "understand",
    "which",
]

_FILE_OF: Final = {word: file for file, words in FILE_WORDS.items() for word in words}
_RANK_OF: Final = {word: str(number) for number, word in enumerate(RANK_WORDS, start=1)}
_PIECE_OF: Final = {word: piece for piece, word in PIECE_WORDS.items()}


@dataclass(frozen=True)
class MoveHeard:
    """Words naming a move: the legal ``moves`` they fit (one, or several to ask about; none when the
    words name no legal move)."""

    moves: tuple[chess.Move, ...]
    words: str


@dataclass(frozen=True)
class CommandHeard:
    command: Command
    words: str


@dataclass(frozen=True)
class Answer:
    """Yes or no, to a move or a command read back."""

    yes: bool
    words: str


@dataclass(frozen=True)
class SettingHeard:
    """A setting of the next game: ``level`` (``value`` 0-20), ``standard`` chess, ``chess960`` (its
    number is asked for next), or ``new game`` to begin it."""

    setting: Setting
    value: int | None
    words: str


@dataclass(frozen=True)
class RequestHeard:
    request: Request
    words: str


@dataclass(frozen=True)
class Unclear:
    """Nothing the player could have meant: silence, noise, or words out of place."""

    words: str


Heard: TypeAlias = MoveHeard | CommandHeard | Answer | RequestHeard | SettingHeard | Unclear


@dataclass(frozen=True)
class SpokenMove:
    """A move as words put it: what is said of where it starts (a piece, a file, a rank, a square) and
    where it goes, a promotion, or a castling side.

    >>> parse_spoken_move("knight from g one to f three").san()
    'Ng1f3'
    >>> parse_spoken_move("e takes d five").san()
    'exd5'
    """

    to_square: chess.Square | None = None
    piece: chess.PieceType | None = None
    from_file: str | None = None
    from_rank: str | None = None
    capture: bool = False
    promotion: chess.PieceType | None = None
    castling: Literal["kingside", "queenside"] | None = None

    def san(self) -> str:
        """The move in SAN as far as the words say it (``xd5``: a pawn takes on d5, from a file not said)."""
        if self.castling is not None:
            return "O-O" if self.castling == "kingside" else "O-O-O"
        if self.to_square is None:
            return ""
        piece = chess.piece_symbol(self.piece).upper() if self.piece not in (None, chess.PAWN) else ""
        origin = (self.from_file or "") + (self.from_rank or "")
        promotion = f"={chess.piece_symbol(self.promotion).upper()}" if self.promotion else ""
        return f"{piece}{origin}{'x' if self.capture else ''}{chess.square_name(self.to_square)}{promotion}"

    def candidates(self, board: chess.Board) -> tuple[chess.Move, ...]:
        """The legal moves on ``board`` the words fit: python-chess parses the SAN; when that is ambiguous
        (or a pawn capture whose file was not said), each piece that could be meant is tried in turn."""
        spoken = self._completed(board)
        try:
            return (board.parse_san(spoken.san()),)
        except chess.AmbiguousMoveError:
            pass
        except ValueError:
            if spoken.from_file is not None and spoken.from_rank is not None and spoken.to_square is not None:
                return _uci_move(board, spoken)  # a king's two-square step as castling, say
            if spoken.piece not in (None, chess.PAWN) or spoken.from_file is not None or spoken.castling:
                return ()
        if spoken.to_square is None:
            return ()
        found: list[chess.Move] = []
        for square in board.pieces(spoken.piece or chess.PAWN, board.turn):
            name = chess.square_name(square)
            if spoken.from_file not in (None, name[0]) or spoken.from_rank not in (None, name[1]):
                continue
            try:
                found.append(board.parse_san(replace(spoken, from_file=name[0], from_rank=name[1]).san()))
            except ValueError:
                continue
        return tuple(found)

    def _completed(self, board: chess.Board) -> SpokenMove:
        """The words with what they leave to the board: the piece on a square named as the start, a
        queen for a pawn reaching the last rank with no piece said."""
        spoken = self
        if spoken.piece is None and spoken.from_file is not None and spoken.from_rank is not None:
            square = chess.parse_square(spoken.from_file + spoken.from_rank)
            spoken = replace(spoken, piece=board.piece_type_at(square) or chess.PAWN)
        if (
            spoken.promotion is None
            and spoken.piece in (None, chess.PAWN)
            and spoken.to_square is not None
            and chess.square_rank(spoken.to_square) == (7 if board.turn == chess.WHITE else 0)
        ):
            spoken = replace(spoken, promotion=chess.QUEEN)
        return spoken


def _uci_move(board: chess.Board, spoken: SpokenMove) -> tuple[chess.Move, ...]:
    assert spoken.from_file is not None and spoken.from_rank is not None and spoken.to_square is not None
    promotion = chess.piece_symbol(spoken.promotion) if spoken.promotion else ""
    try:
        return (
            board.parse_uci(
                f"{spoken.from_file}{spoken.from_rank}{chess.square_name(spoken.to_square)}{promotion}"
            ),
        )
    except ValueError:
        return ()


def parse_spoken_move(words: str) -> SpokenMove | None:
    """The move ``words`` describe (not yet checked against a board), None when they describe none.

    >>> parse_spoken_move("castle king side").san()
    'O-O'
    >>> parse_spoken_move("pawn e eight promotes to knight").san()
    'e8=N'
    >>> parse_spoken_move("hello") is None
    True
    """
    tokens = _normalised(words).split()
    if not tokens:
        return None
    if any(token in CASTLE_WORDS for token in tokens):
        if any(token in KINGSIDE_WORDS for token in tokens):
            return SpokenMove(castling="kingside")
        if any(token in QUEENSIDE_WORDS for token in tokens):
            return SpokenMove(castling="queenside")
        return None
    piece: chess.PieceType | None = None
    promotion: chess.PieceType | None = None
    capture = False
    places: list[tuple[str | None, str | None]] = []  # (file, rank) said, in order
    for token in tokens:
        if token in _PIECE_OF:
            if places and places[-1][0] is not None and places[-1][1] is not None:
                promotion = _PIECE_OF[token]  # a piece named after the destination: the promotion
            elif piece is None and not places:
                piece = _PIECE_OF[token]
            else:
                return None
        elif token in _FILE_OF:
            places.append((_FILE_OF[token], None))
        elif token in _RANK_OF:
            if places and places[-1][1] is None and places[-1][0] is not None:
                places[-1] = (places[-1][0], _RANK_OF[token])
            else:
                places.append((None, _RANK_OF[token]))
        elif token in CAPTURE_WORDS:
            capture = True
        elif token in ("to", "from", "on", *CHECK_WORDS, *PROMOTE_WORDS):
            continue
        else:
            return None
    if not places or places[-1][0] is None or places[-1][1] is None or len(places) > 2:
        return None
    file, rank = places[-1]
    to_square = chess.parse_square(f"{file}{rank}")
    from_file, from_rank = places[0] if len(places) == 2 else (None, None)
    if promotion == chess.KING or (promotion is not None and piece not in (None, chess.PAWN)):
        return None
    return SpokenMove(to_square, piece, from_file, from_rank, capture, promotion)


def understand(words: str, board: chess.Board) -> Heard:
    """What the recognised ``words`` mean on ``board``: a move (the legal moves they fit), a command, a
    request to the voice player, yes or no, or nothing clear.

    >>> understand("yes", chess.Board())
    Answer(yes=True, words='yes')
    >>> understand("", chess.Board())
    Unclear(words='')
    >>> understand("pawn e four check", chess.Board()).moves
    (Move.from_uci('e2e4'),)
    >>> understand("level five", chess.Board())
    SettingHeard(setting='level', value=5, words='level five')
    """
    text = _normalised(words)
    if text in YES_WORDS or text in NO_WORDS:
        return Answer(text in YES_WORDS, text)
    if text in COMMAND_PHRASES:
        return CommandHeard(COMMAND_PHRASES[text], text)
    if text in REQUEST_PHRASES:
        return RequestHeard(REQUEST_PHRASES[text], text)
    if text in SETTING_PHRASES:
        return SettingHeard(*SETTING_PHRASES[text], text)
    spoken = parse_spoken_move(text)
    if spoken is None:
        return Unclear(text)
    return MoveHeard(spoken.candidates(board), text)


def which(words: str, board: chess.Board, options: Sequence[chess.Move]) -> chess.Move | None:
    """The option the player named when asked which piece: its start square ("from g one", "the knight on
    g one"), or the whole move said again; None for anything else.

    >>> board = chess.Board("8/8/8/8/8/8/1N3N2/K6k w - - 0 1")
    >>> which("from b two", board, [chess.Move.from_uci("b2d3"), chess.Move.from_uci("f2d3")])
    Move.from_uci('b2d3')
    """
    spoken = parse_spoken_move(words)
    if spoken is None:
        return None
    if spoken.from_file is None and spoken.to_square is not None and spoken.castling is None:
        start = spoken.to_square  # "from g one": the only square said is where the piece stands
        named = [move for move in options if move.from_square == start]
    else:
        chosen = set(spoken.candidates(board))
        named = [move for move in options if move in chosen]
    return named[0] if len(named) == 1 else None


def number_of(words: str) -> int | Literal["random"] | None:
    """The Chess960 number ``words`` say, ``"random"``, or None (anything else: a no).

    >>> number_of("number nine hundred and fifty nine"), number_of("random"), number_of("no")
    (959, 'random', None)
    """
    text = _normalised(words)
    if text in RANDOM_WORDS:
        return "random"
    return NUMBER_PHRASES.get(text)


def _normalised(words: str) -> str:
    text = " ".join(re.sub(r"[^a-z ]", " ", words.lower()).split())
    return text.replace("king side", "kingside").replace("queen side", "queenside")
