"""Faults the simulated GRBL can be told to make, the ways a real board misbehaves.

Given to :class:`~chessatron.sim.grbl.SimGrbl` (or its :meth:`~chessatron.sim.grbl.SimGrbl.inject`), or as
``sim://`` URL options of the same names (``sim://?error_line=30&error_code=33``).

>>> faults_from_url(DeviceUrl.parse("sim://?error_line=30&reply_delay_s=0.01"))
SimFaults(error_line=30, error_code=20, alarm_line=None, alarm_at_s=None, alarm_code=1, \
pull_cable_line=None, freeze_line=None, reply_delay_s=0.01, garble_rate=0.0, seed=0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ...errors import ConfigError
from ...ports import DeviceUrl

__all__ = ["FAULT_OPTIONS", "SimFaults", "faults_from_url"]


@dataclass(frozen=True)
class SimFaults:
    """Faults to inject; line numbers count the g-code lines received since power-up (from 1; ``$``
    commands and blank lines do not count).

    ``error_line``: answer ``error:<error_code>`` to that line instead of running it (the lines after it
    in the receive buffer run all the same, as on the firmware). ``alarm_line``: raise
    ``ALARM:<alarm_code>`` when that line starts to run; ``alarm_at_s``: when the machine clock passes that
    many seconds (mid-move if a move is running). ``pull_cable_line``: the cable comes out when that line
    arrives (reads and writes raise :class:`serial.SerialException`); ``freeze_line``: the firmware hangs
    there (the port stays open, nothing answers, not even a soft reset, and the outputs stay as they
    were). ``reply_delay_s``: every ``ok``/``error`` leaves that many (wall) seconds late.
    ``garble_rate``: the chance that a line sent to the host has a byte corrupted (``seed`` makes it
    repeatable).
    """

    error_line: int | None = None
    error_code: int = 20
    alarm_line: int | None = None
    alarm_at_s: float | None = None
    alarm_code: int = 1
    pull_cable_line: int | None = None
    freeze_line: int | None = None
    reply_delay_s: float = 0.0
    garble_rate: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        if not (0.0 <= self.garble_rate <= 1.0):
            raise ConfigError(f"garble_rate must be between 0 and 1, got {self.garble_rate!r}")
        if not (math.isfinite(self.reply_delay_s) and self.reply_delay_s >= 0.0):
            raise ConfigError(f"reply_delay_s must be zero or positive seconds, got {self.reply_delay_s!r}")


#: The ``sim://`` URL options that set faults: one per field of :class:`SimFaults`.
FAULT_OPTIONS = frozenset(field.name for field in fields(SimFaults))


def faults_from_url(parsed: DeviceUrl) -> SimFaults:
    """The faults a ``sim://`` URL's options ask for. Raises :class:`~chessatron.errors.ConfigError` for a
    value that is not a number of the right kind."""

    def optional(key: str) -> int | None:
        return parsed.integer(key, 0) if key in parsed.params else None

    return SimFaults(
        error_line=optional("error_line"),
        error_code=parsed.integer("error_code", 20),
        alarm_line=optional("alarm_line"),
        alarm_at_s=parsed.number("alarm_at_s", 0.0) if "alarm_at_s" in parsed.params else None,
        alarm_code=parsed.integer("alarm_code", 1),
        pull_cable_line=optional("pull_cable_line"),
        freeze_line=optional("freeze_line"),
        reply_delay_s=parsed.number("reply_delay_s", 0.0),
        garble_rate=parsed.number("garble_rate", 0.0),
        seed=parsed.integer("seed", 0),
    )
