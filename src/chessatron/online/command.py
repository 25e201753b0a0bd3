"""``chessatron online``: one online game at this table, shown on the terminal as ``play`` shows its games;
``chessatron online login`` keeps the API token.

The click definitions are in :mod:`chessatron.cli`; what they do is here.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ..config import Config
from ..errors import ChessatronError, LoginError, OnlineGameError
from ..game.players.answers import QuestionPrompt
from ..game.players.keyboard import keyboard_for, read_stdin_line
from ..game.players.spec import PlayerSpec
from ..game.records.pgn import write_pgn
from ..game.records.store import resolve_games_dir
from ..game.session import Session
from ..game.telling.announcer import open_announcer
from ..game.telling.events import describe_event, summary_line
from ..game.telling.live import LiveState
from ..game.telling.view import PlayView
from ..i18n import _
from ..render import terminal_console
from ..sim.state import SimulatorState, default_state_path, load_state, save_after_robot_work, save_state
from .client import LichessClient
from .model import OnlineRequest
from .table import OnlineTable
from .token import CHALLENGE_SCOPE, PLAY_SCOPES, check_token, find_token, forget_token, keep_token, token_page

#: Exit status of a game the server ended without a result (aborted, never begun).
EXIT_NO_RESULT = 1


@dataclass(frozen=True)
class OnlineOptions:
    """``chessatron online``'s options, as given."""

    player: str
    request: OnlineRequest
    speed: float | None
    pgn_out: Path | None
    as_json: bool
    url: str | None
    engine_path: str
    games_dir: Path | None
    fresh: bool
    config_path: Path | None


def server_url(settings: Config, url: str | None) -> str:
    """``--url``, else the config's ``[lichess] url``."""
    if url is None:
        return settings.lichess_url
    checked = Config.from_dict({"lichess": {"url": url}}, source="--url").lichess_url
    return checked


def open_client(url: str) -> LichessClient:
    """A client for ``url`` with the token for it (:class:`LoginError` when there is none)."""
    token, _source = find_token(url)
    return LichessClient(url, token)


def run_online(options: OnlineOptions) -> None:
    """Play the game ``options`` asks for to its end."""
    settings = Config.load(options.config_path)
    url = server_url(settings, options.url)
    player = PlayerSpec.parse(options.player)
    if player.kind == "web":
        raise ChessatronError(
            _(
                "a 'web' player moves on the web page, which 'chessatron online' does not serve; run "
                "'chessatron serve' and start the online game on the page, or play here at the board"
            )
        )
    directory = resolve_games_dir(options.games_dir)
    console = terminal_console()
    live = LiveState(settings.layout)
    view = PlayView(live, console)
    show = not options.as_json and PlayView.wanted(console)

    def emit(event: dict[str, Any]) -> None:
        questions.follow(event)  # the board's question, asked at the prompt too
        if options.as_json:
            click.echo(json.dumps(event, default=str))
            return
        line = (
            online_line(event)
            if event.get("event") == "online"
            else describe_event(event, live.snapshot().get("game"))
        )
        if line is not None:
            (view.print if show else click.echo)(line)

    keyboard = keyboard_for(view if show else None, as_json=options.as_json)
    questions = QuestionPrompt(
        keyboard,
        lambda text: session.answer(text),
        lambda: live.snapshot().get("game"),
        hands_answer=lambda: session.hand_answers,
    )
    simulated = settings.urls["grbl"].startswith("sim")
    state = load_state(default_state_path(), settings.layout, fresh=options.fresh) if simulated else None
    with (
        open_client(url) as client,
        Session(
            settings,
            games_dir=directory,
            speed=options.speed,
            emit=emit,
            engine_path=options.engine_path,
            table=state.table if state else None,
            live=live,
            keyboard=keyboard,
            state_path=default_state_path() if simulated else None,  # its lock is held while connected
        ) as session,
        view if show else contextlib.nullcontext(),
        questions,
        open_announcer(settings, live),  # the LCD and the buzzer (the terminal shows the game itself)
    ):
        if simulated:
            session.checkpoint = save_after_robot_work
        table = OnlineTable(session, client, player, emit=emit)
        game_id = table.start(options.request)
        try:
            record = table.play(game_id)
        except KeyboardInterrupt:
            view.close()
            click.echo(
                _(
                    "game {id} stopped: `{command}` continues it (the server's clocks run on meanwhile)"
                ).format(id=game_id, command=f"chessatron online --player {player.spec} --game {game_id}"),
                err=True,
            )
            raise
        if simulated:
            save_state(default_state_path(), SimulatorState(session.table, record.board(), session.gantry))
        if record.result == "*":
            raise OnlineGameError(_("game {id} ended without a result on the server").format(id=game_id))
        if options.pgn_out is not None:
            write_pgn(record, options.pgn_out)
        if not options.as_json:
            journal_id = session.live.snapshot()["game"]["id"]
            line = summary_line(journal_id, len(record.moves), record.start_fen, finished=True)
            (view.print if show else click.echo)(line)


def online_line(event: dict[str, Any]) -> str | None:
    """The terminal's line for an ``online`` event.

    >>> online_line({"event": "online", "what": "game", "url": "https://lichess.org/ab12", "colour": "white"})
    'playing https://lichess.org/ab12 as White'
    """
    what = event.get("what")
    if what == "game":
        if event.get("colour") == "black":
            return _("playing {url} as Black").format(url=event.get("url"))
        return _("playing {url} as White").format(url=event.get("url"))
    if what == "ai":
        return _("started game {id} against the lichess AI level {level}").format(
            id=event.get("game"), level=event.get("level")
        )
    if what == "ended":
        return str(event.get("message"))
    return None


def login(url: str, token_text: str | None, *, say: Callable[[str], None]) -> None:
    """Check a token with the server (whose account, which scopes) and keep it for ``url``."""
    if token_text is None:
        say(_("make a personal API token at {page}").format(page=token_page(url)))
        if sys.stdin.isatty():
            token_text = click.prompt(_("paste the token"), hide_input=True)
        else:
            token_text = read_stdin_line("") or ""
    token = check_token(token_text)
    with LichessClient(url, token) as client:
        account = client.account()
        scopes = client.scopes(token)
    if scopes is not None and not scopes & set(PLAY_SCOPES):
        if scopes:
            message = _(
                "the token has the scopes {scopes}; it needs board:play (bot:play for a BOT account): make "
                "one at {page}"
            )
        else:
            message = _(
                "the token has no scopes; it needs board:play (bot:play for a BOT account): make one at "
                "{page}"
            )
        raise LoginError(message.format(scopes=", ".join(sorted(scopes)), page=token_page(url)))
    path = keep_token(url, token)
    say(
        _("logged in as {account} on {url}; the token is kept in {path} (readable by you only)").format(
            account=account.name, url=url, path=path
        )
    )
    if scopes is not None and CHALLENGE_SCOPE not in scopes:
        say(
            _(
                "note: without the scope {scope} it cannot challenge anyone or the AI, only seek and accept"
            ).format(scope=CHALLENGE_SCOPE)
        )


def logout(url: str, *, say: Callable[[str], None]) -> None:
    if forget_token(url):
        say(_("forgot the token for {url}").format(url=url))
    else:
        say(_("no token was kept for {url}").format(url=url))
