"""Training on the web page: a puzzle solved with moves made on the page (one wrong, refused and said, a
hint with its squares), its solution kept back until it is over, the rating and the attempts for the
plots, the themes' names; a saved game reviewed (each side's figures, the marked moves' numbers, better
moves and evaluations; the viewer's ``?only=kept`` starting nothing) and replayed from before its
blunder."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import chess
import httpx
import pytest

from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.store import save_record
from chessatron.game.runner import GameRunner
from chessatron.training.puzzle import Puzzle
from chessatron.training.store import PuzzleStore
from chessatron.web.server import ServerHandle

#: White mates in one on the back rank once Black's king has stepped aside.
BACK_RANK = Puzzle(
    "t1", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", ("g8f8", "d1d8"), rating=700, themes=("backRankMate",)
)
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
    page = client.get("/training")
    assert page.status_code == 200 and "/static/training.js" in page.text
    scripts = ("training.js", "training-review.js", "training-plots.js", "training-format.js")
    for name in (*scripts, "training.css"):
        asset = client.get(f"/static/{name}")
        text = asset.text.replace("http://www.w3.org/2000/svg", "")  # (a namespace, not a load)
        assert asset.status_code == 200 and "http://" not in text and "https://" not in text, name
    started = client.post("/api/v1/training/puzzles", json={"player": "web", "count": 1, "rating": 700})
    assert started.status_code == 202, started.text
    state = wait_for(client, "prompt")
    assert state["training"]["themes"] == ["backRankMate"]  # type: ignore[index]
    # no peeking: the solution shows once the puzzle is over
    early = client.get("/api/v1/training/puzzle/t1")
    assert early.status_code == 409 and "under way" in early.json()["error"]
    assert client.post("/api/v1/training/request", json={"what": "hint"}).status_code == 202
    deadline = time.monotonic() + 30
    while not (hint := client.get("/api/v1/state").json()["training"]["hint"]):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert hint == {"square": "d1", "from": "d1", "text": "move the rook on d1", "squares": ["d1"]}
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
    names = summary["theme_names"]  # (the store's starter set is there too)
    assert (names["backRankMate"], names["oneMove"]) == ("Back rank mate", "One-move puzzle")
    solution = client.get("/api/v1/training/puzzle/t1").json()
    assert solution["text"] == "2. Rd8+" and solution["colour"] == "white"
    assert [(p["san"], p["fen"], p["check"]) for p in solution["positions"]] == [
        ("Kf8", "5k2/5ppp/8/8/8/8/5PPP/3R2K1", None),
        ("Rd8+", "3R1k2/5ppp/8/8/8/8/5PPP/6K1", "black"),
    ]
    assert client.get("/api/v1/training/puzzle/nope").status_code == 404
    assert client.get("/api/v1/training/puzzle/no%20such").status_code == 400


def test_a_saved_game_is_reviewed_and_replayed_from_before_its_blunder(
    client: httpx.Client, runner: GameRunner, store: PuzzleStore
) -> None:
    game_id = save_record(from_pgn(SCHOLARS_MATE), runner.games_dir)
    not_yet = client.get(f"/api/v1/training/review/{game_id}?only=kept")  # the viewer asks: nothing runs
    assert not_yet.status_code == 204 and not client.get("/api/v1/state").json()["runner"]["job"]
    deadline = time.monotonic() + 60
    while (answer := client.get(f"/api/v1/training/review/{game_id}")).status_code == 202:  # asks again
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert answer.status_code == 200, answer.text
    review = answer.json()
    assert len(review["evaluations"]) == 8 and review["evaluations"][-1]["mate"] is not None
    blunder = next(m for m in review["mistakes"] if m["glyph"] == "??")
    assert (blunder["ply"], blunder["san"], blunder["number"], blunder["eval"]) == (6, "Nf6", "3...", "#1")
    assert chess.Board(blunder["fen"]).san(chess.Move.from_uci(blunder["best_uci"])) == blunder["best"]
    sides = review["sides"]
    assert sides["black"]["blunders"] == 1 and sides["white"]["blunders"] == 0
    assert 0 <= sides["black"]["accuracy"] < sides["white"]["accuracy"] <= 100
    assert client.get(f"/api/v1/training/review/{game_id}?only=kept").json() == review  # kept now
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
