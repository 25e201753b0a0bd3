"""GRBL 1.1 settings (``$$``) and how they should agree with a table layout. No I/O.

>>> settings = layout_settings(Layout.default())
>>> settings[110], settings[130]
('12000.000', '630.000')
>>> for warning in check_settings({110: 5000.0, 32: 1.0}, Layout.default()):
...     print(warning.split(":")[0].split(" is ")[0])
laser mode
$110 (x maximum rate, mm/min)
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..i18n import _
from ..planning.layout import Layout
from .codes import SETTINGS
from .motion import STEPPERS_ALWAYS_ON

__all__ = [
    "INTEGER_SETTINGS",
    "check_settings",
    "format_setting",
    "homing_direction_mask",
    "homing_off_warning",
    "layout_settings",
    "settings_program",
]

#: Settings GRBL 1.1 prints as whole numbers; the rest get three decimals.
INTEGER_SETTINGS = frozenset({0, 1, 2, 3, 4, 5, 6, 10, 13, 20, 21, 22, 23, 26, 30, 31, 32})

# GRBL 1.1's compiled-in defaults (defaults.h, the generic machine) for what a layout does not decide.
_DEFAULTS: dict[int, float] = {
    0: 10,
    1: 25,
    2: 0,
    3: 0,
    4: 0,
    5: 0,
    6: 0,
    10: 1,
    11: 0.010,
    12: 0.002,
    13: 0,
    20: 0,
    21: 0,
    22: 0,
    23: 0,
    24: 25.0,
    25: 500.0,
    26: 250,
    27: 1.0,
    30: 1000,
    31: 0,
    32: 0,
    100: 250.0,
    101: 250.0,
    102: 250.0,
    110: 500.0,
    111: 500.0,
    112: 500.0,
    120: 10.0,
    121: 10.0,
    122: 10.0,
    130: 200.0,
    131: 200.0,
    132: 200.0,
}


def format_setting(number: int, value: float) -> str:
    """A setting's value as GRBL 1.1 prints it."""
    return f"{value:.0f}" if number in INTEGER_SETTINGS else f"{value:.3f}"


def homing_direction_mask(layout: Layout) -> int:
    """``$23`` for ``layout``: a bit for each axis whose home (``home_mm``) lies nearer the envelope's
    minimum than its maximum, so that GRBL seeks that axis's switch in the negative direction.

    >>> homing_direction_mask(Layout.default())  # home at (0, 0), the envelope's lower corner
    3
    """
    xmin, ymin, xmax, ymax = layout.envelope_mm
    x, y = layout.home_mm
    return (1 if x - xmin <= xmax - x else 0) | (2 if y - ymin <= ymax - y else 0)


def layout_settings(layout: Layout, *, homing: bool = True, soft_limits: bool = False) -> dict[int, str]:
    """The ``$$`` report of a GRBL configured for ``layout``: rates, accelerations, junction deviation and
    the step idle delay (``$1``) from its machine profile, travel from its envelope, the homing direction
    towards ``home_mm`` (``$23``), 80 steps/mm (GT2 belt, 20-tooth pulley, 1/16 microsteps), status
    reports with machine position and buffer state (``$10=3``) and GRBL's defaults for the rest."""
    profile = layout.profile
    xmin, ymin, xmax, ymax = layout.envelope_mm
    values = dict(_DEFAULTS)
    values.update(
        {
            1: profile.step_idle_delay_ms,
            10: 3,
            11: profile.junction_deviation_mm,
            20: 1 if soft_limits else 0,
            22: 1 if homing else 0,
            23: homing_direction_mask(layout),
            24: 100.0,
            25: 3000.0,
            30: max(1000.0, layout.magnet.spindle_speed),
            100: 80.0,
            101: 80.0,
            110: profile.max_rate_mm_min[0],
            111: profile.max_rate_mm_min[1],
            120: profile.acceleration_mm_s2[0],
            121: profile.acceleration_mm_s2[1],
            130: xmax - xmin,
            131: ymax - ymin,
        }
    )
    return {number: format_setting(number, value) for number, value in sorted(values.items())}


# Why this table wants what settings_program prints, where it is not simply GRBL's default.
_WHY: dict[int, str] = {
    1: "255 keeps the motors on, so the carriage holds still while the magnet engages and releases",
    10: "status reports with machine position and buffer state",
    11: "the layout's junction_deviation_mm",
    20: "grbl refuses any target outside the envelope",
    22: "limit switches on X and Y",
    23: "towards home_mm",
    24: "the slow second approach",
    25: "the first approach",
    30: "full scale of the spindle output that switches the magnet",
    32: "off, or a spindle magnet would drop its piece at every stop",
    100: "set it for YOUR drive, 80 for GT2 belts on 20-tooth pulleys at 1/16 microsteps",
    101: "set it for YOUR drive, as $100",
    110: "the layout's max_rate_mm_min",
    111: "the layout's max_rate_mm_min",
    120: "the layout's acceleration_mm_s2",
    121: "the layout's acceleration_mm_s2",
    130: "the layout's envelope_mm",
    131: "the layout's envelope_mm",
}


def settings_program(layout: Layout) -> list[str]:
    """The ``$N=value`` lines that set GRBL 1.1h up for ``layout`` (homing and soft limits on), each with
    its meaning as a comment, which GRBL drops: paste them into any sender, or run the file with
    ``chessatron run FILE --no-home``. The first line says what they are for.

    >>> program = settings_program(Layout.default())
    >>> [line for line in program if line.startswith(("$1=", "$23="))]
    ['$1=255 (step idle delay, milliseconds: 255 keeps the motors on, so the carriage holds still while \
the magnet engages and releases)', '$23=3 (homing direction invert mask: towards home_mm)']
    """
    profile = layout.profile
    lines = [
        f"(grbl 1.1h settings for a {layout.columns} x {layout.rows} table, {profile.kinematics}, "
        f"{layout.magnet.method} magnet)"
    ]
    settings = layout_settings(layout, homing=True, soft_limits=True)
    # GRBL refuses soft limits while homing is off (error:10): $22 goes first
    for number in sorted(settings, key=lambda n: (n != 22, n)):
        value = settings[number]
        why = _WHY.get(number)
        meaning = SETTINGS.get(number, f"setting {number}") + (f": {why}" if why else "")
        lines.append(f"${number}={value} ({meaning})")
    return lines


def _idle_delay_warnings(idle_ms: int, layout: Layout | None) -> list[str]:
    """``$1`` against the advice (255) and against the time model's stop delay."""
    modelled = None if layout is None else layout.profile.step_idle_delay_ms
    timing = modelled is not None and modelled != idle_ms
    if idle_ms != STEPPERS_ALWAYS_ON:
        text = (
            _(
                "$1 (step idle delay) is {ms}: grbl switches the motors off {ms} ms after every stop, that "
                "is "
                "while the magnet engages and releases, and a piece's pull can then drag the carriage off "
                "its "
                "place; set $1=255 to keep them on; the layout's step_idle_delay_ms is {modelled}, so set "
                "step_idle_delay_ms = {ms} there too if you keep it, or the planner's timing leaves the "
                "delay "
                "out"
            )
            if timing
            else _(
                "$1 (step idle delay) is {ms}: grbl switches the motors off {ms} ms after every stop, that "
                "is "
                "while the magnet engages and releases, and a piece's pull can then drag the carriage off "
                "its "
                "place; set $1=255 to keep them on"
            )
        )
        return [text.format(ms=idle_ms, modelled=modelled)]
    if timing:
        return [
            _(
                "$1 (step idle delay) is 255 (the motors stay on) but the layout's step_idle_delay_ms is "
                "{modelled}; set step_idle_delay_ms = 255 in the layout, or the planner's timing counts a "
                "delay the machine does not make"
            ).format(modelled=modelled)
        ]
    return []


def _differs(actual: float, expected: float) -> bool:
    return not math.isclose(actual, expected, rel_tol=5e-3, abs_tol=1e-6)


def homing_off_warning(layout: Layout) -> str:
    """What :func:`check_settings` says of a GRBL with homing off (``$22=0``), in the current language."""
    return _(
        "homing is off ($22=0) but the layout homes the magnet to home_mm {home_mm!r}; set $22=1 (with "
        "limit switches fitted) or place the gantry at home_mm by hand before every run"
    ).format(home_mm=layout.home_mm)


def check_settings(settings: Mapping[int, float], layout: Layout | None) -> list[str]:
    """Warnings where GRBL's settings disagree with the layout (or, without one, with any magnet table).

    Checks travel (``$130``/``$131`` shorter than the envelope), laser mode (``$32=1`` switches the spindle
    output off whenever motion stops: a spindle magnet would drop its piece at every stop), the step idle
    delay (anything but ``$1=255`` lets the motors go limp at every stop, while the magnet engages and
    releases), homing off (``$22=0`` while the layout homes to ``home_mm``) and the motion settings the
    planner's time model uses (``$110``/``$111``, ``$120``/``$121``, ``$11``, ``$1``). Whether the firmware
    was built for Core-XY cannot be read from the settings (``$I`` tells:
    :func:`~chessatron.grbl.build.check_build`). Missing settings are not checked.
    """
    warnings: list[str] = []
    idle = settings.get(1)
    if idle is not None:
        warnings += _idle_delay_warnings(int(idle), layout)
    if settings.get(32) == 1 and (layout is None or layout.magnet.method == "spindle"):
        warnings.append(
            _(
                "laser mode is on ($32=1): grbl switches the spindle output off whenever motion stops, so a "
                "magnet on the spindle output would drop its piece at every stop; set $32=0"
            )
        )
    if layout is None:
        return warnings
    xmin, ymin, xmax, ymax = layout.envelope_mm
    for number, axis, size in ((130, "x", xmax - xmin), (131, "y", ymax - ymin)):
        travel = settings.get(number)
        if travel is not None and travel < size - 1e-3:
            warnings.append(
                _(
                    "${number} ({axis} maximum travel) is {travel} mm but the layout's envelope is {size} mm "
                    "along {axis}; set ${number}={value} or shrink envelope_mm, or homing and soft limits "
                    "will "
                    "stop moves the planner makes"
                ).format(number=number, axis=axis, travel=f"{travel:g}", size=f"{size:g}", value=f"{size:g}")
            )
    if settings.get(22) == 0:
        warnings.append(homing_off_warning(layout))
    profile = layout.profile
    expected = {
        110: (profile.max_rate_mm_min[0], "max_rate_mm_min"),
        111: (profile.max_rate_mm_min[1], "max_rate_mm_min"),
        120: (profile.acceleration_mm_s2[0], "acceleration_mm_s2"),
        121: (profile.acceleration_mm_s2[1], "acceleration_mm_s2"),
        11: (profile.junction_deviation_mm, "junction_deviation_mm"),
    }
    for number, (value, key) in expected.items():
        actual = settings.get(number)
        if actual is not None and _differs(actual, value):
            warnings.append(
                _(
                    "${number} ({setting}) is {actual} but the layout's machine profile says {value}; set "
                    "${number}={value} or change {key} in the layout, or the planner's timing will be wrong"
                ).format(
                    number=number,
                    setting=_(SETTINGS[number]),
                    actual=f"{actual:g}",
                    value=f"{value:g}",
                    key=key,
                )
            )
    return warnings
