"""The web page's API starts online games (``POST /api/v1/online``): a player on the page plays the fake
lichess server's AI, the page's moves reaching the server, the robot carrying out the opponent's; the
server's clocks on the live state; bad requests and a missing token refused before anything starts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from chessatron.config import Config
from chessatron.game.runner import GameRunner
from chessatron.web.app import create_app
from chessatron.web.server import start_in_thread

from .conftest import wait_for
from .fake_lichess import FakeLichess

ANN = "lip_ann_token_1"
JSON = {"content-type": "application/json"}
Snapshot = dict[str, Any]


@pytest.fixture
def fake() -> Iterator[FakeLichess]:
    with FakeLichess() as server:
        server.add_user("Ann", ANN)
        yield server


@pytest.fixture
def page(
    tmp_path: Path, fake: FakeLichess, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[httpx.Client, GameRunner]]:
    monkeypatch.setenv("LICHESS_TOKEN", ANN)
    config = Config.from_dict({"lichess": {"url": fake.url}})
    with GameRunner(
        config, games_dir=tmp_path / "games", speed=None, state_path=tmp_path / "sim.json"
    ) as runner:
        app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir)
        with start_in_thread(app) as served, httpx.Client(base_url=served.url, timeout=30) as client:
            yield client, runner


def test_the_page_plays_an_online_game_its_moves_reaching_the_server(
    page: tuple[httpx.Client, GameRunner], fake: FakeLichess
) -> None:
    client, runner = page
    response = client.post(
        "/api/v1/online", json={"player": "web", "ai": 2, "color": "white", "clock": "10+5"}
    )
    assert response.status_code == 202, response.text
    assert response.json() == {"accepted": "online", "mode": "ai", "account": "Ann"}
    wait_for(runner.live, lambda s: s["prompt"] is not None and s["game"] is not None)
    assert client.post("/api/v1/move", json={"move": "e4"}).status_code == 202
    snapshot = wait_for(runner.live, lambda s: s["prompt"] is not None and len(s["game"]["uci"]) == 2)
    game = fake.game()
    assert [m.uci() for m in game.board.move_stack] == snapshot["game"]["uci"]
    assert snapshot["game"]["uci"][0] == "e2e4"
    assert snapshot["clock"]["control"] == "10+5" and snapshot["clock"]["white_ms"] <= 600_000
    hint = client.post("/api/v1/command/hint", json={})
    assert hint.status_code == 202
    wait_for(runner.live, lambda s: any("no hints" in n["message"] for n in s["notices"]))
    assert client.post("/api/v1/command/resign", json={}).status_code == 202
    final = wait_for(runner.live, lambda s: s["game"]["result"] is not None and not runner.busy)
    assert final["game"]["result"] == "0-1" and game.status == "resign"


def test_a_person_at_the_table_plays_the_game_the_page_started(
    page: tuple[httpx.Client, GameRunner], fake: FakeLichess
) -> None:
    client, runner = page
    response = client.post("/api/v1/online", json={"player": "hand:20:depth=1", "ai": 1})
    assert response.status_code == 202, response.text
    final = wait_for(runner.live, lambda s: s["game"] is not None and s["game"]["result"] is not None, 120)
    assert final["game"]["uci"] == [m.uci() for m in fake.game().board.move_stack]
    assert fake.game().over


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"player": "web"}, 422, "say which game to play"),
        ({"player": "script:/etc/passwd", "ai": 1}, 422, "cannot be chosen"),
        ({"ai": 1, "challenge": "../x"}, 400, "not a name"),
        ({"ai": 9}, 422, "levels 1 to 8"),
        ({"ai": 1, "bogus": 1}, 400, "unknown field"),
    ],
)
def test_bad_online_requests_are_refused(
    page: tuple[httpx.Client, GameRunner], body: dict[str, Any], status: int, says: str
) -> None:
    client, runner = page
    response = client.post("/api/v1/online", json=body)
    assert response.status_code == status and says in response.json()["error"]
    assert not runner.busy


def test_without_a_token_nothing_starts(
    page: tuple[httpx.Client, GameRunner], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    client, runner = page
    monkeypatch.delenv("LICHESS_TOKEN")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    response = client.post("/api/v1/online", json={"ai": 1})
    assert response.status_code == 409 and "chessatron online login" in response.json()["error"]
    assert not runner.busy


def test_a_game_stopped_on_the_page_goes_on_from_the_page(
    page: tuple[httpx.Client, GameRunner], fake: FakeLichess
) -> None:
    client, runner = page
    assert client.post("/api/v1/online", json={"ai": 1, "color": "white"}).status_code == 202
    wait_for(runner.live, lambda s: s["prompt"] is not None and s["game"] is not None)
    assert client.post("/api/v1/move", json={"move": "d4"}).status_code == 202
    wait_for(runner.live, lambda s: s["prompt"] is not None and len(s["game"]["uci"]) == 2)
    assert client.post("/api/v1/stop", json={}).status_code == 202
    wait_for(runner.live, lambda s: not runner.busy and s["prompt"] is None)
    assert not fake.game().over  # begun: stopping here leaves it on the server
    resumed = client.post("/api/v1/online", json={"game": fake.game().id})
    assert resumed.status_code == 202, resumed.text
    wait_for(runner.live, lambda s: s["prompt"] is not None and len(s["game"]["uci"]) == 2)
    assert client.post("/api/v1/move", json={"move": "Nf3"}).status_code == 202
    snapshot = wait_for(runner.live, lambda s: s["prompt"] is not None and len(s["game"]["uci"]) == 4)
    assert snapshot["game"]["uci"] == [m.uci() for m in fake.game().board.move_stack]
    assert snapshot["game"]["uci"][::2] == ["d2d4", "g1f3"]
    client.post("/api/v1/command/resign", json={})
    wait_for(runner.live, lambda s: s["game"]["result"] == "0-1" and not runner.busy)
