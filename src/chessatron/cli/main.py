"""The ``chessatron`` group itself: ``--version``, ``--debug`` and the log file."""

from __future__ import annotations

import click

from .. import __version__, logs


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
