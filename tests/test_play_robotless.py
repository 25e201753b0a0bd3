"""A board without a robot: the LEDs show the engine's moves, the players make them, the sensors confirm.

On the simulator the players are simulated hands moving pieces in the twin, read by simulated sensors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session

ROBOTLESS = """
[grbl]
url = "none://"
[sensors]
url = "sim://robotless"
[leds]
url = "sim://"
"""


@pytest.fixture
def config(tmp_path: Path) -> Config:
    path = tmp_path / "robotless.toml"
    path.write_text(ROBOTLESS, encoding="utf-8")
    return Config.load(path)


def board_cells_seen(session: Session) -> set[chess.Square]:
    assert session.world is not None
    seen = set()
    for cell in session.world.occupied_cells():
        square = session.layout.node_square(session.layout.cell_node(cell))
        if square is not None:
            seen.add(square)
    return seen


@pytest.mark.parametrize("white", ["hand:20:depth=1", "engine:20:depth=1"])
def test_players_make_the_engines_moves_as_the_leds_show_them(
    tmp_path: Path, config: Config, white: str
) -> None:
    events: list[dict[str, Any]] = []
    leds_seen: list[dict[str, str]] = []
    with Session(config, games_dir=tmp_path / "games", speed=None, emit=events.append) as session:
        session.live.listen(lambda version: leds_seen.append(session.live.snapshot()["leds"]))
        session.connect()
        assert not session.has_robot
        white_player, black_player = PlayerSpec.parse(white), PlayerSpec.parse("engine:20:depth=2")
        journal = session.new_game(white_player, black_player, chess.Board.from_chess960_pos(7))
        with journal:
            record = session.play(journal, white_player, black_player, max_plies=24)
        board = record.board()
        # the simulated people set the position up and made every engine move; the sensors agree
        assert board_cells_seen(session) == set(chess.SquareSet(board.occupied))
        session.table.check_matches(board)
    made_by_hand = [event for event in events if event["event"] == "your-hands"]
    engine_moves = [
        event for event in events if event["event"] == "move" and event["who"].startswith("engine")
    ]
    assert [e["uci"] for e in made_by_hand] == [e["uci"] for e in engine_moves] and len(engine_moves) >= 12
    assert any(event["event"] == "arrange" and event["why"] == "set up" for event in events)
    # the engine's moves were shown under their squares (from and to lit)
    first = made_by_hand[0]["uci"]
    assert any(first[:2] in lit and first[2:4] in lit for lit in leds_seen)


def test_a_typed_takeback_is_put_back_by_hand(tmp_path: Path, config: Config) -> None:
    lines = iter(["e4", "takeback", "d4", "resign"])
    keyboard = KeyboardPlayer(lambda prompt: next(lines, None), lambda text: None)
    events: list[dict[str, Any]] = []
    with Session(
        config, games_dir=tmp_path / "games", speed=None, emit=events.append, keyboard=keyboard
    ) as session:
        session.connect()
        white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse("engine:20:depth=1")
        journal = session.new_game(white, black, chess.Board())
        with journal:
            record = session.play(journal, white, black)
        assert record.result == "0-1" and record.moves[0] == chess.Move.from_uci("d2d4")
        assert board_cells_seen(session) == set(chess.SquareSet(record.board().occupied))
    assert [event["why"] for event in events if event["event"] == "arrange"] == ["set up", "take back"]


def test_play_on_a_board_without_a_robot_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "robotless.toml"
    path.write_text(ROBOTLESS, encoding="utf-8")
    env = {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}
    args = ["play", "--white", "hand:20:depth=1", "--black", "engine:20:depth=1", "--max-plies", "10"]
    result = CliRunner(env=env).invoke(main, [*args, "--config", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert '"robot": false' in result.output and '"your-hands"' in result.output
