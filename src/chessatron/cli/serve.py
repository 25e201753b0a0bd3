"""``serve``: the web page."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import Config, default_config_path
from ..i18n import N_
from .common import config_option, fresh_option, friendly, parse_speed, speed_option, web_server
from .main import main


@main.command(help=N_("The web page: watch, play and set up the table from a browser or a phone."))
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help=N_("Address to listen on; any but the loopback one requires a token (printed in the link)."),
)
@click.option("--port", type=click.IntRange(0, 65535), default=8960, show_default=True, help=N_("Port."))
@speed_option("watch")
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help=N_("UCI engine name or path.")
)
@click.option(
    "--games-dir", type=click.Path(path_type=Path, file_okay=False), help=N_("Where games are saved.")
)
@click.option(
    "--token",
    default=None,
    help=N_(
        "The token the page needs off the loopback address (default: a random one, kept for the next "
        "start in ~/.local/state/chessatron/web-token)."
    ),
)
@click.option(
    "--new-token",
    is_flag=True,
    help=N_(
        "Make a new token (the kept one otherwise stays, so that links and bookmarks keep working); "
        "pages opened with the old link are locked out."
    ),
)
@click.option("--open", "open_browser", is_flag=True, help=N_("Open the page in a browser."))
@fresh_option
@config_option
@friendly
def serve(
    host: str,
    port: int,
    speed_text: str,
    engine_path: str,
    games_dir: Path | None,
    token: str | None,
    new_token: bool,
    open_browser: bool,
    fresh: bool,
    config_path: Path | None,
) -> None:
    speed = parse_speed(speed_text)
    web_server().serve(
        Config.load(config_path),
        host=host,
        port=port,
        speed=speed,
        engine_path=engine_path,
        games_dir=games_dir,
        token=token,
        new_token=new_token,
        open_browser=open_browser,
        fresh=fresh,
        show_qr=sys.stdout.isatty(),
        say=click.echo,
        config_path=config_path or default_config_path(),  # the file the page's settings change
    )
