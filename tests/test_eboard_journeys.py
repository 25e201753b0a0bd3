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
from playwright.sync_api import Browser, expect

from chessatron.config import Config
from chessatron.eboard.serve import EboardOptions, serve_eboard
from tests.browser import browser_fixture, open_page  # noqa: F401 (the module's browser)
from tests.eboard_clients.play import HAND, Loopback, client_for, is_over, person_after, play_game, wait_any
from tests.eboard_clients.pty import serial_line
from tests.journeys import Terminal

#: What a line carries besides an app's messages: bytes with the parity bit set, noise, a message cut
#: short (ChessLink's checksummed text; DGT's single bytes, a clock message's start).
NOISE = {
    "millennium": bytes([0xD3, 0x80, 0xFF, 0x00])
    + b"V5"
    + b"\x07garbage"
    + b"L32"
    + bytes(range(0x80, 0x90)),
    "dgt": bytes([0x00, 0x7F, 0x99, 0x2B, 0x05]) + bytes(range(0xF0, 0x100)),
}


@pytest.mark.parametrize("protocol", ["millennium", "dgt"])
def test_a_whole_game_against_an_app_on_a_serial_line(
    tmp_path: Path, protocol: str, browser: Browser
) -> None:
    with serial_line() as (link, port):
        args = [
            "eboard",
            protocol,
            "--port",
            port,
            "--hand",
            HAND,
            "--games",
            "1",
            "--web",
            "--web-port",
            "0",
        ]
        with Terminal(args, tmp_path) as table:
            table.expect("waiting for the app")
            url = table.expect(r"the game on the web page: (\S+)")[1]
            link.write(NOISE[protocol])  # what a line carries before the app speaks
            client = client_for(protocol, link)
            client.connect()

            def noise(ply: int) -> None:
                if ply == 10:
                    link.write(NOISE[protocol])

            if protocol == "millennium":  # the page says which app is connected, and how
                page = open_page(browser, url, 390, 844, touch=True).page
                expect(page.locator("#eboard")).to_contain_text("millennium over serial")
                expect(page.locator("#eboard")).to_contain_text("ChessLink app connected")
            game = play_game(client, seed=len(protocol), between=noise)
            assert "connected" in table.text
            if is_over(game):
                table.expect(r"1-0|0-1|1/2-1/2", timeout_s=30)
                assert table.exit_status(timeout_s=60) == 0
            else:  # no mate in the plies played: the person stops the table, the game kept
                table.press("ctrl-c")
                assert table.exit_status(timeout_s=60) == 130
            table.assert_clean()
    with Terminal(["games"], tmp_path) as listed:
        listed.expect("e-board app")
        assert listed.exit_status() == 0


def test_ctrl_c_stops_the_table_mid_game_saved(tmp_path: Path) -> None:
    with (
        serial_line() as (link, port),
        Terminal(["eboard", "millennium", "--port", port, "--hand", HAND], tmp_path) as table,
    ):
        table.expect("waiting for the app")
        client = client_for("millennium", link)
        client.connect()
        game = play_game(client, seed=3, max_plies=6)
        assert len(game.move_stack) == 6
        table.press("ctrl-c")
        assert table.exit_status(timeout_s=60) == 130
        table.expect("interrupted")
        table.assert_clean()
    with Terminal(["games"], tmp_path) as listed:
        listed.expect(r"e-board app +standard +\d+ +in progress")
        assert listed.exit_status() == 0
    # served again, the table goes on with the game: the app finds it as it was
    with (
        serial_line() as (link, port),
        Terminal(["eboard", "millennium", "--port", port, "--hand", HAND], tmp_path) as table,
    ):
        table.expect("going on with game")
        client = client_for("millennium", link)
        client.connect()
        assert wait_any(client, {game.board_fen(), *person_after(game)}) in {
            game.board_fen(),
            *person_after(game),
        }
        table.press("ctrl-c")
        assert table.exit_status(timeout_s=60) == 130


def test_without_bluetooth_the_table_says_what_to_do_in_one_line(tmp_path: Path) -> None:
    with Terminal(["eboard", "cpp", "--ble"], tmp_path) as table:
        assert table.exit_status(timeout_s=60) == 2
        lines = [line for line in table.text.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("chessatron: "), lines
        assert "bluez" in lines[0].lower() or "bluetooth" in lines[0].lower()
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
