"""The robot: carries out plans on the machine and knows what it has done.

A plan (a move or a set-up) becomes G-code, is streamed through the GRBL link (the real machine or the
simulated one: both are ``GrblLink`` URLs) and is applied to the physical state one relocation at a time,
as GRBL acknowledges the relocation's last line — a magnet release and its dwell, which GRBL only
acknowledges once the motion before them has finished. So after an ``error:``, an alarm or a pulled cable
the physical state says exactly which relocations were carried out, and the game can continue from
there. Afterwards the table's sensors (when there are any) are compared with the physical state: a piece
that did not follow the magnet is reported with its name and square.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from .gcode import ProgramWriter, comment
from .grbl.link import GrblLink
from .grbl.stream import StreamProgress, StreamResult
from .layout import Layout
from .planner import Plan, Relocation
from .ports import OccupancySensor
from .table import Table
from .verification import TableCheck, check_table

LOGGER = logging.getLogger(__name__)

#: Called after each relocation the machine has finished: its index and the relocation.
StepCallback = Callable[[int, Relocation], None]


@dataclass(frozen=True)
class Execution:
    """What became of a plan on the machine."""

    plan: Plan
    completed: int
    """How many of the plan's relocations were carried out (all of them when ``ok``)."""
    stream: StreamResult
    check: TableCheck | None
    """The sensors' view compared with the physical state (None without sensors)."""
    interrupted: Relocation | None = None
    """The relocation under way when the machine stopped: its piece may be anywhere along its path
    (the sensors could not tell; put it on a square and say where)."""

    @property
    def ok(self) -> bool:
        return (
            self.stream.ok
            and self.completed == len(self.plan.relocations)
            and (self.check is None or self.check.ok)
        )

    def problems(self) -> list[str]:
        found = []
        if self.stream.error is not None:
            found.append(str(self.stream.error))
        if self.check is not None:
            found += self.check.messages()
        return found


class Robot:
    """Executes plans through a connected :class:`GrblLink`, keeping ``table`` in step."""

    def __init__(
        self, layout: Layout, link: GrblLink, table: Table, *, sensors: OccupancySensor | None = None
    ) -> None:
        self.layout = layout
        self.link = link
        self.table = table
        self.sensors = sensors
        self.writer = ProgramWriter(layout)

    def execute(
        self,
        plan: Plan,
        title: str,
        on_step: StepCallback | None = None,
        on_progress: Callable[[StreamProgress], None] | None = None,
    ) -> Execution:
        """Stream ``plan``; apply each relocation to the table once GRBL has finished it (``on_step``
        hears of each); ``on_progress`` gets the stream's progress, status reports included."""
        lines = [comment(title)]
        ends: list[int] = []  # program line (from 1) that finishes each relocation
        start_position = self.writer.position
        for relocation in plan.relocations:
            lines += self.writer.relocation(relocation)
            ends.append(len(lines))
        done = 0

        def advance(through: int) -> None:
            nonlocal done
            while done < len(ends) and ends[done] <= through:
                relocation = plan.relocations[done]
                self.table.relocate(relocation.piece.id, relocation.goal)
                if on_step is not None:
                    on_step(done, relocation)
                done += 1

        # While streaming, a line counts as finished once a later one was answered (the answered line
        # itself might be the one that failed); the result settles the rest.
        def progress(report: StreamProgress) -> None:
            advance(report.line - 1)
            if on_progress is not None:
                on_progress(report)

        result = self.link.stream(lines, on_progress=progress)
        advance(result.completed_through)
        interrupted = None
        if done < len(ends) and not result.ok:
            interrupted = plan.relocations[done]
            if self._arrived(interrupted):
                # the drag ran to its end before the stop (e.g. GRBL refused only the release)
                self.table.relocate(interrupted.piece.id, interrupted.goal)
                done += 1
                interrupted = None
        if done < len(ends):
            # The writer believed the magnet would end at the plan's end; it is where the last
            # finished relocation left it (or where it was when the plan began).
            self.writer.position = (
                self.layout.node_mm(plan.relocations[done - 1].goal) if done else start_position
            )
            LOGGER.warning("%s stopped after %d of %d relocations: %s", title, done, len(ends), result.error)
        check = check_table(self.table, self.sensors.scan()) if self.sensors is not None else None
        return Execution(plan, done, result, check, interrupted)

    def _arrived(self, relocation: Relocation) -> bool:
        """Do the sensors see the piece at its goal and its start empty?"""
        if self.sensors is None:
            return False
        start, goal = self.layout.node_cell(relocation.start), self.layout.node_cell(relocation.goal)
        if start is None or goal is None:
            return False
        seen = self.sensors.scan()
        return goal in seen and start not in seen
