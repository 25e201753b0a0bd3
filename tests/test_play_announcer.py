"""The table's LCD and buzzer follow a game: the moves, whose turn, the clocks, the result and the
board's questions on the display; a tune for every move, a check, the end and an error."""

from __future__ import annotations

import re
from pathlib import Path

import chess
import pytest
from click.testing import CliRunner

from chessatron.cli import main
from chessatron.config import Config
from chessatron.feedback.buzzer import SimBuzzer
from chessatron.feedback.display import SimDisplay
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records.record import ClockSettings
from chessatron.game.session import Session
from chessatron.game.telling.announcer import Announcer, display_lines, open_announcer, tunes_between
from chessatron.game.telling.live import LiveState
from chessatron.planning.layout import Layout

#: A simulated table of these tests' own (the default one is every in-process test's).
OWN_WORLD = {"grbl": {"url": "sim://announcer"}, "sensors": {"url": "sim://announcer"}}
#: The scholar's mate: White mates on move 4.
SCHOLAR = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n"


def play_scripted(tmp_path: Path, display: SimDisplay, buzzer: SimBuzzer, *, muted: bool = False) -> None:
    script = tmp_path / "game.pgn"
    script.write_text(SCHOLAR, encoding="utf-8")
    spec = PlayerSpec.parse(f"script:{script}")
    buzzer.muted = muted
    live = LiveState(Layout.default())
    config = Config.from_dict(OWN_WORLD)
    # every change shown as it is made (the table's own announcer shows the newest when they crowd)
    with (
        Session(config, games_dir=tmp_path / "games", speed=None, live=live) as session,
        Announcer(live, display=display, buzzer=buzzer, cols=16, rows=2, threaded=False),
    ):
        session.connect()
        journal = session.new_game(spec, spec, chess.Board(), ClockSettings(300, 2))
        with journal:
            session.play(journal, spec, spec)


def test_a_game_on_the_lcd_and_the_buzzer(tmp_path: Path) -> None:
    display, buzzer = SimDisplay(16, 2), SimBuzzer()
    play_scripted(tmp_path, display, buzzer)
    shown = [lines for _, lines in display.history]
    texts = ["\n".join(line.rstrip() for line in lines) for lines in shown]
    assert all(len(line) == 16 for lines in shown for line in lines)  # fitted to the LCD
    assert any(text.startswith("White to move") for text in texts)
    assert any(text.startswith("Black to move") for text in texts)
    assert any(text.startswith("Robot moving") for text in texts)  # while the robot carries a move out
    assert any(re.search(r"W5:0\d B5:0\d Qh5", text) for text in texts)  # the clocks and the last move
    assert any(text.startswith("Black in check") for text in texts)
    assert display.text.splitlines() == ["White wins 1-0", "by checkmate"]  # the result stays
    # the set-up, six moves, the mate as it is made (a check), then the end
    assert buzzer.played_names() == ["robot-start", *["move"] * 6, "check", "game-over"]


def test_a_muted_buzzer_plays_nothing(tmp_path: Path) -> None:
    display, buzzer = SimDisplay(16, 2), SimBuzzer()
    play_scripted(tmp_path, display, buzzer, muted=True)
    assert buzzer.played == [] and display.text.startswith("White wins")


def test_the_boards_question_is_on_the_display(layout: Layout) -> None:
    live = LiveState(layout)
    display, buzzer = SimDisplay(16, 2), SimBuzzer()
    with Announcer(live, display=display, buzzer=buzzer, cols=16, rows=2) as announcer:
        live.show_board(
            chess.Board("4k3/8/8/8/8/5b1b/6B1/4K3 w - - 0 1"), game_id="q", players=("board", "x")
        )
        announcer.settle()
        question = {"text": "Bxf3 or Bxh3?", "ply": 1, "options": []}
        live.update(question=question)
        announcer.settle()
        assert display.text.splitlines() == ["Which move?", "Bxf3 or Bxh3?"]
        live.update(question=None)
        announcer.settle()
    assert display.text.splitlines()[0] == "White to move"
    assert buzzer.played_names() == ["robot-start", "question"]


def test_check_and_errors_have_tunes() -> None:
    game = {"id": "g", "san": ["e4"], "check": False, "result": None}
    checked = {**game, "san": ["e4", "Qh4+"], "check": True}
    assert tunes_between({"game": game}, {"game": checked}) == ["check"]
    warned = {"game": game, "notices": [{"message": "sensor e4 does not answer", "level": "warning"}]}
    assert tunes_between({"game": game, "notices": []}, warned) == ["illegal"]
    alarm = {"game": game, "gantry": {"state": "Alarm"}}
    assert tunes_between({"game": game, "gantry": {"state": "Idle"}}, alarm) == ["illegal"]


def test_a_wide_display_shows_every_line() -> None:
    game = {
        "san": ["e4"],
        "uci": ["e2e4"],
        "turn": "black",
        "check": False,
        "result": None,
        "start_fen": None,
    }
    clock = {"white_ms": 61_000, "black_ms": 9_500, "running": "black"}
    assert display_lines({"game": game, "clock": clock}) == ["Black to move", "1. e4", "W1:01 B0:09.5"]


def test_a_display_that_cannot_be_opened_is_one_warning(
    tmp_path: Path, layout: Layout, caplog: pytest.LogCaptureFixture
) -> None:
    config = Config.from_dict({"display": {"url": "lcd://1"}, "buzzer": {"url": "none://"}})
    with open_announcer(config, LiveState(layout)) as announcer:
        assert announcer.display is None and announcer.buzzer is None
    assert any("the display lcd://1 cannot be used" in record.getMessage() for record in caplog.records)


def test_play_goes_on_without_an_lcd_it_cannot_open(tmp_path: Path) -> None:
    config = tmp_path / "machine.toml"
    config.write_text(
        '[display]\nurl = "lcd://1?cols=20&rows=4"\n[grbl]\nurl = "sim://announcer-cli"\n'
        '[sensors]\nurl = "sim://announcer-cli"\n',
        encoding="utf-8",
    )
    script = tmp_path / "game.pgn"
    script.write_text(SCHOLAR, encoding="utf-8")
    args = ["play", "--config", str(config), "--white", f"script:{script}", "--black", f"script:{script}"]
    env = {"CHESSATRON_STATE": str(tmp_path / "sim.json"), "CHESSATRON_GAMES": str(tmp_path / "games")}
    result = CliRunner(env=env).invoke(main, [*args, "--speed", "max"])
    assert result.exit_code == 0, result.output
    assert "warning: the display lcd://1?cols=20&rows=4 cannot be used" in result.output
    assert "White wins by checkmate (1-0)" in result.output
