"""An app's side of whole games against the table, for the journeys and the latency benchmark: the app
chosen by protocol, its moves, the game played through its client, and a loopback in place of the thin
Bluetooth LE transport (what the app writes reaches the protocol under the table's lock)."""

from __future__ import annotations

import importlib
import queue
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import chess

from chessatron.eboard.core import EboardProtocol

from .base import AppClient, Link

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


def play_game(
    client: AppClient,
    *,
    seed: int,
    app_colour: chess.Color = chess.BLACK,
    start: chess.Board | None = None,
    max_plies: int = MAX_PLIES,
    between: Callable[[int], None] | None = None,
) -> chess.Board:
    """The app's side of one game: the person's moves read from the board's reports (each one legal move
    on), the app's shown and waited for until the table reports them made. Returns the game, at its end or
    after :data:`MAX_PLIES` (or a draw by material: no mate left)."""
    rng = random.Random(seed)
    board = start.copy() if start is not None else chess.Board()
    # the start, or the person's first move made already (the game begins once the app has spoken)
    first = {board.board_fen(), *person_after(board)} if board.turn != app_colour else {board.board_fen()}
    assert wait_any(client, first, timeout=60) in first, "the app never saw the start"
    while not is_over(board) and len(board.move_stack) < max_plies and not board.is_insufficient_material():
        if between is not None:
            between(len(board.move_stack))
        if board.turn == app_colour:
            move = app_move(board, rng)
            client.show_move(board, move)
            board.push(move)
            # made by the robot: seen as it stands, or with the person's answer made already
            wanted = {board.board_fen(), *person_after(board)}
            seen = wait_any(client, wanted)
            assert seen in wanted, f"the robot did not make the app's {move.uci()}: the app sees {seen}"
            if not is_over(board):  # (after mate the table may be gone already)
                client.clear()
            continue
        move = person_move(client, board)
        board.push(move)
    return board


def wait_any(client: AppClient, wanted: set[str], timeout: float = 30.0) -> str:
    """Wait until the app sees one of the placements ``wanted``; the last seen after ``timeout``."""
    deadline = time.monotonic() + timeout
    seen = client.board_fen(timeout=1.0)
    while seen not in wanted and time.monotonic() < deadline:
        time.sleep(0.01)
        seen = client.board_fen(timeout=max(0.1, min(1.0, deadline - time.monotonic())))
    return seen


def person_after(board: chess.Board) -> dict[str, chess.Move]:
    """The placements one legal move on from ``board`` (FEN board parts), with their moves."""
    after = {}
    for move in board.legal_moves:
        board.push(move)
        after[board.board_fen()] = move
        board.pop()
    return after


def person_move(client: AppClient, board: chess.Board, timeout: float = 30.0) -> chess.Move:
    """The person's move as the app sees it: the board's view one legal move on from ``board`` (a piece
    in the air on the way is no move yet)."""
    after = person_after(board)
    deadline = time.monotonic() + timeout
    seen = board.board_fen()
    while time.monotonic() < deadline:
        seen = client.board_fen(timeout=max(0.1, deadline - time.monotonic()))
        if seen in after:
            return after[seen]
        time.sleep(0.01)
    raise AssertionError(f"the person's move never reached the app: it sees {seen} after {board.fen()}")


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
