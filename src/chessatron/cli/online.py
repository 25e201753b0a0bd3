"""``online``: games on lichess (or any server that speaks its API), the person at the table playing and
the robot moving the opponent's pieces; ``online login`` and ``online logout`` keep the API token.

The work is :mod:`chessatron.online`'s, imported only when a command runs: it needs berserk (the
``online`` extra), and a missing library is a one-line error naming the extra.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import click

from ..config import Config
from ..i18n import N_, _
from .common import config_option, fresh_option, friendly, parse_speed, sigterm_interrupts, speed_option
from .main import main

ONLINE_PLAYER_HELP = N_(
    "Who sits at this table: board (a person moving the pieces, seen by the sensors), keyboard (moves "
    "typed here), voice (moves said into the microphone, read back and confirmed), or on the simulator "
    "hand[:LEVEL] (a simulated person); engine[:LEVEL] only for a BOT "
    "account or on a server other than lichess.org."
)


@main.group(
    "online",
    invoke_without_command=True,
    help=N_(
        "Play an online game on lichess (or any server that speaks its API): the person at the table plays, "
        "the robot carries out the opponent's moves. `chessatron online login` keeps the API token first."
    ),
)
@click.option("--player", "player_text", metavar="PLAYER", default=None, help=ONLINE_PLAYER_HELP)
@click.option(
    "--ai", "ai_level", type=click.IntRange(1, 8), metavar="LEVEL", help=N_("Play the lichess AI (1-8).")
)
@click.option("--challenge", "challenge_user", metavar="USER", help=N_("Challenge USER and play them."))
@click.option(
    "--seek", "seek_text", metavar="MIN+INC", help=N_("Seek a rapid or classical game (10+0, 15+10).")
)
@click.option("--accept", is_flag=True, help=N_("Accept the next challenge that comes in."))
@click.option("--game", "game_id", metavar="ID", help=N_("Play (or go on with, after a crash) game ID."))
@click.option(
    "--chess960", is_flag=True, help=N_("Chess960 (with --accept: accept Chess960 challenges only).")
)
@click.option("--rated", is_flag=True, help=N_("A rated game (a challenge or a seek)."))
@click.option(
    "--color",
    type=click.Choice(["white", "black", "random"]),
    default="random",
    show_default=True,
    help=N_("The colour to play (against the AI, in a challenge or a seek)."),
)
@click.option(
    "--clock", "clock_text", metavar="MIN+INC", help=N_("A clock for --ai or --challenge (default: none).")
)
@speed_option("play")
@click.option(
    "--pgn-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help=N_("Also write the finished game here."),
)
@click.option("--json", "as_json", is_flag=True, help=N_("Print events, one JSON object a line."))
@click.option(
    "--url", default=None, help=N_("The server (default: the config's [lichess] url, lichess.org).")
)
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help=N_("UCI engine name or path.")
)
@click.option(
    "--games-dir", type=click.Path(path_type=Path, file_okay=False), help=N_("Where games are saved.")
)
@fresh_option
@config_option
@click.pass_context
@friendly
@sigterm_interrupts
def online(
    ctx: click.Context,
    player_text: str | None,
    ai_level: int | None,
    challenge_user: str | None,
    seek_text: str | None,
    accept: bool,
    game_id: str | None,
    chess960: bool,
    rated: bool,
    color: str,
    clock_text: str | None,
    speed_text: str,
    pgn_out: Path | None,
    as_json: bool,
    url: str | None,
    engine_path: str,
    games_dir: Path | None,
    fresh: bool,
    config_path: Path | None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    if player_text is None:
        raise click.UsageError(
            _("say who sits at this table with --player (board, keyboard, voice, or hand on the simulator)")
        )
    online_command = _online_module("command")
    request = online_command.OnlineRequest(
        ai=ai_level,
        challenge=challenge_user,
        seek=seek_text,
        accept=accept,
        game=game_id,
        chess960=chess960,
        rated=rated,
        color=color,
        clock=clock_text,
    )
    online_command.run_online(
        online_command.OnlineOptions(
            player=player_text,
            request=request,
            speed=parse_speed(speed_text),
            pgn_out=pgn_out,
            as_json=as_json,
            url=url,
            engine_path=engine_path,
            games_dir=games_dir,
            fresh=fresh,
            config_path=config_path,
        )
    )


@online.command(
    "login",
    help=N_(
        "Keep a personal API token (scope board:play, and challenge:write to challenge), readable by you "
        "only; $LICHESS_TOKEN is used instead when set."
    ),
)
@click.option(
    "--url", default=None, help=N_("The server (default: the config's [lichess] url, lichess.org).")
)
@click.option("--token", "token_text", default=None, help=N_("The token (default: asked for, not echoed)."))
@config_option
@friendly
def online_login(url: str | None, token_text: str | None, config_path: Path | None) -> None:
    online_command = _online_module("command")
    server = online_command.server_url(Config.load(config_path), url)
    online_command.login(server, token_text, say=click.echo)


@online.command("logout", help=N_("Forget the kept API token."))
@click.option(
    "--url", default=None, help=N_("The server (default: the config's [lichess] url, lichess.org).")
)
@config_option
@friendly
def online_logout(url: str | None, config_path: Path | None) -> None:
    online_command = _online_module("command")
    online_command.logout(online_command.server_url(Config.load(config_path), url), say=click.echo)


def _online_module(name: str) -> ModuleType:
    """A module of :mod:`chessatron.online`, or an error naming the extra that brings berserk."""
    import importlib

    from ..errors import MissingLibraryError

    try:
        return importlib.import_module(f"chessatron.online.{name}")
    except ImportError as exc:
        raise MissingLibraryError(
            _("online play needs {library!r}: pip install 'chessatron[online]'").format(library=exc.name)
            if exc.name
            else _("online play needs its libraries: pip install 'chessatron[online]'")
        ) from exc
