"""What the web page may ask of the table, checked before anything reaches the game or the gantry: a new
game (:class:`GameRequest`: players that need no file or terminal here, a start that parses), a move
(:func:`parse_move`: legal, or why not in plain words) and a command (:data:`COMMANDS`). The runner
(:mod:`.runner`) carries them out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

import chess

from ..errors import ConfigError, IllegalMoveError
from ..i18n import _
from ..planning.targets import parse_target
from .players.base import Command
from .players.notation import Rejection, parse_command
from .players.spec import PlayerSpec

__all__ = ["COMMANDS", "REMOTE_PLAYERS", "TERMINAL_PLAYERS", "GameCommand", "GameRequest", "parse_move"]

GameCommand = Literal["hint", "takeback", "draw", "resign"]
COMMANDS: dict[str, Command] = {
    "hint": Command.HINT,
    "takeback": Command.TAKEBACK,
    "draw": Command.DRAW,
    "resign": Command.RESIGN,
}

#: The players a game started from elsewhere (the web page) may have.
REMOTE_PLAYERS = ("web", "engine", "board", "hand", "voice", "buttons")
#: Players a game resumed from elsewhere cannot have: they need this machine's terminal, which nobody at
#: the page sees. The page takes their seats over (``web``), as ``play --resume --white web`` would hand
#: them to it.
TERMINAL_PLAYERS = ("keyboard",)


@dataclass(frozen=True)
class GameRequest:
    """A new game: the players (as for ``chessatron play``) and the start.

    ``chess960`` is None for standard chess, ``"random"``, a number 0-959 or ``N:M`` (Double Fischer
    Random); ``fen`` sets up any position instead (a Chess960 one when its castling rights need it).

    >>> GameRequest(fen="r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1").start().chess960
    False
    >>> GameRequest(fen="1r2k3/8/8/8/8/8/8/5K1R w Kq - 0 1").start().chess960
    True
    """

    white: str = "web"
    black: str = "engine"
    chess960: str | None = None
    fen: str | None = None
    #: A chess clock as for ``play --clock`` (``"5+3"``), None for none.
    clock: str | None = None

    def players(self) -> tuple[PlayerSpec, PlayerSpec]:
        """The players; only those that need no file or terminal on this machine (``web``, ``engine``,
        ``board``, ``hand``): a request from a page must not name the server's files."""
        players = PlayerSpec.parse(self.white), PlayerSpec.parse(self.black)
        for player in players:
            if player.kind not in REMOTE_PLAYERS:
                raise ConfigError(
                    # TRANSLATORS: {kind}: a kind of player (keyboard); {players}: the kinds there are
                    _("a {kind!r} player cannot be chosen here; use one of {players}").format(
                        kind=player.kind, players=", ".join(REMOTE_PLAYERS)
                    )
                )
        return players

    def start(self, rng: random.Random | None = None) -> chess.Board:
        """The start position; raises :class:`ConfigError` for a bad number or FEN."""
        if self.fen is not None and self.chess960 is not None:
            raise ConfigError(_("give either a chess960 start or a FEN, not both"))
        if self.fen is not None:
            board = parse_target(self.fen).board
            # a position is standard chess unless its castling rights need Chess960 (a king off e1/e8)
            board.chess960 = board.has_chess960_castling_rights()
            return board
        if self.chess960 is None:
            return chess.Board()
        text = self.chess960
        if text == "random":
            text = str((rng or random.Random()).randrange(960))
        board = parse_target(text).board
        board.chess960 = True
        return board


def parse_move(board: chess.Board, text: str) -> chess.Move:
    """``text`` (UCI or SAN, as at the keyboard: :func:`~chessatron.game.players.notation.parse_command`) as a
    legal move on ``board``; :class:`IllegalMoveError` says in plain words what is wrong with it.

    >>> parse_move(chess.Board(), "e4"), parse_move(chess.Board(), "g1f3")
    (Move.from_uci('e2e4'), Move.from_uci('g1f3'))
    >>> parse_move(chess.Board(), "Ke2")
    Traceback (most recent call last):
    ...
    chessatron.errors.IllegalMoveError: 'Ke2': the king on e1 cannot go to e2: your own pawn stands there
    """
    result = parse_command(text, board)
    if isinstance(result, chess.Move):
        return result
    if isinstance(result, Rejection) and result.is_move:
        # TRANSLATORS: {move}: the move as sent; {reason}: why it cannot be played
        raise IllegalMoveError(_("{move!r}: {reason}").format(move=text, reason=result.reason))
    # TRANSLATORS: {move}: what was sent; write Nf3 with your language's piece letters (Sf3, Cf3)
    raise IllegalMoveError(_("{move!r} is not a move; write it like e4, Nf3, O-O or e2e4").format(move=text))
