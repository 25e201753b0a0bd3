"""What ``chessatron run`` refuses before anything moves (chessatron.grbl.guard): each rule, and the GRBL
modal state it follows to apply them (relative moves, inches, jogs, homing, program end, each way of
switching the magnet)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chessatron.grbl.guard import check_program
from chessatron.planning.layout import Layout, MagnetConfig

LAYOUT = Layout.default()  # envelope X0 to 630, Y0 to 530; the magnet on the spindle output


def refused(lines: list[str], layout: Layout = LAYOUT, start: tuple[float, float] | None = None) -> list[int]:
    return [refusal.line for refusal in check_program(lines, layout, start)]


def test_a_program_that_stays_inside_and_drags_at_a_feed_passes() -> None:
    program = ["G21 G90", "G0 X100 Y100", "M3 S1000", "G4 P0.2", "G1 X200 F3000", "M5", "G0 X0 Y0", "M2"]
    assert refused(program) == []


@pytest.mark.parametrize(
    ("lines", "lines_refused"),
    [
        (["G0 X631"], [1]),
        (["G1 Y-0.1 F1000"], [1]),
        (["G91", "G0 X600", "G0 X40"], [3]),  # relative: 640 is past the edge
        (["G20", "G0 X25"], [2]),  # inches: 635 mm
        (["G20", "G0 X24", "G21", "G0 X600"], []),
        (["G53 G0 X700"], [1]),
        (["$J=G91 X700 F1000"], [1]),  # a jog too
        (["G0 X600", "$J=G91 X20 F1000", "$J=G91 X20 F1000"], [3]),
        (["G0 X600 Y500", "$H", "G91 G0 X10"], []),  # homing puts it at home
    ],
)
def test_a_target_outside_the_envelope_is_refused(lines: list[str], lines_refused: list[int]) -> None:
    assert refused(lines) == lines_refused


def test_relative_moves_count_from_where_the_gantry_stands() -> None:
    assert refused(["G91", "G0 X100"], start=(600.0, 0.0)) == [2]
    assert refused(["G91", "G0 X100"], start=(0.0, 0.0)) == []


@pytest.mark.parametrize(
    ("method", "on", "off"),
    [
        ("spindle", "M3 S1000", "M5"),
        ("coolant", "M8", "M9"),
        ("servo", "G4 P0 (MAGNET ON)", "G4 P0 (MAGNET OFF)"),
    ],
)
def test_a_rapid_move_with_the_magnet_on_is_refused_whichever_output_holds_it(
    method: str, on: str, off: str
) -> None:
    layout = replace(LAYOUT, magnet=MagnetConfig(method=method))  # type: ignore[arg-type]
    assert refused(["G0 X10 Y10", on, "G1 X50 F3000", "G0 X60", "X70", off, "G0 X0"], layout) == [4, 5]
    assert refused(["G0 X10 Y10", on, "$H"], layout) == [3]  # homing drags it home at seek speed


def test_a_spindle_at_speed_zero_or_an_ended_program_holds_nothing() -> None:
    assert refused(["M3 S0", "G0 X10"]) == []
    assert refused(["M3 S1000", "M2", "G0 X10"]) == []  # program end: M5, and G1 is the motion mode
    assert refused(["M3 S1000 G0 X10"]) == [1]  # grbl switches the spindle on before the line's motion


@pytest.mark.parametrize(
    "line",
    ["G2 X10 Y10 I5 J0 F1000", "G28", "G30 X10", "G38.2 X10 F100", "G92 X0 Y0", "G10 L20 P1 X0", "G55"],
)
def test_motion_this_check_cannot_follow_is_refused(line: str) -> None:
    (refusal,) = check_program([line], LAYOUT)
    assert "--raw" in refusal.why or "G0/G1" in refusal.why


def test_an_arc_mode_without_motion_waits_for_the_line_that_moves() -> None:
    assert refused(["G2", "G0 X10"]) == []  # back to G0 before anything moved
    assert refused(["G2", "X10 Y10 I5"]) == [2]


def test_lines_grbl_itself_refuses_are_left_to_it() -> None:
    assert refused(["G1 X", "G5 X10", "hello"]) == []  # they move nothing
