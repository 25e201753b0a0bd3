"""What pondering achieved in a session (:class:`PonderStats`), counted by the
:class:`~.ponderer.Ponderer`."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PonderStats"]


@dataclass
class PonderStats:
    """What pondering achieved in a session: for the bench and the log."""

    hits: int = 0
    misses: int = 0
    travels: int = 0
    lifts: int = 0
    """Pieces seen lifted that narrowed where to wait."""
    clues: int = 0
    """Times a piece picked on the web page or a line typed so far changed the moves to wait for."""
    planning_s: float = 0.0
    """CPU seconds spent planning the replies foreseen and choosing where to wait."""
    searched: list[int] = field(default_factory=list)
    """For every person's move, how many replies had been searched (or were being searched) by then."""
    headings: int = 0
    """Times the magnet set off for the move a search not foreseen was heading for (:meth:`searching`)."""
