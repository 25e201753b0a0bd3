"""Who plays a side, as written on the command line (``play --white keyboard --black engine:5``) and kept
in the journal: a :class:`PlayerSpec`, and the :class:`~chessatron.game.records.record.Player` the saved
game names.

>>> PlayerSpec.parse("engine:5").player()
Player(name='Stockfish', kind='engine', level='5')
>>> recorded(PlayerSpec.parse("keyboard"), PlayerSpec.parse("engine"), "Ann")
(Player(name='Ann', kind='keyboard', level=None), Player(name='Stockfish', kind='engine', level=None))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import ConfigError
from ...i18n import _
from ..engine.settings import parse_level
from ..records.record import Player

__all__ = ["PEOPLE", "PlayerSpec", "engine_level", "recorded", "with_level"]

#: The players who are a person here, at the table or its page (``hand`` is a simulated one).
PEOPLE: frozenset[str] = frozenset({"keyboard", "buttons", "board", "web", "voice"})


@dataclass(frozen=True)
class PlayerSpec:
    """A player from the command line: ``engine[:LEVEL]``, ``keyboard``, ``buttons`` (a d-pad and the
    LEDs), ``board`` (a person at the table), ``voice`` (moves said into the microphone), ``script:FILE``,
    ``web`` (the web page) or on the simulator ``hand[:LEVEL]``; ``online`` is the opponent of an online
    game (``chessatron online`` makes it; a journal names it)."""

    kind: Literal["engine", "keyboard", "buttons", "script", "board", "hand", "web", "online", "voice", "app"]
    level: str | None = None
    path: Path | None = None

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        text = text.strip()
        if text in ("keyboard", "buttons", "board", "web", "online", "voice", "app"):
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
            # TRANSLATORS: {text}: the player named; the players' names (engine, keyboard...) stay as they are
            _(
                "unknown player {text!r}; use engine[:LEVEL] (e.g. engine:5, engine:1500elo), keyboard, "
                "buttons, board, voice (moves said into the microphone), script:FILE.pgn, web (moves clicked "
                "on the web page), or on the simulator hand[:LEVEL]"
            ).format(text=text)
        )

    @property
    def spec(self) -> str:
        if self.kind in ("engine", "hand"):
            return f"{self.kind}:{self.level}" if self.level else self.kind
        if self.kind == "script":
            return f"script:{self.path}"
        return self.kind

    def player(self, name: str | None = None) -> Player:
        """The player the saved game names; ``name``: the person's own (``[player] name``), for a
        person here (:data:`PEOPLE`) instead of the way they play."""
        names = {
            "engine": "Stockfish",
            "keyboard": "keyboard",
            "buttons": "buttons",
            "script": f"script {self.path}",
            "board": "board",
            "web": "web page",
            "online": "online opponent",
            "app": "e-board app",
            "voice": "voice",
        }
        if self.kind == "hand":
            return Player(name="simulated hand", kind="board")
        own = name if name and self.kind in PEOPLE else names[self.kind]
        return Player(name=own, kind=self.kind, level=self.level)

    @property
    def moves_pieces(self) -> bool:
        """A person moving the pieces on the table (the robot must not)."""
        return self.kind in ("board", "hand")


def recorded(white: PlayerSpec, black: PlayerSpec, name: str | None) -> tuple[Player, Player]:
    """The players a game's record names: the side a person here plays by ``name`` (``[player] name``,
    ``play --name``) when the other side is not a person too (two people: which one is the player?),
    the others as their specs say."""
    people = [spec.kind in PEOPLE for spec in (white, black)]
    person = name if people.count(True) == 1 else None
    return white.player(person), black.player(person)


def with_level(spec: PlayerSpec, level: str | None) -> PlayerSpec:
    """An engine that names no level plays at ``level`` (``[player] level``), when there is one.

    >>> with_level(PlayerSpec.parse("engine"), "5").spec, with_level(PlayerSpec.parse("engine:3"), "5").spec
    ('engine:5', 'engine:3')
    """
    if spec.kind != "engine" or spec.level is not None or not level:
        return spec
    return PlayerSpec("engine", level=level)


def engine_level(spec: PlayerSpec) -> str | None:
    """The engine level a player needs running: an engine player's own, a simulated hand's brain."""
    if spec.kind == "engine":
        return spec.spec
    if spec.kind == "hand":
        return f"engine:{spec.level}" if spec.level else "engine"
    return None
