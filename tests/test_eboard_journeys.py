"""The table as an app's e-board, the way an app uses it: ``chessatron eboard PROTOCOL --port PTY`` run at a
terminal, an app written from the protocol's specification (tests/eboard_clients) on the other end of the
serial line, a simulated person playing White at the simulated sensors and the app Black. A whole game:
at every ply the app's view and the table's agree, every move of the app is made by the robot.

The protocols served over Bluetooth LE are played the same way through the same core (``serve_eboard``)
with a loopback in place of the thin Bluetooth transport (tests/test_eboard_ble.py tests that one).
"""

from __future__ import annotations

import importlib
import queue
import random
import threading
import time
from pathlib import Path
from typing import Any

import chess
import pytest

from chessatron.config import Config
from chessatron.eboard.core import EboardProtocol
from chessatron.eboard.serve import EboardOptions, serve_eboard
from tests.eboard_clients.base import AppClient, Link
from tests.eboard_clients.pty import serial_line
from tests.journeys import Terminal

#: The hand's level: Stockfish at one ply, quick and strong enough to end a game against a random app.
HAND = "white:20:depth=1"
#: An app plays at random, captures and checks first: the games end (mostly by the hand's mate) in tens
#: of plies and pass through captures, castling, promotions now and then.
MAX_PLIES = 160


def client_for(protocol: str, link: Link, **kwargs: Any) -> AppClient:
    module = importlib.import_module(f"tests.eboard_clients.{protocol}")
    cls = next(
        value
        for name, value in vars(module).items()
        if name.endswith("Client")
        and isinstance(value, type)
        and issubclass(value, AppClient)
        and value is not AppClient
    )
    return cls(link, **kwargs)


def app_move(board: chess.Board, rng: random.Random) -> chess.Move:
    """An app's move: mate if it has one, else a capture or a check, else any (the games stay short)."""
    moves = list(board.legal_moves)
    for move in moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return move
    sharp = [move for move in moves if board.is_capture(move) or board.gives_check(move)]
    return rng.choice(sharp or moves)


def is_over(board: chess.Board) -> bool:
    """Over for the table: mate or stalemate (the app rules on draws by rule)."""
    return board.is_checkmate() or board.is_stalemate()


def play_game(client: AppClient, *, seed: int, app_colour: chess.Color = chess.BLACK) -> chess.Board:
    """The app's side of one game: the person's moves read from the board's reports (each one legal move
    on), the app's shown and waited for until the table reports them made. Returns the game, at its end or
    after :data:`MAX_PLIES` (or a draw by material: no mate left)."""
    rng = random.Random(seed)
    board = chess.Board()
    assert client.wait_fen(board.board_fen(), timeout=30) == board.board_fen(), "the app never saw the start"
    while not is_over(board) and len(board.move_stack) < MAX_PLIES and not board.is_insufficient_material():
        if board.turn == app_colour:
            move = app_move(board, rng)
            client.show_move(board, move)
            board.push(move)
            seen = client.wait_fen(board.board_fen(), timeout=30)
            assert seen == board.board_fen(), f"the robot did not make the app's {move.uci()}"
            client.clear()
            continue
        move = person_move(client, board)
        board.push(move)
    return board


def person_move(client: AppClient, board: chess.Board, timeout: float = 30.0) -> chess.Move:
    """The person's move as the app sees it: the board's view one legal move on from ``board`` (a piece
    in the air on the way is no move yet)."""
    after = {}
    for move in board.legal_moves:
        board.push(move)
        after[board.board_fen()] = move
        board.pop()
    deadline = time.monotonic() + timeout
    seen = board.board_fen()
    while time.monotonic() < deadline:
        seen = client.board_fen(timeout=max(0.1, deadline - time.monotonic()))
        if seen in after:
            return after[seen]
        time.sleep(0.01)
    raise AssertionError(f"the person's move never reached the app: it sees {seen} after {board.fen()}")


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


class Loopback:
    """The Bluetooth LE transport's place, in the test's process: what the app writes reaches the protocol
    (under the table's lock, as the real transport does), what the protocol sends reaches the app."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.notice = lambda message: None
        self.to_board: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self.to_app: queue.Queue[tuple[str, bytes]] = queue.Queue()

    def send(self, data: bytes, channel: str = "") -> None:
        self.to_app.put((channel, bytes(data)))

    def serve(self, protocol: EboardProtocol, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                channel, data = self.to_board.get(timeout=0.01)
            except queue.Empty:
                channel, data = "", b""
            with self.lock:
                if data:
                    protocol.received(data, channel)
                protocol.tick(time.monotonic())

    def link(self) -> Link:
        loop = self

        class AppEnd(Link):
            def write(self, data: bytes, channel: str = "") -> None:
                loop.to_board.put((channel, bytes(data)))

            def read(self, timeout: float) -> tuple[str, bytes] | None:
                try:
                    return loop.to_app.get(timeout=timeout)
                except queue.Empty:
                    return None

        return AppEnd()


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
