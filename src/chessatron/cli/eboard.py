"""``eboard``: the table as the e-board of the apps people play on (Millennium ChessLink, DGT, Chessnut,
the Chess Peripheral Protocol), over a serial line or Bluetooth LE; the robot makes the app's moves.

The work is :mod:`chessatron.eboard`'s: this module reads the options and the config's ``[eboard]``,
opens the transport and prints what happens, a line each.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import chess
import click

from ..config import Config
from ..eboard.registry import PROTOCOLS
from ..errors import ConfigError
from ..i18n import N_, _
from .common import config_option, fresh_option, friendly, parse_speed, sigterm_interrupts, speed_option
from .main import main

HAND_HELP = N_(
    "On the simulator: a simulated person makes SIDE's moves (white or black) at the simulated sensors, "
    "choosing them with Stockfish at LEVEL (default 1), e.g. --hand white:3. Without it the table waits "
    "for the app alone (the app plays both sides)."
)


@main.command(
    "eboard",
    help=N_(
        "Serve the table as the e-board of an app (Millennium ChessLink, DGT, Chessnut or the Chess "
        "Peripheral Protocol) until stopped: the app reads the position, and the robot makes the app's "
        "moves. Ctrl-C ends it, the game saved and the magnet off."
    ),
)
@click.argument("protocol", required=False, type=click.Choice(list(PROTOCOLS), case_sensitive=False))
@click.option(
    "--port",
    "port",
    metavar="PORT",
    default=None,
    help=N_(
        "The serial line the app is on: /dev/ttyGS0 (the Pi as a USB board), a USB-serial adapter, a "
        "pseudo-terminal, or a pyserial URL (socket://host:port)."
    ),
)
@click.option(
    "--ble", is_flag=True, help=N_("Serve over Bluetooth LE, advertised as the protocol's real boards.")
)
@click.option("--hand", "hand_text", metavar="SIDE[:LEVEL]", default=None, help=HAND_HELP)
@click.option(
    "--person",
    type=click.Choice(["white", "black", "none"]),
    default=None,
    help=N_(
        "On a real table: the side the person at the board plays (default: the config's [eboard] "
        "person, white); none: the app plays both sides."
    ),
)
@click.option(
    "--chess960",
    type=click.IntRange(0, 959),
    default=None,
    metavar="N",
    help=N_("Start from Chess960 position N (for a protocol that has Chess960; its app may start another)."),
)
@click.option(
    "--games",
    "game_count",
    type=click.IntRange(min=1),
    default=None,
    help=N_("Stop after this many games (default: serve until stopped)."),
)
@click.option(
    "--name", "names", multiple=True, metavar="NAME", help=N_("The name advertised over Bluetooth LE.")
)
@speed_option("play")
@click.option("--json", "as_json", is_flag=True, help=N_("Print events, one JSON object a line."))
@click.option("--web", is_flag=True, help=N_("Also show the game on the web page (it only watches)."))
@click.option(
    "--web-port",
    type=click.IntRange(0, 65535),
    default=8960,
    show_default=True,
    help=N_("The web page's port."),
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help=N_("With --web: where the page listens (0.0.0.0: every network; a link with a token is printed)."),
)
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help=N_("UCI engine name or path.")
)
@click.option(
    "--games-dir", type=click.Path(path_type=Path, file_okay=False), help=N_("Where games are saved.")
)
@fresh_option
@config_option
@friendly
@sigterm_interrupts
def eboard(
    protocol: str | None,
    port: str | None,
    ble: bool,
    hand_text: str | None,
    person: str | None,
    chess960: int | None,
    game_count: int | None,
    names: tuple[str, ...],
    speed_text: str,
    as_json: bool,
    web: bool,
    web_port: int,
    host: str,
    engine_path: str,
    games_dir: Path | None,
    fresh: bool,
    config_path: Path | None,
) -> None:
    from ..eboard.serve import EboardOptions, serve_eboard

    settings = Config.load(config_path)
    chosen = settings.eboard
    name = (protocol or chosen.protocol or "").lower()
    if not name:
        raise click.UsageError(_("name the protocol: chessatron eboard millennium|dgt|chessnut|cpp"))
    if port is not None and ble:
        raise click.UsageError(_("--port and --ble: the app is either on a serial line or on Bluetooth LE"))
    transport = "ble" if ble else "serial" if port is not None else chosen.transport
    line = port if port is not None else chosen.port
    if transport == "serial" and not line:
        raise click.UsageError(_("say where the app is: --port PORT (a serial line) or --ble"))
    hand_side, hand_level = _hand(hand_text)
    person_side = person or chosen.person
    options = EboardOptions(
        protocol=name,
        transport=transport,
        port=line,
        hand_colour=hand_side,
        hand_level=hand_level,
        person_colour=None if person_side == "none" else person_side == "white",
        chess960=chess960,
        games=game_count,
        names=names or ((chosen.name,) if chosen.name else ()),
        speed=parse_speed(speed_text),
        web_port=web_port if web else None,
        web_host=host,
        engine_path=engine_path,
        games_dir=games_dir,
        fresh=fresh,
    )

    def say(event: dict[str, Any], game: dict[str, Any] | None) -> None:
        if as_json:
            click.echo(json.dumps(event, default=str))
            return
        text = eboard_line(event, game)
        if text is not None:
            click.echo(text)

    serve_eboard(settings, options, say=say, stop=threading.Event())


def _hand(text: str | None) -> tuple[chess.Color | None, str | None]:
    """``--hand SIDE[:LEVEL]`` as (colour, level)."""
    if text is None:
        return None, None
    side, __, level = text.strip().lower().partition(":")
    if side not in ("white", "black"):
        raise click.BadParameter(
            _("{text!r}: write white or black, then :LEVEL if you like").format(text=text),
            param_hint="--hand",
        )
    from ..game.players.spec import PlayerSpec

    try:
        hand = PlayerSpec.parse(f"hand:{level or '1'}")  # the level as every hand player's is checked
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--hand") from exc
    return side == "white", hand.level


def eboard_line(event: dict[str, Any], game: dict[str, Any] | None = None) -> str | None:
    """The terminal's line for an event of an e-board session.

    >>> eboard_line({"event": "eboard", "what": "connected", "app": "ChessLink app", "protocol":
    ...     "millennium", "transport": "serial", "where": "/dev/ttyGS0"})
    'ChessLink app connected (millennium over serial, /dev/ttyGS0)'
    """
    from ..game.telling.events import describe_event

    if event.get("event") == "eboard":
        what = event.get("what")
        if what == "connected":
            values = {key: event.get(key) for key in ("app", "protocol", "transport", "where")}
            if event.get("where"):
                # TRANSLATORS: "ChessLink app connected (millennium over serial, /dev/ttyGS0)"
                return _("{app} connected ({protocol} over {transport}, {where})").format(**values)
            return _("{app} connected ({protocol} over {transport})").format(**values)
        if what == "serving":
            return str(event.get("message"))
        return str(event.get("message")) if event.get("message") else None
    return describe_event(event, game)
