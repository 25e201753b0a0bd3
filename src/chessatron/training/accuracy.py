"""How well each side played a game, as lichess measures it: the average centipawn loss and the accuracy.

Both are reckoned from the engine's evaluation of every position of the game from White's side, the start
first, in centipawns (a mate counted as :data:`CEILING_CP`, and every evaluation clamped to it, as lichess
does):

- **average centipawn loss**: for each move, how far the mover's evaluation fell from the position before
  it to the position after it (never below 0), averaged over the side's moves;
- **accuracy** (lichess's *accuracy*, https://lichess.org/page/accuracy, its ``AccuracyPercent``): each
  move's accuracy from the mover's win percentage before and after it, ``103.1668 * exp(-0.04354 * (before
  - after)) - 3.1669`` plus 1 (lichess's allowance for the engine's own error), 100 for a move that
  loses nothing, between 0 and 100; the game's accuracy of a side is the mean of two means of its moves'
  accuracies: weighted by how much the game swung around each move (the standard deviation of the win
  percentages in a window of the game, between 0.5 and 12), and harmonic (so that one blunder weighs).

The win percentage is lichess's: ``50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)``. Where lichess starts
from a fixed first evaluation (+0.15), the evaluation of the game's own start is used, so that a game from
another position (a Chess960 start) is measured from where it began.

>>> round(win_percent(0), 1), round(win_percent(300), 1)
(50.0, 75.1)
>>> round(move_accuracy(60.0, 60.0)), round(move_accuracy(75.0, 25.0))
(100, 10)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import chess

__all__ = ["CEILING_CP", "SideFigures", "figures", "move_accuracy", "win_percent"]

#: The evaluations are clamped to this many centipawns either way, and a mate counts as this (lichess's).
CEILING_CP: Final = 1000


def win_percent(cp: float) -> float:
    """The win percentage (0 to 100) of the side an evaluation of ``cp`` centipawns is seen from."""
    clamped = max(-CEILING_CP, min(CEILING_CP, cp))
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * clamped)) - 1)


def move_accuracy(before: float, after: float) -> float:
    """A move's accuracy (0 to 100) from its mover's win percentage ``before`` and ``after`` it."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1))


@dataclass(frozen=True)
class SideFigures:
    """One side's figures over a game: its ``moves``, ``average_loss`` (centipawns) and ``accuracy``
    (percent), both None without a move."""

    moves: int
    average_loss: float | None
    accuracy: float | None


def figures(cps: Sequence[float], first: chess.Color = chess.WHITE) -> dict[chess.Color, SideFigures]:
    """Each side's figures for a game whose positions the engine valued at ``cps`` (from White's side,
    centipawns, the start first, then after each move; ``first``: the side that moved first).

    >>> game = figures([20, 30, 25, -280, -270])  # White's second move gives three pawns away
    >>> [(side.moves, round(side.average_loss or 0), round(side.accuracy or 0)) for side in game.values()]
    [(2, 152, 41), (2, 5, 99)]
    """
    clamped = [max(-CEILING_CP, min(CEILING_CP, cp)) for cp in cps]
    wins = [win_percent(cp) for cp in clamped]  # White's
    plies = len(clamped) - 1
    losses: dict[chess.Color, list[float]] = {chess.WHITE: [], chess.BLACK: []}
    accuracies: dict[chess.Color, list[tuple[float, float]]] = {chess.WHITE: [], chess.BLACK: []}
    for index, weight in enumerate(_weights(wins, plies)):
        mover = first if index % 2 == 0 else not first
        sign = 1 if mover == chess.WHITE else -1
        losses[mover].append(max(0.0, sign * (clamped[index] - clamped[index + 1])))
        before, after = wins[index], wins[index + 1]
        if mover == chess.BLACK:
            before, after = 100 - before, 100 - after
        accuracies[mover].append((move_accuracy(before, after), weight))
    return {colour: _side(losses[colour], accuracies[colour]) for colour in chess.COLORS}


def _weights(wins: Sequence[float], plies: int) -> list[float]:
    """Lichess's weight of each move: how much the game swung in a window of win percentages around it
    (their standard deviation, between 0.5 and 12); the first moves share the first window."""
    if plies <= 0:
        return []
    size = max(2, min(8, plies // 10))
    sliding = [wins[start : start + size] for start in range(max(1, len(wins) - size + 1))]
    windows = [wins[:size]] * (min(size, len(wins)) - 2) + sliding
    return [max(0.5, min(12.0, statistics.pstdev(window))) for window in windows[:plies]]


def _side(losses: list[float], accuracies: list[tuple[float, float]]) -> SideFigures:
    if not losses:
        return SideFigures(0, None, None)
    weighted = sum(value * weight for value, weight in accuracies) / sum(weight for _, weight in accuracies)
    harmonic = len(accuracies) / sum(1 / max(1.0, value) for value, _ in accuracies)
    return SideFigures(len(losses), statistics.fmean(losses), (weighted + harmonic) / 2)
