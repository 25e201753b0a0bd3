"""The simulated GRBL on a pseudo-terminal, so that any sender (a GRBL GUI, ``screen``, another
chessatron) can talk to it as to a board on ``/dev/ttyUSB0`` (POSIX only).

``serve_pty`` prints the terminal's path as the first line of stdout, then serves until SIGINT or SIGTERM::

    $ chessatron sim-grbl --pty
    /dev/pts/7
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import signal
import sys
import threading
import tty
from collections.abc import Iterator
from types import FrameType

from ..sim.grbl import SimFaults, SimGrbl
from ..sim.world import SimWorld

__all__ = ["serve_pty"]

LOGGER = logging.getLogger(__name__)

# How often the loops look at the stop flag, in seconds.
_TICK_S = 0.1


@contextlib.contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """Set ``stop`` on SIGINT and SIGTERM (handlers can only be installed from the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _pump_out(grbl: SimGrbl, master: int, stop: threading.Event) -> None:
    """Copy what the board sends to the terminal; never block past a tick, so ``stop`` is seen."""
    pending = b""
    while not stop.is_set():
        if not pending:
            pending = grbl.read(max(1, grbl.in_waiting))
            continue
        _, writable, _ = select.select([], [master], [], _TICK_S)
        if writable:
            try:
                pending = pending[os.write(master, pending) :]
            except BlockingIOError:
                pass
            except OSError as exc:
                LOGGER.warning("the pseudo-terminal failed: %s", exc)
                stop.set()


def serve_pty(
    world: SimWorld,
    *,
    speed: float | None,
    homing: bool = True,
    faults: SimFaults | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Serve a simulated GRBL 1.1 driving ``world`` on a new pseudo-terminal (raw mode: no echo, no
    newline translation) until SIGINT or SIGTERM, or until ``stop`` is set.

    The terminal's path is the first line printed to stdout (flushed at once). ``speed`` is as for
    :class:`~chessatron.sim.grbl.SimGrbl` (None: virtual time). Returns normally on a signal.
    """
    stop = stop or threading.Event()
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        os.set_blocking(master, False)
        path = os.ttyname(slave)
        with SimGrbl(world, speed=speed, timeout=_TICK_S, homing=homing, faults=faults, port=path) as grbl:
            print(path, flush=True)
            pump = threading.Thread(target=_pump_out, args=(grbl, master, stop), name="pty-out", daemon=True)
            with _stop_on_signals(stop):
                pump.start()
                try:
                    while not stop.is_set():
                        readable, _, _ = select.select([master], [], [], _TICK_S)
                        if not readable:
                            continue
                        try:
                            data = os.read(master, 4096)
                        except BlockingIOError:
                            continue
                        except OSError as exc:
                            if exc.errno == errno.EIO:  # no terminal open on the other side
                                continue
                            raise
                        grbl.write(data)
                finally:
                    stop.set()
                    pump.join(timeout=2.0)
    finally:
        os.close(master)
        os.close(slave)
        sys.stdout.flush()
