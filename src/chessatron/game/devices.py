"""The table a session works on and the devices around it: the machine connected (the GRBL link, or the
simulator, or no robot), the sensors, the LEDs, the buttons and the speaker, each opened once and closed with
the session; what happens told to the caller, the watchers and aloud. :class:`TableDevices` holds the
session's state; :mod:`.tablework` (the robot's work and the people's), :mod:`.seats` (the players),
:mod:`.setup` (new games and resumes), :mod:`.commands` (a game's commands and its end) and
:mod:`.session` (the loop) build on it, each calling only the layers below.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import chess

from ..config import Config
from ..errors import ChessatronError
from ..feedback.speaker import SpeakerDevice
from ..gantry.robot import Robot
from ..grbl.link import GrblLink
from ..grbl.settings import homing_off_warning
from ..i18n import _
from ..planning.layout import Cell, Layout, MachinePoint
from ..planning.planner import Planner, Relocation
from ..planning.reset import ResetPlanner
from ..planning.table import Table
from ..ports import LedStrip, Microphone, OccupancySensor
from ..sim.hand_style import HandStyle
from ..sim.wiring import built_world  # (a simulated table built wrong on purpose stays so)
from ..sim.world import SimWorld, register_world
from ..tablelock import hold_table, table_url
from ..voice.player import VoiceMover
from .clock import ChessClock
from .engine.player import EnginePlayer
from .players.base import Mover
from .players.board import BoardMover
from .players.buttons import ButtonPanel
from .players.keyboard import KeyboardPlayer
from .players.spec import PlayerSpec
from .players.web import InboxMover
from .ponder.ponderer import Ponderer
from .records.journal import Journal
from .referee import Referee
from .statuses import PAUSED, STOPPING
from .telling.live import LiveLeds, LiveSensors, LiveState
from .telling.speech import SPOKEN_EVENTS, spoken_event
from .tidying import Tidier

if TYPE_CHECKING:
    from ..voice.recognizer import SpeechRecognizer

LOGGER = logging.getLogger(__name__)


Emit = Callable[[dict[str, Any]], None]


class TableDevices:
    """A session's state, its table and the devices around it (see the module docs)."""

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
        state_path: Path | None = None,
    ) -> None:
        self.config = config
        #: The simulated table's saved state this session's table is (its lock is held while connected:
        #: :mod:`~chessatron.tablelock`); None for a table that lives in this program only.
        self.state_path = state_path
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
        #: Called with this table's keeper after each piece of robot (or hand) work, e.g. to save the
        #: simulator's table (:func:`~chessatron.sim.state.save_after_robot_work`).
        self.checkpoint: Callable[[TableDevices], None] | None = None
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
        #: Takes the pieces the robot parked during its reply on to their zones while a person thinks
        #: (:mod:`.tidying`); the game's, while one runs.
        self.tidier: Tidier | None = None
        #: How a simulated person (a ``hand`` player) handles the pieces, and whether it answers a
        #: question itself (by lifting the capturing piece again) or leaves it to the page.
        self.hand_style: HandStyle = HandStyle.calm()
        self.hand_answers = True
        #: The keeper of an online game (its server): see :mod:`.referee`. None for a game kept here.
        self.referee: Referee | None = None
        #: An e-board app's side of a game (:mod:`chessatron.eboard`): the mover of an ``app`` player.
        self.app_seat: Callable[[chess.Color], Mover] | None = None
        #: Told the game's position as the table holds it: the person's move as it is seen, the robot's
        #: once made, and at every turn (an e-board reports it to its app).
        self.on_position: Callable[[chess.Board], None] = lambda board: None
        #: Set from another thread to end the game under way at the next turn, for another
        #: (:class:`~.players.base.RestartRequested`); the robot finishes the move it is making.
        self.restart_requested = threading.Event()
        #: Told of every scan of the sensors while a person's move is watched: the occupied cells.
        self.on_occupancy: Callable[[frozenset[Cell]], None] | None = None
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
        """Tell the caller (and the watchers) what happened, and say it aloud (:mod:`.telling.speech`)."""
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
                    message = _("the table cannot speak: {reason}").format(reason=exc)
                    self.emit({"event": "warning", "message": message})
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
        # one program drives the table at a time (a robotless table: its sensors' port)
        self._stack.enter_context(hold_table(table_url(self.config.urls), state=self.state_path))
        if url.startswith("none"):
            self._connect_without_robot()
            return
        if url.startswith("sim"):
            name = url.split("://", 1)[1].split("?", 1)[0] or "default"
            self.world = register_world(built_world(self.layout, self.table, name=name))
            speed = "max" if self.speed is None else f"{self.speed:g}"
            joiner = "&" if "?" in url else "?"
            url = f"{url}{joiner}speed={speed}&homing=0" if "speed=" not in url else url
        link = self._stack.enter_context(GrblLink(url, layout=self.layout, baudrate=self.config.baudrate))
        for warning in link.connect():
            if self.world is not None and warning == homing_off_warning(self.layout):
                continue  # the simulated gantry starts at home; this session turned homing off itself
            self.emit({"event": "warning", "message": warning})
        # before any game is journaled: a board locked since power-up or by an alarm is homed, or the
        # error says what to do (GrblLockedError)
        if (self.config.home or link.is_locked) and link.settings.get(22) == 1:
            message = _("homing the gantry (grbl is silent until it is done)")
            self.emit({"event": "notice", "message": message})
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
            self.world = register_world(built_world(self.layout, self.table, name=name))
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
                status = _(STOPPING)  # until the stop is reached, nothing else is under way
            self.live.update(status=_(PAUSED) if held else status)

    @property
    def has_robot(self) -> bool:
        return self.robot is not None

    @property
    def gantry(self) -> MachinePoint:
        return self.robot.writer.position if self.robot is not None else self.layout.home_mm

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
