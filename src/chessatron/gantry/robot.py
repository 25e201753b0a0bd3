"""The robot: carries out plans on the machine and knows what it has done.

A plan (a move or a set-up) becomes G-code, is streamed through the GRBL link (the real machine or the
simulated one: both are ``GrblLink`` URLs) and is applied to the physical state one relocation at a time,
as GRBL acknowledges the relocation's last line — a magnet release and its dwell, which GRBL only
acknowledges once the motion before them has finished. So after an ``error:``, an alarm or a pulled cable
the physical state says exactly which relocations were carried out, and the game can continue from
there. GRBL gets a drag one accepted line at a time (:mod:`~chessatron.grbl.charcount`), so after an
``error:N`` inside a drag the machine has stopped at the end of the last line it accepted and the release
dropped the piece there: the physical state puts it on that node and the report says where. Afterwards
the table's sensors (when there are any) are compared with the physical state: a piece that did not
follow the magnet is reported with its name and square.

Before it moves anything the robot makes sure GRBL is not locked by an earlier alarm
(:meth:`~chessatron.grbl.link.GrblLink.ready`: it homes, or says what to do).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

import chess

from ..errors import GrblError
from ..grbl.charcount import StreamProgress, StreamResult
from ..grbl.link import GrblLink
from ..i18n import N_, _
from ..i18n.formats import both
from ..planning.gcode import ProgramWriter, comment
from ..planning.layout import Layout, MachinePoint, Node
from ..planning.planner import Plan, Relocation
from ..planning.table import Table
from ..ports import OccupancySensor
from .verification import TableCheck, cell_name, check_table

LOGGER = logging.getLogger(__name__)

#: Called after each relocation the machine has finished: its index and the relocation.
StepCallback = Callable[[int, Relocation], None]


def place_name(layout: Layout, node: Node) -> str:
    """Where a node lies, in words: ``f3``, ``c0r9``, ``between f3 and g3``, ``where f3, g3, f4 and g4
    meet``, with its machine coordinates.

    >>> place_name(Layout.default(), (16, 7))
    'between f3 and g3 (X416.4 Y187.8)'
    """
    x, y = layout.node_mm(node)
    position = f"X{x:g} Y{y:g}"  # G-code's way of writing a machine position
    names = _cell_names(layout, node)
    if len(names) == 1:
        return _("on {square} ({position})").format(square=names[0], position=position)
    if len(names) == 2:
        return _("between {first} and {second} ({position})").format(
            first=names[0], second=names[1], position=position
        )
    if len(names) == 4:
        return _("where {first}, {second}, {third} and {fourth} meet ({position})").format(
            first=names[0], second=names[1], third=names[2], fourth=names[3], position=position
        )
    return _("where {squares} meet ({position})").format(squares=both(names), position=position)


def _cell_names(layout: Layout, node: Node) -> list[str]:
    """The cells a node touches, by name: one at a cell's centre, two on an edge, four at a corner."""
    i, j = node
    cells = [
        (column, row)
        for column in ((i - 1) // 2, i // 2)
        for row in ((j - 1) // 2, j // 2)
        if 0 <= column < layout.columns and 0 <= row < layout.rows
    ]
    return sorted({cell_name(layout, cell) for cell in cells})


#: A piece of the table by colour and kind, with its id (``N2``), as the subject of a sentence.
_PIECE_WITH_ID = {
    (chess.WHITE, chess.PAWN): N_("the white pawn {id}"),
    (chess.WHITE, chess.KNIGHT): N_("the white knight {id}"),
    (chess.WHITE, chess.BISHOP): N_("the white bishop {id}"),
    (chess.WHITE, chess.ROOK): N_("the white rook {id}"),
    (chess.WHITE, chess.QUEEN): N_("the white queen {id}"),
    (chess.WHITE, chess.KING): N_("the white king {id}"),
    (chess.BLACK, chess.PAWN): N_("the black pawn {id}"),
    (chess.BLACK, chess.KNIGHT): N_("the black knight {id}"),
    (chess.BLACK, chess.BISHOP): N_("the black bishop {id}"),
    (chess.BLACK, chess.ROOK): N_("the black rook {id}"),
    (chess.BLACK, chess.QUEEN): N_("the black queen {id}"),
    (chess.BLACK, chess.KING): N_("the black king {id}"),
}


@dataclass(frozen=True)
class Stranded:
    """A piece a stopped drag set down on its way: GRBL refused a line of the drag, so the machine ran
    the drag's lines up to the one before, and the release dropped the piece at ``node``."""

    relocation: Relocation
    node: Node
    message: str
    """Where the piece is and what to do, in words."""

    @classmethod
    def at(cls, relocation: Relocation, node: Node, layout: Layout) -> Stranded:
        piece = relocation.piece
        name = _(_PIECE_WITH_ID[piece.color, piece.piece.piece_type]).format(id=piece.id)
        start = _short_place(layout, relocation.start)
        goal = _short_place(layout, relocation.goal)
        # TRANSLATORS: {piece} is e.g. "the white knight N2", {place} e.g. "between f3 and g3 (X416.4 Y187.8)"
        text = _(
            "{piece} stopped on its way from {start} to {goal} and was set down {place}; put it back on "
            "{start} before the game goes on"
        )
        return cls(
            relocation, node, text.format(piece=name, start=start, goal=goal, place=place_name(layout, node))
        )


def _short_place(layout: Layout, node: Node) -> str:
    """Where a node lies, for "from … to …": a cell's name, or the cells it lies between."""
    names = _cell_names(layout, node)
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return _("between {first} and {second}").format(first=names[0], second=names[1])
    return _("where {squares} meet").format(squares=both(names))


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
    stranded: Stranded | None = None
    """A drag stopped by an ``error:N``: where its piece was set down (the physical state has it there)."""
    advice: tuple[str, ...] = ()
    """What to do about a piece the stop left on its way (the stranded or interrupted one)."""
    stopped: bool = False
    """A stop asked for (:meth:`Robot.execute`'s ``stop``) ended the plan between two relocations: those
    done are done, the magnet released; nothing went wrong."""

    @property
    def ok(self) -> bool:
        return (
            not self.stopped
            and self.stream.ok
            and self.completed == len(self.plan.relocations)
            and (self.check is None or self.check.ok)
        )

    def problems(self) -> list[str]:
        found = []
        if self.stream.error is not None:
            found.append(str(self.stream.error))
        found += self.advice
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
        #: How many plans the robot has begun: a travel asked for before the latest began is stale.
        self.plans_begun = 0
        # held while the machine runs something: a plan, or a travel from another thread (pondering)
        self._motion = threading.Lock()

    def execute(
        self,
        plan: Plan,
        title: str,
        on_step: StepCallback | None = None,
        on_progress: Callable[[StreamProgress], None] | None = None,
        *,
        stop: Callable[[], bool] | None = None,
    ) -> Execution:
        """Stream ``plan``; apply each relocation to the table once GRBL has finished it (``on_step``
        hears of each); ``on_progress`` gets the stream's progress, status reports included.

        ``stop``, asked before each relocation, ends the plan at that safe point when it says so: the
        relocations done stay done (each ends with the magnet released), the rest are not begun, and the
        execution is :attr:`~Execution.stopped`. With it the plan goes to GRBL one relocation at a time, so
        that nothing of the next one is in its buffer when the stop comes (a relocation ends with a
        release and a dwell, which drain GRBL's planner anyway: the machine loses no speed).

        A GRBL locked by an earlier alarm is homed first (or :class:`~chessatron.errors.GrblLockedError`
        says what to do); nothing else raises for what the machine does: the execution tells. A travel
        under way (:meth:`travel`, from another thread) ends first."""
        with self._motion:
            self.plans_begun += 1
            return self._execute(plan, title, on_step, on_progress, stop)

    def _execute(
        self,
        plan: Plan,
        title: str,
        on_step: StepCallback | None,
        on_progress: Callable[[StreamProgress], None] | None,
        stop: Callable[[], bool] | None = None,
    ) -> Execution:
        if self.link.is_locked and self.link.ready():
            self.writer.position = self.layout.home_mm
        start_position = self.writer.position
        total = len(plan.relocations)
        # one program for the whole plan, or one a relocation when a stop may come between them
        batches = [range(total)] if stop is None or total == 0 else [range(i, i + 1) for i in range(total)]
        done = 0
        stopped = False
        result: StreamResult | None = None
        lines: list[str] = []
        ends: list[int] = []  # program line (from 1) that finishes each relocation of the batch
        first_of_batch = 0  # the plan's index of the batch's first relocation
        for batch in batches:
            if stop is not None and stop():
                stopped = True
                break
            lines = [comment(title)]
            ends = []
            for index in batch:
                lines += self.writer.relocation(plan.relocations[index])
                ends.append(len(lines))
            first_of_batch = batch.start

            def advance(through: int, ends: list[int] = ends, first: int = first_of_batch) -> None:
                nonlocal done
                while done - first < len(ends) and ends[done - first] <= through:
                    relocation = plan.relocations[done]
                    self.table.relocate(relocation.piece.id, relocation.goal)
                    if on_step is not None:
                        on_step(done, relocation)
                    done += 1

            # While streaming, a line counts as finished once a later one was answered (the answered
            # line itself might be the one that failed); the result settles the rest.
            def progress(report: StreamProgress, advance: Callable[[int], None] = advance) -> None:
                advance(report.line - 1)
                if on_progress is not None:
                    on_progress(report)

            result = self.link.stream(lines, on_progress=progress)
            advance(result.completed_through)
            if not result.ok:
                break
        assert result is not None or stopped
        interrupted = stranded = None
        advice: tuple[str, ...] = ()
        if result is not None and done < total and not result.ok:
            relocation = plan.relocations[done]
            local = done - first_of_batch  # the relocation's place in the batch streamed last
            first = ends[local - 1] + 1 if local else 1
            reached = self._reached(relocation, lines[first - 1 : ends[local]], first, result)
            if reached == relocation.goal or (reached is None and self._arrived(relocation)):
                # the drag ran to its end before the stop (e.g. GRBL refused only the release, and the
                # streamer's own release dropped the piece at its goal): it is done, journal included
                self.table.relocate(relocation.piece.id, relocation.goal)
                if on_step is not None:
                    on_step(done, relocation)
                done += 1
            elif reached is None:
                interrupted = relocation
                start = _short_place(self.layout, relocation.start)
                goal = _short_place(self.layout, relocation.goal)
                advice = (
                    _(
                        "{piece} may lie anywhere on its way from {start} to {goal}, where the machine "
                        "stopped; "
                        "put it back on {start} before the game goes on"
                    ).format(piece=relocation.piece.id, start=start, goal=goal),
                )
            elif reached != relocation.start:
                self.table.relocate(relocation.piece.id, reached)
                stranded = Stranded.at(relocation, reached, self.layout)
                advice = (stranded.message,)
        if done < total:
            # The writer believed the magnet would end at the plan's end; it is where the last
            # finished relocation left it (or where it was when the plan began), or where a drag stopped.
            self.writer.position = (
                self.layout.node_mm(stranded.node)
                if stranded is not None
                else self.layout.node_mm(plan.relocations[done - 1].goal)
                if done
                else start_position
            )
            why = "a stop was asked for" if stopped else (result.error if result is not None else None)
            # a stop someone asked for is no trouble: filed, and told by whoever asked (serve, play);
            # anything else that cut the work short is a warning the user sees
            level = logging.INFO if stopped else logging.WARNING
            LOGGER.log(level, "%s stopped after %d of %d relocations: %s", title, done, total, why)
        check = check_table(self.table, self.sensors.scan()) if self.sensors is not None else None
        if result is None:  # stopped before the first relocation: nothing was sent
            result = StreamResult((), None, 0.0)
        return Execution(plan, done, result, check, interrupted, stranded, advice, stopped=stopped)

    def travel(
        self, point: MachinePoint, title: str = "TRAVEL", *, unless: Callable[[], bool] | None = None
    ) -> bool:
        """Move the empty magnet to ``point`` at rapid, in one ``G0`` (every plan ends with the magnet
        released, so nothing is dragged): to wait where the next drag will likely begin. Another thread
        may call it; a plan (:meth:`execute`) waits for it to end, and while it runs the writer already
        says the magnet is at ``point``, so that plans made meanwhile start from there. ``unless``, asked
        once the machine is free, says the travel is no longer wanted (it was superseded while a plan
        ran): then nothing moves.

        Returns whether the machine stands there now; not when the travel was superseded, when GRBL is
        held or locked (nothing is sent), nor after an error (GRBL refused the move, or an alarm: the next
        plan homes first)."""
        with self._motion:
            if unless is not None and unless():
                return False
            before = self.writer.position
            if point == before:
                return True
            if self.link.is_held or self.link.is_locked:
                return False
            lines = [comment(title), f"G0 {self.writer.point(point)}"]
            self.writer.position = point
            result = self.link.stream(lines)
            if not result.ok:
                self.writer.position = before
                LOGGER.warning("%s to %r stopped: %s", title, point, result.error)
                return False
            return True

    @staticmethod
    def _reached(relocation: Relocation, lines: list[str], first: int, result: StreamResult) -> Node | None:
        """Where a relocation cut short by ``error:N`` left its piece: GRBL had one drag line at a time,
        so it ran exactly the drag lines it accepted (``G1`` line k ends at ``path[k]``) and the
        streamer's release dropped the piece there. None when the stop was anything else (an alarm, a
        lost connection: the piece may be anywhere on its way)."""
        if not isinstance(result.error, GrblError):
            return None
        drags = [first + i for i, text in enumerate(lines) if text.startswith("G1 ")]
        accepted = 0
        for line in drags:
            if result.state(line) != "ok":
                break
            accepted += 1
        return relocation.path[accepted]

    def _arrived(self, relocation: Relocation) -> bool:
        """Do the sensors see the piece at its goal and its start empty?"""
        if self.sensors is None:
            return False
        start, goal = self.layout.node_cell(relocation.start), self.layout.node_cell(relocation.goal)
        if start is None or goal is None:
            return False
        seen = self.sensors.scan()
        return goal in seen and start not in seen
