"""Games played in a thread of their own, driven by commands from elsewhere (the web page).

A :class:`GameRunner` owns one :class:`~chessatron.game.session.Session` (one machine, connected and
homed once) and runs one job at a time in a background thread: a game, a resumed game, a table reset.
Commands arrive from any thread and are validated here, before anything reaches the game or the gantry:
a move must be legal for a ``web`` player whose turn it is, a reset target must parse, and so on; a
refused command raises a :class:`~chessatron.errors.ChessatronError` whose message says why.

The game never depends on who watches: the runner only feeds its :class:`~chessatron.game.live.LiveState`,
and a page that closes (or a web server that stops) leaves the game running.

While a game with a robot runs and nobody plays at the board itself (no ``board`` or ``hand`` player,
whose recognizer owns the LEDs then), a :class:`LedGuide` lights the squares as a chess computer does: the
engine's last move, a king in check, and where the piece a page player picked (:meth:`GameRunner.select`)
may go.
"""

# One module on purpose (about 640 lines): the runner is one job queue over one session, shared by the
# web page's commands; its jobs (games, set-ups, pauses) hold the same lock.

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import chess

from ..config import Config
from ..errors import CannotResumeError as CannotResumeError
from ..errors import ChessatronError, ConfigError, EngineError, IllegalMoveError
from ..feedback.signals import LedSignals, combine
from ..planning.layout import Cell
from ..planning.reset import parse_target, position_flaws, require_pieces
from ..ports import RGB, LedStrip
from ..sim.state import SimulatorState, default_state_path, load_state, save_state
from .buttons import NewGameRequested, players_for, start_for
from .clock import parse_clock
from .engine import checked_options, engine_options, find_engine, parse_level
from .journal import Journal
from .keyboard import Command, Rejection, parse_command
from .live import LiveState, colour_name
from .players import InboxMover, PlayerSpec, engine_level
from .record import ClockSettings
from .session import Session
from .store import GameSummary, forget_unplayed, latest_resumable, open_game, resumable_game
from .tablework import PAUSED, STOPPING

LOGGER = logging.getLogger(__name__)

GameCommand = Literal["hint", "takeback", "draw", "resign"]
COMMANDS: dict[str, Command] = {
    "hint": Command.HINT,
    "takeback": Command.TAKEBACK,
    "draw": Command.DRAW,
    "resign": Command.RESIGN,
}

#: The players a game started from elsewhere (the web page) may have.
REMOTE_PLAYERS = ("web", "engine", "board", "hand", "voice", "buttons")
#: Players a game resumed from elsewhere cannot have: they need this machine's terminal, which nobody at
#: the page sees. The page takes their seats over (``web``), as ``play --resume --white web`` would hand
#: them to it.
TERMINAL_PLAYERS = ("keyboard",)

Job = Literal["game", "resume", "reset", "online", "training"]
#: Why the table cannot take a new job, by the job under way.
BUSY_BECAUSE: dict[str, str] = {
    "game": "a game is being played on the table; stop it first (Stop game) or wait for its end",
    "resume": "a game is being played on the table; stop it first (Stop game) or wait for its end",
    "reset": "the robot is setting the table up; wait until it has finished",
    "online": "an online game is being played on the table; stop it first (Stop game) or wait for its end",
    "training": "puzzles are being played on the table; stop them first (Stop) or wait for their end",
}
#: How often the LED guide looks at the game when nothing changed (a pick from the page), in seconds.
GUIDE_POLL_S = 0.05


class BusyError(ChessatronError, RuntimeError):
    """The machine is already busy with a game or a reset."""


class NotYourTurnError(ChessatronError, RuntimeError):
    """A move or command for a player who is not waiting to move."""


@dataclass(frozen=True)
class GameRequest:
    """A new game: the players (as for ``chessatron play``) and the start.

    ``chess960`` is None for standard chess, ``"random"``, a number 0-959 or ``N:M`` (Double Fischer
    Random); ``fen`` sets up any position instead (a Chess960 one when its castling rights need it).

    >>> GameRequest(fen="r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1").start().chess960
    False
    >>> GameRequest(fen="1r2k3/8/8/8/8/8/8/5K1R w Kq - 0 1").start().chess960
    True
    """

    white: str = "web"
    black: str = "engine"
    chess960: str | None = None
    fen: str | None = None
    #: A chess clock as for ``play --clock`` (``"5+3"``), None for none.
    clock: str | None = None

    def players(self) -> tuple[PlayerSpec, PlayerSpec]:
        """The players; only those that need no file or terminal on this machine (``web``, ``engine``,
        ``board``, ``hand``): a request from a page must not name the server's files."""
        players = PlayerSpec.parse(self.white), PlayerSpec.parse(self.black)
        for player in players:
            if player.kind not in REMOTE_PLAYERS:
                raise ConfigError(
                    f"a {player.kind!r} player cannot be chosen here; use one of {', '.join(REMOTE_PLAYERS)}"
                )
        return players

    def start(self, rng: random.Random | None = None) -> chess.Board:
        """The start position; raises :class:`ConfigError` for a bad number or FEN."""
        if self.fen is not None and self.chess960 is not None:
            raise ConfigError("give either a chess960 start or a FEN, not both")
        if self.fen is not None:
            board = parse_target(self.fen).board
            # a position is standard chess unless its castling rights need Chess960 (a king off e1/e8)
            board.chess960 = board.has_chess960_castling_rights()
            return board
        if self.chess960 is None:
            return chess.Board()
        text = self.chess960
        if text == "random":
            text = str((rng or random.Random()).randrange(960))
        board = parse_target(text).board
        board.chess960 = True
        return board


class LedGuide:
    """What the table's LEDs show during a game the robot plays for everyone (no one at the board): the
    engine's last move (blue), a king in check and its checkers (violet) and, while a player on the page
    has picked a piece, that piece's square and where it may go (green, yellow for a capture) instead of
    the last move, over the check (as at the board when a piece is lifted).

    >>> from chessatron.planning.layout import Layout
    >>> guide = LedGuide(LedSignals(Layout.default()), engines=[chess.BLACK])
    >>> board = chess.Board()
    >>> board.push_san("e4"), board.push_san("e5")
    (Move.from_uci('e2e4'), Move.from_uci('e7e5'))
    >>> sorted(chess.square_name(guide.signals.square(cell)) for cell in guide.colours(board))
    ['e5', 'e7']
    >>> sorted(chess.square_name(guide.signals.square(cell)) for cell in guide.colours(board, chess.G1))
    ['e2', 'f3', 'g1', 'h3']
    """

    def __init__(self, signals: LedSignals, engines: Iterable[chess.Color]) -> None:
        self.signals = signals
        self.engines = frozenset(engines)

    def colours(self, board: chess.Board, picked: chess.Square | None = None) -> dict[Cell, RGB]:
        """The LED colours for ``board`` (with its moves on the stack), ``picked`` the square of the piece
        a player picked (None: none)."""
        check = self.signals.show_check(board)
        if picked is not None:  # as when a piece is lifted at the board: its squares over the check
            return combine(check, self.signals.show_legal_moves(board, picked))
        if board.move_stack and (not board.turn) in self.engines:
            before = board.copy()
            move = before.pop()
            return combine(self.signals.show_engine_move(move, before), check)
        return check


def game_board(game: dict[str, Any]) -> chess.Board:
    """The board of a live snapshot's ``game`` part, its moves on the stack."""
    board = chess.Board(game["start_fen"], chess960=game["variant"] == "chess960")
    for uci in game["uci"]:
        board.push_uci(uci)
    return board


class GameRunner:
    """One machine, one job at a time, in a background thread.

    ``speed`` is the simulator's speed (None: as fast as the host allows). The table's state on the
    simulator is kept where ``chessatron play`` keeps it, so both see the same pieces; ``fresh`` forgets
    it and starts from a table set up as delivered.
    """

    def __init__(
        self,
        config: Config,
        *,
        games_dir: Path,
        speed: float | None = 1.0,
        engine_path: str = "stockfish",
        live: LiveState | None = None,
        state_path: Path | None = None,
        fresh: bool = False,
    ) -> None:
        self.config = config
        self.games_dir = games_dir
        self.live = live if live is not None else LiveState(config.layout)
        self.simulated = config.urls["grbl"].startswith("sim")
        self.state_path = state_path if state_path is not None else default_state_path()
        state = load_state(self.state_path, config.layout, fresh=fresh) if self.simulated else None
        self.session = Session(
            config,
            games_dir=games_dir,
            speed=speed,
            engine_path=engine_path,
            table=state.table if state else None,
            live=self.live,
        )
        self.last_error: str | None = None
        self.last_game: str | None = None
        self._board = state.board if state else chess.Board()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._job: Job | None = None
        self._connected = False
        self._paused = False
        self._stopping = False
        self._forget_set_up = True
        self._status_before_pause: str | None = None
        #: The piece a page player picked: (the ply it was picked at, its square).
        self._picked: tuple[int, chess.Square] | None = None
        self._guiding = False
        #: The players and clock of the game under way (a new one chosen at the table keeps them).
        self._players: tuple[PlayerSpec, PlayerSpec, ClockSettings | None] = (
            PlayerSpec("web"),
            PlayerSpec("engine"),
            None,
        )
        #: A config saved since (the web page's settings), taken up when the next job begins.
        self._next_config: Config | None = None
        self.live.show_table(self.session.table, ())

    # --- lifecycle ---------------------------------------------------------------------------------

    def __enter__(self) -> GameRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def busy(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def report(self) -> dict[str, Any]:
        """What the runner is doing, for pages: ``{"job": "game"|"resume"|"reset"|"online"|None,
        "paused": bool, "stopping": bool, "leds": bool}`` (``stopping``: a stop was asked for and the job
        has not reached its next safe point yet; ``leds``: the LED guide lights the table for this game).
        Every change of it also changes the live state's version."""
        return {"job": self._job, "paused": self._paused, "stopping": self._stopping, "leds": self._guiding}

    def clock_now(self) -> dict[str, Any] | None:
        """The game's chess clock as it reads now (the live state holds its reading from when it last
        changed), None without one."""
        clock = self.session.clock
        return clock.to_dict() if clock is not None and self._job is not None else None

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait for the job under way to end; True when none is running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
        return not self.busy

    def close(self) -> None:
        """Stop the job at its next safe point (a game stays saved, one cut short in its set-up too, so
        that it can be finished) and close the machine."""
        self.stop(forget_set_up=False)
        self.wait(30.0)
        self.session.close()

    # --- jobs --------------------------------------------------------------------------------------

    def start_game(self, request: GameRequest) -> None:
        """Validate ``request`` and start the game in the background. Raises :class:`BusyError`,
        :class:`ConfigError` for a bad player (a level the engine cannot play) or start (one the table
        cannot set up, with more pieces of a kind than it owns)."""
        white, black = request.players()
        start = request.start()
        clock = parse_clock(request.clock) if request.clock is not None else None
        flaws = position_flaws(start, fen=request.fen)
        if flaws:
            raise ConfigError(f"the position {start.fen()!r} cannot be played: {'; '.join(flaws)}")
        if start.is_game_over():
            raise ConfigError(f"the position {start.fen()!r} is already over; choose another")
        self.check_levels(white, black)
        # a player the table lacks the devices for (buttons, a microphone, sensors) is refused now; a
        # missing engine is left for the game to say
        with contextlib.suppress(EngineError):
            self.session.check_players(white, black)
        require_pieces(start, self.session.table.inventory())
        self._spawn("game", lambda: self._new_games(lambda: self._play_new(white, black, start, clock)))

    def check_levels(self, *players: PlayerSpec) -> None:
        """Raise :class:`~chessatron.errors.EngineSettingsError` for a level the engine cannot play (an
        Elo outside its range); an engine that cannot be asked is left for the game to report."""
        levels = [level for level in map(engine_level, players) if level is not None]
        if not levels:
            return
        try:
            available = engine_options(self.session.engine_path)
            path = find_engine(self.session.engine_path)
        except EngineError:
            return  # the game says why it cannot start the engine
        for level in levels:
            checked_options(parse_level(level), available, path)

    def inventory(self) -> dict[str, int]:
        """The pieces the table owns by FEN letter (its sets and the reserve's spares)."""
        return dict(self.session.table.inventory())

    def resume_game(
        self, game_id: str | None = None, players: Mapping[chess.Color, PlayerSpec] | None = None
    ) -> str:
        """Continue saved game ``game_id`` (None: the latest with a move, see
        :func:`~chessatron.game.store.latest_resumable`) in the background; the robot first puts its
        pieces back where the game stopped. Returns the game's id.

        ``players`` hands sides to other players from now on, as ``play --resume --white P`` does
        (journaled and told); a side played at this machine's terminal (:data:`TERMINAL_PLAYERS`), which
        nobody at the page sees, is handed to the page (``web``) unless ``players`` names another. Raises
        :class:`GameNotFoundError` for an unknown id, :class:`CannotResumeError` for a game that is over or
        was not played here, :class:`BusyError`, :class:`ConfigError` for a player that cannot be had."""
        if game_id is None:
            summary = latest_resumable(self.games_dir)
            if summary is None:
                raise ChessatronError("there is no unfinished game to resume; start a new one")
        else:
            summary = resumable_game(game_id, self.games_dir)
        handed = self.handed_over(summary, players)
        for spec in handed.values():
            if spec.kind not in REMOTE_PLAYERS:
                raise ConfigError(
                    f"a {spec.kind!r} player cannot take a side here; use one of {', '.join(REMOTE_PLAYERS)}"
                )
        self.check_levels(*handed.values())
        path = summary.path
        self._spawn("resume", lambda: self._new_games(lambda: self._play_resumed(path, handed)))
        return summary.game_id

    @staticmethod
    def handed_over(
        summary: GameSummary, players: Mapping[chess.Color, PlayerSpec] | None = None
    ) -> dict[chess.Color, PlayerSpec]:
        """The sides of saved game ``summary`` that change hands when it is resumed here: those in
        ``players``, and those played at the terminal (:data:`TERMINAL_PLAYERS`), handed to ``web``.

        >>> import datetime as dt
        >>> from .record import Player
        >>> summary = GameSummary("g1", Path("g1.jsonl"), dt.datetime.now(dt.UTC), None,
        ...                       Player("keyboard", "keyboard"), Player("Stockfish", "engine", "5"),
        ...                       "standard", "*", 8)
        >>> {chess.COLOR_NAMES[c]: p.spec for c, p in GameRunner.handed_over(summary).items()}
        {'white': 'web'}
        """
        handed = dict(players or {})
        for colour, player in ((chess.WHITE, summary.white), (chess.BLACK, summary.black)):
            if colour not in handed and player.kind in TERMINAL_PLAYERS:
                handed[colour] = PlayerSpec("web")
        return handed

    def reset_table(self, target: str = "standard") -> None:
        """Set the table up (``518``, ``N:M``, a FEN, ``standard``) in the background; raises
        :class:`ConfigError` for a target that does not parse or needs pieces the table does not own."""
        setup = parse_target(target)
        require_pieces(setup.board, self.session.table.inventory())
        self._spawn("reset", lambda: self._reset(setup.board, setup.name))

    def start_online(self, game: Callable[[Session], object]) -> None:
        """Play an online game in the background: ``game`` (see :mod:`chessatron.online`) plays it on this
        runner's session, connected. Raises :class:`BusyError`."""

        def job() -> None:
            self.live.update(clock=None, hint=None, evaluation=None)
            game(self.session)
            board = self.session.current_board()
            if board is not None:
                self._board = board

        self._spawn("online", job)

    def start_training(self, work: Callable[[Session], object]) -> None:
        """Play puzzles in the background (:mod:`chessatron.training.table`): ``work`` plays them on this
        runner's session, connected. Raises :class:`BusyError`."""

        def job() -> None:
            self.live.update(clock=None, hint=None, evaluation=None)
            try:
                work(self.session)
            finally:
                self.live.update(prompt=None)

        self._spawn("training", job)

    def use_config(self, config: Config) -> bool:
        """Play the next game (or set-up) with ``config`` (saved from the web page's settings): the
        devices are opened again from it when the next job begins, the table's pieces kept as they stand.
        A new layout waits for the next start of the server (the pieces are placed by the layout they
        were set up on); returns whether ``config`` names one."""
        with self._lock:
            self._next_config = config
        return config.layout != self.config.layout

    def _take_up_config(self) -> None:
        """Between jobs: a config saved since replaces the session's (see :meth:`use_config`)."""
        config, self._next_config = self._next_config, None
        if config is None:
            return
        config = dataclasses.replace(config, layout=self.config.layout)
        old = self.session
        session = Session(
            config,
            games_dir=self.games_dir,
            speed=old.speed,
            engine_path=old.engine_path,
            table=old.table,
            live=self.live,
        )
        session.hand_style, session.hand_answers = old.hand_style, old.hand_answers
        session.watcher = old.watcher
        old.close()
        self.session, self.config = session, config
        self.simulated = config.urls["grbl"].startswith("sim")
        self._connected = False  # the next job connects the devices the config names
        LOGGER.info("the next job plays with the config saved from the page")

    def _spawn(self, name: Job, job: Callable[[], None]) -> None:
        with self._lock:
            if self.busy:
                raise BusyError(BUSY_BECAUSE[self._job or name])
            self._take_up_config()
            self.session.stop_requested.clear()
            self._stopping = False
            self.last_error = None
            self._picked = None
            self._job = name
            self.live.update(notices=[])  # the last job's notices are not this one's
            thread = threading.Thread(
                target=self._guarded, args=(job,), name=f"chessatron-{name}", daemon=True
            )
            self._thread = thread
            thread.start()

    def _guarded(self, job: Callable[[], None]) -> None:
        try:
            if not self._connected:
                self.live.update(status="connecting")
                self.session.connect()
                self._connected = True
            job()
        except KeyboardInterrupt:
            self.live.update(status=self._kept(), prompt=None)
        except ChessatronError as exc:
            self.last_error = str(exc)
            self.live.notice(str(exc), "error")
            self.live.update(status=f"stopped: {exc}", prompt=None)
        except Exception as exc:  # never a traceback in front of a player: the log has it
            LOGGER.exception("the game thread failed")
            self.last_error = f"internal error: {exc!r}"
            self.live.notice(self.last_error, "error")
            self.live.update(status="stopped by an internal error (see the log)", prompt=None)
        finally:
            self._save()
            with self._lock:
                self._job = None
                self._stopping = False
            self._stop_clock()

    def _kept(self) -> str:
        """What a stopped job left, in words, as the saved games show it (the status after a stop)."""
        if self._job == "reset":
            return "stopped setting the table up; the pieces stand where the robot left them"
        game = self.live.snapshot()["game"]
        if game is None:
            return "stopped before the first move: no game was kept (a game is saved from its first move)"
        try:
            summary, _ = open_game(game["id"], self.games_dir)
        except ChessatronError:
            return "stopped; the game was not kept"
        if not summary.in_progress:
            return f"stopped; the game is saved ({summary.result})"
        moves = f"{summary.plies} half-move{'s' if summary.plies != 1 else ''}"
        more = "; the robot first finishes the move it was making" if summary.robot_pending else ""
        return f"stopped after {moves}; the game is saved: Resume continues it{more}"

    def _stop_clock(self) -> None:
        """The job is over: a clock the game left running stops (the journal has its times). Always
        changes the live state, so that watchers see the job end."""
        clock = self.session.clock
        shown = self.live.snapshot()["clock"]
        if clock is not None and shown is not None:
            clock.pause()
            shown = clock.to_dict()
        self.live.update(clock=shown)

    def _new_games(self, first: Callable[[], None]) -> None:
        """Play the game ``first`` plays; when a player chooses a new game from the buttons' menu (or by
        voice), the game under way stops, saved, and the one they chose begins (its start, the engine at
        the level chosen), as at ``chessatron play``."""
        play = first
        while True:
            try:
                play()
                return
            except NewGameRequested as wanted:
                white, black, clock = self._players
                white, black = players_for(white, black, wanted.settings)
                start = start_for(wanted.settings)
                self.live.notice(f"a new game, as chosen at the table: {white.spec} against {black.spec}")
                play = functools.partial(self._play_new, white, black, start, clock)

    def _play_new(
        self, white: PlayerSpec, black: PlayerSpec, start: chess.Board, clock: ClockSettings | None
    ) -> None:
        self.live.update(clock=None)  # the session shows the new game's clock, if it has one
        try:
            journal = self.session.new_game(white, black, start, clock)
        except BaseException:
            game = self.live.snapshot()["game"]  # a set-up cut short leaves a game with no move
            if game is not None and not game["uci"]:
                self._forget_unplayed(game["id"])
            raise
        self.last_game = journal.path.name.removesuffix(".jsonl")
        self._play(journal, white, black)

    def _play_resumed(self, path: Path, players: Mapping[chess.Color, PlayerSpec]) -> None:
        self.live.update(clock=None, hint=None, evaluation=None)
        standing = self.session.table  # where the pieces are: a set-up may have moved them since
        journal, white, black = self.session.resume(path, players=players)
        self.last_game = journal.path.name.removesuffix(".jsonl")
        try:
            self.session.put_back(standing)
        except BaseException:
            journal.close()
            raise
        self._play(journal, white, black)

    def _play(self, journal: Journal, white: PlayerSpec, black: PlayerSpec) -> None:
        self._players = (white, black, journal.state.metadata.clock)
        try:
            with journal, self._leds_guiding(white, black):
                try:
                    self.session.play(journal, white, black)
                finally:
                    self._board = journal.board()
        finally:
            state = journal.state
            if not state.moves and not state.is_finished:
                self._forget_unplayed(state.metadata.game_id)

    def _forget_unplayed(self, game_id: str | None) -> None:
        """A game stopped (or failed) before its first move holds nothing to resume: its journal goes
        (:func:`~chessatron.game.store.forget_unplayed`), so that neither the saved games nor *Resume* offer
        it, and the page shows no game. One whose set-up a stop asked for cut short goes too: the player
        stopped it before it began (the runner's table knows where the robot left the pieces)."""
        cut_short = self._forget_set_up and self.session.stop_requested.is_set()
        if game_id is None or not forget_unplayed(game_id, self.games_dir, cut_short=cut_short):
            return
        if self.last_game is not None and self.last_game.endswith(game_id):
            self.last_game = None
        self.live.update(game=None, evaluation=None, hint=None)

    def _reset(self, board: chess.Board, description: str) -> None:
        session = self.session
        self.live.update(
            status=f"setting up {description}", game=None, clock=None, evaluation=None, hint=None
        )
        session.set_up(board, "RESET")
        self._board = board
        self.live.update(status="idle")

    def _save(self) -> None:
        if not self.simulated:
            return
        table = self.session.table
        board = self._board
        if table.board_fen() != board.board_fen():
            # cut short (a fault in the middle of robot work): keep what the table shows
            board = chess.Board(None)
            board.set_board_fen(table.board_fen())
        try:
            save_state(self.state_path, SimulatorState(table, board, self.session.gantry))
        except ChessatronError as exc:
            self.live.notice(f"the simulator's table was not saved: {exc}", "warning")

    # --- the LEDs ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _leds_guiding(self, white: PlayerSpec, black: PlayerSpec) -> Iterator[None]:
        """Light the LEDs with a :class:`LedGuide` while the game runs, when the robot moves every piece."""
        session = self.session
        if (
            session.robot is None
            or white.moves_pieces
            or black.moves_pieces
            or self.config.urls["leds"].startswith("none")
        ):
            yield
            return
        try:
            strip = session.led_strip()
        except ChessatronError as exc:
            self.live.notice(f"the LEDs cannot show the game: {exc}", "warning")
            yield
            return
        engines = [
            colour for colour, spec in ((chess.WHITE, white), (chess.BLACK, black)) if spec.kind == "engine"
        ]
        guide = LedGuide(LedSignals(self.config.layout), engines)
        done = threading.Event()
        thread = threading.Thread(
            target=self._guide, args=(guide, strip, done), name="chessatron-leds", daemon=True
        )
        self._guiding = True
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(5.0)
            self._guiding = False

    def _guide(self, guide: LedGuide, strip: LedStrip, done: threading.Event) -> None:
        version = -1
        state: dict[str, Any] = {}
        shown_for: object = None
        shown: dict[Cell, RGB] = {}
        try:
            while not done.is_set():
                if self.live.wait(version, GUIDE_POLL_S) != version:
                    state = self.live.snapshot()
                    version = state["version"]
                game = state.get("game")
                square = self._picked_square(state)
                wanted_for = None if game is None else (game["id"], game["fen"], len(game["uci"]), square)
                if wanted_for == shown_for:
                    continue
                colours = guide.colours(game_board(game), square) if game is not None else {}
                shown_for = wanted_for
                if colours != shown:
                    strip.show(colours)
                    shown = colours
        except ChessatronError as exc:
            self.live.notice(f"the LEDs stopped showing the game: {exc}", "warning")
        finally:
            if shown:
                with contextlib.suppress(ChessatronError):
                    strip.show({})

    def _picked_square(self, state: dict[str, Any]) -> chess.Square | None:
        """The square of the piece picked on the page, while its player is still to move."""
        picked, game = self._picked, state.get("game")
        if picked is None or game is None or state.get("prompt") is None or picked[0] != len(game["uci"]):
            return None
        return picked[1]

    # --- commands ----------------------------------------------------------------------------------

    def move(self, text: str) -> chess.Move:
        """A move for the ``web`` player to move: UCI (``e2e4``, ``e7e8q``) or SAN. Raises
        :class:`NotYourTurnError` when no web player is waiting, :class:`IllegalMoveError` saying why."""
        inbox, board = self._waiting()
        move = parse_move(board, text)
        self._picked = None
        inbox.inbox.put(move)
        return move

    def answer(self, text: str) -> chess.Move:
        """The player at the board says which move they made (UCI or SAN) when the board fits several.
        Raises :class:`NotYourTurnError` when nothing is asked, :class:`IllegalMoveError` for a move that
        is not one of those asked about."""
        if not self.busy or self.session.question is None:
            raise NotYourTurnError("nothing is asked now: the board shows a move, or none yet")
        return self.session.answer(text)

    def select(self, square: str | None) -> None:
        """The web player picked the piece on ``square`` (None: put it down again): the LEDs show where it
        may go, the robot's empty magnet heads for where its moves begin (pondering). Raises
        :class:`NotYourTurnError`, :class:`IllegalMoveError` for a piece that cannot move."""
        _, board = self._waiting()
        ponder = self.session.ponderer
        if square is None:
            self._picked = None
            if ponder is not None:
                ponder.picked(None)
            return
        picked = chess.parse_square(square)
        if not any(move.from_square == picked for move in board.legal_moves):
            piece = board.piece_at(picked)
            if piece is None:
                raise IllegalMoveError(f"there is no piece on {square} to pick up")
            if piece.color != board.turn:
                raise IllegalMoveError(
                    f"the {chess.piece_name(piece.piece_type)} on {square} is {colour_name(piece.color)}'s; "
                    f"it is {colour_name(board.turn)}'s move"
                )
            raise IllegalMoveError(f"the {chess.piece_name(piece.piece_type)} on {square} cannot move now")
        self._picked = (len(board.move_stack), picked)
        tidier = self.session.tidier
        if tidier is not None:
            tidier.hold()  # the person is making their move: no new step of tidying begins
        if ponder is not None:
            ponder.picked(picked)  # the magnet waits where that piece's likely moves begin

    def command(self, name: str) -> None:
        """``hint``, ``takeback``, ``draw`` or ``resign`` for the web player to move."""
        if name not in COMMANDS:
            raise ConfigError(f"unknown command {name!r}; use one of {', '.join(COMMANDS)}")
        inbox, board = self._waiting()
        if name == "takeback" and not board.move_stack:
            raise IllegalMoveError("there is no move to take back")
        self._picked = None
        inbox.inbox.put(COMMANDS[name])

    def _waiting(self) -> tuple[InboxMover, chess.Board]:
        snapshot = self.live.snapshot()
        prompt, game = snapshot["prompt"], snapshot["game"]
        if prompt is None or game is None or not self.busy:
            raise NotYourTurnError("no player on the web page is to move now")
        colour = chess.WHITE if prompt["colour"] == "white" else chess.BLACK
        inbox = self.session.inboxes.get(colour)
        if inbox is None:
            raise NotYourTurnError(f"{prompt['colour']} is not played from the web page")
        board = game_board(game)
        if board.turn != colour:
            raise NotYourTurnError(f"it is {colour_name(board.turn)}'s move")
        return inbox, board

    def stop(self, *, forget_set_up: bool = True) -> None:
        """Stop the job under way at its next safe point: a game at its next move, or while the robot works
        (a move, a set-up, a takeback) between two of its relocations, the magnet released and the table
        journaled. Until then the live status says :data:`~.tablework.STOPPING` (and :meth:`report`
        ``stopping``); then what was kept: a game with a move stays saved, one without is not kept, and
        with ``forget_set_up`` (a player's stop: they did not want that game) neither is one cut short
        in its set-up (otherwise, as for a shutdown, it is kept for its set-up to be finished)."""
        self._forget_set_up = forget_set_up
        self.session.stop_requested.set()
        for inbox in list(self.session.inboxes.values()):
            inbox.inbox.put(Command.QUIT)
        if self.busy and not self._stopping:
            with self.session.status_lock:
                self._stopping = True
                self.live.update(status=STOPPING, prompt=None)
        if self._paused:
            self.resume_machine()  # a held machine could not reach its next safe point

    def pause(self) -> None:
        """Feed hold: the gantry decelerates to a stop and waits (the magnet keeps its piece)."""
        robot = self.session.robot
        if robot is None:
            raise ChessatronError("the machine is not connected yet")
        with self.session.status_lock:  # the game thread does not say "robot moving" meanwhile
            robot.link.feed_hold()
            status = self.live.snapshot()["status"]
            if not self._paused:
                self._status_before_pause = status
            self._paused = True
            self.live.update(status=PAUSED)

    def resume_machine(self) -> None:
        """Cycle start: the gantry goes on where it was held."""
        robot = self.session.robot
        if robot is None:
            raise ChessatronError("the machine is not connected yet")
        with self.session.status_lock:
            robot.link.resume()
            self._paused = False
            status = self.live.snapshot()["status"]
            if status == PAUSED:  # nothing else happened meanwhile: say again what was going on
                status = self._status_before_pause or ("robot moving" if self.busy else "idle")
            self.live.update(status=status)


def parse_move(board: chess.Board, text: str) -> chess.Move:
    """``text`` (UCI or SAN, as at the keyboard: :func:`~chessatron.game.keyboard.parse_command`) as a
    legal move on ``board``; :class:`IllegalMoveError` says in plain words what is wrong with it.

    >>> parse_move(chess.Board(), "e4"), parse_move(chess.Board(), "g1f3")
    (Move.from_uci('e2e4'), Move.from_uci('g1f3'))
    >>> parse_move(chess.Board(), "Ke2")
    Traceback (most recent call last):
    ...
    chessatron.errors.IllegalMoveError: 'Ke2': the king on e1 cannot go to e2: your own pawn stands there
    """
    result = parse_command(text, board)
    if isinstance(result, chess.Move):
        return result
    if isinstance(result, Rejection) and result.is_move:
        raise IllegalMoveError(f"{text!r}: {result.reason}")
    raise IllegalMoveError(f"{text!r} is not a move; write it like e4, Nf3, O-O or e2e4")
