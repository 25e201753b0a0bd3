"""Faults the simulated GRBL can be told to make, the ways a real board misbehaves.

Given to :class:`~chessatron.sim.grbl.SimGrbl` (or its :meth:`~chessatron.sim.grbl.SimGrbl.inject`), or as
``sim://`` URL options of the same names (``sim://?error_line=30&error_code=33``).

>>> faults = faults_from_url(DeviceUrl.parse("sim://?error_line=30&reply_delay_s=0.01&late_boot_s=2.5"))
>>> faults.error_line, faults.reply_delay_s, faults.late_boot_s, faults.alarm_line
(30, 0.01, 2.5, None)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ...errors import ConfigError
from ...i18n import _
from ...ports import DeviceUrl

__all__ = ["FAULT_OPTIONS", "SimFaults", "faults_from_url"]


@dataclass(frozen=True)
class SimFaults:
    """Faults to inject; line numbers count the g-code lines received since power-up (from 1; ``$``
    commands and blank lines do not count).

    ``error_line``: answer ``error:<error_code>`` to that line instead of running it (the lines after it
    in the receive buffer run all the same, as on the firmware). ``alarm_line``: raise
    ``ALARM:<alarm_code>`` when that line starts to run, whatever it does: a move when its block starts, any
    other line (a dwell, a switch, a modal word, a move to where the machine already is) when GRBL
    executes it; ``alarm_at_s``: when the machine clock passes that many seconds (mid-move if a move is
    running). ``pull_cable_line``: the cable comes out when that line arrives (reads and writes raise
    :class:`serial.SerialException`); ``freeze_line``: the firmware hangs there (the port stays open,
    nothing answers, not even a soft reset, and the outputs stay as they were). ``reply_delay_s``: every
    ``ok``/``error`` leaves that many (wall) seconds late. ``garble_rate``: the chance that a line sent to
    the host has a byte corrupted (``seed`` makes it repeatable).

    ``late_boot_s``: every boot (power-up, :meth:`~chessatron.sim.grbl.SimGrbl.power_cycle`) takes that
    long before the banner, as a board whose bootloader waits, or a firmware started late, does. What the
    host sends meanwhile waits in the port's buffer and reaches GRBL once it runs, a moment after its
    banner: a soft reset sent early is answered with a second banner (an Arduino's bootloader may instead
    swallow it; then only the power-up banner comes).

    ``host_stall_s``: the host stalls that long (a busy Raspberry Pi, a slow SD card), once: its first read
    after the trigger comes back empty and the reading thread then sleeps, while the board runs on and
    what it sends waits in the port's buffer. The trigger is the host's ``host_stall_reset``-th soft
    reset (from 1; the default when neither is given is the first) or g-code line ``host_stall_line``
    arriving.
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
    late_boot_s: float = 0.0
    host_stall_s: float = 0.0
    host_stall_reset: int | None = None
    host_stall_line: int | None = None

    def __post_init__(self) -> None:
        if not (0.0 <= self.garble_rate <= 1.0):
            raise ConfigError(
                _("garble_rate must be between 0 and 1, got {value!r}").format(value=self.garble_rate)
            )
        for name in ("reply_delay_s", "late_boot_s", "host_stall_s"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0.0):
                raise ConfigError(
                    _("{name} must be zero or positive seconds, got {value!r}").format(name=name, value=value)
                )

    def stalls_host_after_reset(self, resets: int) -> bool:
        """Whether the host stalls after its ``resets``-th soft reset."""
        if not self.host_stall_s:
            return False
        wanted = self.host_stall_reset
        if wanted is None and self.host_stall_line is None:
            wanted = 1
        return resets == wanted

    def stalls_host_after_line(self, number: int) -> bool:
        """Whether the host stalls after g-code line ``number`` arrives."""
        return bool(self.host_stall_s) and number == self.host_stall_line


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
        late_boot_s=parsed.number("late_boot_s", 0.0),
        host_stall_s=parsed.number("host_stall_s", 0.0),
        host_stall_reset=optional("host_stall_reset"),
        host_stall_line=optional("host_stall_line"),
    )
