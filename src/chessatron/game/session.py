"""A game session: players, the robot, the journal, the result.

One loop ties the pieces together: the side to move chooses (an engine, a keyboard, a script), the move is
journaled and flushed **before** the robot touches a piece, the robot carries it out through the GRBL link
(relocation by relocation, each one journaled as done), and the game ends on mate, stalemate, repetition,
the fifty/seventy-five-move rules, insufficient material, resignation or an agreed draw. A crash or a pulled
plug loses nothing: ``resume`` replays the journal, rebuilds the physical table and finishes a robot move
that was cut short. The players and how each chooses a move are in :mod:`.players`.
"""

from __future__ import annotations

import json
import logging
import math
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

import chess
import chess.engine

from .. import files
from ..config import Config
from ..errors import ChessatronError, ConfigError, HardwareError, IllegalMoveError, NoSparePieceError
from ..feedback.signals import LedSignals
from ..grbl.link import GrblLink
from ..grbl.stream import StreamProgress
from ..layout import Cell, Layout, MachinePoint, Node
from ..live import LiveLeds, LiveSensors, LiveState, colour_name
from ..planner import Plan, Planner, Relocation, castling_squares
from ..ports import LedStrip, OccupancySensor
from ..recognition import Ambiguous
from ..reset import ResetPlanner
from ..robot import Robot
from ..sim.hand import HandAction, SimulatedHand, perform
from ..sim.hand_style import HandStyle
from ..sim.world import SimWorld, register_world
from ..table import PhysicalPiece, PieceId, Table
from .buttons import ButtonMover, ButtonPanel, settings_for
from .clock import ChessClock, flag_outcome
from .engine import EnginePlayer, find_engine, parse_level
from .journal import GameMetadata, Journal, JournalState, read_journal
from .keyboard import Command, KeyboardPlayer
from .players import (
    BoardMover,
    EngineMover,
    InboxMover,
    KeyboardMover,
    Mover,
    PlayerSpec,
    Revision,
    ScriptMover,
    engine_level,
)
from .record import ClockSettings, GameRecord, Player, Result, Termination, termination_of, to_pgn
from .referee import Referee

LOGGER = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], None]

#: The status while the robot is held (a feed hold: the gantry waits, the magnet keeps its piece).
PAUSED = "paused (resume to go on)"
#: Without a robot, how long the sensors must show the arranged position before the game goes on.
ARRANGED_STILL_S = 0.3
#: The least time the engine thinks about a move when its clock runs low (seconds).
MIN_THINKING_S = 0.05
#: The engine accepts a draw offer when it is not better by more than this (centipawns, its own view)...
DRAW_EQUAL_CP = 30
#: ...but before this ply only when it stands worse than this: a chess computer plays the game out.
DRAW_EARLIEST_PLY = 40
DRAW_WORSE_CP = -100


class QuitRequested(KeyboardInterrupt):
    """The player asked to stop (typed ``quit``, or the input ended): the game stops as for Ctrl-C,
    journaled for ``play --resume``, but nobody was interrupted."""


def _cell(layout: Layout, node: Node) -> Cell:
    cell = layout.node_cell(node)
    if cell is None:
        raise ChessatronError(f"node {node!r} is not a cell's centre; a hand cannot put a piece there")
    return cell


def encode_relocation(relocation: Relocation) -> str:
    """A relocation as the journal keeps it: purpose and path by nodes (pieces are found by position)."""
    path = " ".join(f"{i},{j}" for i, j in relocation.path)
    return f"{relocation.purpose} {relocation.piece.id} {path}"


def decode_relocation(text: str, table: Table) -> Relocation:
    match = re.fullmatch(r"(\S+) (\S+) ((?:-?\d+,-?\d+ ?)+)", text.strip())
    if match is None:
        raise ChessatronError(f"the journal holds a robot operation it cannot read: {text!r}")
    nodes: tuple[Node, ...] = tuple(
        (int(a), int(b)) for a, b in (part.split(",") for part in match[3].split())
    )
    piece = table.piece_at(nodes[0])
    if piece is None:
        raise ChessatronError(f"no piece stands where the journal's operation {text!r} starts")
    return Relocation(piece, nodes, match[1])  # type: ignore[arg-type]


# --- movers ----------------------------------------------------------------------------------------


# --- the session -----------------------------------------------------------------------------------


@dataclass
class Outcome:
    result: Result
    termination: Termination | None


class Session:
    """Plays games on one machine (or the simulator), journaling everything."""

    def __init__(
        self,
        config: Config,
        *,
        games_dir: Path,
        speed: float | None = 1.0,
        emit: Emit | None = None,
        engine_path: str = "stockfish",
        keyboard: KeyboardPlayer | None = None,
        table: Table | None = None,
        live: LiveState | None = None,
    ) -> None:
        self.config = config
        self.layout: Layout = config.layout
        self.games_dir = games_dir
        self.speed = speed
        self._emit_out: Emit = emit or (lambda event: None)
        #: What watchers see (the terminal view, the web page); fed from the game thread.
        self.live = live if live is not None else LiveState(self.layout)
        #: Set from another thread to stop the game at the next move (it stays journaled).
        self.stop_requested = threading.Event()
        #: The game's chess clock while one runs (None: no clock); ``clock_now`` is its time source.
        self.clock: ChessClock | None = None
        self.clock_now: Callable[[], float] = time.monotonic
        #: Called after each piece of robot (or hand) work, e.g. to save the simulator's table.
        self.checkpoint: Callable[[Session], None] | None = None
        #: The players whose moves arrive from elsewhere (the web page), by colour, while a game runs.
        self.inboxes: dict[chess.Color, InboxMover] = {}
        self.engine_path = engine_path
        self.keyboard = keyboard or KeyboardPlayer()
        self.planner = Planner(self.layout)
        self.resetter = ResetPlanner(self.planner)
        self.table = table if table is not None else Table.from_board(self.layout, chess.Board())
        self._stack = ExitStack()
        self.robot: Robot | None = None
        self.world: SimWorld | None = None
        # after a resume: the last move, its unfinished relocations, and whether none were planned yet
        self._pending: tuple[chess.Move, list[tuple[int, Relocation]], bool] | None = None
        self._hints: EnginePlayer | None = None
        #: The engines of the players (an engine player, a simulated hand's brain) by colour and level.
        self._engines: dict[tuple[chess.Color, str], EnginePlayer] = {}
        self._board_movers: list[BoardMover] = []
        #: Held while the status and the machine's hold change together (a pause from another thread).
        self.status_lock = threading.Lock()
        self._sensors: OccupancySensor | None = None
        self._leds: LiveLeds | None = None
        self._buttons: ButtonPanel | None = None
        self._journal_stem: str | None = None
        self._journal: Journal | None = None
        # after a resume: a person's last move the journal lacks the pieces of (journaled on resuming)
        self._unjournaled: list[Relocation] = []
        # after a resume: a person's finished relocations whose "done" the journal lacks
        self._hand_done_unjournaled: list[int] = []
        self._specs: dict[chess.Color, PlayerSpec] = {}
        #: How a simulated person (a ``hand`` player) handles the pieces, and whether it answers a
        #: question itself (by lifting the capturing piece again) or leaves it to the page.
        self.hand_style: HandStyle = HandStyle.calm()
        self.hand_answers = True
        #: The keeper of an online game (its server): see :mod:`.referee`. None for a game kept here.
        self.referee: Referee | None = None

    def emit(self, event: dict[str, Any]) -> None:
        """Tell the caller (and the watchers) what happened."""
        kind = event.get("event")
        if kind in ("notice", "warning"):
            self.live.notice(str(event.get("message")), "warning" if kind == "warning" else "info")
        self._emit_out(event)

    # --- machine -----------------------------------------------------------------------------------

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            for engine in self._engines.values():
                engine.close()
            self._engines.clear()
        finally:
            self._stack.close()

    def check_players(self, white: PlayerSpec, black: PlayerSpec) -> list[tuple[chess.Color, str]]:
        """Whether the players can play here, without starting anything: a hand or board player has the
        table it needs, the engine program is there. Returns the engine levels they need, by colour.

        Raises :class:`~chessatron.errors.ConfigError`, :class:`~chessatron.errors.EngineMissingError`.
        """
        sensors = self.config.urls["sensors"]
        wanted: list[tuple[chess.Color, str]] = []
        for colour, spec in ((chess.WHITE, white), (chess.BLACK, black)):
            if spec.kind == "hand" and not sensors.startswith("sim"):
                raise ConfigError(
                    f"the hand player needs the simulator, but the sensors are {sensors!r}; "
                    "use the simulator's config or play with --white board"
                )
            if spec.kind == "online" and self.referee is None:
                raise ConfigError(
                    "an online opponent plays through its server: start or continue online games with "
                    "`chessatron online`"
                )
            if spec.kind == "buttons" and self.config.urls["buttons"].startswith("none"):
                raise ConfigError(
                    "the buttons player needs buttons, but the [buttons] url is 'none://'; name them in the "
                    "config (buttons://?up=5&down=6&left=13&right=19&select=26&back=21, or "
                    "sim://?script=… on the simulator) or play with --white keyboard"
                )
            if spec.kind == "board" and sensors.startswith("none"):
                raise ConfigError(
                    f"a board player needs sensors, but the [sensors] url is {sensors!r}; "
                    "set it in the config (chessatron config init) or play with --white keyboard"
                )
            level = engine_level(spec)
            if level is not None:
                parse_level(level)
                wanted.append((colour, level))
        if wanted:
            find_engine(self.engine_path)
        return wanted

    def start_players(self, white: PlayerSpec, black: PlayerSpec) -> None:
        """Get the players ready (:meth:`check_players`, then start the engine of an engine player or of a
        simulated hand, so that an engine that does not run or a level it cannot play is said before
        the game goes on). Engines stay running for the next game with the same players.

        Raises :class:`~chessatron.errors.ConfigError` and the engine's errors
        (:class:`~chessatron.errors.EngineMissingError`...).
        """
        self._start_engines(self.check_players(white, black))

    def _start_engines(self, wanted: list[tuple[chess.Color, str]]) -> None:
        """Run the engines ``wanted`` (by colour and level, as :meth:`check_players` says); close others."""
        for key in [key for key in self._engines if key not in wanted]:
            self._engines.pop(key).close()
        for colour, level in wanted:
            self._engine(colour, level)

    def _engine(self, colour: chess.Color, level: str) -> EnginePlayer:
        """The running engine that plays (or moves the hand of) ``colour`` at ``level``."""
        engine = self._engines.get((colour, level))
        if engine is None:
            engine = EnginePlayer(parse_level(level), engine=self.engine_path)
            self._engines[(colour, level)] = engine
        return engine

    def connect(self) -> None:
        """Open the GRBL link (on the simulator: a simulated table holding this session's pieces)."""
        url = self.config.urls["grbl"]
        if url.startswith("none"):
            self._connect_without_robot()
            return
        if url.startswith("sim"):
            name = url.split("://", 1)[1].split("?", 1)[0] or "default"
            self.world = register_world(SimWorld(self.layout, self.table, name=name))
            speed = "max" if self.speed is None else f"{self.speed:g}"
            joiner = "&" if "?" in url else "?"
            url = f"{url}{joiner}speed={speed}&homing=0" if "speed=" not in url else url
        link = self._stack.enter_context(GrblLink(url, layout=self.layout, baudrate=self.config.baudrate))
        for warning in link.connect():
            if self.world is not None and "homing is off" in warning:
                continue  # the simulated gantry starts at home; this session turned homing off itself
            self.emit({"event": "warning", "message": warning})
        # before any game is journaled: a board locked since power-up or by an alarm is homed, or the
        # error says what to do (GrblLockedError)
        if (self.config.home or link.is_locked) and link.settings.get(22) == 1:
            self.emit({"event": "notice", "message": "homing the gantry (grbl is silent until it is done)"})
        link.ready(home=self.config.home)
        self.robot = Robot(self.layout, link, self.table, sensors=self._table_sensors())
        self.live.show_table(self.table, ())
        self.live.show_gantry(self.gantry, state="Idle")
        self.emit({"event": "connected", "url": url})

    def _connect_without_robot(self) -> None:
        """A board without a robot: the players move every piece. On the simulator a simulated person
        (a hand) does what the LEDs ask, and the simulated sensors watch the table."""
        sensors_url = self.config.urls["sensors"]
        if sensors_url.startswith("sim"):
            name = sensors_url.split("://", 1)[1].split("?", 1)[0] or "default"
            self.world = register_world(SimWorld(self.layout, self.table, name=name))
        self._table_sensors()
        self.live.show_table(self.table, ())
        self.emit({"event": "connected", "url": "none://", "robot": False})

    def current_board(self) -> chess.Board | None:
        """The position of the game under way (as journaled), None between games."""
        journal = self._journal
        return journal.board() if journal is not None and not journal.closed else None

    def _say(self, status: str, *, robot: bool = False) -> None:
        """Show ``status``; for robot work while the machine is held (paused from elsewhere), the pause."""
        with self.status_lock:  # a pause from another thread comes wholly before or after
            held = robot and self.robot is not None and self.robot.link.is_held
            self.live.update(status=PAUSED if held else status)

    def _forget_players(self) -> None:
        """The game is over: its board players (their LEDs and sensor logs close with it) and inboxes go."""
        self._board_movers.clear()
        self.inboxes = {}
        if self._buttons is not None:
            self._buttons.reset()
        if self.live.snapshot().get("question") is not None:
            self.live.update(question=None)

    @property
    def has_robot(self) -> bool:
        return self.robot is not None

    def led_strip(self) -> LedStrip:
        """The table's LEDs (opened once), shown on the live state too."""
        if self._leds is None:
            from ..feedback.leds import open_leds

            strip = self._stack.enter_context(open_leds(self.config.urls["leds"], self.layout))
            self._leds = LiveLeds(self.live, strip)
        return self._leds

    def button_panel(self) -> ButtonPanel | None:
        """The buttons beside the board with what shows their cursor (opened once; None without
        buttons): the LEDs, the config's display (a ``terminal://`` one is the terminal view, which
        draws the cursor from the live state) and the live state."""
        if self._buttons is None:
            url = self.config.urls["buttons"]
            if url.startswith("none"):
                return None
            from ..buttons import open_buttons
            from ..feedback.display import open_display

            pad = self._stack.enter_context(open_buttons(url))
            display = None
            if not self.config.urls["display"].startswith(("terminal", "none")):
                display = self._stack.enter_context(open_display(self.config.urls["display"]))
            leds = self.led_strip()
            self._buttons = ButtonPanel(pad, self.layout, leds=leds, display=display, live=self.live)
        return self._buttons

    def _arrange_by_hand(self, target: chess.Board, why: str) -> None:
        """No robot: the players arrange the pieces as ``target`` shows (a set-up, a takeback); the LEDs
        show the squares to fill and to clear, the sensors confirm. On the simulator a simulated person
        does it."""
        plan = self.resetter.plan(self.table, target, at=self.gantry)
        before = self.table.copy()
        plan.apply(self.table)  # where the pieces will stand (the model; the sensors confirm the board)
        self.emit({"event": "arrange", "why": why, "fen": target.board_fen()})
        self.live.update(status=f"{why}: please arrange the pieces as shown")
        if self.world is not None:
            moved = [
                piece for piece in self.table if before.node_of(piece.id) != self.table.node_of(piece.id)
            ]
            actions = [
                HandAction(0.0, "lift", _cell(self.layout, before.node_of(p.id)), p.symbol, why, p.id)
                for p in moved
            ] + [
                HandAction(0.0, "place", _cell(self.layout, self.table.node_of(p.id)), p.symbol, why, p.id)
                for p in moved
            ]
            perform(self.world, actions)
        sensors = self._table_sensors()
        if sensors is None:
            return  # nothing can confirm it: the players are trusted
        wanted = {self.layout.square_cell(square) for square in chess.SquareSet(target.occupied)}
        board_cells = set(self.layout.board_cells())
        leds = self.led_strip()
        signals = LedSignals(self.layout)
        still_since: float | None = None
        while True:
            if self.stop_requested.is_set():
                raise KeyboardInterrupt
            seen = set(sensors.scan()) & board_cells
            missing, extra = wanted - seen, seen - wanted
            if not missing and not extra:
                now = time.monotonic()
                still_since = still_since if still_since is not None else now
                if now - still_since >= ARRANGED_STILL_S:
                    break
            else:
                still_since = None
                colours = {cell: signals.colours.destination for cell in missing}
                colours.update({cell: signals.colours.illegal for cell in extra})
                leds.show(colours)
            time.sleep(0.02)
        leds.show({})
        self.live.show_table(self.table, ())

    def _move_by_hand(self, board: chess.Board, move: chess.Move, stack: ExitStack) -> None:
        """No robot: the LEDs show the move (from and to), a player makes it, the sensors confirm it."""
        san = board.san(move)
        self.emit({"event": "your-hands", "uci": move.uci(), "san": san})
        self.live.update(status=f"please make the move {san} for {colour_name(board.turn)}")
        carrier = self._carrier(stack, board)
        if carrier is None:
            self.planner.plan_move(self.table, board, move, at=self.gantry).apply(self.table)
            return  # no sensors: nothing to confirm
        if carrier.hand is None:
            # a real person: where the captured piece went the zone sensors tell, once the move is made
            self.planner.plan_move(self.table, board, move, at=self.gantry).apply(self.table)
        carrier.carry_out(board, move)
        if carrier.hand is None:
            self._follow_zone_sensors()

    def _carrier(self, stack: ExitStack, board: chess.Board) -> BoardMover | None:
        """Who carries out moves on a board without a robot: the board's recognizer (with a simulated
        hand on the simulator), None without sensors."""
        if self._board_movers:
            return self._board_movers[0]
        if self._table_sensors() is None:
            return None
        kind: Literal["hand", "board"] = "hand" if self.world is not None else "board"
        return self._board_mover(PlayerSpec(kind), stack, board, board.turn, carrier=True)

    def _table_sensors(self) -> OccupancySensor | None:
        """The table's sensors, shared by the robot (to verify its moves) and a board player."""
        if self._sensors is None:
            from ..sensors import open_sensor

            url = self.config.urls["sensors"]
            if url.startswith("none"):
                return None
            world = self.world if url.startswith("sim") else None
            if url.startswith("sim") and world is None:
                return None
            sensor = self._stack.enter_context(open_sensor(url, self.layout, world=world))
            self._sensors = LiveSensors(self.live, sensor)
        return self._sensors

    def run_plan(
        self, plan: Plan, title: str, journal: Journal | None, indices: list[int] | None = None
    ) -> None:
        """Execute a plan, journaling it first (unless ``indices`` says it is the rest of a journaled
        one: then each relocation is journaled as done under its original index)."""
        robot = self.robot
        if robot is None:
            raise HardwareError("the robot is not connected; call connect() first")
        if journal is not None and plan.relocations and indices is None:
            journal.robot_begin([encode_relocation(r) for r in plan.relocations])

        total = len(plan.relocations)
        live = self.live

        def step(index: int, relocation: Relocation) -> None:
            if journal is not None:
                journal.robot_done(index if indices is None else indices[index])
            for mover in self._board_movers:
                mover.observe(0.25)
            live.show_table(self.table)
            following = plan.relocations[index + 1].path if index + 1 < total else ()
            live.show_gantry(
                self.layout.node_mm(relocation.goal),
                path=following,
                work={"title": title, "index": index + 1, "of": total},
            )
            self.emit({"event": "relocation", "index": index, "of": total, "what": str(relocation)})

        def progress(report: StreamProgress) -> None:
            status = report.status
            if status is not None and status.mpos is not None:
                live.show_gantry((status.mpos[0], status.mpos[1]), state=status.state)

        if total:
            live.show_table(self.table, plan.relocations)
            live.show_gantry(
                self.gantry, path=plan.relocations[0].path, work={"title": title, "index": 0, "of": total}
            )
        execution = None
        try:
            execution = robot.execute(plan, title, on_step=step, on_progress=progress)
        finally:
            # a machine that finished is idle; one that stopped keeps the state it last reported (Alarm)
            idle = "Idle" if execution is not None and execution.ok else None
            live.show_gantry(self.gantry, path=(), work=None, state=idle)
            if self.checkpoint is not None:
                self.checkpoint(self)
        if not execution.ok:
            problems = "; ".join(execution.problems()) or "the machine stopped"
            raise HardwareError(f"{title}: {problems}; fix it and continue with `chessatron play --resume`")

    @property
    def gantry(self) -> MachinePoint:
        return self.robot.writer.position if self.robot is not None else self.layout.home_mm

    # --- games -------------------------------------------------------------------------------------

    def new_game(
        self,
        white: PlayerSpec,
        black: PlayerSpec,
        start: chess.Board,
        clock: ClockSettings | None = None,
        *,
        players: tuple[Player, Player] | None = None,
        site: str = "",
        online: Mapping[str, Any] | None = None,
    ) -> Journal:
        """Journal a new game (with a chess clock of ``clock`` if given) and set the table up for it.

        ``players`` names them in the record (default: as their specs say), ``site`` is where the game is
        played, ``online`` what an online game's journal keeps about it on its server.

        The players are checked first (:meth:`check_players`) and their engines started before anything
        moves: a game whose players cannot play leaves no journal behind."""
        engines = self.check_players(white, black)
        # the table before the set-up: a set-up cut short resumes from it
        config: dict[str, Any] = {"white": white.spec, "black": black.spec, "table": encode_table(self.table)}
        if online is not None:
            config["online"] = dict(online)
        metadata = GameMetadata(
            white=players[0] if players else white.player(),
            black=players[1] if players else black.player(),
            start_fen=start.fen(),
            chess960=start.chess960,
            clock=clock,
            site=site,
            config=config,
        )
        journal = Journal.create(self.games_dir, metadata)
        try:
            self._start_engines(engines)
        except ChessatronError:
            try:
                journal.discard()  # the game never began: nothing for `play --resume` to pick up
            except ChessatronError as exc:  # the players' error is the one to tell
                LOGGER.warning("%s", exc)
            raise
        except BaseException:
            journal.close()  # stopped while the players started: the game can be resumed
            raise
        self._journal = journal
        shown = (white.spec, black.spec) if players is None else (metadata.white.name, metadata.black.name)
        self.live.show_board(start, game_id=metadata.game_id, players=shown)
        self.live.update(status="setting up", hint=None, evaluation=None, notices=[])
        self.emit({"event": "game", "id": metadata.game_id, "fen": start.fen(), "chess960": start.chess960})
        try:
            if not self.has_robot:
                before = self.table.placement()
                self._arrange_by_hand(start, "set up")
                self._journal_by_hand(journal, before)
                return journal
            plan = self.resetter.plan(self.table, start, at=self.gantry)
            self.emit({"event": "setup", "relocations": len(plan.relocations)})
            self.run_plan(plan, "SETUP", journal)
        except BaseException:
            journal.close()  # unlocked: `play --resume` can take the game up
            raise
        return journal

    def resume(self, path: Path) -> tuple[Journal, PlayerSpec, PlayerSpec]:
        """Rebuild the table from the journal (set-up arrangement, then every move's plan) and finish a
        robot move that was cut short."""
        state = read_journal(path)
        if state.is_finished:
            raise ChessatronError(f"the game in {str(path)!r} is finished; start a new one")
        online = state.metadata.config.get("online")
        if isinstance(online, dict) and self.referee is None:
            raise ChessatronError(
                f"game {state.metadata.game_id!r} is an online game on {online.get('url')!r}; continue it "
                f"with `chessatron online --game {online.get('game')}`"
            )
        white = PlayerSpec.parse(str(state.metadata.config.get("white", "engine")))
        black = PlayerSpec.parse(str(state.metadata.config.get("black", "engine")))
        self.start_players(white, black)
        self._rebuild_table(state, path)
        journal = Journal.open(path)
        self._journal = journal
        self.live.show_board(
            journal.board(), game_id=state.metadata.game_id, players=(white.spec, black.spec)
        )
        self.emit({"event": "resumed", "id": state.metadata.game_id, "plies": len(state.moves)})
        return journal, white, black

    def _rebuild_table(self, state: JournalState, path: Path) -> None:
        """The physical table as the journal says the robot left it: the set-up arrangement, then all
        journaled robot work in order (moves, takebacks), only the finished part of the last one."""
        start = chess.Board(state.metadata.start_fen, chess960=state.metadata.chess960)
        table = Table.from_board(self.layout, start)
        work = _robot_entries(path)
        before_setup = state.metadata.config.get("table")
        unfinished_setup = bool(work) and work[0][0] == 0 and len(work[0][2]) < len(work[0][1])
        if unfinished_setup and before_setup is not None and not state.moves:
            table = decode_table(before_setup, self.layout)  # replay the set-up's finished drags
        elif work and work[0][0] == 0 and not state.moves:
            work = work[1:] if not unfinished_setup else []  # a finished set-up
        elif work and work[0][0] == 0:
            work = work[1:]  # the set-up ended in the arrangement the table starts from
        self._pending = None
        self._unjournaled = []
        self._hand_done_unjournaled = []
        for number, (ply, operations, done) in enumerate(work):
            scratch = table.copy()
            decoded = []
            for index, text in enumerate(operations):
                relocation = decode_relocation(text, scratch)
                scratch.relocate(relocation.piece.id, relocation.goal)
                decoded.append((index, relocation))
            if decoded and all(relocation.purpose == "hand" for _, relocation in decoded):
                # people moved them all; only the writing stopped (journaled as done when the game goes on)
                if number == len(work) - 1:
                    self._hand_done_unjournaled = [index for index, _ in decoded if index not in done]
                done = {index for index, _ in decoded}
            for index, relocation in decoded:
                if index in done:
                    table.relocate(relocation.piece.id, relocation.goal)
            if len(done) < len(decoded):
                if number != len(work) - 1:
                    raise ChessatronError(
                        f"the journal's robot work for ply {ply} is incomplete; it cannot be resumed"
                    )
                remaining = [(i, r) for i, r in decoded if i not in done]
                self._pending = (state.moves[-1].move if state.moves else chess.Move.null(), remaining, False)
        planned_through = work[-1][0] if work else 0
        if state.moves and planned_through < len(state.moves) and self._pending is None:
            if _made_by_hand(state.moves[-1].who):
                # a person had made it (the process stopped before its pieces were journaled): the model
                # follows the move; the sensors check the table when the game goes on
                before = chess.Board(state.metadata.start_fen, chess960=state.metadata.chess960)
                for entry in state.moves[:-1]:
                    before.push(entry.move)
                placement = table.placement()
                self.planner.plan_move(table, before, state.moves[-1].move, at=self.gantry).apply(table)
                self._unjournaled = hand_operations(self.layout, placement, table)
            else:
                self._pending = (state.moves[-1].move, [], True)  # journaled, the robot had not begun
        self.table = table
        if self.robot is not None:  # connected before the resume (a runner's session): it moves this one
            self.robot.table = table

    def play(
        self, journal: Journal, white: PlayerSpec, black: PlayerSpec, *, max_plies: int | None = None
    ) -> GameRecord:
        """Play the journaled game to its end."""
        board = journal.board()
        self._specs = {chess.WHITE: white, chess.BLACK: black}
        self._journal_stem = journal.path.name.removesuffix(".jsonl")
        with ExitStack() as stack:
            self.inboxes = {}
            stack.callback(self._forget_players)  # however the game ends (a stop is a KeyboardInterrupt)
            movers = {
                chess.WHITE: self._mover(white, chess.WHITE, stack, board),
                chess.BLACK: self._mover(black, chess.BLACK, stack, board),
            }
            for mover in movers.values():
                if isinstance(mover, BoardMover):
                    mover.both_sides = movers[chess.WHITE] is movers[chess.BLACK]
            for index in self._hand_done_unjournaled:
                journal.robot_done(index)
            self._hand_done_unjournaled = []
            if self._unjournaled:
                journal.robot_begin([encode_relocation(op) for op in self._unjournaled])
                for index in range(len(self._unjournaled)):
                    journal.robot_done(index)
                self._unjournaled = []
            if self._pending is not None and not self.has_robot:
                self._pending = None
                self._arrange_by_hand(board, "resume")
            if self._pending is not None:
                move, remaining, unplanned = self._pending
                self._pending = None
                title = f"MOVE {len(board.move_stack)} {move.uci()} (resumed)"
                if unplanned:
                    # journaled, but the robot had not begun: plan it now from the table as it stands
                    before = board.copy()
                    before.pop()
                    self.run_plan(
                        self.planner.plan_move(self.table, before, move, at=self.gantry), title, journal
                    )
                elif remaining:
                    relocations = tuple(relocation for _, relocation in remaining)
                    plan = Plan(relocations, 0.0, self.gantry, self.layout.node_mm(relocations[-1].goal))
                    self.run_plan(plan, title, journal, indices=[index for index, _ in remaining])
                self.table.check_matches(board)
            outcome = self._outcome(board, journal)
            clock = self.clock = self._clock_for(journal)
            for mover in movers.values():
                if isinstance(mover, InboxMover | BoardMover):
                    mover.expired = self._flag_fell
                elif isinstance(mover, KeyboardMover):
                    waits = clock is not None or self.referee is not None
                    mover.expired = self._flag_fell if waits else None
                elif isinstance(mover, ButtonMover):
                    mover.expired = self._flag_fell
                    mover.hint = lambda: self.live.snapshot().get("hint")
                elif isinstance(mover, EngineMover):
                    mover.budget = self._thinking_budget
            plies = 0
            # the person whose move on the board the robot is about to answer (it must stand first)
            person: BoardMover | None = None
            while outcome is None:
                if self.stop_requested.is_set():
                    raise KeyboardInterrupt  # stopped from elsewhere: the game stays journaled
                if self.referee is not None and self.referee.halts():
                    break  # the server changed the game: the caller brings the table in step
                self.live.update(status=f"{colour_name(board.turn)} to move")
                if clock is not None:
                    clock.resume()
                    self.live.update(clock=clock.to_dict())
                before_choice = self.table.placement()
                choice = movers[board.turn].choose(board)
                if self.stop_requested.is_set():
                    raise KeyboardInterrupt
                if clock is not None and (flagged := clock.flagged()) is not None:
                    result, termination = flag_outcome(board, flagged)
                    outcome = self._finish(journal, Outcome(result, termination))
                    break
                if choice is None:
                    continue
                robot_answers = self.has_robot and not isinstance(movers[board.turn], BoardMover)
                if person is not None and robot_answers and not isinstance(choice, Revision):
                    # before the robot touches a piece: the person's move must stand (a slide paused on a
                    # legal square, rook-first castling, a piece set down on the wrong square go on)
                    revised = person.confirm(board, reply_hold_s(board, may_go_on=person.may_go_on))
                    if revised is not None:
                        choice = revised
                if isinstance(choice, Revision):
                    # (the revised move, too, must stand before the robot answers it)
                    self._revised_on_board(board, journal, choice)
                    board = journal.board()
                    if clock is not None:
                        self.clock = clock = self._clock_for(journal)
                    continue
                if isinstance(choice, Command):
                    if clock is not None and choice == Command.TAKEBACK:
                        clock.pause()
                    mover = movers[board.turn]
                    if isinstance(mover, BoardMover) and mover.took_back > 0:
                        if self.referee is None or self.referee.takes_back(board) == mover.took_back:
                            self._taken_back_on_board(board, journal, mover.took_back)
                        else:  # not agreed: the pieces go back where the game stands
                            mover.restart(board)
                            self.emit(
                                {
                                    "event": "notice",
                                    "message": "the takeback was not agreed: put the moves back",
                                }
                            )
                        outcome = None
                    else:
                        outcome = self._command(choice, board, journal)
                    if outcome is None:
                        board = journal.board()
                        if clock is not None and choice == Command.TAKEBACK:
                            self.clock = clock = self._clock_for(journal)
                    continue
                playable = self._playable(choice, board, movers[board.turn])
                if playable is None:
                    continue
                choice = playable
                current = movers[board.turn]
                if self.referee is not None and isinstance(current, BoardMover):
                    # the server hears of a move made on the board only once it stands: it cannot be
                    # revised there
                    played = board.copy()
                    played.push(choice)
                    revision = current.confirm(played, reply_hold_s(played, may_go_on=current.may_go_on))
                    if revision is not None:
                        if not revision.moves:
                            continue  # withdrawn: the person moves again
                        choice = revision.moves[0]
                who = (white if board.turn == chess.WHITE else black).spec
                uci = board.uci(choice)
                # the mover's clock stops with the decision: the robot's work is charged to nobody
                clock_ms = clock.press(board.turn) if clock is not None else None
                if clock is not None:
                    clock.pause()
                    self.live.update(clock=clock.to_dict())
                entry = journal.record_move(choice, who=who, clock_ms=clock_ms)
                self.emit({"event": "move", "ply": entry.ply, "uci": uci, "san": entry.san, "who": who})
                if self.referee is not None:
                    self.referee.moved(board, choice)  # on its way to the server before the robot moves
                # the move is the player's once journaled: watchers see it now, the robot catches up
                shown = board.copy()
                shown.push(choice)
                self.live.show_board(shown)
                mover = movers[board.turn]
                person = mover if isinstance(mover, BoardMover) else None
                if self.referee is None:  # no engine's view in a game played online
                    engine = mover.engine if isinstance(mover, EngineMover) else None
                    self._show_evaluation(board, choice, engine)
                if not self.has_robot and not isinstance(mover, BoardMover):
                    self._move_by_hand(board, choice, stack)
                    self._journal_by_hand(journal, before_choice)
                elif isinstance(mover, BoardMover):
                    if mover.hand is None:
                        # a real person moved the pieces; where a captured piece went only the zone
                        # sensors can tell: assume the place the robot would have used, verified later
                        self.planner.plan_move(self.table, board, choice, at=self.gantry).apply(self.table)
                        self._follow_zone_sensors()
                    # journaled as finished work, so that a resume rebuilds the table as the person left it
                    self._journal_by_hand(journal, before_choice)
                else:
                    if any(other.hand is None for other in self._board_movers):
                        self._follow_zone_sensors()  # a person may have moved a captured piece since
                    plan = self.planner.plan_move(self.table, board, choice, at=self.gantry)
                    self._say("robot moving", robot=True)
                    self.run_plan(plan, f"MOVE {entry.ply} {uci}", journal)
                for other in {id(m): m for m in movers.values()}.values():
                    if isinstance(other, BoardMover) and other is not mover and self.has_robot:
                        other.apply(choice)  # (without a robot its recognizer saw the move made)
                board.push(choice)
                self.table.check_matches(board)
                self.live.show_board(board)
                self.live.show_table(self.table, ())
                plies += 1
                outcome = self._outcome(board, journal)
                if outcome is None and max_plies is not None and plies >= max_plies:
                    break
            if clock is not None:
                clock.pause()
                self.live.update(clock=clock.to_dict())
            for board_mover in self._board_movers:
                # the sensor log ends with the last move standing still, so that a replay commits it
                board_mover.observe(board_mover.recognizer.settle_s + 0.1)
            self._board_movers.clear()  # their LEDs and logs close with this game
            self.inboxes = {}
        record = journal.state.to_record()
        if outcome is not None:
            self.live.show_board(board, result=outcome.result, termination=outcome.termination)
            self.live.update(status=f"{outcome.result} ({outcome.termination or 'game over'})", prompt=None)
            self.emit({"event": "result", "result": outcome.result, "termination": outcome.termination})
        return record

    def _clock_for(self, journal: Journal) -> ChessClock | None:
        """The game's clock as the journal left it (paused), None for a game without one."""
        if journal.state.metadata.clock is None:
            return None
        clock = ChessClock.from_journal(journal.state, now=self.clock_now)
        self.live.update(clock=clock.to_dict())
        return clock

    def _thinking_budget(self, board: chess.Board) -> float | None:
        """How long the engine may think on its clock: a thirtieth of its time left and most of the
        increment, so that it never loses on time for thinking too long. None without a clock."""
        clock, settings = self.clock, self._journal.state.metadata.clock if self._journal else None
        if clock is None or settings is None:
            return None
        left_s = clock.remaining_ms(board.turn) / 1000
        return max(MIN_THINKING_S, left_s / 30 + 0.8 * settings.increment_s)

    def _flag_fell(self) -> bool:
        """Whether a waiting player must stop waiting: the flag fell, the game is being stopped, or the
        referee halts the game."""
        clock = self.clock
        return (
            (clock is not None and clock.flagged() is not None)
            or self.stop_requested.is_set()
            or (self.referee is not None and self.referee.halts())
        )

    def _show_evaluation(self, board: chess.Board, move: chess.Move, engine: EnginePlayer | None) -> None:
        """The engine's view of the position after ``move``: what the ``engine`` that played it saw in its
        search (:func:`evaluation_after`); when it played another move than its search's first (a weaker
        level) or a player made the move, a short search at full strength by this game's engine (none
        runs: nothing). Nothing once the game is over."""
        evaluation = evaluation_after(board, move, engine.last_info) if engine is not None else None
        after = board.copy(stack=False)
        after.push(move)
        if evaluation is None and self._engines and not after.is_game_over():
            try:
                evaluation = evaluation_of(after, self._adviser().analyse(after))
            except ChessatronError as exc:  # the game goes on without the engine's view
                LOGGER.warning("no evaluation of %s: %s", after.fen(), exc)
        self.live.update(evaluation=evaluation)

    def _mover(self, spec: PlayerSpec, colour: chess.Color, stack: ExitStack, board: chess.Board) -> Mover:
        if spec.kind == "online":
            if self.referee is None:
                raise ConfigError("an online opponent plays through its server: use `chessatron online`")
            return self.referee.mover(colour)
        if spec.moves_pieces:
            return self._board_mover(spec, stack, board, colour)
        if spec.kind == "engine":
            return EngineMover(self._engine(colour, spec.spec))
        if spec.kind == "script":
            assert spec.path is not None
            return ScriptMover(spec.path)
        if spec.kind == "web":
            inbox = InboxMover(colour, self.live)
            self.inboxes[colour] = inbox
            return inbox
        if spec.kind == "buttons":
            panel = self.button_panel()
            if panel is None:
                raise ConfigError("the buttons player needs buttons: set [buttons] url in the config")
            opponent = self._specs.get(not colour, PlayerSpec("keyboard"))
            return ButtonMover(panel, colour, settings_for(opponent, board.root()))
        return KeyboardMover(self.keyboard)

    def _command(self, command: Command, board: chess.Board, journal: Journal) -> Outcome | None:
        """A keyboard command; returns the outcome when it ends the game."""
        if command == Command.QUIT:
            raise QuitRequested  # the game stays journaled: `play --resume` continues it
        if command == Command.TAKEBACK and self.referee is not None:
            plies = self.referee.takes_back(board)
            if plies:
                self._take_back(board, journal, plies)
            return None
        if self.referee is not None and not self.referee.allows(board, command):
            return None
        if command == Command.RESIGN:
            journal.resign(board.turn)  # the journal records the resignation as the result
            result: Result = "0-1" if board.turn == chess.WHITE else "1-0"
            return Outcome(result, "resignation")
        if command == Command.HINT:
            self._say(f"finding a hint for {colour_name(board.turn)}")
            try:
                hint = self._adviser().hint(board)
            except ChessatronError as exc:  # no engine to ask: the game goes on without hints
                self.emit({"event": "notice", "message": f"no hint: {exc}"})
                return None
            self.live.update(hint={"uci": board.uci(hint), "san": board.san(hint), "fen": board.fen()})
            self.emit({"event": "hint", "uci": board.uci(hint), "san": board.san(hint)})
            return None
        if command == Command.DRAW:
            return self._draw(board, journal)
        if command == Command.TAKEBACK:
            self._take_back(board, journal)
        return None

    def _playable(self, move: chess.Move, board: chess.Board, mover: Mover) -> chess.Move | None:
        """The move, or for a promotion to a piece the table does not have (a fourth rook) the nearest
        piece it has; a keyboard player is asked again instead (None)."""
        if (
            move.promotion is None
            or isinstance(mover, BoardMover)
            or self._specs[board.turn].kind == "online"
        ):
            return move  # a person's piece, or the server's move: the table finds the piece (or says why not)
        for piece_type in (move.promotion, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT):
            try:
                self.table.spares(chess.Piece(piece_type, board.turn).symbol())
            except NoSparePieceError:
                continue
            if piece_type == move.promotion:
                return move
            name = chess.piece_name(move.promotion)
            if isinstance(mover, KeyboardMover | ButtonMover):
                self.emit(
                    {"event": "notice", "message": f"the table has no spare {name}; choose another piece"}
                )
                return None
            self.emit(
                {
                    "event": "notice",
                    "message": f"no spare {name} on the table: promoting to a {chess.piece_name(piece_type)}",
                }
            )
            return chess.Move(move.from_square, move.to_square, piece_type)
        raise NoSparePieceError(f"the table has no piece left to promote to in {board.fen()!r}")

    def _board_mover(
        self,
        spec: PlayerSpec,
        stack: ExitStack,
        board: chess.Board,
        colour: chess.Color,
        *,
        carrier: bool = False,
    ) -> BoardMover:

        for mover in self._board_movers:
            return mover  # one table, one recognizer: both sides at the board share it
        url = self.config.urls["sensors"]
        sim = url.startswith("sim")
        if spec.kind == "hand" and (not sim or self.world is None):
            raise ConfigError("the hand player needs the simulator (sim:// GRBL and sensors)")
        world = self.world if sim else None
        sensors = self._table_sensors()
        if sensors is None:
            raise ConfigError(f"a board player needs sensors; [sensors] url is {url!r}")
        hand = brain = None
        if spec.kind == "hand":
            hand = SimulatedHand(
                random.Random(len(board.move_stack)), self.hand_style, table=self.table, table_visible=True
            )
            level = engine_level(spec)
            if not carrier and level is not None:
                brain = self._engine(colour, level)
        leds = self.led_strip()
        log = stack.enter_context(self._sensor_log())
        mover = BoardMover(
            self.layout,
            sensors,
            board,
            hand=hand,
            brain=brain,
            world=world,
            leds=leds,
            log=log,
            hand_answers=self.hand_answers,
        )
        mover.on_question = self._ask
        mover.on_notice = lambda message: self.emit({"event": "notice", "message": message})
        mover.prompter = self.button_panel()  # buttons beside the board answer its prompts
        self._board_movers.append(mover)
        return mover

    def _ask(self, question: Ambiguous | None) -> None:
        """The board fits several moves: say so wherever the player looks, until it is settled."""
        if question is None:
            if self.live.snapshot().get("question") is not None:
                self.live.update(question=None)
                self.emit({"event": "question", "question": None})
            return
        options = [
            {"uci": move.uci(), "san": san}
            for move, san in zip(question.options, question.option_sans, strict=True)
        ]
        asked = {"text": question.question, "ply": question.ply, "options": options}
        self.live.update(question=asked)
        self.emit({"event": "question", "question": asked})

    @property
    def question(self) -> Ambiguous | None:
        """The question a person at the board is asked, if any."""
        return next((m.recognizer.question for m in self._board_movers if m.recognizer.is_asking), None)

    def answer(self, text: str) -> chess.Move:
        """The player says which move they made (UCI or SAN, e.g. ``Bxf3``), answering the open question.
        Raises :class:`~chessatron.errors.IllegalMoveError` with what to do when there is no question or
        the move is not one of those asked about."""
        for mover in self._board_movers:
            question = mover.recognizer.question
            if question is None:
                continue
            move = option_named(question, text)
            mover.answers.put(move)
            return move
        raise IllegalMoveError("no question is open: the board shows a move, or none yet")

    @contextmanager
    def _sensor_log(self) -> Iterator[IO[str]]:
        """Every game with a board player records its raw snapshots (JSON lines, ``recognize`` replays
        them) beside its journal."""
        self.games_dir.mkdir(parents=True, exist_ok=True)
        name = self._journal_stem or "session"
        with (self.games_dir / f"{name}.sensors.jsonl").open("a", encoding="utf-8") as handle:
            yield handle

    def _adviser(self) -> EnginePlayer:
        """An engine for hints and draw offers: a player's, when one runs (one process less on a Pi; hints
        and evaluations search at full strength whatever its level), else one of its own."""
        for engine in self._engines.values():
            return engine
        if self._hints is None:
            self._hints = self._stack.enter_context(
                EnginePlayer(parse_level("engine"), engine=self.engine_path)
            )
        return self._hints

    def _draw(self, board: chess.Board, journal: Journal) -> Outcome | None:
        state = journal.state
        if state.draw_offer is not None and state.draw_offer != board.turn:
            journal.accept_draw(board.turn)  # the journal records the agreed draw as the result
            return Outcome("1/2-1/2", "agreed draw")
        journal.offer_draw(board.turn)
        opponent = self._specs[not board.turn]
        offering, other = colour_name(board.turn).capitalize(), colour_name(not board.turn).capitalize()
        if opponent.kind in ("engine", "hand"):
            score = self._adviser().evaluate(board)
            engine_view = None if score is None else score.pov(not board.turn).score(mate_score=100000)
            early = len(board.move_stack) < DRAW_EARLIEST_PLY
            if engine_view is not None and engine_view <= (DRAW_WORSE_CP if early else DRAW_EQUAL_CP):
                journal.accept_draw(not board.turn)
                return Outcome("1/2-1/2", "agreed draw")
            better = engine_view is None or engine_view > DRAW_EQUAL_CP
            why = "it thinks it stands better" if better else "it is too early in the game"
            message = f"{other} ({opponent.spec}) declines the draw ({why}); play on"
        elif opponent.kind == "script":
            message = f"{other} ({opponent.spec}) plays on: a script does not accept draws"
        elif opponent.kind == "web":
            message = f"{offering} offers a draw; {other} can accept it on the web page, or play on"
        elif opponent.kind == "keyboard":
            message = f"{offering} offers a draw; {other} can type 'draw' to accept it, or play on"
        else:
            message = f"{offering} offers {other} a draw"
        self.emit({"event": "notice", "message": message})
        return None

    def _take_back(self, board: chess.Board, journal: Journal, plies: int | None = None) -> None:
        """Take back the player's last move (and the engine's answer), or ``plies`` (as an online game's
        server did): the robot puts the pieces back."""
        opponent = self._specs[not board.turn]
        # against a player who types or clicks, the last move (whoever made it); against the engine, its
        # answer and the player's own move, so that the player has the move again
        if plies is None:
            plies = 2 if opponent.kind not in ("keyboard", "web", "buttons") else 1
        if len(board.move_stack) < plies:
            message = "there is no move to take back"
            if board.move_stack:
                message = f"{colour_name(board.turn).capitalize()} has made no move yet to take back"
            self.emit({"event": "notice", "message": message})
            return
        target = board.copy()
        for _ in range(plies):
            target.pop()
        journal.take_back(plies)
        self.emit({"event": "takeback", "plies": plies})
        self.live.show_board(target)  # taken back once journaled; the robot catches up
        moves = "the last move" if plies == 1 else f"the last {plies} moves"
        if self.has_robot:
            plan = self.resetter.plan(self.table, target, at=self.gantry)
            self._say(f"taking back {moves}", robot=True)
            self.run_plan(plan, f"TAKEBACK {plies}", journal)
        else:
            before = self.table.placement()
            self._arrange_by_hand(target, "take back")
            self._journal_by_hand(journal, before)
        self.table.check_matches(target)
        for mover in self._board_movers:
            mover.restart(target)
        self.live.show_board(target)
        self.live.show_table(self.table, ())

    def _journal_by_hand(self, journal: Journal | None, before: dict[PieceId, Node]) -> None:
        """Pieces people moved (a move, a takeback, a set-up) are journaled as robot work already
        finished, so that a resume rebuilds the table as they left it."""
        operations = hand_operations(self.layout, before, self.table)
        if operations and journal is not None:
            journal.robot_begin([encode_relocation(op) for op in operations])
            for index in range(len(operations)):
                journal.robot_done(index)
        if operations and self.checkpoint is not None:
            self.checkpoint(self)

    def _taken_back_on_board(self, board: chess.Board, journal: Journal, plies: int) -> None:
        """The player set the last ``plies`` back with their own hands: journal it; the pieces stand
        where they stood (captured ones back from the zones, as the sensors show)."""
        if plies > len(board.move_stack):
            return
        target = board.copy()
        for _ in range(plies):
            target.pop()
        journal.take_back(plies)
        self.emit({"event": "takeback", "plies": plies, "by": "hand"})
        before = self.table.placement()
        self.resetter.plan(self.table, target, at=self.gantry).apply(self.table)
        self._follow_zone_sensors()
        self._journal_by_hand(journal, before)
        self.table.check_matches(target)
        self.live.show_board(target)
        self.live.show_table(self.table, ())

    def _revised_on_board(self, board: chess.Board, journal: Journal, revision: Revision) -> None:
        """The person's last move was another (or none): journal it so, the pieces as the sensors see
        them. The robot has not answered it yet."""
        target = board.copy()
        target.pop()
        journal.take_back(1)
        before = self.table.placement()
        sans = []
        for move in revision.moves:
            who = self._specs[target.turn].spec
            entry = journal.record_move(move, who=who)
            sans.append(entry.san)
            target.push(move)
        self.emit(
            {
                "event": "revised",
                "undone": revision.undone.uci(),
                "uci": [m.uci() for m in revision.moves],
                "san": sans,
            }
        )
        self.resetter.plan(self.table, target, at=self.gantry).apply(self.table)
        self._follow_zone_sensors()
        self._journal_by_hand(journal, before)
        self.table.check_matches(target)
        self.live.show_board(target)
        self.live.show_table(self.table, ())

    def _follow_zone_sensors(self) -> None:
        """A person put pieces off the board (a capture, a takeback): where exactly, only the sensors under
        the zones can tell. Move the model's off-board pieces the sensors do not see to the off-board
        cells they see filled, nearest first."""
        sensors = self._sensors
        if sensors is None:
            return
        seen = {cell for cell in sensors.scan() if self.layout.cell_kind(cell) != "board"}
        model: dict[Cell, PhysicalPiece] = {}
        for piece in self.table:
            cell = self.layout.node_cell(self.table.node_of(piece.id))
            if cell is not None and self.layout.cell_kind(cell) != "board":
                model[cell] = piece
        unseen = [cell for cell in model if cell not in seen]
        unexplained = [cell for cell in seen if cell not in model]
        if not unseen or not unexplained:
            return
        pairs = sorted(
            ((math.dist(a, b), a, b) for a in unseen for b in unexplained), key=lambda item: item[0]
        )
        moved: set[Cell] = set()
        filled: set[Cell] = set()
        for _, old, new in pairs:
            if old in moved or new in filled:
                continue
            self.table.relocate(model[old].id, self.layout.cell_node(new))
            moved.add(old)
            filled.add(new)
        if len(moved) > 1:
            self.emit(
                {"event": "notice", "message": "several pieces moved beside the board; check the zones"}
            )

    def _outcome(self, board: chess.Board, journal: Journal) -> Outcome | None:
        state = journal.state
        if state.is_finished:
            return Outcome(state.result, state.termination)
        outcome = board.outcome(claim_draw=self.referee is None)
        if outcome is None:
            return None
        if self.referee is not None and outcome.termination not in (
            chess.Termination.CHECKMATE,
            chess.Termination.STALEMATE,
        ):
            return None  # the server rules on draws by material, repetition and move count
        return self._finish(journal, Outcome(outcome.result(), termination_of(outcome)))  # type: ignore[arg-type]

    def _finish(self, journal: Journal, outcome: Outcome) -> Outcome:
        journal.finish(outcome.result, outcome.termination)
        return outcome


#: Moves of the engine's line shown at most.
PV_SHOWN = 8


def evaluation_after(
    board: chess.Board, move: chess.Move, info: Mapping[str, object]
) -> dict[str, Any] | None:
    """The live state's ``evaluation`` after the engine played ``move`` on ``board``, from what it said
    while searching (``info``: its ``score``, ``pv`` and ``depth``): the score from White's side and the
    rest of its line, for the position after the move.

    None when the engine played another move than its line's first (a weaker level picks other
    moves): its score and line are about a game that did not happen.

    >>> from chess.engine import Cp, PovScore
    >>> info = {"score": PovScore(Cp(-30), chess.BLACK), "depth": 12, "pv": [chess.Move.from_uci("e7e5"),
    ...         chess.Move.from_uci("g1f3")]}
    >>> board = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    >>> evaluation_after(board, chess.Move.from_uci("e7e5"), info)["pv"]
    ['Nf3']
    >>> evaluation_after(board, chess.Move.from_uci("c7c5"), info) is None
    True
    """
    score = info.get("score")
    pv = info.get("pv")
    if not isinstance(score, chess.engine.PovScore) or not isinstance(pv, list) or not pv or pv[0] != move:
        return None
    after = board.copy(stack=False)
    after.push(move)
    mover = score.pov(board.turn)
    mate = mover.mate()
    if mate is not None and mate > 0:
        # "mate in 3" counts the mover's moves: one of them is played
        mover = chess.engine.Mate(mate - 1) if mate > 1 else chess.engine.MateGiven
    white = chess.engine.PovScore(mover, board.turn).white()
    return _evaluation(after, white, pv[1:], info.get("depth"))


def evaluation_of(board: chess.Board, info: Mapping[str, object]) -> dict[str, Any] | None:
    """The live state's ``evaluation`` of ``board`` from a search of that very position (``info``, as
    :meth:`EnginePlayer.analyse` returns it); None without a score.

    >>> from chess.engine import Cp, PovScore
    >>> info = {"score": PovScore(Cp(40), chess.WHITE), "depth": 12, "pv": [chess.Move.from_uci("e2e4")]}
    >>> evaluation = evaluation_of(chess.Board(), info)
    >>> evaluation["cp"], evaluation["mate"], evaluation["pv"], evaluation["fen"] == chess.STARTING_FEN
    (40, None, ['e4'], True)
    """
    score = info.get("score")
    if not isinstance(score, chess.engine.PovScore):
        return None
    pv = info.get("pv")
    return _evaluation(board, score.white(), pv if isinstance(pv, list) else [], info.get("depth"))


def _evaluation(
    board: chess.Board, white: chess.engine.Score, line: list[object], depth: object
) -> dict[str, Any]:
    """The score from White's side with the line from ``board`` in SAN (the legal start of it)."""
    replay = board.copy(stack=False)
    shown: list[str] = []
    for step in line[:PV_SHOWN]:
        if not isinstance(step, chess.Move) or not replay.is_legal(step):
            break
        shown.append(replay.san(step))
        replay.push(step)
    return {"cp": white.score(), "mate": white.mate(), "depth": depth, "pv": shown, "fen": board.fen()}


#: The robot answers a person's move once it has stood untouched this long: a slide paused on a square,
#: or a piece set down on the wrong one, mostly goes on within a second or so. (On the recognition bench's
#: human traces, revisions after the hold: 81 in 10,395 plies at 1 s, 52 at 1.5 s, 29 at 2.5 s; the rest
#: are pauses of seconds mid-move. The engine thinks meanwhile.)
REPLY_HOLD_S = 1.5
#: The same for a piece seen gliding that stopped where its line goes on: people pause on the way.
GLIDE_HOLD_S = 4.0
#: The same for a king step or a rook move that could be the first half of castling: people pause between
#: king and rook for several seconds, and such moves are rare otherwise (the wait costs little).
CASTLING_HOLD_S = 8.0


def reply_hold_s(board: chess.Board, *, may_go_on: bool = False) -> float:
    """How long the person's last move on ``board`` must stand before the robot answers it; ``may_go_on``:
    the sensors saw it glide and stop where it could go on (:meth:`Recognizer.may_go_on`).

    >>> board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    >>> board.push(chess.Move.from_uci("e1f1"))
    >>> reply_hold_s(board)
    8.0
    """
    move = board.peek()
    before = board.copy()
    before.pop()
    if before.piece_type_at(move.from_square) not in (chess.KING, chess.ROOK):
        return GLIDE_HOLD_S if may_go_on else REPLY_HOLD_S
    for castling in before.generate_castling_moves():
        king_from, _, rook_from, _ = castling_squares(before, castling)
        if move.from_square in (king_from, rook_from):
            return CASTLING_HOLD_S
    return GLIDE_HOLD_S if may_go_on else REPLY_HOLD_S


def option_named(question: Ambiguous, text: str) -> chess.Move:
    """The option of a question the player named, in UCI or SAN. Raises
    :class:`~chessatron.errors.IllegalMoveError` naming the options for anything else."""
    wanted = text.strip()
    for move, san in zip(question.options, question.option_sans, strict=True):
        if wanted in (move.uci(), san, san.rstrip("+#")):
            return move
    names = " or ".join(question.option_sans)
    raise IllegalMoveError(f"{text!r} is not one of the moves asked about: answer {names}")


def _made_by_hand(who: str) -> bool:
    try:
        return PlayerSpec.parse(who).moves_pieces
    except ConfigError:
        return False


def encode_table(table: Table) -> list[list[object]]:
    """Every piece as ``[id, symbol, i, j]`` (its node), for the journal."""
    return [[p.id, p.symbol, *table.node_of(p.id)] for p in sorted(table, key=lambda p: p.id)]


def decode_table(data: object, layout: Layout) -> Table:
    if not isinstance(data, list):
        raise ChessatronError(f"the journal's table before the set-up is damaged: {data!r}")
    try:
        placement = [(PhysicalPiece(str(i), str(sym)), (int(a), int(b))) for i, sym, a, b in data]
        return Table(layout, placement)
    except (TypeError, ValueError) as exc:
        raise ChessatronError(f"the journal's table before the set-up is damaged ({exc!r})") from exc


def hand_operations(layout: Layout, before: dict[PieceId, Node], table: Table) -> list[Relocation]:
    """Relocations that take the table from ``before`` to ``table`` one piece at a time, each onto a
    free node (a swap, as in some Chess960 castlings, goes through a free cell)."""
    scratch = Table(layout, [(table.piece(pid), node) for pid, node in before.items()])
    pending = {pid: node for pid, node in table.placement().items() if before.get(pid) != node}
    operations: list[Relocation] = []
    while pending:
        occupied = set(scratch.placement().values())
        ready = [pid for pid, goal in pending.items() if goal not in occupied]
        if not ready:  # a cycle: one piece steps aside to a free cell first
            pid = next(iter(pending))
            goals = set(pending.values())
            spare = next(
                layout.cell_node(c)
                for c in layout.cells()
                if layout.cell_node(c) not in occupied and layout.cell_node(c) not in goals
            )
            operations.append(Relocation(scratch.piece(pid), (scratch.node_of(pid), spare), "hand"))
            scratch.relocate(pid, spare)
            continue
        for pid in ready:
            goal = pending.pop(pid)
            operations.append(Relocation(scratch.piece(pid), (scratch.node_of(pid), goal), "hand"))
            scratch.relocate(pid, goal)
    return operations


def _robot_entries(path: Path) -> list[tuple[int, list[str], set[int]]]:
    """The journal's robot work in order: the ply each began at, its operations, the indices finished
    (a torn last line is skipped, as the journal reader does)."""
    found: list[tuple[int, list[str], set[int]]] = []
    for raw in files.read_bytes(path, files.JOURNAL).split(b"\n"):
        try:
            entry = files.parse_json(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "robot-begin":
            found.append((int(entry["ply"]), list(entry["operations"]), set()))
        elif entry.get("type") == "robot-done" and found and int(entry["ply"]) == found[-1][0]:
            found[-1][2].add(int(entry["index"]))
    return found


def write_pgn(records: GameRecord | Sequence[GameRecord], path: Path) -> None:
    """Write one game, or several one after another, as PGN."""
    games = [records] if isinstance(records, GameRecord) else list(records)
    try:
        path.write_text("\n".join(to_pgn(record) for record in games), encoding="utf-8")
    except OSError as exc:
        raise ChessatronError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc


def json_emitter(write: Callable[[str], None]) -> Emit:
    def emit(event: dict[str, Any]) -> None:
        write(json.dumps(event, default=str))

    return emit
