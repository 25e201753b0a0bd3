"""``puzzles mine`` (puzzles from your saved games) and ``review`` (a game annotated by Stockfish): the
commands that run Stockfish through saved games."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import chess.engine
import click

from ..errors import ChessatronError
from ..i18n import N_, _, ngettext
from ..render import terminal_console
from .common import friendly, progress_bar, sigterm_interrupts
from .common import write_file as write_text
from .main import main
from .training import puzzle_store, puzzles, store_option

if TYPE_CHECKING:
    from ..game.engine.player import EnginePlayer
    from ..game.records.record import GameRecord
    from ..training.analysis import GameAnalysis


@puzzles.command(
    "mine",
    help=N_(
        "Puzzles from your saved games (all finished ones, or ID...): Stockfish keeps the positions where "
        "you erred although one move clearly stood out, and says why a game gave none. Each game is "
        "analysed once (--again analyses it again)."
    ),
)
@click.argument("game_ids", nargs=-1, metavar="[ID]...")
@click.option(
    "--games-dir", type=click.Path(path_type=Path, file_okay=False), help=N_("Where games are saved.")
)
@click.option("--depth", type=click.IntRange(4, 30), default=14, show_default=True, help=N_("Search depth."))
@click.option("--engine", "engine_path", default="stockfish", show_default=True, help=N_("UCI engine."))
@click.option("--again", is_flag=True, help=N_("Mine the games mined before again (at this depth)."))
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
    from ..game.engine.player import EnginePlayer
    from ..game.engine.settings import parse_level
    from ..game.records import store as games
    from ..training.mining import mine_analysis, people_in, why_none

    training = puzzle_store(store_path)
    directory = games.resolve_games_dir(games_dir)
    ids = list(dict.fromkeys(game_ids)) or [s.game_id for s in games.list_games(directory) if s.is_finished]
    if not ids:
        click.echo(_("no finished game in {folder} to mine").format(folder=directory))
        return
    records = {game_id: games.load_game(game_id, directory) for game_id in ids}  # (an unknown id: said now)
    limit = chess.engine.Limit(depth=depth)
    total = mined = kept = 0
    with contextlib.ExitStack() as stack:
        engine: EnginePlayer | None = None
        for game_id, record in records.items():
            sides = people_in(record)
            if not sides:
                click.echo(_("game {game}: no puzzle: no person played it").format(game=game_id))
                continue
            if record.plies < 2:
                click.echo(
                    _("game {game}: no puzzle: too short (a puzzle starts with the opponent's move)").format(
                        game=game_id
                    )
                )
                continue
            key = f"{game_id}:{record.plies}:{record.result}"
            before = None if again else training.mined(key)
            if before is not None:
                kept += 1
                found_before, reason = before
                if found_before:
                    said = ngettext(
                        "game {game}: already mined: {count} puzzle",
                        "game {game}: already mined: {count} puzzles",
                        found_before,
                    )
                else:
                    said = _("game {game}: already mined: no puzzle: {reason}")
                click.echo(said.format(game=game_id, count=found_before, reason=reason))
                continue
            if engine is None:
                engine = stack.enter_context(EnginePlayer(parse_level("engine"), engine=engine_path))
            analysis = _analysed(engine, record, limit, _("mining game {game}").format(game=game_id))
            found = mine_analysis(
                analysis, sides, engine, limit=limit, prefix=f"g{game_id}-", game_url=f"game {game_id}"
            )
            reason = "" if found else why_none(analysis, sides)
            training.add(found)
            training.keep_mined(key, len(found), reason)
            total += len(found)
            mined += 1
            if found:
                said = ngettext("game {game}: {count} puzzle", "game {game}: {count} puzzles", len(found))
            else:
                said = _("game {game}: no puzzle: {reason}")
            click.echo(said.format(game=game_id, count=len(found), reason=reason))
    puzzles_said = ngettext("{count} puzzle", "{count} puzzles", total).format(count=total)
    games_said = ngettext("{count} game", "{count} games", mined).format(count=mined)
    said = _("{puzzles} from {games} in {store}").format(
        puzzles=puzzles_said, games=games_said, store=training.path
    )
    if kept:
        said = ngettext(
            "{said}; {count} game mined before (--again mines them again)",
            "{said}; {count} games mined before (--again mines them again)",
            kept,
        ).format(said=said, count=kept)
    click.echo(said)


def _analysed(engine: EnginePlayer, record: GameRecord, limit: chess.engine.Limit, what: str) -> GameAnalysis:
    """Stockfish through a game, a progress bar on stderr meanwhile."""
    from ..training.analysis import analyse_game

    with progress_bar(terminal_console(stderr=True)) as progress:
        task = progress.add_task(what, total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, total=total, completed=done)

        return analyse_game(engine, record.start_board(), record.moves, limit=limit, progress=advance)


@main.command(
    short_help=N_("Review a saved game: each side's accuracy, its mistakes and the better moves."),
    help=N_(
        "Review a saved game (default: the latest finished one): Stockfish marks every inaccuracy (?!), "
        "mistake (?) and blunder (??) by the winning chances it lost (lichess's 0.1, 0.2, 0.3). Prints each "
        "side's inaccuracies, mistakes, blunders, average centipawn loss and accuracy, then the marked moves "
        "with the better move; --pgn prints the annotated PGN (the better moves as variations), --out "
        "writes it to a file, --json prints the review as the web page draws it."
    ),
)
@click.argument("game_id", metavar="[ID]", required=False)
@click.option("--pgn", "as_pgn", is_flag=True, help=N_("Print the annotated PGN instead of the summary."))
@click.option(
    "--out", type=click.Path(path_type=Path, dir_okay=False), help=N_("Write the annotated PGN here.")
)
@click.option("--depth", type=click.IntRange(4, 30), default=14, show_default=True, help=N_("Search depth."))
@click.option(
    "--games-dir", type=click.Path(path_type=Path, file_okay=False), help=N_("Where games are saved.")
)
@click.option("--engine", "engine_path", default="stockfish", show_default=True, help=N_("UCI engine."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the review as JSON instead."))
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
    from ..game.records import store as games
    from ..training.review import kept_review, review_game, review_lines

    if as_pgn and as_json:
        raise click.UsageError(_("--pgn and --json each print the whole review: choose one"))
    directory = games.resolve_games_dir(games_dir)
    if game_id is None:
        finished = [s for s in games.list_games(directory) if s.is_finished]
        if not finished:
            raise ChessatronError(
                _("no finished game in {folder!r} to review; give its ID").format(folder=str(directory))
            )
        game_id = finished[-1].game_id
    record = games.load_game(game_id, directory)  # (an unknown id is said before anything is drawn)
    store = puzzle_store(store_path, starter=False)
    limit = chess.engine.Limit(depth=depth)
    reviewed = kept_review(game_id, directory, store, limit=limit)
    if reviewed is None:
        with progress_bar(terminal_console(stderr=True)) as progress:
            task = progress.add_task(_("reviewing game {game}").format(game=game_id), total=None)

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
            click.echo("\n" + _("the annotated PGN is in {file}").format(file=out))
