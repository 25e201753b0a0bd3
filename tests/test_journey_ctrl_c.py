"""Ctrl-C as a person presses it: at a real terminal (:mod:`tests.journeys`), where the terminal sends
SIGINT to the whole foreground process group, the program and its engines alike. At every prompt and in
the middle of the robot's work the command stops at a safe point, saved, says how to go on, and exits 130;
no traceback, and the engine of a resumed game is alive and answers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.journeys import Terminal

#: The engine, weak and quick: its replies come at once.
ENGINE = "engine:1"


def _stopped_game_id(terminal: Terminal) -> str:
    found = re.search(r"chessatron play --resume (\w+) continues it", terminal.text)
    assert found is not None, f"no way on was said:\n{terminal.text[-2000:]}"
    return found.group(1)


def test_ctrl_c_at_the_move_prompt_stops_saved_and_the_game_goes_on_with_its_engine(tmp_path: Path) -> None:
    with Terminal(["play", "--white", "keyboard", "--black", ENGINE], tmp_path) as terminal:
        terminal.expect(r"White to move: ")
        terminal.line("e4")
        terminal.expect(r"1\.\.\. \S+ +engine:1[\s\S]*White to move: ")
        terminal.press("ctrl-c")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
        game_id = _stopped_game_id(terminal)
    with Terminal(["play", "--resume"], tmp_path) as resumed:
        resumed.expect(rf"game {game_id}")
        resumed.expect(r"White to move: ")
        resumed.expect_screen(r"1\. e4")  # the move typed before Ctrl-C was kept
        resumed.line("d4")
        resumed.expect(r"2\.\.\. \S+ +engine:1")  # the engine answers: it was not killed by the Ctrl-C
        resumed.expect(r"White to move: ")
        resumed.press("ctrl-c")  # after a resume too
        assert resumed.exit_status() == 130
        resumed.assert_clean()
        assert _stopped_game_id(resumed) == game_id


def test_ctrl_c_at_a_clock_s_prompt_and_at_another_game(tmp_path: Path) -> None:
    # a prompt with a clock is read on a thread of its own, so that a falling flag can give it up
    with Terminal(["play", "--white", "keyboard", "--black", ENGINE, "--clock", "5+0"], tmp_path) as terminal:
        terminal.expect(r"\[\d:\d\d\] White to move: ")
        terminal.line("e4")
        terminal.expect(r"1\.\.\. \S+ +engine:1[\s\S]*White to move: ")
        terminal.press("ctrl-c")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
        _stopped_game_id(terminal)
    # a game that ended asks for another; Ctrl-C there stops the program too
    with Terminal(["play", "--white", "keyboard", "--black", ENGINE, "--fresh"], tmp_path / "again") as again:
        again.expect(r"White to move: ")
        again.line("resign")
        again.expect(r"Another game\? \[y/N\] ")
        again.press("ctrl-c")
        assert again.exit_status() == 130
        again.assert_clean()


def test_ctrl_c_at_a_puzzle_s_prompt(tmp_path: Path) -> None:
    with Terminal(["puzzles", "--player", "keyboard", "--count", "2", "--seed", "1"], tmp_path) as terminal:
        terminal.expect(r"(White|Black) to move: ")
        terminal.press("ctrl-c")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
        terminal.expect(r"interrupted")


def test_ctrl_c_while_the_robot_works_stops_it_at_a_safe_point(tmp_path: Path) -> None:
    # engine against engine at the machine's own pace: the Ctrl-C finds the robot dragging or an engine
    # thinking, never a prompt
    args = ["play", "--white", ENGINE, "--black", ENGINE, "--speed", "1"]
    with Terminal(args, tmp_path) as terminal:
        terminal.expect(r"1\. \S+ +engine:1")
        terminal.press("ctrl-c")
        assert terminal.exit_status() == 130
        terminal.assert_clean()
        game_id = _stopped_game_id(terminal)
    with Terminal(["play", "--resume", game_id, "--max-plies", "4"], tmp_path) as resumed:
        resumed.expect(r"stopped after \d+ moves?")
        assert resumed.exit_status() == 0
        resumed.assert_clean()


@pytest.mark.parametrize("answer", ["ctrl-c", "ctrl-d"])
def test_a_question_of_click_s_own_stops_the_command(tmp_path: Path, answer: str) -> None:
    # ``online login`` asks for the token at the terminal, hidden as it is typed
    with Terminal(["online", "login"], tmp_path) as terminal:
        terminal.expect(r"paste the token: ")
        terminal.press(answer)
        status = terminal.exit_status()
        terminal.assert_clean()
        assert status == (130 if answer == "ctrl-c" else 1)
        assert "interrupted" in terminal.text if answer == "ctrl-c" else "Aborted" in terminal.text
