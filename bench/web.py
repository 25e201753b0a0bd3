"""``python -m bench.web``: how soon the page hears of a change at the table (issue 7: within 100 ms).

The web server runs in a thread as ``chessatron serve`` runs it, over a real :class:`GameRunner` on the
simulator playing engine against engine; a WebSocket client (a page) watches the live feed. The latency
of an update is the time from the change in the game thread (``LiveState`` bumps its version) to the
client holding the message that carries that version. Bursts are coalesced, so only the versions that
reach the page count. Two runs: a quiet table (a single change every 50 ms) and a game under way (the
gantry reporting its position, moves, evaluations).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from websockets.sync.client import ClientConnection, connect

from chessatron.config import Config
from chessatron.game.runner import GameRequest, GameRunner
from chessatron.live import LiveState
from chessatron.web.app import create_app
from chessatron.web.server import start_in_thread

TARGET_MS = 100.0
ENGINE = "engine:20:depth=2"


def _listen(live: LiveState) -> dict[int, float]:
    """When each version came to be (perf_counter seconds), recorded in the changing thread."""
    changed: dict[int, float] = {}
    live.listen(lambda version: changed.__setitem__(version, time.perf_counter()))
    return changed


def _watch(socket: ClientConnection, changed: dict[int, float], seconds: float) -> list[float]:
    """Latencies in ms of the versions received in ``seconds``."""
    latencies = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            text = socket.recv(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            break
        received = time.perf_counter()
        message = json.loads(text)
        version = message["state"]["version"] if message["type"] == "snapshot" else message["version"]
        if message["type"] == "update" and version in changed:
            latencies.append((received - changed[version]) * 1000)
    return latencies


def quiet(changes: int) -> list[float]:
    """A watch-only page; one change every 50 ms from another thread."""
    live = LiveState(Config.default().layout)
    changed = _listen(live)
    app = create_app(None, live, token=None, games_dir=Path(tempfile.gettempdir()))
    with start_in_thread(app) as server, _feed(server.url) as socket:
        socket.recv(timeout=10)

        def tick() -> None:
            for n in range(changes):
                time.sleep(0.05)
                live.update(status=f"tick {n}")

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        latencies = _watch(socket, changed, changes * 0.05 + 1.0)
        ticker.join()
    return latencies


def game(seconds: float, speed: float | None) -> tuple[list[float], int]:
    """Engine against engine on the simulator; returns the latencies and the plies played."""
    with tempfile.TemporaryDirectory() as folder:
        config = Config.default()
        live = LiveState(config.layout)
        changed = _listen(live)
        with GameRunner(
            config, games_dir=Path(folder), speed=speed, live=live, state_path=Path(folder) / "sim.json"
        ) as runner:
            app = create_app(runner, live, token=None, games_dir=Path(folder))
            with start_in_thread(app) as server, _feed(server.url) as socket:
                socket.recv(timeout=10)
                runner.start_game(GameRequest(white=ENGINE, black=ENGINE))
                latencies = _watch(socket, changed, seconds)
            game = live.snapshot()["game"]
            runner.stop()
    return latencies, 0 if game is None else len(game["uci"])


def _feed(url: str) -> ClientConnection:
    socket: ClientConnection = connect(url.replace("http://", "ws://") + "api/v1/live", proxy=None)
    return socket


def _figures(latencies: list[float]) -> dict[str, float]:
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return {
        "updates": len(ordered),
        "median_ms": statistics.median(ordered),
        "p95_ms": p95,
        "max_ms": ordered[-1],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__)
    parser.add_argument("--seconds", type=float, default=15.0, help="how long to watch the game")
    parser.add_argument("--speed", type=float, default=1.0, help="simulator speed of the game")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    runs = {"quiet": _figures(quiet(200))}
    latencies, plies = game(args.seconds, args.speed)
    if not latencies:
        print("the page received no updates from the game", file=sys.stderr)
        return 1
    runs["game"] = _figures(latencies)
    for name, figures in runs.items():
        print(
            f"{name:<6} {figures['updates']:5.0f} updates  median {figures['median_ms']:6.1f} ms  "
            f"p95 {figures['p95_ms']:6.1f} ms  max {figures['max_ms']:6.1f} ms  "
            f"p95 / target {figures['p95_ms'] / TARGET_MS:.3f}"
        )
    print(
        f"(the game: {plies} plies in {args.seconds:.0f} s at speed {args.speed:g}; "
        f"target p95 <= {TARGET_MS:.0f} ms)"
    )
    if args.json:
        args.json.write_text(json.dumps(runs, indent=2) + "\n", encoding="utf-8")
    return 0 if all(figures["p95_ms"] <= TARGET_MS for figures in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
