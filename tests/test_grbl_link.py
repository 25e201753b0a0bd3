"""The GRBL link against the simulated GRBL (and scripted peers): connect, stream whole games, faults.

Every wait in the code under test has a deadline; the tests check the deadlines rather than lean on a
pytest timeout plugin.
"""

from __future__ import annotations

import math
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import chess
import pytest
import serial

from chessatron.errors import (
    ConfigError,
    ConnectionLostError,
    DeviceClosedError,
    GarbledReplyError,
    GcodeError,
    GrblAlarm,
    GrblBuildError,
    GrblError,
    GrblLockedError,
    GrblResetError,
    GrblVersionError,
)
from chessatron.grbl.charcount import StreamProgress, StreamResult, strip_line
from chessatron.grbl.link import GrblLink
from chessatron.grbl.motion import Kinematics
from chessatron.grbl.protocol import Status
from chessatron.planning.gcode import comment
from chessatron.planning.layout import Layout, MagnetConfig
from chessatron.planning.planner import Plan, Relocation
from chessatron.planning.table import Table
from chessatron.planning.timing import Timer
from chessatron.sim.grbl import SimFaults, SimGrbl, SimHostMagnet
from chessatron.sim.protocol_sim import Serial as SimSerial
from chessatron.sim.simulate import TableSimulator, game_moves, simulate_game
from chessatron.sim.world import SimWorld, forget_world, register_world

from .conftest import shared_games

# --- a game to stream --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Game:
    """A game and the reset after it, as one program, with what the table should look like after it."""

    layout: Layout
    lines: list[str]
    start: Table
    sim: TableSimulator
    relocations: list[tuple[Relocation, range]]
    """Each relocation with the program lines (1-based) that carry it out."""
    predicted_s: float

    def sent_line(self, n: int) -> int:
        """The program line of the n-th g-code line the link sends (comments are not sent)."""
        sent = [number for number, text in enumerate(self.lines, start=1) if strip_line(text)[0]]
        return sent[n - 1]


def _make_game(layout: Layout) -> Game:
    _, first = shared_games()[0]
    board, moves = game_moves(first)
    sim, run = simulate_game(layout, board, moves)
    run.setups.append(sim.set_up(chess.Board()))
    lines = list(run.program_lines())
    relocations: list[tuple[Relocation, range]] = []
    at = len(run.header)
    chunks: list[tuple[tuple[str, ...], Plan]] = []
    for ply in run.plies:
        chunks.append((ply.lines, ply.plan))
        if ply.tidy is not None:  # (each move's tidying follows it in the program)
            chunks.append((ply.tidy_lines, ply.tidy))
    for chunk_lines, plan in chunks + [(s.lines, s.plan) for s in run.setups]:
        starts = []
        cursor = 0
        for relocation in plan.relocations:
            marker = comment(f"{relocation.purpose} {relocation.piece.id} {relocation.piece.symbol}")
            cursor = chunk_lines.index(marker, cursor)
            starts.append(cursor)
            cursor += 1
        ends = [*starts[1:], len(chunk_lines)]
        for relocation, start, end in zip(plan.relocations, starts, ends, strict=True):
            relocations.append((relocation, range(at + start + 1, at + end + 1)))
        at += len(chunk_lines)
    assert at == len(lines)
    predicted = run.seconds + run.tidy_seconds + sum(setup.seconds for setup in run.setups)
    return Game(layout, lines, sim.start_table, sim, relocations, predicted)


@pytest.fixture(scope="module")
def game() -> Game:
    return _make_game(Layout.default())


@pytest.fixture(scope="module")
def servo_game() -> Game:
    return _make_game(replace(Layout.default(), magnet=MagnetConfig(method="servo")))


@pytest.fixture
def world(request: pytest.FixtureRequest) -> Iterator[SimWorld]:
    name = f"test-{request.node.name}"
    yield register_world(SimWorld(Layout.default(), name=name))
    forget_world(name)


def _fresh_world(layout: Layout, table: Table | None) -> SimWorld:
    return SimWorld(layout, table, name="game")


@dataclass
class Bench:
    world: SimWorld
    grbl: SimGrbl
    link: GrblLink


@pytest.fixture
def bench_factory() -> Iterator[Callable[..., Bench]]:
    made: list[Bench] = []

    def make(
        game: Game | None = None, *, host_magnet: bool = False, timeout_s: float = 1.0, **sim: object
    ) -> Bench:
        layout = Layout.default() if game is None else game.layout
        world = _fresh_world(layout, None if game is None else game.start)
        grbl = SimGrbl(world, speed=None, **sim)  # type: ignore[arg-type]
        magnet = SimHostMagnet(world) if host_magnet else None
        link = GrblLink.over(grbl, layout=layout, host_magnet=magnet, timeout_s=timeout_s)
        made.append(Bench(world, grbl, link))
        return made[-1]

    yield make
    for bench in made:
        bench.link.close()


def _assert_table(game: Game, world: SimWorld, result: StreamResult) -> None:
    """Pieces whose last started relocation completed are at its goal; none is left on the magnet; with a
    complete run, every piece is where the simulator's table says."""
    twin = world.twin
    assert not twin.magnet_on, "a piece was left hanging on the magnet"
    layout = game.layout
    if result.ok:
        for piece in game.sim.table:
            expected = layout.node_mm(game.sim.table.node_of(piece.id))
            assert math.dist(expected, twin.pieces[piece.id].xy) < 0.01, piece.id
        assert len(twin.pieces) == len(game.sim.table)
        return
    last_started: dict[str, tuple[Relocation, bool]] = {}
    for relocation, lines in game.relocations:
        codes = [n for n in lines if strip_line(game.lines[n - 1])[0]]
        started = any(result.state(n) != "pending" for n in codes)
        if started:
            done = all(result.state(n) == "ok" for n in lines)
            last_started[relocation.piece.id] = (relocation, done)
    checked = 0
    for piece_id, (relocation, done) in last_started.items():
        if done:
            assert math.dist(twin.pieces[piece_id].xy, layout.node_mm(relocation.goal)) < 0.01, relocation
            checked += 1
    assert checked > 0


def _stream(bench: Bench, game: Game, **kwargs: object) -> StreamResult:
    bench.link.connect()
    bench.link.home()
    return bench.link.stream(game.lines, **kwargs)  # type: ignore[arg-type]


# --- connecting --------------------------------------------------------------------------------------


def test_connect_reads_the_banner_and_settings(bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory()
    assert bench.link.connect() == []
    assert bench.link.version == "1.1h"
    assert bench.link.settings[110] == 12000.0 and bench.link.settings[130] == 630.0
    assert bench.link.last_status is not None and bench.link.last_status.is_alarm  # homing lock
    bench.link.home()
    status = bench.link.status(fresh=True)
    assert (status.state, status.mpos) == ("Idle", (0.0, 0.0, 0.0))
    assert bench.link.status() is status  # polled at most status_hz times a second
    bench.grbl.assert_clean()


def test_connect_warns_where_settings_disagree_with_the_layout(bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory(homing=False)
    (warning,) = bench.link.connect()
    assert "homing is off ($22=0)" in warning
    for setting in ("$110=6000", "$32=1", "$131=300", "$1=25"):
        bench.link.command(setting)
    warnings = bench.link.connect()
    assert len(warnings) == 5
    assert any(w.startswith("laser mode is on ($32=1)") for w in warnings)
    assert any(w.startswith("$110 (x maximum rate, mm/min) is 6000") for w in warnings)
    assert any(w.startswith("$131 (y maximum travel) is 300 mm") for w in warnings)
    (idle,) = [w for w in warnings if w.startswith("$1 (step idle delay) is 25")]
    assert "set $1=255" in idle and "step_idle_delay_ms = 25" in idle  # the advice, and the time model


@pytest.mark.parametrize("built", ["corexy", "cartesian"])
def test_a_build_for_other_kinematics_is_refused_at_connect(built: Kinematics) -> None:
    layout = Layout.default()
    board = replace(layout, profile=replace(layout.profile, kinematics=built))
    wanted = replace(
        layout, profile=replace(layout.profile, kinematics="cartesian" if built == "corexy" else "corexy")
    )
    grbl = SimGrbl(SimWorld(board, name="build"), speed=None, homing=False)
    with GrblLink.over(grbl, layout=wanted) as link, pytest.raises(GrblBuildError) as refused:
        link.connect()
    assert "every move would go the wrong way" in str(refused.value)
    assert "#define COREXY" in str(refused.value)
    assert grbl.received == ["$I", "$$"]  # nothing moved
    with GrblLink.over(
        SimGrbl(SimWorld(board, name="build"), speed=None, homing=False), layout=board
    ) as link:
        link.connect()
        assert link.build is not None and link.build.is_corexy == (built == "corexy")


def test_homing_waits_through_grbls_silence(world: SimWorld) -> None:
    # GRBL answers no '?' while it homes, for far longer than the link's timeout here
    grbl = SimGrbl(world, speed=50.0, homing=True)
    with GrblLink.over(grbl, layout=world.layout, timeout_s=0.2) as link:
        link.connect()
        assert link.is_locked
        link.unlock()
        assert link.stream(["G0 X500 Y400"]).ok
        before = grbl.machine_s
        assert link.ready(home=True)
        homing_s = grbl.machine_s - before
        assert homing_s / 50.0 > 2 * link.timeout_s  # silent for many of the link's timeouts
        assert homing_s < link.homing_bound_s()
        assert not link.is_locked and link.status(fresh=True).mpos == (0.0, 0.0, 0.0)
    assert world.twin.magnet_xy == world.layout.home_mm


def test_a_program_that_homes_waits_through_the_silence_too(world: SimWorld) -> None:
    grbl = SimGrbl(world, speed=50.0, homing=True)
    with GrblLink.over(grbl, layout=world.layout, timeout_s=0.2) as link:
        link.connect()
        link.unlock()
        result = link.stream(["G0 X500 Y400", "$H", "G0 X100 Y100"])
    assert result.ok, result.error
    assert world.twin.magnet_xy == (100.0, 100.0)


def _silent_homing_peer(after_homing: bytes | None) -> ScriptedPeer:
    """A board whose settings make homing take at most a fraction of a second; ``after_homing`` is what
    it answers to $H (None: nothing, ever), and its position afterwards."""
    settings = b"$1=255\r\n$22=1\r\n$24=6000\r\n$25=6000\r\n$26=0\r\n$27=0.1\r\n$130=1\r\n$131=1\r\nok\r\n"
    return ScriptedPeer(
        {
            b"\x18": b"\r\nGrbl 1.1h ['$' for help]\r\n[MSG:'$H'|'$X' to unlock]\r\n",
            b"$$\n": settings,
            b"$I\n": BUILD_INFO,
            b"?": b"<Alarm|MPos:0.000,0.000,0.000|FS:0,0>\r\n",
            b"$H\n": after_homing or b"",
        }
    )


def test_a_board_silent_for_longer_than_homing_can_take_is_lost() -> None:
    with GrblLink.over(_silent_homing_peer(None), layout=Layout.default(), timeout_s=0.2) as link:
        link.connect()
        assert link.homing_bound_s() < 0.5
        started = time.monotonic()
        with pytest.raises(
            ConnectionLostError, match=r"no answer to '\$H' within .* homing cycle takes at most"
        ):
            link.ready()
    assert time.monotonic() - started < 2.0


def test_homing_that_leaves_the_magnet_away_from_home_is_refused() -> None:
    # a firmware built without HOMING_FORCE_SET_ORIGIN puts home at minus the travel
    peer = _silent_homing_peer(b"ok\r\n")
    with GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link:
        link.connect()
        peer.script[b"?"] = b"<Idle|MPos:-629.000,-529.000,0.000|FS:0,0>\r\n"
        with pytest.raises(GrblBuildError, match="HOMING_FORCE_SET_ORIGIN"):
            link.home()


def test_a_locked_board_without_homing_says_what_to_do(bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory(homing=False)
    bench.link.connect()
    assert not bench.link.ready()  # unlocked: nothing to do
    bench.grbl.raise_alarm(1)  # a limit switch: stopped, locked, deaf to all but a reset
    with pytest.raises(GrblLockedError, match=r"homing is off \(\$22=0\).*home_mm \(0\.0, 0\.0\)"):
        bench.link.ready()
    assert bench.link.is_locked and bench.grbl.state == "Alarm"
    assert not any(line.startswith("G") for line in bench.grbl.received)  # nothing was sent to move


def test_after_an_alarm_a_board_with_homing_is_homed_before_it_moves(
    bench_factory: Callable[..., Bench],
) -> None:
    bench = bench_factory()
    bench.link.connect()
    assert bench.link.is_locked  # homing on: locked since power-up
    assert bench.link.ready()
    assert bench.link.stream(["G0 X100 Y100"]).ok
    bench.grbl.raise_alarm(1)
    result = bench.link.stream(["G0 X200 Y100"])
    assert result.state(1) == "error" or isinstance(result.error, GrblAlarm)  # refused: locked
    assert bench.link.is_locked
    assert bench.link.ready()  # a soft reset (the limit alarm's stop), then $H
    assert bench.link.stream(["G0 X200 Y100"]).ok
    assert bench.grbl.received.count("$H") == 2
    assert bench.world.twin.magnet_xy == (200.0, 100.0)


def test_a_frozen_board_with_the_magnet_on_says_a_piece_may_still_hang_on_it(world: SimWorld) -> None:
    grbl = SimGrbl(world, speed=10.0, homing=False)
    with GrblLink.over(grbl, layout=world.layout, timeout_s=0.3) as link:
        link.connect()
        threading.Timer(0.2, grbl.freeze).start()
        result = link.stream(["M3 S1000", "G1 X600 F600", "M5"])
    assert isinstance(result.error, ConnectionLostError)
    message = str(result.error)
    assert "frozen with the magnet on" in message and "switch the machine's power off" in message
    assert "program line 2" in message
    assert world.twin.magnet_on  # a dead board keeps its outputs: only its power can drop the piece
    grbl.power_cycle()
    assert not world.twin.magnet_on


def test_a_device_that_is_not_grbl_1_1_is_refused() -> None:
    peer = ScriptedPeer({b"\x18": b"ok\r\nok\r\n\r\nGrbl 0.9j ['$' for help]\r\n"})
    with GrblLink.over(peer, timeout_s=0.3) as link, pytest.raises(GrblVersionError, match=r"0\.9j"):
        link.connect()


def test_stray_answers_before_the_banner_are_dropped() -> None:
    settings = b"".join(b"$%d=%s\r\n" % (n, v) for n, v in ((22, b"1"), (110, b"12000.000"))) + b"ok\r\n"
    peer = ScriptedPeer(
        {
            b"\x18": b"ok\r\nok\r\nerror:2\r\n\r\nGrbl 1.1h ['$' for help]\r\n",
            b"$$\n": settings,
            b"$I\n": BUILD_INFO,
            b"?": b"<Idle|MPos:0.000,0.000,0.000|FS:0,0>\r\n",
        }
    )
    with GrblLink.over(peer, timeout_s=0.3) as link:
        assert link.connect() == []
        assert link.settings == {22: 1.0, 110: 12000.0}


@pytest.mark.parametrize("url", ["loop://", "silent"])
def test_no_banner_is_a_lost_connection_not_a_hang(url: str) -> None:
    started = time.monotonic()
    link = GrblLink(url, timeout_s=0.2) if url != "silent" else GrblLink.over(ScriptedPeer({}), timeout_s=0.2)
    with link, pytest.raises(ConnectionLostError, match="no grbl banner"):
        link.connect()
    assert time.monotonic() - started < 1.0


def test_a_port_that_cannot_be_opened_is_named() -> None:
    from chessatron.errors import SerialPortError

    with pytest.raises(SerialPortError, match="/dev/no-such-grbl"):
        GrblLink("/dev/no-such-grbl").open()


def test_sim_urls_open_the_simulated_grbl(world: SimWorld) -> None:
    with serial.serial_for_url(f"sim://{world.name}?speed=max&homing=0", timeout=0.5) as port:
        assert isinstance(port, SimSerial) and port.grbl is not None and port.grbl.world is world
        assert port.grbl.settings[22] == "0"
    with GrblLink(f"sim://{world.name}?speed=max&homing=0", layout=world.layout) as link:
        assert "homing is off" in link.connect()[0]
        assert link.stream(["G0 X100 Y100"]).ok
    assert world.twin.magnet_xy == (100.0, 100.0)
    with pytest.raises(ConfigError, match="unknown option 'bogus'"):
        GrblLink(f"sim://{world.name}?bogus=1").open()


def test_the_link_closes_once_and_then_refuses(bench_factory: Callable[..., Bench]) -> None:
    link = bench_factory().link
    link.close()
    link.close()
    with pytest.raises(DeviceClosedError):
        link.open()


# --- the first seconds: a late banner, a stalled host, what the build lacks ----------------------------


@pytest.mark.parametrize(("late_s", "timeout_s"), [(0.15, 1.0), (0.5, 0.3)], ids=["one-reset", "two-resets"])
def test_a_late_power_up_banner_is_not_taken_for_the_resets_answer(
    world: SimWorld, late_s: float, timeout_s: float
) -> None:
    # the board boots late (an Arduino's bootloader as the port opens): its power-up banner arrives after
    # the link's soft reset, and the reset (or both, the link sending a second for want of a banner) is
    # answered a moment later with a banner of its own
    grbl = SimGrbl(world, speed=None, homing=True, faults=SimFaults(late_boot_s=late_s))
    with GrblLink.over(grbl, layout=world.layout, timeout_s=timeout_s) as link:
        assert link.connect() == []
        assert link.build is not None and link.build.options == "VCZ" and link.build.is_corexy
        assert link.settings[130] == 630.0 and link.is_locked
    assert grbl.resets_received == (1 if timeout_s > late_s else 2)
    assert grbl.received == ["$I", "$$"]  # each asked once, after the last banner: no answer drifted


def _peer(build_info: bytes | list[bytes] = b"", homing: bool = True, **stall: Any) -> ScriptedPeer:
    return ScriptedPeer(
        {
            b"\x18": b"\r\nGrbl 1.1h ['$' for help]\r\n",
            b"$I\n": build_info or BUILD_INFO,
            b"$$\n": b"$1=255\r\n$22=%d\r\n$130=630.000\r\n$131=530.000\r\nok\r\n" % homing,
            b"?": b"<Idle|MPos:0.000,0.000,0.000|FS:0,0>\r\n",
        },
        **stall,
    )


def test_a_build_that_cannot_be_read_is_asked_again_once_then_refused() -> None:
    # '$I' answered by a bare 'ok' (an answer out of step, lines lost): never a warning and a move
    peer = _peer(b"ok\r\n")
    with (
        GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link,
        pytest.raises(GrblBuildError) as refused,
    ):
        link.connect()
    message = str(refused.value)
    assert "did not say how it was built, twice running" in message and "bare 'ok'" in message
    assert "core-xy" in message and "chessatron will not move it" in message and "baud rate" in message
    assert peer.written.count(b"\x18") == 2 and peer.written.count(b"$I\n") == 2
    assert not any(data.startswith((b"G", b"$H")) for data in peer.written)
    # once is forgiven: the second handshake reads the build
    peer = _peer([b"ok\r\n", BUILD_INFO])
    with GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link:
        assert link.connect() == []
        assert link.build is not None and link.build.options == "VCZ"


def test_answers_out_of_step_are_noticed_line_by_line() -> None:
    # '$I' answered with settings (the answers drifted by one), then right
    drifted = b"$0=10\r\n$1=255\r\nok\r\n"
    peer = _peer([drifted, BUILD_INFO])
    with GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link:
        assert link.connect() == []
    assert peer.written.count(b"\x18") == 2


@pytest.mark.parametrize(
    ("options", "define"),
    [(b"VC", "#define HOMING_FORCE_SET_ORIGIN"), (b"VCZL", "#define HOMING_INIT_LOCK")],
    ids=["no-Z", "L"],
)
def test_a_build_that_homes_elsewhere_is_refused_at_connect_not_after_homing(
    options: bytes, define: str
) -> None:
    peer = _peer(b"[VER:1.1h.20190830:]\r\n[OPT:" + options + b",15,128]\r\nok\r\n")
    with (
        GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link,
        pytest.raises(GrblBuildError) as refused,
    ):
        link.connect()
    message = str(refused.value)
    assert define in message and "grbl's config.h" in message and "flash grbl again" in message
    assert "limit switch" not in message and "$130" not in message  # not the wiring: the build
    assert b"$H\n" not in peer.written  # found before a homing cycle
    # with homing off it is only a warning (it matters once switches are fitted)
    with GrblLink.over(
        _peer(b"[VER:1.1h.20190830:]\r\n[OPT:" + options + b",15,128]\r\nok\r\n", homing=False),
        layout=Layout.default(),
        timeout_s=0.3,
    ) as link:
        assert any(define in warning for warning in link.connect())


def test_a_receive_buffer_smaller_than_the_streamer_fills_is_refused() -> None:
    peer = _peer(b"[VER:1.1h.20190830:]\r\n[OPT:VCZ,15,64]\r\nok\r\n")
    with (
        GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link,
        pytest.raises(GrblBuildError, match=r"64-byte receive buffer.*RX_BUFFER_SIZE 128"),
    ):
        link.connect()


def test_alarm_9_while_homing_a_checked_build_names_the_homing_cycle() -> None:
    peer = _peer()
    peer.script[b"$H\n"] = b"ALARM:9\r\n"
    with GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link:
        link.connect()
        with pytest.raises(GrblAlarm) as alarm:
            link.home()
    assert "HOMING_CYCLE_0 (1<<X_AXIS)" in str(alarm.value) and "[OPT:VCZ,15,128]" in str(alarm.value)


def test_connect_reads_through_a_host_stall(world: SimWorld, caplog: pytest.LogCaptureFixture) -> None:
    # the host stalls right after its soft reset, longer than the link waits for the banner
    grbl = SimGrbl(world, speed=None, homing=False, faults=SimFaults(host_stall_s=0.8))
    with GrblLink.over(grbl, layout=world.layout, timeout_s=0.3) as link:
        assert "homing is off" in link.connect()[0]
    assert grbl.resets_received == 1  # the banner was read after the stall: no second reset was needed
    assert any("the host stalled for 0.8 s" in r.getMessage() for r in caplog.records)


def test_a_host_stall_in_the_middle_of_a_program_is_no_silent_board(
    world: SimWorld, caplog: pytest.LogCaptureFixture
) -> None:
    # grbl answered all along; the host did not read for longer than the link's timeout
    grbl = SimGrbl(world, speed=20.0, homing=False, faults=SimFaults(host_stall_s=1.2, host_stall_line=2))
    with GrblLink.over(grbl, layout=world.layout, timeout_s=0.5) as link:
        link.connect()
        result = link.stream(["G0 X100 Y100", "G1 X200 F6000", "G0 X50 Y50"])
    assert result.ok, result.error  # no soft reset in the middle of the program, no "stuck board"
    assert grbl.resets_received == 1 and world.twin.magnet_xy == (50.0, 50.0)
    assert any("the host stalled for 1.2 s" in r.getMessage() for r in caplog.records)


def test_a_board_that_answers_its_reset_while_the_host_stalls_is_not_called_stuck() -> None:
    # grbl goes silent in a program (its main loop stuck), the link soft-resets it, grbl answers within
    # milliseconds, but the host stalls past the link's half second before it reads
    peer = _peer(stall_s=0.8)
    peer.script[b"\x18"] = [
        b"\r\nGrbl 1.1h ['$' for help]\r\n"
    ] * 2  # the connect's reset, then the revival's
    with GrblLink.over(peer, layout=Layout.default(), timeout_s=0.3) as link:
        link.connect()
        peer.stall_after = b"\x18"  # the revival's reset
        peer.script[b"?"] = b""  # silent from now on
        result = link.stream(["G0 X10"])
    message = str(result.error)
    assert isinstance(result.error, ConnectionLostError)
    assert "a soft reset brought it back" in message
    assert "switch the machine's power off" not in message and "ignores a soft reset" not in message


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (lambda grbl: grbl.raise_alarm(1), "grbl's alarm switched its outputs off, so no piece hangs on it"),
        (lambda grbl: grbl.power_cycle(), "grbl's restart switched its outputs off, so no piece hangs on it"),
        (lambda grbl: grbl.pull_cable(), "the magnet still on, the piece hanging on it there"),
    ],
    ids=["alarm", "restart", "cable-pulled"],
)
def test_a_stop_with_the_magnet_on_says_whether_a_piece_hangs_on_it_and_where(
    world: SimWorld, fault: Callable[[SimGrbl], None], said: str
) -> None:
    result, _ = _real_time_fault(world, fault, timeout_s=1.0)  # in the drag of "M3 S1000", "G1 X600"
    message = str(result.error)
    assert "the magnet was on" in message and said in message, message
    assert re.search(r"near X\d+\.\d Y0\.0", message), message  # where the gantry stood
    assert not world.twin.magnet_on


def test_a_stop_with_the_magnet_off_says_so(world: SimWorld) -> None:
    grbl = SimGrbl(world, speed=1.0, homing=False)
    with GrblLink.over(grbl, layout=world.layout, timeout_s=1.0) as link:
        link.connect()
        threading.Timer(0.2, lambda: grbl.raise_alarm(1)).start()
        result = link.stream(["G1 X600 F600"])
    assert isinstance(result.error, GrblAlarm)
    assert "the magnet was off: no piece hangs on it" in str(result.error)


@pytest.mark.parametrize("still", ["G90", "F3000", "G0 X10"], ids=["modal", "feed", "move-to-where-it-is"])
def test_the_simulators_line_alarm_fires_on_lines_that_do_not_move(
    bench_factory: Callable[..., Bench], still: str
) -> None:
    bench = bench_factory(homing=False, faults=SimFaults(alarm_line=2))
    bench.link.connect()
    result = bench.link.stream(["G0 X10", still, "G0 X20"])
    # grbl runs a line that does not move as it reads it, while the move before it may still run
    assert isinstance(result.error, GrblAlarm) and result.failed_line in (1, 2)
    assert result.state(3) != "ok" and bench.world.twin.magnet_xy[0] <= 10.0


# --- streaming whole games ---------------------------------------------------------------------------


def test_a_whole_game_ends_with_the_simulators_table(game: Game, bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory(game)
    progress: list[StreamProgress] = []
    before = bench.grbl.machine_s
    result = _stream(bench, game, on_progress=progress.append)
    assert result.ok, result.error
    assert result.completed_through == len(game.lines) and result.unfinished_from is None
    assert bench.world.twin.violations == ()
    _assert_table(game, bench.world, result)
    bench.grbl.assert_clean()  # \n endings only, never more than the buffer holds
    assert all(not line.endswith("\r") for line in bench.grbl.received)
    # The planner was never starved: the machine took the time the planner model predicts.
    assert 0.999 <= (bench.grbl.machine_s - before) / game.predicted_s <= 1.02
    assert (
        progress[-1].answered
        == progress[-1].total
        == len([line for line in game.lines if strip_line(line)[0]])
    )


def test_the_time_model_counts_the_stop_delay_grbl_makes(
    game: Game, bench_factory: Callable[..., Bench]
) -> None:
    # GRBL's default $1=25 holds the machine 25 ms at every stop: the planner counts it as the board does
    layout = replace(game.layout, profile=replace(game.layout.profile, step_idle_delay_ms=25))
    idle_game = _make_game(layout)
    bench = bench_factory(idle_game)
    assert bench.grbl.settings[1] == "25"
    bench.link.connect()
    bench.link.home()
    before = bench.grbl.machine_s
    assert bench.link.stream(idle_game.lines).ok
    assert 0.999 <= (bench.grbl.machine_s - before) / idle_game.predicted_s <= 1.02
    # the planner's figures: a travel and a drag each end in a stop
    timer, held = Timer(layout), Timer(game.layout)
    assert timer.travel_s((0, 0), (100, 0)) == pytest.approx(held.travel_s((0, 0), (100, 0)) + 0.025)
    assert timer.drag_s([(5, 3), (5, 7)]) == pytest.approx(held.drag_s([(5, 3), (5, 7)]) + 0.025)


class RecordingMagnet:
    """The simulated host magnet, noting what the board was doing when each action ran."""

    def __init__(self, inner: SimHostMagnet, grbl: SimGrbl) -> None:
        self.inner, self.grbl = inner, grbl
        self.events: list[tuple[str, str, int, str, int]] = []

    def _note(self, what: str) -> None:
        grbl = self.grbl
        self.events.append((what, grbl.received[-1], grbl.planner_blocks, grbl.state, len(grbl.received)))

    def engage(self) -> None:
        self._note("engage")
        self.inner.engage()

    def release(self) -> None:
        self._note("release")
        self.inner.release()

    def close(self) -> None:
        self.inner.close()


def test_a_servo_game_switches_the_host_magnet_exactly_at_the_syncs(
    servo_game: Game, bench_factory: Callable[..., Bench]
) -> None:
    bench = bench_factory(servo_game, host_magnet=True)
    assert isinstance(bench.link.host_magnet, SimHostMagnet)
    recorder = RecordingMagnet(bench.link.host_magnet, bench.grbl)
    bench.link.host_magnet = recorder
    result = _stream(bench, servo_game)
    assert result.ok, result.error
    markers = [line.strip("()") for line in servo_game.lines if line in ("(MAGNET ON)", "(MAGNET OFF)")]
    assert [what for what, *_ in recorder.events] == [
        "engage" if m == "MAGNET ON" else "release" for m in markers
    ]
    for _, last_received, planner_blocks, state, _ in recorder.events:
        # GRBL has answered the G4 P0 (the machine stands still) and nothing after it has been sent.
        assert (last_received, planner_blocks, state) == ("G4P0", 0, "Idle")
    assert len({received for *_, received in recorder.events}) == len(recorder.events)
    assert bench.world.twin.violations == ()
    _assert_table(servo_game, bench.world, result)


# --- faults -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("faults", "expected"),
    [
        (SimFaults(error_line=700, error_code=33), GrblError),
        (SimFaults(alarm_line=800), GrblAlarm),
        (SimFaults(alarm_at_s=400.0, alarm_code=9), GrblAlarm),
        (SimFaults(pull_cable_line=900), ConnectionLostError),
        (SimFaults(freeze_line=600), ConnectionLostError),
    ],
    ids=["error", "alarm-at-line", "alarm-at-time", "cable-pulled", "firmware-hangs"],
)
def test_each_fault_is_reported_with_its_line_and_the_piece_dropped(
    game: Game, bench_factory: Callable[..., Bench], faults: SimFaults, expected: type[Exception]
) -> None:
    bench = bench_factory(game, timeout_s=0.5, faults=faults)
    started = time.monotonic()
    result = _stream(bench, game)
    assert time.monotonic() - started < 5.0
    assert isinstance(result.error, expected)
    with pytest.raises(expected):
        result.raise_for_error()
    line = result.failed_line
    assert line is not None and line == getattr(result.error, "line", None)
    if faults.error_line or faults.alarm_line:
        assert line == game.sent_line(faults.error_line or faults.alarm_line or 0)
    gone = faults.pull_cable_line or faults.freeze_line
    if gone:
        # The line that met the fault never ran; the report names the first one that may not have finished.
        assert line <= game.sent_line(gone) and result.state(game.sent_line(gone)) != "ok"
    if isinstance(result.error, GrblError):
        assert result.error.code == 33
        assert result.state(line) == "error" and f"program line {line} " in str(result.error)
        assert result.completed_through == line - 1
    else:
        assert result.unfinished_from == line
    if faults.alarm_at_s is not None:
        assert bench.grbl.machine_s == pytest.approx(faults.alarm_at_s)
        assert isinstance(result.error, GrblAlarm) and result.error.code == 9
    assert result.completed and max(result.completed) < len(game.lines)
    if not isinstance(result.error, ConnectionLostError) or faults.pull_cable_line:
        _assert_table(game, bench.world, result)  # a frozen board keeps its outputs as they were


def test_an_error_on_a_servo_table_releases_the_host_magnet(
    servo_game: Game, bench_factory: Callable[..., Bench]
) -> None:
    # The first drag: its G1 lines come after the first (MAGNET ON).
    first_drag = next(n for n, text in enumerate(servo_game.lines, start=1) if text.startswith("G1 "))
    nth = [n for n, text in enumerate(servo_game.lines, start=1) if strip_line(text)[0]].index(first_drag) + 1
    bench = bench_factory(servo_game, host_magnet=True, faults=SimFaults(error_line=nth))
    result = _stream(bench, servo_game)
    assert isinstance(result.error, GrblError) and result.failed_line == first_drag
    assert not bench.world.twin.magnet_on
    magnet = bench.link.host_magnet
    assert isinstance(magnet, SimHostMagnet) and magnet.actions == ["MAGNET ON", "MAGNET OFF"]


def test_slow_replies_only_slow_the_stream(game: Game, bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory(game, faults=SimFaults(reply_delay_s=0.001))
    result = _stream(bench, game)
    assert result.ok, result.error
    _assert_table(game, bench.world, result)


@pytest.mark.parametrize("seed", [1, 2])
def test_garbled_replies_stop_the_stream_safely(
    game: Game, bench_factory: Callable[..., Bench], seed: int
) -> None:
    bench = bench_factory(game, timeout_s=0.5)
    bench.link.connect()
    bench.link.home()
    bench.grbl.inject(SimFaults(garble_rate=0.01, seed=seed))
    started = time.monotonic()
    result = bench.link.stream(game.lines)
    assert time.monotonic() - started < 5.0
    assert isinstance(result.error, GarbledReplyError)
    assert result.failed_line is not None and "garbled" in str(result.error)
    assert not bench.world.twin.magnet_on


def test_a_grbl_reset_in_the_middle_is_reported(world: SimWorld) -> None:
    grbl = SimGrbl(world, speed=20.0, homing=False)
    with GrblLink.over(grbl, layout=world.layout, timeout_s=1.0) as link:
        link.connect()
        threading.Timer(0.1, lambda: grbl.write(b"\x18")).start()
        result = link.stream(["G1 X300 F6000", "G1 X0"])
    assert isinstance(result.error, (GrblResetError, GrblAlarm))
    assert result.failed_line == 1


def _real_time_fault(
    world: SimWorld, fault: Callable[[SimGrbl], None], timeout_s: float
) -> tuple[StreamResult, float]:
    grbl = SimGrbl(world, speed=1.0, homing=False)
    with GrblLink.over(grbl, layout=world.layout, timeout_s=timeout_s) as link:
        link.connect()
        at: list[float] = []

        def strike() -> None:
            at.append(time.monotonic())
            fault(grbl)

        threading.Timer(0.2, strike).start()
        result = link.stream(["M3 S1000", "G1 X600 F600", "M5"])  # a minute of motion
        return result, time.monotonic() - at[0]


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (lambda grbl: grbl.raise_alarm(1), GrblAlarm),
        (lambda grbl: grbl.pull_cable(), ConnectionLostError),
        (lambda grbl: grbl.freeze(), ConnectionLostError),
    ],
    ids=["alarm", "cable-pulled", "firmware-hangs"],
)
def test_faults_during_a_long_move_are_detected_within_two_seconds(
    world: SimWorld, fault: Callable[[SimGrbl], None], expected: type[Exception]
) -> None:
    result, delay = _real_time_fault(world, fault, timeout_s=1.0)
    assert isinstance(result.error, expected)
    assert delay < 2.0
    assert result.failed_line == 2 and result.state(1) == "ok" and result.state(3) != "ok"


def test_soft_limits_alarm_on_gcode_and_refuse_jogs(bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory(soft_limits=True)
    bench.link.connect()
    bench.link.home()
    with pytest.raises(GrblError, match="error:15") as refused:
        bench.link.command("$J=G91 X1000 F1000")
    assert refused.value.code == 15
    result = bench.link.stream(["G0 X100", "G0 X1000 Y10", "G0 X0"])
    assert isinstance(result.error, GrblAlarm) and result.error.code == 2
    assert "soft limit" in str(result.error)
    bench.link.soft_reset()
    bench.link.unlock()
    assert bench.link.stream(["G0 X50 Y50"]).ok
    assert bench.world.twin.magnet_xy == (50.0, 50.0)


def test_homing_without_switches_is_a_clear_error(bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory(homing=False)
    bench.link.connect()
    with pytest.raises(GrblError, match=r"homing is off \(\$22=0\)") as failed:
        bench.link.home()
    assert failed.value.code == 5


def test_feed_hold_and_resume(world: SimWorld) -> None:
    grbl = SimGrbl(world, speed=10.0, homing=False)
    with GrblLink.over(grbl, layout=world.layout) as link:
        link.connect()
        states: list[str] = []
        threading.Timer(0.1, link.feed_hold).start()
        threading.Timer(0.6, link.resume).start()

        def note(progress: StreamProgress) -> None:
            if progress.status is not None:
                states.append(progress.status.state)

        started = time.monotonic()
        result = link.stream(["G1 X300 F6000"], on_progress=note)  # under half a second unheld
    assert result.ok and "Hold" in states
    assert time.monotonic() - started >= 0.5


def test_lines_grbl_would_take_as_real_time_commands_are_refused(bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory()
    with pytest.raises(GcodeError, match="real-time"):
        bench.link.stream(["G0 X10", "G0 X20 ?"])
    assert bench.grbl.received == []


def test_host_markers_need_a_host_magnet(bench_factory: Callable[..., Bench]) -> None:
    bench = bench_factory()
    with pytest.raises(ConfigError, match="host magnet"):
        bench.link.stream(["G4 P0", "(MAGNET ON)"])
    with pytest.raises(ConfigError, match="on_host"):
        bench.link.stream(["G4 P0", "(HOST beep)"])
    bench.link.connect()
    bench.link.unlock()
    names: list[str] = []
    assert bench.link.stream(["G0 X5", "G4 P0", "(HOST beep)"], on_host=names.append).ok
    assert names == ["BEEP"] and bench.grbl.received[-1] == "G4P0"


# --- the simulated board itself ----------------------------------------------------------------------


def _lines(grbl: SimGrbl, count: int) -> list[bytes]:
    return [grbl.readline() for _ in range(count)]


def test_the_simulator_answers_crlf_twice_and_flags_it(world: SimWorld) -> None:
    with SimGrbl(world, speed=None, timeout=1.0, homing=False) as grbl:
        _lines(grbl, 2)
        grbl.write(b"G0 X1\r\n")
        assert _lines(grbl, 2) == [b"ok\r\n", b"ok\r\n"]
        assert "'\\r'" in grbl.flags[0]
        with pytest.raises(AssertionError):
            grbl.assert_clean()


def test_the_simulator_loses_what_overflows_its_buffer(world: SimWorld) -> None:
    with SimGrbl(world, speed=None, timeout=1.0, homing=False) as grbl:
        grbl.write(b"G0 X1\n" * 40)  # 240 bytes at once: the board cannot read them that fast
        assert "overrun: 112 bytes lost" in grbl.flags[0]


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("G0 X10", b"ok"),
        ("G5 X1", b"error:20"),
        ("X1.2.3", b"error:1"),
        ("G0 X", b"error:2"),
        ("1 G0", b"error:1"),
        ("G0 G1 X1", b"error:21"),
        ("G0 X1 X2", b"error:25"),
        ("G1 X10", b"error:22"),
        ("G4", b"error:28"),
        ("G0 P1", b"error:36"),
        ("S-1", b"error:4"),
        ("M7", b"error:20"),
        ("G1 X" + "1" * 80, b"error:11"),
        ("$Q", b"error:3"),
        ("$H", b"error:5"),
        ("(just a comment)", b"ok"),
        ("", b"ok"),
    ],
)
def test_the_simulator_answers_like_grbl(world: SimWorld, line: str, answer: bytes) -> None:
    with SimGrbl(world, speed=None, timeout=1.0, homing=False) as grbl:
        _lines(grbl, 2)
        grbl.write(line.encode() + b"\n")
        assert grbl.readline() == answer + b"\r\n"


def test_the_simulator_reports_help_state_and_settings(world: SimWorld) -> None:
    with SimGrbl(world, speed=None, timeout=1.0) as grbl:
        _lines(grbl, 3)
        grbl.write(b"G0 X1\n")
        assert _lines(grbl, 1) == [b"error:9\r\n"]  # locked until homed or unlocked
        grbl.write(b"$X\n$G\n$I\n$\n")
        replies = [line.decode().strip() for line in _lines(grbl, 9)]
        assert replies[:2] == ["[MSG:Caution: Unlocked]", "ok"]
        assert replies[2] == "[GC:G0 G54 G17 G21 G90 G94 M5 M9 T0 F0 S0]"
        assert replies[4:6] == ["[VER:1.1h.20190830:]", "[OPT:VCZ,15,128]"]  # C: core-xy
        assert replies[7].startswith("[HLP:")


def test_the_simulator_refuses_everything_after_a_limit_alarm_until_reset(world: SimWorld) -> None:
    with SimGrbl(world, speed=None, timeout=0.3, homing=False) as grbl:
        _lines(grbl, 2)
        grbl.raise_alarm(1)
        assert _lines(grbl, 2) == [b"ALARM:1\r\n", b"[MSG:Reset to continue]\r\n"]
        grbl.write(b"G0 X1\n?")
        assert grbl.readline() == b""  # nothing, not even a status report
        grbl.write(b"\x18")
        assert _lines(grbl, 3)[1:] == [b"Grbl 1.1h ['$' for help]\r\n", b"[MSG:'$H'|'$X' to unlock]\r\n"]
        assert grbl.state == "Alarm"


def test_the_simulators_status_reports_parse(world: SimWorld) -> None:
    from chessatron.grbl.protocol import parse_message

    with SimGrbl(world, speed=None, timeout=1.0, homing=False) as grbl:
        _lines(grbl, 2)
        for _ in range(12):
            grbl.write(b"?")
            assert isinstance(parse_message(grbl.readline()), Status)


# --- the pseudo-terminal ----------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="pseudo-terminals are POSIX only")
def test_the_simulator_serves_a_pseudo_terminal() -> None:
    code = (
        "from chessatron.grbl.pty import serve_pty; from chessatron.sim.world import get_world; "
        "serve_pty(get_world('pty'), speed=None)"
    )
    with (
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) as server,
        selectors.DefaultSelector() as selector,
    ):
        try:
            assert server.stdout is not None
            selector.register(server.stdout, selectors.EVENT_READ)
            assert selector.select(timeout=20.0), "the server printed no path"
            path = server.stdout.readline().strip()
            assert path.startswith("/dev/")
            with GrblLink(path, layout=Layout.default(), timeout_s=2.0) as link:
                link.connect()
                link.home()
                assert link.stream(["G0 X100 Y50", "G1 X120 F3000"]).ok
                assert link.status(fresh=True).mpos == (120.0, 50.0, 0.0)
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=5.0) == 0
        finally:
            if server.poll() is None:
                server.kill()


# --- a scripted peer ---------------------------------------------------------------------------------

#: GRBL 1.1h built for Core-XY, answering $I.
BUILD_INFO = b"[VER:1.1h.20190830:]\r\n[OPT:VCZ,15,128]\r\nok\r\n"


class ScriptedPeer:
    """A fake port, like pyserial's ``loop://`` but answering from a script: bytes written that match a
    key (a whole write) queue its answer; a list answers in turn, its last answer for ever after.

    ``stall_after`` (bytes) and ``stall_s`` stall the host: the first read after that write has been
    answered comes back empty ``stall_s`` seconds later, the answer waiting in the buffer meanwhile."""

    def __init__(
        self,
        script: dict[bytes, bytes | list[bytes]],
        *,
        stall_after: bytes | None = None,
        stall_s: float = 0.0,
    ) -> None:
        self.script = script
        self.timeout: float | None = None
        self.written: list[bytes] = []
        self.stall_after, self.stall_s = stall_after, stall_s
        self._stall = False
        self._out = bytearray()
        self._cond = threading.Condition()

    @property
    def in_waiting(self) -> int:
        return len(self._out)

    def write(self, data: bytes, /) -> int:
        with self._cond:
            self.written.append(data)
            answer = self.script.get(data, b"")
            if isinstance(answer, list):
                answer = answer.pop(0) if len(answer) > 1 else answer[0]
            self._out += answer
            if data == self.stall_after:
                self._stall, self.stall_after = True, None
            self._cond.notify_all()
        return len(data)

    def read(self, size: int = 1, /) -> bytes:
        if self._stall:
            self._stall = False
            time.sleep(self.stall_s)  # the host did not run; the board's answer waits in the buffer
            return b""
        with self._cond:
            if not self._out:
                self._cond.wait(self.timeout)
            data = bytes(self._out[:size])
            del self._out[:size]
            return data

    def reset_input_buffer(self) -> None:
        self._out.clear()

    def close(self) -> None:
        pass


def test_a_restart_of_grbl_in_the_middle_of_a_program_is_reported() -> None:
    peer = ScriptedPeer(
        {
            b"\x18": b"\r\nGrbl 1.1h ['$' for help]\r\n",
            b"$$\n": b"$22=0\r\nok\r\n",
            b"$I\n": BUILD_INFO,
            b"?": b"<Idle|MPos:0.000,0.000,0.000|FS:0,0>\r\n",
            b"G0X1\n": b"ok\r\n",
            b"G0X2\n": b"\r\nGrbl 1.1h ['$' for help]\r\n",
        }
    )
    with GrblLink.over(peer, timeout_s=0.5) as link:
        link.connect()
        result = link.stream(["G0 X1", "G0 X2", "G0 X3"])
    assert isinstance(result.error, GrblResetError) and result.failed_line == 1
    assert result.states == ("ok", "sent", "sent")


def test_an_answer_lost_without_a_trace_stops_the_stream() -> None:
    idle = b"<Idle|MPos:0.000,0.000,0.000|Bf:15,128|FS:0,0>\r\n"
    peer = ScriptedPeer(
        {
            b"\x18": b"\r\nGrbl 1.1h ['$' for help]\r\n",
            b"$$\n": b"$22=0\r\nok\r\n",
            b"$I\n": BUILD_INFO,
            b"?": idle,
            b"M8\n": b"ok\r\n",
            b"G1X1F100\n": b"",  # noise ate the "ok"
        }
    )
    with GrblLink.over(peer, timeout_s=0.3, status_hz=20.0) as link:
        link.connect()
        started = time.monotonic()
        result = link.stream(["M8", "G1 X1 F100", "M9"])
    assert time.monotonic() - started < 1.5
    assert isinstance(result.error, GarbledReplyError) and result.failed_line == 2
    assert b"M9\n" in peer.written  # the magnet (on the coolant output) was released
