"""The work done on the table: the robot's plans carried out and journaled relocation by relocation, with
their estimates told (:meth:`TableWork.run_plan`), set-ups from wherever the table stands
(:meth:`TableWork.set_up`), a step of tidying, and without a robot the pieces the players arrange as the LEDs
show, the capture zones followed by their sensors. :class:`TableWork` builds on the devices
(:mod:`.devices`); :mod:`.seats` (the players) builds on it.
"""

from __future__ import annotations

import logging
import math
import re
import time
from typing import Any

import chess
import chess.engine

from ..errors import ChessatronError, HardwareError
from ..feedback.signals import LedSignals
from ..grbl.charcount import StreamProgress
from ..i18n import N_, _
from ..planning.layout import Cell, Layout, MachinePoint, Node
from ..planning.planner import Plan, Relocation
from ..planning.table import PhysicalPiece, PieceId, Table
from ..planning.tidy import next_tidy, turn_share_s
from ..sim.hand import HandAction, perform
from .devices import TableDevices
from .records.journal import Journal, JournalState

LOGGER = logging.getLogger(__name__)


#: Without a robot, how long the sensors must show the arranged position before the game goes on.
ARRANGED_STILL_S = 0.3


class StopRequested(KeyboardInterrupt):
    """A stop asked for from elsewhere (the page's *Stop game*, SIGTERM in ``serve``) ended the robot's
    work at a safe point: between two relocations, the magnet released, each one done journaled. Raised
    as the ``KeyboardInterrupt`` a stop is, so that the game stays journaled however it is stopped.
    ``title`` names the work (``SETUP``, ``MOVE 3 e2e4``…), of whose ``total`` relocations ``done`` were
    carried out."""

    def __init__(self, title: str, done: int, total: int) -> None:
        super().__init__(f"{title}: stopped after {done} of {total} relocations")
        self.title, self.done, self.total = title, done, total


#: Robot work the time model says takes at least this long (seconds, at the session's speed) is told with
#: its estimate and a countdown (:func:`~chessatron.game.telling.words.countdown_words`); shorter work is over
#: before it would help.
LONG_WORK_S = 5.0


def _cell(layout: Layout, node: Node) -> Cell:
    cell = layout.node_cell(node)
    if cell is None:
        raise ChessatronError(
            _("node {node!r} is not a cell's centre; a hand cannot put a piece there").format(node=node)
        )
    return cell


def encode_relocation(relocation: Relocation) -> str:
    """A relocation as the journal keeps it: purpose and path by nodes (pieces are found by position)."""
    path = " ".join(f"{i},{j}" for i, j in relocation.path)
    return f"{relocation.purpose} {relocation.piece.id} {path}"


def decode_relocation(text: str, table: Table) -> Relocation:
    match = re.fullmatch(r"(\S+) (\S+) (-?\d+,-?\d+(?: -?\d+,-?\d+)*)", text.strip())
    if match is None:
        raise ChessatronError(
            _("the journal holds a robot operation it cannot read: {text!r}").format(text=text)
        )
    nodes: tuple[Node, ...] = tuple(
        (int(a), int(b)) for a, b in (part.split(",") for part in match[3].split())
    )
    piece = table.piece_at(nodes[0])
    if piece is None:
        raise ChessatronError(
            _("no piece stands where the journal's operation {text!r} starts").format(text=text)
        )
    return Relocation(piece, nodes, match[1])  # type: ignore[arg-type]


def encode_table(table: Table) -> list[list[object]]:
    """Every piece as ``[id, symbol, i, j]`` (its node), for the journal."""
    return [[p.id, p.symbol, *table.node_of(p.id)] for p in sorted(table, key=lambda p: p.id)]


def decode_table(data: object, layout: Layout) -> Table:
    if not isinstance(data, list):
        raise ChessatronError(
            _("the journal's table before the set-up is damaged: {data!r}").format(data=data)
        )
    try:
        placement = [(PhysicalPiece(str(i), str(sym)), (int(a), int(b))) for i, sym, a, b in data]
        return Table(layout, placement)
    except (TypeError, ValueError) as exc:
        raise ChessatronError(
            _("the journal's table before the set-up is damaged ({reason!r})").format(reason=exc)
        ) from exc


def hand_operations(layout: Layout, before: dict[PieceId, Node], table: Table) -> list[Relocation]:
    """Relocations that take the table from ``before`` to ``table`` one piece at a time, each onto a
    free node (a swap, as in some Chess960 castlings, goes through a free cell)."""
    scratch = Table(layout, [(table.piece(pid), node) for pid, node in before.items()])
    pending = {pid: node for pid, node in table.placement().items() if before.get(pid) != node}
    operations: list[Relocation] = []
    while pending:
        occupied = set(scratch.placement().values())
        ready = [pid for pid, goal in pending.items() if goal not in occupied]
        if not ready:  # a cycle: one piece steps aside to a free cell first
            pid = next(iter(pending))
            goals = set(pending.values())
            spare = next(
                layout.cell_node(c)
                for c in layout.cells()
                if layout.cell_node(c) not in occupied and layout.cell_node(c) not in goals
            )
            operations.append(Relocation(scratch.piece(pid), (scratch.node_of(pid), spare), "hand"))
            scratch.relocate(pid, spare)
            continue
        for pid in ready:
            goal = pending.pop(pid)
            operations.append(Relocation(scratch.piece(pid), (scratch.node_of(pid), goal), "hand"))
            scratch.relocate(pid, goal)
    return operations


#: The status while the players arrange the pieces by hand, by why (translated where shown).
_ARRANGE: dict[str, str] = {
    # TRANSLATORS: status
    "set up": N_("set up: please arrange the pieces as shown"),
    # TRANSLATORS: status
    "resume": N_("resume: please arrange the pieces as shown"),
    # TRANSLATORS: status
    "take back": N_("take back: please arrange the pieces as shown"),
    # TRANSLATORS: status
    "set up the puzzle": N_("set up the puzzle: please arrange the pieces as shown"),
    # TRANSLATORS: status
    "put it back": N_("put it back: please arrange the pieces as shown"),
}


def _arrange_status(why: str) -> str:
    """The status while the players arrange the pieces by hand for ``why`` (``set up``, ``take back``)."""
    known = _ARRANGE.get(why)
    if known is not None:
        return _(known)
    # TRANSLATORS: status; {why} says what for, in English words
    return _("{why}: please arrange the pieces as shown").format(why=why)


def _robot_entries(state: JournalState) -> list[tuple[int, list[str], set[int]]]:
    """The journal's robot work in order: the ply each began at, its operations, the indices finished
    (as the journal was read: up to damage, without a torn last line)."""
    return [(work.ply, list(work.operations), set(work.completed)) for work in state.robot_work]


class TableWork(TableDevices):
    """The robot's work and the people's on a session's table (see the module docs)."""

    #: Robot work at least this long (seconds, at this session's speed) is told with its estimate and a
    #: countdown.
    long_work_s: float = LONG_WORK_S
    #: Where the magnet stood when the person's turn, and its tidying, began (None: where it stands).
    tidy_home: MachinePoint | None = None

    def set_up(
        self, target: chess.Board, title: str = "SETUP", journal: Journal | None = None
    ) -> Plan | None:
        """Set the table up for ``target`` from wherever it stands (after a game, a stopped set-up, a
        crash): one plan, straight to the target's arrangement (its pieces on the board, the reserve
        refilled, the rest in the zones), carried out with its estimate shown; without a robot the
        players arrange the pieces as the LEDs show. Returns the plan (None without a robot). Raises
        :class:`~chessatron.errors.MissingPieceError` when the table lacks pieces for it,
        :class:`HardwareError` when the machine stops.

        The entry point for anything that sets the table up (a puzzle, a position to study).
        """
        if not self.has_robot:
            before = self.table.placement()
            self._arrange_by_hand(target, "set up")
            self._journal_by_hand(journal, before)
            return None
        plan = self.resetter.plan(self.table, target, at=self.gantry)
        self.emit({"event": "setup", "relocations": len(plan.relocations)})
        if plan.relocations:
            self.run_plan(plan, title, journal)
        return plan

    def run_plan(
        self,
        plan: Plan,
        title: str,
        journal: Journal | None,
        indices: list[int] | None = None,
        *,
        background: bool = False,
        from_table: Table | None = None,
    ) -> None:
        """Execute a plan, journaling it first (unless ``indices`` says it is the rest of a journaled
        one: then each relocation is journaled as done under its original index); ``from_table``: the
        table it starts from is journaled with it (the journal's earlier work did not leave it so).

        Watchers see the work with its estimate (the planner's time model) and what is left of it as it
        goes (``gantry.work``: ``estimate_s`` machine seconds, ``left_s`` seconds left at wall-clock time
        ``at`` at this session's speed). ``background``: tidying on a person's time, which watchers see
        the pieces and the magnet of but which is not the session's work (no ``work``, no status)."""
        robot = self.robot
        if robot is None:
            raise HardwareError("the robot is not connected; call connect() first")
        if journal is not None and plan.relocations and indices is None:
            snapshot = encode_table(from_table) if from_table is not None else None
            journal.robot_begin([encode_relocation(r) for r in plan.relocations], table=snapshot)

        total = len(plan.relocations)
        live = self.live
        timer = self.planner.timer
        paths = [relocation.path for relocation in plan.relocations]
        estimate_s = timer.relocations_s(self.gantry, paths)

        def work(index: int) -> dict[str, Any] | None:
            if background:
                return None
            told: dict[str, Any] = {"title": title, "index": index, "of": total}
            if self._wall_s(estimate_s) >= self.long_work_s:
                at = self.layout.node_mm(plan.relocations[index - 1].goal) if index else self.gantry
                left_s = self._wall_s(timer.relocations_s(at, paths[index:]))
                told.update(estimate_s=round(estimate_s, 1), left_s=round(left_s, 1))
                told["at"] = round(time.time(), 3)
            return told

        def step(index: int, relocation: Relocation) -> None:
            if journal is not None:
                journal.robot_done(index if indices is None else indices[index])
            if not background:  # (a person's board is watched by its own thread meanwhile)
                for mover in self._board_movers:
                    mover.observe(0.25)
            live.show_table(self.table)
            following = plan.relocations[index + 1].path if index + 1 < total else ()
            told = work(index + 1)
            live.show_gantry(
                self.layout.node_mm(relocation.goal), path=following, work=False if background else told
            )
            self.emit({"event": "relocation", "index": index, "of": total, "what": str(relocation)})

        def progress(report: StreamProgress) -> None:
            status = report.status
            if status is not None and status.mpos is not None:
                live.show_gantry((status.mpos[0], status.mpos[1]), state=status.state)

        if total:
            live.show_table(self.table, plan.relocations)
            live.show_gantry(
                self.gantry, path=plan.relocations[0].path, work=False if background else work(0)
            )
        execution = None
        try:
            execution = robot.execute(
                plan, title, on_step=step, on_progress=progress, stop=self.stop_requested.is_set
            )
        finally:
            # a machine that finished is idle; one that stopped keeps the state it last reported (Alarm)
            idle = "Idle" if execution is not None and execution.ok else None
            live.show_gantry(self.gantry, path=(), work=False if background else None, state=idle)
            if self.checkpoint is not None:
                self.checkpoint(self)
        if execution.stopped:
            raise StopRequested(title, execution.completed, total)
        if not execution.ok:
            problems = "; ".join(execution.problems()) or _("the machine stopped")
            # TRANSLATORS: {title} names the robot's work as the machine does (MOVE 3 e2e4, SETUP)
            fix = _("{title}: {problems}; fix it and continue with `chessatron play --resume`")
            raise HardwareError(fix.format(title=title, problems=problems))

    def _wall_s(self, machine_s: float) -> float:
        """Wall-clock seconds of ``machine_s`` of machine time: a machine takes them; the simulator runs
        at this session's speed (as fast as it can: next to no time)."""
        if self.world is None:
            return machine_s
        return 0.0 if self.speed is None else machine_s / self.speed

    def _tidy_step(self, journal: Journal | None, within_s: float = math.inf) -> bool:
        """One step of tidying (:func:`~chessatron.planning.tidy.next_tidy`) on the tidier's thread, while
        the game's waits for a person: journaled as robot work of the current ply. False when nothing is
        left to tidy (or the robot is gone), or the next step, with the travel back to where the turn
        began (:func:`~chessatron.planning.tidy.turn_share_s`), would take longer than ``within_s`` (wall
        seconds)."""
        if self.robot is None:
            return False
        plan = next_tidy(self.planner, self.table, self.gantry)
        if plan is None:
            return False
        if within_s < math.inf:
            home = self.tidy_home if self.tidy_home is not None else self.gantry
            if self._wall_s(turn_share_s(self.planner, plan, home)) > within_s:
                return False
        ply = len(journal.state.moves) if journal is not None else 0
        self.run_plan(plan, f"TIDY {ply}", journal, background=True)
        return True

    def _arrange_by_hand(self, target: chess.Board, why: str) -> None:
        """No robot: the players arrange the pieces as ``target`` shows (a set-up, a takeback); the LEDs
        show the squares to fill and to clear, the sensors confirm. On the simulator a simulated person
        does it."""
        plan = self.resetter.plan(self.table, target, at=self.gantry)
        before = self.table.copy()
        plan.apply(self.table)  # where the pieces will stand (the model; the sensors confirm the board)
        self.emit({"event": "arrange", "why": why, "fen": target.board_fen()})
        self.live.update(status=_arrange_status(why))
        if self.world is not None:
            moved = [
                piece for piece in self.table if before.node_of(piece.id) != self.table.node_of(piece.id)
            ]
            actions = [
                HandAction(0.0, "lift", _cell(self.layout, before.node_of(p.id)), p.symbol, why, p.id)
                for p in moved
            ] + [
                HandAction(0.0, "place", _cell(self.layout, self.table.node_of(p.id)), p.symbol, why, p.id)
                for p in moved
            ]
            perform(self.world, actions)
        sensors = self._table_sensors()
        if sensors is None:
            return  # nothing can confirm it: the players are trusted
        wanted = {self.layout.square_cell(square) for square in chess.SquareSet(target.occupied)}
        board_cells = set(self.layout.board_cells())
        leds = self.led_strip()
        signals = LedSignals(self.layout)
        still_since: float | None = None
        while True:
            if self.stop_requested.is_set():
                raise KeyboardInterrupt
            seen = set(sensors.scan()) & board_cells
            missing, extra = wanted - seen, seen - wanted
            if not missing and not extra:
                now = time.monotonic()
                still_since = still_since if still_since is not None else now
                if now - still_since >= ARRANGED_STILL_S:
                    break
            else:
                still_since = None
                colours = {cell: signals.colours.destination for cell in missing}
                colours.update({cell: signals.colours.illegal for cell in extra})
                leds.show(colours)
            time.sleep(0.02)
        leds.show({})
        self.live.show_table(self.table, ())

    def _journal_by_hand(self, journal: Journal | None, before: dict[PieceId, Node]) -> None:
        """Pieces people moved (a move, a takeback, a set-up) are journaled as robot work already
        finished, so that a resume rebuilds the table as they left it."""
        operations = hand_operations(self.layout, before, self.table)
        if operations and journal is not None:
            journal.robot_begin([encode_relocation(op) for op in operations])
            for index in range(len(operations)):
                journal.robot_done(index)
        if operations and self.checkpoint is not None:
            self.checkpoint(self)

    def _follow_zone_sensors(self) -> None:
        """A person put pieces off the board (a capture, a takeback): where exactly, only the sensors under
        the zones can tell. Move the model's off-board pieces the sensors do not see to the off-board
        cells they see filled, nearest first."""
        sensors = self._sensors
        if sensors is None:
            return
        # (cells a person puts pieces on: the zones and the reserve; a piece the robot parked in the free
        # rows stays where the model has it, seen or not)
        beside = {"board", "free"}
        seen = {cell for cell in sensors.scan() if self.layout.cell_kind(cell) not in beside}
        model: dict[Cell, PhysicalPiece] = {}
        for piece in self.table:
            cell = self.layout.node_cell(self.table.node_of(piece.id))
            if cell is not None and self.layout.cell_kind(cell) not in beside:
                model[cell] = piece
        unseen = [cell for cell in model if cell not in seen]
        unexplained = [cell for cell in seen if cell not in model]
        if not unseen or not unexplained:
            return
        pairs = sorted(
            ((math.dist(a, b), a, b) for a in unseen for b in unexplained), key=lambda item: item[0]
        )
        moved: set[Cell] = set()
        filled: set[Cell] = set()
        for _distance, old, new in pairs:
            if old in moved or new in filled:
                continue
            self.table.relocate(model[old].id, self.layout.cell_node(new))
            moved.add(old)
            filled.add(new)
        if len(moved) > 1:
            self.emit(
                {"event": "notice", "message": "several pieces moved beside the board; check the zones"}
            )
