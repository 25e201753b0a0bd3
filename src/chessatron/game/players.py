"""The players of a game: who they are (:class:`PlayerSpec`, as written on the command line) and how each
chooses its moves (the movers: an engine, a keyboard, a script, a person at the board read by the
sensors, a page's inbox).

>>> PlayerSpec.parse("engine:5").player()
Player(name='Stockfish', kind='engine', level='5')
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import chess
import chess.engine

from ..errors import ChessatronError, ConfigError
from ..sim.simulate import read_game
from ..voice.player import VoiceMover
from .board_mover import BLINK_S, BoardMover, Prompter, Revision
from .buttons import ButtonMover
from .engine import EnginePlayer, parse_level
from .keyboard import Command, KeyboardPlayer
from .live import LiveState, colour_name
from .record import Player

__all__ = [
    "BLINK_S",
    "BoardMover",
    "EngineMover",
    "InboxMover",
    "KeyboardMover",
    "Mover",
    "PlayerSpec",
    "Prompter",
    "RemoteMover",
    "Revision",
    "ScriptMover",
    "engine_level",
]

LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlayerSpec:
    """A player from the command line: ``engine[:LEVEL]``, ``keyboard``, ``buttons`` (a d-pad and the
    LEDs), ``board`` (a person at the table), ``voice`` (moves said into the microphone), ``script:FILE``,
    ``web`` (the web page) or on the simulator ``hand[:LEVEL]``; ``online`` is the opponent of an online
    game (``chessatron online`` makes it; a journal names it)."""

    kind: Literal["engine", "keyboard", "buttons", "script", "board", "hand", "web", "online", "voice"]
    level: str | None = None
    path: Path | None = None

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        text = text.strip()
        if text in ("keyboard", "buttons", "board", "web", "online", "voice"):
            return cls(text)  # type: ignore[arg-type]
        if text == "hand" or text.startswith("hand:"):
            # a simulated person at the simulated table, choosing with an engine of that level
            level = text[len("hand:") :] or None
            parse_level(f"engine:{level}" if level else "engine")
            return cls("hand", level=level)
        if text.startswith("script:") and len(text) > len("script:"):
            return cls("script", path=Path(text[len("script:") :]))
        if text == "engine" or text.startswith("engine:"):
            parse_level(text)  # validate now, with the level grammar's own message
            return cls("engine", level=text[len("engine:") :] or None)
        raise ConfigError(
            f"unknown player {text!r}; use engine[:LEVEL] (e.g. engine:5, engine:1500elo), keyboard, "
            "buttons, board, voice (moves said into the microphone), script:FILE.pgn, web (moves clicked on "
            "the web page), or on the simulator hand[:LEVEL]"
        )

    @property
    def spec(self) -> str:
        if self.kind in ("engine", "hand"):
            return f"{self.kind}:{self.level}" if self.level else self.kind
        if self.kind == "script":
            return f"script:{self.path}"
        return self.kind

    def player(self) -> Player:
        names = {
            "engine": "Stockfish",
            "keyboard": "keyboard",
            "buttons": "buttons",
            "script": f"script {self.path}",
            "board": "board",
            "web": "web page",
            "online": "online opponent",
            "voice": "voice",
        }
        if self.kind == "hand":
            return Player(name="simulated hand", kind="board")
        return Player(name=names[self.kind], kind=self.kind, level=self.level)

    @property
    def moves_pieces(self) -> bool:
        """A person moving the pieces on the table (the robot must not)."""
        return self.kind in ("board", "hand")


# --- robot operations in the journal ---------------------------------------------------------------


def engine_level(spec: PlayerSpec) -> str | None:
    """The engine level a player needs running: an engine player's own, a simulated hand's brain."""
    if spec.kind == "engine":
        return spec.spec
    if spec.kind == "hand":
        return f"engine:{spec.level}" if spec.level else "engine"
    return None


class ScriptMover:
    """Plays the moves of a PGN's main line, in order. When they run out before the game ends, the game
    stops there, saved to go on with (adjourned: ``play --resume`` continues it), as when the input of
    a keyboard player ends; nobody resigns."""

    def __init__(self, path: Path) -> None:
        self.path = path
        game = read_game(path)
        self.moves = list(game.mainline_moves())
        #: Told why the game stops when the moves run out.
        self.on_notice: Callable[[str], None] = lambda message: None

    def choose(self, board: chess.Board) -> chess.Move | Command:
        ply = len(board.move_stack)
        if ply >= len(self.moves):
            self.on_notice(
                f"the script {str(self.path)!r} has no move for {colour_name(board.turn)} after its "
                f"{len(self.moves)} plies: the game stops here, saved"
            )
            return Command.QUIT
        move = self.moves[ply]
        if not board.is_legal(move):
            raise ChessatronError(f"the script's move {move.uci()!r} is not legal in {board.fen()!r}")
        return move


class EngineMover:
    def __init__(self, engine: EnginePlayer) -> None:
        self.engine = engine
        #: The most the engine may think about a move (seconds) as its clock stands, None without one.
        self.budget: Callable[[chess.Board], float | None] = lambda board: None
        #: The move the engine found for this position while the opponent thought (pondering), if any.
        self.foreseen: Callable[[chess.Board], chess.Move | None] = lambda board: None

    def choose(self, board: chess.Board) -> chess.Move | Command:
        foreseen = self.foreseen(board)
        if foreseen is not None:
            return foreseen
        return self.engine.best_move(board, max_time_s=self.budget(board))


class KeyboardMover:
    def __init__(self, keyboard: KeyboardPlayer) -> None:
        self.keyboard = keyboard
        #: Whether the player's time is up (the session sets it when a clock runs): the prompt gives up.
        self.expired: Callable[[], bool] | None = None
        #: Told the line typed so far while the prompt waits, Enter not yet pressed (the session sets it:
        #: the robot's magnet heads for the piece being typed).
        self.typing: Callable[[str], None] | None = None

    def choose(self, board: chess.Board) -> chess.Move | Command | None:
        return self.keyboard.ask(board, expired=self.expired, typing=self.typing)


class InboxMover:
    """A player whose moves and commands arrive from elsewhere (the web page): ``choose`` shows the legal
    moves on the live state and waits for the next item in the ``inbox``."""

    def __init__(self, colour: chess.Color, live: LiveState) -> None:
        self.colour = colour
        self.live = live
        self.inbox: queue.Queue[chess.Move | Command] = queue.Queue()
        #: Whether the player's time is up (the session sets it when a clock runs).
        self.expired: Callable[[], bool] = lambda: False

    def choose(self, board: chess.Board) -> chess.Move | Command | None:
        legal: dict[str, list[str]] = {}
        for move in board.legal_moves:
            targets = legal.setdefault(chess.square_name(move.from_square), [])
            if chess.square_name(move.to_square) not in targets:
                targets.append(chess.square_name(move.to_square))
        while not self.inbox.empty():  # sent against an earlier prompt (a double click, a second page)
            self.inbox.get_nowait()
        self.live.update(prompt={"colour": colour_name(self.colour), "legal": legal})
        try:
            while True:
                try:
                    item = self.inbox.get(timeout=0.05)
                    if isinstance(item, chess.Move) and item not in board.legal_moves:
                        continue  # stale: checked against a position that is gone
                    return item
                except queue.Empty:
                    if self.expired():
                        return None  # the flag fell while the player thought
        finally:
            self.live.update(prompt=None)


class RemoteMover(Protocol):
    """A player elsewhere whose moves arrive from a server: an online game's opponent (see
    :class:`~chessatron.game.referee.Referee`)."""

    def choose(self, board: chess.Board) -> chess.Move | Command | None: ...


Mover = (
    ScriptMover
    | EngineMover
    | KeyboardMover
    | ButtonMover
    | BoardMover
    | InboxMover
    | VoiceMover
    | RemoteMover
)
