"""What a player may say, and what it means: the grammar the recogniser listens with, and the words it
heard read back as a move, a command or an answer.

The recogniser is told exactly what may be said, as a finite-state grammar (pocketsphinx's FSG, built
from the :class:`Grammar`'s word sequences): :func:`move_grammar` lists every legal move of the position
in the ways people say them ("knight f three", "knight to f three", "knight from g one to f three",
"pawn takes d five", "e takes d five", "castle kingside", "e eight queen", with "check" or "mate" after
a move that gives it), the commands ("hint please", "take back", "offer a draw", "resign",
"repeat", "help") and the next game's settings, as the buttons' menu has them ("level five", "standard
chess", "chess nine sixty", then its number in a grammar of its own: :func:`number_grammar`, "new
game"). Listening only for what is legal lets a small offline model hear a move among a few
hundred phrases instead of every word of English. Files may be letters or the spelling alphabet
("foxtrot"): "b", "d", "e" and "g" sound alike, and when both are legal only the alphabet tells them
apart reliably.

:func:`understand` reads the words that came back. A move is built as SAN from the words and python-chess
parses it against the board (``Board.parse_san``), so legality, check and castling rights are
python-chess's; words that fit several moves ("knight f three" when both knights can go there) come back
as all of them, for the player to be asked which.

>>> board = chess.Board()
>>> understand("knight f three", board)
MoveHeard(moves=(Move.from_uci('g1f3'),), words='knight f three')
>>> understand("take back", board)
CommandHeard(command=<Command.TAKEBACK: 'takeback'>, words='take back')
>>> "knight to f three" in move_grammar(board).phrases
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, TypeAlias

import chess

from ..game.keyboard import Command

__all__ = [
    "ACCENTS",
    "EXTRA_WORDS",
    "VOCABULARY",
    "Answer",
    "Automaton",
    "CommandHeard",
    "Grammar",
    "Heard",
    "MoveHeard",
    "Request",
    "SettingHeard",
    "SpokenMove",
    "Unclear",
    "answer_grammar",
    "expand",
    "move_grammar",
    "number_grammar",
    "number_of",
    "number_words",
    "parse_spoken_move",
    "understand",
    "which_grammar",
]

#: How each file is said: its letter, or the spelling alphabet's word (clearer: "b", "d", "e" rhyme).
FILE_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "a": ("a", "alpha"),
    "b": ("b", "bravo"),
    "c": ("c", "charlie"),
    "d": ("d", "delta"),
    "e": ("e", "echo"),
    "f": ("f", "foxtrot"),
    "g": ("g", "golf"),
    "h": ("h", "hotel"),
}
RANK_WORDS: Final = ("one", "two", "three", "four", "five", "six", "seven", "eight")
PIECE_WORDS: Final[dict[chess.PieceType, str]] = {
    chess.PAWN: "pawn",
    chess.KNIGHT: "knight",
    chess.BISHOP: "bishop",
    chess.ROOK: "rook",
    chess.QUEEN: "queen",
    chess.KING: "king",
}
CAPTURE_WORDS: Final = ("takes", "captures")
CHECK_WORDS: Final = ("check", "checkmate", "mate")
CASTLE_WORDS: Final = ("castle", "castles", "castling")
KINGSIDE_WORDS: Final = ("kingside", "short")
QUEENSIDE_WORDS: Final = ("queenside", "long")
PROMOTE_WORDS: Final = ("promote", "promotes", "promoting", "equals")
# (few, and unlike each other and the commands: "correct" is heard as "repeat", "okay" as "no")
YES_WORDS: Final = ("yes", "yeah", "yep")
NO_WORDS: Final = ("no", "nope", "wrong", "cancel")
#: Said instead of a move: what the session does (hint, take back, draw, resign).
# (a short word alone is easily lost: "hint please" is heard far more surely than "hint")
COMMAND_PHRASES: Final[dict[str, Command]] = {
    "hint": Command.HINT,
    "hint please": Command.HINT,
    "give me a hint": Command.HINT,
    "suggest a move": Command.HINT,
    "take back": Command.TAKEBACK,
    "takeback": Command.TAKEBACK,
    "undo": Command.TAKEBACK,
    "draw": Command.DRAW,
    "offer draw": Command.DRAW,
    "offer a draw": Command.DRAW,
    "resign": Command.RESIGN,
    "i resign": Command.RESIGN,
}
_ONES: Final = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)  # fmt: skip
_TENS: Final = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_words(number: int) -> tuple[str, ...]:
    """The ways of saying a whole number from 0 to 999: in words ("one hundred and five", "one hundred
    five"), and digit by digit for two digits or more ("one zero five").

    >>> number_words(105)
    ('one hundred five', 'one hundred and five', 'one zero five')
    >>> number_words(20)
    ('twenty', 'two zero')
    """
    if not 0 <= number <= 999:
        raise ValueError(f"{number!r} is not a number from 0 to 999")
    hundreds, rest = divmod(number, 100)
    if rest < 20:
        below = _ONES[rest]
    else:
        tens, ones = divmod(rest, 10)
        below = _TENS[tens] + (f" {_ONES[ones]}" if ones else "")
    if not hundreds:
        said = [below]
    elif rest:
        said = [f"{_ONES[hundreds]} hundred {below}", f"{_ONES[hundreds]} hundred and {below}"]
    else:
        said = [f"{_ONES[hundreds]} hundred"]
    if number >= 10:
        said.append(" ".join(_ONES[int(digit)] for digit in str(number)))
    return tuple(said)


#: The settings of the next game, as the buttons' menu has them: the engine's level (0-20), the start
#: (standard chess, or Chess960 with its number asked for next: a phrase for each of 960 numbers among
#: the moves would make every move likelier to be heard as a number), and "new game" to begin it.
Setting = Literal["level", "standard", "chess960", "new game"]
LEVELS: Final = range(21)
CHESS960_NUMBERS: Final = range(960)
SETTING_PHRASES: Final[dict[str, tuple[Setting, int | None]]] = {
    **{f"level {said}": ("level", level) for level in LEVELS for said in number_words(level)},
    "standard chess": ("standard", None),
    "chess nine sixty": ("chess960", None),
    "new game": ("new game", None),
}
#: Answers to "which Chess960 start?": its number, said either way ("number" before it or not).
NUMBER_PHRASES: Final[dict[str, int]] = {
    f"{lead}{said}": number
    for number in CHESS960_NUMBERS
    for said in number_words(number)
    for lead in ("", "number ")
}
RANDOM_WORDS: Final = ("random", "any")

#: What the voice player answers itself: the last thing it said again, or how to talk to it.
Request = Literal["repeat", "help"]
REQUEST_PHRASES: Final[dict[str, Request]] = {
    "repeat": "repeat",
    "say that again": "repeat",
    "help": "help",
    "help me": "help",
    "what can i say": "help",
}

#: Words the English model's dictionary lacks, with their sounds (CMU ARPAbet phones).
EXTRA_WORDS: Final[dict[str, str]] = {
    "kingside": "K IH NG S AY D",
    "queenside": "K W IY N S AY D",
    "takeback": "T EY K B AE K",
    "castling": "K AE S L IH NG",
}
#: Pronunciations of other accents than the dictionary's American English, listened for beside it.
# (the West Midlands' and the Black Country's "noit" for knight: pocketsphinx's US model lost the word,
# and "knight to foxtrot three" came back as "to echo four"; h-dropped "otel" was tried and heard
# "hotel four" in more places than it helped)
ACCENTS: Final[dict[str, str]] = {
    "knight": "N OY T",
}


def _vocabulary() -> frozenset[str]:
    phrases: list[str] = [*RANK_WORDS, *PIECE_WORDS.values(), *CAPTURE_WORDS, *CHECK_WORDS]
    phrases += [*CASTLE_WORDS, *KINGSIDE_WORDS, *QUEENSIDE_WORDS, "king side", "queen side"]
    phrases += [*PROMOTE_WORDS, *YES_WORDS, *NO_WORDS, *COMMAND_PHRASES, *REQUEST_PHRASES, "to", "from", "on"]
    phrases += [*SETTING_PHRASES, *NUMBER_PHRASES, *RANDOM_WORDS]
    phrases += [word for words in FILE_WORDS.values() for word in words]
    return frozenset(word for phrase in phrases for word in phrase.split())


#: Every word any grammar here uses (the recogniser checks its dictionary has them all).
VOCABULARY: Final = _vocabulary()

_FILE_OF: Final = {word: file for file, words in FILE_WORDS.items() for word in words}
_RANK_OF: Final = {word: str(number) for number, word in enumerate(RANK_WORDS, start=1)}
_PIECE_OF: Final = {word: piece for piece, word in PIECE_WORDS.items()}


# --- what was heard ---------------------------------------------------------------------------------


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


def _normalised(words: str) -> str:
    text = " ".join(re.sub(r"[^a-z ]", " ", words.lower()).split())
    return text.replace("king side", "kingside").replace("queen side", "queenside")


# --- grammars ---------------------------------------------------------------------------------------

Slot: TypeAlias = str | tuple[str, ...]
"""One place in a phrase: a word (or words), or alternatives (``""`` among them: it may be left out)."""


@dataclass(frozen=True)
class Grammar:
    """Everything that may be said at one moment, as the word sequences allowed (lower case, one space
    apart). The recogniser compiles it into the smallest automaton that accepts exactly these
    (:meth:`automaton`): shared beginnings and endings are listened for once, which keeps decoding quick
    even for a position with fifty legal moves said in a dozen ways each."""

    name: str
    phrases: frozenset[str]

    def automaton(self) -> Automaton:
        return Automaton.of(self.phrases)

    def __repr__(self) -> str:
        return f"<Grammar {self.name!r} of {len(self.phrases)} phrases>"


@dataclass(frozen=True)
class Automaton:
    """A word automaton: ``transitions`` ``(from state, to state, word, probability)`` from state 0 to
    :attr:`final`. Every transition takes a word (pocketsphinx's search does not follow empty ones): a
    word that may end a phrase leads both on and straight into the final state.

    The probabilities make every phrase equally likely, however long: a transition's share is the
    number of phrases that go through it. (Shares of one per word would make a long phrase as cheap as a
    short one, and the recogniser would hear four short words in one long one: "echo two e four" in
    "hotel four".)

    >>> automaton = Automaton.of(["e four", "e four check", "d four"])
    >>> [(a, b, word, round(share, 2)) for a, b, word, share in sorted(automaton.transitions)]
    [(0, 1, 'd', 0.33), (0, 2, 'e', 0.67), (1, 5, 'four', 1.0), (2, 4, 'four', 0.5), (2, 5, 'four', 0.5), \
(4, 5, 'check', 1.0)]
    """

    states: int
    final: int
    transitions: tuple[tuple[int, int, str, float], ...]

    @classmethod
    def of(cls, phrases: Iterable[str]) -> Automaton:
        """The smallest automaton accepting exactly ``phrases`` (a trie whose states with the same
        future and the same share of phrases through each word are merged, deepest first)."""
        trie: list[dict[str, int]] = [{}]
        ends: set[int] = set()
        for phrase in phrases:
            state = 0
            for word in phrase.split():
                following = trie[state].get(word)
                if following is None:
                    following = len(trie)
                    trie.append({})
                    trie[state][word] = following
                state = following
            ends.add(state)
        # a state's signature: whether a phrase ends there, and where each word leads (children merged
        # first, so equal futures have equal signatures); with the phrases counted, so that merging
        # keeps every transition's share
        Key = tuple[bool, tuple[tuple[str, int], ...]]
        registry: dict[Key, int] = {}
        count: list[int] = []  # phrases from each merged state on

        def visit(state: int) -> int:
            arcs = tuple(sorted((word, visit(child)) for word, child in trie[state].items()))
            key = (state in ends, arcs)
            if key not in registry:
                registry[key] = len(registry)
                count.append(int(state in ends) + sum(count[child] for _, child in arcs))
            return registry[key]

        start = visit(0)
        by_id = {state_id: key for key, state_id in registry.items()}
        # number the states from the start (0) and add one final state
        number: dict[int, int] = {}
        pending = [start]
        while pending:
            state_id = pending.pop(0)
            if state_id not in number:
                number[state_id] = len(number)
                pending += [child for _, child in by_id[state_id][1]]
        final = len(number)
        transitions: list[tuple[int, int, str, float]] = []
        for state_id, index in number.items():
            arcs = by_id[state_id][1]
            leaving = sum(count[child] for _, child in arcs)
            for word, child in arcs:
                is_end, onward = by_id[child]
                if onward:
                    transitions.append((index, number[child], word, (count[child] - is_end) / leaving))
                if is_end:
                    transitions.append((index, final, word, 1 / leaving))
        return cls(final + 1, final, tuple(transitions))


def expand(*slots: Slot) -> list[str]:
    """Every phrase the ``slots`` make, one word sequence each.

    >>> expand("knight", ("", "to"), ("f three", "foxtrot three"))
    ['knight f three', 'knight foxtrot three', 'knight to f three', 'knight to foxtrot three']
    """
    phrases = [""]
    for slot in slots:
        choices = (slot,) if isinstance(slot, str) else slot
        phrases = [f"{phrase} {choice}" for phrase in phrases for choice in choices]
    return [" ".join(phrase.split()) for phrase in phrases]


def move_grammar(board: chess.Board) -> Grammar:
    """Everything the player to move may say on ``board``: each legal move in the ways people say it,
    the commands, the requests and the next game's settings."""
    phrases: set[str] = set(COMMAND_PHRASES) | set(REQUEST_PHRASES) | set(SETTING_PHRASES)
    for move in board.legal_moves:
        phrases.update(_move_phrases(board, move))
    return Grammar(f"moves {board.fen()}", frozenset(phrases))


def which_grammar(board: chess.Board, options: Iterable[chess.Move]) -> Grammar:
    """An answer to "which piece?": the start square of each option (``from g one``, ``the knight on g
    one``), the whole move, or no."""
    phrases: set[str] = set(NO_WORDS) | set(REQUEST_PHRASES)
    for move in options:
        piece = PIECE_WORDS[board.piece_type_at(move.from_square) or chess.PAWN]
        squares = tuple(_square(move.from_square, files) for files in FILES)
        phrases.update(expand(("", piece), ("", "from", "on"), squares))
        phrases.update(_move_phrases(board, move))
    return Grammar(f"which {board.fen()}", frozenset(phrases))


def number_grammar() -> Grammar:
    """An answer to "which Chess960 start?": its number (0-959), random, or no."""
    return Grammar(
        "chess960 number", frozenset({*NUMBER_PHRASES, *RANDOM_WORDS, *NO_WORDS, *REQUEST_PHRASES})
    )


def number_of(words: str) -> int | Literal["random"] | None:
    """The Chess960 number ``words`` say, ``"random"``, or None (anything else: a no).

    >>> number_of("number nine hundred and fifty nine"), number_of("random"), number_of("no")
    (959, 'random', None)
    """
    text = _normalised(words)
    if text in RANDOM_WORDS:
        return "random"
    return NUMBER_PHRASES.get(text)


def answer_grammar() -> Grammar:
    """An answer to "yes or no?" (or a request to hear the question again)."""
    return Grammar("answer", frozenset({*YES_WORDS, *NO_WORDS, *REQUEST_PHRASES}))


#: How files are said: as letters ("f three") or in the spelling alphabet ("foxtrot three").
FileWords: TypeAlias = Literal["letters", "alphabet"]
FILES: Final[tuple[FileWords, ...]] = ("letters", "alphabet")


def _file(file: int, files: FileWords) -> str:
    return FILE_WORDS[chess.FILE_NAMES[file]][1 if files == "alphabet" else 0]


def _square(square: chess.Square, files: FileWords) -> str:
    return f"{_file(chess.square_file(square), files)} {RANK_WORDS[chess.square_rank(square)]}"


def _move_phrases(board: chess.Board, move: chess.Move) -> list[str]:
    """The ways of saying ``move`` on ``board``; "check" (or "mate") may follow a move that gives it.

    A phrase says every file one way, as letters or in the spelling alphabet: people keep to one within
    a move ("knight golf one to foxtrot three", not "knight g one to foxtrot three"), and each phrase
    mixing them would be one more that a misheard move could fit.

    >>> board = chess.Board()
    >>> phrases = _move_phrases(board, chess.Move.from_uci("g1f3"))
    >>> "knight golf one to foxtrot three" in phrases, "knight g one to foxtrot three" in phrases
    (True, False)
    """
    return [phrase for files in FILES for phrase in _move_phrases_saying(board, move, files)]


def _move_phrases_saying(board: chess.Board, move: chess.Move, files: FileWords) -> list[str]:
    """The ways of saying ``move`` with its files said one way."""
    after = board.copy(stack=False)
    after.push(move)
    check: Slot = ("", "check") if after.is_check() else ""
    if after.is_checkmate():
        check = ("", *CHECK_WORDS)
    if board.is_castling(move):
        side = KINGSIDE_WORDS if board.is_kingside_castling(move) else QUEENSIDE_WORDS
        return expand(CASTLE_WORDS, side, check) + expand(side, CASTLE_WORDS, check)
    piece_type = board.piece_type_at(move.from_square) or chess.PAWN
    piece = PIECE_WORDS[piece_type]
    start, to = _square(move.from_square, files), _square(move.to_square, files)
    file = _file(chess.square_file(move.from_square), files)
    capture = board.is_capture(move)
    go: Slot = ("", *CAPTURE_WORDS, "to") if capture else ("", "to")
    promotion: Slot = ""
    if move.promotion is not None:
        named = PIECE_WORDS[move.promotion]
        promotion = tuple(f"{word} {named}" for word in ("", "promote to", "promotes to", "equals"))
        if move.promotion == chess.QUEEN:
            promotion = ("", *promotion)  # a pawn on the last rank is a queen unless said otherwise
    ending = (promotion, check)
    phrases = expand(("", piece), ("", "from"), start, go, to, *ending)
    if piece_type == chess.PAWN:
        if capture:
            phrases += expand(("", "pawn"), file, CAPTURE_WORDS, to, *ending)
            phrases += expand("pawn", CAPTURE_WORDS, to, *ending)
        else:
            phrases += expand(("", "pawn"), ("", "to"), to, *ending)
        return phrases
    phrases += expand(piece, go, to, *ending) + expand(piece, file, go, to, *ending)
    if re.match(r"^[NBRQK][a-h]?[1-8]x?[a-h][1-8]", board.san(move)):  # SAN tells this piece by its rank
        phrases += expand(piece, RANK_WORDS[chess.square_rank(move.from_square)], go, to, *ending)
    return phrases
