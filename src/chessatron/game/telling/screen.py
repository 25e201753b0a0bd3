"""The terminal's picture of a game: the whole table beside the players, their clocks, the moves and the
robot.

:func:`render_view` turns a :meth:`~.live.LiveState.snapshot` (and the physical table with the drags under
way, :meth:`~.live.LiveState.table`) into one rich renderable; it is pure, so tests print it to a recording
console. :class:`~.view.PlayView` shows it live on a terminal.

>>> import io
>>> from .live import LiveState
>>> live = LiveState(Layout.default())
>>> live.show_board(chess.Board(), players=("keyboard", "engine:5"))
>>> live.show_table(Table.from_board(live.layout, chess.Board()))
>>> console = Console(width=80, file=io.StringIO(), record=True)
>>> console.print(render_view(live.snapshot(), *live.table(), width=80))
>>> "White to move" in console.export_text()
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

import chess
from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table as RichTable
from rich.text import Text

from ...i18n import _
from ...i18n.formats import decimal
from ...i18n.notation import san_in
from ...planning.layout import Layout, Node
from ...planning.planner import Relocation
from ...planning.table import Table
from ...render import table_text
from ..clock import format_clock
from .events import move_label, result_line
from .names import colour_word
from .words import countdown_words, drag_words, work_words

__all__ = ["engine_view_shown", "render_view"]

#: A clock with less time than this shows in red.
LOW_TIME_MS: Final = 20_000
#: Full moves (numbered pairs) in the move list, and notices, shown at most.
MOVES_SHOWN: Final = 10
NOTICES_SHOWN: Final = 3
#: Widths of the panel beside (or under) the table, in terminal columns.
MIN_INFO_WIDTH: Final = 34
MAX_INFO_WIDTH: Final = 64

_NOTICE_STYLE = {"warning": ("!", "yellow"), "error": ("✗", "bold red")}
#: What a console without chess glyphs (the Pi's console font) shows instead of the view's symbols.
_PLAIN_MARKS = {"▶": ">", "✗": "x", "·": "-", "→": "->"}
#: Kinds of player that are a person, and those that play with an engine's brain.
_PEOPLE = ("keyboard", "board", "web")
_ENGINES = ("engine", "hand")
#: The kinds of status (the live state's ``status_kind``, the same in every language) that the line saying
#: what the robot does already says.
_ROBOT_KINDS = frozenset({"robot moving", "idle", "setting up"})
#: GRBL states worth a line of their own: the machine is not simply idle or running.
_MACHINE_TROUBLE = ("alarm", "door", "hold", "sleep")
#: The magnet carries the drag's piece while the gantry is this close to the drag's path (in node pitches,
#: half a square being one): it picked the piece up at the path's start and sets it down at its end.
ON_PATH_NODES: Final = 0.35


# --- the picture -----------------------------------------------------------------------------------


def render_view(
    snapshot: Mapping[str, Any],
    table: Table | None,
    paths: Sequence[Relocation] = (),
    *,
    width: int,
    engine: bool = False,
    letters: bool = False,
    title: str | None = None,
    extra: Sequence[RenderableType] = (),
    marked: Sequence[str] = (),
) -> RenderableType:
    """The game as a player at the terminal sees it, fitted to ``width`` columns.

    ``snapshot`` is a :meth:`LiveState.snapshot`; ``table`` and ``paths`` come from
    :meth:`LiveState.table` (the physical table, None before it is known, and the drags of the robot work
    under way). The table picture shows the gantry bracketed and the drag under way in green (or, while
    the robot rests, the last move); beside it (under it below :data:`MIN_INFO_WIDTH` spare columns) a
    panel shows the players with their clocks, whose move it is (or what the robot is doing) or the
    result, CHECK, the last moves, the engine's evaluation (:func:`engine_view_shown`: not while a person
    plays the engine, unless ``engine`` asks for it), the robot's progress, what the buttons' display
    says, the status and the last notices. ``letters``: FEN letters and ASCII marks instead of chess
    glyphs, for a console font without them (:func:`wants_letters`).

    What else is played on the table (a puzzle, :mod:`chessatron.training.terminal`) gives the panel its
    ``title`` and ``extra`` rows at its top, and ``marked`` squares (names: ``"g6"``) stand out on the
    table instead of the last move (a hint's).
    """
    frame = box.SQUARE if letters else box.ROUNDED
    picture = Panel(
        _picture(snapshot, table, paths, letters, marked),
        # TRANSLATORS: the title of the terminal's picture of the table
        title=_("chessatron table"),
        # TRANSLATORS: under the picture: the brackets mark where the magnet is
        subtitle=_("[ ] the magnet") if table is not None else None,
        expand=False,
        padding=(0, 1),
        box=frame,
    )
    table_width = _picture_width(table) + 4
    shown = engine_view_shown(snapshot, asked=engine)
    if width >= table_width + 1 + MIN_INFO_WIDTH:
        info_width = min(width - table_width - 1, MAX_INFO_WIDTH)
        side = RichTable.grid(padding=(0, 1))
        side.add_row(picture, _info(snapshot, table, paths, info_width, shown, letters, title, extra))
        return side
    info = _info(snapshot, table, paths, min(width, MAX_INFO_WIDTH), shown, letters, title, extra)
    return Group(picture, info)


def engine_view_shown(snapshot: Mapping[str, Any], *, asked: bool = False) -> bool:
    """Whether the engine's evaluation and line may show: always when ``asked`` (``play --show-engine``),
    and otherwise unless a person (``keyboard``, ``board``, ``web``) plays an engine (``engine``, or a
    simulated ``hand`` with an engine's brain): its line would start with the person's best move, a free
    hint. (A hint the person asks for, ``hint``, shows as a hint, not as the engine's view.)

    >>> game = {"white": "keyboard", "black": "engine:5", "result": None}
    >>> engine_view_shown({"game": game}), engine_view_shown({"game": game}, asked=True)
    (False, True)
    >>> engine_view_shown({"game": {**game, "black": "keyboard"}})
    True
    """
    game = snapshot.get("game")
    if asked or not game or game.get("result") is not None:
        return True
    kinds = [str(game.get(side) or "").split(":", 1)[0] for side in ("white", "black")]
    against = any(kind in _PEOPLE for kind in kinds) and any(kind in _ENGINES for kind in kinds)
    return not against


def _plain(text: str, letters: bool) -> str:
    """``text`` with the view's marks made ASCII when ``letters``."""
    if letters:
        for mark, plain in _PLAIN_MARKS.items():
            text = text.replace(mark, plain)
    return text


def _picture_width(table: Table | None) -> int:
    return 3 + 3 * table.layout.columns if table is not None else MIN_INFO_WIDTH


def _picture(
    snapshot: Mapping[str, Any],
    table: Table | None,
    paths: Sequence[Relocation],
    letters: bool = False,
    marked: Sequence[str] = (),
) -> Text:
    if table is None:
        return Text(_("the table is not known yet"), style="dim")
    layout = table.layout
    gantry = snapshot.get("gantry") or {}
    gantry_node = layout.nearest_node((gantry["x"], gantry["y"])) if "x" in gantry else None
    path: Sequence[Node] = [layout.nearest_node((x, y)) for x, y in gantry.get("path") or ()]
    if not path:
        drag = _current_drag(gantry.get("work"), paths)
        path = drag.path if drag is not None else ()
    highlight: Sequence[Node] = ()
    if marked:
        highlight = [layout.square_node(chess.parse_square(name)) for name in marked]
    elif not path:
        highlight = _last_move_nodes(layout, snapshot.get("game"))
    carried = carried_piece(layout, gantry, paths)
    riding = None
    if carried is not None and gantry_node is not None:
        # the piece rides with the magnet: drawn where the gantry is, not still on the square it left
        drawn = table.copy()
        if drawn.piece_at(gantry_node) in (None, drawn.piece(carried.piece.id)):
            drawn.relocate(carried.piece.id, gantry_node)
            table, riding = drawn, carried.piece.id
    return table_text(
        table, gantry_node=gantry_node, path=path, highlight=highlight, letters=letters, carried=riding
    )


def carried_piece(
    layout: Layout, gantry: Mapping[str, Any], paths: Sequence[Relocation]
) -> Relocation | None:
    """The drag whose piece the magnet carries now: the drag under way (by ``gantry["work"]``) once the
    gantry has left its start along its path (within :data:`ON_PATH_NODES` of it); None while the robot
    rests, travels with an empty magnet, or stands at the start (the piece is drawn there anyway).

    >>> from chessatron.planning.planner import Planner
    >>> layout = Layout.default()
    >>> table = Table.from_board(layout, chess.Board())
    >>> drag = Planner(layout).plan_move(table, chess.Board(), chess.Move.from_uci("g1f3")).relocations[0]
    >>> halfway = layout.node_mm(drag.path[len(drag.path) // 2])
    >>> work = {"title": "MOVE 1 g1f3", "index": 0, "of": 1}
    >>> carried_piece(layout, {"x": halfway[0], "y": halfway[1], "work": work}, [drag]) is drag
    True
    >>> home = layout.home_mm
    >>> carried_piece(layout, {"x": home[0], "y": home[1], "work": work}, [drag]) is None
    True
    """
    drag = _current_drag(gantry.get("work"), paths)
    if drag is None or "x" not in gantry:
        return None
    tx, ty = layout.machine_to_table((float(gantry["x"]), float(gantry["y"])))
    point = (tx / layout.pitch_mm, ty / layout.pitch_mm)
    if math.dist(point, drag.path[0]) <= ON_PATH_NODES:
        return None
    near = any(_to_segment(point, a, b) <= ON_PATH_NODES for a, b in itertools.pairwise(drag.path))
    return drag if near else None


def _to_segment(point: tuple[float, float], a: Node, b: Node) -> float:
    """How far ``point`` lies from the segment from ``a`` to ``b`` (in node pitches)."""
    (px, py), (ax, ay), (bx, by) = point, a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length))
    return math.dist(point, (ax + t * dx, ay + t * dy))


def _current_drag(work: Mapping[str, Any] | None, paths: Sequence[Relocation]) -> Relocation | None:
    """The drag under way (or next) by the robot's work counter: ``index`` drags of ``of`` are done."""
    if not work or not paths:
        return None
    index = int(work.get("index", 0))
    return paths[index] if 0 <= index < len(paths) else None


def _last_move_nodes(layout: Layout, game: Mapping[str, Any] | None) -> tuple[Node, ...]:
    if not game or not game.get("lastmove"):
        return ()
    try:
        move = chess.Move.from_uci(game["lastmove"])
    except ValueError:
        return ()
    return (layout.square_node(move.from_square), layout.square_node(move.to_square))


# --- the panel -------------------------------------------------------------------------------------


def _info(
    snapshot: Mapping[str, Any],
    table: Table | None,
    paths: Sequence[Relocation],
    width: int,
    engine_shown: bool = True,
    letters: bool = False,
    title: str | None = None,
    extra: Sequence[RenderableType] = (),
) -> Panel:
    inner = max(width - 4, 10)
    game = snapshot.get("game")
    clock = snapshot.get("clock")
    gantry = snapshot.get("gantry") or {}
    work = gantry.get("work")
    # the robot carrying out a move: nobody's turn yet (the clocks stand still)
    moving = bool(work) and game is not None and game.get("result") is None
    rows: list[RenderableType] = [*extra, _players(game, clock, marked=not moving, letters=letters)]
    verdict = Text(work_words(work or {}, game).headline, style="bold cyan") if moving else _verdict(game)
    rows.append(verdict)
    evaluation = snapshot.get("evaluation")
    if evaluation and engine_shown:
        rows.append(_evaluation(evaluation))
    rows.extend(_move_lines(game, inner))
    if work:
        rows.extend(_work(work, game, table, paths, letters))
    state = str(gantry.get("state") or "")
    if state.lower().startswith(_MACHINE_TROUBLE):
        # TRANSLATORS: {state}: the machine's state as its firmware names it (Alarm, Door, Hold)
        rows.append(Text(_("machine: {state}").format(state=state), style="bold red"))
    hint = snapshot.get("hint")
    if hint and hint.get("san"):
        rows.append(Text(_("hint: {move}").format(move=san_in(str(hint["san"]))), style="cyan"))
    cursor = snapshot.get("cursor")
    if cursor:
        # what a display beside the board shows while the buttons are used (their cursor is on the LEDs)
        lines = [str(line) for line in cursor.get("lines") or () if line]
        # TRANSLATORS: {lines}: what the buttons' display shows
        rows.append(Text(_("buttons: {lines}").format(lines=" · ".join(lines)), style="magenta"))
    status = str(snapshot.get("status") or "")
    if status and not _said(status, snapshot.get("status_kind"), verdict.plain, game, robot=bool(work)):
        rows.append(Text(status, style="bold"))
    notices = (snapshot.get("notices") or [])[-NOTICES_SHOWN:]
    if notices:
        rows.append(_notices(notices, letters))
    subtitle = None
    if clock and clock.get("control"):
        # TRANSLATORS: the clock's time control (5+3)
        subtitle = _("clock {control}").format(control=clock["control"])
    frame = box.SQUARE if letters else box.ROUNDED
    # the start a Chess960 game began from, which its players set their pieces by (and may ask for again)
    number = game.get("chess960") if game else None
    if title is None:
        # TRANSLATORS: the title of the terminal's panel of the game; {number}: its Chess960 start
        title = _("game") if number is None else _("game: Chess960 #{number}").format(number=number)
    return Panel(Group(*rows), title=title, subtitle=subtitle, width=width, padding=(0, 1), box=frame)


def _notices(notices: Sequence[Mapping[str, Any]], letters: bool = False) -> RichTable:
    """The newest notices, warnings in yellow and errors in red, long ones wrapped under themselves."""
    grid = RichTable.grid(padding=(0, 1))
    grid.add_column(width=1, no_wrap=True)
    grid.add_column(ratio=1)
    for notice in notices:
        mark, style = _NOTICE_STYLE.get(str(notice.get("level")), ("·", "dim"))
        message = _plain(str(notice.get("message")), letters)
        grid.add_row(Text(_plain(mark, letters), style=style), Text(message, style=style))
    return grid


def _players(
    game: Mapping[str, Any] | None,
    clock: Mapping[str, Any] | None,
    *,
    marked: bool = True,
    letters: bool = False,
) -> RichTable:
    grid = RichTable.grid(padding=(0, 1), expand=True)
    grid.add_column(width=1)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column(justify="right", no_wrap=True)
    playing = marked and game is not None and game.get("result") is None
    for name in ("white", "black"):
        marker = _plain("▶", letters) if playing and game is not None and game.get("turn") == name else ""
        spec = str(game.get(name) or "") if game else ""
        grid.add_row(
            Text(marker, style="bold"),
            Text(colour_word(chess.WHITE if name == "white" else chess.BLACK), style="bold"),
            Text(spec, style="dim"),
            _clock_text(clock, name),
        )
    return grid


def _clock_text(clock: Mapping[str, Any] | None, name: str) -> Text:
    if not clock:
        return Text("")
    ms = int(clock.get(f"{name}_ms") or 0)
    running = clock.get("running") == name
    style = "bold red" if ms < LOW_TIME_MS else "bold"
    if running:
        style += " reverse"
    return Text(f" {format_clock(ms)} ", style=style)


def _verdict(game: Mapping[str, Any] | None) -> Text:
    """Whose move it is (and CHECK), or the result and how the game ended."""
    if game is None:
        return Text(_("no game yet"), style="dim")
    result = game.get("result")
    if result is not None:
        return Text(result_line(str(result), game.get("termination")), style="bold")
    black = str(game.get("turn", "white")).lower() == "black"
    # TRANSLATORS: whose move it is, in the terminal's panel
    text = Text(_("Black to move") if black else _("White to move"), style="bold")
    if game.get("check"):
        # TRANSLATORS: after "White to move" in the terminal's panel, in capitals
        text.append("  " + _("CHECK"), style="bold red")
    return text


def _said(
    status: str, kind: str | None, verdict: str, game: Mapping[str, Any] | None, *, robot: bool
) -> bool:
    """Whether the panel says ``status`` (of ``kind``) already: the verdict line, a finished game's status
    (its score first: the verdict names the result), or while the robot works the robot's statuses."""
    if status.lower() == verdict.lower():
        return True
    result = game.get("result") if game else None
    if result is not None and status.startswith(str(result)):
        return True
    return robot and kind in _ROBOT_KINDS


def _evaluation(evaluation: Mapping[str, Any]) -> Text:
    """``+0.35`` or ``M3`` (``-M3`` when Black mates) from White's side, the depth and the line."""
    mate, cp = evaluation.get("mate"), evaluation.get("cp")
    if mate is not None:
        score = f"{'-' if mate < 0 else ''}M{abs(mate)}"
    elif cp is not None:
        score = decimal(cp / 100, 2, signed=True)
    else:
        score = "?"
    # TRANSLATORS: the engine's evaluation, before its score (+0.35), in the terminal's panel
    text = Text(_("eval") + " ", style="dim")
    text.append(score, style="bold")
    if evaluation.get("depth"):
        # TRANSLATORS: the engine's search depth in plies
        text.append("  " + _("depth {depth}").format(depth=evaluation["depth"]), style="dim")
    if evaluation.get("pv"):
        text.append("  " + " ".join(san_in(str(san)) for san in evaluation["pv"]), style="dim")
    text.no_wrap, text.overflow = True, "ellipsis"
    return text


def _move_lines(game: Mapping[str, Any] | None, width: int) -> list[Text]:
    """The last :data:`MOVES_SHOWN` moves as numbered SAN pairs, packed into lines of ``width``."""
    if game is None:
        return []
    sans: list[str] = [san_in(str(san)) for san in game.get("san") or ()]
    if not sans:
        return [Text(_("no moves yet"), style="dim")]
    start_fen = game.get("start_fen")
    groups: list[tuple[str, list[str]]] = []  # "12." and White's move and Black's reply; "12..." alone
    for ply, san in enumerate(sans, start=1):
        label = move_label(ply, start_fen)
        if label.endswith("...") and groups:
            groups[-1][1].append(san)
        else:
            groups.append((label, [san]))
    pairs = [
        _pair(label, " ".join(moves), last=index == len(groups) - 1)
        for index, (label, moves) in enumerate(groups)
    ]
    lines: list[Text] = []
    line = Text()
    for pair in pairs[-MOVES_SHOWN:]:
        if line.plain and len(line.plain) + 2 + len(pair.plain) > width:
            lines.append(line)
            line = Text()
        if line.plain:
            line.append("  ")
        line.append_text(pair)
    lines.append(line)
    return lines


def _pair(label: str, moves: str, *, last: bool) -> Text:
    text = Text(f"{label} ", style="dim")
    text.append(moves, style="bold" if last else "")
    return text


def _work(
    work: Mapping[str, Any],
    game: Mapping[str, Any] | None,
    table: Table | None,
    paths: Sequence[Relocation],
    letters: bool = False,
) -> list[RenderableType]:
    """The robot's work: what it is doing ("9. Qe2"), a bar and ``index/of`` drags done (and for long work
    the time left, "about 2:40"), and the drag under way in words."""
    index, total = int(work.get("index") or 0), int(work.get("of") or 0)
    grid = RichTable.grid(padding=(0, 1), expand=True)
    grid.add_column(no_wrap=True, overflow="ellipsis", max_width=24)
    grid.add_column(ratio=1)
    grid.add_column(justify="right", no_wrap=True)
    done = min(index, total)
    bar: RenderableType = ProgressBar(total=max(total, 1), completed=done)
    if letters:  # the Pi's console font has no heavy line either
        bar = _ascii_bar(done, max(total, 1))
    left = countdown_words(work)
    counted = f"{index}/{total}" if left is None else f"{index}/{total}  {left}"
    grid.add_row(Text(work_words(work, game).title, style="cyan"), bar, Text(counted))
    rows: list[RenderableType] = [grid]
    drag = _current_drag(work, paths)
    if drag is not None and table is not None:
        line = f"{_plain('→', letters)} {drag_words(drag, table.layout)}"
        rows.append(Text(line, style="dim", no_wrap=True, overflow="ellipsis"))
    return rows


class _AsciiBar:
    """A progress bar of ``#`` and ``-`` that fills the width it is given."""

    def __init__(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def __rich_console__(self, console: Console, options: Any) -> Iterator[Text]:
        width = max(options.max_width, 1)
        filled = width * self.done // self.total
        yield Text("#" * filled + "-" * (width - filled), style="cyan")


def _ascii_bar(done: int, total: int) -> RenderableType:
    return _AsciiBar(done, total)
