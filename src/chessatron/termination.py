"""SIGTERM (``systemctl stop``, a shutdown) as an exception in the main thread, so that a command stops at
a safe point (a game saved, the magnet released) instead of being killed in the middle of robot work.

>>> class Stop(Exception):
...     pass
>>> with raising_on_sigterm(Stop):
...     signal.raise_signal(signal.SIGTERM)
Traceback (most recent call last):
...
chessatron.termination.Stop
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def raising_on_sigterm(exception: type[BaseException]) -> Iterator[None]:
    """While the block runs, SIGTERM raises ``exception`` in the main thread; the handler before it comes
    back afterwards. Off the main thread (which alone may set handlers) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_it(signum: int, frame: FrameType | None) -> None:
        raise exception

    previous = signal.signal(signal.SIGTERM, raise_it)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
