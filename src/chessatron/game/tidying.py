"""The tidying comes later: while a person thinks, the robot takes the pieces it parked during its reply on
to their capture zone.

The robot's reply parks a victim or a promoted pawn at the nearest free place off the board
(:meth:`~chessatron.planning.planner.Planner.plan_reply`), so that the move the person waits for stands
sooner. The rest of the trip is done on the person's time by a :class:`Tidier`, one small step at a time
(:func:`~chessatron.planning.tidy.next_tidy`: a leg of a few seconds at most), each planned from the
table as it stands, journaled and carried out like any robot work (``TIDY n`` in the program).

The person always comes first. Tidying begins when the person is asked for their move, and begins no step
that would still run :data:`TURN_S` into the turn, counting the magnet's travel back to where the turn
began (:func:`~chessatron.planning.tidy.turn_share_s`: the robot's reply may begin across the table from
the zones; what is left waits for the next turn, or the reset) or
once their hand may be at the table: a piece lifted at the board (the recognizer's events), the first key
typed or a piece picked up on the web page (:meth:`Tidier.hold`). The session stops it before it does
anything with the person's move (:meth:`Tidier.stop`: the step under way ends first), so the robot's
reply, or the person's move it carries out, never runs beside it. The magnet never drags while a hand
may be over the zones and the reserve's sensors, and the ponderer does not send it to wait for the reply
while tidying goes on (:attr:`Tidier.is_tidying`); once tidying is done, it does.

Without a person to wait for nothing is tidied during the game (two engines): the reset after it takes
the parked pieces home. A simulated person (a ``hand`` player) waits for the tidying, which runs before
it moves (:meth:`Tidier.tidy_now`), so that tests see every step in the twin.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence

from ..recognition import PieceLifted

LOGGER = logging.getLogger(__name__)

__all__ = ["TURN_S", "Tidier"]

#: Tidying begins no step that would still run this long into one person's turn (seconds, by the time
#: model). Few people move within the first seconds after the robot's reply, many within the next few,
#: and a step under way when their hand comes holds the reply up. Over the engine games at the board
#: (``python -m bench.replies``) the wait for the reply, median and 90th percentile, was 3.07 s and 8.56 s
#: (as played), 3.56 s and 9.27 s (against the engine) when a step merely had to begin within 2.5 s; with
#: each step ending within 3.5 s it is 2.89 s and 8.22 s, 3.48 s and 8.86 s. Ending within 3 s or 4 s
#: was no better; within 2.5 s the waits were as short, but almost nothing got tidied. Counting the
#: magnet's travel back to where the turn began in the step (:func:`~chessatron.planning.tidy.turn_share_s`)
#: the waits are 2.89 s and 8.28 s, 3.36 s and 8.86 s, both promotions of those games within target
#: (one before), and on ponder hits the wait beyond the drags' own 0.13 s and 0.05 s at p90 (0.32 s):
#: a step no longer leaves the magnet at a zone when the reply begins across the table.
TURN_S = 3.5


class Tidier:
    """Tidies on a person's time for one game: see the module's docs.

    ``step`` carries one step of tidying out (planned from the table as it stands, journaled, run on the
    machine) if it ends within the seconds it is given, and says whether it did; it raises what the
    machine did wrong.

    >>> done = []
    >>> tidier = Tidier(lambda within_s: len(done) < 2 and not done.append("step"))
    >>> tidier.tidy_now(), done
    (2, ['step', 'step'])
    """

    def __init__(self, step: Callable[[float], bool], turn_s: float = TURN_S) -> None:
        self._step = step
        self.turn_s = turn_s
        self._began = 0.0
        self._held = threading.Event()
        self._held.set()
        self._running = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._events: Sequence[object] = ()
        self._seen = 0
        self._done = 0
        #: Told (on the tidier's thread) when the tidying is done with nothing left and nobody stopped
        #: it: the magnet may go and wait for the robot's reply.
        self.on_idle: Callable[[], None] = lambda: None

    def __repr__(self) -> str:
        return f"Tidier({'tidying' if self.is_tidying else 'idle'}, {self._done} steps done)"

    @property
    def is_tidying(self) -> bool:
        """Whether another step may begin: started and not done, not held, and the person's hand not at
        the table."""
        return self._running.is_set() and not self._held.is_set() and not self._lifted()

    def start(self, events: Sequence[object] | None = None) -> None:
        """Tidy in the background until :meth:`stop` (or until nothing is left). ``events``: the
        recognizer's events of a person at the board as they come; a piece lifted holds the tidying."""
        self.stop()
        self._events = events if events is not None else ()
        self._seen = len(self._events)
        self._done = 0
        self._error = None
        self._held.clear()
        self._began = time.monotonic()
        self._running.set()
        self._thread = threading.Thread(target=self._run, name="chessatron-tidying", daemon=True)
        self._thread.start()

    def hold(self) -> None:
        """The person's hand comes to the table (or the keyboard, or the page): no step begins any more;
        the one under way ends."""
        self._held.set()

    def stop(self) -> int:
        """Hold, and wait for the step under way to end. Returns how many steps ran since :meth:`start`;
        raises what went wrong in one (a machine fault), once."""
        self._held.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        error, self._error = self._error, None
        if error is not None:
            raise error
        return self._done

    def tidy_now(self) -> int:
        """Tidy everything, here and now (a simulated person waits for it). Returns how many steps ran."""
        self.stop()
        done = 0
        while self._step(math.inf):
            done += 1
        return done

    def _lifted(self) -> bool:
        events = self._events
        return any(isinstance(event, PieceLifted) for event in events[self._seen :])

    def _run(self) -> None:
        try:
            while self.is_tidying:
                left_s = self.turn_s - (time.monotonic() - self._began)
                if left_s <= 0 or not self._step(left_s):
                    self._running.clear()  # (done, or done for this turn)
                    if not self._held.is_set():
                        self.on_idle()
                    return
                self._done += 1
        except BaseException as exc:  # (the session's thread raises it: see stop)
            LOGGER.warning("tidying stopped: %s", exc)
            self._error = exc
        finally:
            self._running.clear()
