"""The ``chessatron`` group itself: ``--version``, ``--debug`` and the log file; how every group lists its
commands (:class:`CommandGroup`)."""

from __future__ import annotations

import re
from typing import Any

import click

from .. import __version__, logs

#: A FEN's fields after the first (side to move, castling, en passant, the clocks), as a shell splits an
#: unquoted FEN into arguments.
_FEN_FIELDS = re.compile(r"^(?:[wb]|-|[KQkqA-Ha-h]{1,4}|[a-h][36]|\d+)$")


def first_sentence(text: str) -> str:
    """The first sentence of a command's help, whole (click cuts it short with ``...``).

    >>> first_sentence("Play a game at the table: typed moves. Every game is saved.")
    'Play a game at the table: typed moves.'
    """
    paragraph = " ".join(text.strip().split("\n\n", 1)[0].split())
    found = re.search(r"[.!?](?=\s+[A-Z'`(]|$)", paragraph)
    return paragraph if found is None else paragraph[: found.end()]


class CommandGroup(click.Group):
    """A group whose ``--help`` lists each command with the whole first sentence of its help, wrapped to
    the terminal (click's own list cuts it at the width with ``...``), and whose usage errors explain an
    unquoted FEN. Subgroups are of the same kind."""

    group_class = type

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            rows.append((name, command.short_help or first_sentence(command.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            raise _with_fen_hint(exc) from None


def _with_fen_hint(exc: click.UsageError) -> click.UsageError:
    """``Got unexpected extra arguments (w KQkq - 0 1)``, and what it means: a FEN's spaces split it."""
    found = re.search(r"unexpected extra arguments? \((.*)\)", exc.message)
    if found is None or not all(_FEN_FIELDS.match(field) for field in found.group(1).split()):
        return exc
    hinted = click.UsageError(
        f"{exc.message}; a FEN has spaces, so put it in quotes: "
        "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'",
        exc.ctx,
    )
    return hinted


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
