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
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from ..errors import NoPuzzleError
from ..i18n import _, current_language, pgettext
from ..i18n.formats import either
from .puzzle import CHESS960_THEME


def _theme_names(pgettext: Callable[[str, str], str]) -> dict[str, str]:
    """Every theme id lichess's puzzles carry, with the name lichess shows for it, through ``pgettext``
    (the English names as they are, or :func:`chessatron.i18n.pgettext` for the current language's)."""
    return {
        "advancedPawn": pgettext("puzzle theme", "Advanced pawn"),
        "advantage": pgettext("puzzle theme", "Advantage"),
        "anastasiaMate": pgettext("puzzle theme", "Anastasia's mate"),
        "arabianMate": pgettext("puzzle theme", "Arabian mate"),
        "attackingF2F7": pgettext("puzzle theme", "Attacking f2 or f7"),
        "attraction": pgettext("puzzle theme", "Attraction"),
        "backRankMate": pgettext("puzzle theme", "Back rank mate"),
        "balestraMate": pgettext("puzzle theme", "Balestra mate"),
        "bishopEndgame": pgettext("puzzle theme", "Bishop endgame"),
        "blindSwineMate": pgettext("puzzle theme", "Blind Swine mate"),
        "bodenMate": pgettext("puzzle theme", "Boden's mate"),
        "capturingDefender": pgettext("puzzle theme", "Capture the defender"),
        "castling": pgettext("puzzle theme", "Castling"),
        "clearance": pgettext("puzzle theme", "Clearance"),
        "cornerMate": pgettext("puzzle theme", "Corner mate"),
        "crushing": pgettext("puzzle theme", "Crushing"),
        "defensiveMove": pgettext("puzzle theme", "Defensive move"),
        "deflection": pgettext("puzzle theme", "Deflection"),
        "discoveredAttack": pgettext("puzzle theme", "Discovered attack"),
        "discoveredCheck": pgettext("puzzle theme", "Discovered check"),
        "doubleBishopMate": pgettext("puzzle theme", "Double bishop mate"),
        "doubleCheck": pgettext("puzzle theme", "Double check"),
        "dovetailMate": pgettext("puzzle theme", "Dovetail mate"),
        "endgame": pgettext("puzzle theme", "Endgame"),
        "enPassant": pgettext("puzzle theme", "En passant"),
        "equality": pgettext("puzzle theme", "Equality"),
        "exposedKing": pgettext("puzzle theme", "Exposed king"),
        "fork": pgettext("puzzle theme", "Fork"),
        "hangingPiece": pgettext("puzzle theme", "Hanging piece"),
        "hookMate": pgettext("puzzle theme", "Hook mate"),
        "interference": pgettext("puzzle theme", "Interference"),
        "intermezzo": pgettext("puzzle theme", "Intermezzo"),
        "killBoxMate": pgettext("puzzle theme", "Kill box mate"),
        "kingsideAttack": pgettext("puzzle theme", "Kingside attack"),
        "knightEndgame": pgettext("puzzle theme", "Knight endgame"),
        "long": pgettext("puzzle theme", "Long puzzle"),
        "master": pgettext("puzzle theme", "Master games"),
        "masterVsMaster": pgettext("puzzle theme", "Master vs Master games"),
        "mate": pgettext("puzzle theme", "Checkmate"),
        "mateIn1": pgettext("puzzle theme", "Mate in 1"),
        "mateIn2": pgettext("puzzle theme", "Mate in 2"),
        "mateIn3": pgettext("puzzle theme", "Mate in 3"),
        "mateIn4": pgettext("puzzle theme", "Mate in 4"),
        "mateIn5": pgettext("puzzle theme", "Mate in 5 or more"),
        "middlegame": pgettext("puzzle theme", "Middlegame"),
        "mix": pgettext("puzzle theme", "Healthy mix"),
        "morphysMate": pgettext("puzzle theme", "Morphy's mate"),
        "oneMove": pgettext("puzzle theme", "One-move puzzle"),
        "opening": pgettext("puzzle theme", "Opening"),
        "operaMate": pgettext("puzzle theme", "Opera mate"),
        "pawnEndgame": pgettext("puzzle theme", "Pawn endgame"),
        "pillsburysMate": pgettext("puzzle theme", "Pillsbury's mate"),
        "pin": pgettext("puzzle theme", "Pin"),
        "playerGames": pgettext("puzzle theme", "Player games"),
        "promotion": pgettext("puzzle theme", "Promotion"),
        "queenEndgame": pgettext("puzzle theme", "Queen endgame"),
        "queenRookEndgame": pgettext("puzzle theme", "Queen and Rook"),
        "queensideAttack": pgettext("puzzle theme", "Queenside attack"),
        "quietMove": pgettext("puzzle theme", "Quiet move"),
        "rookEndgame": pgettext("puzzle theme", "Rook endgame"),
        "sacrifice": pgettext("puzzle theme", "Sacrifice"),
        "short": pgettext("puzzle theme", "Short puzzle"),
        "skewer": pgettext("puzzle theme", "Skewer"),
        "smotheredMate": pgettext("puzzle theme", "Smothered mate"),
        "superGM": pgettext("puzzle theme", "Super GM games"),
        "trappedPiece": pgettext("puzzle theme", "Trapped piece"),
        "triangleMate": pgettext("puzzle theme", "Triangle mate"),
        "underPromotion": pgettext("puzzle theme", "Underpromotion"),
        "veryLong": pgettext("puzzle theme", "Very long puzzle"),
        "vukovicMate": pgettext("puzzle theme", "Vukovic mate"),
        "xRayAttack": pgettext("puzzle theme", "X-Ray attack"),
        "zugzwang": pgettext("puzzle theme", "Zugzwang"),
        CHESS960_THEME: pgettext("puzzle theme", "Chess960"),
    }


#: Every theme id lichess's puzzles carry, with the English name lichess shows for it.
THEME_NAMES: Final[dict[str, str]] = _theme_names(lambda context, message: message)

_BY_NAME: Final = {name.casefold(): theme for theme, name in THEME_NAMES.items()}
_BY_ID: Final = {theme.casefold(): theme for theme in THEME_NAMES}


def theme_name(theme: str) -> str:
    """The name people read for ``theme``, in the current language; an id lichess may add later is split
    into words.

    >>> theme_name("someNewTheme")
    'Some new theme'
    """
    known = _names().get(theme)
    if known is not None:
        return known
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", theme).replace("_", " ").strip()
    return words[:1].upper() + words[1:].lower()


_TRANSLATED: dict[str, dict[str, str]] = {}


def _names() -> dict[str, str]:
    """The themes' names in the current language (made once a language)."""
    language = current_language()
    found = _TRANSLATED.get(language)
    if found is None:
        found = _TRANSLATED[language] = THEME_NAMES if language == "en" else _theme_names(pgettext)
    return found


def theme_names(themes: Iterable[str]) -> list[str]:
    """The names of ``themes``, in their order."""
    return [theme_name(theme) for theme in themes]


def theme_id(text: str) -> str:
    """The theme id for ``text``: an id (any case) or a name as :func:`theme_name` writes it (in English or
    the current language); other text is handed back stripped (a theme this list does not know may still
    be in the store)."""
    words = " ".join(text.split())
    folded = words.casefold()
    found = _BY_ID.get(folded) or _BY_NAME.get(folded)
    if found is None:
        found = next((theme for theme, name in _names().items() if name.casefold() == folded), None)
    return found or words


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
    for theme, _count in known:
        by_fold.setdefault(_folded(theme), theme)
        by_fold.setdefault(_folded(THEME_NAMES.get(theme, theme)), theme)
        by_fold.setdefault(_folded(theme_name(theme)), theme)  # (in the person's language)
    found = by_fold.get(_folded(asked))
    if found is not None:
        return found
    if not known:
        raise NoPuzzleError(
            _(
                "no puzzle in the store has the theme {theme!r} (the store has no puzzle with a theme; "
                "'chessatron puzzles import FILE' adds lichess's)"
            ).format(theme=asked)
        )
    close = difflib.get_close_matches(_folded(asked), list(by_fold), n=3, cutoff=0.6)
    guesses = list(dict.fromkeys(by_fold[fold] for fold in close))
    common = [theme for theme, _count in sorted(known, key=lambda item: (-item[1], item[0]))[:LISTED]]
    themes = ", ".join(common) + (", …" if len(known) > LISTED else "")
    if guesses:
        message = _(
            "no puzzle in the store has the theme {theme!r}; did you mean {guesses}? (the store's themes, "
            "the most common first: {themes})"
        )
    else:
        message = _(
            "no puzzle in the store has the theme {theme!r} (the store's themes, the most common first: "
            "{themes})"
        )
    listed = either([repr(guess) for guess in guesses]) if guesses else ""
    raise NoPuzzleError(message.format(theme=asked, guesses=listed, themes=themes))


__all__ = ["THEME_NAMES", "resolve_theme", "theme_id", "theme_line", "theme_name", "theme_names"]
