"""The ``chessatron`` command.

Every command-line contract written in an issue is kept exactly here; errors a user can cause end in a
one-line reason on stderr and a non-zero exit, never a traceback. Anything unexpected ends in one line
too, its traceback in the log file (:mod:`.logs`), or on stderr with ``--debug``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import chess
import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import __version__, logs
from .config import Config, default_config_path, default_config_text
from .errors import ChessatronError
from .gcode import program_text
from .layout import Layout
from .reset import SetupTarget, chess960_target, parse_target
from .simstate import SimulatorState, default_state_path, load_state, save_state
from .simulate import TableSimulator, game_moves, layout_document, read_game, simulate_game
from .termination import raising_on_sigterm

if TYPE_CHECKING:
    from .game.cursor import Settings
    from .game.record import Player
    from .game.store import GameSummary

P = ParamSpec("P")
R = TypeVar("R")

#: Exit status for a user error (bad file, illegal move, impossible table); 1 is a failed verdict.
EXIT_USAGE = 2
#: Exit status of a game stopped by Ctrl-C or SIGTERM: it stays saved for ``play --resume``. A typed
#: ``quit`` is no failure: 0.
EXIT_STOPPED = 130
#: Exit status after an internal error (a bug: the user sees one line, the log file the traceback).
EXIT_INTERNAL = 70


def friendly(func: Callable[P, R]) -> Callable[P, R]:
    """Turn chessatron errors into one line on stderr and a non-zero exit, and anything unexpected too:
    one line asking for a report, the traceback filed in the log (shown with ``--debug``)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ChessatronError as exc:
            click.echo(f"chessatron: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            click.echo("chessatron: interrupted", err=True)
            sys.exit(EXIT_STOPPED)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # click's own: usage errors it words itself
        except BrokenPipeError:
            # whoever read our output left (`| head`): nothing to say, and nowhere to say it
            with contextlib.suppress(OSError):
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115  # no second error at exit
            sys.exit(1)
        except Exception as exc:
            setup = logs.active()
            if setup is not None and setup.debug:
                raise
            click.echo(f"chessatron: {logs.internal_error(exc)}", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper


def sigterm_interrupts(func: Callable[P, R]) -> Callable[P, R]:
    """SIGTERM (a service stopped, a shutdown) stops the command as Ctrl-C does, at a safe point (a game
    stays saved, the magnet is released), instead of killing it in the middle of robot work."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with raising_on_sigterm(KeyboardInterrupt):
            return func(*args, **kwargs)

    return wrapper


#: A file a command reads: what is wrong with it (a folder, a device, missing) is said in one line by
#: :mod:`chessatron.files` rather than by click's usage message.
READ_FILE = click.Path(path_type=Path)


def load_layout(path: Path | None) -> Layout:
    return Layout.default() if path is None else Layout.from_toml(path)


layout_option = click.option(
    "--layout",
    "layout_path",
    type=READ_FILE,
    default=None,
    help="Table layout TOML (default: the classic 12x10 table).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="chessatron")
@click.option(
    "--debug",
    is_flag=True,
    envvar="CHESSATRON_DEBUG",
    help="Show every log record, and the traceback of an internal error, on stderr (also "
    "CHESSATRON_DEBUG=1); otherwise they go to the log file, ~/.local/state/chessatron/chessatron.log.",
)
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """chessatron: a chessboard that moves its own pieces."""
    ctx.call_on_close(logs.configure(debug=debug).close)


@main.command()
@click.argument("game_path", metavar="GAME.pgn", type=READ_FILE)
@click.option(
    "--layout-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the starting placement of every piece (JSON).",
)
@click.option(
    "--gcode-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the whole game as one GRBL program.",
)
@click.option(
    "--reset",
    is_flag=True,
    help="Append the reset to the game's start position after (RESET) (standard or its Chess960 start).",
)
@click.option(
    "--reset-to", "reset_to", metavar="N", help="Reset to Chess960 start N (518: standard); implies --reset."
)
@click.option(
    "--reset-to-fen", "reset_to_fen", metavar="FEN", help="Reset to any legal position; implies --reset."
)
@click.option(
    "--game",
    "game_index",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Which game of the file.",
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
    """Play a PGN's main line on the simulated table and check it in the digital twin."""
    console = Console(stderr=False, highlight=False)
    layout = load_layout(layout_path)
    game = read_game(game_path, game_index)
    board, moves = game_moves(game)
    target: SetupTarget | None = None
    if reset_to is not None and reset_to_fen is not None:
        raise click.UsageError("give --reset-to or --reset-to-fen, not both")
    if reset_to is not None:
        if not reset_to.strip().isdigit():
            raise click.BadParameter(f"{reset_to!r} is not a number from 0 to 959", param_hint="--reset-to")
        target = chess960_target(int(reset_to))
    elif reset_to_fen is not None:
        target = parse_target(reset_to_fen)
    elif reset:
        target = SetupTarget(board.copy(stack=False), "the game's start position")
    sim, run = simulate_game(layout, board, moves)
    if target is not None:
        run.setups.append(sim.set_up(target.board))
    if layout_out is not None:
        _write(layout_out, json.dumps(layout_document(layout, sim.start_table), indent=2) + "\n")
    if gcode_out is not None:
        _write(gcode_out, program_text(run.program_lines()))
    violations = run.violations + [v for setup in run.setups for v in setup.violations]
    verdict = "ok" if not violations else f"{len(violations)} twin violations"
    console.print(f"plies: {len(run.plies)}")
    console.print(f"simulated seconds: {run.seconds:.1f}")
    for setup in run.setups:
        console.print(
            f"reset to {target.name if target else 'the start'}: {setup.pieces_moved} pieces moved, "
            f"{setup.seconds:.1f} simulated seconds"
        )
    console.print(f"verdict: {verdict}")
    for violation in violations[:20]:
        console.print(f"  {violation.kind}: {violation.message}")
    if violations:
        sys.exit(1)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ChessatronError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc


@main.command()
@click.argument("target_text", metavar="N|FEN")
@click.option(
    "--state",
    "state_path",
    type=READ_FILE,
    default=None,
    help="Simulated table state file (default: $XDG_STATE_HOME/chessatron/simulator.json).",
)
@click.option(
    "--fresh", is_flag=True, help="Forget the saved table and start from a table set up as delivered."
)
@click.option(
    "--from-game",
    type=READ_FILE,
    help="First play this PGN's main line on the table (to have something to clear up).",
)
@click.option(
    "--gcode-out", type=click.Path(path_type=Path, dir_okay=False), help="Write the set-up program."
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
    """Set the table up: Chess960 start N (518 is the standard one), N:M (Double Fischer Random) or a FEN."""
    console = Console(highlight=False)
    layout = load_layout(layout_path)
    target = parse_target(target_text)
    path = state_path or default_state_path()
    state = load_state(path, layout, fresh=fresh)
    sim = TableSimulator(layout, state.board, state.table, state.gantry_mm)
    if from_game is not None:
        board, moves = game_moves(read_game(from_game))
        sim = TableSimulator(layout, board, start_mm=state.gantry_mm)
        for move in moves:
            sim.play(move)
    with _progress(console) as progress:
        task = progress.add_task(f"setting up {target.name}", total=None)

        def advance(index: int, count: int, relocation: object) -> None:
            progress.update(task, total=count, completed=index + 1)

        sim.on_step = advance
        result = sim.set_up(target.board, title="SETUP")
    save_state(path, SimulatorState(sim.table, sim.board, sim.writer.position))
    if gcode_out is not None:
        _write(gcode_out, program_text([*sim.header, *result.lines]))
    console.print(
        f"set up {target.name}: {result.pieces_moved} pieces moved "
        f"({len(result.plan.relocations)} drags) in {result.seconds:.1f} simulated seconds"
    )
    if result.violations:
        for violation in result.violations[:20]:
            console.print(f"  {violation.kind}: {violation.message}")
        sys.exit(1)
    console.print("twin: ok")


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def parse_speed(text: str) -> float | None:
    """``--speed``: a positive factor, or ``max`` (None) for as fast as the host allows."""
    if text.strip().lower() == "max":
        return None
    try:
        factor = float(text)
    except ValueError:
        factor = float("nan")
    if not factor > 0 or factor == float("inf"):
        raise click.BadParameter(f"{text!r} is not a positive factor or 'max'", param_hint="--speed")
    return factor


@main.command()
@click.option(
    "--speed",
    "speed_text",
    metavar="FACTOR|max",
    default="8",
    show_default=True,
    help="Machine time runs this many times faster (or 'max').",
)
@click.option(
    "--picture",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("demo-table.svg"),
    show_default=True,
    help="Where to write the picture of the table and every path (an .html page goes beside it).",
)
@click.option("--no-reset", is_flag=True, help="Leave the final position on the table instead of resetting.")
@click.option(
    "--web",
    is_flag=True,
    help="Also show the demo on the web page (it only watches), on this machine at --port.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8960, show_default=True, help="The web page's port."
)
@click.option("--open", "open_browser", is_flag=True, help="With --web: open the page in a browser.")
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
    """Watch the robot play a showcase game on the simulator, then reset the table."""
    from .demo import run_demo
    from .live import LiveState

    speed = parse_speed(speed_text)
    layout = load_layout(layout_path)
    live = LiveState(layout) if web else None
    with contextlib.ExitStack() as stack:
        if live is not None:
            page = stack.enter_context(_web_server().start_watch_page(live, port=port))
            click.echo(f"the demo on the web page: {page.url}")
            if open_browser:
                import webbrowser

                webbrowser.open(page.url)
        result = run_demo(layout, speed=speed, picture=picture, reset=not no_reset, live=live)
        if live is not None and sys.stdin.isatty():
            click.echo("the page stays up until you press Enter")
            with contextlib.suppress(EOFError, KeyboardInterrupt):
                input()
    if result.violations:
        sys.exit(1)


config_option = click.option(
    "--config",
    "config_path",
    type=READ_FILE,
    default=None,
    help="Machine config TOML (default: $CHESSATRON_CONFIG or ~/.config/chessatron/chessatron.toml).",
)


fresh_option = click.option(
    "--fresh",
    is_flag=True,
    help="On the simulator: forget the saved table and start from a table set up as delivered.",
)


@main.group()
def config() -> None:
    """Check, show or create the machine config."""


@config.command("check")
@click.argument("path", type=READ_FILE, required=False)
@friendly
def config_check(path: Path | None) -> None:
    """Validate a config file (and its layout); name the first problem plainly."""
    loaded = Config.load(path)
    click.echo(f"config ok: {loaded.source}")
    for line in loaded.summary():
        click.echo(f"  {line}")


@config.command("init")
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False), required=False)
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@friendly
def config_init(path: Path | None, force: bool) -> None:
    """Write the commented default config (every device simulated)."""
    target = path or default_config_path()
    if target.exists() and not force:
        raise ChessatronError(f"{str(target)!r} exists already; pass --force to overwrite it")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ChessatronError(f"cannot create {str(target.parent)!r}: {exc.strerror or exc}") from exc
    _write(target, default_config_text())
    click.echo(f"wrote {target}")


@config.command("grbl-settings")
@layout_option
@friendly
def config_grbl_settings(layout_path: Path | None) -> None:
    """Print the GRBL $ settings the table needs, one line each with its meaning (the layout: --layout,
    else the machine config's); send them to GRBL, e.g. with `chessatron run FILE --no-home`."""
    from .grbl.settings import settings_program

    layout = load_layout(layout_path) if layout_path is not None else Config.load().layout
    for line in settings_program(layout):
        click.echo(line)


@main.command()
@click.argument("trace_path", metavar="TRACE.jsonl", type=READ_FILE)
@click.option(
    "--fen",
    default=chess.STARTING_FEN,
    show_default="the standard start",
    help="The position the trace starts from.",
)
@click.option("--chess960", is_flag=True, help="Chess960 rules (castling king-onto-rook).")
@click.option(
    "--settle",
    "settle_s",
    type=click.FloatRange(min=0.0),
    default=0.3,
    show_default=True,
    help="Seconds the board must be still before a move is committed.",
)
@click.option("--takebacks", is_flag=True, help="Recognise pieces moved back as takebacks.")
@click.option(
    "--promotion",
    type=click.Choice(["q", "r", "b", "n"]),
    default="q",
    show_default=True,
    help="Promotion piece when none was chosen.",
)
@click.option("--events", is_flag=True, help="Also print what the recognizer noticed (to stderr).")
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
    """Replay a sensor trace through the recognizer; print the final game's moves, one UCI move a line."""
    from .recognition import Recognizer
    from .sim.trace import read_trace

    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError as exc:
        raise click.BadParameter(f"{fen!r} is not a FEN: {exc}", param_hint="--fen") from None
    recognizer = Recognizer(
        board,
        settle_s=settle_s,
        takebacks=takebacks,
        promotion_default=promotion,
        layout=load_layout(layout_path),
    )
    for entry in read_trace(trace_path):
        for event in recognizer.feed(entry):
            if events:
                click.echo(f"{event}", err=True)
    replay = board.copy(stack=False)
    for move in recognizer.board.move_stack:
        click.echo(replay.uci(move))
        replay.push(move)


@main.command("sim-grbl")
@click.option("--pty", "use_pty", is_flag=True, required=True, help="Serve on a pseudo-terminal (required).")
@click.option(
    "--speed", "speed_text", metavar="FACTOR|max", default="1", show_default=True, help="Machine time factor."
)
@click.option("--world", default="default", show_default=True, help="Name of the simulated table.")
@click.option("--no-homing", is_flag=True, help="Start unlocked, as GRBL with homing disabled ($22=0).")
@layout_option
@friendly
def sim_grbl(use_pty: bool, speed_text: str, world: str, no_homing: bool, layout_path: Path | None) -> None:
    """Run the simulated GRBL on a pseudo-terminal so any GRBL sender can talk to it.

    Prints the device path as its first line and serves until interrupted.
    """
    from .grbl.pty import serve_pty
    from .sim.world import get_world

    serve_pty(get_world(world, load_layout(layout_path)), speed=parse_speed(speed_text), homing=not no_homing)


@main.command()
@click.argument("program", metavar="PROGRAM.gcode", type=READ_FILE)
@click.option(
    "--port", default=None, help="GRBL's serial port or pyserial URL (default: the config's, sim://)."
)
@click.option("--no-home", is_flag=True, help="Do not home before streaming, even if homing is enabled.")
@config_option
@layout_option
@friendly
def run(
    program: Path, port: str | None, no_home: bool, config_path: Path | None, layout_path: Path | None
) -> None:
    """Stream a G-code file to the machine; exit 0 when GRBL has finished it, non-zero on error: or ALARM:."""
    from .grbl.run import run_program
    from .magnet import open_magnet

    settings = Config.load(config_path)
    layout = load_layout(layout_path) if layout_path is not None else settings.layout
    url = port or settings.urls["grbl"]
    magnet_url = settings.urls["magnet"]
    if layout.magnet.method == "servo" and not magnet_url.startswith("sim"):
        with open_magnet(magnet_url) as magnet:
            result = run_program(program, url=url, layout=layout, home=not no_home, host_magnet=magnet)
    else:
        result = run_program(program, url=url, layout=layout, home=not no_home)
    if not result.ok:
        sys.exit(1)


@main.group()
def hw() -> None:
    """Hardware tools."""


@hw.command("test")
@click.option("--yes", is_flag=True, help="Answer yes to every question (for scripts).")
@click.option(
    "--only",
    multiple=True,
    type=click.Choice(["gantry", "magnet", "leds", "sensors", "display", "buzzer", "buttons"]),
)
@click.option(
    "--seconds",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help="How long to show the sensors live.",
)
@config_option
@friendly
def hw_test(yes: bool, only: tuple[str, ...], seconds: float, config_path: Path | None) -> None:
    """Walk through the build: GRBL and homing, the magnet to each corner, LEDs, sensors, display, buzzer,
    buttons."""
    from .hwtest import hardware_test

    settings = Config.load(config_path)
    console = Console(highlight=False)

    def ask(question: str) -> bool:
        return yes or click.confirm(question, default=True)

    results = hardware_test(
        settings, console=console, ask=ask, sensor_seconds=seconds, only=set(only) or None
    )
    failed = [r.name for r in results if not r.ok]
    console.print(
        f"{len(results) - len(failed)} of {len(results)} steps ok"
        + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    if failed:
        sys.exit(1)


PLAYER_HELP = (
    "White's player: keyboard (moves typed here), engine[:LEVEL] (Stockfish; LEVEL a skill 0-20 or an "
    "elo like 1500elo, e.g. engine:5), buttons (a d-pad and a cursor on the LEDs: the config's [buttons]), "
    "board (a person moving the pieces on the table, seen by its "
    "sensors), script:FILE.pgn (the moves of a game file), or on the simulator hand[:LEVEL] (a simulated "
    "person moving the pieces). Players on the web page (web) play through 'chessatron serve'."
)


@main.command()
@click.option(
    "--white",
    "white_text",
    metavar="PLAYER",
    default="keyboard",
    show_default=True,
    help=PLAYER_HELP,
)
@click.option(
    "--black",
    "black_text",
    metavar="PLAYER",
    default="engine",
    show_default=True,
    help="Black's player, as for --white.",
)
@click.option(
    "--chess960",
    "chess960",
    is_flag=False,
    flag_value="random",
    default=None,
    metavar="[N|N:M]",
    help="Chess960: start N (0-959), random when no N, or N:M for Double Fischer Random.",
)
@click.option(
    "--pgn-out", type=click.Path(path_type=Path, dir_okay=False), help="Also write the finished game here."
)
@click.option("--resume", is_flag=True, help="Continue the last unfinished game after a crash or power cut.")
@click.option(
    "--speed", "speed_text", metavar="FACTOR|max", default="max", show_default=True, help="Simulator speed."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print machine-readable events, one JSON object a line."
)
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help="UCI engine name or path."
)
@click.option("--games-dir", type=click.Path(path_type=Path, file_okay=False), help="Where games are saved.")
@click.option(
    "--max-plies",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many plies (the game stays open).",
)
@click.option(
    "--clock",
    "clock_text",
    metavar="MIN+INC",
    default=None,
    help="A chess clock: minutes for the game plus seconds a move (5+3, 90+30, 3m+2s, 45s+1s); "
    "a flag that falls ends the game.",
)
@click.option(
    "--games",
    "game_count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Play this many games in a row, the robot setting the table up again between them "
    "(with a keyboard player, each game ends with 'another game?').",
)
@fresh_option
@config_option
@friendly
@sigterm_interrupts
def play(
    white_text: str,
    black_text: str,
    chess960: str | None,
    pgn_out: Path | None,
    resume: bool,
    speed_text: str,
    as_json: bool,
    engine_path: str,
    games_dir: Path | None,
    max_plies: int | None,
    game_count: int,
    clock_text: str | None,
    fresh: bool,
    config_path: Path | None,
) -> None:
    """Play a game at the table: typed moves, a person at the board or the engine; the robot moves the
    pieces (on the simulator unless the config names a machine).

    Moves are typed as e2e4, Nf3, exd5, e8=Q or O-O; 'help' lists the commands (hint, takeback, draw,
    resign, quit). Every game is saved as it goes: 'chessatron games' lists them, and
    'chessatron play --resume' continues one that was stopped."""
    import random

    from .game.buttons import NewGameRequested, start_for, with_level
    from .game.clock import parse_clock
    from .game.events import describe_event, score_line, summary_line
    from .game.keyboard import KeyboardPlayer
    from .game.players import PlayerSpec
    from .game.record import GameRecord
    from .game.session import QuitRequested, Session, write_pgn
    from .game.store import latest_unfinished, resolve_games_dir
    from .game.view import PlayView
    from .live import LiveState
    from .simstate import SimulatorState, default_state_path, load_state, save_state

    settings = Config.load(config_path)
    directory = resolve_games_dir(games_dir)
    time_control = parse_clock(clock_text) if clock_text is not None else None
    speed = parse_speed(speed_text)
    console = Console(highlight=False)
    live = LiveState(settings.layout)
    view = PlayView(live, console)
    show = not as_json and PlayView.wanted(console)  # on a terminal: the live view of the whole table

    def emit(event: dict[str, object]) -> None:
        if as_json:
            click.echo(json.dumps(event, default=str))
            return
        # the live state still shows the game as it was before the event (the moves taken back...)
        line = describe_event(event, live.snapshot().get("game"))
        if line is not None:
            (view.print if show else click.echo)(line)  # click.echo would garble the live area

    if show:
        keyboard = KeyboardPlayer(view.read_line, view.print)
    elif as_json:
        # stdout carries only events: prompts and the reasons for refused input go to stderr
        keyboard = KeyboardPlayer(_prompt_on_stderr, lambda text: click.echo(text, err=True))
    else:
        keyboard = None
    simulated = settings.urls["grbl"].startswith("sim")
    state = load_state(default_state_path(), settings.layout, fresh=fresh) if simulated else None
    with (
        Session(
            settings,
            games_dir=directory,
            speed=speed,
            emit=emit,
            engine_path=engine_path,
            table=state.table if state else None,
            live=live,
            keyboard=keyboard,
        ) as session,
        view if show else contextlib.nullcontext(),
    ):
        if simulated:
            # the simulated table is saved after every robot job, so a killed process loses nothing
            def checkpoint(session: Session) -> None:
                board = session.current_board()
                if board is not None and session.table.board_fen() == board.board_fen():
                    save_state(default_state_path(), SimulatorState(session.table, board, session.gantry))

            session.checkpoint = checkpoint

        def start_position() -> chess.Board:
            if chess960 is None:
                return chess.Board()
            target = parse_target(str(random.randrange(960)) if chess960 == "random" else chess960)
            start = target.board
            start.chess960 = True
            return start

        white, black = PlayerSpec.parse(white_text), PlayerSpec.parse(black_text)
        # after a single game a person at the keyboard is asked whether to play another, after each
        ask_again = game_count == 1 and "keyboard" in (white.kind, black.kind) and not as_json
        if not resume:
            _refuse_web_players(white.kind, black.kind)
        finished: list[GameRecord] = []
        played = 0
        connected = False
        chosen: chess.Board | None = None  # the start a player with buttons chose from their menu

        def new_game_chosen(settings: Settings) -> chess.Board:
            """A player with buttons chose a new game: its start, the engine at the level chosen."""
            nonlocal white, black
            white = with_level(white, settings.level) if black.kind == "buttons" else white
            black = with_level(black, settings.level) if white.kind == "buttons" else black
            return start_for(settings)

        while True:
            if resume and not connected:
                summary = latest_unfinished(directory)
                if summary is None:
                    raise ChessatronError(
                        f"no unfinished game in {str(directory)!r} to resume; 'chessatron games' lists the "
                        "saved ones, 'chessatron play' starts a new one"
                    )
                _refuse_web_players(summary.white.kind, summary.black.kind, summary.game_id)
                journal, white, black = session.resume(summary.path)
                session.connect()
                connected = True
            else:
                start = chosen if chosen is not None else start_position()
                if not connected:
                    session.connect()
                    connected = True
                journal = session.new_game(white, black, start, time_control)  # the robot resets the table
            try:
                with journal:
                    record = session.play(journal, white, black, max_plies=max_plies)
            except NewGameRequested as wanted:
                kept = journal.state
                stopped = summary_line(
                    kept.metadata.game_id, len(kept.moves), kept.metadata.start_fen, finished=False
                )
                if not as_json:
                    (view.print if show else click.echo)(stopped)
                chosen = new_game_chosen(wanted.settings)
                continue
            except KeyboardInterrupt as stop:
                view.close()  # leave the live area before writing below it
                kept = journal.state
                stopped = summary_line(
                    kept.metadata.game_id, len(kept.moves), kept.metadata.start_fen, finished=False
                )
                click.echo(stopped, err=True)
                if isinstance(stop, QuitRequested):
                    sys.exit(0)  # asked for: no "interrupted", and no failure
                raise
            played += 1
            if simulated:
                snapshot = SimulatorState(session.table, record.board(), session.gantry)
                save_state(default_state_path(), snapshot)
            if not as_json:
                game_id = journal.state.metadata.game_id
                finished_now = record.result != "*"
                closing = summary_line(game_id, len(record.moves), record.start_fen, finished=finished_now)
                (view.print if show else click.echo)(closing)
            if record.result == "*":
                break
            finished.append(record)
            if pgn_out is not None:
                write_pgn(finished, pgn_out)
            if played < game_count:
                continue
            panel = session.button_panel() if "buttons" in (white.kind, black.kind) else None
            if panel is not None:
                # the game's over on the display and the LEDs; the next one starts from the menu
                verdict = f"{record.result} {record.termination or ''}".strip()
                wanted_next = panel.after_game(record.board(), verdict)
                if wanted_next is None:
                    break
                chosen = new_game_chosen(wanted_next)
                game_count += 1
                continue
            if ask_again and session.keyboard.confirm("Another game?"):
                game_count += 1
                continue
            break
        if len(finished) > 1 and not as_json:
            (view.print if show else click.echo)(score_line(finished, (white.spec, black.spec)))


@main.command()
@click.argument("game_ids", nargs=-1, metavar="[ID]...")
@click.option("--games-dir", type=click.Path(path_type=Path, file_okay=False), help="Where games are saved.")
@click.option("--export", is_flag=True, help="Print the games ID... as PGN, one after another.")
@click.option("--export-compact", metavar="ID", help="Write this game's compact record to --out.")
@click.option(
    "--import",
    "import_path",
    type=READ_FILE,
    help="Import a PGN (or .bin compact record).",
)
@click.option(
    "--out", type=click.Path(path_type=Path, dir_okay=False), help="Output file for --export-compact."
)
@friendly
def games(
    game_ids: tuple[str, ...],
    games_dir: Path | None,
    export: bool,
    export_compact: str | None,
    import_path: Path | None,
    out: Path | None,
) -> None:
    """List saved games; export them as PGN (games --export ID...) or compact records; import PGN or
    compact records (a game saved already is not imported again)."""
    from .game import store

    directory = store.resolve_games_dir(games_dir)
    if game_ids and not export:
        raise click.UsageError(f"to print game {game_ids[0]} as PGN, write: chessatron games --export ID...")
    if import_path is not None:
        if import_path.suffix in (".bin", ".cgr"):
            imported = store.import_compact(import_path, directory)
        else:
            imported = store.import_pgn(import_path, directory)
        stored, again = imported.stored, imported.already_saved
        click.echo(f"imported {len(stored)} game(s)" + (f": {', '.join(stored)}" if stored else ""))
        if again:
            click.echo(f"skipped {len(again)} game(s) saved already: {', '.join(again)}")
        return
    if export:
        if not game_ids:
            raise click.UsageError(
                "--export needs the ids of the games to print; 'chessatron games' lists them"
            )
        click.echo(store.export_pgn(game_ids, directory), nl=False)
        return
    if export_compact is not None:
        if out is None:
            raise click.UsageError("--export-compact needs --out FILE")
        _write_bytes(out, store.export_compact(export_compact, directory))
        return
    summaries = store.list_games(directory)
    if not summaries:
        click.echo(f"no saved games in {directory}")
        return
    for line in _games_table(summaries):
        click.echo(line)
    if any(summary.in_progress for summary in summaries):
        click.echo("chessatron play --resume continues the latest game in progress")


def _games_table(summaries: list[GameSummary]) -> list[str]:
    """The saved games, one a line under a heading, columns aligned."""
    rows = [("id", "date", "white", "black", "variant", "moves", "result")]
    for summary in summaries:
        if summary.in_progress:
            state = "in progress"
        elif summary.is_finished:
            state = f"{summary.result} {summary.termination or ''}".rstrip()
        else:
            state = "unfinished"
        date = summary.date.isoformat() if summary.date is not None else "?"
        if summary.is_journal:
            date = summary.stored.astimezone().strftime("%Y-%m-%d %H:%M")
        rows.append(
            (
                summary.game_id,
                date,
                _player_label(summary.white),
                _player_label(summary.black),
                summary.variant,
                str(summary.moves),
                state,
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(width) if column == 5 else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _player_label(player: Player) -> str:
    """How a player shows in the list: an engine with its level, else the name (``?`` when unknown)."""
    if player.kind == "engine":
        return player.spec
    if player.kind == "script":
        return "script"
    return player.name or (player.kind if player.kind != "unknown" else "?")


def _refuse_web_players(white: str, black: str, game_id: str | None = None) -> None:
    """``play`` has no web page: a web player would wait for ever."""
    if "web" not in (white, black):
        return
    if game_id is not None:
        raise ChessatronError(
            f"game {game_id!r} has a player on the web page; continue it there: run 'chessatron serve'"
        )
    raise ChessatronError(
        "a 'web' player moves on the web page, which 'chessatron play' does not serve; run "
        "'chessatron serve' and start the game on the page, or play here with keyboard or board"
    )


def _prompt_on_stderr(prompt: str) -> str | None:
    from .game.keyboard import read_stdin_line

    click.echo(prompt, err=True, nl=False)
    return read_stdin_line("")


def _write_bytes(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise ChessatronError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc


@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; any but the loopback one requires a token (printed in the link).",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8960, show_default=True, help="Port.")
@click.option(
    "--speed",
    "speed_text",
    metavar="FACTOR|max",
    default="1",
    show_default=True,
    help="Simulator speed (1: real time, so people can watch).",
)
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help="UCI engine name or path."
)
@click.option("--games-dir", type=click.Path(path_type=Path, file_okay=False), help="Where games are saved.")
@click.option(
    "--token",
    default=None,
    help="The token the page needs off the loopback address (default: a random one, kept for the next "
    "start in ~/.local/state/chessatron/web-token).",
)
@click.option(
    "--new-token",
    is_flag=True,
    help="Make a new token (the kept one otherwise stays, so that links and bookmarks keep working); "
    "pages opened with the old link are locked out.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in a browser.")
@fresh_option
@config_option
@friendly
def serve(
    host: str,
    port: int,
    speed_text: str,
    engine_path: str,
    games_dir: Path | None,
    token: str | None,
    new_token: bool,
    open_browser: bool,
    fresh: bool,
    config_path: Path | None,
) -> None:
    """The web page: watch, play and set up the table from a browser or a phone."""
    speed = parse_speed(speed_text)
    _web_server().serve(
        Config.load(config_path),
        host=host,
        port=port,
        speed=speed,
        engine_path=engine_path,
        games_dir=games_dir,
        token=token,
        new_token=new_token,
        open_browser=open_browser,
        fresh=fresh,
        show_qr=sys.stdout.isatty(),
        say=click.echo,
    )


# --- chessatron online: games on lichess, the robot moving the opponent's pieces ---------------------

ONLINE_PLAYER_HELP = (
    "Who sits at this table: board (a person moving the pieces, seen by the sensors), keyboard (moves "
    "typed here), or on the simulator hand[:LEVEL] (a simulated person); engine[:LEVEL] only for a BOT "
    "account or on a server other than lichess.org."
)


@main.group("online", invoke_without_command=True)
@click.option("--player", "player_text", metavar="PLAYER", default=None, help=ONLINE_PLAYER_HELP)
@click.option(
    "--ai", "ai_level", type=click.IntRange(1, 8), metavar="LEVEL", help="Play the lichess AI (1-8)."
)
@click.option("--challenge", "challenge_user", metavar="USER", help="Challenge USER and play them.")
@click.option("--seek", "seek_text", metavar="MIN+INC", help="Seek a rapid or classical game (10+0, 15+10).")
@click.option("--accept", is_flag=True, help="Accept the next challenge that comes in.")
@click.option("--game", "game_id", metavar="ID", help="Play (or go on with, after a crash) game ID.")
@click.option("--chess960", is_flag=True, help="Chess960 (with --accept: accept Chess960 challenges only).")
@click.option("--rated", is_flag=True, help="A rated game (a challenge or a seek).")
@click.option(
    "--color",
    type=click.Choice(["white", "black", "random"]),
    default="random",
    show_default=True,
    help="The colour to play (against the AI, in a challenge or a seek).",
)
@click.option(
    "--clock", "clock_text", metavar="MIN+INC", help="A clock for --ai or --challenge (default: none)."
)
@click.option(
    "--speed", "speed_text", metavar="FACTOR|max", default="max", show_default=True, help="Simulator speed."
)
@click.option(
    "--pgn-out", type=click.Path(path_type=Path, dir_okay=False), help="Also write the finished game here."
)
@click.option("--json", "as_json", is_flag=True, help="Print events, one JSON object a line.")
@click.option("--url", default=None, help="The server (default: the config's [lichess] url, lichess.org).")
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help="UCI engine name or path."
)
@click.option("--games-dir", type=click.Path(path_type=Path, file_okay=False), help="Where games are saved.")
@fresh_option
@config_option
@click.pass_context
@friendly
@sigterm_interrupts
def online(
    ctx: click.Context,
    player_text: str | None,
    ai_level: int | None,
    challenge_user: str | None,
    seek_text: str | None,
    accept: bool,
    game_id: str | None,
    chess960: bool,
    rated: bool,
    color: str,
    clock_text: str | None,
    speed_text: str,
    pgn_out: Path | None,
    as_json: bool,
    url: str | None,
    engine_path: str,
    games_dir: Path | None,
    fresh: bool,
    config_path: Path | None,
) -> None:
    """Play an online game on lichess (or any server that speaks its API): the person at the table plays,
    the robot carries out the opponent's moves. `chessatron online login` keeps the API token first."""
    if ctx.invoked_subcommand is not None:
        return
    if player_text is None:
        raise click.UsageError(
            "say who sits at this table with --player (board, keyboard, or hand on the simulator)"
        )
    online_command = _online_module("command")
    request = online_command.OnlineRequest(
        ai=ai_level,
        challenge=challenge_user,
        seek=seek_text,
        accept=accept,
        game=game_id,
        chess960=chess960,
        rated=rated,
        color=color,
        clock=clock_text,
    )
    online_command.run_online(
        online_command.OnlineOptions(
            player=player_text,
            request=request,
            speed=parse_speed(speed_text),
            pgn_out=pgn_out,
            as_json=as_json,
            url=url,
            engine_path=engine_path,
            games_dir=games_dir,
            fresh=fresh,
            config_path=config_path,
        )
    )


@online.command("login")
@click.option("--url", default=None, help="The server (default: the config's [lichess] url, lichess.org).")
@click.option("--token", "token_text", default=None, help="The token (default: asked for, not echoed).")
@config_option
@friendly
def online_login(url: str | None, token_text: str | None, config_path: Path | None) -> None:
    """Keep a personal API token (scope board:play, and challenge:write to challenge), readable by you
    only; $LICHESS_TOKEN is used instead when set."""
    online_command = _online_module("command")
    server = online_command.server_url(Config.load(config_path), url)
    online_command.login(server, token_text, say=click.echo)


@online.command("logout")
@click.option("--url", default=None, help="The server (default: the config's [lichess] url, lichess.org).")
@config_option
@friendly
def online_logout(url: str | None, config_path: Path | None) -> None:
    """Forget the kept API token."""
    online_command = _online_module("command")
    online_command.logout(online_command.server_url(Config.load(config_path), url), say=click.echo)


def _online_module(name: str) -> ModuleType:
    """A module of :mod:`chessatron.online`, or an error naming the extra that brings berserk."""
    import importlib

    from .errors import MissingLibraryError

    try:
        return importlib.import_module(f".online.{name}", __package__)
    except ImportError as exc:
        raise MissingLibraryError(
            f"online play needs {exc.name or 'its libraries'!r}: pip install 'chessatron[online]'"
        ) from exc


def _web_server() -> ModuleType:
    """:mod:`chessatron.web.server`, or an error naming the extra that brings its libraries."""
    from .errors import MissingLibraryError

    try:
        from .web import server
    except ImportError as exc:
        raise MissingLibraryError(
            f"the web page needs {exc.name or 'its libraries'!r}: pip install 'chessatron[web]'"
        ) from exc
    return server


if __name__ == "__main__":
    main()
