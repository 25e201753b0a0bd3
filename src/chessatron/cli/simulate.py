"""``simulate``, ``setup``, ``demo`` and ``recognize``: the simulator's commands."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import chess
import click

from ..i18n import N_, _, formats, ngettext
from ..planning.gcode import program_text
from ..planning.targets import SetupTarget, chess960_target, parse_target
from ..render import terminal_console
from ..sim.simulate import TableSimulator, game_moves, layout_document, read_game, simulate_game
from ..sim.state import SimulatorState, default_state_path, load_state, save_state
from ..tablelock import hold_table
from .common import (
    READ_FILE,
    friendly,
    layout_option,
    load_layout,
    parse_speed,
    progress_bar,
    speed_option,
    web_server,
    write_file,
)
from .main import main


@main.command(help=N_("Play a PGN's main line on the simulated table and check it in the digital twin."))
@click.argument("game_path", metavar="GAME.pgn", type=READ_FILE)
@click.option(
    "--layout-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help=N_("Write the starting placement of every piece (JSON)."),
)
@click.option(
    "--gcode-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help=N_(
        "Write the whole game as one GRBL program (each move after (MOVE n uci), the tidying that "
        "follows it after (TIDY n))."
    ),
)
@click.option(
    "--reset",
    is_flag=True,
    help=N_("Append the reset to the game's start position after (RESET) (standard or its Chess960 start)."),
)
@click.option(
    "--reset-to",
    "reset_to",
    metavar="N",
    help=N_("Reset to Chess960 start N (518: standard); implies --reset."),
)
@click.option(
    "--reset-to-fen",
    "reset_to_fen",
    metavar="FEN",
    help=N_("Reset to any legal position; implies --reset."),
)
@click.option(
    "--game",
    "game_index",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help=N_("Which game of the file."),
)
@layout_option
@friendly
def simulate(
    game_path: Path,
    layout_out: Path | None,
    gcode_out: Path | None,
    reset: bool,
    reset_to: str | None,
    reset_to_fen: str | None,
    game_index: int,
    layout_path: Path | None,
) -> None:
    console = terminal_console()
    layout = load_layout(layout_path)
    game = read_game(game_path, game_index)
    board, moves = game_moves(game)
    target: SetupTarget | None = None
    if reset_to is not None and reset_to_fen is not None:
        raise click.UsageError(_("give --reset-to or --reset-to-fen, not both"))
    if reset_to is not None:
        if not reset_to.strip().isdigit():
            raise click.BadParameter(
                _("{text!r} is not a number from 0 to 959").format(text=reset_to), param_hint="--reset-to"
            )
        target = chess960_target(int(reset_to))
    elif reset_to_fen is not None:
        target = parse_target(reset_to_fen)
    elif reset:
        target = SetupTarget(board.copy(stack=False), _("the game's start position"))
    sim, run = simulate_game(layout, board, moves)
    if target is not None:
        run.setups.append(sim.set_up(target.board))
    if layout_out is not None:
        write_file(layout_out, json.dumps(layout_document(layout, sim.start_table), indent=2) + "\n")
    if gcode_out is not None:
        write_file(gcode_out, program_text(run.program_lines()))
    violations = run.violations + [v for setup in run.setups for v in setup.violations]
    console.print(_("plies: {count}").format(count=len(run.plies)))
    console.print(_("simulated seconds: {seconds}").format(seconds=formats.decimal(run.seconds, 1)))
    if run.tidy_seconds:
        console.print(
            _("tidying while the players think: {seconds} simulated seconds").format(
                seconds=formats.decimal(run.tidy_seconds, 1)
            )
        )
    for setup in run.setups:
        console.print(
            ngettext(
                "reset to {target}: {count} piece moved, {seconds} simulated seconds",
                "reset to {target}: {count} pieces moved, {seconds} simulated seconds",
                setup.pieces_moved,
            ).format(
                target=target.name if target else _("the start"),
                count=setup.pieces_moved,
                seconds=formats.decimal(setup.seconds, 1),
            )
        )
    if violations:
        verdict = ngettext("{count} twin violation", "{count} twin violations", len(violations))
        console.print(_("verdict: {verdict}").format(verdict=verdict.format(count=len(violations))))
    else:
        console.print(_("verdict: ok"))
    for violation in violations[:20]:
        console.print(f"  {violation.kind}: {violation.message}")
    if violations:
        sys.exit(1)


@main.command(
    help=N_(
        "Set the table up: Chess960 start N (518 is the standard one), N:M (Double Fischer Random) or a FEN."
    )
)
@click.argument("target_text", metavar="N|FEN")
@click.option(
    "--state",
    "state_path",
    type=READ_FILE,
    default=None,
    help=N_("Simulated table state file (default: $XDG_STATE_HOME/chessatron/simulator.json)."),
)
@click.option(
    "--fresh",
    is_flag=True,
    help=N_("Forget the saved table and start from a table set up as delivered."),
)
@click.option(
    "--from-game",
    type=READ_FILE,
    help=N_("First play this PGN's main line on the table (to have something to clear up)."),
)
@click.option(
    "--gcode-out", type=click.Path(path_type=Path, dir_okay=False), help=N_("Write the set-up program.")
)
@layout_option
@friendly
def setup(
    target_text: str,
    state_path: Path | None,
    fresh: bool,
    from_game: Path | None,
    gcode_out: Path | None,
    layout_path: Path | None,
) -> None:
    console = terminal_console()
    layout = load_layout(layout_path)
    target = parse_target(target_text)
    path = state_path or default_state_path()
    with hold_table("sim://", state=path):  # the simulated table: one program sets it up at a time
        state = load_state(path, layout, fresh=fresh)
        sim = TableSimulator(layout, state.board, state.table, state.gantry_mm)
        if from_game is not None:
            board, moves = game_moves(read_game(from_game))
            sim = TableSimulator(layout, board, start_mm=state.gantry_mm)
            for move in moves:
                sim.play(move)
        with progress_bar(console) as progress:
            task = progress.add_task(_("setting up {target}").format(target=target.name), total=None)

            def advance(index: int, count: int, relocation: object) -> None:
                progress.update(task, total=count, completed=index + 1)

            sim.on_step = advance
            result = sim.set_up(target.board, title="SETUP")
        save_state(path, SimulatorState(sim.table, sim.board, sim.writer.position))
    if gcode_out is not None:
        write_file(gcode_out, program_text([*sim.header, *result.lines]))
    drags = ngettext("{count} drag", "{count} drags", len(result.plan.relocations)).format(
        count=len(result.plan.relocations)
    )
    console.print(
        ngettext(
            "set up {target}: {count} piece moved ({drags}) in {seconds} simulated seconds",
            "set up {target}: {count} pieces moved ({drags}) in {seconds} simulated seconds",
            result.pieces_moved,
        ).format(
            target=target.name,
            count=result.pieces_moved,
            drags=drags,
            seconds=formats.decimal(result.seconds, 1),
        ),
        markup=False,
    )
    if result.violations:
        for violation in result.violations[:20]:
            console.print(f"  {violation.kind}: {violation.message}")
        sys.exit(1)
    console.print(_("twin: ok"))


@main.command(help=N_("Watch the robot play a showcase game on the simulator, then reset the table."))
@speed_option("demo")
@click.option(
    "--picture",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("demo-table.svg"),
    show_default=True,
    help=N_("Where to write the picture of the table and every path (an .html page goes beside it)."),
)
@click.option(
    "--no-reset", is_flag=True, help=N_("Leave the final position on the table instead of resetting.")
)
@click.option(
    "--web",
    is_flag=True,
    help=N_("Also show the demo on the web page (it only watches), on this machine at --port."),
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8960,
    show_default=True,
    help=N_("The web page's port."),
)
@click.option("--open", "open_browser", is_flag=True, help=N_("With --web: open the page in a browser."))
@layout_option
@friendly
def demo(
    speed_text: str,
    picture: Path,
    no_reset: bool,
    web: bool,
    port: int,
    open_browser: bool,
    layout_path: Path | None,
) -> None:
    from ..demo import run_demo
    from ..game.telling.live import LiveState

    speed = parse_speed(speed_text)
    layout = load_layout(layout_path)
    live = LiveState(layout) if web else None
    with contextlib.ExitStack() as stack:
        if live is not None:
            page = stack.enter_context(web_server().start_watch_page(live, port=port))
            click.echo(_("the demo on the web page: {url}").format(url=page.url))
            if open_browser:
                import webbrowser

                webbrowser.open(page.url)
        result = run_demo(
            layout, speed=speed, picture=picture, reset=not no_reset, live=live, console=terminal_console()
        )
        if live is not None and sys.stdin.isatty():
            click.echo(_("the page stays up until you press Enter"))
            with contextlib.suppress(EOFError, KeyboardInterrupt):
                input()
    if result.violations:
        sys.exit(1)


@main.command(
    help=N_(
        "Replay a sensor trace through the recognizer; print the final game's moves, one UCI move a line."
        "\n\n"
        "Between two entries, and for 15 s after the last, the board reads what it last read: a board that "
        "reports only its changes sends nothing while it stands still, and a move is committed once it has "
        "stood still long enough."
    )
)
@click.argument("trace_path", metavar="TRACE.jsonl", type=READ_FILE)
@click.option(
    "--fen",
    default=chess.STARTING_FEN,
    show_default=N_("the standard start"),
    help=N_("The position the trace starts from."),
)
@click.option("--chess960", is_flag=True, help=N_("Chess960 rules (castling king-onto-rook)."))
@click.option(
    "--settle",
    "settle_s",
    type=click.FloatRange(min=0.0),
    default=0.3,
    show_default=True,
    help=N_("Seconds the board must be still before a move is committed."),
)
@click.option("--takebacks", is_flag=True, help=N_("Recognise pieces moved back as takebacks."))
@click.option(
    "--promotion",
    type=click.Choice(["q", "r", "b", "n"]),
    default="q",
    show_default=True,
    help=N_("Promotion piece when none was chosen."),
)
@click.option("--events", is_flag=True, help=N_("Also print what the recognizer noticed (to stderr)."))
@layout_option
@friendly
def recognize(
    trace_path: Path,
    fen: str,
    chess960: bool,
    settle_s: float,
    takebacks: bool,
    promotion: str,
    events: bool,
    layout_path: Path | None,
) -> None:
    from ..recognition import Recognizer
    from ..recognition.replay import replay
    from ..sim.trace import read_trace

    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError as exc:
        raise click.BadParameter(
            _("{fen!r} is not a FEN: {reason}").format(fen=fen, reason=exc), param_hint="--fen"
        ) from None
    recognizer = Recognizer(
        board,
        settle_s=settle_s,
        takebacks=takebacks,
        promotion_default=promotion,
        layout=load_layout(layout_path),
    )
    for event in replay(recognizer, read_trace(trace_path)):
        if events:
            click.echo(f"{event}", err=True)
    moves = board.copy(stack=False)
    for move in recognizer.board.move_stack:
        click.echo(moves.uci(move))
        moves.push(move)
    if recognizer.question is not None:
        click.echo(
            _("the trace ends with a question open: {question}").format(
                question=recognizer.question.question
            ),
            err=True,
        )
