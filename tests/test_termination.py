"""Ctrl-C and SIGTERM never leave a lock taken: one that finds the main thread inside threading's lock code
is raised a moment later (chessatron.termination)."""

from __future__ import annotations

import signal
import sys
import threading
import time
from types import FrameType

import pytest

from chessatron.termination import DEFER_S, SignalRaiser


class Stop(Exception):
    """What the signal raises here (KeyboardInterrupt itself would stop pytest)."""


def frame_of(thread: threading.Thread, function: str) -> FrameType:
    """The innermost frame of ``thread`` once it is in threading.py's ``function``."""
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        frame = sys._current_frames().get(thread.ident or 0)
        code = frame.f_code if frame is not None else None
        if (
            frame is not None
            and code is not None
            and (code.co_filename, code.co_name) == (threading.__file__, function)
        ):
            return frame
        time.sleep(0.001)
    raise AssertionError(f"the thread never reached {function}")


def frame_inside_threading() -> tuple[FrameType, threading.Lock, threading.Thread]:
    """A frame in a Condition's ``__enter__`` (taking its lock): a thread entering a Condition whose lock
    is held."""
    lock = threading.Lock()
    lock.acquire()
    condition = threading.Condition(lock)

    def enter() -> None:
        with condition:
            pass

    entering = threading.Thread(target=enter, daemon=True)
    entering.start()
    return frame_of(entering, "__enter__"), lock, entering


def test_a_signal_inside_threading_s_lock_code_is_put_off_then_raised() -> None:
    frame, lock, entering = frame_inside_threading()
    heard: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, _frame: heard.append(signum))
    try:
        raiser = SignalRaiser(Stop)
        raiser(signal.SIGUSR1, frame)  # put off: no exception here, where a lock may be half taken
        deadline = time.monotonic() + 50 * DEFER_S
        while not heard and time.monotonic() < deadline:
            time.sleep(DEFER_S / 4)
        assert heard == [signal.SIGUSR1], "the signal put off was never sent again"
        with pytest.raises(Stop):
            raiser(signal.SIGUSR1, frame)  # sent again: raised, wherever the main thread is
    finally:
        signal.signal(signal.SIGUSR1, previous)
        lock.release()
        entering.join(timeout=5)


def test_a_signal_in_the_program_s_own_code_or_in_a_wait_is_raised_at_once() -> None:
    with pytest.raises(Stop):
        SignalRaiser(Stop)(signal.SIGINT, sys._getframe())
    release = threading.Event()
    waiter = threading.Thread(target=release.wait, daemon=True)
    waiter.start()
    try:
        with pytest.raises(Stop):  # a wait lets its lock go on the way out: Python's own Ctrl-C
            SignalRaiser(Stop)(signal.SIGINT, frame_of(waiter, "wait"))
    finally:
        release.set()
        waiter.join(timeout=5)
