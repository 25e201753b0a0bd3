"""``python -m bench.eboard``: how quickly the table and an app hear each other (issue 38).

For each protocol, games on the simulator at ``--speed max``: a simulated person plays White at the
simulated sensors (Stockfish at one ply), the app (the tests' client written from the protocol's
specification) plays Black at once, as an engine app answering instantly would. The serial protocols run
over a real pseudo-terminal through the serial transport; the Bluetooth LE ones through the same core with
a loopback in place of the (thin) Bluetooth transport.

Two figures a protocol, p50 and p95 over every move of its games:

- **person → app**: from the recognizer committing the person's move (the sensors' scan in which it is
  committed) to the app's client holding the new position (read from the bytes the board sent).
- **app → robot**: from the app's client writing the last byte that shows its move to the robot beginning it
  (the plan handed to the machine), **plus the hold** the session made before it: the time the person's
  last move had to stand still before the robot answers (none after an ordinary move in an app's game: the
  app heard it at its commit; seconds after a king or rook move that may be half a castling, or a glide
  that may go on). The hand's time is simulated, so the hold costs no wall time here; a real person's is
  wall time, so it is added: the figure is what a person at the table waits for.

Target: both <= 300 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import chess

TARGET_MS = 300.0
PROTOCOLS = ("millennium", "dgt", "chessnut", "cpp")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class Timings:
    """The moments the instruments saw (monotonic seconds)."""

    def __init__(self) -> None:
        self.commits: list[float] = []
        self.robot: list[float] = []
        #: The holds before the robot answered the person's move (simulated seconds: a real person's are
        #: wall time, spent after the app's move has come and before the robot begins).
        self.holds: list[float] = []


def instrument(timings: Timings) -> None:
    """Note when the recognizer commits a move and when the session hands the robot a plan."""
    from chessatron.game.players.board import BoardMover
    from chessatron.game.tablework import TableWork
    from chessatron.recognition.events import Committed
    from chessatron.recognition.recognizer import Recognizer

    feed = Recognizer.feed_table

    def timed_feed(self: Recognizer, *args: Any, **kwargs: Any) -> Any:
        events = feed(self, *args, **kwargs)
        if any(isinstance(event, Committed) for event in events):
            timings.commits.append(time.monotonic())
        return events

    run_plan = TableWork.run_plan

    def timed_run_plan(self: TableWork, plan: Any, title: str, *args: Any, **kwargs: Any) -> Any:
        if title.startswith("MOVE"):
            timings.robot.append(time.monotonic())
        return run_plan(self, plan, title, *args, **kwargs)

    confirm = BoardMover.confirm

    def timed_confirm(self: BoardMover, board: chess.Board, hold_s: float) -> Any:
        began = self.t
        try:
            return confirm(self, board, hold_s)
        finally:
            timings.holds.append(self.t - began)

    Recognizer.feed_table = timed_feed  # type: ignore[method-assign]
    BoardMover.confirm = timed_confirm  # type: ignore[method-assign]
    TableWork.run_plan = timed_run_plan  # type: ignore[method-assign]


def one_game(protocol: str, seed: int, timings: Timings, home: Path) -> tuple[list[float], list[float]]:
    """Play one game; the person → app and app → robot latencies of its moves (seconds)."""
    from chessatron.config import Config
    from chessatron.eboard.serve import EboardOptions, serve_eboard
    from tests.eboard_clients.play import Loopback, app_move, client_for, is_over, person_after, wait_any
    from tests.eboard_clients.pty import serial_line

    serial = protocol in ("millennium", "dgt")
    stop = threading.Event()
    failed: list[BaseException] = []
    to_app: list[float] = []
    to_robot: list[float] = []
    with serial_line() as (pty_link, port):
        loop = Loopback()
        options = EboardOptions(
            protocol=protocol,
            transport="serial" if serial else "ble",
            port=port if serial else None,
            hand_colour=chess.WHITE,
            hand_level="20:depth=1",
            games=1,
            speed=None,
            games_dir=home / "games",
        )

        def table() -> None:
            try:
                serve_eboard(
                    Config.default(),
                    options,
                    say=lambda event, game: serving.set() if event.get("what") == "serving" else None,
                    stop=stop,
                    transport=None if serial else loop,
                )
            except BaseException as exc:
                failed.append(exc)

        serving = threading.Event()
        thread = threading.Thread(target=table, daemon=True)
        thread.start()
        if not serving.wait(60) or failed:
            raise RuntimeError(f"{protocol}: the table did not start: {failed}")
        client = client_for(protocol, pty_link if serial else loop.link())
        client.connect()
        import random

        rng = random.Random(seed)
        board = chess.Board()
        client.wait_fen(board.board_fen(), timeout=60)
        while not is_over(board) and len(board.move_stack) < 120 and not board.is_insufficient_material():
            if board.turn == chess.BLACK:
                move = app_move(board, rng)
                robots, holds = len(timings.robot), len(timings.holds)
                client.show_move(board, move)
                written = time.monotonic()
                board.push(move)
                wait_any(client, {board.board_fen(), *person_after(board)})
                if failed:
                    raise RuntimeError(f"{protocol}: the table failed: {failed!r}")
                if len(timings.robot) > robots:
                    # with a real person the hold is wall time, between the app's move and the robot's start
                    to_robot.append(timings.robot[robots] - written + sum(timings.holds[holds:]))
                if not is_over(board):
                    client.clear()
                continue
            commits = len(timings.commits)
            after = person_after(board)
            deadline = time.monotonic() + 120  # (the first includes the robot setting the table up)
            while time.monotonic() < deadline:
                seen = client.board_fen(timeout=0.005)
                if seen in after:
                    heard = time.monotonic()
                    if len(timings.commits) > commits:
                        to_app.append(heard - timings.commits[-1])
                    board.push(after[seen])
                    break
            else:
                raise RuntimeError(f"{protocol}: the person's move never reached the app after {board.fen()}")
        stop.set()
        thread.join(60)
    if failed and not isinstance(failed[0], KeyboardInterrupt):
        raise failed[0]
    return to_app, to_robot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games a protocol (default 3)")
    parser.add_argument("--protocol", action="append", choices=PROTOCOLS, help="only these protocols")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-eboard-") as folder:
        home = Path(folder)
        os.environ["XDG_STATE_HOME"] = str(home / "state")
        os.environ["XDG_CONFIG_HOME"] = str(home / "config")
        os.environ["XDG_DATA_HOME"] = str(home / "data")
        timings = Timings()
        instrument(timings)
        print("e-board latency (ms): person's move -> app, app's move -> robot; p50 / p95 (target <= 300)")
        worst = 0.0
        for protocol in args.protocol or PROTOCOLS:
            to_app: list[float] = []
            to_robot: list[float] = []
            for seed in range(args.games):
                a, r = one_game(protocol, seed, timings, home)
                to_app += a
                to_robot += r
            app_ms = [1000 * value for value in to_app]
            robot_ms = [1000 * value for value in to_robot]
            p = (
                percentile(app_ms, 0.5),
                percentile(app_ms, 0.95),
                percentile(robot_ms, 0.5),
                percentile(robot_ms, 0.95),
            )
            worst = max(worst, p[1], p[3])
            print(
                f"  {protocol:<10} person -> app {p[0]:6.1f} / {p[1]:6.1f}  ({len(app_ms)} moves)   "
                f"app -> robot {p[2]:6.1f} / {p[3]:6.1f}  ({len(robot_ms)} moves)   "
                f"mean {statistics.fmean(app_ms):.1f} / {statistics.fmean(robot_ms):.1f}"
            )
        verdict = "met" if worst <= TARGET_MS else "NOT met"
        print(f"worst p95: {worst:.1f} ms = {worst / TARGET_MS:.2f} x the 300 ms target: {verdict}")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
