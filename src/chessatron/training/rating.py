"""The person's puzzle rating: Glicko-2, each puzzle a game against the puzzle's own rating.

Glicko-2 (Glickman, 2012) is what lichess rates its puzzles and their solvers with: a rating, its
deviation (how sure the rating is: 350 for someone new, shrinking with every puzzle) and a volatility.
Each attempt is one rating period of one game, as on lichess: solved is a win against the puzzle's
rating and deviation, failed a loss. The arithmetic is the ``glicko2-py`` package's (its
``update_rating``, checked against Glickman's worked example); this module keeps the values and the
few choices that are ours:

- a puzzle solved with a hint counts as failed for the rating (the hint did part of it);
- the deviation never falls below :data:`MIN_DEVIATION` (lichess's floor: a rating that stops moving
  stops following the person);
- τ = 0.5, Glickman's middle value.

>>> after = Rating().after(1500, 80, solved=True)
>>> round(after.rating), round(after.deviation)
(1675, 250)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from glicko2.math.algorithm import update_rating
from glicko2.math.conversions import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi

#: A new person's rating, deviation and volatility (Glickman's defaults).
START_RATING: Final = 1500.0
START_DEVIATION: Final = 350.0
START_VOLATILITY: Final = 0.06
#: The system constant: how much the volatility may change.
TAU: Final = 0.5
#: The least deviation kept.
MIN_DEVIATION: Final = 45.0


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the familiar scale (1500 for a newcomer)."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY

    def after(self, puzzle_rating: float, puzzle_deviation: float, *, solved: bool) -> Rating:
        """The rating after one puzzle of ``puzzle_rating`` (± ``puzzle_deviation``), ``solved`` or not."""
        opponent = (
            rating_to_mu(puzzle_rating),
            rd_to_phi(max(puzzle_deviation, 1.0)),
            1.0 if solved else 0.0,
        )
        new = update_rating(
            rating_to_mu(self.rating), rd_to_phi(self.deviation), self.volatility, [opponent], tau=TAU
        )
        return Rating(mu_to_rating(new.mu), max(MIN_DEVIATION, phi_to_rd(new.phi)), new.sigma)

    @property
    def is_provisional(self) -> bool:
        """Too uncertain to mean much yet (lichess shows such a rating with a question mark)."""
        return self.deviation > 110

    def __str__(self) -> str:
        return f"{round(self.rating)}{'?' if self.is_provisional else ''}"
