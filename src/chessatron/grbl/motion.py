"""How long GRBL 1.1 takes to run linear moves: a time model of its planner (``planner.c``).

Pure functions over values, no I/O. The model follows GRBL's planner step by step:

* each block gets a unit vector, a length, a nominal speed and an acceleration, the last two limited so
  that no axis exceeds its ``$110``/``$111`` rate or ``$120``/``$121`` acceleration
  (``limit_value_by_axis_maximum``);
* on a Core-XY machine GRBL plans in *motor* space, ``A = X + Y`` and ``B = X - Y``: a block's length is
  the norm of ``(ΔA, ΔB)``, √2 times the cartesian length, the feed ``F`` is a speed along that motor-space
  length, and the per-axis limits apply to motors A and B;
* a junction's entry speed is capped by the junction-deviation cornering formula (``$11``) and by the
  nominal speeds of both blocks;
* look-ahead is finite: while a block runs GRBL holds only ``planner_blocks`` blocks (the running one
  included), so it plans every block's exit speed as if the machine had to stop at the end of the last
  block it can see;
* a backward (deceleration) and a forward (acceleration) pass make the entry speeds feasible and each
  block runs a trapezoid, or a triangle when it is too short to reach its nominal speed;
* every stop costs GRBL's step idle delay (``$1``): when the last block of a run ends, the stepper
  interrupt holds the motors for ``$1`` milliseconds before it flags the cycle's end (``st_go_idle``), and
  nothing else runs meanwhile. ``$1=255`` keeps the motors on for ever and costs nothing.

Speeds in this API are in mm/s, feeds in mm/min as in G-code.

>>> profile = MachineProfile(kinematics="cartesian", acceleration_mm_s2=(1000.0, 1000.0))
>>> round(straight_time((0.0, 0.0), (100.0, 0.0), 6000.0, profile), 3)  # 100 mm at 100 mm/s
1.1
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from chessatron.errors import MachineProfileError, MoveError
from chessatron.i18n import _

__all__ = [
    "STEPPERS_ALWAYS_ON",
    "Block",
    "Kinematics",
    "MachineProfile",
    "PlannedBlock",
    "acceleration_along",
    "plan_run",
    "reachable_feed",
    "run_time",
    "straight_time",
    "straight_times",
]

Kinematics = Literal["cartesian", "corexy"]
Point = tuple[float, float]

# GRBL 1.1 config.h defaults: corners may be taken down to a full stop, and no move crawls slower than
# 1 mm/min.
MINIMUM_JUNCTION_SPEED_MM_S = 0.0
MINIMUM_FEED_RATE_MM_S = 1.0 / 60.0
#: ``$1=255``: GRBL keeps the stepper motors powered after a stop (and does not wait before going idle).
STEPPERS_ALWAYS_ON = 255
# GRBL's thresholds on the junction cosine for "straight on" and "full reversal".
_COS_LIMIT = 0.999999
# Shorter than any stepper's resolution; GRBL drops blocks that make no step.
_ZERO_LENGTH_MM = 1e-9


@dataclass(frozen=True)
class MachineProfile:
    """GRBL motion settings and kinematics.

    ``max_rate_mm_min`` and ``acceleration_mm_s2`` are per axis (X, Y) on a cartesian machine and per
    motor (A, B) on a Core-XY one, exactly as GRBL reads ``$110``/``$111`` and ``$120``/``$121``.
    ``planner_blocks`` is how many blocks GRBL can hold at once (15 on an Arduino Uno).

    Raises :class:`~chessatron.errors.MachineProfileError` for settings no machine can have.
    """

    max_rate_mm_min: tuple[float, float] = (12000.0, 12000.0)
    acceleration_mm_s2: tuple[float, float] = (800.0, 800.0)
    junction_deviation_mm: float = 0.01
    kinematics: Kinematics = "corexy"
    planner_blocks: int = 15
    step_idle_delay_ms: int = STEPPERS_ALWAYS_ON
    """GRBL's ``$1``: 255 keeps the motors powered at every stop; 0 to 254 releases them that many
    milliseconds after each stop, and the machine stands still that long (:attr:`stop_delay_s`)."""

    def __post_init__(self) -> None:
        for name, values in (
            ("max_rate_mm_min", self.max_rate_mm_min),
            ("acceleration_mm_s2", self.acceleration_mm_s2),
        ):
            if len(values) != 2 or not all(math.isfinite(v) and v > 0.0 for v in values):
                raise MachineProfileError(
                    _("{name} must be two positive finite numbers, got {value!r}").format(
                        name=name, value=values
                    )
                )
        if not (math.isfinite(self.junction_deviation_mm) and self.junction_deviation_mm >= 0.0):
            raise MachineProfileError(
                _("junction_deviation_mm must be zero or positive, got {value!r}").format(
                    value=self.junction_deviation_mm
                )
            )
        if self.kinematics not in ("cartesian", "corexy"):
            raise MachineProfileError(
                _("kinematics must be 'cartesian' or 'corexy', got {value!r}").format(value=self.kinematics)
            )
        if isinstance(self.planner_blocks, bool) or not isinstance(self.planner_blocks, int):
            raise MachineProfileError(
                _("planner_blocks must be an integer, got {value!r}").format(value=self.planner_blocks)
            )
        if self.planner_blocks < 1:
            raise MachineProfileError(
                _("planner_blocks must be at least 1, got {value!r}").format(value=self.planner_blocks)
            )
        delay = self.step_idle_delay_ms
        if isinstance(delay, bool) or not isinstance(delay, int) or not 0 <= delay <= STEPPERS_ALWAYS_ON:
            raise MachineProfileError(
                _(
                    "step_idle_delay_ms (grbl's $1) must be a whole number from 0 to 255, got {value!r}"
                ).format(value=delay)
            )

    @property
    def stop_delay_s(self) -> float:
        """Seconds the machine stands after every stop before it runs the next command: ``$1`` in
        seconds, or 0 with ``$1=255`` (the motors stay on and GRBL does not wait)."""
        delay = self.step_idle_delay_ms
        return 0.0 if delay == STEPPERS_ALWAYS_ON else delay / 1000.0

    def to_planner(self, dx: float, dy: float) -> Point:
        """Turn a cartesian displacement (mm) into the space GRBL plans in (motor space on Core-XY)."""
        if self.kinematics == "corexy":
            return (dx + dy, dx - dy)
        return (dx, dy)


@dataclass(frozen=True)
class Block:
    """One linear move in machine millimetres; feed None means rapid (G0).

    Raises :class:`~chessatron.errors.MoveError` for a coordinate that is not finite or a feed that is
    not positive (GRBL answers ``error:22`` to ``F0``).
    """

    start: Point
    end: Point
    feed_mm_min: float | None

    def __post_init__(self) -> None:
        if not all(math.isfinite(c) for c in (*self.start, *self.end)):
            raise MoveError(f"move coordinates must be finite, got {self.start!r} -> {self.end!r}")
        if self.feed_mm_min is not None and not (math.isfinite(self.feed_mm_min) and self.feed_mm_min > 0.0):
            raise MoveError(f"feed must be positive mm/min or None for a rapid, got {self.feed_mm_min!r}")


@dataclass(frozen=True)
class PlannedBlock:
    """A block with the speed profile GRBL gives it.

    Speeds are in mm/s and ``length_mm`` in the planner's space (motor space on Core-XY, where it is √2
    times the cartesian length). ``cruise_mm_s`` is the highest speed reached: the nominal speed when the
    block is long enough, otherwise the peak of a triangle profile.
    """

    block: Block
    entry_mm_s: float
    cruise_mm_s: float
    exit_mm_s: float
    acceleration_mm_s2: float
    duration_s: float
    length_mm: float

    @property
    def accelerating_s(self) -> float:
        """Seconds spent speeding up from the entry speed to the cruise speed."""
        return (self.cruise_mm_s - self.entry_mm_s) / self.acceleration_mm_s2

    @property
    def decelerating_s(self) -> float:
        """Seconds spent slowing down from the cruise speed to the exit speed."""
        return (self.cruise_mm_s - self.exit_mm_s) / self.acceleration_mm_s2

    def distance_at(self, t: float) -> float:
        """Planner-space millimetres travelled ``t`` seconds into the block (clamped to the block)."""
        if t <= 0.0:
            return 0.0
        if t >= self.duration_s:
            return self.length_mm
        a = self.acceleration_mm_s2
        t_acc = self.accelerating_s
        t_dec_start = self.duration_s - self.decelerating_s
        if t <= t_acc:
            s = self.entry_mm_s * t + 0.5 * a * t * t
        elif t <= t_dec_start:
            s = _ramp_mm(self.entry_mm_s, self.cruise_mm_s, a) + self.cruise_mm_s * (t - t_acc)
        else:
            tau = self.duration_s - t  # time still to go: measure back from the end, where exit is known
            s = self.length_mm - (self.exit_mm_s * tau + 0.5 * a * tau * tau)
        return min(max(s, 0.0), self.length_mm)

    def position_at(self, t: float) -> Point:
        """Cartesian machine position (mm) ``t`` seconds into the block, clamped to its ends."""
        if t <= 0.0:
            return self.block.start
        if t >= self.duration_s:
            return self.block.end
        # Motor space is a linear map of cartesian space, so the fraction of the way is the same in both.
        f = self.distance_at(t) / self.length_mm
        (x0, y0), (x1, y1) = self.block.start, self.block.end
        return (x0 + f * (x1 - x0), y0 + f * (y1 - y0))


@dataclass(frozen=True)
class _Prepared:
    """What ``plan_buffer_line`` stores about a block before the plan is recalculated."""

    block: Block
    length_mm: float
    unit: Point
    nominal_mm_s: float
    acceleration_mm_s2: float


def _limit_by_axis(max_values: tuple[float, float], unit: Point) -> float:
    # GRBL's limit_value_by_axis_maximum: the largest value along `unit` that keeps every axis within its own.
    limit = math.inf
    for maximum, component in zip(max_values, unit, strict=True):
        if component != 0.0:
            limit = min(limit, abs(maximum / component))
    return limit


def _ramp_mm(v0: float, v1: float, a: float) -> float:
    """Distance to change speed from v0 to v1 at acceleration a."""
    return abs(v1 * v1 - v0 * v0) / (2.0 * a)


def _prepare(block: Block, profile: MachineProfile) -> _Prepared | None:
    (x0, y0), (x1, y1) = block.start, block.end
    da, db = profile.to_planner(x1 - x0, y1 - y0)
    length = math.hypot(da, db)
    if length < _ZERO_LENGTH_MM:
        return None
    unit = (da / length, db / length)
    acceleration = _limit_by_axis(profile.acceleration_mm_s2, unit)
    rapid_rate = _limit_by_axis((profile.max_rate_mm_min[0] / 60.0, profile.max_rate_mm_min[1] / 60.0), unit)
    nominal = rapid_rate if block.feed_mm_min is None else min(block.feed_mm_min / 60.0, rapid_rate)
    return _Prepared(block, length, unit, max(nominal, MINIMUM_FEED_RATE_MM_S), acceleration)


def _max_junction_speed_sqr(previous: _Prepared, current: _Prepared, profile: MachineProfile) -> float:
    # GRBL's cosine is of the angle between the incoming direction reversed and the outgoing one:
    # -1 means straight on, +1 means a full reversal.
    cos_theta = -(previous.unit[0] * current.unit[0] + previous.unit[1] * current.unit[1])
    if cos_theta > _COS_LIMIT:
        return MINIMUM_JUNCTION_SPEED_MM_S**2
    if cos_theta < -_COS_LIMIT:
        return math.inf  # straight on: only the nominal speeds limit the junction
    jx, jy = current.unit[0] - previous.unit[0], current.unit[1] - previous.unit[1]
    norm = math.hypot(jx, jy)
    junction_acceleration = _limit_by_axis(profile.acceleration_mm_s2, (jx / norm, jy / norm))
    sin_theta_d2 = math.sqrt(0.5 * (1.0 - cos_theta))  # half-angle identity, always positive
    # Centripetal acceleration on the circle tangent to both lines whose edge lies junction_deviation
    # from the corner.
    v_sqr = junction_acceleration * profile.junction_deviation_mm * sin_theta_d2 / (1.0 - sin_theta_d2)
    return max(MINIMUM_JUNCTION_SPEED_MM_S**2, v_sqr)


def _stop_window_speed_sqr(
    prepared: Sequence[_Prepared], max_entry_sqr: Sequence[float], first: int, last: int
) -> float:
    """Highest entry speed² of block ``first`` from which blocks first..last can still stop at last's end."""
    v_sqr = 0.0
    for j in range(last, first - 1, -1):
        v_sqr = min(max_entry_sqr[j], v_sqr + 2.0 * prepared[j].acceleration_mm_s2 * prepared[j].length_mm)
    return v_sqr


def _trapezoid(entry: float, exit_: float, p: _Prepared) -> tuple[float, float]:
    """Cruise (peak) speed and duration of a block between the given entry and exit speeds."""
    a, length, nominal = p.acceleration_mm_s2, p.length_mm, p.nominal_mm_s
    peak_sqr = 0.5 * (entry * entry + exit_ * exit_) + a * length
    if peak_sqr >= nominal * nominal:
        cruise_mm = length - _ramp_mm(entry, nominal, a) - _ramp_mm(nominal, exit_, a)
        duration = (2.0 * nominal - entry - exit_) / a + max(cruise_mm, 0.0) / nominal
        return nominal, duration
    # Triangle: too short to reach nominal speed. Rounding must not put the peak below either end.
    peak = max(math.sqrt(peak_sqr), entry, exit_)
    return peak, (2.0 * peak - entry - exit_) / a


def plan_run(blocks: Sequence[Block], profile: MachineProfile) -> list[PlannedBlock]:
    """Plan a run of consecutive moves that starts at rest and ends at rest.

    GRBL empties its planner (syncs, so the machine stops) at M3/M5/M8/M9/G4, so a program is a series
    of such runs. Zero-length blocks are dropped, as GRBL discards them; the result has one
    :class:`PlannedBlock` per remaining block, in order.

    >>> moves = [Block((0, 0), (50, 0), 3000), Block((50, 0), (100, 0), 3000)]
    >>> [round(p.exit_mm_s, 1) for p in plan_run(moves, MachineProfile(kinematics="cartesian"))]
    [50.0, 0.0]
    """
    prepared = [p for p in (_prepare(b, profile) for b in blocks) if p is not None]
    n = len(prepared)
    if n == 0:
        return []

    # Junction limits, as plan_buffer_line computes them. The first block starts from rest.
    max_entry_sqr = [0.0] * n
    for i in range(1, n):
        previous, current = prepared[i - 1], prepared[i]
        nominal = min(previous.nominal_mm_s, current.nominal_mm_s)
        max_entry_sqr[i] = min(nominal * nominal, _max_junction_speed_sqr(previous, current, profile))

    # Finite look-ahead: while block i runs, GRBL holds blocks i..i+planner_blocks-1 and plans them to
    # end at rest, so block i may leave only as fast as the rest of that window can stop from.
    entry_sqr = list(max_entry_sqr)
    for i in range(n - 1):
        last = min(i + profile.planner_blocks - 1, n - 1)
        if last == i:
            entry_sqr[i + 1] = 0.0
        else:
            entry_sqr[i + 1] = min(
                entry_sqr[i + 1], _stop_window_speed_sqr(prepared, max_entry_sqr, i + 1, last)
            )

    # Reverse pass: every block can decelerate to the next block's entry (and the run to rest).
    next_entry_sqr = 0.0
    for i in range(n - 1, -1, -1):
        p = prepared[i]
        entry_sqr[i] = min(entry_sqr[i], next_entry_sqr + 2.0 * p.acceleration_mm_s2 * p.length_mm)
        next_entry_sqr = entry_sqr[i]
    # Forward pass: every block can accelerate from its entry to the next block's entry.
    entry_sqr[0] = 0.0
    for i in range(1, n):
        p = prepared[i - 1]
        entry_sqr[i] = min(entry_sqr[i], entry_sqr[i - 1] + 2.0 * p.acceleration_mm_s2 * p.length_mm)

    speeds = [math.sqrt(max(v, 0.0)) for v in entry_sqr] + [0.0]
    planned: list[PlannedBlock] = []
    for i, p in enumerate(prepared):
        entry, exit_ = speeds[i], speeds[i + 1]
        cruise, duration = _trapezoid(entry, exit_, p)
        planned.append(
            PlannedBlock(p.block, entry, cruise, exit_, p.acceleration_mm_s2, duration, p.length_mm)
        )
    return planned


def acceleration_along(start: Point, end: Point, profile: MachineProfile) -> float:
    """The acceleration GRBL gives a straight move from ``start`` to ``end``, in machine mm/s²: the most
    that keeps every axis (every motor on Core-XY) within its ``$120``/``$121``; inf for no move.

    >>> acceleration_along((0.0, 0.0), (50.8, 0.0), MachineProfile())
    800.0
    """
    prepared = _prepare(Block(start, end, None), profile)
    if prepared is None:
        return math.inf
    return prepared.acceleration_mm_s2 * math.dist(start, end) / prepared.length_mm


def reachable_feed(start: Point, end: Point, profile: MachineProfile) -> float:
    """The highest feed (mm/min) a straight move from ``start`` to ``end``, from rest to rest, reaches:
    a faster feed is never reached, the move being too short to speed up to it (or the axes' rates
    ``$110``/``$111`` holding it back).

    >>> round(reachable_feed((0.0, 0.0), (50.8, 0.0), MachineProfile()))  # $110/$111 hold it back
    16971
    """
    prepared = _prepare(Block(start, end, None), profile)
    if prepared is None:
        return 0.0
    peak = math.sqrt(prepared.acceleration_mm_s2 * prepared.length_mm)
    return 60.0 * min(prepared.nominal_mm_s, peak)


def run_time(blocks: Sequence[Block], profile: MachineProfile) -> float:
    """Seconds GRBL takes for a run of moves from rest to rest: the sum of :func:`plan_run`'s durations,
    plus the stop delay (``$1``) at its end when anything moved.

    >>> slow_stop = MachineProfile(kinematics="cartesian", acceleration_mm_s2=(1000.0, 1000.0),
    ...                            step_idle_delay_ms=25)
    >>> round(run_time([Block((0.0, 0.0), (100.0, 0.0), 6000.0)], slow_stop), 3)
    1.125
    """
    planned = plan_run(blocks, profile)
    if not planned:
        return 0.0
    return math.fsum(p.duration_s for p in planned) + profile.stop_delay_s


def straight_time(start: Point, end: Point, feed_mm_min: float | None, profile: MachineProfile) -> float:
    """Seconds for one move from rest to rest; ``feed_mm_min`` None means a rapid (G0).

    >>> straight_time((0.0, 0.0), (0.0, 0.0), None, MachineProfile())
    0.0
    """
    return run_time([Block(start, end, feed_mm_min)], profile)


def straight_times(
    dx_mm: npt.ArrayLike, dy_mm: npt.ArrayLike, feed_mm_min: float | None, profile: MachineProfile
) -> npt.NDArray[np.float64]:
    """:func:`straight_time` for many displacements at once (cartesian mm, element by element): the
    same formulas, vectorised, for planners that weigh thousands of moves (a set-up's tour).

    >>> profile = MachineProfile(kinematics="cartesian", acceleration_mm_s2=(1000.0, 1000.0))
    >>> [round(t, 3) for t in straight_times([100.0, 0.0], [0.0, 0.0], 6000.0, profile).tolist()]
    [1.1, 0.0]
    """
    dx = np.asarray(dx_mm, dtype=np.float64)
    dy = np.asarray(dy_mm, dtype=np.float64)
    if profile.kinematics == "corexy":
        da, db = dx + dy, dx - dy
    else:
        da, db = dx, dy
    length = np.hypot(da, db)
    moving = length >= _ZERO_LENGTH_MM
    safe = np.where(moving, length, 1.0)
    units = (np.abs(da) / safe, np.abs(db) / safe)

    def limit(maximum: tuple[float, float]) -> npt.NDArray[np.float64]:
        # _limit_by_axis, element by element: an axis that does not move sets no limit
        result = np.full(length.shape, np.inf)
        for value, component in zip(maximum, units, strict=True):
            with np.errstate(divide="ignore"):
                result = np.minimum(result, np.where(component > 0.0, value / component, np.inf))
        return result

    acceleration = limit(profile.acceleration_mm_s2)
    rapid = limit((profile.max_rate_mm_min[0] / 60.0, profile.max_rate_mm_min[1] / 60.0))
    nominal = rapid if feed_mm_min is None else np.minimum(feed_mm_min / 60.0, rapid)
    nominal = np.maximum(nominal, MINIMUM_FEED_RATE_MM_S)
    acceleration = np.where(moving, acceleration, 1.0)
    # _trapezoid from rest to rest: a full profile when the block can reach its nominal speed
    reaches = acceleration * length >= nominal * nominal
    cruise_mm = np.maximum(length - nominal * nominal / acceleration, 0.0)
    trapezoid = 2.0 * nominal / acceleration + cruise_mm / nominal
    triangle = 2.0 * np.sqrt(acceleration * length) / acceleration
    duration = np.where(reaches, trapezoid, triangle) + profile.stop_delay_s
    return np.asarray(np.where(moving, duration, 0.0), dtype=np.float64)
