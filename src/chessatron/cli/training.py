"""``puzzles`` (puzzles on the table, imported from lichess) and ``puzzles stats``; ``puzzles mine`` and
``review``, which run Stockfish through saved games, are :mod:`.analysis`'s."""

from __future__ import annotations

import contextlib
import json
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import chess.engine
import click

from ..config import Config
from ..i18n import N_, _, formats, ngettext
from ..render import terminal_console
from .common import (
    EXIT_STOPPED,
    READ_FILE,
    config_option,
    fresh_option,
    friendly,
    parse_speed,
    progress_bar,
    sigterm_interrupts,
    speed_option,
)
from .main import main

if TYPE_CHECKING:
    from ..sim.state import TableKeeper
    from ..training.importer import ImportReport
    from ..training.store import PuzzleStore
    from ..training.table import PuzzleTable

PUZZLE_PLAYER_HELP = N_(
    "Who solves: board (a person moving the pieces, seen by the sensors), keyboard (moves typed here), "
    "buttons (a d-pad and a cursor on the LEDs), voice (moves said into the microphone), or on the "
    "simulator hand[:LEVEL] (a simulated person). On the web page: 'chessatron serve', Training."
)

store_option = click.option(
    "--store",
    "store_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help=N_(
        "The training store (default: $CHESSATRON_TRAINING or ~/.local/share/chessatron/training.sqlite3)."
    ),
)


def puzzle_store(path: Path | None, *, starter: bool = True) -> PuzzleStore:
    """The training store at ``path`` (``--store``; None: the default one)."""
    from ..training.store import PuzzleStore

    return PuzzleStore(path, starter=starter)


@main.group(
    "puzzles",
    invoke_without_command=True,
    help=N_(
        "Solve puzzles on the table: the robot sets each one up, makes the opponent's move, and answers "
        "yours; a wrong move is put back. Type 'hint' (the piece, then its square), 'solution', 'skip', "
        "'quit' or 'help'. Each puzzle's result, its time and your rating are saved."
    ),
)
@click.option("--player", "player_text", metavar="PLAYER", default=None, help=PUZZLE_PLAYER_HELP)
@click.option(
    "--count", type=click.IntRange(min=1), default=10, show_default=True, help=N_("How many puzzles.")
)
@click.option(
    "--rating",
    type=click.IntRange(400, 3500),
    default=None,
    help=N_("Puzzles near this rating (default: yours)."),
)
@click.option(
    "--theme",
    default=None,
    metavar="THEME",
    help=N_("Only puzzles of a lichess theme: fork, mateIn2, or in words: 'mate in 2'..."),
)
@click.option(
    "--opening",
    default=None,
    metavar="OPENING",
    help=N_("Only puzzles from an opening: Sicilian_Defense..."),
)
@speed_option("play")
@click.option("--seed", type=int, default=None, help=N_("Choose the puzzles reproducibly."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print events, one JSON object a line."))
@click.option(
    "--engine",
    "engine_path",
    default="stockfish",
    show_default=True,
    help=N_("UCI engine (a hand's brain)."),
)
@store_option
@fresh_option
@config_option
@click.pass_context
@friendly
@sigterm_interrupts
def puzzles(
    ctx: click.Context,
    player_text: str | None,
    count: int,
    rating: int | None,
    theme: str | None,
    opening: str | None,
    speed_text: str,
    seed: int | None,
    as_json: bool,
    engine_path: str,
    store_path: Path | None,
    fresh: bool,
    config_path: Path | None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    from ..game.players.spec import PlayerSpec
    from ..game.records.store import resolve_games_dir
    from ..game.session import Session
    from ..game.telling.live import LiveState
    from ..game.telling.view import PlayView
    from ..sim.state import default_state_path, load_state
    from ..training.store import Filters
    from ..training.table import PuzzleTable
    from ..training.terminal import (
        FINISHED,
        PuzzleLines,
        outcome_line,
        puzzle_keyboard,
        puzzle_view,
        typed_requests,
    )

    settings = Config.load(config_path)
    simulated = settings.is_simulated
    player = PlayerSpec.parse(player_text or ("hand" if simulated and _no_terminal() else "board"))
    if player_text is None and simulated and player.kind == "board":
        player = PlayerSpec.parse("keyboard")  # nobody moves the simulated table's pieces here
    store = puzzle_store(store_path)
    if theme is not None and not store.count(Filters(theme=theme)):
        theme = _theme(theme, store)  # (a typo is said before anything moves)
    speed = parse_speed(speed_text)
    state = load_state(default_state_path(), settings.layout, fresh=fresh) if simulated else None
    console = terminal_console()
    live = LiveState(settings.layout)
    view = PlayView(live, console, render=puzzle_view)
    show = not as_json and PlayView.wanted(console)  # on a terminal: the live table and the puzzle's panel
    lines = PuzzleLines(typed=player.kind == "keyboard", letters=view.letters)
    asked: list[PuzzleTable] = []  # (the table, once made: a typed 'skip' is its request)

    def emit(event: dict[str, object]) -> None:
        if as_json:
            click.echo(json.dumps(event, default=str))
        elif show:
            line = lines.line(event, live.snapshot().get("game"))
            if line is not None:
                view.print(line)  # click.echo would garble the live area
        elif event.get("event") in ("notice", "warning", "error"):
            kind = event.get("event")
            message = event.get("message")
            if kind == "warning":
                click.echo(_("warning: {message}").format(message=message))
            elif kind == "error":
                click.echo(_("error: {message}").format(message=message))
            else:
                click.echo(f"{message}")

    def say(text: str) -> None:
        (view.print if show else click.echo)(text)

    keyboard = puzzle_keyboard(view if show else None, as_json, lambda: asked[0].request("skip"))
    with (
        Session(
            settings,
            games_dir=resolve_games_dir(None),
            speed=speed,
            emit=emit,
            engine_path=engine_path,
            table=state.table if state else None,
            state_path=default_state_path() if simulated else None,  # its lock is held while connected
            live=live,
            keyboard=keyboard,
        ) as session,
        view if show else contextlib.nullcontext(),
    ):
        session.board_needs_real_sensors = True
        filters = Filters(theme=theme, opening=opening)
        table = PuzzleTable(
            session,
            store,
            player,
            filters=filters,
            rating=rating,
            rng=random.Random(seed) if seed is not None else None,
        )
        asked.append(table)
        session.check_players(player, PlayerSpec("keyboard"))  # before the machine is connected
        if simulated:
            session.checkpoint = _save_table
        if show:
            table.on_outcome = lambda outcome: view.print(outcome_line(outcome))
        elif not as_json:
            table.on_outcome = lambda outcome: click.echo(outcome.line())
        session.connect()
        try:
            with typed_requests(table, player.kind, say):
                outcomes = table.play(count)
        finally:
            if simulated:
                _save_table(session)
    solved = sum(1 for outcome in outcomes if outcome.attempt.solved)
    if not as_json:
        under_way = live.snapshot().get("training") or {}
        if under_way and under_way.get("state") not in FINISHED:
            click.echo(
                _("puzzle {puzzle} stopped before its end: not counted").format(puzzle=under_way.get("id"))
            )
        click.echo(
            ngettext(
                "{solved} of {count} solved; your puzzle rating: {rating}",
                "{solved} of {count} solved; your puzzle rating: {rating}",
                len(outcomes),
            ).format(solved=solved, count=len(outcomes), rating=store.rating())
        )


def _theme(asked: str, store: PuzzleStore) -> str:
    """The store's theme ``asked`` names (``Mate in 2`` is ``mateIn2``), or the error naming the closest."""
    from ..training.themes import resolve_theme

    return resolve_theme(asked, store.themes())


def _no_terminal() -> bool:
    return not sys.stdin.isatty()


def _save_table(session: TableKeeper) -> None:
    """The simulated table as it stands, for the next command (a puzzle is no game: no journal holds it)."""
    from ..sim.state import SimulatorState, default_state_path, save_state

    board = chess.Board(None)
    board.set_board_fen(session.table.board_fen())
    save_state(default_state_path(), SimulatorState(session.table, board, session.gantry))


@puzzles.command(
    "import",
    help=N_(
        "Import lichess's puzzle database (lichess_db_puzzle.csv, or .csv.zst as published). An import "
        "stopped (Ctrl-C) goes on where it stopped when the same file is imported again; a newer file "
        "updates the puzzles in place (ratings, popularity, plays)."
    ),
)
@click.argument("path", metavar="FILE", type=READ_FILE)
@store_option
@friendly
@sigterm_interrupts
def puzzles_import(path: Path, store_path: Path | None) -> None:
    from ..errors import PuzzleFileCutError
    from ..training.importer import ImportReport

    store = puzzle_store(store_path)
    report = store.resuming(path)
    if report is not None:
        click.echo(
            ngettext(
                "going on with the import of {file} from line {line} ({count} puzzle imported before)",
                "going on with the import of {file} from line {line} ({count} puzzles imported before)",
                report.puzzles,
            ).format(
                file=path.name, line=formats.decimal(report.resumed_at), count=formats.decimal(report.puzzles)
            )
        )
    report = report or ImportReport()
    console = terminal_console()
    try:
        with progress_bar(console) as progress:
            task = progress.add_task(_("importing {file}").format(file=path.name), total=None)

            def advance(done: int, size: int) -> None:
                progress.update(task, total=size, completed=done)

            store.import_file(path, report, progress=advance)
    except PuzzleFileCutError as exc:
        _imported(report, store.path, path, kept=True)
        said = (
            _("{problem}; importing it again goes on from line {line}").format(
                problem=exc, line=formats.decimal(report.lines)
            )
            if report.puzzles
            else str(exc)
        )
        click.echo(f"chessatron: {said}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        stopped = ngettext(
            "stopped at line {line} ({count} puzzle imported); 'chessatron puzzles import {file}' goes on "
            "from there",
            "stopped at line {line} ({count} puzzles imported); 'chessatron puzzles import {file}' goes on "
            "from there",
            report.puzzles,
        ).format(line=formats.decimal(report.lines), count=formats.decimal(report.puzzles), file=path)
        click.echo(f"chessatron: {stopped}", err=True)
        sys.exit(EXIT_STOPPED)
    _imported(report, store.path, path, kept=False)


def _imported(report: ImportReport, store: Path, path: Path, *, kept: bool) -> None:
    values = {"summary": report.summary(), "file": path.name, "store": store}
    if kept:
        said = _("kept {summary} from {file} into {store}").format(**values)
    else:
        said = _("imported {summary} from {file} into {store}").format(**values)
    if report.skipped:
        said = ngettext(
            "{said}; skipped {count} line", "{said}; skipped {count} lines", report.skipped
        ).format(said=said, count=formats.decimal(report.skipped))
    click.echo(said)
    for reason in report.reasons:
        click.echo(f"  {reason}")


@puzzles.command(
    "stats",
    help=N_(
        "Your puzzle rating, puzzles solved and failed, and what the store holds. Puzzles solved by a "
        "simulated player (hand, engine, script) are counted apart and never move your rating."
    ),
)
@store_option
@friendly
def puzzles_stats(store_path: Path | None) -> None:
    from ..training.store import Filters

    store = puzzle_store(store_path)
    attempts = store.attempts()
    solved = sum(1 for attempt in attempts if attempt.solved)
    rating = store.rating()
    click.echo(_("rating {rating} (± {deviation})").format(rating=rating, deviation=round(rating.deviation)))
    click.echo(
        ngettext(
            "{count} puzzle tried, {solved} solved, {failed} failed",
            "{count} puzzles tried, {solved} solved, {failed} failed",
            len(attempts),
        ).format(count=len(attempts), solved=solved, failed=len(attempts) - solved)
    )
    simulated = store.attempts(simulated=True)
    if simulated:
        kinds = ", ".join(sorted({attempt.player or "?" for attempt in simulated}))
        count = len(simulated)
        click.echo(
            ngettext(
                "{count} attempt by a simulated player ({kinds}) is not counted in your rating (its own: "
                "{rating})",
                "{count} attempts by a simulated player ({kinds}) are not counted in your rating (its own: "
                "{rating})",
                count,
            ).format(count=count, kinds=kinds, rating=store.rating(simulated[-1].player))
        )
    for source in ("starter", "lichess", "game"):
        count = store.count(Filters(source=source))
        click.echo(_source_line(source, count).format(count=formats.decimal(count)))
    aside = store.set_aside_count()
    if aside:
        click.echo(
            ngettext(
                "{count} puzzle set aside: found unplayable when chosen",
                "{count} puzzles set aside: found unplayable when chosen",
                aside,
            ).format(count=formats.decimal(aside))
        )
    stopped = store.stopped_import()
    if stopped is not None:
        file, line_number = stopped
        click.echo(
            _(
                "the import of {file} stopped at line {line}: 'chessatron puzzles import {file}' goes on"
            ).format(file=file, line=formats.decimal(line_number))
        )


def _source_line(source: str, count: int) -> str:
    """The line of ``puzzles stats`` for the puzzles of a source (the starter set, lichess's, your games)."""
    if source == "starter":
        return ngettext("starter: {count} puzzle", "starter: {count} puzzles", count)
    if source == "lichess":
        return ngettext("lichess: {count} puzzle", "lichess: {count} puzzles", count)
    return ngettext("game: {count} puzzle", "game: {count} puzzles", count)
