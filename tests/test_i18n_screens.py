"""The terminal in each language at a phone's and a desktop's size, as a person meets it: ``chessatron play
--lang CODE`` at a real terminal, a move typed with the language's piece letters, an illegal one refused with
its reason in the language, the engine's reply. What the screen shows is kept in ``test-artifacts/`` (the
screenshots of the issue), and checked: the prompt and the reason in the language, whole (a word cut at the
edge would show split), the table's boxes closed, nothing cut short with an ellipsis.

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


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_terminal_speaks_the_language_whole_at_a_phones_and_a_desktops_size(
    tmp_path: Path, language: str, size: str
) -> None:
    columns, rows = SIZES[size]
    board = chess.Board()
    typed_wrong = san_in("Ne5", language)  # no knight of White's can go to e5
    typed_right = san_in("Nf3", language)
    with using(language):
        prompt = _("White to move: ").strip()
        refused = parse_command(typed_wrong, board)
    assert isinstance(refused, Rejection)
    args = ["play", "--lang", language, "--white", "keyboard", "--black", "engine:1:depth=1"]
    with Terminal(args, tmp_path, columns=columns, rows=rows) as terminal:
        terminal.expect(re.escape(prompt))
        terminal.line(typed_wrong)
        terminal.expect(re.escape(refused.reason.split()[-1]))
        terminal.line(typed_right)
        terminal.expect(re.escape(f"1. {typed_right}"))
        terminal.expect(r"1\.\.\. ")
        terminal.expect(re.escape(prompt))
        screen = terminal.screen()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / f"terminal-{language}-{size}.txt").write_text(screen, encoding="utf-8")
        text = terminal.text
        terminal.press("ctrl-c")
        terminal.exit_status()
    # the reason whole, in the language: a word cut at the screen's edge would stand split in two
    assert _words(refused.reason) in _words(text), (refused.reason, text[-2000:])
    lines = screen.splitlines()
    assert any(prompt in line for line in lines)
    for line in lines:
        shown = line.rstrip()
        assert len(shown) <= columns
        if shown.lstrip().startswith(("╭", "│", "╰")):
            assert shown.endswith(("╮", "│", "╯")), f"a box left open at {columns} columns: {shown!r}"
        assert "…" not in shown, f"text cut short at {columns} columns: {shown!r}"
