"""Stop and resume from the page do what they say (issue 26): a game typed at the server's terminal is
taken over by the page when it resumes it, and stopped at once; a stop during a set-up or a robot move
ends at the next safe point, saying ``stopping…`` until then and afterwards what was kept (and telling the
terminal that serves the page); *Resume* takes the latest game with a move, named (``GET /api/v1/resume``)
before anything moves."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import httpx
import pytest

from chessatron.config import Config
from chessatron.game.records import store
from chessatron.game.runner import GameRunner
from chessatron.web.app import create_app
from chessatron.web.server import ServerHandle, start_in_thread

from .conftest import wait_for
from .made_games import ENGINE, cut_short_set_up, keyboard_game

Snapshot = dict[str, Any]
#: Fast enough for a test, slow enough that a set-up of a dozen drags takes seconds (each about a third
#: of a second at this speed).
SPEED = 20.0


@pytest.fixture
def client(served: ServerHandle) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=30) as client:
        yield client


@pytest.fixture
def watched() -> Iterator[tuple[GameRunner, httpx.Client]]:
    """A runner whose robot is slow enough to be stopped half-way, and a client of its page."""
    with (
        tempfile.TemporaryDirectory() as folder,
        GameRunner(
            Config.default(),
            games_dir=Path(folder) / "games",
            speed=SPEED,
            state_path=Path(folder) / "s.json",
        ) as runner,
    ):
        app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir)
        with start_in_thread(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
            yield runner, client


def test_the_page_takes_over_a_game_typed_at_the_terminal_and_stops_it_at_once(
    client: httpx.Client, runner: GameRunner
) -> None:
    typed = keyboard_game(runner.games_dir, ["e4", "d4", "a3", "h3"])
    answer = client.post("/api/v1/resume", json={})
    assert answer.status_code == 202 and answer.json()["game"] == typed
    # the page plays White now: its move box, not a prompt in the server's terminal
    state = wait_for(runner.live, lambda s: s["prompt"] is not None)
    assert state["prompt"]["colour"] == "white" and state["game"]["white"] == "web"
    assert len(state["game"]["uci"]) == 8
    notices = [notice["message"] for notice in state["notices"]]
    assert "White is played by web from now on (was keyboard)" in notices
    # handed over for good: journaled, as `play --resume --white web` would
    (saved,) = [s for s in store.list_games(runner.games_dir) if s.game_id == typed]
    assert saved.white.kind == "web"

    told: list[str] = []  # what `chessatron serve` prints
    runner.tell = told.append
    started = time.monotonic()
    assert client.post("/api/v1/stop", json={}).status_code == 202
    assert runner.wait(5) and time.monotonic() - started < 2
    assert runner.live.snapshot()["status"] == (
        "stopped after 8 half-moves; the game is saved: Resume continues it"
    )
    assert told == [
        "the game stopped at your request; the game is saved after 8 half-moves: "
        "the page's Resume continues it"
    ]
    # a side handed to another player by name, as on the command line
    again = client.post("/api/v1/resume", json={"game": typed, "black": "engine:3"})
    assert again.status_code == 202
    wait_for(runner.live, lambda s: s["prompt"] is not None)
    assert runner.live.snapshot()["game"]["black"] == "engine:3"
    client.post("/api/v1/stop", json={})
    assert runner.wait(5)
    refused = client.post("/api/v1/resume", json={"game": typed, "white": "keyboard"})
    assert refused.status_code == 422 and refused.json()["field"] == "white"


def test_resume_takes_the_latest_game_with_a_move(client: httpx.Client, runner: GameRunner) -> None:
    played = keyboard_game(runner.games_dir, ["e4", "d4", "a3", "h3"])
    unplayed = cut_short_set_up(runner.games_dir, 100)  # later, no move: a set-up cut short
    listed = {s.game_id: s for s in store.list_games(runner.games_dir)}
    assert listed[unplayed].plies == 0 and listed[unplayed].is_open and listed[played].plies == 8
    latest = store.latest_resumable(runner.games_dir)
    assert latest is not None and latest.game_id == played
    assert client.post("/api/v1/resume", json={}).json()["game"] == played
    state = wait_for(runner.live, lambda s: s["prompt"] is not None)
    assert state["game"]["id"] == played and len(state["game"]["uci"]) == 8
    client.post("/api/v1/stop", json={})
    assert runner.wait(10)
    # asked for by its id, the set-up cut short is finished and its game begins
    assert client.post("/api/v1/resume", json={"game": unplayed}).status_code == 202
    state = wait_for(runner.live, lambda s: s["prompt"] is not None)
    assert state["game"]["fen"].split()[0] == chess.Board.from_chess960_pos(100).board_fen()
    client.post("/api/v1/stop", json={})
    assert runner.wait(10)


def test_a_stop_in_a_set_up_ends_at_the_next_drag_and_says_nothing_was_kept(
    watched: tuple[GameRunner, httpx.Client],
) -> None:
    runner, client = watched
    body = {"white": "web", "black": ENGINE, "chess960": 959}
    assert client.post("/api/v1/game", json=body).status_code == 202
    state = wait_for(runner.live, lambda s: (s["gantry"]["work"] or {}).get("index", 0) >= 1)
    total = state["gantry"]["work"]["of"]
    assert total >= 8
    answer = client.post("/api/v1/stop", json={})
    assert answer.status_code == 202
    # at once: the page says it is stopping, and its Stop is not pressed twice
    now = client.get("/api/v1/state").json()
    assert now["status"] == "stopping…" and now["runner"]["stopping"] is True
    started = time.monotonic()
    assert runner.wait(10)
    # the drag under way was finished, no other begun: well before the set-up's end
    assert time.monotonic() - started < 3
    world = runner.session.world
    assert world is not None and not world.twin.magnet_on and world.twin.violations == ()
    table, _ = runner.live.table()
    assert table is not None and table.board_fen() != chess.Board.from_chess960_pos(959).board_fen()
    expected = {runner.session.layout.node_cell(table.node_of(piece.id)) for piece in table}
    assert world.occupied_cells() == expected  # the model is where the robot left the pieces
    # what was kept, truthfully: a game stopped before its first move is not saved
    state = runner.live.snapshot()
    assert (
        state["status"]
        == "stopped before the first move: no game was kept (a game is saved from its first move)"
    )
    assert state["game"] is None
    assert store.list_games(runner.games_dir) == []
    assert client.get("/api/v1/state").json()["runner"]["stopping"] is False


def test_a_stop_during_a_robot_move_keeps_the_game_and_resume_finishes_the_move(
    watched: tuple[GameRunner, httpx.Client],
) -> None:
    runner, client = watched
    assert client.post("/api/v1/game", json={"white": ENGINE, "black": ENGINE}).status_code == 202
    # the robot's work on a move (not the set-up): stopped between its drags, or right after its last
    state = wait_for(runner.live, lambda s: (s["gantry"]["work"] or {}).get("title", "").startswith("MOVE 3"))
    game_id = state["game"]["id"]
    client.post("/api/v1/stop", json={})
    assert runner.wait(10)
    status = runner.live.snapshot()["status"]
    assert status.startswith("stopped after 3 half-moves; the game is saved: Resume continues it"), status
    (saved,) = store.list_games(runner.games_dir)
    assert saved.game_id == game_id and saved.plies == 3
    world = runner.session.world
    assert world is not None and not world.twin.magnet_on and world.twin.violations == ()
    assert client.post("/api/v1/resume", json={}).status_code == 202
    # the move cut short is finished first: once the robot rests, the table follows the game
    state = wait_for(
        runner.live,
        lambda s: (
            s["game"] is not None
            and len(s["game"]["uci"]) >= 4
            and s["status"] == f"{s['game']['turn']} to move"
            and s["gantry"]["work"] is None
        ),
    )
    board = chess.Board()
    for uci in state["game"]["uci"]:
        board.push_uci(uci)
    table, _ = runner.live.table()
    assert table is not None and table.board_fen() == board.board_fen()
    client.post("/api/v1/stop", json={})
    assert runner.wait(10)
    (saved,) = store.list_games(runner.games_dir)
    status = runner.live.snapshot()["status"]
    assert status.startswith(f"stopped after {saved.plies} half-moves; the game is saved"), status
    assert status.endswith("the robot first finishes the move it was making") == saved.robot_pending


def test_what_resume_would_continue_is_named_with_the_robot_s_work_before_anything_moves(
    client: httpx.Client, runner: GameRunner
) -> None:
    assert client.get("/api/v1/resume").json() == {"game": None, "others": []}
    older = keyboard_game(runner.games_dir, ["e4"])
    typed = keyboard_game(runner.games_dir, ["g3", "b3"], start=chess.Board.from_chess960_pos(100))
    standing = runner.session.table.placement()
    offer = client.get("/api/v1/resume").json()
    game = offer["game"]
    assert game["id"] == typed and (game["white"], game["black"]) == ("keyboard", ENGINE)
    assert game["plays"] == {"white": "web", "black": ENGINE}  # the page takes the typed side over
    assert (game["variant"], game["chess960"], game["plies"], game["moves"]) == ("chess960", 100, 4, 2)
    assert game["where"] == "terminal" and 0 <= game["stopped_s_ago"] < 60
    assert game["robot"]["moves"] > 0  # the table stands as delivered: the robot sets it up for the game
    assert [other["id"] for other in offer["others"]] == [older]
    assert runner.session.table.placement() == standing and not runner.busy  # asked: nothing moved
    assert client.get("/api/v1/resume", params={"game": older}).json()["game"]["plies"] == 2
    assert client.get("/api/v1/resume", params={"game": "nosuchgame"}).status_code == 404
    assert client.get("/api/v1/resume", params={"game": "../x"}).status_code == 400
    # while a game runs its pieces are moving: no estimate is made
    assert client.post("/api/v1/resume", json={"game": typed}).status_code == 202
    wait_for(runner.live, lambda s: s["prompt"] is not None)
    assert client.get("/api/v1/resume").json()["game"]["robot"] is None
    client.post("/api/v1/stop", json={})
    assert runner.wait(10)
