"""``config check``, ``config init`` and ``config grbl-settings``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import Config, default_config_path, default_config_text
from ..config_problems import ConfigProblems
from ..errors import ChessatronError
from ..i18n import N_, _, ngettext
from .common import EXIT_USAGE, READ_FILE, config_option, friendly, layout_option, load_layout, write_file
from .main import main


@main.group(help=N_("Check or create the machine config; print the GRBL settings its table needs."))
def config() -> None:
    pass


@config.command(
    "check",
    help=N_(
        "Validate a config file (and its layout): every problem in it at once, each naming its key; or "
        "what it makes of the machine, in a maker's words. The file: PATH or --config, else the one every "
        "command reads."
    ),
)
@click.argument("path", type=READ_FILE, required=False)
@config_option
@friendly
def config_check(path: Path | None, config_path: Path | None) -> None:
    if path is not None and config_path is not None and path != config_path:
        raise click.UsageError(
            _("two configs to check: {path!r} and --config {config!r}; give one").format(
                path=str(path), config=str(config_path)
            )
        )
    try:
        loaded = Config.load(path or config_path)
    except ConfigProblems as exc:
        if len(exc.problems) == 1:
            raise
        # one problem a line, so that a long list reads as one; the file once, at the top
        count = len(exc.problems)
        heading = (
            ngettext("{count} problem in {where}:", "{count} problems in {where}:", count)
            if exc.where
            else ngettext("{count} problem:", "{count} problems:", count)
        )
        click.echo(f"chessatron: {heading.format(count=count, where=exc.where)}", err=True)
        for problem in exc.problems:
            click.echo(f"  {problem.message}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(_("config ok: {source}").format(source=loaded.source))
    for line in loaded.summary():
        click.echo(f"  {line}")


@config.command("init", help=N_("Write the commented default config (every device simulated)."))
@click.argument("path", type=click.Path(path_type=Path, dir_okay=False), required=False)
@click.option("--force", is_flag=True, help=N_("Overwrite an existing file."))
@friendly
def config_init(path: Path | None, force: bool) -> None:
    target = path or default_config_path()
    if target.exists() and not force:
        raise ChessatronError(
            _("{path!r} exists already; pass --force to overwrite it").format(path=str(target))
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ChessatronError(
            _("cannot create {path!r}: {reason}").format(path=str(target.parent), reason=exc.strerror or exc)
        ) from exc
    write_file(target, default_config_text())
    click.echo(_("wrote {path}").format(path=target))


@config.command(
    "grbl-settings",
    help=N_(
        "Print the GRBL $ settings the table needs, one line each with its meaning (the layout: --layout, "
        "else the machine config's); send them to GRBL, e.g. with `chessatron run FILE --no-home`."
    ),
)
@layout_option
@friendly
def config_grbl_settings(layout_path: Path | None) -> None:
    from ..grbl.settings import settings_program

    layout = load_layout(layout_path) if layout_path is not None else Config.load().layout
    for line in settings_program(layout):
        click.echo(line)
