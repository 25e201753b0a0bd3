"""``chessatron run`` with what the held-out fuzz found (issue 36): a long program says how far it has got
from the start (checking it, then streaming it), never a silent minute, and is read as it is needed; an
alarm says what the magnet truly was (off after an ``M9``) and where the gantry truly stopped, also with the
simulator at full speed, where the last status report came before the program began."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from chessatron.errors import GrblAlarm, GrblError
from chessatron.grbl.link import GrblLink
from chessatron.grbl.programfile import WHOLE_BYTES
from chessatron.planning.layout import Layout
from chessatron.sim.grbl import SimFaults, SimGrbl
from chessatron.sim.world import SimWorld

from .journeys import Terminal

#: A drag (the magnet on the coolant output), the release, then a rapid travel and another.
DRAG_THEN_TRAVEL = [
    "G21 G90",
    "G0 X100 Y100",
    "M8",
    "G1 X150 Y100 F3000",
    "M9",
    "G0 X300 Y300",
    "G0 X50 Y50",
    "G0 X300 Y50",
    "M8",
    "G1 X320 Y50 F3000",
    "M9",
]


def _long_program(path: Path) -> int:
    """Travel moves to fill a file just over what ``run`` reads whole; how many lines."""
    rng = random.Random(36)
    lines = ["G21 G90"]
    size = 0
    while size <= WHOLE_BYTES:
        lines.append(f"G0 X{rng.uniform(20, 600):.3f} Y{rng.uniform(20, 500):.3f}")
        size += len(lines[-1]) + 1
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    return len(lines)


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_long_program_shows_its_progress_from_the_start(tmp_path: Path) -> None:
    program = tmp_path / "long.gcode"
    count = _long_program(program)
    # at the machine's own pace: the program is far from its end when the person stops it
    with Terminal(["run", str(program), "--port", "sim://?homing=0"], tmp_path / "ann", columns=160) as run:
        run.expect(r"checking long\.gcode .* MB")  # before anything moves, as it reads the file
        run.expect(rf"{count:,} lines; the time left is reckoned from their pace")
        found = run.expect(rf"long\.gcode .* ([1-9]\d*)/{count} line (\d+)")  # streaming, line by line
        assert int(found[2]) < count
        run.press("ctrl-c")
        run.expect(r"interrupted in program line \d+: grbl is held where it stopped .*; the magnet is off")
        assert run.exit_status() == 130
        run.assert_clean()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_an_alarm_after_the_release_says_the_magnet_was_off_and_where_the_gantry_stopped(
    tmp_path: Path,
) -> None:
    program = tmp_path / "drag.gcode"
    program.write_text("\n".join(DRAG_THEN_TRAVEL) + "\n", encoding="ascii")
    # the alarm as line 7's travel begins: line 6's travel, after line 5's M9, has brought it to X300 Y300
    url = "sim://?alarm_line=7&homing=0"
    with Terminal(
        ["run", str(program), "--port", url, "--speed", "max"], tmp_path / "bo", columns=400
    ) as run:
        run.expect(r"stopped: grbl raised ALARM:1 \(hard limit\)")
        run.expect(r"the magnet was off \(line 5 had switched it off\): no piece hangs on it; ")
        run.expect(r"the gantry stopped near X300\.0 Y300\.0")
        assert run.exit_status() == 1
        run.assert_clean()
    assert "the magnet was on" not in run.text


def test_an_alarm_mid_move_at_full_speed_says_where_the_gantry_truly_stopped() -> None:
    layout = Layout.default()
    world = SimWorld(layout, name="alarm-mid-move")
    # in virtual time, the machine's clock passing 3.2 s: in the middle of line 6's travel
    grbl = SimGrbl(world, speed=None, homing=False, faults=SimFaults(alarm_at_s=3.2))
    with GrblLink.over(grbl, layout=layout) as link:
        link.connect()
        result = link.stream(DRAG_THEN_TRAVEL)
        x, y = grbl.position
    assert isinstance(result.error, GrblAlarm)
    said = re.search(r"near X(\d+\.\d) Y(\d+\.\d)", str(result.error))
    assert said is not None and (float(said[1]), float(said[2])) == (round(x, 1), round(y, 1))
    assert 150 < x < 300 and 100 < y < 300  # between line 6's ends, not X0.0 Y0.0


def test_an_alarm_in_the_drag_says_the_magnet_was_on() -> None:
    layout = Layout.default()
    world = SimWorld(layout, name="alarm-in-drag")
    grbl = SimGrbl(world, speed=None, homing=False, faults=SimFaults(alarm_line=5))  # as M9 would begin
    with GrblLink.over(grbl, layout=layout) as link:
        link.connect()
        result = link.stream(DRAG_THEN_TRAVEL)
    assert "the magnet was on: grbl's alarm switched its outputs off" in str(result.error)
    assert not world.twin.magnet_on


def test_a_program_streamed_in_parts_releases_a_drag_that_crosses_into_the_next_part() -> None:
    layout = Layout.default()
    world = SimWorld(layout, name="parts")
    lines = ["G21 G90", "G0 X100 Y100", "M8", "G1 X120 Y100 F3000", "G1 X140 Y100", "G1 X160 Y100", "M9"]
    # GRBL refuses line 6, the drag's third line, in the second part (lines 5 to 7)
    grbl = SimGrbl(world, speed=None, homing=False, faults=SimFaults(error_line=6, error_code=33))
    with GrblLink.over(grbl, layout=layout) as link:
        link.connect()
        parts = iter([lines[:4], lines[4:]])
        result = link.stream_parts(parts, lines=len(lines), sends=len(lines))
    assert isinstance(result.error, GrblError) and result.error.line == 6
    assert result.states[:5] == ("ok",) * 5 and result.state(6) == "error" and len(result.states) == 7
    assert grbl.received[-2:] == ["M9", "G4P0"]  # the release, as the second part's streamer knew the drag
    assert not world.twin.magnet_on and world.twin.violations == ()
