"""``chessatron demo --web`` (``make demo WEB=1``): the showcase game on the web page beside the terminal
view."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from chessatron.demo import demo_game_text
from chessatron.sim.simulate import game_moves, parse_game

DEMO = [sys.executable, "-m", "chessatron.cli", "demo"]
_URL = re.compile(r"the demo on the web page: (http://127\.0\.0\.1:\d+/)")


def test_the_page_follows_the_demo_game_while_it_is_played(tmp_path: Path) -> None:
    board, moves = game_moves(parse_game(demo_game_text(), source="the demo game"))
    final = board.copy()
    for move in moves:
        final.push(move)
    process = subprocess.Popen(
        [*DEMO, "--web", "--port", "0", "--speed", "60", "--picture", str(tmp_path / "demo.svg")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        found = _URL.search(first)
        assert found, first
        url = found.group(1)
        seen_fens: set[str] = set()
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            try:
                state = httpx.get(url + "api/v1/state", timeout=5).json()
            except httpx.TransportError:
                break  # the demo has ended and its page with it
            if state["game"] is not None:
                seen_fens.add(state["game"]["fen"].split(" ")[0])
            time.sleep(0.05)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, err
    assert "no twin violations" in out
    # the page followed the game: several positions along the way, up to the last one
    assert len(seen_fens) >= 5
    assert final.board_fen() in seen_fens


def test_without_web_the_demo_serves_no_page(tmp_path: Path) -> None:
    done = subprocess.run(
        [*DEMO, "--speed", "max", "--no-reset", "--picture", str(tmp_path / "demo.svg")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "web page" not in done.stdout
