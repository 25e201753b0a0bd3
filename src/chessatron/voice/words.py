"""The words a player may say to the table, and what each stands for: files, ranks and pieces, captures
and castling, yes and no, the commands, the requests to the voice player, the next game's settings and
the numbers of Chess960's starts; the words the recogniser's dictionary lacks and the accents it hears.

:mod:`~chessatron.voice.grammar` makes the grammars the recogniser listens with out of them and
:mod:`~chessatron.voice.meaning` reads the words heard back with them, so both say a move the same way.

>>> FILE_WORDS["f"], RANK_WORDS[2], number_words(42)
(('f', 'foxtrot'), 'three', ('forty two', 'four two'))
"""

from __future__ import annotations

from typing import Final, Literal

import chess

from ..game.players.base import Command

__all__ = [
    "ACCENTS",
    "CAPTURE_WORDS",
    "CASTLE_WORDS",
    "CHECK_WORDS",
    "CHESS960_NUMBERS",
    "COMMAND_PHRASES",
    "EXTRA_WORDS",
    "FILE_WORDS",
    "KINGSIDE_WORDS",
    "LEVELS",
    "NO_WORDS",
    "NUMBER_PHRASES",
    "PIECE_WORDS",
    "PROMOTE_WORDS",
    "QUEENSIDE_WORDS",
    "RANDOM_WORDS",
    "RANK_WORDS",
    "REQUEST_PHRASES",
    "SETTING_PHRASES",
    "VOCABULARY",
    "YES_WORDS",
    "Request",
    "Setting",
    "number_words",
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


#: Every word the grammars (:mod:`.grammar`) use: the recogniser checks its dictionary has them all.
VOCABULARY: Final = _vocabulary()
