"""A player's accuracy over a game, as lichess reckons it (``AccuracyPercent`` in lichess-org/lila).

Each move is scored from the *win percentage* of its player before and after it (50 + 50 × the winning
chances of :mod:`.judgement`): a move that keeps it scores 100, one that loses ``d`` points scores
``103.1668 × exp(−0.04354 × d) − 3.1669``, plus 1 for the engine's own uncertainty, within 0..100. A
player's game accuracy is the mean of two means of their moves' scores: one weighted by how volatile the
game was around each move (the standard deviation of the win percentages in a window of moves, 0.5 to
12), and the harmonic mean, which a few bad moves pull down.

>>> round(move_accuracy(50.0, 50.0)), round(move_accuracy(60.0, 40.0), 1)
(100, 41.0)
>>> accuracies([50.0, 52.0, 51.0, 20.0, 80.0], chess.WHITE)
{'white': 34.9, 'black': 9.7}
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import chess


def move_accuracy(before: float, after: float) -> float:
    """A move's accuracy (0..100) from its player's win percentage ``before`` and ``after`` it."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1.0))


def accuracies(white_win_percents: Sequence[float], first: chess.Color) -> dict[str, float | None]:
    """Each side's game accuracy (rounded to 0.1; None for a side without a move) from White's win
    percentage at the start and after every move (``n + 1`` values for ``n`` moves), ``first`` to move."""
    values = list(white_win_percents)
    moves = len(values) - 1
    window = max(2, min(8, moves // 10))
    windows = [values[:window]] * max(0, min(window, len(values)) - 2)
    windows += [values[i : i + window] for i in range(len(values) - window + 1)]
    scored: dict[chess.Color, list[tuple[float, float]]] = {chess.WHITE: [], chess.BLACK: []}
    for index in range(moves):
        colour = first if index % 2 == 0 else not first
        before, after = values[index], values[index + 1]
        if colour == chess.BLACK:
            before, after = 100.0 - before, 100.0 - after
        volatility = min(12.0, max(0.5, statistics.pstdev(windows[index]))) if index < len(windows) else 0.5
        scored[colour].append((move_accuracy(before, after), volatility))
    result: dict[str, float | None] = {}
    for colour, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
        marks = scored[colour]
        if not marks:
            result[name] = None
            continue
        weighted = statistics.fmean([mark for mark, _ in marks], weights=[weight for _, weight in marks])
        harmonic = statistics.harmonic_mean([mark for mark, _ in marks])
        result[name] = round((weighted + harmonic) / 2, 1)
    return result


__all__ = ["accuracies", "move_accuracy"]
