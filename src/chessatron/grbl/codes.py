"""GRBL 1.1's numbered replies: what each ``error:N`` and ``ALARM:N`` means and what to do about it.

The wording is ours, short enough for a one-line message; the numbers are GRBL 1.1's (``report.h``).

>>> error_text(20)
'unsupported or invalid g-code command'
>>> ALARMS[1].position_lost
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALARMS", "ERRORS", "SETTINGS", "AlarmInfo", "alarm_info", "error_text"]

#: ``error:N`` meanings for every code GRBL 1.1 sends (18 and 19 are unassigned).
ERRORS: dict[int, str] = {
    1: "a g-code word has no letter (expected a command letter)",
    2: "a number is missing or badly formatted",
    3: "the '$' system command is unknown or not supported",
    4: "a value that must be positive is negative",
    5: "homing is not enabled in the settings ($22)",
    6: "the step pulse must be at least 3 microseconds ($0)",
    7: "an eeprom read failed; the affected settings were restored to defaults",
    8: "this '$' command needs grbl to be idle",
    9: "g-code is locked out while grbl is in alarm or jog state",
    10: "soft limits need homing to be enabled",
    11: "the line is longer than grbl's line buffer and was not run",
    12: "the setting would make the step rate exceed what grbl supports",
    13: "the safety door is open",
    14: "the build info or startup line is longer than the eeprom allows",
    15: "the jog target is beyond the machine travel; the jog was ignored",
    16: "the jog command has no '=' or contains forbidden g-code",
    17: "laser mode needs pwm spindle output",
    18: "unassigned error code",
    19: "unassigned error code",
    20: "unsupported or invalid g-code command",
    21: "two commands of one modal group in one block",
    22: "the feed rate is not set",
    23: "the command needs an integer value",
    24: "two commands in the block both need the axis words",
    25: "a g-code word is repeated in the block",
    26: "the command needs axis words and the block has none",
    27: "the line number is invalid",
    28: "the command is missing a value word it needs",
    29: "g59.x work coordinate systems are not supported",
    30: "g53 is only allowed with g0 and g1",
    31: "the block has axis words that no command uses",
    32: "an arc needs at least one axis word in the selected plane",
    33: "the motion target is invalid",
    34: "the arc radius is invalid",
    35: "an arc needs at least one offset word in the selected plane",
    36: "the block has value words that no command uses",
    37: "the dynamic tool length offset is not on the tool length axis",
    38: "the tool number is larger than grbl supports",
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
            "hard limit",
            "a limit switch was hit and the machine stopped at once",
            "clear the switch, soft-reset (ctrl-x) and home again ($H)",
            True,
        ),
        AlarmInfo(
            2,
            "soft limit",
            "a motion target lies outside the machine travel; nothing moved",
            "soft-reset, unlock ($X) and fix the program or the travel settings ($130/$131)",
            False,
        ),
        AlarmInfo(
            3,
            "reset while moving",
            "grbl was reset during motion and stopped at once",
            "home again ($H) before running anything",
            True,
        ),
        AlarmInfo(
            4,
            "probe fail",
            "the probe was not in its expected state before a probe cycle",
            "check the probe wiring, then unlock ($X)",
            False,
        ),
        AlarmInfo(
            5,
            "probe fail",
            "the probe did not touch within the programmed travel",
            "move closer or extend the probe travel, then unlock ($X)",
            False,
        ),
        AlarmInfo(
            6,
            "homing fail",
            "the homing cycle was reset",
            "home again ($H)",
            True,
        ),
        AlarmInfo(
            7,
            "homing fail",
            "the safety door opened during homing",
            "close the door and home again ($H)",
            True,
        ),
        AlarmInfo(
            8,
            "homing fail",
            "pull-off did not clear the limit switch",
            "raise the pull-off distance ($27) or check the switch wiring, then home again",
            True,
        ),
        AlarmInfo(
            9,
            "homing fail",
            "no limit switch was found within the search distance",
            "check the switch wiring and the travel settings ($130/$131), then home again",
            True,
        ),
        AlarmInfo(
            10,
            "homing fail",
            "the second switch of a dual-motor axis was not found while squaring",
            "check the second switch's wiring, then home again",
            True,
        ),
    )
}

#: Names of GRBL 1.1's ``$N`` settings, for messages.
SETTINGS: dict[int, str] = {
    0: "step pulse, microseconds",
    1: "step idle delay, milliseconds",
    2: "step port invert mask",
    3: "direction port invert mask",
    4: "step enable invert",
    5: "limit pins invert",
    6: "probe pin invert",
    10: "status report mask",
    11: "junction deviation, mm",
    12: "arc tolerance, mm",
    13: "report inches",
    20: "soft limits",
    21: "hard limits",
    22: "homing cycle",
    23: "homing direction invert mask",
    24: "homing feed, mm/min",
    25: "homing seek, mm/min",
    26: "homing debounce, milliseconds",
    27: "homing pull-off, mm",
    30: "maximum spindle speed, rpm",
    31: "minimum spindle speed, rpm",
    32: "laser mode",
    100: "x steps/mm",
    101: "y steps/mm",
    102: "z steps/mm",
    110: "x maximum rate, mm/min",
    111: "y maximum rate, mm/min",
    112: "z maximum rate, mm/min",
    120: "x acceleration, mm/s^2",
    121: "y acceleration, mm/s^2",
    122: "z acceleration, mm/s^2",
    130: "x maximum travel, mm",
    131: "y maximum travel, mm",
    132: "z maximum travel, mm",
}


def error_text(code: int) -> str:
    """The meaning of ``error:code``; codes GRBL 1.1 does not define get a generic text."""
    return ERRORS.get(code, f"error code {code} is not one grbl 1.1 defines")


def alarm_info(code: int) -> AlarmInfo:
    """The meaning of ``ALARM:code``; codes GRBL 1.1 does not define get a generic entry."""
    found = ALARMS.get(code)
    if found is None:
        return AlarmInfo(
            code,
            "unknown alarm",
            f"alarm code {code} is not one grbl 1.1 defines",
            "soft-reset and home",
            True,
        )
    return found
