"""The terminal in each language at a phone's and then a desktop's size, as a person meets it: ``chessatron
play --lang CODE`` at a real terminal, an illegal move refused with its reason in the language, a move typed
with the language's piece letters, the engine's reply; then the window made wide and the same again. What
the screen shows is kept in ``test-artifacts/languages/`` (the screenshots of the issue), and checked: the
prompt and the reasons in the language, whole (a word cut at the edge would show split), the table's boxes
closed, nothing cut short with an ellipsis.

The page's screenshots in every language are :mod:`tests.test_i18n_web`'s."""

from __future__ import annotations

import re
from pathlib import Path

import chess
import pytest

from chessatron.game.players.notation import Rejection, parse_command
from chessatron.i18n import LANGUAGES, _, using
from chessatron.i18n.notation import san_in
from tests.journeys import Terminal

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "languages"

#: A phone (390 x 844 points: 44 columns of a terminal app's usual font) and a desktop (1440 x 900).
SIZES = {"phone": (44, 48), "desktop": (160, 50)}


def _words(text: str) -> str:
    return " ".join(text.split())


def _refusal(typed: str, board: chess.Board, language: str) -> str:
    with using(language):
        refused = parse_command(typed, board)
    assert isinstance(refused, Rejection), typed
    return refused.reason


def _check_screen(screen: str, columns: int, prompt: str) -> None:
    lines = screen.splitlines()
    assert any(prompt in line for line in lines), screen
    for line in lines:
        shown = line.rstrip()
        assert len(shown) <= columns
        if shown.lstrip().startswith(("╭", "│", "╰")):
            assert shown.endswith(("╮", "│", "╯")), f"a box left open at {columns} columns: {shown!r}"
        assert "…" not in shown, f"text cut short at {columns} columns: {shown!r}"


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_terminal_speaks_the_language_whole_at_a_phones_and_a_desktops_size(
    tmp_path: Path, language: str
) -> None:
    with using(language):
        prompt = _("White to move: ").strip()
    board = chess.Board()
    knight_wrong, knight = san_in("Ne5", language), san_in("Nf3", language)  # no knight can go to e5
    first_reason = _refusal(knight_wrong, board, language)
    board.push_san("Nf3")
    board.push_san("a6")
    bishop_wrong = san_in("Bb5", language)  # the bishop on f1 is blocked at e2, whatever Black replied
    second_reason = _refusal(bishop_wrong, board, language)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    args = ["play", "--lang", language, "--white", "keyboard", "--black", "engine:1:depth=1"]
    columns, rows = SIZES["phone"]
    with Terminal(args, tmp_path, columns=columns, rows=rows) as terminal:
        terminal.expect(re.escape(prompt))
        terminal.line(knight_wrong)
        terminal.expect(re.escape(first_reason.split()[-1]))
        terminal.line(knight)
        terminal.expect(re.escape(f"1. {knight}"))
        terminal.expect(r"1\.\.\. ")
        terminal.expect(re.escape(prompt))
        phone = terminal.screen()
        (ARTIFACTS / f"terminal-{language}-phone.txt").write_text(phone, encoding="utf-8")
        columns, rows = SIZES["desktop"]
        terminal.resize(columns, rows)
        terminal.line(bishop_wrong)
        terminal.expect(re.escape(second_reason.split()[-1]))
        terminal.line("e3")
        terminal.expect(r"2\. e3")
        terminal.expect(r"2\.\.\. ")
        terminal.expect(re.escape(prompt))
        desktop = terminal.screen()
        (ARTIFACTS / f"terminal-{language}-desktop.txt").write_text(desktop, encoding="utf-8")
        text = terminal.text
        terminal.press("ctrl-c")
        terminal.exit_status()
    # the reasons whole, in the language: a word cut at the screen's edge would stand split in two
    for reason in (first_reason, second_reason):
        assert _words(reason) in _words(text), (reason, text[-2000:])
    _check_screen(phone, SIZES["phone"][0], prompt)
    _check_screen(desktop, SIZES["desktop"][0], prompt)
