"""How the link waits for GRBL, free of I/O: a wait gives up only after a read that began past its
deadline found nothing, and a host that stalled is told from a board that went silent.

A Raspberry Pi under load, or writing to a slow SD card, can stop a program for a second or more (0.7 to
2.7 s have been seen). GRBL answers within milliseconds meanwhile, and its answer waits in the port's
buffer. A wait that looked at the clock after such a stall and gave up, without reading once more, would
blame the board ("it ignores a soft reset: switch the power off") for the host's pause. So every wait
loop of :class:`~chessatron.grbl.link.GrblLink` takes the time *before* each read and judges its deadline
by it, after the read: the board has had its chance at every read. :class:`Pace` notices the stall
itself (a gap between reads, or a read that took far longer than it may) and logs it as one.

>>> pace = Pace("sim://", clock=iter([0.0, 0.02, 0.04, 1.54, 1.56]).__next__)
>>> pace.before_read(), pace.after_read(), pace.before_read()
(0.0, 0.02, 0.04)
>>> pace.after_read()  # that read took 1.5 s: the host stalled (logged as a warning)
1.54
>>> pace.stalls
[1.5]
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["HOST_STALL_S", "Pace"]

LOGGER = logging.getLogger("chessatron.grbl.link")

#: A gap between two reads of one wait (or one read that lasted) longer than this is a host stall: a read
#: blocks for a few tens of milliseconds at most, and the loop between reads does next to nothing.
HOST_STALL_S = 0.5


class Pace:
    """The clock of one wait loop on the port ``url``: :meth:`before_read` before each read (its time is
    what the wait's deadlines are judged by), :meth:`after_read` after it, :meth:`rest` after work the
    loop does between reads that may take a while (a servo's travel). A gap longer than
    :data:`HOST_STALL_S` where nothing was to be done is logged as a host stall and kept in
    :attr:`stalls` (seconds)."""

    def __init__(self, url: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.url = url
        self.clock = clock
        self.stalls: list[float] = []
        self._since: float | None = None  # the end of the last read (or of the work after it)
        self._began = 0.0

    def before_read(self) -> float:
        """The time now, a read about to begin."""
        now = self.clock()
        if self._since is not None:
            self._check(now - self._since, "between two reads")
        self._began = now
        return now

    def after_read(self) -> float:
        """The time now, a read just over."""
        now = self.clock()
        self._check(now - self._began, "in one read")
        self._since = now
        return now

    def rest(self) -> None:
        """Work between reads is done: the gap to the next read counts from now."""
        self._since = self.clock()

    def _check(self, gap: float, where: str) -> None:
        if gap <= HOST_STALL_S:
            return
        self.stalls.append(round(gap, 3))
        LOGGER.warning(
            "the host stalled for %.1f s %s while waiting for grbl on %s (this computer did not run the "
            "program: heavy load, a slow SD card); grbl was not silent: what it sent waited in the port's "
            "buffer and is read now",
            gap,
            where,
            self.url,
        )
