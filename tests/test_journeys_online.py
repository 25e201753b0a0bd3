"""Online on lichess, as the manual tells it and a person takes it at a real terminal
(:mod:`tests.journeys`), against the fake lichess server of :mod:`tests.fake_lichess`: ``online login``
with the token pasted (never shown), then a game against the lichess AI typed at the prompt, a typo
explained on the way, resigned: the server has the game over, and the game is saved."""

from __future__ import annotations

from pathlib import Path

from tests.fake_lichess import FakeLichess
from tests.journeys import Terminal

TOKEN = "lip_ann_token_1"


def test_login_then_a_game_against_the_lichess_ai_typed_at_the_terminal(tmp_path: Path) -> None:
    with FakeLichess() as fake:
        fake.add_user("Ann", TOKEN)
        with Terminal(["online", "login", "--url", fake.url], tmp_path) as login:
            login.expect(r"make a personal API token at http://\S+/account/oauth/token/create")
            login.expect(r"paste the token: ")
            login.line(TOKEN)
            login.expect(r"logged in as Ann on http://")
            assert login.exit_status() == 0
            assert TOKEN not in login.text  # a hidden prompt: the token is not echoed
        args = ["online", "--player", "keyboard", "--ai", "1", "--color", "white", "--url", fake.url]
        with Terminal(args, tmp_path) as game:
            game.expect(r"started game (\w+) against the lichess AI level 1")
            game.expect(r"White to move: ")
            game.line("e5")
            game.expect(r"no white pawn can go to e5")
            game.line("e4")
            game.expect(r"1\.\.\. \S+[\s\S]*White to move: ")
            game.line("resign")
            game.expect(r"White resigns: Black wins \(0-1\)")
            saved = game.expect(r"game (\w+) saved \(1 move\)").group(1)
            assert game.exit_status() == 0
            game.assert_clean()
        (played,) = fake.games.values()
        assert played.over and played.uci_moves()[0] == "e2e4"
    with Terminal(["games", "--export", saved], tmp_path) as exported:
        exported.expect(r'\[Site "http://127\.0\.0\.1:\d+/\w+"\]')
        exported.expect(r"1\. e4 ")
        assert exported.exit_status() == 0
