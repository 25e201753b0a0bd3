"""An attempt at a puzzle, and whose it is: the person's (their rating moves with it) or a simulated
player's (a ``hand``, an ``engine``, a ``script``: kept apart, with a rating of its own, so that a
simulated solver never rates the person)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Final

from .rating import Rating

#: The players whose attempts are the person's (and move the person's rating). Attempts of the others
#: (``hand``, ``engine``, ``script``: simulated players) are kept apart, with a rating of their own.
PERSON_PLAYERS: Final = frozenset({"board", "keyboard", "web", "buttons", "voice"})


def is_person(player: str | None) -> bool:
    """Whether an attempt by ``player`` (a player kind; None: saved before kinds were kept) is the
    person's own."""
    return player is None or player in PERSON_PLAYERS


@dataclass(frozen=True)
class Attempt:
    """One puzzle tried: when, how long it took (seconds from the puzzle ready on the board to solved or
    failed), whether it was solved without a wrong move or a hint, the rating after it, and who tried
    (``player``: the player kind; None for an attempt saved before kinds were kept, the person's)."""

    puzzle_id: str
    played_at: dt.datetime
    seconds: float
    solved: bool
    wrong: int
    """Wrong moves made on the way."""
    hints: int
    puzzle_rating: int
    rating: Rating
    """The rating after it: the person's, or for a simulated player its own."""
    player: str | None = None

    @property
    def is_simulated(self) -> bool:
        """Made by a simulated player (a hand, an engine, a script): not the person's."""
        return not is_person(self.player)

    def to_json(self) -> dict[str, Any]:
        return {
            "puzzle": self.puzzle_id,
            "at": self.played_at.isoformat(timespec="seconds"),
            "seconds": round(self.seconds, 1),
            "solved": self.solved,
            "wrong": self.wrong,
            "hints": self.hints,
            "puzzle_rating": self.puzzle_rating,
            "rating": round(self.rating.rating, 1),
            "deviation": round(self.rating.deviation, 1),
            "player": self.player,
            "simulated": self.is_simulated,
        }
