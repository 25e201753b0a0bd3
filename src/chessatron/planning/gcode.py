"""Plans become GRBL 1.1 programs.

Millimetres, absolute coordinates, one command a line, each line under GRBL's 80-character buffer and
ending in ``\\n`` only. Empty travel is ``G0``; a drag is ``G1`` at the carry feed and never ``G0``. The
magnet is engaged and released the way the layout says:

* ``spindle``: ``M3 S…`` and ``M5`` (GRBL waits for motion to finish before switching, so they are
  exact sync points),
* ``coolant``: ``M8`` and ``M9`` (an electromagnet on the coolant output),
* ``servo``: a ``G4 P0`` sync point followed by the comment ``(MAGNET ON)`` or ``(MAGNET OFF)``; the
  host moves the servo when GRBL acknowledges the ``G4 P0``, i.e. once all motion before it is done.

Each engage and release is followed by the settle dwell ``G4 P<seconds>``. Every coordinate is checked
against the machine envelope; a point outside raises :class:`EnvelopeError` instead of being sent.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import EnvelopeError
from ..i18n import _
from .layout import Layout, MachinePoint
from .planner import Plan, Relocation

#: GRBL's line buffer holds 80 characters including the line end.
MAX_LINE = 79

HEADER = ("G21 G90 G94", "G17")


def number(value: float) -> str:
    """A coordinate as GRBL reads it: at most three decimals, no trailing zeros."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def comment(text: str) -> str:
    """A comment line; parentheses inside would end GRBL's comment early, so they become brackets."""
    body = text.replace("(", "[").replace(")", "]").replace("\n", " ")
    return f"({body[: MAX_LINE - 2]})"


class ProgramWriter:
    """Turns relocations into G-code lines for one layout, tracking where the magnet is."""

    def __init__(self, layout: Layout, start_mm: MachinePoint | None = None) -> None:
        self.layout = layout
        self.position: MachinePoint = layout.home_mm if start_mm is None else start_mm

    def header(self) -> list[str]:
        return list(HEADER)

    def point(self, xy: MachinePoint) -> str:
        if not self.layout.in_envelope(xy):
            raise EnvelopeError(
                _(
                    "machine point {point!r} lies outside the envelope {envelope!r}; check origin_mm, "
                    "rotation_deg and envelope_mm in the layout"
                ).format(point=xy, envelope=self.layout.envelope_mm)
            )
        return f"X{number(xy[0])} Y{number(xy[1])}"

    def magnet(self, on: bool) -> list[str]:
        magnet = self.layout.magnet
        settle = f"G4 P{number(magnet.settle_s)}"
        if magnet.method == "spindle":
            switch = [f"M3 S{number(magnet.spindle_speed)}" if on else "M5"]
        elif magnet.method == "coolant":
            switch = ["M8" if on else "M9"]
        else:
            switch = ["G4 P0", "(MAGNET ON)" if on else "(MAGNET OFF)"]
        return [*switch, settle] if magnet.settle_s > 0 else switch

    def relocation(self, relocation: Relocation) -> list[str]:
        """Travel to the piece, engage, drag along the path, release."""
        lines = [comment(f"{relocation.purpose} {relocation.piece.id} {relocation.piece.symbol}")]
        start = self.layout.node_mm(relocation.start)
        if start != self.position:
            lines.append(f"G0 {self.point(start)}")
        lines += self.magnet(True)
        feed = number(self.layout.carry_feed_mm_min)
        for node in relocation.path[1:]:
            lines.append(f"G1 {self.point(self.layout.node_mm(node))} F{feed}")
        lines += self.magnet(False)
        self.position = self.layout.node_mm(relocation.goal)
        return lines

    def plan(self, plan: Plan, title: str | None = None) -> list[str]:
        lines = [comment(title)] if title else []
        for relocation in plan.relocations:
            lines += self.relocation(relocation)
        return lines


def program_text(lines: Iterable[str]) -> str:
    """Join lines as GRBL wants them: ``\\n`` endings only (``\\r\\n`` makes GRBL answer twice)."""
    return "".join(f"{line}\n" for line in lines)
