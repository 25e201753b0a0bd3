"""The ``chessatron`` command.

Every command-line contract written in an issue is kept exactly here; errors a user can cause end in a
one-line reason on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

import click
from rich.console import Console

from . import __version__
from .errors import ChessatronError
from .gcode import program_text
from .layout import Layout
from .simulate import game_moves, layout_document, read_game, simulate_game

P = ParamSpec("P")
R = TypeVar("R")

#: Exit status for a user error (bad file, illegal move, impossible table); 1 is a failed verdict.
EXIT_USAGE = 2


def friendly(func: Callable[P, R]) -> Callable[P, R]:
    """Turn chessatron errors into one line on stderr and a non-zero exit."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ChessatronError as exc:
            click.echo(f"chessatron: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            click.echo("chessatron: interrupted", err=True)
            sys.exit(130)

    return wrapper


def load_layout(path: Path | None) -> Layout:
    return Layout.default() if path is None else Layout.from_toml(path)


layout_option = click.option(
    "--layout",
    "layout_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Table layout TOML (default: the classic 12x10 table).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="chessatron")
def main() -> None:
    """chessatron: a chessboard that moves its own pieces."""


@main.command()
@click.argument("game_path", metavar="GAME.pgn", type=click.Path(path_type=Path, dir_okay=False))
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
@click.option("--reset", is_flag=True, help="Append the program that resets the table after the game.")
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
    game_index: int,
    layout_path: Path | None,
) -> None:
    """Play a PGN's main line on the simulated table and check it in the digital twin."""
    console = Console(stderr=False, highlight=False)
    layout = load_layout(layout_path)
    game = read_game(game_path, game_index)
    board, moves = game_moves(game)
    if reset:
        raise ChessatronError("--reset needs the reset planner, which is not built yet")
    sim, run = simulate_game(layout, board, moves)
    if layout_out is not None:
        _write(layout_out, json.dumps(layout_document(layout, sim.start_table), indent=2) + "\n")
    if gcode_out is not None:
        _write(gcode_out, program_text(run.program_lines()))
    violations = run.violations
    verdict = "ok" if not violations else f"{len(violations)} twin violations"
    console.print(f"plies: {len(run.plies)}")
    console.print(f"simulated seconds: {run.seconds:.1f}")
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
