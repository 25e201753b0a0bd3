"""``python -m bench.web``: what the page costs and how soon it shows things (issues 7 and 14).

The web server runs in a thread as ``chessatron serve`` runs it, over a real :class:`GameRunner` on the
simulator. Four figures:

* **feed latency** (issue 7, target p95 <= 100 ms): a WebSocket client watches the live feed; the latency
  of an update is the time from the change in the game thread (``LiveState`` bumps its version) to the
  client holding the message that carries that version. A quiet table (a change every 50 ms) and a game
  under way (engine against engine: the gantry reporting its position, moves, evaluations).
* **click to board** (issue 14, target p95 <= 150 ms): Debian's Chromium plays White against the engine
  at ``--speed`` 1 by clicking a piece and then its square; measured in the page (``performance.now()``)
  from the press on that square to the moment the board shows the move and the move list its SAN. Also
  **click to confirmed**: until the move list shows it as the server's (the live state has it).
* **bytes per minute of robot motion** (issue 14): one page watches an engine game at ``--speed`` 1
  through a counting TCP relay; every byte the server sends it (HTTP answers and the WebSocket, as on the
  wire), over the minutes the robot was moving.

No browser is downloaded: without ``/usr/bin/chromium`` the page figures are skipped with a message.

Issue 14's figures, on the 2-core development machine at speed 1. Before (the page fetched SVG pictures of
the board and the table after every change, and a move joined the game when the robot had finished it):
click to board median 4088 ms, p95 13321 ms (6 moves); 11058 KiB per minute of robot motion. After
(chessground drawn from the feed, the move published when accepted, patches and gzip): click to board
median 19 ms, p95 28 ms; click to confirmed p95 65 ms (10 moves); 29 KiB per minute of robot motion.
The clock starts with the press on the piece's square before (the old page had no later event to start it
from; tens of milliseconds against seconds), on its destination after.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
from playwright.sync_api import expect, sync_playwright
from websockets.sync.client import ClientConnection, connect

from chessatron.config import Config
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner
from chessatron.game.telling.live import LiveState
from chessatron.web.app import create_app
from chessatron.web.server import ServerHandle, start_in_thread

TARGET_MS = 100.0
CLICK_TARGET_MS = 150.0
ENGINE = "engine:20:depth=2"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_S = 60.0


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


@contextlib.contextmanager
def _served(speed: float | None) -> Iterator[tuple[GameRunner, ServerHandle]]:
    """A runner on the simulator with its page, in a folder of its own."""
    with tempfile.TemporaryDirectory() as folder:
        config = Config.default()
        with GameRunner(
            config, games_dir=Path(folder), speed=speed, state_path=Path(folder) / "sim.json"
        ) as runner:
            app = create_app(runner, runner.live, token=None, games_dir=Path(folder))
            with start_in_thread(app) as server:
                yield runner, server
            runner.stop()


def game(seconds: float, speed: float | None) -> tuple[list[float], int]:
    """Engine against engine on the simulator; returns the latencies and the plies played."""
    with _served(speed) as (runner, server):
        changed = _listen(runner.live)
        with _feed(server.url) as socket:
            socket.recv(timeout=10)
            runner.start_game(GameRequest(white=ENGINE, black=ENGINE))
            latencies = _watch(socket, changed, seconds)
        played = runner.live.snapshot()["game"]
    return latencies, 0 if played is None else len(played["uci"])


def _feed(url: str) -> ClientConnection:
    socket: ClientConnection = connect(url.replace("http://", "ws://") + "api/v1/live", proxy=None)
    return socket


# --- the page in a browser -------------------------------------------------------------------------

#: The centre of a square on the page's board, in page pixels (chessground's board, or an older SVG one).
_SQUARE_AT = """(square) => {
  const rect = document.querySelector(`#board rect.square.${square}`);
  if (rect) { const b = rect.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; }
  const b = document.querySelector("#board cg-board").getBoundingClientRect();
  const black = document.querySelector("#board .cg-wrap.orientation-black") !== null;
  const file = square.charCodeAt(0) - 97, rank = Number(square[1]) - 1;
  const x = black ? 7 - file : file, y = black ? rank : 7 - rank;
  return [b.x + ((x + 0.5) * b.width) / 8, b.y + ((y + 0.5) * b.height) / 8];
}"""

#: Watches for the move to show: resolves to [ms to the board and the move list, ms to confirmed].
_WATCH_MOVE = """([fen, san]) => {
  const plies = (selector) => [...document.querySelectorAll(selector)].map((e) => e.textContent.trim());
  const before = plies("#moves .ply").length;
  const boardFen = () => {
    const e = document.querySelector("#board[data-fen], #board [data-fen]");
    return e ? e.getAttribute("data-fen") : null;
  };
  window.__moveTimes = new Promise((resolve) => {
    let start = null, shown = null;
    document.addEventListener("pointerdown", () => { start = performance.now(); },
                              { capture: true, once: true });
    const check = () => {
      if (start === null) return;
      const now = performance.now();
      const listed = plies("#moves .ply");
      if (shown === null && boardFen() === fen && listed.length > before && listed[before] === san) {
        shown = now - start;
      }
      const confirmed = plies("#moves .ply:not(.pending)");
      if (shown !== null && confirmed.length > before && confirmed[before] === san) {
        observer.disconnect();
        resolve([shown, now - start]);
      }
    };
    const observer = new MutationObserver(check);
    const all = { subtree: true, childList: true, attributes: true, characterData: true };
    observer.observe(document.body, all);
  });
}"""


def _browser() -> Any:
    """Playwright and Debian's Chromium, or None (with a message) when it is missing."""
    if not CHROMIUM.exists():
        print(f"skipping the page's figures: no Chromium at {CHROMIUM}", file=sys.stderr)
        return None
    return sync_playwright()


def _wait_for(runner: GameRunner, ready: Any, what: str) -> dict[str, Any]:
    """The live snapshot once ``ready(snapshot)``; gives up after :data:`WAIT_S`."""
    deadline = time.monotonic() + WAIT_S
    while True:
        state = runner.live.snapshot()
        if ready(state):
            return state
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {WAIT_S:.0f} s for {what}; the status is {state['status']!r}")
        runner.live.wait(state["version"], 0.2)


def _my_turn(state: dict[str, Any]) -> bool:
    game = state["game"]
    return state["prompt"] is not None and game is not None and game["result"] is None


def clicks(moves: int, speed: float) -> list[tuple[float, float]]:
    """Play ``moves`` moves as White on the page against the engine; [(ms to the board, ms to confirmed)]."""
    playwright = _browser()
    if playwright is None:
        return []
    times: list[tuple[float, float]] = []
    rng = random.Random(14)
    with playwright as driver, _served(speed) as (runner, server):
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(server.url)
        expect(page.locator("#connection")).to_have_text("live")
        runner.start_game(GameRequest(white="web", black=ENGINE))
        for _ in range(moves):
            state = _wait_for(runner, _my_turn, "White's turn")
            board = chess.Board(state["game"]["fen"])
            quiet = [m for m in board.legal_moves if not m.promotion and not board.is_castling(m)]
            if not quiet:
                break
            move = rng.choice(sorted(quiet, key=chess.Move.uci))
            san = board.san(move)
            board.push(move)
            expect(page.locator("#moves .ply")).to_have_count(len(state["game"]["uci"]))
            page.wait_for_timeout(300)  # the page has the prompt too
            start, end = (
                page.evaluate(_SQUARE_AT, chess.square_name(s)) for s in (move.from_square, move.to_square)
            )
            page.mouse.click(*start)  # the piece picked up; the clock starts with the press on its square
            page.evaluate(_WATCH_MOVE, [board.board_fen(), san])
            page.mouse.click(*end)
            shown, confirmed = page.evaluate("window.__moveTimes")
            times.append((shown, confirmed))
            if _wait_for(runner, lambda s: s["game"]["result"] is not None or _my_turn(s), "the reply")[
                "game"
            ]["result"]:
                break
        browser.close()
    return times


class _Relay:
    """A TCP relay on the loopback address counting the bytes the server sends through it."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.sent = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            threading.Thread(target=self._pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, counted: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if counted:
                    with self._lock:
                        self.sent += len(data)
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._listener.close()


def watched_bytes(seconds: float, speed: float) -> tuple[int, float]:
    """One page watches an engine game for ``seconds``; the bytes sent to it and the robot's moving
    seconds meanwhile (from when the page had loaded)."""
    playwright = _browser()
    if playwright is None:
        return 0, 0.0
    with playwright as driver, _served(speed) as (runner, server):
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        relay = _Relay(("127.0.0.1", port))
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"http://127.0.0.1:{relay.port}/")
        expect(page.locator("#connection")).to_have_text("live")
        page.wait_for_timeout(1000)  # the page and its first pictures are in
        moving = 0.0
        since: float | None = None
        start_bytes = relay.sent
        runner.start_game(GameRequest(white=ENGINE, black=ENGINE))
        started = time.monotonic()
        version = -1
        while (now := time.monotonic()) < started + seconds:
            version = runner.live.wait(version, 0.05)
            work = runner.live.snapshot()["gantry"]["work"]
            if work is not None and since is None:
                since = now
            elif work is None and since is not None:
                moving += now - since
                since = None
        if since is not None:
            moving += time.monotonic() - since
        page.wait_for_timeout(200)
        sent = relay.sent - start_bytes
        browser.close()
        relay.close()
    return sent, moving


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
    parser.add_argument("--speed", type=float, default=1.0, help="simulator speed of the games")
    parser.add_argument("--moves", type=int, default=10, help="moves clicked on the page")
    parser.add_argument("--watch", type=float, default=30.0, help="seconds a page watches for the bytes")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    parser.add_argument(
        "--only", choices=("feed", "clicks", "bytes"), action="append", help="only these figures"
    )
    args = parser.parse_args(argv)
    parts = set(args.only or ("feed", "clicks", "bytes"))
    results: dict[str, Any] = {}
    ok = True
    if "feed" in parts:
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
        ok = all(figures["p95_ms"] <= TARGET_MS for figures in runs.values())
        results.update(runs)
    times = clicks(args.moves, args.speed) if "clicks" in parts else []
    if times:
        shown, confirmed = _figures([t[0] for t in times]), _figures([t[1] for t in times])
        results["click_to_board"], results["click_to_confirmed"] = shown, confirmed
        print(
            f"click to board      {shown['updates']:3.0f} moves  median {shown['median_ms']:7.1f} ms  "
            f"p95 {shown['p95_ms']:7.1f} ms  (target p95 <= {CLICK_TARGET_MS:.0f} ms at speed {args.speed:g})"
        )
        print(
            f"click to confirmed  {confirmed['updates']:3.0f} moves  "
            f"median {confirmed['median_ms']:7.1f} ms  p95 {confirmed['p95_ms']:7.1f} ms  "
            "(the server's live state has the move)"
        )
        ok = ok and shown["p95_ms"] <= CLICK_TARGET_MS
    sent, moving = watched_bytes(args.watch, args.speed) if "bytes" in parts else (0, 0.0)
    if moving > 0:
        per_minute = sent / moving * 60
        results["bytes_per_robot_minute"] = per_minute
        print(
            f"one watching page: {sent / 1024:.0f} KiB in {args.watch:.0f} s, "
            f"the robot moving {moving:.1f} s: {per_minute / 1024:.0f} KiB per minute of robot motion"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
