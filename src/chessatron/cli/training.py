"""``puzzles`` (puzzles on the table, imported from lichess, mined from your games) and ``review`` (a game
annotated by Stockfish)."""

from __future__ import annotations

import contextlib
import json
import random
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import chess.engine
import click

from ..config import Config
from ..errors import ChessatronError
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
)
from .common import write_file as write_text
from .main import main

if TYPE_CHECKING:
    from ..sim.state import TableKeeper
    from ..training.importer import ImportReport
    from ..training.store import PuzzleStore
    from ..training.table import PuzzleTable

PUZZLE_PLAYER_HELP = (
    "Who solves: board (a person moving the pieces, seen by the sensors), keyboard (moves typed here), "
    "buttons (a d-pad and a cursor on the LEDs), voice (moves said into the microphone), or on the "
    "simulator hand[:LEVEL] (a simulated person). On the web page: 'chessatron serve', Training."
)

store_option = click.option(
    "--store",
    "store_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="The training store (default: $CHESSATRON_TRAINING or ~/.local/share/chessatron/training.sqlite3).",
)


def _store(path: Path | None, *, starter: bool = True) -> PuzzleStore:
    from ..training.store import PuzzleStore

    return PuzzleStore(path, starter=starter)


@main.group("puzzles", invoke_without_command=True)
@click.option("--player", "player_text", metavar="PLAYER", default=None, help=PUZZLE_PLAYER_HELP)
@click.option("--count", type=click.IntRange(min=1), default=10, show_default=True, help="How many puzzles.")
@click.option(
    "--rating",
    type=click.IntRange(400, 3500),
    default=None,
    help="Puzzles near this rating (default: yours).",
)
@click.option(
    "--theme", default=None, metavar="THEME", help="Only puzzles of a lichess theme: fork, mateIn2..."
)
@click.option(
    "--opening", default=None, metavar="OPENING", help="Only puzzles from an opening: Sicilian_Defense..."
)
@click.option(
    "--speed", "speed_text", metavar="FACTOR|max", default="max", show_default=True, help="Simulator speed."
)
@click.option("--seed", type=int, default=None, help="Choose the puzzles reproducibly.")
@click.option("--json", "as_json", is_flag=True, help="Print events, one JSON object a line.")
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help="UCI engine (a hand's brain)."
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
    """Solve puzzles on the table: the robot sets each one up, makes the opponent's move, and answers
    yours; a wrong move is put back. Type 'hint' (the piece, then its square), 'resign' (the solution)
    or 'quit'. Each puzzle's result, its time and your rating are saved."""
    if ctx.invoked_subcommand is not None:
        return
    from ..game.players.spec import PlayerSpec
    from ..game.records.store import resolve_games_dir
    from ..game.session import Session
    from ..sim.state import default_state_path, load_state
    from ..training.store import Filters
    from ..training.table import PuzzleTable

    settings = Config.load(config_path)
    simulated = settings.is_simulated
    player = PlayerSpec.parse(player_text or ("hand" if simulated and _no_terminal() else "board"))
    if player_text is None and simulated and player.kind == "board":
        player = PlayerSpec.parse("keyboard")  # nobody moves the simulated table's pieces here
    store = _store(store_path)
    speed = parse_speed(speed_text)
    state = load_state(default_state_path(), settings.layout, fresh=fresh) if simulated else None

    def emit(event: dict[str, object]) -> None:
        if as_json:
            click.echo(json.dumps(event, default=str))
        elif event.get("event") in ("notice", "warning", "error"):
            prefix = "" if event.get("event") == "notice" else f"{event.get('event')}: "
            click.echo(f"{prefix}{event.get('message')}")

    with Session(
        settings,
        games_dir=resolve_games_dir(None),
        speed=speed,
        emit=emit,
        engine_path=engine_path,
        table=state.table if state else None,
    ) as session:
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
        session.check_players(player, PlayerSpec("keyboard"))  # before the machine is connected
        if simulated:
            session.checkpoint = _save_table
        table.on_outcome = lambda outcome: None if as_json else click.echo(outcome.line())
        session.connect()
        solved = 0
        try:
            with _typed_requests(table, player.kind):
                outcomes = table.play(count)
        finally:
            if simulated:
                _save_table(session)
        solved = sum(1 for outcome in outcomes if outcome.attempt.solved)
        if not as_json:
            click.echo(f"{solved} of {len(outcomes)} solved; your puzzle rating: {store.rating()}")


def _no_terminal() -> bool:
    return not sys.stdin.isatty()


def _save_table(session: TableKeeper) -> None:
    """The simulated table as it stands, for the next command (a puzzle is no game: no journal holds it)."""
    from ..sim.state import SimulatorState, default_state_path, save_state

    board = chess.Board(None)
    board.set_board_fen(session.table.board_fen())
    save_state(default_state_path(), SimulatorState(session.table, board, session.gantry))


@contextlib.contextmanager
def _typed_requests(table: PuzzleTable, kind: str) -> Iterator[None]:
    """A person who solves at the board (or by voice, or with buttons) may still type at this terminal:
    'hint', 'resign' (the solution) or 'quit'. (A keyboard player's own prompt takes them.)"""
    if kind == "keyboard" or not sys.stdin.isatty():
        yield
        return
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            line = sys.stdin.readline()
            if not line:
                return
            word = line.strip().lower()
            if word in ("hint", "h"):
                table.request("hint")
            elif word in ("resign", "solution", "give up"):
                table.request("give up")
            elif word in ("quit", "q", "stop"):
                table.request("stop")
                return

    threading.Thread(target=read, name="chessatron-puzzle-commands", daemon=True).start()
    try:
        yield
    finally:
        done.set()


@puzzles.command("import")
@click.argument("path", metavar="FILE", type=READ_FILE)
@store_option
@friendly
@sigterm_interrupts
def puzzles_import(path: Path, store_path: Path | None) -> None:
    """Import lichess's puzzle database (lichess_db_puzzle.csv, or .csv.zst as published). An import
    stopped (Ctrl-C) goes on where it stopped when the same file is imported again; a newer file updates
    the puzzles in place (ratings, popularity, plays)."""
    from ..errors import PuzzleFileCutError
    from ..training.importer import ImportReport

    store = _store(store_path)
    report = store.resuming(path)
    if report is not None:
        click.echo(
            f"going on with the import of {path.name} from line {report.resumed_at:,} "
            f"({report.puzzles:,} puzzles imported before)"
        )
    report = report or ImportReport()
    console = terminal_console()
    try:
        with progress_bar(console) as progress:
            task = progress.add_task(f"importing {path.name}", total=None)

            def advance(done: int, size: int) -> None:
                progress.update(task, total=size, completed=done)

            store.import_file(path, report, progress=advance)
    except PuzzleFileCutError as exc:
        _imported(report, store.path, path, "kept")
        again = f"; importing it again goes on from line {report.lines:,}" if report.puzzles else ""
        click.echo(f"chessatron: {exc}{again}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo(
            f"chessatron: stopped at line {report.lines:,} ({report.puzzles:,} puzzles imported); "
            f"'chessatron puzzles import {path}' goes on from there",
            err=True,
        )
        sys.exit(EXIT_STOPPED)
    _imported(report, store.path, path, "imported")


def _imported(report: ImportReport, store: Path, path: Path, verb: str) -> None:
    skipped = (
        f"; skipped {report.skipped:,} line{'s' if report.skipped != 1 else ''}" if report.skipped else ""
    )
    click.echo(f"{verb} {report.summary()} from {path.name} into {store}{skipped}")
    for reason in report.reasons:
        click.echo(f"  {reason}")


@puzzles.command("mine")
@click.argument("game_ids", nargs=-1, metavar="[ID]...")
@click.option("--games-dir", type=click.Path(path_type=Path, file_okay=False), help="Where games are saved.")
@click.option("--depth", type=click.IntRange(4, 30), default=14, show_default=True, help="Search depth.")
@click.option("--engine", "engine_path", default="stockfish", show_default=True, help="UCI engine.")
@store_option
@friendly
def puzzles_mine(
    game_ids: tuple[str, ...], games_dir: Path | None, depth: int, engine_path: str, store_path: Path | None
) -> None:
    """Puzzles from your saved games (all finished ones, or ID...): Stockfish keeps the positions where
    you erred although one move clearly stood out."""
    from ..game.engine.player import EnginePlayer
    from ..game.engine.settings import parse_level
    from ..game.records import store as games
    from ..training.mining import mine_game, people_in

    training = _store(store_path)
    directory = games.resolve_games_dir(games_dir)
    ids = list(game_ids) or [s.game_id for s in games.list_games(directory) if s.is_finished]
    if not ids:
        click.echo(f"no finished game in {directory} to mine")
        return
    limit = chess.engine.Limit(depth=depth)
    total = 0
    with EnginePlayer(parse_level("engine"), engine=engine_path) as engine:
        for game_id in ids:
            record = games.load_game(game_id, directory)
            sides = people_in(record)
            if not sides:
                click.echo(f"game {game_id}: no person played it")
                continue
            found = mine_game(
                record, engine, colours=sides, limit=limit, prefix=f"g{game_id}-", game_url=f"game {game_id}"
            )
            training.add(found)
            total += len(found)
            click.echo(f"game {game_id}: {len(found)} puzzle{'s' if len(found) != 1 else ''}")
    click.echo(f"{total} puzzles from {len(ids)} games in {training.path}")


@puzzles.command("stats")
@store_option
@friendly
def puzzles_stats(store_path: Path | None) -> None:
    """Your puzzle rating, puzzles solved and failed, and what the store holds. Puzzles solved by a
    simulated player (hand, engine, script) are counted apart and never move your rating."""
    from ..training.store import Filters

    store = _store(store_path)
    attempts = store.attempts()
    solved = sum(1 for attempt in attempts if attempt.solved)
    rating = store.rating()
    click.echo(f"rating {rating} (± {round(rating.deviation)})")
    click.echo(f"{len(attempts)} puzzles tried, {solved} solved, {len(attempts) - solved} failed")
    simulated = store.attempts(simulated=True)
    if simulated:
        kinds = ", ".join(sorted({attempt.player or "?" for attempt in simulated}))
        count = len(simulated)
        click.echo(
            f"{count} attempt{'s' if count != 1 else ''} by a simulated player ({kinds}) "
            f"{'are' if count != 1 else 'is'} not counted in your rating (its own: "
            f"{store.rating(simulated[-1].player)})"
        )
    for source in ("starter", "lichess", "game"):
        click.echo(f"{source}: {store.count(Filters(source=source)):,} puzzles")
    aside = store.set_aside_count()
    if aside:
        click.echo(f"{aside:,} puzzle{'s' if aside != 1 else ''} set aside: found unplayable when chosen")
    stopped = store.stopped_import()
    if stopped is not None:
        file, line = stopped
        click.echo(
            f"the import of {file} stopped at line {line:,}: 'chessatron puzzles import {file}' goes on"
        )


@main.command()
@click.argument("game_id", metavar="[ID]", required=False)
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), help="Write the annotated PGN here.")
@click.option("--depth", type=click.IntRange(4, 30), default=14, show_default=True, help="Search depth.")
@click.option("--games-dir", type=click.Path(path_type=Path, file_okay=False), help="Where games are saved.")
@click.option("--engine", "engine_path", default="stockfish", show_default=True, help="UCI engine.")
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON instead.")
@store_option
@friendly
@sigterm_interrupts
def review(
    game_id: str | None,
    out: Path | None,
    depth: int,
    games_dir: Path | None,
    engine_path: str,
    as_json: bool,
    store_path: Path | None,
) -> None:
    """Review a saved game (default: the latest finished one): Stockfish marks every inaccuracy (?!),
    mistake (?) and blunder (??) by the winning chances it lost (lichess's 0.1, 0.2, 0.3) with the better
    move as a variation, and writes the annotated PGN (to stdout, or --out)."""
    from ..game.records import store as games
    from ..training.review import review_game

    directory = games.resolve_games_dir(games_dir)
    if game_id is None:
        finished = [s for s in games.list_games(directory) if s.is_finished]
        if not finished:
            raise ChessatronError(f"no finished game in {str(directory)!r} to review; give its ID")
        game_id = finished[-1].game_id
    console = terminal_console(stderr=True)
    with progress_bar(console) as progress:
        task = progress.add_task(f"reviewing game {game_id}", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, total=total, completed=done)

        reviewed = review_game(
            game_id,
            directory,
            _store(store_path, starter=False),
            limit=chess.engine.Limit(depth=depth),
            engine_path=engine_path,
            progress=advance,
        )
    if as_json:
        click.echo(json.dumps(reviewed.summary, indent=2))
    elif out is not None:
        write_text(out, reviewed.pgn)
    else:
        click.echo(reviewed.pgn, nl=False)
    for mistake in reviewed.summary["mistakes"]:
        click.echo(f"{mistake['text']}", err=True)
