"""What every player is to a session: a :class:`Mover` whose ``choose`` answers with a move, a
:class:`Command` (a hint, a takeback, a draw, resigning, quitting), a :class:`Revision` (a person at the
board corrected their last move) or nothing (their time is up, the game stops); and what a player may
start instead of moving, a new game with the :class:`Settings` chosen at the table
(:class:`NewGameRequested`).

Each kind of player has its module beside this one (:mod:`.keyboard`, :mod:`.board`, :mod:`.buttons`,
:mod:`.engine`, :mod:`.script`, :mod:`.web`; the voice player is :mod:`chessatron.voice.player`); they
and the session import these names from here, and nothing here imports them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

import chess

__all__ = ["Command", "Mover", "NewGameRequested", "Revision", "Settings"]


class Command(enum.Enum):
    """Something a player asks for instead of moving."""

    HINT = "hint"
    TAKEBACK = "takeback"
    DRAW = "draw"
    RESIGN = "resign"
    QUIT = "quit"
    HELP = "help"


@dataclass(frozen=True)
class Revision:
    """The person's last move was not what the sensors first said: ``moves`` stand in place of ``undone``
    (a paused slide went on, rook-first castling, a piece set down on the wrong square and moved on);
    none when it was withdrawn (its piece had only been held over the board)."""

    undone: chess.Move
    moves: tuple[chess.Move, ...]


class Mover(Protocol):
    """A player of one side of a game: an engine, a keyboard, a script, a person at the board, the web
    page's inbox, the buttons, a voice, or an online game's opponent (whose moves the
    :class:`~chessatron.game.referee.Referee` hands over)."""

    def choose(self, board: chess.Board) -> chess.Move | Command | Revision | None:
        """The move (legal on ``board``) or command of the side to move; a :class:`Revision` of the last
        move made at the board; None when the player stopped waiting (the flag fell, the game stops).
        May raise :class:`NewGameRequested`."""
        ...


@dataclass(frozen=True)
class Settings:
    """What the menu sets for the next game: the engine's skill level (None: no engine to set) and the
    start, standard chess (None) or a Chess960 number."""

    level: int | None = None
    chess960: int | None = None
    #: The menu's *puzzles*: the table turns to puzzles, played with the buttons (chessatron.training).
    puzzles: bool = False


class RestartRequested(KeyboardInterrupt):
    """The game under way ends at the next turn for another (an e-board app started a new game): the
    session raises it when :attr:`~chessatron.game.devices.TableDevices.restart_requested` is set."""

    def __init__(self) -> None:
        super().__init__("restart")


class NewGameRequested(KeyboardInterrupt):
    """The player chose *new game* from the buttons' menu (or said it): the game under way stops (saved,
    as for a quit) and a new one begins with ``settings``."""

    def __init__(self, settings: Settings) -> None:
        super().__init__("new game")
        self.settings = settings
