"""The table as an app's e-board, the way an app uses it: ``chessatron eboard PROTOCOL --port PTY`` run at a
terminal, an app written from the protocol's specification (tests/eboard_clients) on the other end of the
serial line, a simulated person playing White at the simulated sensors and the app Black. A whole game:
at every ply the app's view and the table's agree, every move of the app is made by the robot.

The protocols served over Bluetooth LE are played the same way through the same core (``serve_eboard``)
with a loopback in place of the thin Bluetooth transport (tests/test_eboard_ble.py tests that one).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import chess
import pytest

from chessatron.config import Config
from chessatron.eboard.serve import EboardOptions, serve_eboard
from tests.eboard_clients.play import HAND, Loopback, client_for, is_over, play_game
from tests.eboard_clients.pty import serial_line
from tests.journeys import Terminal


@pytest.mark.parametrize("protocol", ["millennium", "dgt"])
def test_a_whole_game_against_an_app_on_a_serial_line(tmp_path: Path, protocol: str) -> None:
    with serial_line() as (link, port):
        args = ["eboard", protocol, "--port", port, "--hand", HAND, "--games", "1"]
        with Terminal(args, tmp_path) as table:
            table.expect("waiting for the app")
            client = client_for(protocol, link)
            client.connect()
            game = play_game(client, seed=len(protocol))
            assert "connected" in table.text
            if is_over(game):
                table.expect(r"1-0|0-1|1/2-1/2", timeout_s=30)
                assert table.exit_status(timeout_s=60) == 0
            else:  # no mate in the plies played: the person stops the table, the game kept
                table.press("ctrl-c")
                assert table.exit_status(timeout_s=60) == 130
            table.assert_clean()


@pytest.mark.parametrize(
    ("protocol", "options"), [("chessnut", {"model": "air"}), ("chessnut", {"model": "move"}), ("cpp", {})]
)
def test_a_whole_game_against_an_app_over_bluetooth_le(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, protocol: str, options: dict[str, Any]
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    loop = Loopback()
    stop = threading.Event()
    said: list[dict[str, Any]] = []
    records: list[Any] = []
    failed: list[BaseException] = []
    chosen = EboardOptions(
        protocol=protocol,
        transport="ble",
        hand_colour=chess.WHITE,
        hand_level="20:depth=1",
        games=1,
        speed=None,
        games_dir=tmp_path / "games",
    )

    def table() -> None:
        try:
            records.extend(
                serve_eboard(
                    Config.default(),
                    chosen,
                    say=lambda event, game: said.append(event),
                    stop=stop,
                    transport=loop,
                )
            )
        except BaseException as exc:  # the test's thread tells it
            failed.append(exc)

    thread = threading.Thread(target=table, daemon=True)
    thread.start()
    client = client_for(protocol, loop.link(), **options)
    client.connect()
    game = play_game(client, seed=7)
    if not is_over(game):
        stop.set()  # no mate in the plies played: stopped, the game kept
    thread.join(60)
    assert not thread.is_alive()
    if is_over(game):
        assert not failed, failed
        [record] = records
        assert [move.uci() for move in record.moves] == [move.uci() for move in game.move_stack]
    else:
        assert [type(exc) for exc in failed] == [KeyboardInterrupt]
    assert any(event.get("what") == "connected" for event in said)
