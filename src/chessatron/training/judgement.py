"""How good a move was, in lichess's terms: winning chances, and the ``?!``, ``?`` and ``??`` of a move that
gave them away.

A score becomes *winning chances* from -1 (lost) to +1 (won) through lichess's win-rate model, which
python-chess carries (:meth:`chess.engine.Score.wdl` with ``model="lichess"``): a logistic curve of the
centipawns, ``2 / (1 + exp(-0.00368208 * cp)) - 1``, the centipawns clamped to ±1000, and a mate in n
counted as ``(21 - min(10, n)) * 100`` centipawns. A move is judged by the winning chances its player
lost against the engine's best move, with lichess's own thresholds (its analysis board and its game
reviews use the same):

=============  =======================  =====
judgement      winning chances lost     NAG
=============  =======================  =====
inaccuracy     0.1 or more              ``?!``
mistake        0.2 or more              ``?``
blunder        0.3 or more              ``??``
=============  =======================  =====

So a blunder is a swing of 15 points of win percentage: from an equal game (0.0) to about -300
centipawns (-0.5), or from +300 to equal.

>>> import chess.engine as e
>>> round(winning_chances(e.PovScore(e.Cp(300), chess.WHITE), chess.WHITE), 3)
0.502
>>> judge(e.Cp(0), e.Cp(-300))
'blunder'
>>> judge(e.Cp(50), e.Cp(20)) is None
True
"""

from __future__ import annotations

from typing import Final, Literal

import chess
import chess.engine
import chess.pgn

from ..i18n import ngettext

Judgement = Literal["inaccuracy", "mistake", "blunder"]

#: Winning chances lost (lichess's -1..+1 scale) from which a move is each judgement, worst first.
THRESHOLDS: Final[tuple[tuple[float, Judgement], ...]] = (
    (0.3, "blunder"),
    (0.2, "mistake"),
    (0.1, "inaccuracy"),
)

#: The PGN NAG of each judgement (``??`` is 4, ``?`` 2, ``?!`` 6).
NAGS: Final[dict[Judgement, int]] = {
    "blunder": chess.pgn.NAG_BLUNDER,
    "mistake": chess.pgn.NAG_MISTAKE,
    "inaccuracy": chess.pgn.NAG_DUBIOUS_MOVE,
}

#: How each judgement is written after a move.
GLYPHS: Final[dict[Judgement, str]] = {"blunder": "??", "mistake": "?", "inaccuracy": "?!"}


def chances(score: chess.engine.Score) -> float:
    """Winning chances (-1..+1) of the side a ``score`` is seen from, by lichess's model."""
    return 2.0 * score.wdl(model="lichess").expectation() - 1.0


def winning_chances(score: chess.engine.PovScore, colour: chess.Color) -> float:
    """Winning chances (-1..+1) of ``colour`` for an engine's ``score``."""
    return chances(score.pov(colour))


def loss(best: chess.engine.Score, played: chess.engine.Score) -> float:
    """The winning chances a move gave away: the engine's ``best`` against what the ``played`` move
    leaves, both from the mover's side; never below 0 (a move the engine had not searched deep enough to
    prefer gives nothing away)."""
    return max(0.0, chances(best) - chances(played))


def judge(best: chess.engine.Score, played: chess.engine.Score) -> Judgement | None:
    """The judgement of a move that left ``played`` where ``best`` was to be had (both from the mover's
    side), None for a move that lost less than an inaccuracy."""
    return judgement_for_loss(loss(best, played))


def judgement_for_loss(lost: float) -> Judgement | None:
    """The judgement for ``lost`` winning chances (see :data:`THRESHOLDS`)."""
    for threshold, judgement in THRESHOLDS:
        if lost >= threshold - 1e-9:
            return judgement
    return None


def describe_loss(lost: float) -> str:
    """``lost`` winning chances in words for the person at the table: ``15 points of winning chances``.

    >>> describe_loss(0.31)
    '16 points of winning chances'
    """
    points = round(50 * lost)
    # TRANSLATORS: points of win percentage (lichess's winning chances, 0 to 100) a move gave away
    return ngettext("{count} point of winning chances", "{count} points of winning chances", points).format(
        count=points
    )


__all__ = [
    "GLYPHS",
    "NAGS",
    "THRESHOLDS",
    "Judgement",
    "chances",
    "describe_loss",
    "judge",
    "judgement_for_loss",
    "loss",
    "winning_chances",
]
