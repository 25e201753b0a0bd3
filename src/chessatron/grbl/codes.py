"""GRBL 1.1's numbered replies: what each ``error:N`` and ``ALARM:N`` means and what to do about it.

The wording is ours, short enough for a one-line message; the numbers are GRBL 1.1's (``report.h``). The
tables hold the English (marked for translation); :func:`error_text` and :func:`alarm_info` give them in
the current language.

>>> error_text(20)
'unsupported or invalid g-code command'
>>> ALARMS[1].position_lost
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..i18n import N_, _

__all__ = ["ALARMS", "ERRORS", "SETTINGS", "AlarmInfo", "alarm_info", "error_text"]

#: ``error:N`` meanings for every code GRBL 1.1 sends (18 and 19 are unassigned).
ERRORS: dict[int, str] = {
    1: N_("a g-code word has no letter (expected a command letter)"),
    2: N_("a number is missing or badly formatted"),
    3: N_("the '$' system command is unknown or not supported"),
    4: N_("a value that must be positive is negative"),
    5: N_("homing is not enabled in the settings ($22)"),
    6: N_("the step pulse must be at least 3 microseconds ($0)"),
    7: N_("an eeprom read failed; the affected settings were restored to defaults"),
    8: N_("this '$' command needs grbl to be idle"),
    9: N_("g-code is locked out while grbl is in alarm or jog state"),
    10: N_("soft limits need homing to be enabled"),
    11: N_("the line is longer than grbl's line buffer and was not run"),
    12: N_("the setting would make the step rate exceed what grbl supports"),
    13: N_("the safety door is open"),
    14: N_("the build info or startup line is longer than the eeprom allows"),
    15: N_("the jog target is beyond the machine travel; the jog was ignored"),
    16: N_("the jog command has no '=' or contains forbidden g-code"),
    17: N_("laser mode needs pwm spindle output"),
    18: N_("unassigned error code"),
    19: N_("unassigned error code"),
    20: N_("unsupported or invalid g-code command"),
    21: N_("two commands of one modal group in one block"),
    22: N_("the feed rate is not set"),
    23: N_("the command needs an integer value"),
    24: N_("two commands in the block both need the axis words"),
    25: N_("a g-code word is repeated in the block"),
    26: N_("the command needs axis words and the block has none"),
    27: N_("the line number is invalid"),
    28: N_("the command is missing a value word it needs"),
    29: N_("g59.x work coordinate systems are not supported"),
    30: N_("g53 is only allowed with g0 and g1"),
    31: N_("the block has axis words that no command uses"),
    32: N_("an arc needs at least one axis word in the selected plane"),
    33: N_("the motion target is invalid"),
    34: N_("the arc radius is invalid"),
    35: N_("an arc needs at least one offset word in the selected plane"),
    36: N_("the block has value words that no command uses"),
    37: N_("the dynamic tool length offset is not on the tool length axis"),
    38: N_("the tool number is larger than grbl supports"),
}


@dataclass(frozen=True)
class AlarmInfo:
    """One ``ALARM:N``: a short name, what happened, what to do, and whether the position is lost."""

    code: int
    name: str
    meaning: str
    remedy: str
    position_lost: bool


#: ``ALARM:N`` for every code GRBL 1.1h sends.
ALARMS: dict[int, AlarmInfo] = {
    alarm.code: alarm
    for alarm in (
        AlarmInfo(
            1,
            N_("hard limit"),
            N_("a limit switch was hit and the machine stopped at once"),
            N_("clear the switch, soft-reset (ctrl-x) and home again ($H)"),
            True,
        ),
        AlarmInfo(
            2,
            N_("soft limit"),
            N_("a motion target lies outside the machine travel; nothing moved"),
            N_("soft-reset, unlock ($X) and fix the program or the travel settings ($130/$131)"),
            False,
        ),
        AlarmInfo(
            3,
            N_("reset while moving"),
            N_("grbl was reset during motion and stopped at once"),
            N_("home again ($H) before running anything"),
            True,
        ),
        AlarmInfo(
            4,
            N_("probe fail"),
            N_("the probe was not in its expected state before a probe cycle"),
            N_("check the probe wiring, then unlock ($X)"),
            False,
        ),
        AlarmInfo(
            5,
            N_("probe fail"),
            N_("the probe did not touch within the programmed travel"),
            N_("move closer or extend the probe travel, then unlock ($X)"),
            False,
        ),
        AlarmInfo(
            6,
            N_("homing fail"),
            N_("the homing cycle was reset"),
            N_("home again ($H)"),
            True,
        ),
        AlarmInfo(
            7,
            N_("homing fail"),
            N_("the safety door opened during homing"),
            N_("close the door and home again ($H)"),
            True,
        ),
        AlarmInfo(
            8,
            N_("homing fail"),
            N_("pull-off did not clear the limit switch"),
            N_("raise the pull-off distance ($27) or check the switch wiring, then home again"),
            True,
        ),
        AlarmInfo(
            9,
            N_("homing fail"),
            N_("no limit switch was found within the search distance"),
            N_("check the switch wiring and the travel settings ($130/$131), then home again"),
            True,
        ),
        AlarmInfo(
            10,
            N_("homing fail"),
            N_("the second switch of a dual-motor axis was not found while squaring"),
            N_("check the second switch's wiring, then home again"),
            True,
        ),
    )
}

#: Names of GRBL 1.1's ``$N`` settings, for messages.
SETTINGS: dict[int, str] = {
    0: N_("step pulse, microseconds"),
    1: N_("step idle delay, milliseconds"),
    2: N_("step port invert mask"),
    3: N_("direction port invert mask"),
    4: N_("step enable invert"),
    5: N_("limit pins invert"),
    6: N_("probe pin invert"),
    10: N_("status report mask"),
    11: N_("junction deviation, mm"),
    12: N_("arc tolerance, mm"),
    13: N_("report inches"),
    20: N_("soft limits"),
    21: N_("hard limits"),
    22: N_("homing cycle"),
    23: N_("homing direction invert mask"),
    24: N_("homing feed, mm/min"),
    25: N_("homing seek, mm/min"),
    26: N_("homing debounce, milliseconds"),
    27: N_("homing pull-off, mm"),
    30: N_("maximum spindle speed, rpm"),
    31: N_("minimum spindle speed, rpm"),
    32: N_("laser mode"),
    100: N_("x steps/mm"),
    101: N_("y steps/mm"),
    102: N_("z steps/mm"),
    110: N_("x maximum rate, mm/min"),
    111: N_("y maximum rate, mm/min"),
    112: N_("z maximum rate, mm/min"),
    120: N_("x acceleration, mm/s^2"),
    121: N_("y acceleration, mm/s^2"),
    122: N_("z acceleration, mm/s^2"),
    130: N_("x maximum travel, mm"),
    131: N_("y maximum travel, mm"),
    132: N_("z maximum travel, mm"),
}


def error_text(code: int) -> str:
    """The meaning of ``error:code`` in the current language; codes GRBL 1.1 does not define get a generic
    text."""
    found = ERRORS.get(code)
    if found is None:
        return _("error code {code} is not one grbl 1.1 defines").format(code=code)
    return _(found)


def alarm_info(code: int) -> AlarmInfo:
    """The meaning of ``ALARM:code`` in the current language; codes GRBL 1.1 does not define get a generic
    entry."""
    found = ALARMS.get(code)
    if found is None:
        return AlarmInfo(
            code,
            _("unknown alarm"),
            _("alarm code {code} is not one grbl 1.1 defines").format(code=code),
            _("soft-reset and home"),
            True,
        )
    return replace(found, name=_(found.name), meaning=_(found.meaning), remedy=_(found.remedy))
