"""The README's and the manual's terminal journeys, each taken as a person takes it: the program at a real
terminal (:mod:`tests.journeys`), read off the screen, with the keys a person presses: a typo and an
illegal move at the prompt, Tab, the Up arrow, the commands, the end of input (Ctrl-D). Ctrl-C at every
prompt is :mod:`tests.test_journey_ctrl_c`'s; the page's journeys are the browser tests'.

The simulator runs at ``--speed max`` and the engine at a low level, so that each journey takes seconds."""

from __future__ import annotations

import re
from pathlib import Path

import chess.pgn

from tests.journeys import Terminal

#: A live view's table and panel lines, which the view redraws: what is left are the lines it prints.
_PANELS = re.compile(r"[│╭╰][^\n]*[│╮╯]")


def printed(terminal: Terminal) -> str:
    """What the program printed as lines (moves, reasons, notices), the live view's boxes taken out."""
    return _PANELS.sub("", terminal.text)


def test_a_game_typed_at_the_terminal(tmp_path: Path) -> None:
    """README, Three ways to play; At the terminal: moves typed as SAN or UCI, a typo and an illegal move
    explained, help, Tab completing a move, the Up arrow, hint, takeback, a draw offer, resign, and
    *Another game?* answered no."""
    with Terminal(["play", "--white", "keyboard", "--black", "engine:5"], tmp_path) as terminal:
        terminal.expect(r"White to move: ")
        assert "8" in terminal.screen() and "a  b  c  d  e  f  g  h" in terminal.screen()  # the table
        terminal.line("e9")
        terminal.expect(r"unknown input 'e9'; type a move like e2e4 or Nf3, or 'help'")
        terminal.line("Bb5")
        terminal.expect(r"the bishop on f1 cannot get to b5: the way is blocked at e2")
        terminal.line("help")
        terminal.expect(r"or a command: hint \(h\), takeback \(undo\), draw")
        terminal.mark()
        terminal.type("Nf")
        terminal.press("tab")  # the only move that fits: Nf3
        terminal.expect(r"Nf3")
        terminal.press("enter")
        terminal.expect(r"1\. Nf3 +keyboard")
        terminal.expect(r"1\.\.\. \S+ +engine:5")
        terminal.expect(r"White to move: ")
        terminal.line("hint")
        terminal.expect(r"hint: \S+")
        terminal.mark()
        terminal.line("takeback")
        terminal.expect_screen(r"no moves yet")  # the robot put both moves back
        terminal.expect(r"White to move: ")
        terminal.line("e2e4")
        terminal.expect(r"1\. e4 +keyboard[\s\S]*White to move: ")
        terminal.line("draw")
        terminal.expect(r"declines the draw")
        terminal.mark()
        terminal.press("up")  # what was typed before comes back
        terminal.expect(r"draw")
        terminal.press(*"\x7f" * 4)
        terminal.line("resign")
        terminal.expect(r"White resigns: Black wins \(0-1\)")
        terminal.expect(r"game (\w+) saved")
        terminal.expect(r"Another game\? \[y/N\] ")
        terminal.line("n")
        assert terminal.exit_status() == 0
        terminal.assert_clean()


def test_quit_then_resume_then_the_end_of_input(tmp_path: Path) -> None:
    """Stopping and going on: quit (saved, exit 0), ``play --resume`` shows the game where it stood, and
    Ctrl-D (the end of input) stops it saved again."""
    with Terminal(["play", "--white", "keyboard", "--black", "engine:3"], tmp_path) as terminal:
        terminal.expect(r"White to move: ")
        terminal.line("d4")
        terminal.expect(r"1\.\.\. \S+ +engine:3[\s\S]*White to move: ")
        terminal.line("quit")
        found = terminal.expect(r"game (\w+) stopped after 1 move: chessatron play --resume \1 continues it")
        assert terminal.exit_status() == 0
        terminal.assert_clean()
    game_id = found.group(1)
    with Terminal(["play", "--resume"], tmp_path) as resumed:
        resumed.expect(rf"game {game_id}")
        resumed.expect(r"White to move: ")
        resumed.expect_screen(r"1\. d4 \S+")
        resumed.press("ctrl-d")
        resumed.expect(rf"game {game_id} stopped after 1 move")
        assert resumed.exit_status() == 0
        resumed.assert_clean()
    with Terminal(["games"], tmp_path) as listed:
        listed.expect(rf"{game_id} .* keyboard +engine:3 +standard +1 +in progress")
        listed.expect(r"chessatron play --resume continues the latest game in progress")
        assert listed.exit_status() == 0


def test_a_simulated_person_plays_chess960_at_the_sensor_board(tmp_path: Path) -> None:
    """README: ``play --white hand --black engine --chess960``: the simulator's hands move the pieces,
    the sensors see them, the recognizer reads the moves."""
    args = ["play", "--white", "hand", "--black", "engine:1", "--chess960", "--max-plies", "6"]
    with Terminal(args, tmp_path) as terminal:
        terminal.expect(r"game \w+: Chess960 start \d+ \([BKNQR]{8}\), White hand vs Black engine:1")
        terminal.expect(r"3\.\.\. \S+ +engine:1")
        terminal.expect(r"stopped after 3 moves")
        assert terminal.exit_status() == 0
        terminal.assert_clean()
        assert re.search(r"1\. \S+ +hand", printed(terminal))


def test_the_games_listed_newest_first_exported_and_abandoned(tmp_path: Path) -> None:
    """Saved games: ``games`` (the newest first), ``games --export ID`` (PGN), ``games --abandon ID``."""
    ids = []
    for opening in ("e4", "d4"):
        with Terminal(["play", "--white", "keyboard", "--black", "engine:1"], tmp_path) as terminal:
            terminal.expect(r"White to move: ")
            terminal.line(opening)
            terminal.expect(r"1\.\.\. \S+ +engine:1[\s\S]*White to move: ")
            terminal.line("quit")
            ids.append(terminal.expect(r"game (\w+) stopped").group(1))
            assert terminal.exit_status() == 0
    with Terminal(["games"], tmp_path) as listed:
        listed.expect(r"chessatron play --resume continues the latest game in progress, --resume ID another")
        assert listed.exit_status() == 0
        rows = [line for line in listed.text.splitlines() if line.startswith(tuple(ids))]
        assert [row.split()[0] for row in rows] == ids[::-1]  # the newest first
    with Terminal(["games", "--export", ids[0]], tmp_path) as exported:
        assert exported.exit_status() == 0
    game = chess.pgn.read_game(__import__("io").StringIO(exported.text))
    assert game is not None and game.next() is not None and game.next().san() == "e4"  # type: ignore[union-attr]
    with Terminal(["games", "--abandon", ids[0]], tmp_path) as abandoned:
        abandoned.expect(rf"game {ids[0]} abandoned: 'chessatron play --resume' no longer offers it")
        assert abandoned.exit_status() == 0


def test_the_table_set_up_from_the_terminal(tmp_path: Path) -> None:
    """``setup 412:87`` then ``setup 518``: the robot rearranges the simulated table; a FEN typed without
    quotes is explained; a start that does not exist is refused."""
    with Terminal(["setup", "412:87"], tmp_path) as terminal:
        terminal.expect(r"set up Double Fischer Random start #412/#87: \d+ pieces moved")
        assert terminal.exit_status() == 0
        terminal.assert_clean()
    with Terminal(["setup", "518"], tmp_path) as terminal:
        terminal.expect(r"set up [^:]*518[^:]*: \d+ pieces moved")
        assert terminal.exit_status() == 0
    fen = ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", "b", "KQkq", "-", "0", "1"]
    with Terminal(["setup", *fen], tmp_path) as terminal:
        terminal.expect(r"a FEN has spaces, so put it in quotes")
        assert terminal.exit_status() == 2
    with Terminal(["setup", "960"], tmp_path) as terminal:
        terminal.expect(r"960")
        assert terminal.exit_status() == 2
        terminal.assert_clean()


def test_the_demo_plays_and_resets_the_table(tmp_path: Path) -> None:
    """``make demo`` runs ``chessatron demo``: the showcase game with the live view, then the reset; the
    picture of the table and every path is written."""
    with Terminal(["demo", "--speed", "max", "--picture", "demo.svg"], tmp_path) as terminal:
        terminal.expect(r"no twin violations", timeout_s=120)
        assert terminal.exit_status(120) == 0
        terminal.assert_clean()
        assert "reset:" in terminal.text
    svg = (tmp_path / "demo.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and svg.count('class="path"') > 50
    assert (tmp_path / "demo.html").exists()
