"""Parse one G-code line the way GRBL 1.1 reads it (``protocol.c`` and ``gcode.c``), with no I/O.

GRBL throws away whitespace and control characters (even inside numbers: ``X1 0`` is ``X10``), drops
``( … )`` and ``;`` comments, ignores ``/`` (block delete is unsupported), upper-cases letters and then
reads words: a letter followed by a number with an optional sign and at most one decimal point, no
exponent. Lines starting with ``$`` are system commands (``$H``, ``$X``, ``$J=…``), not G-code.

This module keeps the comment text, because the servo magnet is driven by ``(MAGNET ON)`` markers the
host acts on, and it checks syntax only: whether GRBL supports a code is the caller's business.

>>> line = parse_line("g1 x10 Y-2.5 f3000 (drag)")
>>> line.words
(('G', 1.0), ('X', 10.0), ('Y', -2.5), ('F', 3000.0))
>>> line.comments, line.value("F")
(('drag',), 3000.0)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chessatron.errors import GcodeError
from chessatron.i18n import _

__all__ = ["LINE_BUFFER_SIZE", "GcodeLine", "number_value", "parse_line", "read_number", "strip_line"]

# GRBL 1.1 config.h: 80 bytes for a line and its terminating newline.
LINE_BUFFER_SIZE = 80

Word = tuple[str, float]

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)")
# Characters that may follow a letter in GRBL's read_float.
_NUMBER_CHARS = frozenset("0123456789.+-")
# Letters whose repetition is a modal-group question rather than a repeated value (GRBL error:25).
_COMMAND_LETTERS = frozenset("GM")


@dataclass(frozen=True)
class GcodeLine:
    """One parsed line: its words in order, its comments and, for ``$`` lines, the system command.

    ``words`` are (upper-case letter, value) pairs; ``comments`` keep their text without the brackets or
    the semicolon, stripped of surrounding spaces but in their original case. ``system`` is the text after
    ``$`` (whitespace removed, upper-cased) for a GRBL system command, else None.
    """

    text: str
    words: tuple[Word, ...] = ()
    comments: tuple[str, ...] = ()
    system: str | None = None

    @property
    def g_codes(self) -> tuple[float, ...]:
        """The numbers of the line's G words, in order (``G4 G90`` gives ``(4.0, 90.0)``)."""
        return tuple(value for letter, value in self.words if letter == "G")

    @property
    def m_codes(self) -> tuple[float, ...]:
        """The numbers of the line's M words, in order."""
        return tuple(value for letter, value in self.words if letter == "M")

    @property
    def is_blank(self) -> bool:
        """True for a line GRBL does nothing with: empty, whitespace or comments only."""
        return not self.words and self.system is None

    def has(self, letter: str) -> bool:
        """True if the line has a word with this letter (case-insensitive)."""
        return self.value(letter) is not None

    def value(self, letter: str) -> float | None:
        """The number of the word with this letter (case-insensitive), or None if the line has none.

        Value words appear at most once (:func:`parse_line` rejects repeats); for G and M words this is
        the first one, use :attr:`g_codes` and :attr:`m_codes` for all of them.
        """
        wanted = letter.upper()
        for word_letter, number in self.words:
            if word_letter == wanted:
                return number
        return None


def strip_line(text: str) -> tuple[str, tuple[str, ...]]:
    """What GRBL keeps of a line and the comments it drops, as GRBL's ``protocol.c`` reads it: no
    whitespace or control characters, no ``/``, ``a``-``z`` upper-cased. An unclosed ``(`` runs to the
    end of the line and a stray ``)`` is kept (GRBL then refuses the line), as in GRBL.

    >>> strip_line("g1 x10 (drag wP0) y2 ; done")
    ('G1X10Y2', ('drag wP0', 'done'))
    """
    stored, comments, _unclosed = _split(text)
    return stored, comments


def _split(text: str) -> tuple[str, tuple[str, ...], bool]:
    """:func:`strip_line`, and whether a ``(`` comment was left open."""
    kept: list[str] = []
    comments: list[str] = []
    comment: list[str] | None = None  # inside ( … ) while not None
    for i, c in enumerate(text):
        if comment is not None:
            if c == ")":
                comments.append("".join(comment).strip())
                comment = None
            else:
                comment.append(c)
        elif c == "(":
            comment = []
        elif c == ";":
            comments.append(text[i + 1 :].strip())
            break
        elif ord(c) <= 32 or c == "/":
            continue  # GRBL discards whitespace, control characters and the unsupported block delete
        else:
            kept.append(c.upper() if "a" <= c <= "z" else c)
    if comment is not None:
        comments.append("".join(comment).strip())
    return "".join(kept), tuple(comments), comment is not None


def _strip(text: str, shown: str) -> tuple[str, tuple[str, ...]]:
    """:func:`strip_line` for a program we check: an unmatched bracket is a mistake, not a comment."""
    stored, comments, unclosed = _split(text)
    if ")" in stored:
        raise GcodeError(
            _("unmatched ')' in g-code line {line!r}; remove it or open the comment with '('").format(
                line=shown
            )
        )
    if unclosed:
        raise GcodeError(
            _("unclosed '(' comment in g-code line {line!r}; close it with ')'").format(line=shown)
        )
    return stored, comments


def read_number(text: str, at: int = 0) -> tuple[float, int] | None:
    """GRBL's ``read_float``: the number at ``text[at:]`` (an optional sign, digits and at most one decimal
    point, no exponent) and the index just after it; None if no number starts there.

    >>> read_number("X-2.5Y1", 1)
    (-2.5, 5)
    """
    match = _NUMBER.match(text, at)
    return None if match is None else (float(match.group()), match.end())


def number_value(text: str) -> float | None:
    """``text`` as a number GRBL reads (and prints), or None if it is not exactly one.

    >>> number_value("-1.50"), number_value("1e3")
    (-1.5, None)
    """
    number = read_number(text)
    return number[0] if number is not None and number[1] == len(text) else None


def _words(stored: str, shown: str) -> tuple[Word, ...]:
    words: list[Word] = []
    seen: set[str] = set()
    i = 0
    while i < len(stored):
        letter = stored[i]
        if not ("A" <= letter <= "Z"):
            if letter in _NUMBER_CHARS:
                raise GcodeError(
                    _("number without a letter at {text!r} in g-code line {line!r}").format(
                        text=stored[i:], line=shown
                    )
                )
            raise GcodeError(
                _("unexpected character {character!r} in g-code line {line!r}").format(
                    character=letter, line=shown
                )
            )
        number = read_number(stored, i + 1)
        if number is None:
            raise GcodeError(
                _("letter {letter!r} has no number in g-code line {line!r}; write e.g. {example}").format(
                    letter=letter, line=shown, example=f"{letter}0"
                )
            )
        if letter in seen and letter not in _COMMAND_LETTERS:
            raise GcodeError(
                _("word {letter!r} appears twice in g-code line {line!r}; GRBL allows it once").format(
                    letter=letter, line=shown
                )
            )
        seen.add(letter)
        words.append((letter, number[0]))
        i = number[1]
    return tuple(words)


def parse_line(text: str) -> GcodeLine:
    """Parse one line of G-code as GRBL 1.1 would; a single trailing newline (``\\n``, ``\\r\\n``) is allowed.

    Empty and comment-only lines are fine (:attr:`GcodeLine.is_blank`). Raises
    :class:`~chessatron.errors.GcodeError` for a letter without a number, a number without a letter, a
    repeated value word, an unexpected character, an unclosed or unmatched parenthesis, more than one line,
    or a line that with its newline is longer than :data:`LINE_BUFFER_SIZE` characters.

    >>> parse_line("$H").system
    'H'
    >>> parse_line("G1 X")
    Traceback (most recent call last):
    ...
    chessatron.errors.GcodeError: letter 'X' has no number in g-code line 'G1 X'; write e.g. X0
    """
    line = text.removesuffix("\n").removesuffix("\r")
    shown = line if len(line) <= 60 else line[:57] + "..."
    if "\n" in line or "\r" in line:
        raise GcodeError(_("more than one line in {line!r}; parse each line on its own").format(line=shown))
    if len(line) + 1 > LINE_BUFFER_SIZE:
        raise GcodeError(
            _(
                "g-code line of {count} characters with its newline is longer than GRBL's {most}: {line!r}; "
                "split it"
            ).format(count=len(line) + 1, most=LINE_BUFFER_SIZE, line=shown)
        )
    stored, comments = _strip(line, shown)
    if stored.startswith("$"):
        return GcodeLine(line, comments=comments, system=stored[1:])
    return GcodeLine(line, _words(stored, shown), comments)
