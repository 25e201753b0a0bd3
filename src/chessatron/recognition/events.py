"""What the recognizer reports: moves committed or revised, takebacks, a new game, a lifted piece,
an illegal or ambiguous board and its resolution; and the debounced square events it works from."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ..guidance import Guidance


@dataclass(frozen=True)
class Committed:
    """One or more plies were recognised and pushed on the game."""

    t: float
    moves: tuple[chess.Move, ...]
    sans: tuple[str, ...]


@dataclass(frozen=True)
class Revised:
    """The last committed move was replaced: the same player went on (a paused slide, rook-first castling,
    a promotion piece chosen late); ``moves`` are the plies now standing in its place."""

    t: float
    undone: chess.Move
    moves: tuple[chess.Move, ...]
    sans: tuple[str, ...]


@dataclass(frozen=True)
class TookBack:
    t: float
    plies: int


@dataclass(frozen=True)
class NewGame:
    """The start arrangement was set up after a finished game."""

    t: float


@dataclass(frozen=True)
class PieceLifted:
    """A piece of the side to move left its square: light its legal destinations."""

    t: float
    square: chess.Square
    destinations: frozenset[chess.Square]
    captures: frozenset[chess.Square]


@dataclass(frozen=True)
class Illegal:
    """The still board matches no legal action; nothing is committed until it matches again."""

    t: float
    reason: str
    guidance: Guidance


@dataclass(frozen=True)
class Ambiguous:
    """The board fits several moves equally well, e.g. a capture by displacement that could have taken
    either of two pieces. Nothing is committed until the player shows which: lifting the capturing piece
    and setting it down again is enough."""

    t: float
    candidates: tuple[tuple[chess.Move, ...], ...]
    """The plies each explanation would make, from the position before the last committed move when
    that move would be revised."""
    sans: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Resolved:
    """After an illegal action, the board matches the position again."""

    t: float


RecognizerEvent = Committed | Revised | TookBack | NewGame | PieceLifted | Illegal | Ambiguous | Resolved


@dataclass(frozen=True)
class SquareEvent:
    """A debounced change of one square: ``t`` is when it first appeared."""

    t: float
    square: chess.Square
    occupied: bool
