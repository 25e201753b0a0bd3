"""A game kept elsewhere too: the session's side of an online game.

When a :class:`~chessatron.game.session.Session` has a :class:`Referee` (an online game's server, see
:mod:`chessatron.online`), the game is the server's as much as the table's: the session tells the referee
every move it journals, asks it before a draw, a resignation or a takeback goes ahead, takes the moves of
an ``online`` player from the referee's movers, leaves every ending but checkmate and stalemate to it (the
server decides repetitions, the fifty-move rule, flags and resignations) and gives no engine advice. When
the server changes the game in a way the loop cannot follow (the game ended there, a move was made
elsewhere) :meth:`Referee.halts` says so: players waiting for a move stop waiting and
:meth:`~chessatron.game.session.Session.play` returns with the game unfinished, for its caller to bring
the table in step and play on.
"""

from __future__ import annotations

from typing import Protocol

import chess

from .players.base import Command, Mover


class Referee(Protocol):
    """The keeper of a game played elsewhere too (an online game's server)."""

    def mover(self, colour: chess.Color) -> Mover:
        """The player of ``colour`` whose moves come from the server."""
        ...

    def moved(self, board: chess.Board, move: chess.Move) -> None:
        """``move`` was journaled on ``board`` (the position before it), before the robot moves a piece:
        send it to the server if the server does not have it yet. Raises
        :class:`~chessatron.errors.OnlineError` only when the server cannot be reached at all (the game
        stops, journaled; the move is sent when it goes on)."""
        ...

    def allows(self, board: chess.Board, command: Command) -> bool:
        """The player to move on ``board`` asks for ``command`` (a hint, a draw offer or its acceptance,
        a resignation): whether the session may go ahead with it (the server was told)."""
        ...

    def takes_back(self, board: chess.Board) -> int:
        """The player to move asks for a takeback (or the server took moves back): how many plies the
        server took back, 0 for none (declined, not answered)."""
        ...

    def halts(self) -> bool:
        """Whether the game loop must stop and return: the server changed the game in a way the loop
        cannot follow."""
        ...
