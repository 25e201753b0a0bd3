"""``games``: the saved games listed, exported, imported (with progress: a large file takes minutes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..render import terminal_console

if TYPE_CHECKING:
    from ..game.records.record import Player
    from ..game.records.store import GameSummary, ImportProgress
from .common import READ_FILE, friendly, write_bytes
from .main import main

#: Without a terminal, a line of progress this often (seconds) while an import runs.
PROGRESS_EVERY_S = 5.0


@main.command(short_help="List, export, import and abandon saved games.")
@click.argument("game_ids", nargs=-1, metavar="[ID]...")
@click.option("--games-dir", type=click.Path(path_type=Path, file_okay=False), help="Where games are saved.")
@click.option("--export", is_flag=True, help="Print the games ID... as PGN, one after another.")
@click.option(
    "--abandon",
    is_flag=True,
    help="Close the unfinished games ID...: play --resume no longer offers them (--resume ID still "
    "continues one); they stay listed as abandoned. A game with no move is removed.",
)
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
    abandon: bool,
    export_compact: str | None,
    import_path: Path | None,
    out: Path | None,
) -> None:
    """List saved games; export them as PGN (games --export ID...) or compact records; import PGN or
    compact records (a game saved already is not imported again); close unfinished games nobody will
    go on with (games --abandon ID...)."""
    from ..game.records import store

    directory = store.resolve_games_dir(games_dir)
    if export and abandon:
        raise click.UsageError("--export and --abandon are two commands; give one at a time")
    if game_ids and not (export or abandon):
        raise click.UsageError(f"to print game {game_ids[0]} as PGN, write: chessatron games --export ID...")
    if abandon:
        if not game_ids:
            raise click.UsageError(
                "--abandon needs the ids of the games to close; 'chessatron games' lists them"
            )
        for game_id in game_ids:
            done = store.abandon_game(game_id, directory)
            if done == "removed":
                click.echo(f"game {game_id} had no move: removed")
            else:
                click.echo(
                    f"game {game_id} {done}: 'chessatron play --resume' no longer offers it "
                    f"('--resume {game_id}' still continues it)"
                )
        return
    if import_path is not None:
        if import_path.suffix in (".bin", ".cgr"):
            imported = store.import_compact(import_path, directory)
        else:
            with ImportView(terminal_console(stderr=True), import_path.name) as view:
                imported = store.import_pgn(import_path, directory, on_progress=view)
        stored, again = imported.stored, imported.already_saved
        click.echo(f"imported {len(stored)} game(s)" + (f": {_ids(stored)}" if stored else ""))
        if again:
            click.echo(f"skipped {len(again)} game(s) saved already: {_ids(again)}")
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
        write_bytes(out, store.export_compact(export_compact, directory))
        return
    summaries = store.list_games(directory)
    if not summaries:
        click.echo(f"no saved games in {directory}")
        return
    for line in _games_table(summaries[::-1]):  # the newest first, as the web page lists them
        click.echo(line)
    resumable = [summary for summary in summaries if summary.is_open]
    if len(resumable) == 1:
        click.echo("chessatron play --resume continues the latest game in progress")
    elif resumable:
        click.echo(
            "chessatron play --resume continues the latest game in progress, --resume ID another; "
            "chessatron games --abandon ID closes one"
        )


#: An import names at most this many games one by one (a large file holds thousands).
IDS_SHOWN = 20


def _ids(ids: tuple[str, ...]) -> str:
    """The ids of the games an import stored or skipped: all of a few, the first and last of many.

    >>> _ids(("a", "b")), _ids(tuple(str(n) for n in range(30)))
    ('a, b', "0, 1, 2 … 29 (30 games: 'chessatron games' lists them)")
    """
    if len(ids) <= IDS_SHOWN:
        return ", ".join(ids)
    return f"{', '.join(ids[:3])} … {ids[-1]} ({len(ids)} games: 'chessatron games' lists them)"


def _games_table(summaries: list[GameSummary]) -> list[str]:
    """The saved games, one a line under a heading, columns aligned."""
    rows = [("id", "date", "white", "black", "variant", "moves", "result")]
    for summary in summaries:
        if summary.in_progress and summary.abandoned:
            state = "abandoned"
        elif summary.in_progress and not summary.has_begun:
            state = "not begun"  # (left by a crash before the first move; --resume skips it)
        elif summary.in_progress:
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


class ImportView:
    """How far an import has come, on ``console`` (stderr): a progress bar on a terminal (gone when the
    import is over), else a line every :data:`PROGRESS_EVERY_S` seconds, so that a file that takes
    minutes (about 15 ms a game) never leaves the person looking at nothing. A quick import shows
    nothing. Called with each :class:`~chessatron.game.records.store.ImportProgress`."""

    _STAGES: Final = {"reading": "reading", "comparing": "comparing with the saved games", "saving": "saving"}

    def __init__(
        self,
        console: Console,
        name: str,
        *,
        every_s: float = PROGRESS_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console, self.name, self.every_s, self.clock = console, name, every_s, clock
        self._bar: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._next_line = clock() + every_s

    def __enter__(self) -> ImportView:
        if self.console.is_terminal and not self.console.is_dumb_terminal:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%  {task.fields[games]} games"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def __call__(self, progress: ImportProgress) -> None:
        stage = self._STAGES[progress.stage]
        if self._bar is not None:
            task = self._tasks.get(stage)
            if task is None:
                for earlier in self._tasks.values():
                    self._bar.update(earlier, visible=False)
                task = self._tasks[stage] = self._bar.add_task(f"{stage} {self.name}", games=0)
            self._bar.update(task, completed=progress.done, total=progress.total, games=progress.games)
            return
        now = self.clock()
        if now < self._next_line:
            return
        self._next_line = now + self.every_s
        share = 100 * progress.done // progress.total if progress.total else 100
        self.console.print(
            f"importing {self.name}: {stage}, {share}% ({progress.games:,} games)…",
            markup=False,
            highlight=False,
        )
