"""The table as an app's e-board, the way an app uses it: ``chessatron eboard PROTOCOL --port PTY`` run at a
terminal, an app written from the protocol's specification (tests/eboard_clients) on the other end of the
serial line, a simulated person playing White at the simulated sensors and the app Black. A whole game:
at every ply the app's view and the table's agree, every move of the app is made by the robot.

The protocols served over Bluetooth LE are played the same way through the same core (``serve_eboard``)
with a loopback in place of the thin Bluetooth transport (tests/test_eboard_ble.py tests that one).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import pytest
from playwright.sync_api import Browser, expect

from chessatron.config import Config
from chessatron.eboard.serve import EboardOptions, serve_eboard
from chessatron.game.records.record import GameRecord
from chessatron.game.records.store import latest_resumable, list_games, load_game
from tests.browser import browser_fixture, open_page  # noqa: F401 (the module's browser)
from tests.eboard_clients.cpp import CppClient
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


@dataclass
class Served:
    """A table served in the test's thread of control's shadow: the loopback the app talks over, what the
    table said, the games it finished, and what stopped it."""

    loop: Loopback = field(default_factory=Loopback)
    stop: threading.Event = field(default_factory=threading.Event)
    said: list[dict[str, Any]] = field(default_factory=list)
    records: list[GameRecord] = field(default_factory=list)
    failed: list[BaseException] = field(default_factory=list)


@contextmanager
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, protocol: str) -> Iterator[Served]:
    """``serve_eboard`` for ``protocol`` over the loopback, a simulated person playing White; stopped at
    the end of the block if its game is not over."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    table = Served()
    chosen = EboardOptions(
        protocol=protocol,
        transport="ble",
        hand_colour=chess.WHITE,
        hand_level="20:depth=1",
        games=1,
        speed=None,
        games_dir=tmp_path / "games",
    )

    def serve() -> None:
        try:
            table.records.extend(
                serve_eboard(
                    Config.default(),
                    chosen,
                    say=lambda event, game: table.said.append(event),
                    stop=table.stop,
                    transport=table.loop,
                )
            )
        except BaseException as exc:  # the test's thread tells it
            table.failed.append(exc)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield table
    finally:
        thread.join(5)
        table.stop.set()
        thread.join(60)
    assert not thread.is_alive()
    assert any(event.get("what") == "connected" for event in table.said)


@pytest.mark.parametrize(
    ("protocol", "options"), [("chessnut", {"model": "air"}), ("chessnut", {"model": "move"}), ("cpp", {})]
)
def test_a_whole_game_against_an_app_over_bluetooth_le(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, protocol: str, options: dict[str, Any]
) -> None:
    with served(tmp_path, monkeypatch, protocol) as table:
        client = client_for(protocol, table.loop.link(), **options)
        client.connect()
        game = play_game(client, seed=7)
    if is_over(game):
        assert not table.failed, table.failed
        [record] = table.records
        assert [move.uci() for move in record.moves] == [move.uci() for move in game.move_stack]
    else:  # no mate in the plies played: stopped, the game kept
        assert [type(exc) for exc in table.failed] == [KeyboardInterrupt]


def test_the_app_starts_a_chess960_game_and_the_robot_sets_it_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = chess.Board.from_chess960_pos(300)
    start.chess960 = True
    with served(tmp_path, monkeypatch, "cpp") as table:
        client = CppClient(table.loop.link(), start)  # blichess begins a Chess960 game
        client.connect()
        assert client.variant == "chess_960"
        game = play_game(client, seed=11, start=start, max_plies=10)
    assert [type(exc) for exc in table.failed] == [KeyboardInterrupt]  # stopped after ten plies
    summary = latest_resumable(tmp_path / "games")
    assert summary is not None
    record = load_game(summary.game_id, tmp_path / "games")
    assert record.start_fen == start.fen()
    played = [move.uci() for move in game.move_stack]
    assert [move.uci() for move in record.moves][: len(played)] == played, (record.moves, played)
    assert len(list_games(tmp_path / "games")) == 1  # the standard game it left before a move: gone
