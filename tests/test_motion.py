"""The GRBL 1.1 planner time model against closed forms and against itself."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.errors import MachineProfileError, MoveError
from chessatron.grbl.motion import Block, MachineProfile, plan_run, run_time, straight_time

CARTESIAN = MachineProfile(
    kinematics="cartesian", max_rate_mm_min=(12000.0, 12000.0), acceleration_mm_s2=(800.0, 800.0)
)
COREXY = MachineProfile(
    kinematics="corexy", max_rate_mm_min=(12000.0, 12000.0), acceleration_mm_s2=(800.0, 800.0)
)


def trapezoid_s(length: float, speed: float, acceleration: float) -> float:
    """Rest-to-rest time of a move long enough to reach its speed."""
    assert speed * speed / acceleration <= length
    return length / speed + speed / acceleration


def test_long_straight_move_matches_the_closed_form_trapezoid() -> None:
    # 300 mm at 100 mm/s with 800 mm/s²: 3 s of distance plus v/a for the two ramps.
    assert straight_time((0.0, 0.0), (300.0, 0.0), 6000.0, CARTESIAN) == pytest.approx(
        trapezoid_s(300, 100, 800)
    )
    (block,) = plan_run([Block((0.0, 0.0), (300.0, 0.0), 6000.0)], CARTESIAN)
    assert block.entry_mm_s == block.exit_mm_s == 0.0
    assert block.cruise_mm_s == pytest.approx(100.0)


def test_corexy_plans_an_axis_move_in_motor_space() -> None:
    # An X move turns both motors: √2 longer in motor space, where F applies and each motor may take a.
    length, v, a = 300.0 * math.sqrt(2.0), 100.0, 800.0 * math.sqrt(2.0)
    (block,) = plan_run([Block((0.0, 0.0), (300.0, 0.0), 6000.0)], COREXY)
    assert block.length_mm == pytest.approx(length)
    assert block.acceleration_mm_s2 == pytest.approx(a)
    assert block.duration_s == pytest.approx(trapezoid_s(length, v, a))


def test_a_short_move_never_reaches_cruise() -> None:
    # 2 mm from rest to rest peaks at sqrt(a·L) = 40 mm/s, well under the 100 mm/s asked for.
    (block,) = plan_run([Block((0.0, 0.0), (2.0, 0.0), 6000.0)], CARTESIAN)
    assert block.cruise_mm_s == pytest.approx(math.sqrt(800.0 * 2.0))
    assert block.duration_s == pytest.approx(2.0 * math.sqrt(2.0 / 800.0))


def test_a_right_angle_corner_is_slower_than_going_straight_on() -> None:
    corner = [Block((0.0, 0.0), (100.0, 0.0), 6000.0), Block((100.0, 0.0), (100.0, 100.0), 6000.0)]
    straight = [Block((0.0, 0.0), (100.0, 0.0), 6000.0), Block((100.0, 0.0), (200.0, 0.0), 6000.0)]
    planned = plan_run(corner, CARTESIAN)
    # Junction deviation: v² = a·δ·sin(θ/2)/(1 − sin(θ/2)) with the junction acceleration limited along
    # the junction direction (1, 1)/√2, i.e. a·√2.
    s = math.sqrt(0.5)
    assert planned[0].exit_mm_s == pytest.approx(math.sqrt(800.0 * math.sqrt(2.0) * 0.01 * s / (1.0 - s)))
    assert run_time(corner, CARTESIAN) > run_time(straight, CARTESIAN)
    assert run_time(straight, CARTESIAN) == pytest.approx(trapezoid_s(200, 100, 800))


def test_a_reversal_stops_and_zero_junction_deviation_stops_at_every_corner() -> None:
    there_and_back = [Block((0.0, 0.0), (100.0, 0.0), 6000.0), Block((100.0, 0.0), (0.0, 0.0), 6000.0)]
    assert plan_run(there_and_back, CARTESIAN)[0].exit_mm_s == 0.0
    exact_stop = MachineProfile(kinematics="cartesian", junction_deviation_mm=0.0)
    corner = [Block((0.0, 0.0), (100.0, 0.0), 6000.0), Block((100.0, 0.0), (150.0, 50.0), 6000.0)]
    assert plan_run(corner, exact_stop)[0].exit_mm_s == 0.0


def test_corexy_diagonal_turns_one_motor_and_is_slower_than_an_axis_move() -> None:
    rapid = 12000.0 / 60.0
    d = 400.0  # cartesian length of both moves
    diagonal = straight_time((0.0, 0.0), (d / math.sqrt(2.0), d / math.sqrt(2.0)), None, COREXY)
    axis = straight_time((0.0, 0.0), (d, 0.0), None, COREXY)
    # Diagonal: motor A alone moves 2·d/√2 = √2·d at its own rate and acceleration.
    assert diagonal == pytest.approx(trapezoid_s(math.sqrt(2.0) * d, rapid, 800.0))
    # Axis: both motors at full rate, √2·d of motor space at √2 times the motor rate and acceleration.
    assert axis == pytest.approx(
        trapezoid_s(math.sqrt(2.0) * d, math.sqrt(2.0) * rapid, math.sqrt(2.0) * 800.0)
    )
    assert diagonal > axis
    (planned,) = plan_run([Block((0.0, 0.0), (d / math.sqrt(2.0), d / math.sqrt(2.0)), None)], COREXY)
    assert planned.length_mm == pytest.approx(math.sqrt(2.0) * d)


def test_feeds_above_the_max_rate_are_clamped_to_it() -> None:
    too_fast = straight_time((0.0, 0.0), (400.0, 0.0), 1e6, CARTESIAN)
    assert too_fast == pytest.approx(straight_time((0.0, 0.0), (400.0, 0.0), None, CARTESIAN))
    (block,) = plan_run([Block((0.0, 0.0), (400.0, 0.0), 1e6)], CARTESIAN)
    assert block.cruise_mm_s == pytest.approx(200.0)
    # Per-axis limits: a Y move on a machine with a slow Y runs at Y's rate.
    slow_y = MachineProfile(kinematics="cartesian", max_rate_mm_min=(12000.0, 3000.0))
    (y_block,) = plan_run([Block((0.0, 0.0), (0.0, 400.0), 1e6)], slow_y)
    assert y_block.cruise_mm_s == pytest.approx(50.0)


def test_limited_look_ahead_makes_many_tiny_segments_slower() -> None:
    segments = [Block((i * 0.5, 0.0), ((i + 1) * 0.5, 0.0), 12000.0) for i in range(400)]
    short = MachineProfile(kinematics="cartesian", planner_blocks=15)
    deep = MachineProfile(kinematics="cartesian", planner_blocks=1000)
    assert run_time(segments, short) > 1.5 * run_time(segments, deep)
    assert run_time(segments, deep) == pytest.approx(straight_time((0.0, 0.0), (200.0, 0.0), 12000.0, deep))
    # 15 blocks of 0.5 mm: the machine must always be able to stop within the 7.5 mm it can see.
    assert max(p.cruise_mm_s for p in plan_run(segments, short)) <= math.sqrt(2 * 800.0 * 7.5) + 1e-9
    # One block of look-ahead stops at every block.
    stop_each = MachineProfile(kinematics="cartesian", planner_blocks=1)
    assert all(p.exit_mm_s == 0.0 for p in plan_run(segments[:5], stop_each))


def test_zero_length_blocks_are_dropped() -> None:
    blocks = [
        Block((0.0, 0.0), (50.0, 0.0), 6000.0),
        Block((50.0, 0.0), (50.0, 0.0), 6000.0),
        Block((50.0, 0.0), (100.0, 0.0), 6000.0),
    ]
    planned = plan_run(blocks, CARTESIAN)
    assert [p.block for p in planned] == [blocks[0], blocks[2]]
    assert planned[0].exit_mm_s == pytest.approx(100.0)  # the junction is still straight on
    assert plan_run([], CARTESIAN) == []
    assert straight_time((3.0, 4.0), (3.0, 4.0), None, COREXY) == 0.0


def test_position_at_follows_the_profile_in_cartesian_coordinates() -> None:
    (block,) = plan_run([Block((10.0, 20.0), (310.0, 20.0), 6000.0)], COREXY)
    assert block.position_at(0.0) == (10.0, 20.0)
    assert block.position_at(block.duration_s) == (310.0, 20.0)
    assert block.position_at(-1.0) == (10.0, 20.0)
    assert block.position_at(block.duration_s + 1.0) == (310.0, 20.0)
    middle = block.position_at(block.duration_s / 2.0)
    assert middle == pytest.approx((160.0, 20.0))
    # After the first ramp the magnet has covered v²/2a of motor space, i.e. that over √2 in X.
    t_ramp = block.accelerating_s
    x, _ = block.position_at(t_ramp)
    assert x - 10.0 == pytest.approx(block.cruise_mm_s**2 / (2.0 * block.acceleration_mm_s2) / math.sqrt(2.0))
    # Motion is monotonic along the block.
    xs = [block.position_at(block.duration_s * i / 50.0)[0] for i in range(51)]
    assert xs == sorted(xs)


def test_bad_profiles_and_moves_are_refused() -> None:
    with pytest.raises(MachineProfileError, match="max_rate_mm_min"):
        MachineProfile(max_rate_mm_min=(0.0, 1000.0))
    with pytest.raises(MachineProfileError, match="planner_blocks"):
        MachineProfile(planner_blocks=0)
    with pytest.raises(MoveError, match="feed"):
        Block((0.0, 0.0), (1.0, 0.0), 0.0)
    with pytest.raises(MoveError, match="finite"):
        Block((0.0, 0.0), (math.nan, 0.0), None)


# Hundredths of a millimetre, about a step: GRBL drops moves shorter than a step.
coordinates = st.integers(min_value=-30000, max_value=30000).map(lambda n: n / 100.0)
points = st.tuples(coordinates, coordinates)
feeds = st.one_of(st.none(), st.floats(min_value=60.0, max_value=30000.0))
profiles = st.builds(
    MachineProfile,
    max_rate_mm_min=st.tuples(st.floats(1000.0, 20000.0), st.floats(1000.0, 20000.0)),
    acceleration_mm_s2=st.tuples(st.floats(50.0, 3000.0), st.floats(50.0, 3000.0)),
    junction_deviation_mm=st.floats(0.0, 0.1),
    kinematics=st.sampled_from(["cartesian", "corexy"]),
    planner_blocks=st.integers(1, 20),
)


@settings(max_examples=200, deadline=None)
@given(path=st.lists(points, min_size=2, max_size=12), feed=feeds, profile=profiles)
def test_no_run_is_faster_than_the_machine_allows(
    path: list[tuple[float, float]], feed: float | None, profile: MachineProfile
) -> None:
    blocks = [Block(a, b, feed) for a, b in itertools.pairwise(path)]
    length = sum(math.dist(b.start, b.end) for b in blocks)
    # Fastest cartesian speed: a diagonal with both axes at full rate, or on Core-XY an axis move with
    # both motors at full rate.
    fastest = (
        max(profile.max_rate_mm_min) / 60.0 * (math.sqrt(2.0) if profile.kinematics == "cartesian" else 1.0)
    )
    assert run_time(blocks, profile) >= length / fastest * (1.0 - 1e-9)
    planned = plan_run(blocks, profile)
    assert planned == [] or planned[0].entry_mm_s == planned[-1].exit_mm_s == 0.0
    for block, following in itertools.pairwise(planned):
        assert block.exit_mm_s == following.entry_mm_s
    for block in planned:
        # Every speed change fits in the block at the block's acceleration.
        reachable = block.entry_mm_s**2 + 2.0 * block.acceleration_mm_s2 * block.length_mm
        assert block.exit_mm_s**2 <= reachable * (1.0 + 1e-9)
        assert block.cruise_mm_s >= max(block.entry_mm_s, block.exit_mm_s) * (1.0 - 1e-9)
        assert block.duration_s >= block.length_mm / block.cruise_mm_s * (1.0 - 1e-9)


@settings(max_examples=100, deadline=None)
@given(path=st.lists(points, min_size=2, max_size=25), feed=feeds, depth=st.integers(1, 24))
def test_more_look_ahead_is_never_slower(
    path: list[tuple[float, float]], feed: float | None, depth: int
) -> None:
    blocks = [Block(a, b, feed) for a, b in itertools.pairwise(path)]
    shallow = run_time(blocks, MachineProfile(planner_blocks=depth))
    assert run_time(blocks, MachineProfile(planner_blocks=depth + 1)) <= shallow * (1.0 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(
    start=points,
    end=points,
    feed=feeds,
    weights=st.lists(st.floats(min_value=0.05, max_value=1.0), min_size=1, max_size=15),
    profile=profiles,
)
def test_splitting_a_straight_move_does_not_change_its_time(
    start: tuple[float, float],
    end: tuple[float, float],
    feed: float | None,
    weights: list[float],
    profile: MachineProfile,
) -> None:
    if math.dist(start, end) < 1.0:
        return
    fractions = [0.0]
    for w in weights:
        fractions.append(fractions[-1] + w)
    fractions = [f / fractions[-1] for f in fractions]
    cuts = [(start[0] + f * (end[0] - start[0]), start[1] + f * (end[1] - start[1])) for f in fractions]
    cuts[-1] = end
    pieces = [Block(a, b, feed) for a, b in itertools.pairwise(cuts)]
    deep = dataclasses.replace(profile, planner_blocks=len(pieces))
    whole = straight_time(start, end, feed, deep)
    assert run_time(pieces, deep) == pytest.approx(whole, rel=1e-6)


def test_every_stop_costs_the_step_idle_delay_unless_the_motors_stay_on() -> None:
    # GRBL's st_go_idle waits $1 ms at the end of every run before the next command; $1=255 never waits
    moves = [Block((0.0, 0.0), (50.0, 0.0), 3000.0), Block((50.0, 0.0), (50.0, 50.0), 3000.0)]
    held = dataclasses.replace(CARTESIAN, step_idle_delay_ms=255)
    released = dataclasses.replace(CARTESIAN, step_idle_delay_ms=25)
    assert run_time(moves, released) == pytest.approx(run_time(moves, held) + 0.025)  # one run, one stop
    assert run_time(moves, held) == pytest.approx(math.fsum(p.duration_s for p in plan_run(moves, held)))
    assert run_time([Block((5.0, 5.0), (5.0, 5.0), None)], released) == 0.0  # no motion, no stop
    assert straight_time((0.0, 0.0), (0.0, 0.0), None, released) == 0.0
    with pytest.raises(MachineProfileError, match=r"\$1"):
        MachineProfile(step_idle_delay_ms=256)
