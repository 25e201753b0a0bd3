"""The digital twin: programs run against pieces, and what a careful machinist would be told."""

from __future__ import annotations

import pytest

from chessatron.errors import MachineProfileError, MissingPieceError, PieceError
from chessatron.grbl.motion import Block, MachineProfile, run_time
from chessatron.sim.twin import MagnetMethod, Twin, TwinPiece, TwinReport

PROFILE = MachineProfile()
ENVELOPE = (0.0, 0.0, 400.0, 400.0)


def make_twin(*pieces: TwinPiece, magnet: MagnetMethod = "spindle", servo_s: float = 0.0) -> Twin:
    return Twin(
        pieces, clearance_mm=30.0, envelope_mm=ENVELOPE, profile=PROFILE, magnet=magnet, servo_s=servo_s
    )


def kinds(report: TwinReport) -> list[str]:
    return [v.kind for v in report.violations]


PAWN = TwinPiece("wP0", "P", 25.0, 25.0)
KNIGHT = TwinPiece("bN0", "n", 75.0, 45.0)


def test_a_simple_drag_moves_the_piece() -> None:
    twin = make_twin(PAWN, TwinPiece("bQ0", "q", 300.0, 300.0))
    report = twin.run(["G21 G90 G17 G94 G54", "G0 X25 Y25", "M3 S1000", "G1 X125 Y75 F3000", "M5", "M30"])
    assert report.ok, report.violations
    assert twin.pieces["wP0"] == TwinPiece("wP0", "P", 125.0, 75.0)
    assert twin.pieces["bQ0"] == TwinPiece("bQ0", "q", 300.0, 300.0)
    assert twin.magnet_xy == (125.0, 75.0)
    assert not twin.magnet_on and twin.carrying is None
    assert report.lines == 6


def test_passing_another_piece_mid_segment_breaks_clearance() -> None:
    # Both ends of the drag are 54 mm from the knight, but halfway it passes 20 mm from it.
    twin = make_twin(PAWN, KNIGHT)
    report = twin.run("G0 X25 Y25\nM3 S1000\nG1 X125 F3000\nM5")
    assert kinds(report) == ["clearance"]
    (violation,) = report.violations
    assert violation.line == 3
    for text in ("wP0 (P)", "bN0 (n)", "20.00 mm", "(75.00, 25.00)"):
        assert text in violation.message
    assert twin.pieces["wP0"].xy == (125.0, 25.0)


def test_a_path_that_keeps_its_distance_is_fine() -> None:
    twin = make_twin(PAWN, TwinPiece("bN0", "n", 75.0, 55.5))
    assert twin.run("G0 X25 Y25\nM3 S1000\nG1 X125 F3000\nM5").ok  # 30.5 mm at the closest


def test_engaging_with_no_piece_under_the_magnet_is_an_empty_grab() -> None:
    twin = make_twin(PAWN)
    report = twin.run("G0 X30 Y25\nM3 S1000\nG1 X100 F3000\nM5")
    assert kinds(report) == ["empty-grab"]
    assert report.violations[0].line == 2
    assert twin.pieces["wP0"].xy == (25.0, 25.0)
    # Within the grab radius the piece is taken, keeping its offset to the magnet.
    twin.run("G0 X26 Y25\nM3 S1000\nG1 X101 F3000\nM5")
    assert twin.pieces["wP0"].xy == (100.0, 25.0)


def test_releasing_a_piece_next_to_another_is_a_drop_onto() -> None:
    twin = make_twin(PAWN, TwinPiece("bN0", "n", 125.0, 25.0))
    report = twin.run("G0 X25 Y25\nM3 S1000\nG1 X110 F3000\nM5")
    assert kinds(report) == ["clearance", "drop-onto"]
    drop = report.violations[1]
    assert drop.line == 4
    assert "wP0 (P)" in drop.message and "bN0 (n)" in drop.message and "15.00 mm" in drop.message


def test_a_rapid_while_carrying_is_reported() -> None:
    twin = make_twin(PAWN)
    report = twin.run("G0 X25 Y25\nM3 S1000\nG0 X125\nM5")
    assert kinds(report) == ["rapid-while-carrying"]
    assert report.violations[0].line == 3
    assert twin.pieces["wP0"].xy == (125.0, 25.0)  # the move still happens, the piece probably slides


def test_a_target_outside_the_envelope_is_reported_and_skipped() -> None:
    twin = make_twin(PAWN)
    report = twin.run("G0 X25 Y25\nG0 X500\nG0 Y-1\nG0 X400.005 Y0")
    assert kinds(report) == ["envelope", "envelope"]
    assert [v.line for v in report.violations] == [2, 3]
    assert twin.magnet_xy == (400.005, 0.0)  # within the tolerance


def test_the_magnet_left_on_at_the_end_is_reported() -> None:
    twin = make_twin(PAWN)
    report = twin.run("G0 X25 Y25\nM3 S1000\nG1 X75 F3000")
    assert kinds(report) == ["magnet-left-on"]
    assert report.violations[0].line == 0
    assert "wP0 (P)" in report.violations[0].message
    # A program that another call continues is not finished yet.
    unfinished = make_twin(PAWN)
    assert unfinished.run("G0 X25 Y25\nM3 S1000\nG1 X75 F3000", finish=False).ok
    assert unfinished.run("G1 X125\nM5").ok
    assert unfinished.pieces["wP0"].xy == (125.0, 25.0)


def test_program_end_turns_the_spindle_magnet_off() -> None:
    # GRBL's M2/M30 stop spindle and coolant, so the piece is dropped there.
    twin = make_twin(PAWN)
    assert twin.run("G0 X25 Y25\nM3 S1000\nG1 X75 F3000\nM30").ok
    assert not twin.magnet_on
    assert twin.run("G0 X0 Y0").ok
    assert twin.pieces["wP0"].xy == (75.0, 25.0)


def test_spindle_speed_zero_releases_and_m3_without_speed_does_not_engage() -> None:
    twin = make_twin(PAWN)
    assert twin.run("G0 X25 Y25\nM3\nG0 X30").ok
    assert twin.pieces["wP0"].xy == (25.0, 25.0)
    assert twin.run("G0 X25\nS500\nG1 X75 F3000\nS0").ok
    assert twin.pieces["wP0"].xy == (75.0, 25.0) and not twin.magnet_on


def test_coolant_method_grabs_on_m8_or_m7_and_releases_on_m9() -> None:
    twin = make_twin(PAWN, magnet="coolant")
    assert twin.run("G0 X25 Y25\nM8\nG1 X75 F3000\nM9").ok
    assert twin.pieces["wP0"].xy == (75.0, 25.0)
    assert twin.run("M7\nG1 Y75\nM9").ok
    assert twin.pieces["wP0"].xy == (75.0, 75.0)
    # The spindle does nothing to a coolant magnet.
    assert twin.run("M3 S1000\nG1 X200\nM5").ok
    assert twin.pieces["wP0"].xy == (75.0, 75.0)


def test_servo_method_follows_comment_markers_after_a_sync() -> None:
    twin = make_twin(PAWN, magnet="servo", servo_s=0.25)
    report = twin.run("G0 X25 Y25\nG4 P0\n(MAGNET ON)\nG1 X75 F3000\nG4 P0\n( magnet off )")
    assert report.ok, report.violations
    assert twin.pieces["wP0"].xy == (75.0, 25.0)
    expected = run_time([Block((0.0, 0.0), (25.0, 25.0), None)], PROFILE)
    expected += run_time([Block((25.0, 25.0), (75.0, 25.0), 3000.0)], PROFILE)
    assert report.seconds == pytest.approx(expected + 2 * 0.25)
    # M3 is not the servo, and a marker straight after motion would move the servo while the gantry moves.
    report = twin.run("M3 S1000\nG1 X125\nM5\nG1 X75\n(MAGNET ON)\nG1 X25\nG4 P0\n(MAGNET OFF)")
    assert kinds(report) == ["bad-gcode"]
    assert report.violations[0].line == 5 and "g4 p0" in report.violations[0].message
    assert twin.pieces["wP0"].xy == (25.0, 25.0)


def test_markers_are_only_comments_for_other_methods() -> None:
    twin = make_twin(PAWN)
    assert twin.run("G0 X25 Y25\nG4 P0\n(MAGNET ON)\nG1 X75 F3000\nG4 P0\n(MAGNET OFF)").ok
    assert twin.pieces["wP0"].xy == (25.0, 25.0)


def test_garbled_lines_are_reported_and_execution_continues() -> None:
    twin = make_twin(PAWN)
    program = [
        "G0 X25 Y25",
        "G1 X",  # letter without a number
        "M3 S1000 F3000",
        "G1 X75 Q2",  # a word this machine does not have: the whole line is skipped
        "G20 X10",  # inches
        "G2 X10 Y10 I5",  # arcs
        "G1 X200 Y25 (unclosed",
        "G0 G1 X10",  # two motion commands
        "G1 X125",
        "M5",
    ]
    report = twin.run(program)
    assert kinds(report) == ["bad-gcode"] * 6
    assert [v.line for v in report.violations] == [2, 4, 5, 6, 7, 8]
    assert twin.pieces["wP0"].xy == (125.0, 25.0)


def test_g1_needs_a_feed_and_dollar_lines_are_ignored() -> None:
    twin = make_twin(PAWN)
    report = twin.run("$H\n$X\nG1 X10\nF2000\nG1 X10\n\n(comment)")
    assert [(v.line, v.kind) for v in report.violations] == [(3, "bad-gcode")]
    assert "feed" in report.violations[0].message
    assert twin.magnet_xy == (10.0, 0.0)


def test_relative_moves() -> None:
    twin = make_twin(PAWN)
    assert twin.run("G0 X25 Y25\nG91\nM3 S1000\nG1 X10 F3000\nG1 Y-5\nM5\nG90\nG0 X0").ok
    assert twin.pieces["wP0"].xy == (35.0, 20.0)
    assert twin.magnet_xy == (0.0, 20.0)


def test_timing_is_the_planner_time_of_each_run_plus_dwells() -> None:
    twin = make_twin(PAWN)
    program = """
        G0 X25 Y25
        G0 X25 Y24
        G0 X25 Y25
        M3 S1000
        G1 X75 F3000
        G1 X75 Y75
        G1 X125 F6000
        G4 P0.5
        M5
        G0 X0 Y0
        G4 P1.25
    """
    report = twin.run(program)
    assert report.ok, report.violations
    runs = [
        [Block((0, 0), (25, 25), None), Block((25, 25), (25, 24), None), Block((25, 24), (25, 25), None)],
        [
            Block((25, 25), (75, 25), 3000.0),
            Block((75, 25), (75, 75), 3000.0),
            Block((75, 75), (125, 75), 6000.0),
        ],
        [Block((125, 75), (0, 0), None)],
    ]
    expected = sum(run_time(run, PROFILE) for run in runs) + 0.5 + 1.25
    assert report.seconds == pytest.approx(expected)
    assert twin.seconds == pytest.approx(expected)
    # One run is faster than the same moves with a stop between each.
    assert run_time(runs[1], PROFILE) < sum(run_time([b], PROFILE) for b in runs[1])
    again = twin.run("G0 X10")
    assert twin.seconds == pytest.approx(expected + again.seconds)
    assert again.seconds == pytest.approx(run_time([Block((0, 0), (10, 0), None)], PROFILE))


def test_world_controls_place_and_lift() -> None:
    twin = make_twin(PAWN)
    twin.place(KNIGHT)
    assert twin.piece_at(75.0, 45.0) == KNIGHT
    assert twin.piece_at(75.0, 48.0) is None
    assert twin.piece_at(75.0, 48.0, radius_mm=5.0) == KNIGHT
    assert twin.lift("wP0") == PAWN
    assert set(twin.pieces) == {"bN0"}
    with pytest.raises(MissingPieceError, match="'wP0'"):
        twin.lift("wP0")
    # A hand taking the carried piece off the magnet: the magnet carries nothing any more.
    assert twin.run("G0 X75 Y45\nM3 S1000", finish=False).ok
    assert twin.carrying == KNIGHT
    twin.place(TwinPiece("bN0", "n", 300.0, 300.0))
    assert twin.carrying is None
    assert twin.run("G1 X100 F3000\nM5").ok
    assert twin.pieces["bN0"].xy == (300.0, 300.0)


def test_positions_can_be_compared_with_a_chess_position() -> None:
    twin = make_twin(PAWN, KNIGHT, TwinPiece("wK0", "K", 125.004, 125.0))
    assert twin.positions_by_symbol() == {(25.0, 25.0): "P", (75.0, 45.0): "n", (125.0, 125.0): "K"}
    assert twin.check_positions({(25.0, 25.0): "P", (125.0, 125.0): "K"}) == []
    problems = twin.check_positions({(25.0, 25.0): "Q", (175.0, 25.0): "p"})
    assert [v.kind for v in problems] == ["position", "position"]
    assert "'Q'" in problems[0].message and "wP0 (P)" in problems[0].message
    assert "found no piece" in problems[1].message
    assert twin.violations == ()  # the helper reports, it does not record


def test_bad_set_ups_are_refused() -> None:
    with pytest.raises(PieceError, match="'wP0'"):
        make_twin(PAWN, PAWN)
    with pytest.raises(PieceError, match="'X'"):
        TwinPiece("x", "X", 0.0, 0.0)
    with pytest.raises(MachineProfileError, match="envelope"):
        Twin([], clearance_mm=30.0, envelope_mm=(10.0, 0.0, 0.0, 10.0), profile=PROFILE)
    with pytest.raises(MachineProfileError, match="clearance_mm"):
        Twin([], clearance_mm=-1.0, envelope_mm=ENVELOPE, profile=PROFILE)
