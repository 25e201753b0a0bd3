"""How long a program will keep the machine busy, for ``chessatron run``'s time left.

The digital twin (:class:`~chessatron.sim.twin.Twin`, GRBL's planner as a time model) runs the program with
no pieces on the table: its seconds are the machine time of the whole program. How that time spreads
over the lines comes from timing each line on its own, from rest to rest: too slow for a run of short
moves that GRBL blends together, but in the right proportion, which is all the time left needs.

>>> estimate = estimate_program(["G21 G90", "G0 X100 Y50", "G4 P1", "G0 X20 Y20"], Layout.default())
>>> round(estimate.total_s, 1) > 1.0, estimate.remaining_s(0) == estimate.total_s, estimate.remaining_s(4)
(True, True, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ChessatronError
from ..planning.layout import Layout, MachinePoint
from ..sim.twin import Twin

__all__ = ["ProgramEstimate", "estimate_program"]


@dataclass(frozen=True)
class ProgramEstimate:
    """A program's machine time (``total_s``, seconds at the machine's own pace) and the share of it
    done once each line has run (``done_share[n - 1]`` after line n, from 0 to 1)."""

    total_s: float
    done_share: tuple[float, ...]

    def remaining_s(self, line: int) -> float:
        """Machine seconds left once program line ``line`` (from 1; 0: none) has run."""
        if line <= 0 or not self.done_share:
            return self.total_s
        share = self.done_share[min(line, len(self.done_share)) - 1]
        return max(self.total_s * (1.0 - share), 0.0)


def estimate_program(
    lines: Sequence[str], layout: Layout, start_mm: MachinePoint | None = None
) -> ProgramEstimate:
    """The machine time of ``lines`` on ``layout``'s machine from ``start_mm`` (default: home), by the
    twin's time model. Lines the twin cannot read (``$`` settings, unknown codes) take no time."""
    start = layout.home_mm if start_mm is None else start_mm

    def twin() -> Twin:
        return Twin(
            (),
            clearance_mm=layout.clearance_mm,
            envelope_mm=layout.envelope_mm,
            profile=layout.profile,
            magnet=layout.magnet.method,
            start_mm=start,
        )

    try:
        total = twin().run(list(lines), finish=False).seconds
        alone = twin()
        cumulative: list[float] = []
        for line in lines:
            alone.run([line], finish=False)
            cumulative.append(alone.seconds)
    except ChessatronError:  # a program the twin cannot follow: no estimate of its spread
        return ProgramEstimate(0.0, ())
    whole = cumulative[-1] if cumulative else 0.0
    shares = tuple(seconds / whole for seconds in cumulative) if whole > 0 else ()
    return ProgramEstimate(total, shares)
