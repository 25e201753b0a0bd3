"""The chess words the table's sentences share, in the current language (:mod:`chessatron.i18n`): the
pieces' names, the colours, the players' side as the start of a line, and lists ("f1 and g1", "Nbd2 or
Nfd2") as the language writes them.

A name here is for a place where the language needs no agreement with it (a label, the subject of a
spoken move: "Springer f3"); a sentence whose words agree with a piece or a colour has a message of its
own for each (:mod:`.reasons`).

>>> piece_name(chess.KNIGHT), colour_word(chess.BLACK), listed(["b1", "c1", "d1"])
('knight', 'Black', 'b1, c1 and d1')
>>> from chessatron.i18n import using
>>> with using("pseudo"):
...     piece_name(chess.KNIGHT)
'⟦ķñîĝĥţ⟧'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import chess
from babel.lists import format_list

from ...i18n import PSEUDO, current_language, pgettext
from ...i18n.formats import locale

__all__ = ["colour_word", "listed", "piece_name"]


def piece_name(piece_type: chess.PieceType) -> str:
    """The piece's name, lower case in English ("knight"), as a noun standing alone."""
    names = {
        chess.PAWN: pgettext("piece", "pawn"),
        chess.KNIGHT: pgettext("piece", "knight"),
        chess.BISHOP: pgettext("piece", "bishop"),
        chess.ROOK: pgettext("piece", "rook"),
        chess.QUEEN: pgettext("piece", "queen"),
        chess.KING: pgettext("piece", "king"),
    }
    return names[piece_type]


def colour_word(colour: chess.Color) -> str:
    """The side's name, ``"White"`` or ``"Black"``, as a label (the players' panel, a list of players)."""
    return pgettext("side", "White") if colour == chess.WHITE else pgettext("side", "Black")


def listed(items: Sequence[str], style: Literal["and", "or"] = "and") -> str:
    """``items`` as a list the language writes: all of them (``and``) or one of them (``or``). The table's
    English has no comma before the last item, as it always wrote ("b1, c1 and d1")."""
    language = current_language()
    where = "en_GB" if language in ("en", PSEUDO) else locale()
    return format_list(list(items), style="standard" if style == "and" else "or", locale=where)
