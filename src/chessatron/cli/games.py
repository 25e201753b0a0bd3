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

from ..i18n import N_, _, formats, ngettext, pgettext
from ..render import terminal_console

if TYPE_CHECKING:
    from ..game.records.record import Player
    from ..game.records.store import GameSummary, ImportProgress
from .common import READ_FILE, friendly, write_bytes
from .main import main

#: Without a terminal, a line of progress this often (seconds) while an import runs.
PROGRESS_EVERY_S = 5.0


@main.command(
    short_help=N_("List, export, import and abandon saved games."),
    help=N_(
        "List saved games; export them as PGN (games --export ID...) or compact records; import PGN or "
        "compact records (a game saved already is not imported again); close unfinished games nobody will "
        "go on with (games --abandon ID...)."
    ),
)
@click.argument("game_ids", nargs=-1, metavar="[ID]...")
@click.option(
    "--games-dir", type=click.Path(path_type=Path, file_okay=False), help=N_("Where games are saved.")
)
@click.option("--export", is_flag=True, help=N_("Print the games ID... as PGN, one after another."))
@click.option(
    "--abandon",
    is_flag=True,
    help=N_(
        "Close the unfinished games ID...: play --resume no longer offers them (--resume ID still "
        "continues one); they stay listed as abandoned. A game with no move is removed."
    ),
)
@click.option("--export-compact", metavar="ID", help=N_("Write this game's compact record to --out."))
@click.option(
    "--import",
    "import_path",
    type=READ_FILE,
    help=N_("Import a PGN (or .bin compact record)."),
)
@click.option(
    "--out", type=click.Path(path_type=Path, dir_okay=False), help=N_("Output file for --export-compact.")
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
    from ..game.records import store

    directory = store.resolve_games_dir(games_dir)
    if export and abandon:
        raise click.UsageError(_("--export and --abandon are two commands; give one at a time"))
    if game_ids and not (export or abandon):
        raise click.UsageError(
            _("to print game {game} as PGN, write: chessatron games --export ID...").format(game=game_ids[0])
        )
    if abandon:
        if not game_ids:
            raise click.UsageError(
                _("--abandon needs the ids of the games to close; 'chessatron games' lists them")
            )
        for game_id in game_ids:
            done = store.abandon_game(game_id, directory)
            click.echo(_ABANDONED.get(done, _ABANDONED["abandoned"]).format(game=game_id))
        return
    if import_path is not None:
        if import_path.suffix in (".bin", ".cgr"):
            imported = store.import_compact(import_path, directory)
        else:
            with ImportView(terminal_console(stderr=True), import_path.name) as view:
                imported = store.import_pgn(import_path, directory, on_progress=view)
        stored, again = imported.stored, imported.already_saved
        if stored:
            said = ngettext("imported {count} game: {ids}", "imported {count} games: {ids}", len(stored))
        else:
            said = ngettext("imported {count} game", "imported {count} games", 0)
        click.echo(said.format(count=len(stored), ids=_ids(stored)))
        if again:
            click.echo(
                ngettext(
                    "skipped {count} game saved already: {ids}",
                    "skipped {count} games saved already: {ids}",
                    len(again),
                ).format(count=len(again), ids=_ids(again))
            )
        return
    if export:
        if not game_ids:
            raise click.UsageError(
                _("--export needs the ids of the games to print; 'chessatron games' lists them")
            )
        click.echo(store.export_pgn(game_ids, directory), nl=False)
        return
    if export_compact is not None:
        if out is None:
            raise click.UsageError(_("--export-compact needs --out FILE"))
        write_bytes(out, store.export_compact(export_compact, directory))
        return
    summaries = store.list_games(directory)
    if not summaries:
        click.echo(_("no saved games in {folder}").format(folder=directory))
        return
    for line in _games_table(summaries[::-1]):  # the newest first, as the web page lists them
        click.echo(line)
    resumable = [summary for summary in summaries if summary.is_open]
    if len(resumable) == 1:
        click.echo(_("chessatron play --resume continues the latest game in progress"))
    elif resumable:
        click.echo(
            _(
                "chessatron play --resume continues the latest game in progress, --resume ID another; "
                "chessatron games --abandon ID closes one"
            )
        )


#: An import names at most this many games one by one (a large file holds thousands).
IDS_SHOWN = 20

#: What ``games --abandon`` did to a game, by :func:`~chessatron.game.records.store.abandon_game`'s word.
_ABANDONED = {
    "removed": N_("game {game} had no move: removed"),
    "abandoned": N_(
        "game {game} abandoned: 'chessatron play --resume' no longer offers it ('--resume {game}' still "
        "continues it)"
    ),
    "abandoned already": N_(
        "game {game} abandoned already: 'chessatron play --resume' no longer offers it ('--resume {game}' "
        "still continues it)"
    ),
}


def _ids(ids: tuple[str, ...]) -> str:
    """The ids of the games an import stored or skipped: all of a few, the first and last of many.

    >>> _ids(("a", "b")), _ids(tuple(str(n) for n in range(30)))
    ('a, b', "0, 1, 2 … 29 (30 games: 'chessatron games' lists them)")
    """
    if len(ids) <= IDS_SHOWN:
        return ", ".join(ids)
    return _("{first} … {last} ({count} games: 'chessatron games' lists them)").format(
        first=", ".join(ids[:3]), last=ids[-1], count=len(ids)
    )


def _ending(termination: str) -> str:
    """How a game ended, in the list's last column after its result (the record's word: ``checkmate``...)."""
    endings = {
        "checkmate": pgettext("games list", "checkmate"),
        "stalemate": pgettext("games list", "stalemate"),
        "threefold repetition": pgettext("games list", "threefold repetition"),
        "fivefold repetition": pgettext("games list", "fivefold repetition"),
        "fifty moves": pgettext("games list", "fifty moves"),
        "seventy-five moves": pgettext("games list", "seventy-five moves"),
        "insufficient material": pgettext("games list", "insufficient material"),
        "resignation": pgettext("games list", "resignation"),
        "agreed draw": pgettext("games list", "agreed draw"),
        "time forfeit": pgettext("games list", "time forfeit"),
        # an online game its player left, the other claiming the result
        "abandoned": pgettext("games list", "left"),
    }
    return endings.get(termination, termination)


def _games_table(summaries: list[GameSummary]) -> list[str]:
    """The saved games, one a line under a heading, columns aligned; dates as the language writes them."""
    rows = [
        (
            # TRANSLATORS: the headings of the saved games' list (chessatron games), one word each
            pgettext("games list", "id"),
            pgettext("games list", "date"),
            pgettext("games list", "white"),
            pgettext("games list", "black"),
            pgettext("games list", "variant"),
            pgettext("games list", "moves"),
            pgettext("games list", "result"),
        )
    ]
    for summary in summaries:
        if summary.in_progress and summary.abandoned:
            state = pgettext("game", "abandoned")
        elif summary.in_progress and not summary.has_begun:
            state = pgettext(
                "game", "not begun"
            )  # (left by a crash before the first move; --resume skips it)
        elif summary.in_progress:
            state = pgettext("game", "in progress")
        elif summary.is_finished:
            ending = summary.termination
            state = f"{summary.result} {_ending(ending) if ending else ''}".rstrip()
        else:
            state = pgettext("game", "unfinished")
        date = formats.date(summary.date) if summary.date is not None else "?"
        if summary.is_journal:
            date = formats.date_time(summary.stored.astimezone())
        variant = (
            pgettext("variant", "chess960")
            if summary.variant == "chess960"
            else pgettext("variant", "standard")
        )
        rows.append(
            (
                summary.game_id,
                date,
                _player_label(summary.white),
                _player_label(summary.black),
                variant,
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
        return pgettext("player", "script")
    return player.name or (player.kind if player.kind != "unknown" else "?")


class ImportView:
    """How far an import has come, on ``console`` (stderr): a progress bar on a terminal (gone when the
    import is over), else a line every :data:`PROGRESS_EVERY_S` seconds, so that a file that takes
    minutes (about 15 ms a game) never leaves the person looking at nothing. A quick import shows
    nothing. Called with each :class:`~chessatron.game.records.store.ImportProgress`."""

    #: Each stage, as the bar says it.
    _STAGES: Final = {
        "reading": N_("reading {file}"),
        "comparing": N_("comparing {file} with the saved games"),
        "saving": N_("saving {file}"),
    }

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
                TextColumn("{task.percentage:>3.0f}%  {task.fields[games]}"),
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
        if self._bar is not None:
            task = self._tasks.get(progress.stage)
            if task is None:
                for earlier in self._tasks.values():
                    self._bar.update(earlier, visible=False)
                description = _(self._STAGES[progress.stage]).format(file=self.name)
                task = self._tasks[progress.stage] = self._bar.add_task(description, games="")
            games = ngettext("{count} game", "{count} games", progress.games).format(count=progress.games)
            self._bar.update(task, completed=progress.done, total=progress.total, games=games)
            return
        now = self.clock()
        if now < self._next_line:
            return
        self._next_line = now + self.every_s
        share = 100 * progress.done // progress.total if progress.total else 100
        self.console.print(
            self._line(progress.stage, progress.games).format(
                file=self.name, share=share, count=formats.decimal(progress.games)
            ),
            markup=False,
            highlight=False,
        )

    @staticmethod
    def _line(stage: str, games: int) -> str:
        """The line that says how far a stage has come (without a terminal)."""
        if stage == "reading":
            return ngettext(
                "importing {file}: reading, {share}% ({count} game)…",
                "importing {file}: reading, {share}% ({count} games)…",
                games,
            )
        if stage == "comparing":
            return ngettext(
                "importing {file}: comparing with the saved games, {share}% ({count} game)…",
                "importing {file}: comparing with the saved games, {share}% ({count} games)…",
                games,
            )
        return ngettext(
            "importing {file}: saving, {share}% ({count} game)…",
            "importing {file}: saving, {share}% ({count} games)…",
            games,
        )
