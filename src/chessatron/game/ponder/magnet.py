"""The empty magnet on its way to wait for the robot's next drag, one travel at a time on a thread of its
own: only the newest travel asked for is made.

Safety: only the empty magnet moves, in one ``G0`` between the robot's plans: every plan ends with the
magnet released, a held or locked machine is not moved (:meth:`~chessatron.gantry.robot.Robot.travel`),
and a plan waits for a travel under way (:meth:`~chessatron.gantry.robot.Robot.execute`). The magnet goes
only where it was last sent: a travel asked for and not yet begun is dropped when a newer one is asked
for, or when it has gone stale by the time the machine is free (the person's turn ended, or the robot
began a plan: the plan's own travel takes the magnet where it goes).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from ...errors import ChessatronError
from ...gantry.robot import Robot
from ...planning.layout import Layout, MachinePoint, Node
from ..telling.live import LiveState
from .worker import Worker

__all__ = ["SETTLE_TIMEOUT_S", "Magnet"]

LOGGER = logging.getLogger(__name__)

#: The longest the robot's plan waits for the magnet to take up its last travel (seconds): one travel
#: across the table under way, then that one begun.
SETTLE_TIMEOUT_S = 5.0


class Magnet:
    """Sends the empty magnet of ``robot`` (None: nothing moves) to nodes of ``layout``; ``live`` shows
    where it went, ``on_travel`` is told of every travel made. :meth:`close` drops the travels not begun
    and waits for the one under way."""

    def __init__(
        self,
        robot: Robot | None,
        layout: Layout,
        *,
        live: LiveState | None = None,
        on_travel: Callable[[], None] = lambda: None,
    ) -> None:
        self.robot = robot
        self.layout = layout
        self.live = live
        self.on_travel = on_travel
        self._lock = threading.Lock()
        # where the magnet is to go next, and what makes that travel stale (newest wins: see send);
        # None once the machine has taken it up (or dropped it), which settle waits for
        self._wanted: tuple[Node, Callable[[], bool]] | None = None
        self._taken = threading.Condition(self._lock)
        self._moving = Worker("magnet")

    @property
    def is_busy(self) -> bool:
        """A travel is asked for or under way."""
        return self._moving.is_busy

    def approach(self, start: Node) -> None:
        """The reply is known: the magnet sets off for its first drag, in the background, unless the
        robot has begun a plan by then (the plan's own travel takes it there)."""
        robot = self.robot
        if robot is not None:
            begun = robot.plans_begun
            self.send(start, lambda: robot.plans_begun != begun)

    def destination(self) -> MachinePoint:
        """Where the magnet will stand once the travel asked for last has run."""
        robot = self.robot
        with self._lock:
            wanted = self._wanted
        if wanted is not None:
            return self.layout.node_mm(wanted[0])
        return robot.writer.position if robot is not None else self.layout.home_mm

    def send(self, node: Node, stale: Callable[[], bool]) -> None:
        """Have the magnet travel to ``node`` unless ``stale`` says otherwise when the machine is free; a
        travel asked for and not yet begun is replaced (GRBL finishes a ``G0`` it has begun)."""
        with self._lock:
            self._wanted = (node, stale)
        self._moving.submit(self._travel)

    def settle(self, timeout_s: float = SETTLE_TIMEOUT_S) -> None:
        """Wait until the machine has taken up the travel asked for last (begun or dropped it)."""
        with self._taken:
            self._taken.wait_for(lambda: self._wanted is None, timeout=timeout_s)

    def drop(self) -> None:
        """Forget the travel asked for and not yet begun (anyone waiting for it to be taken up goes on)."""
        with self._lock:
            self._wanted = None
            self._taken.notify_all()

    def close(self) -> None:
        """Drop the travel not begun and wait for the one under way (idempotent)."""
        self.drop()
        self._moving.close()

    def _travel(self) -> None:
        robot = self.robot
        with self._lock:
            wanted = self._wanted
        if wanted is None or robot is None:
            return  # taken up already (a newer travel, asked for meanwhile, ran in its place)
        node, stale = wanted

        def dropped() -> bool:
            # asked once the machine is free: the newest travel is taken up here, any other dropped
            with self._taken:
                if self._wanted is not wanted:
                    return True
                self._wanted = None
                self._taken.notify_all()
            return stale()

        point = self.layout.node_mm(node)
        before = robot.writer.position
        try:
            moved = robot.travel(point, "WAIT FOR THE REPLY", unless=dropped)
        except ChessatronError as exc:
            LOGGER.warning("the magnet did not move to wait for the reply: %s", exc)
            return
        if moved and point != before:
            self.on_travel()
            if self.live is not None:
                self.live.show_gantry(point, state="Idle")
