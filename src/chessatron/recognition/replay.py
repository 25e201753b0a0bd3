"""A recorded sensor trace replayed as the board would have read it: between two entries, and for a while
after the last, the board goes on reading what it last read (a board that reports only its changes
sends nothing while nothing changes, yet time passes: a move is committed once the board has been still).

>>> import chess
>>> from .recognizer import Recognizer
>>> start = chess.Board().occupied
>>> lifted, landed = start & ~chess.BB_E2, (start & ~chess.BB_E2) | chess.BB_E4
>>> recognizer = Recognizer(chess.Board())
>>> [type(e).__name__ for e in replay(recognizer, [(0.0, start), (1.0, lifted), (2.0, landed)])]
['PieceLifted', 'Committed']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from .events import RecognizerEvent
from .recognizer import Recognizer

#: How often the board is read while the trace says nothing (a real board's scan period).
SCAN_S = 0.02
#: How long the board goes on being read after the last entry, and at most between two entries: longer
#: than anything the recognizer waits for (a piece held in the air, a move halfway made, a question).
RUN_ON_S = 15.0


def replay(
    recognizer: Recognizer,
    entries: Iterable[object],
    *,
    scan_s: float = SCAN_S,
    run_on_s: float = RUN_ON_S,
) -> Iterator[RecognizerEvent]:
    """Feed ``entries`` (trace entries, or ``(t, occupied)`` pairs) to ``recognizer``, the last scan read
    again every ``scan_s`` while the trace is silent (for at most ``run_on_s`` after an entry, and for
    ``run_on_s`` after the last), and yield what it makes of them."""
    last: object = None
    last_t = 0.0

    def silence(until: float) -> Iterator[RecognizerEvent]:
        if last is None:
            return
        end = min(until, last_t + run_on_s)
        k = 1
        while last_t + k * scan_s < end - 1e-9:
            t = round(last_t + k * scan_s, 6)
            if isinstance(last, tuple):
                yield from recognizer.feed_occupancy(t, last[1])
            else:
                yield from recognizer.feed(dataclasses.replace(last, t=t))  # type: ignore[type-var]
            k += 1

    for entry in entries:
        t = float(entry[0]) if isinstance(entry, tuple) else float(getattr(entry, "t"))  # noqa: B009
        yield from silence(t)
        if isinstance(entry, tuple):
            yield from recognizer.feed_occupancy(t, int(entry[1]))
            last, last_t = entry, t
        else:
            yield from recognizer.feed(entry)
            if hasattr(entry, "occupied") or hasattr(entry, "cells"):
                last, last_t = entry, t
            elif hasattr(entry, "move"):
                last = None  # the robot's (or a typed) move: the next scan is the new baseline
    if last is not None:
        yield from silence(last_t + run_on_s)
