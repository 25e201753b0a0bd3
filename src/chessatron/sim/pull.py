"""How hard the simulated magnet holds a dragged piece: a weak magnet loses it above a speed or an
acceleration, as a real one does when the felt drags or the magnet sits too far under the board.

The piece follows the magnet while the magnet speeds up; once the magnet moves faster than
:attr:`MagnetPull.drop_feed_mm_min` the piece is left behind where that speed was reached, and when the
machine accelerates harder than :attr:`MagnetPull.drop_accel_mm_s2` it is left at once. A drag that starts
from rest at GRBL's acceleration along its direction reaches a speed ``v`` after ``v² / 2a`` millimetres.

>>> from chessatron.grbl.motion import MachineProfile
>>> pull = MagnetPull(drop_feed_mm_min=3000.0)
>>> pull.dropped_at((0.0, 0.0), (50.8, 0.0), 2000.0, MachineProfile()) is None
True
>>> x, y = pull.dropped_at((0.0, 0.0), (50.8, 0.0), 4000.0, MachineProfile())
>>> round(x, 2), y
(0.78, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import MachineProfileError
from ..grbl.motion import MachineProfile, acceleration_along, reachable_feed

__all__ = ["MagnetPull"]

Point = tuple[float, float]


@dataclass(frozen=True)
class MagnetPull:
    """A magnet that drops a dragged piece above ``drop_feed_mm_min`` (mm/min) or above
    ``drop_accel_mm_s2`` (mm/s²); None: it holds at any. The default holds at every speed."""

    drop_feed_mm_min: float | None = None
    drop_accel_mm_s2: float | None = None

    def __post_init__(self) -> None:
        for name, value in (
            ("drop_feed_mm_min", self.drop_feed_mm_min),
            ("drop_accel_mm_s2", self.drop_accel_mm_s2),
        ):
            if value is not None and not (math.isfinite(value) and value > 0.0):
                raise MachineProfileError(f"the magnet's {name} must be positive, got {value!r}")

    @property
    def is_strong(self) -> bool:
        """True if the magnet never drops a piece."""
        return self.drop_feed_mm_min is None and self.drop_accel_mm_s2 is None

    def dropped_at(
        self, start: Point, end: Point, feed_mm_min: float, profile: MachineProfile
    ) -> Point | None:
        """Where a piece dragged in a straight line from ``start`` to ``end`` at ``feed_mm_min`` is left
        behind (the magnet going on without it), or None if it arrives."""
        dx, dy = end[0] - start[0], end[1] - start[1]
        length = math.hypot(dx, dy)
        if length == 0.0 or self.is_strong:
            return None
        # GRBL's feed is along the move as its planner measures it (motor space on Core-XY): the drop
        # feed is reached where a move of the same feed from rest reaches it
        accelerating = acceleration_along(start, end, profile)
        if self.drop_accel_mm_s2 is not None and accelerating > self.drop_accel_mm_s2:
            return start
        if self.drop_feed_mm_min is None or feed_mm_min <= self.drop_feed_mm_min:
            return None
        reach = reachable_feed(start, end, profile)
        if reach <= self.drop_feed_mm_min:
            return None  # too short a drag to get that fast
        # the magnet's own speed when GRBL's feed is the drop feed, and the way it takes to get there
        speed = self.drop_feed_mm_min / 60.0 * length / math.hypot(*profile.to_planner(dx, dy))
        along = min(length, speed * speed / (2.0 * accelerating))
        return (start[0] + dx * along / length, start[1] + dy * along / length)
