"""The other ways to play, as the manual tells them and a person takes them at a real terminal
(:mod:`tests.journeys`): by voice (on the simulator, a simulated person speaks through espeak-ng into the
simulated microphone, and the game reads the move back and waits for yes), and with buttons (a scripted
d-pad on the simulator: the cursor picks the pawn up and puts it on e4; the script ended, the game stops
saved, as at the end of typed input)."""

from __future__ import annotations

from pathlib import Path

from tests.journeys import Terminal


def test_a_move_said_aloud_is_read_back_confirmed_and_played(tmp_path: Path) -> None:
    args = ["play", "--white", "voice", "--black", "engine:5", "--max-plies", "2"]
    with Terminal(args, tmp_path) as terminal:
        terminal.expect(r"voice: White to move: say your move\.")
        terminal.expect(r"voice: \S+\. Yes or no\? \(heard \"[^\"]+\"\)")
        terminal.expect(r"1\. \S+ +voice")
        terminal.expect(r"1\.\.\. \S+ +engine:5")
        terminal.expect(r"stopped after 1 move: chessatron play --resume \w+ continues it")
        assert terminal.exit_status() == 0
        terminal.assert_clean()


def test_a_game_played_with_the_buttons(tmp_path: Path) -> None:
    config = tmp_path / "chessatron.toml"
    config.write_text('[buttons]\nurl = "sim://?script=up,select,up*2,select"\n', encoding="utf-8")
    args = ["play", "--white", "buttons", "--black", "engine:1", "--config", str(config)]
    with Terminal(args, tmp_path) as terminal:
        terminal.expect(r"1\. e4 +buttons")
        terminal.expect(r"1\.\.\. \S+ +engine:1")
        terminal.expect(r"stopped after 1 move: chessatron play --resume \w+ continues it")
        assert terminal.exit_status() == 0
        terminal.assert_clean()
