"""Saved games as people leave them, made by a session on the simulator (robot at full speed) for the
tests of resuming and stopping: a game typed at a terminal and quit, and a set-up cut short."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

import chess

from chessatron.config import Config
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.record import ClockSettings
from chessatron.game.session import Session

#: The engine's answers are the same every time: full strength, one ply deep.
ENGINE = "engine:20:depth=1"


def keyboard_game(
    games_dir: Path,
    typed: Iterable[str],
    *,
    black: str = ENGINE,
    clock: ClockSettings | None = None,
    start: chess.Board | None = None,
) -> str:
    """A game whose White typed ``typed`` at a terminal (``play --white keyboard``), the engine answering,
    then ``quit``: saved, unfinished (with a chess ``clock`` if given; from ``start``, default the
    standard one). Returns its id."""
    lines = iter([*typed, "quit"])
    keyboard = KeyboardPlayer(lambda prompt: next(lines), lambda text: None)
    with Session(Config.default(), games_dir=games_dir, speed=None, keyboard=keyboard) as session:
        session.connect()
        white, opponent = PlayerSpec.parse("keyboard"), PlayerSpec.parse(black)
        journal = session.new_game(white, opponent, start or chess.Board(), clock)
        with journal, contextlib.suppress(KeyboardInterrupt):  # quit: the game stays saved
            session.play(journal, white, opponent)
        return journal.state.metadata.game_id


def cut_short_set_up(games_dir: Path, chess960: int, *, drags: int = 2) -> str:
    """A Chess960 game whose set-up stopped after ``drags`` of the robot's drags (the power went off, or
    Ctrl-C at the terminal): no move, its journal says where the pieces stand. Returns its id."""
    with Session(Config.default(), games_dir=games_dir, speed=None) as session:
        session.connect()
        live = session.live

        def after_each(version: int) -> None:
            work = live.snapshot()["gantry"]["work"]
            if work is not None and work["title"] == "SETUP" and work["index"] >= drags:
                session.stop_requested.set()  # the robot stops before its next drag

        live.listen(after_each)
        start = chess.Board.from_chess960_pos(chess960)
        with contextlib.suppress(KeyboardInterrupt):  # the stop asked for, after those drags
            session.new_game(PlayerSpec.parse("web"), PlayerSpec.parse(ENGINE), start)
        game = session.live.snapshot()["game"]
        assert game is not None
        game_id: str = game["id"]
        return game_id
