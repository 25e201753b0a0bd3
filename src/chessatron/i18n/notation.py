"""Moves as each language writes them: FIDE's piece letters (``Sf3`` in German, ``Cf3`` in French for the
English ``Nf3``), shown in the player's language and read in it, with English SAN always read too.

French, Spanish and Italian write the king ``R`` (roi, rey, re), English's rook: a typed ``Rf1`` is read in
the player's language first, and as English only when that reading is no legal move.

>>> san_in("Nxf3+", "de"), san_in("Qd1#", "fr"), san_in("exd8=Q", "nl"), san_in("O-O", "it")
('Sxf3+', 'Dd1#', 'exd8=D', 'O-O')
>>> english_san("Sf3", "de"), english_san("exd8=D", "fr"), english_san("Rf1", "es")
('Nf3', 'exd8=Q', 'Kf1')
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import chess

from . import current_language

__all__ = ["PIECE_LETTERS", "english_san", "letters", "san_in"]

#: FIDE's piece letters, king queen rook bishop knight, in each language.
PIECE_LETTERS: Mapping[str, str] = {
    "en": "KQRBN",
    "de": "KDTLS",
    "fr": "RDTFC",
    "es": "RDTAC",
    "nl": "KDTLP",
    "it": "RDTAC",
}

_ORDER = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)


def letters(language: str | None = None) -> str:
    """The piece letters (king queen rook bishop knight) of ``language`` (default: the current one)."""
    return PIECE_LETTERS.get(language or current_language(), PIECE_LETTERS["en"])


def _mapping(source: str, target: str) -> dict[str, str]:
    return dict(zip(source, target, strict=True))


def san_in(san: str, language: str | None = None) -> str:
    """An English SAN (python-chess's) written with ``language``'s piece letters."""
    table = _mapping(PIECE_LETTERS["en"], letters(language))
    out = []
    for index, char in enumerate(san):
        # a piece letter is upper case and stands first, after a promotion's '=' or (in a drop) before '@'
        if char in table and (index == 0 or san[index - 1] == "="):
            out.append(table[char])
        else:
            out.append(char)
    return "".join(out)


#: A promotion's piece written without "=" (``e8D``): the letter after the last rank, at the end.
_BARE_PROMOTION = re.compile(r"[a-h][18]([A-Z])[+#!?]*$", re.ASCII)


def english_san(text: str, language: str | None = None) -> str:
    """``text`` typed with ``language``'s piece letters, written with English ones (the file letters and
    the rest untouched); a promotion's piece too, with or without its ``=``.

    >>> english_san("e8D+", "de"), english_san("exf8=C", "fr")
    ('e8Q+', 'exf8=N')
    """
    table = _mapping(letters(language), PIECE_LETTERS["en"])
    stripped = text.strip()
    bare = _BARE_PROMOTION.search(stripped)
    promotion = bare.start(1) if bare else -1
    out = []
    for index, char in enumerate(stripped):
        if char in table and (index in (0, promotion) or stripped[index - 1] in "=("):
            out.append(table[char])
        else:
            out.append(char)
    return "".join(out)
