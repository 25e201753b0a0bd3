"""``play``: games at the table (``online``, games on lichess, is :mod:`.online`'s)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import click

from ..config import Config
from ..errors import ChessatronError
from ..i18n import N_, _
from ..planning.targets import parse_target
from ..render import terminal_console
from ..sim.state import SimulatorState, default_state_path, load_state, save_after_robot_work, save_state
from .common import config_option, fresh_option, friendly, parse_speed, sigterm_interrupts, speed_option
from .main import main

if TYPE_CHECKING:
    from ..game.players.base import Settings
    from ..game.players.spec import PlayerSpec
    from ..game.records.store import GameSummary
    from ..game.session import Session

#: ``play --resume`` without an id: the latest unfinished game.
LATEST = "latest"

PLAYER_HELP = N_(
    "White's player: keyboard (moves typed here), engine[:LEVEL] (Stockfish; LEVEL a skill 0-20 or an "
    "elo like 1500elo, e.g. engine:5), buttons (a d-pad and a cursor on the LEDs: the config's [buttons]), "
    "board (a person moving the pieces on the table, seen by its "
    "sensors), voice (moves said into the microphone, read back and confirmed), script:FILE.pgn (the moves "
    "of a game file), or on the simulator hand[:LEVEL] (a simulated person moving the pieces). Players on "
    "the web page (web) play through 'chessatron serve'."
)


@main.command(
    help=N_(
        "Play a game at the table: typed moves, a person at the board or the engine; the robot moves the "
        "pieces (on the simulator unless the config names a machine).\n\n"
        "Moves are typed as e2e4, Nf3, exd5, e8=Q or O-O; 'help' lists the commands (hint, takeback, draw, "
        "resign, quit). Every game is saved as it goes: 'chessatron games' lists them, and "
        "'chessatron play --resume [ID]' continues one that was stopped."
    )
)
@click.option(
    "--white",
    "white_text",
    metavar="PLAYER",
    default="keyboard",
    show_default=True,
    help=PLAYER_HELP,
)
@click.option(
    "--black",
    "black_text",
    metavar="PLAYER",
    default="engine",
    show_default=True,
    help=N_("Black's player, as for --white."),
)
@click.option(
    "--chess960",
    "chess960",
    is_flag=False,
    flag_value="random",
    default=None,
    metavar="[N|N:M]",
    help=N_("Chess960: start N (0-959), random when no N, or N:M for Double Fischer Random."),
)
@click.option(
    "--pgn-out",
    type=click.Path(path_type=Path, dir_okay=False),
    help=N_("Also write the finished game here."),
)
@click.option(
    "--resume",
    "resume",
    is_flag=False,
    flag_value=LATEST,
    default=None,
    metavar="[ID]",
    help=N_(
        "Continue a stopped game (after a crash or a power cut, too): the latest unfinished one, or game "
        "ID ('chessatron games' lists them). --white or --black given too hand that side to another player."
    ),
)
@speed_option("play")
@click.option(
    "--json", "as_json", is_flag=True, help=N_("Print machine-readable events, one JSON object a line.")
)
@click.option(
    "--engine", "engine_path", default="stockfish", show_default=True, help=N_("UCI engine name or path.")
)
@click.option(
    "--games-dir", type=click.Path(path_type=Path, file_okay=False), help=N_("Where games are saved.")
)
@click.option(
    "--max-plies",
    type=click.IntRange(min=1),
    default=None,
    help=N_("Stop after this many plies (the game stays open)."),
)
@click.option(
    "--clock",
    "clock_text",
    metavar="MIN+INC",
    default=None,
    help=N_(
        "A chess clock: minutes for the game plus seconds a move (5+3, 90+30, 3m+2s, 45s+1s); "
        "a flag that falls ends the game."
    ),
)
@click.option(
    "--games",
    "game_count",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help=N_(
        "Play this many games in a row, the robot setting the table up again between them "
        "(with a keyboard player, each game ends with 'another game?')."
    ),
)
@click.option(
    "--show-engine",
    is_flag=True,
    help=N_(
        "Show the engine's evaluation and line even while a person plays the engine (otherwise hidden: "
        "its line starts with the person's best move; 'hint' asks for one)."
    ),
)
@click.option(
    "--ascii/--unicode",
    "letters",
    default=None,
    help=N_(
        "Draw pieces as letters (K, q...) instead of chess symbols; by default letters on the Linux "
        "console (TERM=linux: its fonts have no chess symbols) or when the terminal is not UTF-8."
    ),
)
@click.option(
    "--name",
    "person_name",
    metavar="NAME",
    default=None,
    help=N_(
        "Your name in the saved game (PGN White or Black) for the side a person plays here, when the "
        "other is not a person too; default: the config's [player] name, else the way you play (keyboard)."
    ),
)
@fresh_option
@config_option
@friendly
@sigterm_interrupts
def play(
    white_text: str,
    black_text: str,
    chess960: str | None,
    pgn_out: Path | None,
    resume: str | None,
    speed_text: str,
    as_json: bool,
    engine_path: str,
    games_dir: Path | None,
    max_plies: int | None,
    game_count: int,
    clock_text: str | None,
    show_engine: bool,
    letters: bool | None,
    fresh: bool,
    config_path: Path | None,
    person_name: str | None,
) -> None:
    import random

    from ..game.clock import parse_clock
    from ..game.commands import QuitRequested
    from ..game.players.answers import QuestionPrompt
    from ..game.players.base import NewGameRequested
    from ..game.players.buttons import players_for, start_for
    from ..game.players.keyboard import keyboard_for
    from ..game.players.spec import PlayerSpec, with_level
    from ..game.records.pgn import write_pgn
    from ..game.records.record import GameRecord
    from ..game.records.store import forget_unplayed, resolve_games_dir
    from ..game.session import Session
    from ..game.telling.announcer import open_announcer
    from ..game.telling.events import describe_event, score_line, summary_line
    from ..game.telling.live import LiveState
    from ..game.telling.view import PlayView

    settings = Config.load(config_path)
    if person_name is not None:
        settings = _named(settings, person_name)
    directory = resolve_games_dir(games_dir)
    time_control = parse_clock(clock_text) if clock_text is not None else None
    speed = parse_speed(speed_text)
    console = terminal_console()
    live = LiveState(settings.layout)
    view = PlayView(live, console, engine=show_engine, letters=letters)
    show = not as_json and PlayView.wanted(console)  # on a terminal: the live view of the whole table

    def emit(event: dict[str, object]) -> None:
        if as_json:
            click.echo(json.dumps(event, default=str))
        else:
            # the live state still shows the game as it was before the event (the moves taken back...)
            line = describe_event(event, live.snapshot().get("game"))
            if line is not None:
                (view.print if show else click.echo)(line)  # click.echo would garble the live area
        questions.follow(event)  # the board's question, asked at the prompt too

    keyboard = keyboard_for(view if show else None, as_json=as_json)
    questions = QuestionPrompt(
        keyboard,
        lambda text: session.answer(text),
        lambda: live.snapshot().get("game"),
        hands_answer=lambda: session.hand_answers,
    )
    simulated = settings.urls["grbl"].startswith("sim")
    state = load_state(default_state_path(), settings.layout, fresh=fresh) if simulated else None
    with (
        Session(
            settings,
            games_dir=directory,
            speed=speed,
            emit=emit,
            engine_path=engine_path,
            table=state.table if state else None,
            live=live,
            keyboard=keyboard,
            state_path=default_state_path() if simulated else None,  # its lock is held while connected
        ) as session,
        view if show else contextlib.nullcontext(),
        questions,
        open_announcer(settings, live),  # the LCD and the buzzer (the terminal shows the game itself)
    ):
        session.board_needs_real_sensors = True  # nobody here moves the simulated table's pieces
        if settings.watcher:
            from ..training.watcher import MoveWatcher

            session.watcher = MoveWatcher(session, settings.watcher_loss)
        if simulated:
            session.checkpoint = save_after_robot_work

        def start_position() -> chess.Board:
            if chess960 is None:
                return chess.Board()
            target = parse_target(str(random.randrange(960)) if chess960 == "random" else chess960)
            start = target.board
            start.chess960 = True
            return start

        # an engine named without a level plays at the config's ([player] level)
        white = with_level(PlayerSpec.parse(white_text), settings.player.level)
        black = with_level(PlayerSpec.parse(black_text), settings.player.level)
        # on --resume, a player named on the command line takes that side over
        context = click.get_current_context()
        named = {
            colour: spec
            for colour, spec, option in (
                (chess.WHITE, white, "white_text"),
                (chess.BLACK, black, "black_text"),
            )
            if context.get_parameter_source(option) is not click.core.ParameterSource.DEFAULT
        }
        # after a single game a person at the keyboard is asked whether to play another, after each
        single = game_count == 1 and not as_json
        if resume is None:
            _refuse_web_players(white.kind, black.kind)
        else:
            ignored = [name for name, given in (("--chess960", chess960), ("--clock", clock_text)) if given]
            if ignored:
                said = (
                    _(
                        "{option} does not apply to a game resumed: it goes on from its own start, with its "
                        "own clock"
                    ).format(option=ignored[0])
                    if len(ignored) == 1
                    else _(
                        "{option} and {other} do not apply to a game resumed: it goes on from its own start, "
                        "with its own clock"
                    ).format(option=ignored[0], other=ignored[1])
                )
                click.echo(f"chessatron: {said}", err=True)
        finished: list[GameRecord] = []
        played = 0
        connected = False
        chosen: chess.Board | None = None  # the start a player with buttons chose from their menu

        def new_game_chosen(settings: Settings) -> chess.Board:
            """A player with buttons (or by voice) chose a new game: its start, the engine at the level
            chosen (after the puzzles they chose instead, if they did)."""
            nonlocal white, black
            if settings.puzzles:
                _puzzles_with_buttons(session)
            white, black = players_for(white, black, settings)
            return start_for(settings)

        while True:
            if resume is not None and not connected:
                summary = _game_to_resume(resume, directory, named, emit)
                journal, white, black = session.resume_at_table(summary.path, players=named)
                connected = True
            else:
                start = chosen if chosen is not None else start_position()
                if not connected:
                    session.connect()
                    connected = True
                before = live.snapshot()["game"]
                try:
                    journal = session.new_game(white, black, start, time_control)  # the robot sets up
                except BaseException as stop:
                    game = live.snapshot()["game"]
                    if game is not None and (before is None or game["id"] != before["id"]):
                        # stopped before the robot began the set-up: nothing to keep; cut short in the
                        # set-up: kept (its journal says where the pieces stand), to go on with
                        saved = not forget_unplayed(game["id"], directory)
                        if isinstance(stop, KeyboardInterrupt):
                            view.close()
                            line = summary_line(game["id"], 0, None, finished=False, kept=saved)
                            click.echo(line, err=True)
                    raise
            game_id = journal.state.metadata.game_id
            try:
                with journal:
                    record = session.play(journal, white, black, max_plies=max_plies)
            except NewGameRequested as wanted:
                kept = journal.state
                stopped = summary_line(game_id, len(kept.moves), kept.metadata.start_fen, finished=False)
                if not as_json:
                    (view.print if show else click.echo)(stopped)
                chosen = new_game_chosen(wanted.settings)
                continue
            except KeyboardInterrupt as stop:
                view.close()  # leave the live area before writing below it
                kept = journal.state
                # a game stopped before its first move holds nothing to go on with: it goes, as on the page
                forgotten = forget_unplayed(game_id, directory)
                stopped = summary_line(
                    game_id, len(kept.moves), kept.metadata.start_fen, finished=False, kept=not forgotten
                )
                click.echo(stopped, err=True)
                if isinstance(stop, QuitRequested):
                    sys.exit(0)  # asked for: no "interrupted", and no failure
                raise
            except BaseException:
                forget_unplayed(game_id, directory)  # failed before its first move: nothing to go on with
                raise
            played += 1
            if simulated:
                snapshot = SimulatorState(session.table, record.board(), session.gantry)
                save_state(default_state_path(), snapshot)
            if not as_json:
                game_id = journal.state.metadata.game_id
                finished_now = record.result != "*"
                closing = summary_line(game_id, len(record.moves), record.start_fen, finished=finished_now)
                (view.print if show else click.echo)(closing)
            if record.result == "*":
                break
            finished.append(record)
            if pgn_out is not None:
                write_pgn(finished, pgn_out)
            if played < game_count:
                continue
            panel = session.button_panel() if "buttons" in (white.kind, black.kind) else None
            if panel is not None:
                # the game's over on the display and the LEDs; the next one starts from the menu
                verdict = f"{record.result} {record.termination or ''}".strip()
                wanted_next = panel.after_game(record.board(), verdict)
                if wanted_next is None:
                    break
                chosen = new_game_chosen(wanted_next)
                game_count += 1
                continue
            # (the players of the game played: a resumed game's)
            ask_again = single and "keyboard" in (white.kind, black.kind)
            if ask_again and session.keyboard.confirm(_("Another game?")):
                game_count += 1
                continue
            break
        if len(finished) > 1 and not as_json:
            (view.print if show else click.echo)(score_line(finished, (white.spec, black.spec)))


def _named(settings: Config, name: str) -> Config:
    """``settings`` with the person's name ``play --name`` gives, checked as ``[player] name`` is."""
    import dataclasses

    from ..config_player import check_name
    from ..errors import ConfigError

    try:
        checked = check_name(name)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--name") from exc
    return dataclasses.replace(settings, player=dataclasses.replace(settings.player, name=checked))


def _puzzles_with_buttons(session: Session) -> None:
    """The buttons' menu chose *puzzles*: ten of them, played with the buttons near the person's rating;
    the menu's *new game* (or the tenth puzzle) brings the games back."""
    from ..game.players.spec import PlayerSpec
    from ..training.store import PuzzleStore
    from ..training.table import PuzzleTable

    table = PuzzleTable(session, PuzzleStore(), PlayerSpec("buttons"))
    table.on_outcome = lambda outcome: session.emit({"event": "notice", "message": outcome.line()})
    table.play(10)


def _refuse_web_players(white: str, black: str, game_id: str | None = None) -> None:
    """``play`` has no web page: a web player would wait for ever."""
    if "web" not in (white, black):
        return
    if game_id is not None:
        raise ChessatronError(
            _("game {game!r} has a player on the web page; continue it there: run 'chessatron serve'").format(
                game=game_id
            )
        )
    raise ChessatronError(
        _(
            "a 'web' player moves on the web page, which 'chessatron play' does not serve; run "
            "'chessatron serve' and start the game on the page, or play here with keyboard or board"
        )
    )


def _game_to_resume(
    resume: str,
    directory: Path,
    named: dict[chess.Color, PlayerSpec],
    emit: Callable[[dict[str, object]], None],
) -> GameSummary:
    """The saved game ``play --resume [ID]`` goes on with (``resume``: its id, or :data:`LATEST`), checked
    for players ``play`` can have (``named``: those given on the command line, who take their sides
    over). Later games passed over are named (``emit``), with what to do about them."""
    from ..game.records.store import latest_resumable, resumable_game, skipped_by_resume

    summary = latest_resumable(directory) if resume == LATEST else resumable_game(resume, directory)
    if summary is None:
        raise ChessatronError(
            _(
                "no unfinished game in {folder!r} to resume; 'chessatron games' lists the saved ones, "
                "'chessatron play' starts a new one"
            ).format(folder=str(directory))
        )
    kinds = [
        named[colour].kind if colour in named else player.kind
        for colour, player in ((chess.WHITE, summary.white), (chess.BLACK, summary.black))
    ]
    _refuse_web_players(kinds[0], kinds[1], summary.game_id)
    if resume == LATEST:
        for skipped in skipped_by_resume(directory):
            game_id = skipped.game_id
            message = _(
                "game {game} (started later, no move yet) is not the one resumed: 'chessatron play "
                "--resume {game}' starts it, 'chessatron games --abandon {game}' removes it"
            ).format(game=game_id)
            emit({"event": "notice", "message": message})
    return summary
