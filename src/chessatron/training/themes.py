"""Puzzle themes as people read them: lichess's theme ids (``oneMove``, ``mateIn2``, ``backRankMate``) and
the names lichess shows for them ("One-move puzzle", "Mate in 2", "Back rank mate"), from lichess's own
list (``translation/source/puzzleTheme.xml`` in lichess-org/lila, English), plus chessatron's
``chess960`` for puzzles mined from Chess960 games. The one mapping the web page and the terminal share;
and a theme asked for on the command line matched to the store's (:func:`resolve_theme`).

>>> theme_name("oneMove"), theme_name("mateIn2"), theme_name("chess960")
('One-move puzzle', 'Mate in 2', 'Chess960')
>>> theme_id("mate in 2"), theme_id("fork"), theme_id("Back rank mate")
('mateIn2', 'fork', 'backRankMate')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import Final

from ..errors import NoPuzzleError
from .puzzle import CHESS960_THEME

#: Every theme id lichess's puzzles carry, with the name lichess shows for it.
THEME_NAMES: Final[dict[str, str]] = {
    "advancedPawn": "Advanced pawn",
    "advantage": "Advantage",
    "anastasiaMate": "Anastasia's mate",
    "arabianMate": "Arabian mate",
    "attackingF2F7": "Attacking f2 or f7",
    "attraction": "Attraction",
    "backRankMate": "Back rank mate",
    "balestraMate": "Balestra mate",
    "bishopEndgame": "Bishop endgame",
    "blindSwineMate": "Blind Swine mate",
    "bodenMate": "Boden's mate",
    "capturingDefender": "Capture the defender",
    "castling": "Castling",
    "clearance": "Clearance",
    "cornerMate": "Corner mate",
    "crushing": "Crushing",
    "defensiveMove": "Defensive move",
    "deflection": "Deflection",
    "discoveredAttack": "Discovered attack",
    "discoveredCheck": "Discovered check",
    "doubleBishopMate": "Double bishop mate",
    "doubleCheck": "Double check",
    "dovetailMate": "Dovetail mate",
    "endgame": "Endgame",
    "enPassant": "En passant",
    "equality": "Equality",
    "exposedKing": "Exposed king",
    "fork": "Fork",
    "hangingPiece": "Hanging piece",
    "hookMate": "Hook mate",
    "interference": "Interference",
    "intermezzo": "Intermezzo",
    "killBoxMate": "Kill box mate",
    "kingsideAttack": "Kingside attack",
    "knightEndgame": "Knight endgame",
    "long": "Long puzzle",
    "master": "Master games",
    "masterVsMaster": "Master vs Master games",
    "mate": "Checkmate",
    "mateIn1": "Mate in 1",
    "mateIn2": "Mate in 2",
    "mateIn3": "Mate in 3",
    "mateIn4": "Mate in 4",
    "mateIn5": "Mate in 5 or more",
    "middlegame": "Middlegame",
    "mix": "Healthy mix",
    "morphysMate": "Morphy's mate",
    "oneMove": "One-move puzzle",
    "opening": "Opening",
    "operaMate": "Opera mate",
    "pawnEndgame": "Pawn endgame",
    "pillsburysMate": "Pillsbury's mate",
    "pin": "Pin",
    "playerGames": "Player games",
    "promotion": "Promotion",
    "queenEndgame": "Queen endgame",
    "queenRookEndgame": "Queen and Rook",
    "queensideAttack": "Queenside attack",
    "quietMove": "Quiet move",
    "rookEndgame": "Rook endgame",
    "sacrifice": "Sacrifice",
    "short": "Short puzzle",
    "skewer": "Skewer",
    "smotheredMate": "Smothered mate",
    "superGM": "Super GM games",
    "trappedPiece": "Trapped piece",
    "triangleMate": "Triangle mate",
    "underPromotion": "Underpromotion",
    "veryLong": "Very long puzzle",
    "vukovicMate": "Vukovic mate",
    "xRayAttack": "X-Ray attack",
    "zugzwang": "Zugzwang",
    CHESS960_THEME: "Chess960",
}

_BY_NAME: Final = {name.casefold(): theme for theme, name in THEME_NAMES.items()}
_BY_ID: Final = {theme.casefold(): theme for theme in THEME_NAMES}


def theme_name(theme: str) -> str:
    """The name people read for ``theme``; an id lichess may add later is split into words.

    >>> theme_name("someNewTheme")
    'Some new theme'
    """
    known = THEME_NAMES.get(theme)
    if known is not None:
        return known
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", theme).replace("_", " ").strip()
    return words[:1].upper() + words[1:].lower()


def theme_names(themes: Iterable[str]) -> list[str]:
    """The names of ``themes``, in their order."""
    return [theme_name(theme) for theme in themes]


def theme_id(text: str) -> str:
    """The theme id for ``text``: an id (any case) or a name as :func:`theme_name` writes it; other text
    is handed back stripped (a theme this list does not know may still be in the store)."""
    words = " ".join(text.split())
    folded = words.casefold()
    return _BY_ID.get(folded) or _BY_NAME.get(folded) or words


def theme_line(themes: Iterable[str]) -> str:
    """Themes as people read them, in one line: ``Mate in 2 · Short puzzle``."""
    return " · ".join(theme_names(themes))


#: How many themes an error lists at most (lichess's database has some sixty).
LISTED: Final = 12


def _folded(text: str) -> str:
    return re.sub(r"[\s_'-]", "", text).lower()


def resolve_theme(asked: str, known: Sequence[tuple[str, int]]) -> str:
    """The theme of the store's ``known`` (names and counts, :meth:`~.store.PuzzleStore.themes`) that
    ``asked`` names, as lichess writes it or as people read it (``mateIn2``, ``Mate in 2``, ``MATEIN2``).

    Raises :class:`~chessatron.errors.NoPuzzleError` naming the closest themes (and the most common
    ones) when none is meant.

    >>> resolve_theme("Mate in 2", [("mateIn2", 3), ("fork", 1)])
    'mateIn2'
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


__all__ = ["THEME_NAMES", "resolve_theme", "theme_id", "theme_line", "theme_name", "theme_names"]
