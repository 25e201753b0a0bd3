"""A thread that does the work it is given, in turn: pondering's threads are started once, so that handing
them work while a person waits for the prompt costs the session nothing."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

LOGGER = logging.getLogger(__name__)


class Worker:
    """A thread that does the work it is given, in turn, until closed."""

    def __init__(self, name: str) -> None:
        self._queue: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def is_busy(self) -> bool:
        return self._queue.unfinished_tasks > 0

    def submit(self, work: Callable[[], None]) -> None:
        self._queue.put(work)

    def close(self) -> None:
        """Finish the work given, then stop (idempotent)."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()

    def _run(self) -> None:
        while (work := self._queue.get()) is not None:
            try:
                work()
            except Exception:  # pondering only ever saves time: the game goes on without it
                LOGGER.exception("pondering failed")
            finally:
                self._queue.task_done()
        self._queue.task_done()
