"""Training on the web page: a puzzle solved with moves made on the page (one wrong, refused and said), the
rating and the attempts for the plots, a saved game reviewed and replayed from before its blunder."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.store import save_record
from chessatron.game.runner import GameRunner
from chessatron.training.puzzle import Puzzle
from chessatron.training.store import PuzzleStore
from chessatron.web.server import ServerHandle

#: White mates in one on the back rank once Black's king has stepped aside.
BACK_RANK = Puzzle("t1", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", ("g8f8", "d1d8"), rating=700)
SCHOLARS_MATE = '[WhiteKind "web"]\n[BlackKind "web"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PuzzleStore:
    path = tmp_path / "training.sqlite3"
    monkeypatch.setenv("CHESSATRON_TRAINING", str(path))
    kept = PuzzleStore(path, starter=False)
    kept.add([BACK_RANK])
    return kept


@pytest.fixture
def client(served: ServerHandle) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=30) as client:
        yield client


def wait_for(client: httpx.Client, condition: str, timeout_s: float = 30.0) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while True:
        state = client.get("/api/v1/state").json()
        training = state.get("training") or {}
        if condition == "prompt" and state.get("prompt") and training.get("state") == "solving":
            return dict(state)
        # the wrong move answered: counted, and the person asked again (not the prompt from before it)
        if condition == "wrong" and state.get("prompt") and training.get("wrong") == 1:
            return dict(state)
        if condition == "done" and state["runner"]["job"] is None:
            return dict(state)
        assert time.monotonic() < deadline, state["status"]
        time.sleep(0.05)


def test_a_puzzle_is_solved_on_the_page(client: httpx.Client, runner: GameRunner, store: PuzzleStore) -> None:
    assert client.get("/training").status_code == 200
    started = client.post("/api/v1/training/puzzles", json={"player": "web", "count": 1, "rating": 700})
    assert started.status_code == 202, started.text
    wait_for(client, "prompt")
    assert client.post("/api/v1/training/request", json={"what": "hint"}).status_code == 202
    wrong = client.post("/api/v1/move", json={"move": "d1e1"})
    assert wrong.status_code == 202
    state = wait_for(client, "wrong")
    assert state["training"]["state"] == "solving"  # type: ignore[index]
    assert any("Re1 is not the move" in n["message"] for n in state["notices"])  # type: ignore[attr-defined]
    assert client.post("/api/v1/move", json={"move": "d1d8"}).status_code == 202
    done = wait_for(client, "done")
    training = done["training"]
    assert isinstance(training, dict) and training["state"] == "failed"  # (a hint and a wrong move)
    summary = client.get("/api/v1/training").json()
    assert [(a["puzzle"], a["solved"], a["wrong"], a["hints"]) for a in summary["attempts"]] == [
        ("t1", False, 1, 1)
    ]
    assert summary["rating"] < 1500 and summary["provisional"]


def test_a_saved_game_is_reviewed_and_replayed_from_before_its_blunder(
    client: httpx.Client, runner: GameRunner, store: PuzzleStore
) -> None:
    game_id = save_record(from_pgn(SCHOLARS_MATE), runner.games_dir)
    deadline = time.monotonic() + 60
    while (answer := client.get(f"/api/v1/training/review/{game_id}")).status_code == 202:  # asks again
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert answer.status_code == 200, answer.text
    review = answer.json()
    assert len(review["evaluations"]) == 8 and review["evaluations"][-1]["mate"] is not None
    blunder = next(m for m in review["mistakes"] if m["glyph"] == "??")
    assert (blunder["ply"], blunder["san"]) == (6, "Nf6")
    replay = client.post("/api/v1/training/replay", json={"game": game_id, "ply": 6, "player": "web"})
    assert replay.status_code == 202, replay.text
    assert replay.json()["black"] == "web" and replay.json()["white"] == "engine"
    deadline = time.monotonic() + 30
    while True:
        state = client.get("/api/v1/state").json()
        if state.get("prompt") and state["game"]["fen"] == blunder["fen"]:
            break  # the robot set up the position before the blunder; the page's player is to move
        assert time.monotonic() < deadline, state["status"]
        time.sleep(0.05)
    runner.stop()
    runner.wait(30)
