"""GRBL 1.1's homing cycle as a time model, free of I/O: how long ``$H`` takes, and the longest it can.

GRBL runs the cycle without its real-time protocol (``limits_go_home`` loops on the limit pins only), so
it answers no ``?`` until the cycle is over: a host must know how long to wait in silence. Each axis of a
cycle (this table: X, then Y, one at a time, as a Core-XY machine must) goes through four phases
(``N_HOMING_LOCATE_CYCLE`` = 1), each followed by the ``$26`` debounce delay:

1. *approach*: towards the switch at the seek rate ``$25``, for at most ``HOMING_AXIS_SEARCH_SCALAR``
   (1.5) times the axis travel (``$130``/``$131``); GRBL raises ``ALARM:9`` if no switch triggers;
2. *pull-off*: back ``$27`` millimetres at the seek rate (``ALARM:8`` if the switch stays closed);
3. *locate*: towards the switch again at the feed rate ``$24``, for at most ``HOMING_AXIS_LOCATE_SCALAR``
   (5) times the pull-off;
4. *pull-off*: back ``$27`` at the seek rate.

The moves are planned like any other (on Core-XY in motor space, where a move along X or Y is √2 times
longer), and when the cycle is over GRBL goes idle through ``st_go_idle``, which waits ``$1`` ms unless
``$1=255``.

>>> from chessatron.grbl.motion import MachineProfile
>>> settings = {1: 255, 24: 100.0, 25: 3000.0, 26: 250, 27: 1.0, 130: 630, 131: 530}
>>> homing = HomingSettings.from_settings(settings)
>>> profile = MachineProfile(kinematics="cartesian")
>>> round(homing_time_s((0.0, 0.0), (0.0, 0.0), homing, profile), 2)  # already at home: 2 x 4 phases
3.63
>>> round(homing_bound_s(homing, profile), 1)  # 945 mm and 795 mm of search at 50 mm/s, and more
43.2
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .motion import Block, MachineProfile, plan_run

__all__ = ["LOCATE_SCALAR", "SEARCH_SCALAR", "HomingSettings", "homing_bound_s", "homing_time_s"]

#: GRBL 1.1's ``HOMING_AXIS_SEARCH_SCALAR``: the approach searches this many times the axis travel.
SEARCH_SCALAR = 1.5
#: GRBL 1.1's ``HOMING_AXIS_LOCATE_SCALAR``: the locating approach searches this many pull-offs.
LOCATE_SCALAR = 5.0
# GRBL's compiled-in defaults (defaults.h) for the homing settings a report may lack.
_DEFAULTS = {24: 25.0, 25: 500.0, 26: 250.0, 27: 1.0, 130: 200.0, 131: 200.0, 1: 25.0}


@dataclass(frozen=True)
class HomingSettings:
    """The ``$`` settings the homing cycle runs on."""

    feed_mm_min: float
    """``$24``: the locating approach's feed (mm/min)."""
    seek_mm_min: float
    """``$25``: the first approach's and the pull-offs' rate (mm/min)."""
    debounce_ms: float
    """``$26``: the pause after every phase (ms)."""
    pulloff_mm: float
    """``$27``: how far the carriage backs off a switch (mm)."""
    travel_mm: tuple[float, float]
    """``$130``, ``$131``: the axes' travel (mm), which bounds the search."""
    step_idle_delay_ms: float = 255.0
    """``$1``: the stop delay when the cycle ends (255: none)."""

    @classmethod
    def from_settings(cls, settings: Mapping[int, float]) -> HomingSettings:
        """From a ``$$`` report by number (GRBL's defaults for what it lacks)."""

        def value(number: int) -> float:
            found = settings.get(number)
            return float(found) if found is not None and found > 0 else _DEFAULTS[number]

        return cls(
            feed_mm_min=value(24),
            seek_mm_min=value(25),
            debounce_ms=float(settings.get(26, _DEFAULTS[26])),
            pulloff_mm=float(settings.get(27, _DEFAULTS[27])),
            travel_mm=(value(130), value(131)),
            step_idle_delay_ms=float(settings.get(1, _DEFAULTS[1])),
        )


def _move_s(axis: int, distance_mm: float, feed_mm_min: float, profile: MachineProfile) -> float:
    """Seconds for one homing move along one axis from rest to rest (no ``$1`` delay while homing)."""
    if distance_mm <= 0.0:
        return 0.0
    end = (distance_mm, 0.0) if axis == 0 else (0.0, distance_mm)
    return math.fsum(p.duration_s for p in plan_run([Block((0.0, 0.0), end, feed_mm_min)], profile))


def _axis_s(
    axis: int, approach_mm: float, locate_mm: float, homing: HomingSettings, profile: MachineProfile
) -> float:
    pulloff = homing.pulloff_mm
    return (
        _move_s(axis, approach_mm, homing.seek_mm_min, profile)
        + _move_s(axis, pulloff, homing.seek_mm_min, profile)
        + _move_s(axis, locate_mm, homing.feed_mm_min, profile)
        + _move_s(axis, pulloff, homing.seek_mm_min, profile)
        + 4 * homing.debounce_ms / 1000.0
    )


def _idle_s(homing: HomingSettings) -> float:
    return 0.0 if homing.step_idle_delay_ms >= 255 else homing.step_idle_delay_ms / 1000.0


def homing_time_s(
    start: tuple[float, float], home: tuple[float, float], homing: HomingSettings, profile: MachineProfile
) -> float:
    """Machine seconds ``$H`` takes from ``start`` to ``home`` (mm): X's cycle, then Y's, with the
    switches a pull-off beyond home, the locating approach a pull-off long."""
    pulloff = homing.pulloff_mm
    return math.fsum(
        _axis_s(axis, abs(start[axis] - home[axis]) + pulloff, pulloff, homing, profile) for axis in (0, 1)
    ) + _idle_s(homing)


def homing_bound_s(homing: HomingSettings, profile: MachineProfile) -> float:
    """The longest ``$H`` can take before GRBL answers ``ok`` or gives up with an alarm: both approaches
    searching their whole distance."""
    return math.fsum(
        _axis_s(
            axis,
            SEARCH_SCALAR * homing.travel_mm[axis],
            LOCATE_SCALAR * homing.pulloff_mm,
            homing,
            profile,
        )
        for axis in (0, 1)
    ) + _idle_s(homing)
