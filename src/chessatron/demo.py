"""The showcase: a short game with every kind of move, played by the robot on the simulator.

The live view shows the whole table (capture zones and reserve included), the piece being dragged along
its path, the move list, the simulated clock and progress; afterwards the robot clears the table back to
the start, and a picture of the table with every path driven is written.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import chess
from rich import box
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table as RichTable
from rich.text import Text

from .errors import ChessatronError
from .game.records.record import termination_name, termination_of
from .game.statuses import SETTING_UP
from .game.telling.live import LiveState
from .grbl.motion import Block, PlannedBlock, plan_run
from .i18n import _, ngettext, pgettext
from .i18n.formats import decimal
from .i18n.notation import san_in
from .planning.layout import Layout, MachinePoint, Node
from .planning.planner import Relocation
from .planning.table import Table
from .render import table_html, table_svg, table_text, wants_letters
from .sim.simulate import TableSimulator, game_moves, parse_game

#: Frames per second of the live view.
FPS = 20


def demo_game_text() -> str:
    return (resources.files("chessatron") / "data" / "demo.pgn").read_text(encoding="utf-8")


@dataclass
class _ViewState:
    status: str = ""
    path: tuple[Node, ...] = ()
    gantry: Node | None = None


@dataclass
class DemoResult:
    plies: int
    seconds: float
    violations: int
    picture: Path | None


#: Redraws the view while a relocation is under way, the magnet nearest to the given node.
Refresh = Callable[[Relocation, Node], None]


class Animator:
    """Replays relocations on a display copy of the table at ``speed`` times real machine time."""

    def __init__(self, layout: Layout, speed: float | None, refresh: Refresh) -> None:
        self.layout = layout
        self.speed = speed
        self.refresh = refresh

    def drag(self, shown: Table, relocation: Relocation) -> None:
        """Move the piece across ``shown`` node by node as the machine would, sleeping as it goes."""
        if self.speed is None:
            shown.relocate(relocation.piece.id, relocation.goal)
            return
        layout = self.layout
        points = [layout.node_mm(node) for node in relocation.path]
        blocks = [Block(a, b, layout.carry_feed_mm_min) for a, b in itertools.pairwise(points)]
        planned = plan_run(blocks, layout.profile)
        total = sum(p.duration_s for p in planned) + 2 * layout.magnet.settle_s
        frames = max(1, math.ceil(total / self.speed * FPS))
        for frame in range(1, frames + 1):
            t = frame / frames * total - layout.magnet.settle_s
            node = layout.nearest_node(_position_at(points, planned, t))
            if node != shown.node_of(relocation.piece.id) and shown.piece_at(node) is None:
                shown.relocate(relocation.piece.id, node)
            self.refresh(relocation, node)
            time.sleep(total / self.speed / frames)
        if shown.node_of(relocation.piece.id) != relocation.goal:
            shown.relocate(relocation.piece.id, relocation.goal)


def _position_at(points: Sequence[MachinePoint], planned: Sequence[PlannedBlock], t: float) -> MachinePoint:
    """Where the magnet is ``t`` seconds into a drag (before it: the start; after it: the end)."""
    if t <= 0 or not planned:
        return points[0]
    for block in planned:
        if t <= block.duration_s:
            return block.position_at(t)
        t -= block.duration_s
    return points[-1]


def run_demo(
    layout: Layout,
    *,
    speed: float | None,
    picture: Path | None,
    reset: bool = True,
    console: Console | None = None,
    live: LiveState | None = None,
) -> DemoResult:
    """Play the showcase game (and the reset after it) on the simulator with a live terminal view.

    ``live`` (for the web page) is kept up to date as well: the game, the table, the magnet and its path.
    """
    console = console or Console(highlight=False)
    letters = wants_letters(console)  # the Pi's console font has no chess symbols
    game = parse_game(demo_game_text(), source=_("the demo game"))
    board, moves = game_moves(game)
    sim = TableSimulator(layout, board)
    shown = sim.table.copy()
    sans: list[str] = []
    all_paths: list[Relocation] = []
    violations = 0
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    # TRANSLATORS: the demo's progress bar of the game's moves
    task = progress.add_task(pgettext("demo progress", "game"), total=len(moves))
    state = _ViewState(_(SETTING_UP))

    def view() -> Group:
        grid = table_text(shown, gantry_node=state.gantry, path=state.path, letters=letters)
        info = RichTable.grid(padding=(0, 1))
        info.add_row(Text(state.status, style="bold"))
        seconds = decimal(sim.twin.seconds, 1).rjust(7)
        # TRANSLATORS: the demo's machine time so far; {speed}: the simulator's speed (a number, or max)
        machine = _("machine time {seconds} s   (x{speed})").format(seconds=seconds, speed=speed or "max")
        info.add_row(Text(machine, style="dim"))
        info.add_row(Text(_move_list(board, sans)))
        frame = box.SQUARE if letters else box.ROUNDED
        return Group(Panel(grid, title=_("chessatron table"), expand=False, box=frame), info, progress)

    live_enabled = console.is_terminal and speed is not None
    view_live = Live(view(), console=console, refresh_per_second=FPS, transient=False, auto_refresh=False)

    def refresh(relocation: Relocation, node: Node) -> None:
        state.gantry = node
        state.path = relocation.path
        if live_enabled:
            view_live.update(view(), refresh=True)
        if live is not None:
            live.show_gantry(layout.node_mm(node), path=relocation.path, state="Run")

    def tell(status: str) -> None:
        if live is not None:
            live.show_board(sim.board, game_id="demo", players=("demo script", "demo script"))
            live.show_table(sim.table, ())
            live.update(status=status)

    animator = Animator(layout, speed if live_enabled or live is not None else None, refresh)
    tell(_(SETTING_UP))
    with view_live if live_enabled else contextlib.nullcontext():
        for move in moves:
            san = sim.board.san(move)
            number = len(sans) // 2 + 1
            state.status = f"{number}{'.' if sim.board.turn else '...'} {san_in(san)}"
            ply = sim.play(move)
            violations += len(ply.violations)
            tidying = ply.tidy.relocations if ply.tidy is not None else ()
            for relocation in (*ply.plan.relocations, *tidying):
                animator.drag(shown, relocation)
            all_paths.extend(ply.plan.relocations)
            all_paths.extend(tidying)
            shown = sim.table.copy()
            sans.append(san)
            progress.advance(task)
            tell(state.status)
            if not live_enabled:
                notes = "  " + "; ".join(ply.plan.notes) if ply.plan.notes else ""
                drags = len(ply.plan.relocations)
                # TRANSLATORS: a move of the demo without its live view; {move} is the move ("12. Qh5")
                played = ngettext(
                    "{move} {count} drag, {seconds} s machine time",
                    "{move} {count} drags, {seconds} s machine time",
                    drags,
                )
                seconds = decimal(ply.seconds, 1).rjust(5)
                console.print(
                    played.format(move=state.status.ljust(14), count=drags, seconds=seconds) + notes
                )
            else:
                view_live.update(view(), refresh=True)
        state.status = f"{game.headers.get('Result', '*')}  {_outcome_text(sim.board)}"
        tell(state.status)
        # TRANSLATORS: the title of the demo's picture; {outcome} is how the game ended
        title = _("chessatron demo: {outcome}").format(outcome=_outcome_text(sim.board))
        end_picture = table_svg(sim.table, all_paths, title=title)
        if reset:
            # TRANSLATORS: the demo's progress bar of the reset after the game
            setup_task = progress.add_task(pgettext("demo progress", "reset"), total=None)
            state.status = _("resetting the table to the start")

            def step(index: int, count: int, relocation: Relocation) -> None:
                progress.update(setup_task, total=count, completed=index + 1)
                animator.drag(shown, relocation)

            before = sim.table.copy()
            shown = before
            sim.on_step = step
            setup = sim.set_up(chess.Board())
            sim.on_step = None
            tell(_("the table is reset to the start"))
            violations += len(setup.violations)
            shown = sim.table.copy()
            if not live_enabled:
                pieces = ngettext(
                    "reset: {count} piece back in {seconds} s machine time ({drags} drags)",
                    "reset: {count} pieces back in {seconds} s machine time ({drags} drags)",
                    setup.pieces_moved,
                )
                console.print(
                    pieces.format(
                        count=setup.pieces_moved,
                        seconds=decimal(setup.seconds, 1),
                        drags=len(setup.plan.relocations),
                    )
                )
            else:
                view_live.update(view(), refresh=True)
    if picture is not None:
        try:
            picture.write_text(end_picture, encoding="utf-8")
            picture.with_suffix(".html").write_text(
                table_html(end_picture, _("chessatron demo"), sans, board.fen()), encoding="utf-8"
            )
        except OSError as exc:
            raise ChessatronError(
                _("cannot write the picture {path!r}: {reason}").format(
                    path=str(picture), reason=exc.strerror or exc
                )
            ) from exc
    seconds = decimal(sim.twin.seconds, 1)
    if violations:
        done = _("demo: {plies} plies, {seconds} s machine time, {count} twin violations")
    else:
        done = _("demo: {plies} plies, {seconds} s machine time, no twin violations")
    console.print(done.format(plies=len(moves), seconds=seconds, count=violations))
    if picture is not None:
        where = _("picture of the table and every path: {picture} (and {page})")
        console.print(where.format(picture=picture, page=picture.with_suffix(".html")))
    return DemoResult(len(moves), sim.twin.seconds, violations, picture)


def _outcome_text(board: chess.Board) -> str:
    outcome = board.outcome()
    if outcome is None:
        return termination_name(None)
    termination = termination_of(outcome)
    if outcome.winner is None:
        return termination_name(termination)
    if outcome.winner == chess.WHITE:
        # TRANSLATORS: how the demo game ended; {how} is how ("checkmate")
        return _("{how}, white wins").format(how=termination_name(termination))
    # TRANSLATORS: how the demo game ended; {how} is how ("checkmate")
    return _("{how}, black wins").format(how=termination_name(termination))


def _move_list(start: chess.Board, sans: Sequence[str], last: int = 8) -> str:
    pairs = []
    number = start.fullmove_number
    tokens = list(sans)
    if not start.turn and tokens:
        pairs.append(f"{number}... {tokens.pop(0)}")
        number += 1
    for i in range(0, len(tokens), 2):
        pairs.append(f"{number}. {' '.join(tokens[i : i + 2])}")
        number += 1
    return "  ".join(pairs[-last:])
