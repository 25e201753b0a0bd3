"""The person a calibration works with: what the table tells them and what it asks.

Every part of ``chessatron hw calibrate`` talks to the person only through :class:`Person`, so that the same
part runs with a maker at the terminal, a maker at the web page, or the simulator's person (``--hand``),
who looks at the simulated table's truth and does what the instructions say.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

import chess

from ..errors import ChessatronError

__all__ = ["Nudge", "Person", "Stopped"]

#: A key the person presses to move the magnet while finding a square's centre: a direction, a finer or
#: coarser step, or done (the magnet is where it should be).
Nudge = Literal["left", "right", "up", "down", "finer", "coarser", "done"]


class Stopped(ChessatronError):
    """The person stopped the calibration (Ctrl-C, the page's Stop): what was learnt so far is not written."""


class Person(Protocol):
    """The person beside the table."""

    def tell(self, text: str) -> None:
        """Say ``text`` to the person (a line at the terminal, the page's step text)."""

    def ask(self, question: str, answers: Sequence[str]) -> str:
        """Ask ``question`` until the person gives one of ``answers`` (returned as given in ``answers``);
        raises :class:`Stopped` when they stop."""

    def ask_square(self, question: str) -> chess.Square | None:
        """Ask for a square of the board (typed ``e4``, or touched on a table with sensors); None: the
        person says there is none (e.g. "that LED is not under the board")."""

    def nudge(self, question: str) -> Nudge:
        """One key of the person's while they move the magnet onto a mark."""
