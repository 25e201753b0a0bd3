"""Puzzle themes as people read them, and a theme asked for on the command line matched to the store's.

Lichess names its themes in camel case (``mateIn2``, ``discoveredAttack``, ``oneMove``); its pages show
them in words (*Mate in 2*, *Discovered attack*, *One-move puzzle*). :func:`theme_name` does the same:
the words split at each capital and number, with lichess's own wording where it differs.

>>> theme_name("mateIn2"), theme_name("discoveredAttack"), theme_name("oneMove")
('Mate in 2', 'Discovered attack', 'One-move puzzle')
>>> resolve_theme("Mate in 2", [("mateIn2", 3), ("fork", 1)])
'mateIn2'
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Final

from ..errors import NoPuzzleError

__all__ = ["resolve_theme", "theme_name", "theme_names"]

#: Lichess's wording where it is not the theme's name split into words (its puzzle pages' names).
NAMES: Final[dict[str, str]] = {
    "attackingF2F7": "Attacking f2 or f7",
    "capturingDefender": "Capture the defender",
    "oneMove": "One-move puzzle",
    "short": "Short puzzle",
    "long": "Long puzzle",
    "veryLong": "Very long puzzle",
    "mate": "Checkmate",
    "mateIn5": "Mate in 5 or more",
    "xRayAttack": "X-Ray attack",
    "underPromotion": "Underpromotion",
    "anastasiaMate": "Anastasia's mate",
    "bodenMate": "Boden's mate",
    "master": "Master games",
    "masterVsMaster": "Master vs Master games",
    "superGM": "Super GM games",
    "playerGames": "Player games",
    "chess960": "Chess960",
}

#: How many themes an error lists at most (lichess's database has some sixty).
LISTED: Final = 12

_WORD_START = re.compile(r"(?<=[a-z])(?=[A-Z0-9])|(?<=[0-9])(?=[A-Za-z])")


def theme_name(theme: str) -> str:
    """A lichess theme as people read it: ``fork`` is *Fork*, ``mateIn2`` *Mate in 2*."""
    named = NAMES.get(theme)
    if named is not None:
        return named
    words = _WORD_START.sub(" ", theme).lower()
    return words[:1].upper() + words[1:]


def theme_names(themes: Sequence[str]) -> str:
    """Themes as people read them, in one line: ``Mate in 2 · Short puzzle``."""
    return " · ".join(theme_name(theme) for theme in themes)


def _folded(text: str) -> str:
    return re.sub(r"[\s_'-]", "", text).lower()


def resolve_theme(asked: str, known: Sequence[tuple[str, int]]) -> str:
    """The theme of the store's ``known`` (names and counts, :meth:`~.store.PuzzleStore.themes`) that
    ``asked`` names, as lichess writes it or as people read it (``mateIn2``, ``Mate in 2``, ``MATEIN2``).

    Raises :class:`~chessatron.errors.NoPuzzleError` naming the closest themes (and the most common
    ones) when none is meant.

    >>> resolve_theme("forks", [("fork", 9), ("short", 30)])
    Traceback (most recent call last):
    ...
    chessatron.errors.NoPuzzleError: no puzzle in the store has the theme 'forks'; did you mean 'fork'? \
(the store's themes, the most common first: short, fork)
    """
    by_fold: dict[str, str] = {}
    for theme, _ in known:
        by_fold.setdefault(_folded(theme), theme)
        by_fold.setdefault(_folded(theme_name(theme)), theme)
    found = by_fold.get(_folded(asked))
    if found is not None:
        return found
    close = difflib.get_close_matches(_folded(asked), list(by_fold), n=3, cutoff=0.6)
    guesses = list(dict.fromkeys(by_fold[fold] for fold in close))
    hint = ""
    if guesses:
        hint = "; did you mean " + " or ".join(repr(guess) for guess in guesses) + "?"
    common = [theme for theme, _ in sorted(known, key=lambda item: (-item[1], item[0]))[:LISTED]]
    more = ", …" if len(known) > LISTED else ""
    listing = (
        f" (the store's themes, the most common first: {', '.join(common)}{more})"
        if common
        else " (the store has no puzzle with a theme; 'chessatron puzzles import FILE' adds lichess's)"
    )
    raise NoPuzzleError(f"no puzzle in the store has the theme {asked!r}{hint}{listing}")
