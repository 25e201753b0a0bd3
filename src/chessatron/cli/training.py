"""``puzzles`` (puzzles on the table, imported from lichess, mined from your games) and ``review`` (a game
annotated by Stockfish)."""

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
    speed_option,
)
from .common import write_file as write_text
from .main import main

if TYPE_CHECKING:
    from ..game.engine.player import EnginePlayer
    from ..game.records.record import GameRecord
    from ..sim.state import TableKeeper
    from ..training.analysis import GameAnalysis
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
    "--theme",
    default=None,
    metavar="THEME",
    help="Only puzzles of a lichess theme: fork, mateIn2, or in words: 'mate in 2'...",
)
@click.option(
    "--opening", default=None, metavar="OPENING", help="Only puzzles from an opening: Sicilian_Defense..."
)
@speed_option("play")
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
    yours; a wrong move is put back. Type 'hint' (the piece, then its square), 'solution', 'skip',
    'quit' or 'help'. Each puzzle's result, its time and your rating are saved."""
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
    store = _store(store_path)
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
            prefix = "" if event.get("event") == "notice" else f"{event.get('event')}: "
            click.echo(f"{prefix}{event.get('message')}")

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
            click.echo(f"puzzle {under_way.get('id')} stopped before its end: not counted")
        click.echo(f"{solved} of {len(outcomes)} solved; your puzzle rating: {store.rating()}")


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
@click.option("--again", is_flag=True, help="Mine the games mined before again (at this depth).")
@store_option
@friendly
@sigterm_interrupts
def puzzles_mine(
    game_ids: tuple[str, ...],
    games_dir: Path | None,
    depth: int,
    engine_path: str,
    again: bool,
    store_path: Path | None,
) -> None:
    """Puzzles from your saved games (all finished ones, or ID...): Stockfish keeps the positions where
    you erred although one move clearly stood out, and says why a game gave none. Each game is analysed
    once (--again analyses it again)."""
    from ..game.engine.player import EnginePlayer
    from ..game.engine.settings import parse_level
    from ..game.records import store as games
    from ..training.mining import mine_analysis, people_in, why_none

    training = _store(store_path)
    directory = games.resolve_games_dir(games_dir)
    ids = list(dict.fromkeys(game_ids)) or [s.game_id for s in games.list_games(directory) if s.is_finished]
    if not ids:
        click.echo(f"no finished game in {directory} to mine")
        return
    records = {game_id: games.load_game(game_id, directory) for game_id in ids}  # (an unknown id: said now)
    limit = chess.engine.Limit(depth=depth)
    total = mined = kept = 0
    with contextlib.ExitStack() as stack:
        engine: EnginePlayer | None = None
        for game_id, record in records.items():
            sides = people_in(record)
            if not sides:
                click.echo(f"game {game_id}: no puzzle: no person played it")
                continue
            if record.plies < 2:
                click.echo(f"game {game_id}: no puzzle: too short (a puzzle starts with the opponent's move)")
                continue
            key = f"{game_id}:{record.plies}:{record.result}"
            before = None if again else training.mined(key)
            if before is not None:
                kept += 1
                found_before, reason = before
                said = _counted(found_before, "puzzle") if found_before else f"no puzzle: {reason}"
                click.echo(f"game {game_id}: already mined: {said}")
                continue
            if engine is None:
                engine = stack.enter_context(EnginePlayer(parse_level("engine"), engine=engine_path))
            analysis = _analysed(engine, record, limit, f"mining game {game_id}")
            found = mine_analysis(
                analysis, sides, engine, limit=limit, prefix=f"g{game_id}-", game_url=f"game {game_id}"
            )
            reason = "" if found else why_none(analysis, sides)
            training.add(found)
            training.keep_mined(key, len(found), reason)
            total += len(found)
            mined += 1
            click.echo(
                f"game {game_id}: {_counted(len(found), 'puzzle') if found else 'no puzzle: ' + reason}"
            )
    again_said = f"; {_counted(kept, 'game')} mined before (--again mines them again)" if kept else ""
    click.echo(f"{_counted(total, 'puzzle')} from {_counted(mined, 'game')} in {training.path}{again_said}")


def _analysed(engine: EnginePlayer, record: GameRecord, limit: chess.engine.Limit, what: str) -> GameAnalysis:
    """Stockfish through a game, a progress bar on stderr meanwhile."""
    from ..training.analysis import analyse_game

    with progress_bar(terminal_console(stderr=True)) as progress:
        task = progress.add_task(what, total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, total=total, completed=done)

        return analyse_game(engine, record.start_board(), record.moves, limit=limit, progress=advance)


def _counted(count: int, thing: str) -> str:
    """``1 puzzle``, ``2 puzzles``, ``0 games``."""
    return f"{count} {thing}{'' if count == 1 else 's'}"


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


@main.command(short_help="Review a saved game: each side's accuracy, its mistakes and the better moves.")
@click.argument("game_id", metavar="[ID]", required=False)
@click.option("--pgn", "as_pgn", is_flag=True, help="Print the annotated PGN instead of the summary.")
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
    as_pgn: bool,
    out: Path | None,
    depth: int,
    games_dir: Path | None,
    engine_path: str,
    as_json: bool,
    store_path: Path | None,
) -> None:
    """Review a saved game (default: the latest finished one): Stockfish marks every inaccuracy (?!),
    mistake (?) and blunder (??) by the winning chances it lost (lichess's 0.1, 0.2, 0.3). Prints each
    side's inaccuracies, mistakes, blunders, average centipawn loss and accuracy, then the marked moves
    with the better move; --pgn prints the annotated PGN (the better moves as variations), --out writes
    it to a file, --json prints the review as the web page draws it."""
    from ..game.records import store as games
    from ..training.review import kept_review, review_game, review_lines

    if as_pgn and as_json:
        raise click.UsageError("--pgn and --json each print the whole review: choose one")
    directory = games.resolve_games_dir(games_dir)
    if game_id is None:
        finished = [s for s in games.list_games(directory) if s.is_finished]
        if not finished:
            raise ChessatronError(f"no finished game in {str(directory)!r} to review; give its ID")
        game_id = finished[-1].game_id
    record = games.load_game(game_id, directory)  # (an unknown id is said before anything is drawn)
    store = _store(store_path, starter=False)
    limit = chess.engine.Limit(depth=depth)
    reviewed = kept_review(game_id, directory, store, limit=limit)
    if reviewed is None:
        with progress_bar(terminal_console(stderr=True)) as progress:
            task = progress.add_task(f"reviewing game {game_id}", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, total=total, completed=done)

            reviewed = review_game(
                game_id, directory, store, limit=limit, engine_path=engine_path, progress=advance
            )
    if out is not None:
        write_text(out, reviewed.pgn)
    if as_json:
        click.echo(json.dumps(reviewed.summary, indent=2))
    elif as_pgn:
        click.echo(reviewed.pgn, nl=False)
    else:
        for line in review_lines(reviewed.summary, record, game_id):
            click.echo(line)
        if out is not None:
            click.echo(f"\nthe annotated PGN is in {out}")
