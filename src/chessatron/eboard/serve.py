"""``chessatron eboard``'s work: the session on the machine (or the simulator), the protocol, its transport
on a thread of its own, and the games until stopped.

The transport hears the app while the game's thread plays: both reach the protocol under the table's
lock. Ctrl-C (or SIGTERM) stops the game at a safe point, saved, the magnet off; the transport closes.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess

from ..config import Config
from ..errors import ConfigError
from ..game.players.spec import PlayerSpec
from ..game.records.record import GameRecord
from ..game.records.store import resolve_games_dir
from ..game.session import Session
from ..game.telling.announcer import open_announcer
from ..game.telling.live import LiveState
from ..i18n import _
from ..i18n.formats import either
from ..sim.state import SimulatorState, default_state_path, load_state, save_after_robot_work, save_state
from .core import EboardProtocol
from .registry import protocol_class
from .table import EboardTable, Seats, start_of

LOGGER = logging.getLogger(__name__)

#: How often the protocol's timers are looked at (seconds).
TICK_S = 0.02

#: What the terminal is told: an event (a dict) and the game as the live state has it.
Say = Callable[[dict[str, Any], dict[str, Any] | None], None]


@dataclass(frozen=True)
class EboardOptions:
    """What ``chessatron eboard`` was asked for."""

    protocol: str
    transport: str
    port: str | None = None
    #: On the simulator: the side a simulated hand plays, and its engine level.
    hand_colour: chess.Color | None = None
    hand_level: str | None = None
    #: On a real table: the side the person at the board plays (None: the app plays both).
    person_colour: chess.Color | None = chess.WHITE
    chess960: int | None = None
    games: int | None = None
    names: tuple[str, ...] = ()
    speed: float | None = 1.0
    web_port: int | None = None
    web_host: str = "127.0.0.1"
    engine_path: str = "stockfish"
    games_dir: Path | None = None
    fresh: bool = False


def seats_for(settings: Config, options: EboardOptions) -> Seats:
    """Who plays each side: a simulated hand (``--hand``), the person at a real table's sensors, or the
    app alone."""
    simulated = settings.urls["sensors"].startswith("sim")
    if options.hand_colour is not None:
        if not simulated:
            raise ConfigError(
                _(
                    "--hand needs the simulator, but the sensors are {url!r}; a person at this table plays "
                    "with --person white|black"
                ).format(url=settings.urls["sensors"])
            )
        return Seats.of(PlayerSpec("hand", level=options.hand_level), options.hand_colour)
    if simulated or settings.urls["sensors"].startswith("none"):
        return Seats.of(None, None)  # nobody at the simulated table: the app plays both sides
    return Seats.of(PlayerSpec("board"), options.person_colour)


def serve_eboard(
    settings: Config,
    options: EboardOptions,
    *,
    say: Say,
    stop: threading.Event,
    transport: Any | None = None,
) -> list[GameRecord]:
    """Serve the table as the e-board of one app until stopped (a KeyboardInterrupt, or ``stop`` set) or
    ``options.games`` games are over. Raises :class:`~chessatron.errors.ChessatronError` for what a person
    can fix (no such port, no Bluetooth adapter, a protocol not served over that transport).

    ``transport``: one already open (with ``send``, ``serve(protocol, stop)`` and ``lock``), instead of
    the one ``options`` names (the tests' loopback for the Bluetooth LE protocols)."""
    cls = protocol_class(options.protocol)
    if options.transport not in cls.transports:
        served = either([f"--{'port PORT' if kind == 'serial' else kind}" for kind in cls.transports])
        raise ConfigError(
            _("the {protocol} protocol is served over {served}, not over {transport}").format(
                protocol=cls.name, served=served, transport=options.transport
            )
        )
    seats = seats_for(settings, options)
    live = LiveState(settings.layout)
    simulated = settings.is_simulated
    state_path = default_state_path() if simulated else None
    state = load_state(state_path, settings.layout, fresh=options.fresh) if state_path is not None else None

    def emit(event: dict[str, Any]) -> None:
        say(event, live.snapshot().get("game"))

    lock = threading.RLock() if transport is None else transport.lock
    with contextlib.ExitStack() as stack:
        # the app's line (or the Bluetooth adapter) first: a port that is not there is said before anything
        opened = transport if transport is not None else stack.enter_context(_transport(options, cls, lock))
        session = stack.enter_context(
            Session(
                settings,
                games_dir=resolve_games_dir(options.games_dir),
                speed=options.speed,
                emit=emit,
                engine_path=options.engine_path,
                table=state.table if state else None,
                live=live,
                state_path=state_path,
            )
        )
        stack.enter_context(open_announcer(settings, live))
        if simulated:
            session.checkpoint = save_after_robot_work
        where = options.port or ", ".join(options.names) or cls.name
        table = EboardTable(
            session, seats, protocol_name=cls.name, transport=options.transport, where=where, lock=lock
        )
        if state is not None:  # until the robot sets the game up: the pieces as the last game left them
            table.stands(state.board)
        opened.notice = lambda message: table.emit({"event": "notice", "message": message})
        options_of = getattr(cls, "transport_options", {}).get(options.transport, {})
        protocol = cls(table, opened.send, **options_of)
        table.attach(protocol)
        if options.web_port is not None:
            from ..web.server import start_watch_page

            page = stack.enter_context(start_watch_page(live, host=options.web_host, port=options.web_port))
            emit(
                {
                    "event": "eboard",
                    "what": "serving",
                    "message": _("the game on the web page: {url}").format(url=page.url),
                }
            )
        thread = threading.Thread(
            target=opened.serve, args=(protocol, stop), name="chessatron-eboard", daemon=True
        )
        thread.start()

        def tick() -> None:
            """The protocol's timers (automatic reports, a message cut short, a silence) until ``stop``;
            a stop asked for from elsewhere (the tests, a service's own thread) stops the game as Ctrl-C
            does."""
            while not stop.wait(TICK_S):
                with lock:
                    protocol.tick(time.monotonic())
            session.stop_requested.set()

        threading.Thread(target=tick, name="chessatron-eboard-tick", daemon=True).start()
        stack.callback(thread.join, 2.0)
        stack.callback(stop.set)
        if options.transport == "serial":
            serving = _("the table is a {protocol} e-board on {port}: waiting for the app (Ctrl-C ends)")
        else:
            serving = _(
                "the table is a {protocol} e-board over Bluetooth LE: waiting for the app (Ctrl-C ends)"
            )
        emit(
            {
                "event": "eboard",
                "what": "serving",
                "message": serving.format(protocol=cls.name, port=options.port),
            }
        )
        records = table.play(start_of(options.chess960), games=options.games)
        if state_path is not None:
            save_state(state_path, SimulatorState(session.table, table.position, session.gantry))
        return records


@contextlib.contextmanager
def _transport(options: EboardOptions, cls: type[EboardProtocol], lock: threading.RLock) -> Iterator[Any]:
    """The transport ``options`` name, open, its reads reaching the protocol under ``lock``."""
    if options.transport == "ble":
        from .ble import BleServer, check_ble
        from .ble_profiles import profile

        check_ble()
        yield BleServer(profile(cls.name), lock, names=options.names)
        return
    from .serial_link import SerialTransport

    assert options.port is not None
    serial = SerialTransport(options.port, getattr(cls, "serial_settings", {}), lock)
    serial.open()
    try:
        yield serial
    finally:
        serial.close()
