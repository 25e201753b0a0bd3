"""Play games on the simulated table: plan every move, write its G-code, run it in the digital twin and
check that the twin ends where the plan says — physically, not just in the planner's bookkeeping.

Each move is planned as the robot's reply (:meth:`~chessatron.planning.planner.Planner.plan_reply`: a
piece leaving the board is parked at the nearest free place off it) and followed by the tidying that
takes parked pieces on to their capture zone (:mod:`chessatron.planning.tidy`), which the program shows
after a ``(TIDY n)`` comment: a reader tells the move the person waits for from the work done while they
think.

>>> sim = TableSimulator(Layout.default(), chess.Board())
>>> ply = sim.play(chess.Move.from_uci("e2e4"))
>>> ply.violations
()
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from .. import files
from ..errors import GameFileError
from ..i18n import _, ngettext
from ..pgn import read_games
from ..planning.gcode import ProgramWriter, comment
from ..planning.layout import Layout, MachinePoint, Node
from ..planning.planner import Plan, Planner, Relocation
from ..planning.reset import ResetPlanner, arrangement_problems
from ..planning.table import PieceId, Table
from ..planning.tidy import next_tidy, plan_tidy
from ..planning.timing import Timer
from .twin import Twin, Violation
from .world import twin_pieces


@dataclass(frozen=True)
class Ply:
    """One executed move: its plan, G-code, and what the twin saw."""

    number: int
    """Counts from 1."""
    uci: str
    san: str
    plan: Plan
    lines: tuple[str, ...]
    seconds: float
    """Machine time measured by the twin."""
    bound_seconds: float
    """The straight-line bound for the same relocations (see :func:`straight_line_bound`)."""
    planning_s: float
    """CPU time spent planning."""
    violations: tuple[Violation, ...]
    tidy: Plan | None = None
    """The tidying after the move (parked pieces on to their zones), None when there was none."""
    tidy_lines: tuple[str, ...] = ()
    """Its program, after ``(TIDY n)``."""
    tidy_seconds: float = 0.0
    """Its machine time, measured by the twin."""


@dataclass(frozen=True)
class Work:
    """A plan carried out in the twin: its program, what the twin saw and its machine time."""

    plan: Plan
    lines: tuple[str, ...]
    seconds: float
    violations: tuple[Violation, ...]


@dataclass(frozen=True)
class Setup:
    """One executed set-up (a reset): its plan, G-code, and what the twin saw."""

    target: chess.Board
    plan: Plan
    lines: tuple[str, ...]
    seconds: float
    bound_seconds: float
    """The assignment bound (see :meth:`ResetPlanner.assignment_bound`)."""
    planning_s: float
    violations: tuple[Violation, ...]

    @property
    def pieces_moved(self) -> int:
        return len({r.piece.id for r in self.plan.relocations})


@dataclass
class GameRun:
    """A whole game on the simulated table."""

    start_board: chess.Board
    plies: list[Ply] = field(default_factory=list)
    header: tuple[str, ...] = ()
    setups: list[Setup] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        """Machine time of the moves (what the players wait for)."""
        return sum(p.seconds for p in self.plies)

    @property
    def tidy_seconds(self) -> float:
        """Machine time of the tidying after the moves (done while the next player thinks)."""
        return sum(p.tidy_seconds for p in self.plies)

    @property
    def violations(self) -> list[Violation]:
        return [v for p in self.plies for v in p.violations]

    def program_lines(self) -> Iterator[str]:
        yield from self.header
        for ply in self.plies:
            yield from ply.lines
            yield from ply.tidy_lines
        for setup in self.setups:
            yield from setup.lines


#: Called after each relocation the twin has executed: index (from 0), count, the relocation.
StepHook = Callable[[int, int, Relocation], None]


class TableSimulator:
    """The simulated table in one game: physical state, planner, G-code writer and twin, in step.

    ``table`` (optional) is the physical state to start from, e.g. one saved after an earlier session;
    by default the table is set up for ``board``.
    """

    def __init__(
        self,
        layout: Layout,
        board: chess.Board,
        table: Table | None = None,
        start_mm: MachinePoint | None = None,
    ) -> None:
        self.layout = layout
        self.board = board.copy()
        self.table = Table.from_board(layout, self.board) if table is None else table.copy()
        self.start_table = self.table.copy()
        self.planner = Planner(layout)
        self.resetter = ResetPlanner(self.planner)
        self.writer = ProgramWriter(layout, start_mm)
        self.twin = Twin(
            twin_pieces(self.table),
            clearance_mm=layout.clearance_mm,
            envelope_mm=layout.envelope_mm,
            profile=layout.profile,
            magnet=layout.magnet.method,
            start_mm=self.writer.position,
        )
        self.header = tuple(self.writer.header())
        self.twin.run(self.header, finish=False)
        self.plies_played = 0
        self.on_step: StepHook | None = None

    def _run_plan(self, title: str, plan: Plan) -> tuple[list[str], list[Violation], float]:
        """Write and execute a plan one relocation at a time (so watchers see progress)."""
        lines = [comment(title)]
        violations: list[Violation] = []
        before = self.twin.seconds
        violations += self.twin.run(lines, finish=False).violations
        count = len(plan.relocations)
        for index, relocation in enumerate(plan.relocations):
            chunk = self.writer.relocation(relocation)
            violations += self.twin.run(chunk, finish=True).violations
            lines += chunk
            if self.on_step is not None:
                self.on_step(index, count, relocation)
        return lines, violations, self.twin.seconds - before

    def play(self, move: chess.Move, *, tidy: bool = True) -> Ply:
        """Plan, write and execute one legal move as the robot's reply, then (``tidy``) the tidying of
        what it parked; the twin's findings are in the result."""
        started = time.process_time()
        plan = self.planner.plan_reply(self.table, self.board, move, at=self.writer.position)
        planning_s = time.process_time() - started
        self.plies_played += 1
        uci, san = self.board.uci(move), self.board.san(move)
        lines, violations, seconds = self._run_plan(f"MOVE {self.plies_played} {uci}", plan)
        plan.apply(self.table)
        self.board.push(move)
        self.table.check_matches(self.board)
        violations += self.compare_twin()
        bound = straight_line_bound(plan, self.planner.timer)
        ply = Ply(
            self.plies_played, uci, san, plan, tuple(lines), seconds, bound, planning_s, tuple(violations)
        )
        if not tidy or not self.table.parked():
            return ply
        started = time.process_time()
        tidying = plan_tidy(self.planner, self.table.copy(), self.writer.position)
        planning_s += time.process_time() - started
        work = self.run(tidying, f"TIDY {self.plies_played}")
        return replace(
            ply,
            planning_s=planning_s,
            violations=ply.violations + work.violations,
            tidy=tidying,
            tidy_lines=work.lines,
            tidy_seconds=work.seconds,
        )

    def tidy_step(self, number: int | None = None) -> Work | None:
        """One small step of tidying (:func:`~chessatron.planning.tidy.next_tidy`) after move ``number``
        (default: the last one played), run in the twin; None when nothing is parked."""
        plan = next_tidy(self.planner, self.table, self.writer.position)
        if plan is None:
            return None
        return self.run(plan, f"TIDY {self.plies_played if number is None else number}")

    def run(self, plan: Plan, title: str) -> Work:
        """Write and execute any plan made for this table (a set-up cut short, a step of tidying) after
        ``(title)``; the table follows it and the twin is compared with it."""
        lines, violations, seconds = self._run_plan(title, plan)
        plan.apply(self.table)
        violations += self.compare_twin()
        return Work(plan, tuple(lines), seconds, tuple(violations))

    def set_up(self, target: chess.Board, title: str = "RESET") -> Setup:
        """Reset the table to ``target``'s arrangement (reserve refilled, zones holding the rest) and
        make it the game position. The plan is checked in the twin like a move."""
        started = time.process_time()
        bound = self.resetter.assignment_bound(self.table, target)
        plan = self.resetter.plan(self.table, target, at=self.writer.position)
        planning_s = time.process_time() - started
        lines, violations, seconds = self._run_plan(title, plan)
        plan.apply(self.table)
        self.board = target.copy()
        self.plies_played = 0
        violations += self.compare_twin()
        violations += [Violation(0, "position", text) for text in arrangement_problems(self.table, target)]
        return Setup(target.copy(), plan, tuple(lines), seconds, bound, planning_s, tuple(violations))

    def compare_twin(self) -> list[Violation]:
        """Where the twin's pieces are not where the physical state says."""
        found = []
        pieces = self.twin.pieces
        for piece in self.table:
            expected = self.layout.node_mm(self.table.node_of(piece.id))
            actual = pieces.get(piece.id)
            if actual is None:
                found.append(
                    Violation(0, "position", _("piece {id!r} vanished from the twin").format(id=piece.id))
                )
            elif math.dist(expected, (actual.x, actual.y)) > 0.01:
                found.append(
                    Violation(
                        0,
                        "position",
                        _("{id} ({symbol}) is at {actual} in the twin but should be at {expected!r}").format(
                            id=piece.id,
                            symbol=piece.symbol,
                            actual=f"({actual.x:.3f}, {actual.y:.3f})",
                            expected=expected,
                        ),
                    )
                )
        if len(pieces) != len(self.table):
            text = ngettext(
                "the twin holds {count} piece, not {wanted}",
                "the twin holds {count} pieces, not {wanted}",
                len(pieces),
            )
            found.append(Violation(0, "position", text.format(count=len(pieces), wanted=len(self.table))))
        return found


def layout_document(layout: Layout, table: Table) -> dict[str, Any]:
    """The LAYOUT.json contract: square centres and every piece's place, in machine millimetres."""
    squares = {chess.square_name(s): list(layout.node_mm(layout.square_node(s))) for s in chess.SQUARES}
    pieces = []
    for piece in sorted(table, key=lambda p: p.id):
        x, y = layout.node_mm(table.node_of(piece.id))
        pieces.append({"piece": piece.symbol, "x": x, "y": y})
    return {"units": "mm", "clearance": layout.clearance_mm, "squares": squares, "pieces": pieces}


def read_game(path: str | Path, index: int = 1) -> chess.pgn.Game:
    """The ``index``-th game (from 1) of a PGN file; raises :class:`GameFileError` with the reason."""
    return parse_game(files.read_text(path, files.PGN), index, source=repr(str(path)))


def parse_game(text: str, index: int = 1, source: str | None = None) -> chess.pgn.Game:
    """The ``index``-th game (from 1) of PGN ``text``; :class:`GameFileError` names the wrong move (and
    ``source``, what the text is called: "the PGN" unless it says)."""
    source = _("the PGN") if source is None else source
    games = read_games(text)
    found = None
    for _number in range(index):
        found = next(games, None)
        if found is None:
            raise GameFileError(
                ngettext(
                    "{source} has fewer than {count} game", "{source} has fewer than {count} games", index
                ).format(source=source, count=index)
            )
    assert found is not None
    game, problem = found
    # blanks on one line only: "\s*" would run on over every following line, from each line's start
    if game.next() is None and not re.search(r"^[^\S\n]*+\[", text, flags=re.MULTILINE):
        text = (
            _("{source} holds no tags and no moves ({problem}); is it a PGN file?")
            if problem is not None
            else _("{source} holds no tags and no moves; is it a PGN file?")
        )
        raise GameFileError(text.format(source=source, problem=problem))
    if problem is not None:
        raise GameFileError(f"{source}: {problem}")
    return game


def game_moves(game: chess.pgn.Game) -> tuple[chess.Board, list[chess.Move]]:
    """The start position and main-line moves of a game, checked for legality."""
    try:
        board = game.board()
    except ValueError as exc:
        raise GameFileError(_("the game's start position is invalid: {error}").format(error=exc)) from exc
    moves = list(game.mainline_moves())
    check = board.copy()
    for number, move in enumerate(moves, start=1):
        if not check.is_legal(move):
            raise GameFileError(
                _("ply {number} ({move!r}) is not legal in {fen!r}").format(
                    number=number, move=move.uci(), fen=check.fen()
                )
            )
        check.push(move)
    return board, moves


def simulate_game(
    layout: Layout, board: chess.Board, moves: list[chess.Move]
) -> tuple[TableSimulator, GameRun]:
    """Play a whole game on a fresh simulated table."""
    sim = TableSimulator(layout, board)
    run = GameRun(board.copy(), header=sim.header)
    for move in moves:
        run.plies.append(sim.play(move))
    return sim, run


def straight_line_bound(plan: Plan, timer: Timer) -> float:
    """The time the move would take if each piece the plan moves went once, in a straight line, from
    where it starts to where it ends (in the plan's order), with straight empty travel between."""
    spans: dict[PieceId, list[Node]] = {}
    for relocation in plan.relocations:
        span = spans.setdefault(relocation.piece.id, [relocation.start, relocation.goal])
        span[1] = relocation.goal
    seconds = 0.0
    position = plan.start_mm
    for start, goal in spans.values():
        if start == goal:
            continue
        seconds += timer.travel_s(position, timer.layout.node_mm(start)) + timer.magnet_s
        seconds += timer.straight_drag_s(start, goal)
        position = timer.layout.node_mm(goal)
    return seconds
