"""The next game's settings chosen at the table (issue 26): from the buttons' menu while the page's
server runs the table, and by voice, as the buttons' menu has them: the engine's level and the start."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import chess
import pytest

from chessatron.config import Config
from chessatron.game.players.base import NewGameRequested, Settings
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner
from chessatron.voice.grammar import move_grammar, number_grammar
from chessatron.voice.meaning import SettingHeard, number_of, understand
from chessatron.voice.player import VoiceMover
from chessatron.voice.recognizer import SpeechRecognizer

from .test_voice import Table


def with_buttons(script: str) -> Config:
    return Config.from_dict({"buttons": {"url": f"sim://?script={script}"}})


def test_a_new_game_chosen_from_the_buttons_menu_begins_on_the_page_s_table() -> None:
    # White's turn: the menu (back), down to the level (5), two up to 7, down to the start, one back from
    # standard chess to Chess960 #959, up to "new game", select
    script = "back,down*4,right*2,down,left,up*2,select"
    seen: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        GameRunner(
            with_buttons(script), games_dir=Path(folder) / "g", speed=None, state_path=Path(folder) / "s.json"
        ) as runner,
    ):
        runner.live.listen(lambda version: seen.append(runner.live.snapshot()))
        runner.start_game(GameRequest(white="buttons", black="engine:5"))
        assert runner.wait(60)
        assert runner.last_error is None
    games = {(s["game"]["id"], s["game"]["black"], s["game"]["chess960"]) for s in seen if s["game"]}
    played = [game for game in games if game[1] == "engine:7"]
    assert played and played[0][2] == 959, games  # the new game: the level and the start chosen
    assert any(
        "a new game, as chosen at the table: buttons against engine:7" in n["message"]
        for s in seen
        for n in s["notices"]
    )
    first = next(s["game"] for s in seen if s["game"] and s["game"]["black"] == "engine:7")
    assert first["start_fen"] == chess.Board.from_chess960_pos(959).fen()


def test_the_next_game_s_settings_are_words_of_the_grammar() -> None:
    board = chess.Board()
    phrases = move_grammar(board).phrases
    assert {"level five", "level twenty", "standard chess", "chess nine sixty", "new game"} <= phrases
    assert understand("level twelve", board) == SettingHeard("level", 12, "level twelve")
    assert understand("new game", board) == SettingHeard("new game", None, "new game")
    numbers = number_grammar().phrases
    assert {"number one hundred", "nine hundred and fifty nine", "five one eight", "random"} <= numbers
    assert number_of("five one eight") == 518 and number_of("number zero") == 0


@pytest.fixture(scope="module")
def recognizer() -> SpeechRecognizer:
    return SpeechRecognizer()


def test_the_level_and_a_chess960_start_said_begin_a_new_game(recognizer: SpeechRecognizer) -> None:
    table = Table(recognizer)
    mover: VoiceMover = table.mover
    mover.settings = Settings(level=5, chess960=None)  # against an engine at level 5, standard chess
    table.says("level seven", "chess nine sixty", "number one hundred", "new game", "yes")
    with pytest.raises(NewGameRequested) as wanted:
        mover.choose(chess.Board())
    assert wanted.value.settings == Settings(level=7, chess960=100)
    assert table.texts()[1:] == [
        "The next game: level 7, standard chess. Say new game to begin it, or your move.",
        "Which Chess960 start? Say its number, zero to nine hundred fifty nine, or random.",
        "The next game: level 7, Chess960 number 100. Say new game to begin it, or your move.",
        "a new game, level 7, Chess960 number 100. Yes or no?",
    ]


def test_no_level_is_set_where_no_engine_plays(recognizer: SpeechRecognizer) -> None:
    table = Table(recognizer)
    table.says("level seven", "echo four", "yes")
    assert table.mover.choose(chess.Board()) == chess.Move.from_uci("e2e4")
    assert table.texts()[1] == "No engine plays here to set a level for. Say your move."
