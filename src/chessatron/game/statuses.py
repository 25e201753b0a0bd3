"""The live status in words, and the notices of the session's loop: what the table does now, a whole sentence
each, in the language current when it is said (:mod:`chessatron.i18n`).

The status is a line for people: the terminal view shows it, the web page's header, and the status display
its second line while no game runs (so the short ones are written for 16 columns). A status is kept as it
was said: a page in another language than the table's shows it in the table's.

>>> to_move(chess.WHITE), played_move(chess.BLACK, "Nf6"), result_status("1-0", "checkmate")
('white to move', 'black played Nf6', '1-0 (checkmate)')
>>> from chessatron.i18n import using
>>> with using("pseudo"):
...     _(ROBOT_MOVING)
'⟦ŕöƀöţ ɱöṽîñĝ⟧'
"""

from __future__ import annotations

import re
from functools import cache

import chess

from ..i18n import LANGUAGES, N_, PSEUDO, _, pgettext, translations
from ..i18n.notation import san_in
from .records.record import termination_name

__all__ = [
    "CONNECTING",
    "IDLE",
    "PAUSED",
    "PUTTING_BACK",
    "ROBOT_MOVING",
    "SETTING_UP",
    "STOPPING",
    "kind_of",
    "make_move_for",
    "no_spare",
    "piece_word",
    "played_move",
    "promoting_instead",
    "result_status",
    "to_move",
]

#: The status while the robot is held (a feed hold: the gantry waits, the magnet keeps its piece).
# TRANSLATORS: status (terminal, web page; the status display shows it cut at 16 columns)
PAUSED = N_("paused (resume to go on)")
#: The status from a stop asked for until the job reaches its next safe point (a move, or between two of
#: the robot's relocations).
# TRANSLATORS: status display, at most 16 columns
STOPPING = N_("stopping…")
#: The robot works (a move, a set-up, a takeback).
# TRANSLATORS: status display, at most 16 columns
ROBOT_MOVING = N_("robot moving")
#: The robot is about to set the table up for the game just made.
# TRANSLATORS: status display, at most 16 columns
SETTING_UP = N_("setting up")
#: Nothing under way.
# TRANSLATORS: status display, at most 16 columns
IDLE = N_("idle")
#: The machine is being connected (and homed) for the first job.
# TRANSLATORS: status display, at most 16 columns
CONNECTING = N_("connecting")
#: A resumed game's pieces go back where it stopped.
# TRANSLATORS: status (terminal, web page; the status display shows it cut at 16 columns)
PUTTING_BACK = N_("putting the pieces back where the game stopped")


#: What a status is, for code that acts on it (the web page, the status display): the live state carries
#: it beside the status's words as ``status_kind``, the same in every language. Messages with placeholders
#: match whatever fills them.
_KINDS: tuple[tuple[str, str], ...] = (
    ("paused", PAUSED),
    ("stopping", STOPPING),
    ("robot moving", ROBOT_MOVING),
    ("setting up", SETTING_UP),
    ("setting up", N_("setting up {position}")),
    ("idle", IDLE),
    ("connecting", CONNECTING),
    ("white to move", N_("white to move")),
    ("black to move", N_("black to move")),
)


@cache
def _patterns(code: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    table = translations(code)
    found = []
    for kind, message in _KINDS:
        parts = re.split(r"\{[^{}]*\}", table.gettext(message))
        found.append((kind, re.compile(".+?".join(re.escape(part) for part in parts), re.DOTALL)))
    return tuple(found)


def kind_of(status: str) -> str | None:
    """What ``status`` is (``"paused"``, ``"white to move"``, ``"setting up"`` …) in any of the table's
    languages; None for a status that is none of those.

    >>> from chessatron.i18n import using
    >>> with using(PSEUDO):
    ...     kind_of(to_move(chess.BLACK)), kind_of(_("setting up {position}").format(position="Chess960 #5"))
    ('black to move', 'setting up')
    >>> kind_of("white played e4") is None
    True
    """
    for code in (*LANGUAGES, PSEUDO):
        for kind, pattern in _patterns(code):
            if pattern.fullmatch(status):
                return kind
    return None


def to_move(colour: chess.Color) -> str:
    """Whose move it is."""
    if colour == chess.WHITE:
        # TRANSLATORS: status display, at most 16 columns
        return _("white to move")
    # TRANSLATORS: status display, at most 16 columns
    return _("black to move")


def played_move(colour: chess.Color, san: str) -> str:
    """The move a side just made (``san`` in English SAN; shown in the language's piece letters)."""
    move = san_in(san)
    if colour == chess.WHITE:
        # TRANSLATORS: status; {move} is a move in the language's notation, such as Sf3 (at most 7 letters)
        return _("white played {move}").format(move=move)
    # TRANSLATORS: status; {move} is a move in the language's notation, such as Sf3 (at most 7 letters)
    return _("black played {move}").format(move=move)


def make_move_for(colour: chess.Color, san: str) -> str:
    """A table without a robot: the players make the engine's (or another player's) move by hand."""
    move = san_in(san)
    if colour == chess.WHITE:
        # TRANSLATORS: status; {move} is a move in the language's notation, such as Sf3
        return _("please make the move {move} for white").format(move=move)
    # TRANSLATORS: status; {move} is a move in the language's notation, such as Sf3
    return _("please make the move {move} for black").format(move=move)


def result_status(result: str, termination: str | None) -> str:
    """The status once a game is over: its result and how it ended."""
    # TRANSLATORS: status after a game; {result} is 1-0, 0-1 or 1/2-1/2, {how} how it ended ("checkmate")
    return _("{result} ({how})").format(result=result, how=termination_name(termination))


# --- the session's notices -------------------------------------------------------------------------

#: A promotion to a piece the table has none of, to a player who chooses again (a keyboard, the buttons).
_NO_SPARE: dict[chess.PieceType, str] = {
    chess.QUEEN: N_("the table has no spare queen; choose another piece"),
    chess.ROOK: N_("the table has no spare rook; choose another piece"),
    chess.BISHOP: N_("the table has no spare bishop; choose another piece"),
    chess.KNIGHT: N_("the table has no spare knight; choose another piece"),
}


def no_spare(piece_type: chess.PieceType) -> str:
    """The table has no piece of ``piece_type`` for a promotion: the player chooses another."""
    return _(_NO_SPARE[piece_type])


def piece_word(piece_type: chess.PieceType) -> str:
    """A piece's name, lower case, in the current language (``Springer``, ``cavalier``)."""
    words = {
        chess.PAWN: pgettext("piece", "pawn"),
        chess.KNIGHT: pgettext("piece", "knight"),
        chess.BISHOP: pgettext("piece", "bishop"),
        chess.ROOK: pgettext("piece", "rook"),
        chess.QUEEN: pgettext("piece", "queen"),
        chess.KING: pgettext("piece", "king"),
    }
    return words[piece_type]


def promoting_instead(wanted: chess.PieceType, piece_type: chess.PieceType) -> str:
    """The table has no piece of ``wanted`` for a promotion (an engine's, a script's): the pawn becomes a
    piece of ``piece_type``."""
    # TRANSLATORS: {wanted} and {piece} are piece names ("queen", "rook"): build the sentence so that
    # it needs no article or ending that agrees with them
    return _("no spare {wanted} on the table: promoting to a {piece}").format(
        wanted=piece_word(wanted), piece=piece_word(piece_type)
    )
