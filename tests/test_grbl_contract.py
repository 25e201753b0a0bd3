"""The GRBL contract: what GRBL 1.1h does on the serial line, where chessatron depends on it, checked
against the simulated GRBL (a Core-XY and a Cartesian build) and, when an environment variable names its
port, against a real board:

    CHESSATRON_GRBL_PORT=/dev/ttyUSB0 .venv/bin/pytest tests/test_grbl_contract.py

``CHESSATRON_GRBL_LAYOUT`` names the table's layout file (the built-in table by default). On a real board
the tests move the gantry with the magnet off (take the pieces off the table first), home it (limit
switches needed), switch homing on for a moment ($22), reboot the board through the DTR line, as
opening its port does (its bootloader makes every boot a late one), and stop reading for a second or two,
as a busy host does; every setting they change is written back.

Each test talks to the board byte for byte, with nothing of chessatron's link in between: the
simulator must behave as the firmware does, not as the link expects.
"""

from __future__ import annotations

import itertools
import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Protocol

import pytest
import serial

from chessatron.grbl.build import BuildInfo, check_build
from chessatron.grbl.handshake import SETTLE_S
from chessatron.grbl.protocol import (
    Alarm,
    Error,
    Feedback,
    LineSplitter,
    Message,
    Ok,
    PushMessage,
    Setting,
    Status,
    Welcome,
    parse_message,
)
from chessatron.planning.layout import Layout
from chessatron.sim.grbl import SimFaults, SimGrbl
from chessatron.sim.world import SimWorld

PORT = os.environ.get("CHESSATRON_GRBL_PORT")
# Every wait ends: a real board's homing may take a minute and more (see grbl.homing).
_WAIT_S = 180.0 if PORT else 20.0
# How long the line must stay quiet after a banner before no further one is expected (well past SETTLE_S).
_QUIET_S = 1.5 if PORT else 0.5
# How long the host stalls: what a busy Raspberry Pi was seen to do (a shorter one on the simulator).
_STALL_S = 2.7 if PORT else 0.7


class Port(Protocol):
    def write(self, data: bytes, /) -> int | None: ...

    def read(self, size: int = 1, /) -> bytes: ...

    @property
    def in_waiting(self) -> int: ...

    def close(self) -> None: ...


@dataclass
class Board:
    """A GRBL on the other end of a serial line, and what the test needs to know about it."""

    port: Port
    layout: Layout
    clock: Callable[[], float]
    """Machine seconds (the simulator's virtual clock) or wall seconds (a real board)."""
    clock_jitter_s: float
    """How far two readings of :attr:`clock` around the same work may differ by chance."""
    reboot: Callable[[], None]
    """Switch the board off and on (a real one: through the DTR line)."""
    reboot_late: Callable[[], None]
    """Switch the board off and on and have it boot late: its banner comes after a while (a real one:
    through the DTR line, its bootloader waiting before grbl starts)."""
    stall: Callable[[float], None]
    """Stall the host that many seconds: it reads nothing meanwhile (a real one: sleeps)."""
    splitter: LineSplitter
    pending: deque[Message] = field(default_factory=deque)
    """Messages read but not yet looked at (the rest of a read that held the awaited one)."""

    def send(self, data: bytes) -> None:
        self.port.write(data)

    def messages(
        self, until: Callable[[Message], bool], *, ask_status_s: float | None = None
    ) -> list[Message]:
        """Read messages up to and including the first ``until`` accepts; with ``ask_status_s`` send
        ``?`` that often meanwhile."""
        got: list[Message] = []
        deadline = time.monotonic() + _WAIT_S
        next_ask = time.monotonic()
        while time.monotonic() < deadline:
            while self.pending:
                message = self.pending.popleft()
                got.append(message)
                if until(message):
                    return got
            if ask_status_s is not None and time.monotonic() >= next_ask:
                self.send(b"?")
                next_ask = time.monotonic() + ask_status_s
            data = self.port.read(max(1, self.port.in_waiting))
            self.pending.extend(parse_message(text) for text in self.splitter.feed(data))
        raise AssertionError(f"no end within {_WAIT_S:g} s; received {got!r}")

    def answers(self, count: int) -> list[Ok | Error]:
        """The next ``count`` answers (``ok`` or ``error:N``), whatever came between them."""
        found: list[Ok | Error] = []

        def enough(message: Message) -> bool:
            if isinstance(message, Ok | Error):
                found.append(message)
            return len(found) == count

        self.messages(enough)
        return found

    def ask(self, line: str) -> list[Message]:
        """Send one line; its answer, up to and including ``ok`` or ``error:N``."""
        self.send(line.encode("ascii") + b"\n")
        return self.messages(lambda m: isinstance(m, Ok | Error))

    def status(self) -> Status:
        self.send(b"?")
        last = self.messages(lambda m: isinstance(m, Status))[-1]
        assert isinstance(last, Status)
        return last

    def settings(self) -> dict[int, float]:
        return {
            m.number: value
            for m in self.ask("$$")
            if isinstance(m, Setting) and (value := m.number_value) is not None
        }

    def unlock(self) -> None:
        assert isinstance(self.ask("$X")[-1], Ok)

    def home(self) -> list[Message]:
        """Home (switching homing on first if need be): a real gantry's position is unknown before.
        Everything GRBL said until ``ok``, polling ``?`` all the while."""
        if self.settings().get(22) != 1:
            assert isinstance(self.ask("$22=1")[-1], Ok)
        self.send(b"$H\n")
        said = self.messages(lambda m: isinstance(m, Ok | Error | Alarm), ask_status_s=0.02)
        assert said[-1] == Ok(), f"homing failed: {said[-1]!r} (are the limit switches wired?)"
        return said

    def boot(self) -> list[Message]:
        """Reboot; everything the board says up to its banner and the line after it."""
        self.reboot()
        got = self.messages(lambda m: isinstance(m, Welcome))
        self.send(b"?")  # after the banner: the alarm lock message (if any), then a status report
        return got + self.messages(lambda m: isinstance(m, Status))


def _sim_board(layout: Layout) -> Iterator[Board]:
    # Fast enough for the suite, slow enough that homing and a move last a visible while on the wall.
    holder: list[SimGrbl] = []
    world = SimWorld(layout, name="contract")

    def start() -> None:
        holder.append(SimGrbl(world, speed=50.0, timeout=0.02, homing=True))

    start()

    class Forward:  # the board behind the port changes when it reboots
        def write(self, data: bytes, /) -> int:
            return holder[-1].write(data)

        def read(self, size: int = 1, /) -> bytes:
            return holder[-1].read(size)

        @property
        def in_waiting(self) -> int:
            return holder[-1].in_waiting

        def close(self) -> None:
            holder[-1].close()

    def reboot() -> None:
        holder[-1].power_cycle()

    def reboot_late() -> None:
        grbl = holder[-1]
        grbl.inject(SimFaults(late_boot_s=0.3))
        grbl.power_cycle()
        grbl.inject(SimFaults())  # the faults for the next boot; this one is under way

    def stall(seconds: float) -> None:
        holder[-1].stall_host(seconds)

    board = Board(
        Forward(), layout, lambda: holder[-1].machine_s, 1e-6, reboot, reboot_late, stall, LineSplitter()
    )
    board.messages(lambda m: isinstance(m, Welcome))
    try:
        yield board
    finally:
        board.port.close()


def _real_board(url: str) -> Iterator[Board]:
    path = os.environ.get("CHESSATRON_GRBL_LAYOUT")
    layout = Layout.from_toml(path) if path else Layout.default()
    port = serial.serial_for_url(url, baudrate=115200, timeout=0.02)

    def reboot() -> None:
        port.dtr = False
        time.sleep(0.25)
        port.dtr = True

    board = Board(port, layout, time.monotonic, 0.25, reboot, reboot, time.sleep, LineSplitter())
    # opening the port resets an Arduino through DTR: its banner comes after the bootloader; a board
    # without that auto-reset gets a soft reset instead
    if _banner_within(port, 5.0):
        board.messages(lambda m: isinstance(m, Welcome))
        time.sleep(0.2)
    board.pending.clear()
    board.send(b"\x18")
    board.messages(lambda m: isinstance(m, Welcome))
    before = board.settings()
    try:
        yield board
    finally:
        after = board.settings()
        for number, value in before.items():  # write back what the test changed
            if after.get(number) != value:
                board.ask(f"${number}={value:g}")
        port.close()


def _banner_within(port: Port, seconds: float) -> bool:
    """Did anything arrive within ``seconds`` (the banner of a board that was reset by opening it)?"""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if port.in_waiting:
            return True
        time.sleep(0.05)
    return False


def _cartesian(layout: Layout) -> Layout:
    return replace(layout, profile=replace(layout.profile, kinematics="cartesian"))


@pytest.fixture(
    params=[
        "sim",
        "sim-cartesian",
        pytest.param("hardware", marks=pytest.mark.skipif(not PORT, reason="set CHESSATRON_GRBL_PORT")),
    ]
)
def board(request: pytest.FixtureRequest) -> Iterator[Board]:
    if request.param == "hardware":
        assert PORT is not None
        yield from _real_board(PORT)
    elif request.param == "sim-cartesian":
        yield from _sim_board(_cartesian(Layout.default()))
    else:
        yield from _sim_board(Layout.default())


def _homing_enabled(board: Board) -> None:
    if board.settings().get(22) != 1:
        assert isinstance(board.ask("$22=1")[-1], Ok)


def _position(status: Status) -> tuple[float, float]:
    position = status.machine_position()
    assert position is not None, f"the status report {status!r} has no position; set $10=1 or $10=3"
    return (position[0], position[1])


def _inside(layout: Layout, fx: float, fy: float) -> tuple[float, float]:
    """A point ``fx``, ``fy`` of the way across the envelope."""
    xmin, ymin, xmax, ymax = layout.envelope_mm
    return (round(xmin + fx * (xmax - xmin), 3), round(ymin + fy * (ymax - ymin), 3))


# --- the contract ------------------------------------------------------------------------------------


def test_a_board_with_homing_on_boots_locked(board: Board) -> None:
    _homing_enabled(board)
    booted = board.boot()
    assert Feedback("'$H'|'$X' to unlock") in booted
    status = booted[-1]
    assert isinstance(status, Status) and status.state == "Alarm"
    assert board.ask("G0 X1")[-1] == Error(9)  # g-code is locked out
    board.unlock()
    assert board.status().state == "Idle"


def test_an_alarm_leaves_it_locked_until_unlocked(board: Board) -> None:
    board.home()
    x, y = _inside(board.layout, 0.6, 0.5)
    assert isinstance(board.ask(f"G1 X{x} Y{y} F1500")[-1], Ok)
    board.messages(lambda m: isinstance(m, Status) and m.state == "Run", ask_status_s=0.02)
    board.send(b"\x18")  # a reset while moving: the position may be lost
    said = board.messages(lambda m: isinstance(m, Feedback) and "unlock" in m.text)
    assert Alarm(3) in said and any(isinstance(m, Welcome) for m in said)
    assert board.status().state == "Alarm"
    assert board.ask("G0 X1")[-1] == Error(9)
    board.send(b"\x18")  # another reset does not unlock it either
    board.messages(lambda m: isinstance(m, Feedback) and "unlock" in m.text)
    assert board.ask("G0 X1")[-1] == Error(9)
    board.unlock()
    assert isinstance(board.ask("G0 X1")[-1], Ok)


def test_homing_is_silent_until_it_is_done(board: Board) -> None:
    board.home()
    x, y = _inside(board.layout, 0.4, 0.4)
    board.ask(f"G0 X{x} Y{y}")
    assert isinstance(board.ask("G4 P0")[-1], Ok)
    assert _position(board.status()) == pytest.approx((x, y), abs=0.01)
    said = board.home()
    reports = [m for m in said if isinstance(m, Status)]
    # GRBL's homing loop answers no '?': those sent while it homed get one report as the cycle ends,
    # still "Home", at home; none from the way there
    assert reports and reports[-1].state == "Home"
    assert _position(reports[-1]) == pytest.approx(board.layout.home_mm, abs=1.0)
    assert all(r.state in ("Idle", "Alarm") for r in reports[:-1])
    assert all(_position(r) == pytest.approx((x, y), abs=0.01) for r in reports[:-1])
    assert board.status().state == "Idle"


def test_lines_behind_a_rejected_one_still_run(board: Board) -> None:
    board.home()
    a, b = _inside(board.layout, 0.3, 0.3), _inside(board.layout, 0.5, 0.3)
    # all at once, as a streamer fills the receive buffer: the second line is refused, the third runs
    board.send(f"G0 X{a[0]} Y{a[1]}\nG5 X{a[0] + 10}\nG0 X{b[0]} Y{b[1]}\nG4 P0\n".encode("ascii"))
    assert board.answers(4) == [Ok(), Error(20), Ok(), Ok()]
    assert _position(board.status()) == pytest.approx(b, abs=0.01)


def test_the_build_says_whether_it_drives_a_core_xy_gantry(board: Board) -> None:
    answer = [m for m in board.ask("$I") if not isinstance(m, Feedback)]  # [MSG:…] come at any time
    # line by line, as the connect handshake reads it: [VER:…], [OPT:…], ok
    assert [type(m) for m in answer] == [PushMessage, PushMessage, Ok], answer
    build = BuildInfo.from_messages(answer)
    assert build.version is not None and build.version.startswith("1.1")
    assert build.is_corexy == (board.layout.profile.kinematics == "corexy")
    assert (build.planner_blocks, build.rx_buffer_bytes) == (15, 128)


def test_the_build_has_every_option_the_table_needs(board: Board) -> None:
    build = BuildInfo.from_messages(board.ask("$I"))
    assert build.options is not None
    assert "Z" in build.options, "built without HOMING_FORCE_SET_ORIGIN: uncomment it in config.h"
    assert "L" not in build.options, "built without HOMING_INIT_LOCK: keep it defined in config.h"
    # what connect checks (it raises, naming the line of config.h, for what the table cannot take)
    check_build(build, board.layout, settings={**board.settings(), 22: 1.0})


def test_a_reset_sent_while_it_boots_is_answered_right_after_its_banner(board: Board) -> None:
    # the connect handshake's ground: a soft reset that reaches a booting board is answered within
    # SETTLE_S of the power-up banner, or (swallowed by a bootloader) not at all; never later
    board.reboot_late()
    board.send(b"\x18")
    banners: list[float] = []
    deadline = time.monotonic() + _WAIT_S
    while time.monotonic() < deadline and not (banners and time.monotonic() - banners[-1] > _QUIET_S):
        data = board.port.read(max(1, board.port.in_waiting))
        for text in board.splitter.feed(data):
            if isinstance(parse_message(text), Welcome):
                banners.append(time.monotonic())
    assert 1 <= len(banners) <= 2, f"{len(banners)} banners after a reboot and one soft reset"
    assert all(later - first <= SETTLE_S for first, later in itertools.pairwise(banners))
    answer = [m for m in board.ask("$I") if not isinstance(m, Feedback)]  # the session is open
    assert [type(m) for m in answer] == [PushMessage, PushMessage, Ok], answer  # answers come in step


def test_what_grbl_sends_while_the_host_stalls_waits_for_it(board: Board) -> None:
    # a busy host stops reading for a second or more; grbl answers meanwhile, and nothing is lost
    board.send(b"\x18")
    board.stall(_STALL_S)
    assert board.port.in_waiting > 0  # the banner came long ago: it is there at once
    board.messages(lambda m: isinstance(m, Welcome))
    board.send(b"$I\n")
    board.stall(_STALL_S)
    answer = board.messages(lambda m: isinstance(m, Ok | Error))
    assert [type(m) for m in answer if not isinstance(m, Feedback)] == [PushMessage, PushMessage, Ok]


def test_the_step_idle_delay_holds_the_machine_at_every_stop(board: Board) -> None:
    board.home()
    stops = 8
    xs = [_inside(board.layout, 0.2 + 0.05 * i, 0.2) for i in range(stops + 1)]
    program = "".join(f"G0 X{x} Y{y}\nG4 P0\n" for x, y in xs[1:])

    def run(idle_ms: int) -> float:
        assert isinstance(board.ask(f"$1={idle_ms}")[-1], Ok)
        assert board.settings()[1] == idle_ms
        board.ask(f"G0 X{xs[0][0]} Y{xs[0][1]}")
        board.ask("G4 P0")
        started = board.clock()
        for line in program.splitlines():  # each G4 P0 waits for its stop: the delay comes before it
            assert isinstance(board.ask(line)[-1], Ok)
        return board.clock() - started

    on = run(255)  # the motors stay on: no delay
    delay = run(200) - on
    assert delay == pytest.approx(stops * 0.2, abs=0.05 * stops * 0.2 + board.clock_jitter_s)
