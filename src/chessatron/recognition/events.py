"""What the recognizer reports: moves committed or revised, takebacks, a new game, a lifted piece,
an illegal or ambiguous board and its resolution; and the debounced square events it works from."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ..i18n import _
from ..i18n.formats import either
from ..i18n.notation import san_in
from .guidance import Guidance


@dataclass(frozen=True)
class Committed:
    """One or more plies were recognised and pushed on the game."""

    t: float
    moves: tuple[chess.Move, ...]
    sans: tuple[str, ...]


@dataclass(frozen=True)
class Revised:
    """The last committed move was replaced: the same player went on (a paused slide, rook-first castling,
    a promotion piece chosen late); ``moves`` are the plies now standing in its place. With no ``moves``
    it was withdrawn: its piece was only held over the board (a capture by displacement looks just
    like that) and is back on its square."""

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
    either of two pieces. Nothing is committed until what follows is legal in only one of them, or the
    player says which (:meth:`~.Recognizer.choose_move`, or lifting the capturing piece and setting it
    down again)."""

    t: float
    candidates: tuple[tuple[chess.Move, ...], ...]
    """The plies each explanation would make, from the position before the last committed move when
    that move would be revised."""
    sans: tuple[tuple[str, ...], ...]
    ply: int = 0
    """The half-move of the game (counted from 0) at which the candidates part: the player is asked
    which of :attr:`options` they made there."""
    options: tuple[chess.Move, ...] = ()
    """The moves the candidates make at :attr:`ply`, each once."""
    option_sans: tuple[str, ...] = ()

    @property
    def question(self) -> str:
        """The question for the player in the current language and its piece letters, e.g. ``"Bxf3 or
        Bxh3?"`` (``"Lxf3 oder Lxh3?"`` in German)."""
        names = [san_in(san) for san in self.option_sans]
        # TRANSLATORS: the board's question when it cannot tell moves apart; {moves}: "Bxf3 or Bxh3"
        return _("{moves}?").format(moves=either(names))


@dataclass(frozen=True)
class Resolved:
    """After an illegal action, the board matches the position again; or a question
    (:class:`Ambiguous`) is settled, by an answer or by what followed."""

    t: float


RecognizerEvent = Committed | Revised | TookBack | NewGame | PieceLifted | Illegal | Ambiguous | Resolved


@dataclass(frozen=True)
class SquareEvent:
    """A debounced change of one square: ``t`` is when it first appeared."""

    t: float
    square: chess.Square
    occupied: bool
