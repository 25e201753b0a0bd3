"""The table a session works on: the machine connected (or the simulator, or no robot), the robot's plans
carried out and journaled relocation by relocation, pieces moved by a simulated hand, the capture zones
followed by their sensors. :class:`TableWork` holds the session's state; :mod:`.seats` (the players),
:mod:`.setup` (new games and resumes) and :mod:`.session` (the loop) build on it.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, cast

import chess
import chess.engine

from ..config import Config
from ..errors import ChessatronError, ConfigError, HardwareError
from ..feedback.signals import LedSignals
from ..feedback.speaker import SpeakerDevice
from ..gantry.robot import Robot
from ..grbl.charcount import StreamProgress
from ..grbl.link import GrblLink
from ..planning.layout import Cell, Layout, MachinePoint, Node
from ..planning.planner import Plan, Planner, Relocation
from ..planning.reset import ResetPlanner
from ..planning.table import PhysicalPiece, PieceId, Table
from ..planning.tidy import next_tidy
from ..ports import LedStrip, Microphone, OccupancySensor
from ..sim.hand import HandAction, perform
from ..sim.hand_style import HandStyle
from ..sim.world import SimWorld, register_world
from ..voice.player import VoiceMover
from .buttons import ButtonPanel
from .clock import ChessClock
from .engine import EnginePlayer
from .journal import Journal, JournalState
from .keyboard import KeyboardPlayer
from .live import LiveLeds, LiveSensors, LiveState
from .players import (
    BoardMover,
    InboxMover,
    PlayerSpec,
)
from .ponder import Ponderer
from .referee import Referee
from .speech import SPOKEN_EVENTS, spoken_event
from .tidying import Tidier

if TYPE_CHECKING:
    from ..voice.recognizer import SpeechRecognizer
    from .session import Session

LOGGER = logging.getLogger(__name__)


Emit = Callable[[dict[str, Any]], None]


#: The status while the robot is held (a feed hold: the gantry waits, the magnet keeps its piece).
PAUSED = "paused (resume to go on)"
#: The status from a stop asked for until the job reaches its next safe point (a move, or between two of
#: the robot's relocations).
STOPPING = "stopping…"


#: Without a robot, how long the sensors must show the arranged position before the game goes on.
ARRANGED_STILL_S = 0.3


class StopRequested(KeyboardInterrupt):
    """A stop asked for from elsewhere (the page's *Stop game*, SIGTERM in ``serve``) ended the robot's
    work at a safe point: between two relocations, the magnet released, each one done journaled. Raised
    as the ``KeyboardInterrupt`` a stop is, so that the game stays journaled however it is stopped."""


#: Robot work the time model says takes at least this long (seconds, at the session's speed) is told with
#: its estimate and a countdown (:func:`~chessatron.game.words.countdown_words`); shorter work is over
#: before it would help.
LONG_WORK_S = 5.0


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
    match = re.fullmatch(r"(\S+) (\S+) (-?\d+,-?\d+(?: -?\d+,-?\d+)*)", text.strip())
    if match is None:
        raise ChessatronError(f"the journal holds a robot operation it cannot read: {text!r}")
    nodes: tuple[Node, ...] = tuple(
        (int(a), int(b)) for a, b in (part.split(",") for part in match[3].split())
    )
    piece = table.piece_at(nodes[0])
    if piece is None:
        raise ChessatronError(f"no piece stands where the journal's operation {text!r} starts")
    return Relocation(piece, nodes, match[1])  # type: ignore[arg-type]


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


def _robot_entries(state: JournalState) -> list[tuple[int, list[str], set[int]]]:
    """The journal's robot work in order: the ply each began at, its operations, the indices finished
    (as the journal was read: up to damage, without a torn last line)."""
    return [(work.ply, list(work.operations), set(work.completed)) for work in state.robot_work]


def json_emitter(write: Callable[[str], None]) -> Emit:
    def emit(event: dict[str, Any]) -> None:
        write(json.dumps(event, default=str))

    return emit


class TableWork:
    """A session's state and its table: the machine, the robot's work, the pieces moved by hand."""

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
        #: The robot's engine thinking on a person's time in the game under way (the last game's after it).
        self.ponderer: Ponderer | None = None
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
        # after a resume of a game with no move yet: its start, and the set-up's drags left (journaled)
        self._setup_pending: tuple[chess.Board, list[tuple[int, Relocation]]] | None = None
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
        #: Robot work at least this long (seconds, at this session's speed) is told with its estimate and
        #: a countdown.
        self.long_work_s = LONG_WORK_S
        #: Takes the pieces the robot parked during its reply on to their zones while a person thinks
        #: (:mod:`.tidying`); the game's, while one runs.
        self.tidier: Tidier | None = None
        #: How a simulated person (a ``hand`` player) handles the pieces, and whether it answers a
        #: question itself (by lifting the capturing piece again) or leaves it to the page.
        self.hand_style: HandStyle = HandStyle.calm()
        self.hand_answers = True
        #: The keeper of an online game (its server): see :mod:`.referee`. None for a game kept here.
        self.referee: Referee | None = None
        #: The voice players by colour while a game runs: their ``confirmations`` take a yes or a no from
        #: elsewhere (buttons).
        self.voices: dict[chess.Color, VoiceMover] = {}
        self._speaker: SpeakerDevice | None = None
        self._speechless = False  # the speaker failed: the game goes on in silence
        self._voice_game = False
        self._microphone: Microphone | None = None
        self._recognizer: SpeechRecognizer | None = None
        # each side's time left when it was last looked at, for the clock warnings (seconds)
        self._time_seen: dict[chess.Color, float] = {}
        #: Whether a ``board`` player needs real sensors: where nobody moves the simulated table's pieces
        #: (``chessatron play``), a board player on the simulator would wait for ever. (A page or a test
        #: may move them in the simulated world.)
        self.board_needs_real_sensors = False

    def emit(self, event: dict[str, Any]) -> None:
        """Tell the caller (and the watchers) what happened, and say it aloud (:mod:`.speech`)."""
        kind = event.get("event")
        if kind in ("notice", "warning"):
            self.live.notice(str(event.get("message")), "warning" if kind == "warning" else "info")
        if kind in SPOKEN_EVENTS and not self._speechless:
            # (the live state still shows the game as it was before the event, as the terminal reads it)
            words = spoken_event(event, self.live.snapshot().get("game"))
            if words:
                try:
                    self.speaker.say(words)
                except ChessatronError as exc:  # the game goes on without the words, said once
                    self._speechless = True
                    self.emit({"event": "warning", "message": f"the table cannot speak: {exc}"})
        self._emit_out(event)

    @property
    def speaker(self) -> SpeakerDevice:
        """The speaker (opened once); it talks as :meth:`Config.speaks` says."""
        if self._speaker is None:
            from ..feedback.speaker import open_speaker

            speaks = self.config.speaks(voice_player=self._voice_game)
            self._speaker = self._stack.enter_context(
                open_speaker(self.config.urls["speech"], muted=not speaks)
            )
        return self._speaker

    def __enter__(self) -> Self:
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
            if self.stop_requested.is_set():
                status = STOPPING  # until the stop is reached, nothing else is under way
            self.live.update(status=PAUSED if held else status)

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
        self,
        plan: Plan,
        title: str,
        journal: Journal | None,
        indices: list[int] | None = None,
        *,
        background: bool = False,
        from_table: Table | None = None,
    ) -> None:
        """Execute a plan, journaling it first (unless ``indices`` says it is the rest of a journaled
        one: then each relocation is journaled as done under its original index); ``from_table``: the
        table it starts from is journaled with it (the journal's earlier work did not leave it so).

        Watchers see the work with its estimate (the planner's time model) and what is left of it as it
        goes (``gantry.work``: ``estimate_s`` machine seconds, ``left_s`` seconds left at wall-clock time
        ``at`` at this session's speed). ``background``: tidying on a person's time, which watchers see
        the pieces and the magnet of but which is not the session's work (no ``work``, no status)."""
        robot = self.robot
        if robot is None:
            raise HardwareError("the robot is not connected; call connect() first")
        if journal is not None and plan.relocations and indices is None:
            snapshot = encode_table(from_table) if from_table is not None else None
            journal.robot_begin([encode_relocation(r) for r in plan.relocations], table=snapshot)

        total = len(plan.relocations)
        live = self.live
        timer = self.planner.timer
        paths = [relocation.path for relocation in plan.relocations]
        estimate_s = timer.relocations_s(self.gantry, paths)

        def work(index: int) -> dict[str, Any] | None:
            if background:
                return None
            told: dict[str, Any] = {"title": title, "index": index, "of": total}
            if self._wall_s(estimate_s) >= self.long_work_s:
                at = self.layout.node_mm(plan.relocations[index - 1].goal) if index else self.gantry
                left_s = self._wall_s(timer.relocations_s(at, paths[index:]))
                told.update(estimate_s=round(estimate_s, 1), left_s=round(left_s, 1))
                told["at"] = round(time.time(), 3)
            return told

        def step(index: int, relocation: Relocation) -> None:
            if journal is not None:
                journal.robot_done(index if indices is None else indices[index])
            if not background:  # (a person's board is watched by its own thread meanwhile)
                for mover in self._board_movers:
                    mover.observe(0.25)
            live.show_table(self.table)
            following = plan.relocations[index + 1].path if index + 1 < total else ()
            told = work(index + 1)
            live.show_gantry(
                self.layout.node_mm(relocation.goal), path=following, work=False if background else told
            )
            self.emit({"event": "relocation", "index": index, "of": total, "what": str(relocation)})

        def progress(report: StreamProgress) -> None:
            status = report.status
            if status is not None and status.mpos is not None:
                live.show_gantry((status.mpos[0], status.mpos[1]), state=status.state)

        if total:
            live.show_table(self.table, plan.relocations)
            live.show_gantry(
                self.gantry, path=plan.relocations[0].path, work=False if background else work(0)
            )
        execution = None
        try:
            execution = robot.execute(
                plan, title, on_step=step, on_progress=progress, stop=self.stop_requested.is_set
            )
        finally:
            # a machine that finished is idle; one that stopped keeps the state it last reported (Alarm)
            idle = "Idle" if execution is not None and execution.ok else None
            live.show_gantry(self.gantry, path=(), work=False if background else None, state=idle)
            if self.checkpoint is not None:
                self.checkpoint(cast("Session", self))
        if execution.stopped:
            raise StopRequested(f"{title}: stopped after {execution.completed} of {total} relocations")
        if not execution.ok:
            problems = "; ".join(execution.problems()) or "the machine stopped"
            raise HardwareError(f"{title}: {problems}; fix it and continue with `chessatron play --resume`")

    def _wall_s(self, machine_s: float) -> float:
        """Wall-clock seconds of ``machine_s`` of machine time: a machine takes them; the simulator runs
        at this session's speed (as fast as it can: next to no time)."""
        if self.world is None:
            return machine_s
        return 0.0 if self.speed is None else machine_s / self.speed

    @property
    def gantry(self) -> MachinePoint:
        return self.robot.writer.position if self.robot is not None else self.layout.home_mm

    def set_up(
        self, target: chess.Board, title: str = "SETUP", journal: Journal | None = None
    ) -> Plan | None:
        """Set the table up for ``target`` from wherever it stands (after a game, a stopped set-up, a
        crash): one plan, straight to the target's arrangement (its pieces on the board, the reserve
        refilled, the rest in the zones), carried out with its estimate shown; without a robot the
        players arrange the pieces as the LEDs show. Returns the plan (None without a robot). Raises
        :class:`~chessatron.errors.MissingPieceError` when the table lacks pieces for it,
        :class:`HardwareError` when the machine stops.

        The entry point for anything that sets the table up (a puzzle, a position to study).
        """
        if not self.has_robot:
            before = self.table.placement()
            self._arrange_by_hand(target, "set up")
            self._journal_by_hand(journal, before)
            return None
        plan = self.resetter.plan(self.table, target, at=self.gantry)
        self.emit({"event": "setup", "relocations": len(plan.relocations)})
        if plan.relocations:
            self.run_plan(plan, title, journal)
        return plan

    def _tidy_step(self, journal: Journal | None) -> bool:
        """One step of tidying (:func:`~chessatron.planning.tidy.next_tidy`) on the tidier's thread, while
        the game's waits for a person: journaled as robot work of the current ply. False when nothing is
        left to tidy (or the robot is gone)."""
        if self.robot is None:
            return False
        plan = next_tidy(self.planner, self.table, self.gantry)
        if plan is None:
            return False
        ply = len(journal.state.moves) if journal is not None else 0
        self.run_plan(plan, f"TIDY {ply}", journal, background=True)
        return True

    def _journal_by_hand(self, journal: Journal | None, before: dict[PieceId, Node]) -> None:
        """Pieces people moved (a move, a takeback, a set-up) are journaled as robot work already
        finished, so that a resume rebuilds the table as they left it."""
        operations = hand_operations(self.layout, before, self.table)
        if operations and journal is not None:
            journal.robot_begin([encode_relocation(op) for op in operations])
            for index in range(len(operations)):
                journal.robot_done(index)
        if operations and self.checkpoint is not None:
            self.checkpoint(cast("Session", self))

    def _follow_zone_sensors(self) -> None:
        """A person put pieces off the board (a capture, a takeback): where exactly, only the sensors under
        the zones can tell. Move the model's off-board pieces the sensors do not see to the off-board
        cells they see filled, nearest first."""
        sensors = self._sensors
        if sensors is None:
            return
        # (cells a person puts pieces on: the zones and the reserve; a piece the robot parked in the free
        # rows stays where the model has it, seen or not)
        beside = {"board", "free"}
        seen = {cell for cell in sensors.scan() if self.layout.cell_kind(cell) not in beside}
        model: dict[Cell, PhysicalPiece] = {}
        for piece in self.table:
            cell = self.layout.node_cell(self.table.node_of(piece.id))
            if cell is not None and self.layout.cell_kind(cell) not in beside:
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
