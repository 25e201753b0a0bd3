"""A bounded memory of answers worked out before (:class:`Memo`): planning asks again and again for the same
path among the same pieces, and the same distances to a goal, while it weighs orders and places."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["Memo"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    """The answers to the last ``size`` questions asked, safe to share between threads (the ponderer plans
    on a thread of its own).

    >>> memo: Memo[int, int] = Memo(2)
    >>> asked = []
    >>> [memo.recall(n, lambda n=n: asked.append(n) or n * n) for n in (1, 2, 1, 3, 2)]
    [1, 4, 1, 9, 4]
    >>> asked  # (2 was the oldest when 3 came: worked out again)
    [1, 2, 3, 2]
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._known: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def recall(self, key: K, work_out: Callable[[], V]) -> V:
        """The answer to ``key``: remembered, or worked out now (outside the lock) and remembered."""
        with self._lock:
            if key in self._known:
                self._known.move_to_end(key)
                return self._known[key]
        found = work_out()
        with self._lock:
            self._known[key] = found
            if len(self._known) > self.size:
                self._known.popitem(last=False)
        return found
