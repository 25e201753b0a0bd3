"""SIGTERM (``systemctl stop``, a shutdown) as an exception in the main thread, so that a command stops at
a safe point (a game saved, the magnet released) instead of being killed in the middle of robot work; and
Ctrl-C (SIGINT) raised at a moment that cannot wedge a lock.

Python raises the exception of a signal handler wherever the main thread happens to be. Inside
:mod:`threading`'s own code that can be between a lock taken and the ``with`` that would let it go (a
``Condition``'s ``__enter__``: ``Event.set``, ``Queue.put``): the lock then stays taken for good, and the
next thread to touch it (the program stopping, that very thread) waits forever. The handlers here put
the exception off for :data:`DEFER_S` when the signal finds the main thread taking or letting go of such
a lock, and raise it when the signal comes again; a thread blocked in a wait gets it at once, as Python
gives it.

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
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["DEFER_S", "SignalRaiser", "ctrl_c_at_a_safe_moment", "raising_on_sigterm"]

#: How long a signal that found the main thread inside threading's lock code waits before it is sent
#: again: long enough for the lock to be let go, too short for anyone to notice.
DEFER_S = 0.02


#: threading's functions that take or let go of a lock without waiting: an exception raised as one
#: begins or ends can leave the lock taken. (An exception in a wait is what Python gives a Ctrl-C there
#: anyway: the wait lets its lock go.)
_LOCK_HANDLING = frozenset({"__enter__", "__exit__", "set", "clear", "notify", "notify_all"})


def _in_threading(frame: FrameType | None) -> bool:
    return (
        frame is not None
        and frame.f_code.co_filename == threading.__file__
        and frame.f_code.co_name in _LOCK_HANDLING
    )


class SignalRaiser:
    """A signal handler that raises ``exception``, put off once (:data:`DEFER_S`) when the signal finds
    the main thread inside :mod:`threading` (see the module's docs).

    >>> class Stop(Exception):
    ...     pass
    >>> SignalRaiser(Stop)(signal.SIGINT, None)
    Traceback (most recent call last):
    ...
    chessatron.termination.Stop
    """

    def __init__(self, exception: type[BaseException]) -> None:
        self.exception = exception
        self.deferred = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if not self.deferred and _in_threading(frame):
            self.deferred = True
            again = threading.Timer(DEFER_S, os.kill, (os.getpid(), signum))
            again.daemon = True
            again.start()
            return
        self.deferred = False
        raise self.exception


@contextlib.contextmanager
def _raising(signum: signal.Signals, exception: type[BaseException]) -> Iterator[None]:
    """While the block runs, ``signum`` raises ``exception`` (:class:`SignalRaiser`); the handler before it
    comes back afterwards."""
    previous = signal.signal(signum, SignalRaiser(exception))
    try:
        yield
    finally:
        signal.signal(signum, previous)


@contextlib.contextmanager
def raising_on_sigterm(exception: type[BaseException]) -> Iterator[None]:
    """While the block runs, SIGTERM raises ``exception`` in the main thread; the handler before it comes
    back afterwards. Off the main thread (which alone may set handlers) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    with _raising(signal.SIGTERM, exception):
        yield


@contextlib.contextmanager
def ctrl_c_at_a_safe_moment() -> Iterator[None]:
    """While the block runs, Ctrl-C raises ``KeyboardInterrupt`` as always, but never inside threading's
    lock code (:class:`SignalRaiser`). A Ctrl-C that was ignored when the program started (``nohup``, a
    background job) stays ignored; off the main thread nothing changes."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    with _raising(signal.SIGINT, KeyboardInterrupt):
        yield
