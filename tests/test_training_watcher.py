"""The watcher during play: a move that throws the game away is said before the engine answers, and taken
back by the robot when the person says yes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import pytest

from chessatron.config import Config
from chessatron.game.commands import QuitRequested
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session
from chessatron.training.watcher import MoveWatcher

#: White can take the queen with check; stepping aside with the king loses its own instead.
START = "4k3/8/8/8/8/8/3q4/3QK3 w - - 0 1"


def test_a_blunder_is_said_and_taken_back_before_the_engine_answers(tmp_path: Path) -> None:
    lines = iter(["Kf1", "y", "Qxd2+", "quit"])
    typed = KeyboardPlayer(lambda prompt: next(lines), lambda text: None)
    events: list[dict[str, Any]] = []
    with Session(
        Config.default(), games_dir=tmp_path / "games", speed=None, emit=events.append, keyboard=typed
    ) as session:
        session.watcher = MoveWatcher(session, 0.3)
        session.connect()
        journal = session.new_game(
            PlayerSpec("keyboard"), PlayerSpec.parse("engine:depth=4"), chess.Board(START)
        )
        with journal, pytest.raises(QuitRequested):
            session.play(journal, PlayerSpec("keyboard"), PlayerSpec.parse("engine:depth=4"))
        moves = [move.uci() for move in journal.state.to_record().moves]
        assert session.world is not None and not session.world.twin.violations
    assert moves[0] == "d1d2"  # Kf1 was taken back; the queen was taken instead
    warning = next(e["message"] for e in events if e["event"] == "notice" and "careful" in e["message"])
    assert warning.startswith("careful: Kf1 gives away") and "was better" in warning
    assert {"event": "takeback", "plies": 1} in events
