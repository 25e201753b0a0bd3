"""The web page's API: every command, the live feed, bad and unauthorised requests, and games that go on
without the page. Real games on the simulator (robot at full speed) against a deterministic engine."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime as dt
import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from chessatron.config import Config
from chessatron.game.engine.settings import engine_options
from chessatron.game.records.journal import GameMetadata, Journal
from chessatron.game.records.pgn import from_pgn
from chessatron.game.records.record import Player
from chessatron.game.records.store import list_games, save_record
from chessatron.game.runner import GameRunner
from chessatron.game.telling.live import LiveState
from chessatron.planning.planner import Planner
from chessatron.planning.reset import ResetPlanner
from chessatron.planning.table import Table
from chessatron.sim.state import load_state
from chessatron.web import feed as feed_module
from chessatron.web.app import create_app
from chessatron.web.feed import Feed, Snapshots
from chessatron.web.pictures import Pictures
from chessatron.web.server import ServerHandle, start_in_thread, start_watch_page

from .conftest import wait_for

ENGINE = "engine:20:depth=1"
TOKEN = "s3cret-token-for-tests"
JSON = {"content-type": "application/json"}

Snapshot = dict[str, Any]


@pytest.fixture
def client(served: ServerHandle) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=30) as client:
        yield client


def web_to_move(plies: int) -> Callable[[Snapshot], bool]:
    return lambda s: s["prompt"] is not None and len(s["game"]["uci"]) == plies


def plies(live: LiveState) -> int:
    game = live.snapshot()["game"]
    return 0 if game is None else len(game["uci"])


def error_of(response: httpx.Response) -> str:
    body = response.json()
    assert set(body) - {"field"} == {"error"}, body
    message: str = body["error"]
    return message


# --- reading ---------------------------------------------------------------------------------------


def test_the_page_is_served_from_this_machine_with_a_strict_policy(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert (
        "default-src 'none'" in policy
        and "script-src 'self'" in policy
        and "frame-ancestors 'none'" in policy
    )
    assert (
        page.headers["x-content-type-options"] == "nosniff"
        and page.headers["referrer-policy"] == "no-referrer"
    )
    assert "access-control-allow-origin" not in page.headers
    for name in (
        "app.js",
        "board.js",
        "table.js",
        "sound.js",
        "question.js",
        "format.js",
        "viewer.js",
        "settings.js",
        "app.css",
    ):
        asset = client.get(f"/static/{name}")
        assert asset.status_code == 200, name
        # nothing comes from the internet: no CDN, no web fonts (an XML namespace is a name, not a load)
        text = asset.text.replace("http://www.w3.org/2000/svg", "")
        assert "http://" not in text and "https://" not in text, name
    assert "/static/app.js" in page.text and "https://" not in page.text
    # the board widget, installed from npm by `make` and served from here, compressed
    widget = client.get("/static/vendor/chessground/chessground.min.js", headers={"accept-encoding": "gzip"})
    assert widget.status_code == 200 and widget.headers["content-encoding"] == "gzip"
    assert "export{" in widget.text and widget.headers["content-type"].startswith("text/javascript")
    for sheet in ("chessground.base.css", "chessground.brown.css", "chessground.cburnett.css"):
        assert f"/static/vendor/chessground/{sheet}" in page.text
        assert client.get(f"/static/vendor/chessground/{sheet}").status_code == 200, sheet


def test_answers_that_gain_from_it_are_compressed(client: httpx.Client) -> None:
    state = client.get("/api/v1/state", headers={"accept-encoding": "gzip"})
    assert state.headers["content-encoding"] == "gzip" and state.json()["status"] == "idle"
    assert len(state.content) > 4 * int(state.headers["content-length"])  # decoded, against the wire
    table = client.get("/api/v1/table.svg", headers={"accept-encoding": "gzip"})
    assert table.headers["content-encoding"] == "gzip"
    small = client.post("/api/v1/stop", json={}, headers={"accept-encoding": "gzip"})  # a 409 of a line
    assert small.status_code == 409 and "content-encoding" not in small.headers


def test_without_the_board_widget_the_page_says_how_to_install_it(tmp_path: Path, runner: GameRunner) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!DOCTYPE html><title>a page without its board</title>")
    app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir, static=static)
    with start_in_thread(app) as server, httpx.Client(base_url=server.url) as client:
        page = client.get("/")
        assert page.status_code == 503 and page.headers["content-type"].startswith("text/html")
        assert "chessground" in page.text and "make" in page.text and "npm" in page.text
        assert client.get("/api/v1/state").status_code == 200  # the API works without it


def test_the_state_follows_the_live_contract(client: httpx.Client) -> None:
    answer = client.get("/api/v1/state")
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    state = answer.json()
    assert set(state) >= {"version", "status", "game", "table", "gantry", "sensors", "leds", "clock"}
    assert state["status"] == "idle" and state["game"] is None and len(state["table"]["pieces"]) == 42
    assert state["table"]["drags"] == []
    info = client.get("/api/v1").json()
    assert info["watch_only"] is False and "web" in info["players"] and "resign" in info["commands"]
    # the table as the page draws it: 12 x 10 cells, a1 at cell (2, 1), the reserve's ten spares
    layout = info["layout"]
    assert (layout["columns"], layout["rows"], layout["board_cell"]) == (12, 10, [2, 1])
    assert len(layout["reserve"]) == 10 and [0, 9, "Q"] in layout["reserve"]
    assert sum(kind == "board" for _, _, kind in layout["cells"]) == 64 and info["token"] is False


def test_pictures_of_the_board_and_the_whole_table(client: httpx.Client) -> None:
    board = client.get("/api/v1/board.svg")
    assert board.status_code == 200 and board.headers["content-type"].startswith("image/svg+xml")
    assert f'data-fen="{chess.STARTING_BOARD_FEN}"' in board.text  # no game yet: the pieces on the table
    turned = client.get("/api/v1/board.svg", params={"orientation": "black"}).text
    assert turned != board.text
    table = client.get("/api/v1/table.svg").text
    assert table.startswith("<svg") and 'id="gantry"' in table and table.count('class="piece"') == 42


def test_the_table_picture_shows_the_drags_still_to_come() -> None:
    layout = Config.default().layout
    live = LiveState(layout)
    table = Table.from_board(layout, chess.Board())
    plan = ResetPlanner(Planner(layout)).plan(table, chess.Board.from_chess960_pos(0))
    total = len(plan.relocations)
    live.show_table(table, plan.relocations)
    pictures = Pictures(live)
    drags = []
    for work in (
        {"title": "RESET", "index": 0, "of": total},
        {"title": "RESET", "index": 2, "of": total},
        None,
    ):
        live.show_gantry(layout.home_mm, work=work)
        drags.append(pictures.table().count('class="path"'))
    assert drags == [total, total - 2, 0] and total > 2


# --- a game through the API ------------------------------------------------------------------------


def test_a_short_game_from_the_page(client: httpx.Client, runner: GameRunner) -> None:
    live = runner.live
    started = client.post("/api/v1/game", json={"white": "web", "black": ENGINE})
    assert started.status_code == 202, started.text
    state = wait_for(live, web_to_move(0))
    assert "e4" in state["prompt"]["legal"]["e2"] and state["game"]["black"] == ENGINE

    refused = client.post("/api/v1/move", json={"move": "e2e5"})
    assert refused.status_code == 422 and error_of(refused).startswith(
        "'e2e5': the pawn on e2 cannot go to e5"
    )
    assert client.post("/api/v1/move", json={"move": "e4"}).json() == {"accepted": "move", "move": "e2e4"}
    state = wait_for(live, web_to_move(2))
    assert state["game"]["san"][0] == "e4" and state["evaluation"] is not None
    board = client.get("/api/v1/board.svg").text
    assert f'data-fen="{chess.Board(state["game"]["fen"]).board_fen()}"' in board

    assert client.post("/api/v1/command/hint", json={}).status_code == 202
    state = wait_for(live, lambda s: s["hint"] is not None and s["prompt"] is not None)
    assert chess.Move.from_uci(state["hint"]["uci"]) in chess.Board(state["game"]["fen"]).legal_moves
    assert 'class="arrow"' in client.get("/api/v1/board.svg").text  # the hint, drawn on the board

    # a command needs no body, only the JSON content type (which no cross-site form can send)
    assert client.post("/api/v1/command/takeback").status_code == 415
    assert client.post("/api/v1/command/takeback", headers=JSON).status_code == 202
    wait_for(live, web_to_move(0))
    table, _ = live.table()
    assert table is not None and table.board_fen() == chess.STARTING_BOARD_FEN  # the robot put them back

    assert client.post("/api/v1/move", json={"move": "d2d4"}).status_code == 202
    wait_for(live, web_to_move(2))
    assert client.post("/api/v1/command/resign", json={}).status_code == 202
    assert runner.wait(30)
    game = live.snapshot()["game"]
    assert (game["result"], game["termination"]) == ("0-1", "resignation") and game["san"][0] == "d4"

    (saved,) = client.get("/api/v1/games").json()
    assert saved["result"] == "0-1" and saved["plies"] == 2 and not saved["in_progress"]
    download = client.get(f"/api/v1/games/{saved['id']}.pgn")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    pgn = chess.pgn.read_game(io.StringIO(download.text))
    assert pgn is not None and pgn.headers["Result"] == "0-1"
    assert [m.uci() for m in pgn.mainline_moves()] == game["uci"]
    assert download.text.strip() in client.get("/api/v1/games.pgn").text


def test_the_prompt_names_the_moves_that_need_a_promotion_piece(
    client: httpx.Client, runner: GameRunner
) -> None:
    fen = "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"
    assert client.post("/api/v1/game", json={"black": ENGINE, "fen": fen}).status_code == 202
    wait_for(runner.live, web_to_move(0))
    prompt = client.get("/api/v1/state").json()["prompt"]
    assert prompt["legal"]["e7"] == ["e8"] and prompt["promotion"] == ["e7e8"]
    assert client.post("/api/v1/move", json={"move": "e7e8r"}).json()["move"] == "e7e8r"
    state = wait_for(runner.live, web_to_move(2))
    assert state["game"]["san"][0] == "e8=R"
    client.post("/api/v1/command/resign", json={})
    assert runner.wait(30)


def test_a_draw_offer_is_answered_by_the_engine(client: httpx.Client, runner: GameRunner) -> None:
    client.post("/api/v1/game", json={"white": "web", "black": ENGINE})
    wait_for(runner.live, web_to_move(0))
    assert client.post("/api/v1/command/draw", json={}).status_code == 202
    state = wait_for(
        runner.live,
        lambda s: s["game"]["result"] is not None or any("declines" in n["message"] for n in s["notices"]),
    )
    if state["game"]["result"] is not None:  # an even position: the engine takes the draw
        assert (state["game"]["result"], state["game"]["termination"]) == ("1/2-1/2", "agreed draw")
    else:
        client.post("/api/v1/command/resign", json={})
    assert runner.wait(30)


def test_stop_resume_pause_and_continue(client: httpx.Client, runner: GameRunner) -> None:
    live = runner.live
    assert client.post("/api/v1/game", json={"white": ENGINE, "black": ENGINE}).status_code == 202
    wait_for(live, lambda s: s["game"] is not None and len(s["game"]["uci"]) >= 2)

    paused = client.post("/api/v1/pause", json={})
    assert paused.status_code == 202 and live.snapshot()["status"].startswith("paused")
    assert client.get("/api/v1/state").json()["runner"] == {
        "job": "game",
        "paused": True,
        "stopping": False,
        "leds": True,
    }
    assert client.post("/api/v1/continue", json={}).status_code == 202
    state = client.get("/api/v1/state").json()
    assert not state["status"].startswith("paused") and not state["runner"]["paused"]
    moved = plies(live)
    wait_for(live, lambda s: len(s["game"]["uci"]) > moved)  # the robot goes on

    assert client.post("/api/v1/stop", json={}).status_code == 202
    assert runner.wait(30)
    stopped = live.snapshot()["game"]
    assert stopped["result"] is None and "stopped" in live.snapshot()["status"]
    assert client.get("/api/v1/state").json()["runner"] == {
        "job": None,
        "paused": False,
        "stopping": False,
        "leds": False,
    }
    nothing = client.post("/api/v1/stop", json={})
    assert nothing.status_code == 409 and "nothing is running" in error_of(nothing)

    assert client.post("/api/v1/resume", json={}).status_code == 202
    state = wait_for(live, lambda s: s["game"] is not None and len(s["game"]["uci"]) > len(stopped["uci"]))
    assert (
        state["game"]["id"] == stopped["id"] and state["game"]["uci"][: len(stopped["uci"])] == stopped["uci"]
    )
    client.post("/api/v1/stop", json={})
    assert runner.wait(30)


def test_commands_while_the_table_is_busy_are_refused(client: httpx.Client, runner: GameRunner) -> None:
    client.post("/api/v1/game", json={"white": ENGINE, "black": ENGINE})
    busy = client.post("/api/v1/game", json={})
    assert busy.status_code == 409 and "stop it first" in error_of(busy)
    assert client.get("/api/v1/state").json()["runner"]["job"] == "game"
    assert client.post("/api/v1/reset", json={"target": "standard"}).status_code == 409
    assert client.post("/api/v1/resume", json={}).status_code == 409
    not_web = client.post("/api/v1/move", json={"move": "e4"})
    assert not_web.status_code == 409 and "web page" in error_of(not_web)
    assert client.post("/api/v1/command/hint", json={}).status_code == 409
    client.post("/api/v1/stop", json={})
    assert runner.wait(30)
    idle = client.post("/api/v1/pause", json={})
    assert idle.status_code == 409 and "nothing to pause" in error_of(idle)


def test_the_table_is_set_up_from_the_page(client: httpx.Client, runner: GameRunner) -> None:
    assert client.post("/api/v1/reset", json={"target": 0}).json() == {"accepted": "reset", "target": "0"}
    assert runner.wait(120) and runner.last_error is None
    table, _ = runner.live.table()
    assert table is not None and table.board_fen() == chess.Board.from_chess960_pos(0).board_fen()
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"  # set up a position: the rest goes to the zones
    assert client.post("/api/v1/reset", json={"target": fen}).status_code == 202
    assert runner.wait(120) and runner.last_error is None
    table, _ = runner.live.table()
    assert table is not None and table.board_fen() == chess.Board(fen).board_fen()
    assert f'data-fen="{chess.Board(fen).board_fen()}"' in client.get("/api/v1/board.svg").text


#: The LEDs' default colours (chessatron.feedback.signals.SignalColours) as the live state writes them.
GREEN, YELLOW, WARM_WHITE, BLUE, VIOLET = "#00c800", "#ffbe00", "#ffbe78", "#0050ff", "#a000ff"


def test_the_leds_show_a_picked_piece_the_engine_move_and_check(
    client: httpx.Client, runner: GameRunner
) -> None:
    live = runner.live
    assert client.post("/api/v1/game", json={"white": "web", "black": ENGINE}).status_code == 202
    wait_for(live, web_to_move(0))
    assert client.post("/api/v1/select", json={"square": "g1"}).json() == {
        "accepted": "select",
        "square": "g1",
    }
    state = wait_for(live, lambda s: bool(s["leds"]))
    assert state["leds"] == {"g1": WARM_WHITE, "f3": GREEN, "h3": GREEN}
    assert 'fill="#00c800"' in client.get("/api/v1/board.svg").text  # the board shows them too
    assert client.post("/api/v1/select", json={"square": None}).status_code == 202
    wait_for(live, lambda s: not s["leds"])
    theirs = client.post("/api/v1/select", json={"square": "e7"})
    assert theirs.status_code == 422 and error_of(theirs) == "the pawn on e7 is black's; it is white's move"
    empty = client.post("/api/v1/select", json={"square": "e4"})
    assert empty.status_code == 422 and error_of(empty) == "there is no piece on e4 to pick up"

    assert client.post("/api/v1/move", json={"move": "e4"}).status_code == 202
    state = wait_for(live, lambda s: web_to_move(2)(s) and bool(s["leds"]))
    reply = chess.Move.from_uci(state["game"]["uci"][1])
    assert state["leds"] == {
        chess.square_name(reply.from_square): BLUE,
        chess.square_name(reply.to_square): BLUE,
    }
    client.post("/api/v1/command/resign", json={})
    assert runner.wait(30)
    assert live.snapshot()["leds"] == {}  # out with the game

    # a king in check, and the piece that gives it
    fen = "4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"
    assert client.post("/api/v1/game", json={"black": ENGINE, "fen": fen}).status_code == 202
    state = wait_for(live, lambda s: web_to_move(0)(s) and bool(s["leds"]))
    assert state["leds"] == {"e1": VIOLET, "d2": VIOLET}
    client.post("/api/v1/select", json={"square": "e1"})  # the king: take the queen, or step aside
    state = wait_for(live, lambda s: "f1" in s["leds"])
    assert state["leds"] == {"e1": WARM_WHITE, "d2": YELLOW, "f1": GREEN}
    client.post("/api/v1/command/resign", json={})
    assert runner.wait(30)


def test_a_piece_picked_on_the_page_takes_the_robot_s_magnet_under_it(
    client: httpx.Client, runner: GameRunner
) -> None:
    live, layout = runner.live, runner.session.layout
    assert client.post("/api/v1/game", json={"white": "web", "black": ENGINE}).status_code == 202
    wait_for(live, web_to_move(0))
    ponder = runner.session.ponderer
    assert ponder is not None
    deadline = time.monotonic() + 60
    while not ponder.replies_ready() or ponder.is_pondering:  # the magnet waits among the likely moves
        assert time.monotonic() < deadline, "the engine never pondered"
        time.sleep(0.02)

    def at(state: Snapshot) -> tuple[float, float]:
        return state["gantry"]["x"], state["gantry"]["y"]

    # a knight (its every move begins with its own drag), one the magnet is not under already
    waiting = at(live.snapshot())
    for name in ("g1", "b1"):
        x, y = layout.node_mm(layout.square_node(chess.parse_square(name)))
        under = (round(x, 2), round(y, 2))
        if under != waiting:
            break
    assert client.post("/api/v1/select", json={"square": name}).status_code == 202
    wait_for(live, lambda s: at(s) == under, timeout_s=30)
    client.post("/api/v1/command/resign", json={})
    assert runner.wait(30)


def test_the_clock_reads_live_and_goes_with_its_game(client: httpx.Client, runner: GameRunner) -> None:
    live = runner.live
    assert client.post("/api/v1/game", json={"black": ENGINE, "clock": "5+3"}).status_code == 202
    wait_for(live, web_to_move(0))
    time.sleep(0.3)
    clock = client.get("/api/v1/state").json()["clock"]
    # as it reads now, not as it read when White's time started
    assert clock["running"] == "white" and clock["control"] == "5+3" and clock["white_ms"] <= 299_700
    assert clock["black_ms"] == 300_000
    client.post("/api/v1/command/resign", json={})
    assert runner.wait(30)
    assert client.get("/api/v1/state").json()["clock"]["running"] is None  # stopped with the game

    assert client.post("/api/v1/game", json={"black": ENGINE}).status_code == 202
    wait_for(live, web_to_move(0))
    assert client.get("/api/v1/state").json()["clock"] is None  # this game has none
    client.post("/api/v1/stop", json={})
    assert runner.wait(30)


def test_a_stopped_game_gets_its_pieces_back_after_a_set_up(
    client: httpx.Client, runner: GameRunner, tmp_path: Path
) -> None:
    live = runner.live
    client.post("/api/v1/game", json={"black": ENGINE})
    wait_for(live, web_to_move(0))
    client.post("/api/v1/move", json={"move": "d4"})
    game = wait_for(live, web_to_move(2))["game"]
    client.post("/api/v1/stop", json={})
    assert runner.wait(30)
    assert client.post("/api/v1/reset", json={"target": "100:200"}).status_code == 202
    assert runner.wait(120) and runner.last_error is None

    assert client.post("/api/v1/resume", json={}).status_code == 202
    state = wait_for(live, web_to_move(2))
    assert state["game"]["uci"] == game["uci"]
    table, _ = live.table()
    assert table is not None and table.board_fen() == chess.Board(game["fen"]).board_fen()
    # what the sensors see is the game, not the set-up: the robot put every piece back
    board = chess.Board(game["fen"])
    assert state["sensors"]["squares"] == [
        chess.square_name(s) for s in sorted(chess.SquareSet(board.occupied))
    ]
    client.post("/api/v1/move", json={"move": "c4"})
    wait_for(live, web_to_move(4))
    client.post("/api/v1/stop", json={})
    assert runner.wait(30) and runner.last_error is None
    # the simulator's table is saved as it stands: the next `chessatron serve` starts from it
    saved = load_state(tmp_path / "sim.json", Config.default().layout)
    final = live.snapshot()["game"]["fen"]
    assert saved.board.board_fen() == saved.table.board_fen() == chess.Board(final).board_fen()


# --- saved games in the viewer ---------------------------------------------------------------------

FOOLS_MATE = '[White "Ann"]\n[Black "Bob"]\n[Date "2023.04.01"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'


def data_fen(svg: str) -> str:
    start = svg.index('data-fen="') + len('data-fen="')
    return svg[start : svg.index('"', start)]


def test_a_saved_game_is_read_for_the_viewer_and_drawn_at_any_ply(
    client: httpx.Client, runner: GameRunner
) -> None:
    game_id = save_record(from_pgn(FOOLS_MATE), runner.games_dir)
    answer = client.get(f"/api/v1/games/{game_id}")
    assert answer.status_code == 200, answer.text
    game = answer.json()
    assert (game["id"], game["date"], game["white"]["name"], game["black"]["name"]) == (
        game_id,
        "2023-04-01",
        "Ann",
        "Bob",
    )
    assert game["uci"] == ["f2f3", "e7e5", "g2g4", "d8h4"] and game["san"] == ["f3", "e5", "g4", "Qh4#"]
    # the PGN does not say how it ended; its last position does
    assert (game["result"], game["termination"], game["in_progress"]) == ("0-1", "checkmate", False)
    assert (game["variant"], game["chess960"], game["start_fen"]) == ("standard", None, chess.STARTING_FEN)
    assert game["headers"]["White"] == "Ann" and game["headers"]["Result"] == "0-1"
    # the board after every ply, the start first: the page draws the game from them
    assert game["boards"] == [board_after(["f3", "e5", "g4", "Qh4#"][:ply]).board_fen() for ply in range(5)]

    def board(**params: str) -> httpx.Response:
        return client.get(f"/api/v1/games/{game_id}/board.svg", params=params)

    start, after_two, final = board(ply="0"), board(ply="2"), board()
    assert start.headers["content-type"].startswith("image/svg+xml")
    assert data_fen(start.text) == chess.STARTING_BOARD_FEN and "lastmove" not in start.text
    assert data_fen(after_two.text) == board_after(["f3", "e5"]).board_fen()
    assert 'lastmove e7"' in after_two.text and 'lastmove e5"' in after_two.text  # the last move marked
    mated = board_after(["f3", "e5", "g4", "Qh4#"])
    assert data_fen(final.text) == mated.board_fen() and 'data-ply="4"' in final.text  # no ply: the end
    assert "check_gradient" in final.text  # the mated king ringed
    turned = board(ply="2", orientation="black").text
    assert turned != after_two.text and data_fen(turned) == data_fen(after_two.text)

    past = board(ply="5")
    assert past.status_code == 422 and error_of(past) == (
        "ply 5 is past the end of this game; it has 4 plies (0 to 4)"
    )
    for bad in ("-1", "two", "1e3", ""):
        malformed = board(ply=bad)
        assert malformed.status_code == 400 and "whole number of half-moves" in error_of(malformed), bad
    assert not runner.busy and runner.session.robot is None


def test_a_chess960_game_says_its_start_number(client: httpx.Client, runner: GameRunner) -> None:
    board = chess.Board.from_chess960_pos(100)
    board.chess960 = True
    board.push_san("g3")
    game_id = save_record(from_pgn(to_pgn_text(board)), runner.games_dir)
    game = client.get(f"/api/v1/games/{game_id}").json()
    assert (game["variant"], game["chess960"], game["result"], game["termination"]) == (
        "chess960",
        100,
        "*",
        None,
    )
    assert game["in_progress"] is False  # imported: it can be viewed, not continued here
    start = client.get(f"/api/v1/games/{game_id}/board.svg", params={"ply": 0}).text
    assert data_fen(start) == chess.Board.from_chess960_pos(100).board_fen()
    refused = client.post("/api/v1/resume", json={"game": game_id})
    assert refused.status_code == 409 and "imported, not played on this table" in error_of(refused)


def to_pgn_text(board: chess.Board) -> str:
    return str(chess.pgn.Game.from_board(board))


def board_after(sans: list[str]) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def play_and_stop(client: httpx.Client, live: LiveState, first_move: str) -> Snapshot:
    """A game with the web player as White: its first move, the engine's answer, then stopped (saved)."""
    assert client.post("/api/v1/game", json={"white": "web", "black": ENGINE}).status_code == 202
    wait_for(live, lambda s: web_to_move(0)(s) and s["game"]["result"] is None)
    assert client.post("/api/v1/move", json={"move": first_move}).status_code == 202
    game: Snapshot = wait_for(live, web_to_move(2))["game"]
    assert client.post("/api/v1/stop", json={}).status_code == 202
    return game


def test_resume_continues_the_game_asked_for_not_just_the_latest(
    client: httpx.Client, runner: GameRunner
) -> None:
    live = runner.live
    older = play_and_stop(client, live, "e4")
    assert runner.wait(30)
    newer = play_and_stop(client, live, "d4")
    assert runner.wait(30)
    viewed = client.get(f"/api/v1/games/{older['id']}").json()
    assert viewed["in_progress"] is True and viewed["uci"] == older["uci"]
    assert viewed["white"]["kind"] == "web" and viewed["black"]["spec"] == ENGINE

    answer = client.post("/api/v1/resume", json={"game": older["id"]})
    assert answer.status_code == 202 and answer.json() == {"accepted": "resume", "game": older["id"]}
    state = wait_for(live, lambda s: s["game"]["id"] == older["id"] and web_to_move(2)(s))
    assert state["game"]["uci"] == older["uci"]
    # the robot put back the older game's pieces, which the newer game had moved
    table, _ = live.table()
    assert table is not None and table.board_fen() == chess.Board(older["fen"]).board_fen()

    busy = client.post("/api/v1/resume", json={"game": newer["id"]})
    assert busy.status_code == 409 and "stop it first" in error_of(busy)
    assert client.post("/api/v1/command/resign", json={}).status_code == 202
    assert runner.wait(30)
    over = client.post("/api/v1/resume", json={"game": older["id"]})
    assert over.status_code == 409
    assert (
        error_of(over) == f"game {older['id']!r} is over (0-1, resignation); it can be viewed, not continued"
    )
    assert client.get(f"/api/v1/games/{older['id']}").json()["in_progress"] is False

    # no id: the latest unfinished one, as before
    assert client.post("/api/v1/resume", json={}).json() == {"accepted": "resume", "game": newer["id"]}
    state = wait_for(live, lambda s: s["game"]["id"] == newer["id"] and web_to_move(2)(s))
    assert state["game"]["uci"] == newer["uci"]
    client.post("/api/v1/stop", json={})
    assert runner.wait(30)


# --- bad requests ----------------------------------------------------------------------------------

MALFORMED: list[tuple[str, str, dict[str, Any], int, str]] = [
    (
        "POST",
        "/api/v1/game",
        {"content": "white=web", "headers": {"content-type": "text/plain"}},
        415,
        "JSON",
    ),
    ("POST", "/api/v1/game", {"data": {"white": "web"}}, 415, "application/x-www-form-urlencoded"),
    ("POST", "/api/v1/game", {"content": b"{}"}, 415, "no content type"),
    ("POST", "/api/v1/game", {"content": "{not json", "headers": JSON}, 400, "not JSON"),
    ("POST", "/api/v1/game", {"content": "[" * 2000 + "]" * 2000, "headers": JSON}, 400, "JSON"),
    ("POST", "/api/v1/game", {"json": ["web"]}, 400, "JSON object"),
    ("POST", "/api/v1/game", {"json": {"white": 5}}, 400, "must be a string"),
    ("POST", "/api/v1/game", {"json": {"white": True}}, 400, "must be a string"),
    ("POST", "/api/v1/game", {"json": {"colour": "white"}}, 400, "unknown field 'colour'"),
    ("POST", "/api/v1/game", {"json": {"white": "engine:" + "1" * 60}}, 400, "characters long"),
    ("POST", "/api/v1/game", {"json": {"white": "x" * 10_000}}, 413, "larger than"),
    ("POST", "/api/v1/game", {"json": {"white": "script:/etc/passwd"}}, 422, "'script' player"),
    ("POST", "/api/v1/game", {"json": {"white": "keyboard"}}, 422, "'keyboard' player"),
    ("POST", "/api/v1/game", {"json": {"black": "engine:threads=64"}}, 422, "threads="),
    ("POST", "/api/v1/game", {"json": {"black": "engine:depth=999"}}, 422, "out of range"),
    ("POST", "/api/v1/game", {"json": {"black": "engine:25"}}, 422, "skill level 25"),
    ("POST", "/api/v1/game", {"json": {"chess960": 960}}, 422, "960"),
    ("POST", "/api/v1/game", {"json": {"chess960": "../x"}}, 422, "'../x'"),
    ("POST", "/api/v1/game", {"json": {"fen": "not a fen"}}, 422, "not a fen"),
    ("POST", "/api/v1/game", {"json": {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}}, 422, "not a legal position"),
    ("POST", "/api/v1/game", {"json": {"chess960": "5", "fen": chess.STARTING_FEN}}, 422, "not both"),
    ("POST", "/api/v1/game", {"json": {"clock": "0+0"}}, 422, "'0+0'"),
    ("POST", "/api/v1/move", {"json": {}}, 400, '"move" is missing'),
    ("POST", "/api/v1/move", {"json": {"move": ["e4"]}}, 400, "must be a string"),
    ("POST", "/api/v1/move", {"json": {"move": "e4; rm -rf /"}}, 400, "characters long"),
    ("POST", "/api/v1/move", {"json": {"move": "e4;ls"}}, 400, "is not a move"),
    ("POST", "/api/v1/select", {"json": {"square": "z9"}}, 400, "'z9' is not a square"),
    ("POST", "/api/v1/select", {"json": {"square": 12}}, 400, "must be a string"),
    ("POST", "/api/v1/select", {"json": {"square": "e2"}}, 409, "no player on the web page"),
    ("POST", "/api/v1/command/castle", {"json": {}}, 404, "no command 'castle'"),
    ("POST", "/api/v1/command/hint", {"json": {"now": True}}, 400, "unknown field 'now'"),
    ("POST", "/api/v1/stop", {"json": {"force": 1}}, 400, "unknown field 'force'"),
    ("POST", "/api/v1/reset", {"json": {"target": "960"}}, 422, "960"),
    ("POST", "/api/v1/reset", {"json": {"target": 12.5}}, 400, "must be a string or a whole number"),
    ("POST", "/api/v1/reset", {"json": {"target": "x" * 200}}, 400, "characters long"),
    ("POST", "/api/v1/reset", {"json": {"target": "8/8/8/8/8/8/8/8 w - - 0 1"}}, 422, "not a legal position"),
    ("GET", "/api/v1/games/..pgn", {}, 400, "no saved game can be called '.'"),
    ("GET", "/api/v1/games/..%2F..%2Fsim.json%00.pgn", {}, 404, "nothing at"),
    ("GET", "/api/v1/games/GAME.pgn", {}, 400, "lower-case"),
    ("GET", "/api/v1/games/0123456789abcdef.pgn", {}, 404, "no saved game '0123456789abcdef'"),
    ("GET", "/api/v1/board.svg?orientation=sideways", {}, 400, "'sideways'"),
    ("GET", "/api/v1/games/GAME", {}, 400, "lower-case"),
    ("GET", "/api/v1/games/a.b", {}, 400, "no saved game can be called 'a.b'"),
    ("GET", "/api/v1/games/0123456789abcdef", {}, 404, "no saved game '0123456789abcdef'"),
    ("GET", "/api/v1/games/x%20y/board.svg", {}, 400, "no saved game can be called 'x y'"),
    ("GET", "/api/v1/games/..%2Fsim.json/board.svg", {}, 404, "nothing at"),
    ("GET", "/api/v1/games/0123456789abcdef/board.svg?ply=1", {}, 404, "no saved game '0123456789abcdef'"),
    ("GET", "/api/v1/games/0123456789abcdef/board.svg?orientation=up", {}, 400, "'up'"),
    ("POST", "/api/v1/resume", {"json": {"game": "../sim.json"}}, 400, "no saved game can be called"),
    ("POST", "/api/v1/resume", {"json": {"game": 7}}, 400, '"game" must be a string'),
    ("POST", "/api/v1/resume", {"json": {"id": "abc"}}, 400, "unknown field 'id'; use game"),
    (
        "POST",
        "/api/v1/resume",
        {"json": {"game": "0123456789abcdef"}},
        404,
        "no saved game '0123456789abcdef'",
    ),
    ("POST", "/api/v1/resume", {"json": {}}, 409, "no unfinished game to resume"),
    ("GET", "/api/v1/move", {}, 405, "GET is not allowed"),
    ("DELETE", "/api/v1/game", {}, 405, "DELETE is not allowed"),
    ("GET", "/api/v2/state", {}, 404, "nothing at '/api/v2/state'"),
    ("POST", "/api/v1/game", {"json": {}, "headers": {"origin": "https://evil.example"}}, 403, "other pages"),
    ("POST", "/api/v1/game", {"json": {}, "headers": {"origin": "null"}}, 403, "other pages"),
    ("GET", "/api/v1/state", {"headers": {"host": "evil.example"}}, 403, "loopback"),
]


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "message"),
    MALFORMED,
    ids=[f"{m} {p} {s} {msg}" for m, p, _, s, msg in MALFORMED],
)
def test_bad_requests_get_a_clear_answer_and_never_reach_the_table(
    client: httpx.Client,
    runner: GameRunner,
    method: str,
    path: str,
    kwargs: dict[str, Any],
    status: int,
    message: str,
) -> None:
    before = runner.live.version
    answer = client.request(method, path, **kwargs)
    assert answer.status_code == status, answer.text
    assert message in error_of(answer)
    assert answer.headers["content-security-policy"]
    # nothing started: the machine was never even connected
    assert not runner.busy and runner.session.robot is None and runner.live.version == before


#: Requests the table cannot carry out: more pieces of a kind than it owns (its two sets and the reserve's
#: spares: 3 queens, 3 rooks, 3 bishops, 3 knights a side on the default table), an engine level outside
#: the engine's range; each answered 422 naming the field, and nothing created.
IMPOSSIBLE: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "/api/v1/game",
        {"fen": "4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1"},
        "fen",
        "4 white queens (Q) and the table has 3",
    ),
    (
        "/api/v1/game",
        {"fen": "rrrrk3/8/8/8/8/8/8/4K3 w - - 0 1"},
        "fen",
        "4 black rooks (r) and the table has 3",
    ),
    ("/api/v1/game", {"fen": "4k3/8/8/8/8/8/8/BBBBK3 w - - 0 1"}, "fen", "4 white bishops (B)"),
    ("/api/v1/game", {"fen": "nnnnk3/8/8/8/8/8/8/4K3 b - - 0 1"}, "fen", "4 black knights (n)"),
    ("/api/v1/reset", {"target": "4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1"}, "target", "4 white queens (Q)"),
    ("/api/v1/reset", {"target": "qqqqk3/8/8/8/8/8/8/4K3 w - - 0 1"}, "target", "4 black queens (q)"),
    ("/api/v1/game", {"black": "engine:3000elo"}, "black", "elo 3000 is outside the range"),
    ("/api/v1/game", {"black": "engine:100elo"}, "black", "elo 100 is outside the range"),
    ("/api/v1/game", {"white": "engine:9999elo:depth=2", "black": "web"}, "white", "elo 9999 is outside"),
    ("/api/v1/game", {"white": "hand:3000elo"}, "white", "elo 3000 is outside the range"),
    ("/api/v1/game", {"black": "engine:21"}, "black", "skill level 21 is outside 0 to 20"),
    ("/api/v1/game", {"black": "engine:-1"}, "black", "characters no player has"),
    ("/api/v1/game", {"black": "engine:0elo"}, "black", "not a rating"),
]


@pytest.mark.parametrize(
    ("path", "body", "field", "message"), IMPOSSIBLE, ids=[f"{p} {m}" for p, _, _, m in IMPOSSIBLE]
)
def test_what_the_table_cannot_do_is_refused_beside_its_field_and_creates_nothing(
    client: httpx.Client, runner: GameRunner, path: str, body: dict[str, Any], field: str, message: str
) -> None:
    before = runner.live.version
    answer = client.post(path, json=body)
    assert answer.status_code == 422, answer.text
    assert message in error_of(answer) and answer.json()["field"] == field
    # nothing started, nothing saved: no game for the list or for Resume
    assert not runner.busy and runner.session.robot is None and runner.live.version == before
    assert client.get("/api/v1/games").json() == [] and not runner.games_dir.exists()


def test_the_engine_range_named_is_the_engine_s_own(client: httpx.Client) -> None:
    elo = engine_options()["UCI_Elo"]
    assert elo.max is not None
    answer = client.post("/api/v1/game", json={"black": f"engine:{elo.max + 1}elo"})
    assert answer.status_code == 422
    assert f"outside the range {elo.min} to {elo.max}" in error_of(answer)
    highest = client.post("/api/v1/game", json={"black": f"engine:{elo.max}elo:depth=1", "white": ENGINE})
    assert highest.status_code == 202, highest.text
    client.post("/api/v1/stop", json={})


def test_castling_rights_that_do_not_fit_are_said_to_be_the_problem(client: httpx.Client) -> None:
    fen = "4k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1"  # no black rooks: black cannot castle
    answer = client.post("/api/v1/game", json={"fen": fen})
    assert answer.status_code == 422 and answer.json()["field"] == "fen"
    message = error_of(answer)
    assert "the castling rights 'KQkq' do not fit the position" in message and "only 'KQ'" in message
    assert "not a legal chess position" not in message
    fine = client.post("/api/v1/game", json={"fen": fen.replace("KQkq", "KQ"), "black": ENGINE})
    assert fine.status_code == 202
    client.post("/api/v1/stop", json={})


def test_a_game_stopped_before_its_first_move_leaves_nothing_behind(
    client: httpx.Client, runner: GameRunner
) -> None:
    assert client.post("/api/v1/game", json={"white": "web", "black": ENGINE}).status_code == 202
    wait_for(runner.live, web_to_move(0))
    assert client.post("/api/v1/stop", json={}).status_code == 202
    assert runner.wait(30)
    assert client.get("/api/v1/games").json() == []
    assert client.get("/api/v1/state").json()["game"] is None
    nothing = client.post("/api/v1/resume", json={})
    assert nothing.status_code == 409 and "no unfinished game" in error_of(nothing)


def test_resume_last_game_takes_the_latest_game_with_moves(client: httpx.Client, runner: GameRunner) -> None:
    played = play_and_stop(client, runner.live, "e4")
    assert runner.wait(30)
    # an older version of chessatron left a game with no move behind, started later
    later = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=1)
    metadata = GameMetadata(
        white=Player("", "web"),
        black=Player("", "engine"),
        config={"white": "web", "black": ENGINE},
        started=later,
    )
    journal = Journal.create(runner.games_dir, metadata)
    journal.close()
    answer = client.post("/api/v1/resume", json={})
    assert answer.status_code == 202 and answer.json()["game"] == played["id"]
    state = wait_for(runner.live, lambda s: s["game"]["id"] == played["id"] and web_to_move(2)(s))
    assert state["game"]["uci"] == played["uci"]
    client.post("/api/v1/stop", json={})
    assert runner.wait(30)


@pytest.fixture
def robot_at_speed_one(tmp_path: Path) -> Iterator[tuple[GameRunner, httpx.Client]]:
    """A runner whose simulated robot moves as fast as a real one (speed 1), with its page."""
    with GameRunner(
        Config.default(), games_dir=tmp_path / "games", speed=1.0, state_path=tmp_path / "sim.json"
    ) as runner:
        app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir)
        with start_in_thread(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
            yield runner, client


def test_a_move_is_the_player_s_once_accepted_while_the_robot_catches_up(
    robot_at_speed_one: tuple[GameRunner, httpx.Client],
) -> None:
    runner, client = robot_at_speed_one
    live = runner.live
    assert client.post("/api/v1/game", json={"white": "web", "black": ENGINE}).status_code == 202
    wait_for(live, web_to_move(0))
    assert client.post("/api/v1/move", json={"move": "g1f3"}).status_code == 202
    # in the game, in SAN, with its last move and the side to move, while the robot carries it out
    state = wait_for(live, lambda s: s["game"]["san"] == ["Nf3"], timeout_s=5)
    assert state["game"]["lastmove"] == "g1f3" and state["game"]["turn"] == "black"
    moving = wait_for(live, lambda s: s["gantry"]["work"] is not None, timeout_s=5)
    assert moving["gantry"]["work"]["title"] == "MOVE 1 g1f3" and moving["game"]["san"] == ["Nf3"]
    table, _ = live.table()
    assert table is not None and table.board_fen() == chess.STARTING_BOARD_FEN  # the knight still on g1
    client.post("/api/v1/stop", json={})
    assert runner.wait(60)


def test_the_engine_s_view_comes_at_every_level_for_every_position(
    client: httpx.Client, runner: GameRunner
) -> None:
    """A weak engine (skill 1) plays other moves than its search's first: each position still has the
    engine's evaluation, and so has each position after the player's moves."""
    seen: dict[str, bool] = {}

    def watch(version: int) -> None:
        state = runner.live.snapshot()
        game, evaluation = state["game"], state["evaluation"]
        if game is not None and game["uci"]:
            fen = game["fen"]
            seen[fen] = seen.get(fen, False) or (evaluation is not None and evaluation["fen"] == fen)

    stop = runner.live.listen(watch)
    weak = "engine:1:depth=6"
    assert client.post("/api/v1/game", json={"white": weak, "black": weak}).status_code == 202
    wait_for(runner.live, lambda s: s["game"] is not None and len(s["game"]["uci"]) >= 12)
    client.post("/api/v1/stop", json={})
    assert runner.wait(30)
    stop()
    assert len(seen) >= 12 and all(seen.values()), [fen for fen, judged in seen.items() if not judged]
    assert client.get("/api/v1/state").json()["evaluation"] is not None


def _raw_http(url: str) -> socket.socket:
    host, port = url.split("//", 1)[1].split("/", 1)[0].split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def test_a_page_that_goes_away_or_sends_a_bad_frame_leaves_no_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    live = LiveState(Config.default().layout)
    app = create_app(None, live, token=None, games_dir=tmp_path)
    with caplog.at_level(logging.INFO), start_in_thread(app) as page:
        # a page that hangs up in the middle of its request's body (a closed tab, a lost network)
        with _raw_http(page.url) as hung_up:
            hung_up.sendall(
                b"POST /api/v1/move HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 100\r\n\r\n{"mo'
            )
            time.sleep(0.2)
        # a page whose WebSocket text frame is not UTF-8
        with _raw_http(page.url) as feed:
            host = page.url.split("//", 1)[1].split("/", 1)[0]
            key = base64.b64encode(os.urandom(16))
            feed.sendall(
                b"GET /api/v1/live HTTP/1.1\r\nHost: " + host.encode() + b"\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\n"
                b"Origin: http://" + host.encode() + b"\r\n\r\n"
            )
            assert feed.recv(4096).startswith(b"HTTP/1.1 101")
            payload, mask = b"\xff\xfe not text", os.urandom(4)
            masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
            feed.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
            closing = b""
            deadline = time.monotonic() + 5
            while b"\x88" not in closing and time.monotonic() < deadline:
                closing += feed.recv(4096)
            assert b"\x88\x02\x03\xef" in closing  # closed with 1007: invalid payload data
        with httpx.Client(base_url=page.url) as client:  # and it answers on as before
            assert client.get("/api/v1/state").status_code == 200
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR], caplog.text
    assert "a page sent a WebSocket text frame that is not UTF-8: closed it (1007)" in caplog.text


def test_a_page_that_only_watches_refuses_every_command(tmp_path: Path) -> None:
    live = LiveState(Config.default().layout)
    app = create_app(None, live, token=None, games_dir=tmp_path)
    with start_in_thread(app) as page, httpx.Client(base_url=page.url) as client:
        assert client.get("/api/v1").json()["watch_only"] is True
        assert client.get("/api/v1/state").json()["status"] == "idle"
        for path, body in [
            ("game", {}),
            ("move", {"move": "e4"}),
            ("select", {"square": "e2"}),
            ("command/hint", {}),
            ("reset", {}),
        ]:
            answer = client.post(f"/api/v1/{path}", json=body)
            assert answer.status_code == 409 and "only watches" in error_of(answer), path
        assert client.get("/api/v1/games").json() == []
        assert client.get("/api/v1/games.pgn").text == ""


# --- the token ------------------------------------------------------------------------------------


@pytest.fixture
def guarded_server(runner: GameRunner) -> Iterator[ServerHandle]:
    app = create_app(runner, runner.live, token=TOKEN, games_dir=runner.games_dir)
    with start_in_thread(app, token=TOKEN) as handle:
        yield handle


@pytest.fixture
def guarded(guarded_server: ServerHandle) -> Iterator[httpx.Client]:
    base = guarded_server.url.split("?")[0]
    with httpx.Client(base_url=base, headers={"host": "chess.local:8960"}) as client:
        yield client


def test_without_the_token_nothing_answers(
    guarded: httpx.Client, guarded_server: ServerHandle, runner: GameRunner
) -> None:
    for method, path in [
        ("GET", "/static/app.js"),
        ("GET", "/api/v1/state"),
        ("POST", "/api/v1/game"),
    ]:
        answer = guarded.request(method, path, json={} if method == "POST" else None)
        assert answer.status_code == 401, path
        assert "token" in error_of(answer) and answer.headers["www-authenticate"].startswith("Bearer")
    # the page itself (a bookmark whose cookie is gone) says in words how to get in
    page = guarded.get("/")
    assert page.status_code == 401 and page.headers["content-type"].startswith("text/html")
    assert "needs its link" in page.text and "QR code" in page.text and "<script" not in page.text
    wrong = guarded.get("/api/v1/state", params={"token": "guess"})
    assert wrong.status_code == 401 and "wrong token" in error_of(wrong)
    bearer = guarded.get("/api/v1/state", headers={"authorization": "Bearer guess"})
    assert bearer.status_code == 401
    with pytest.raises(InvalidStatus) as denied, feed(guarded_server.url):
        pass
    assert denied.value.response.status_code == 401
    assert not runner.busy and runner.session.robot is None


def test_the_link_with_the_token_opens_the_page_for_good(
    guarded: httpx.Client, guarded_server: ServerHandle
) -> None:
    page = guarded.get("/", params={"token": TOKEN})
    assert page.status_code == 200
    cookie = page.headers["set-cookie"].lower()
    # kept a year, so that a phone's bookmark of the page (without ?token=) goes on working
    assert "httponly" in cookie and "samesite=strict" in cookie and "max-age=31536000" in cookie
    again = guarded.get("/")  # the bookmark: the cookie alone, renewed for another year
    assert again.status_code == 200 and "max-age=31536000" in again.headers["set-cookie"].lower()
    assert guarded.get("/api/v1").json()["token"] is True
    # the page's own requests carry the cookie; any host name will do once the token is known
    assert guarded.get("/api/v1/state").status_code == 200
    assert guarded.get("/static/app.js").status_code == 200
    cookie = f"chessatron_token={guarded.cookies['chessatron_token']}"
    with feed(guarded_server.url, additional_headers={"cookie": cookie}) as socket:
        assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
    guarded.cookies.clear()
    assert guarded.get("/api/v1/state", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert guarded.get("/api/v1/state").status_code == 401


def test_a_browser_forgets_the_token_when_asked(guarded: httpx.Client) -> None:
    assert guarded.get("/", params={"token": TOKEN}).status_code == 200
    assert guarded.get("/api/v1/state").status_code == 200
    forgotten = guarded.post("/api/v1/forget", json={})
    assert forgotten.status_code == 200 and 'chessatron_token=""' in forgotten.headers["set-cookie"]
    assert "max-age=0" in forgotten.headers["set-cookie"].lower()
    assert guarded.get("/api/v1/state").status_code == 401
    assert guarded.get("/").status_code == 401


# --- the live feed ---------------------------------------------------------------------------------


def feed(url: str, **kwargs: Any) -> ClientConnection:
    socket: ClientConnection = connect(
        url.replace("http://", "ws://").split("?")[0] + "api/v1/live", proxy=None, **kwargs
    )
    return socket


def receive_until(
    socket: ClientConnection, state: Snapshot, condition: Callable[[Snapshot], bool], timeout_s: float = 30
) -> int:
    """Apply messages to ``state`` until ``condition`` holds; returns how many it took."""
    count = 0
    while not condition(state):
        message = json.loads(socket.recv(timeout=timeout_s))
        count += 1
        if message["type"] == "snapshot":
            state.clear()
            state.update(message["state"])
        else:
            state.update(message["parts"], version=message["version"])
            for part, changed in message.get("patch", {}).items():
                state[part] = {**state[part], **changed}
    return count


def test_the_feed_sends_the_state_then_each_change(
    served: ServerHandle, client: httpx.Client, runner: GameRunner
) -> None:
    http = client
    with feed(served.url) as socket:
        first = json.loads(socket.recv(timeout=10))
        assert first["type"] == "snapshot" and first["state"]["status"] == "idle"
        state: Snapshot = first["state"]
        assert http.post("/api/v1/game", json={"white": "web", "black": ENGINE}).status_code == 202
        receive_until(socket, state, lambda s: s["prompt"] is not None)
        assert http.post("/api/v1/move", json={"move": "f3"}).status_code == 202
        receive_until(socket, state, lambda s: s["game"]["san"][:1] == ["f3"])
        receive_until(socket, state, lambda s: s["prompt"] is not None and len(s["game"]["san"]) == 2)
        # the page's copy, built from the changes alone, is the server's state (whose version may have
        # moved on by changes that left all the page holds as it was: those are not sent); read while the
        # feed is quiet on both sides of the request (the magnet may still head for the reply meanwhile)
        for _ in range(20):
            with contextlib.suppress(TimeoutError):  # the web player thinks: the feed falls quiet
                receive_until(socket, state, lambda s: False, timeout_s=0.5)
            server = http.get("/api/v1/state").json()
            with contextlib.suppress(TimeoutError):
                receive_until(socket, state, lambda s: False, timeout_s=0.5)
            if {**state, "version": 0} == {**server, "version": 0}:
                break
        assert {**state, "version": 0} == {**server, "version": 0}
    http.post("/api/v1/command/resign", json={})
    assert runner.wait(30)


def test_a_burst_of_changes_arrives_as_its_latest_state(tmp_path: Path) -> None:
    live = LiveState(Config.default().layout)
    with start_watch_page(live) as page, feed(page.url) as socket:
        state: Snapshot = json.loads(socket.recv(timeout=10))["state"]
        for n in range(500):
            live.update(status=f"tick {n}")
        messages = receive_until(socket, state, lambda s: s["status"] == "tick 499")
        assert messages < 500  # coalesced, and the page ends on the latest


class StuckPage:
    """A WebSocket whose page stopped reading: every send waits for ever."""

    def __init__(self) -> None:
        self.closed: int | None = None

    async def accept(self) -> None:
        pass

    async def send_text(self, text: str) -> None:
        await asyncio.Event().wait()

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = code


def test_a_page_that_stops_reading_is_dropped_and_never_holds_up_the_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "SEND_TIMEOUT_S", 0.3)
    live = LiveState(Config.default().layout)
    page = StuckPage()
    changes = 0

    async def watch() -> None:
        nonlocal changes
        served = asyncio.ensure_future(Feed(live, Snapshots(live)).serve(page))  # type: ignore[arg-type]
        while not served.done():  # the game goes on changing the state meanwhile
            live.update(status=f"tick {changes}")
            changes += 1
            await asyncio.sleep(0.01)

    asyncio.run(asyncio.wait_for(watch(), 10))
    assert page.closed == feed_module.CLOSE_TRY_AGAIN and changes > 10


def test_a_page_on_the_network_offers_its_link_to_phones_as_a_qr_code(runner: GameRunner) -> None:
    link = f"http://192.168.1.20:8960/?token={TOKEN}"
    app = create_app(runner, runner.live, token=TOKEN, games_dir=runner.games_dir, link=link)
    with start_in_thread(app, token=TOKEN) as handle:
        base = handle.url.split("?")[0]
        with httpx.Client(base_url=base, headers={"authorization": f"Bearer {TOKEN}"}) as client:
            assert client.get("/api/v1").json()["phone_link"] is True
            code = client.get("/api/v1/link.svg")
            assert code.status_code == 200 and code.headers["content-type"].startswith("image/svg+xml")
            assert code.text.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "<path" in code.text
        assert httpx.get(base + "api/v1/link.svg").status_code == 401  # it holds the token: not for all


def test_a_page_on_this_machine_only_has_no_link_for_phones(client: httpx.Client) -> None:
    assert client.get("/api/v1").json()["phone_link"] is False
    answer = client.get("/api/v1/link.svg")
    assert answer.status_code == 404 and "--host 0.0.0.0" in error_of(answer)


def test_the_feed_refuses_pages_without_the_token_and_from_elsewhere(runner: GameRunner) -> None:
    app = create_app(runner, runner.live, token=TOKEN, games_dir=runner.games_dir)
    with start_in_thread(app, token=TOKEN) as handle:
        assert handle.url.endswith(f"?token={TOKEN}")
        with pytest.raises(InvalidStatus) as refused, feed(handle.url):
            pass
        assert refused.value.response.status_code == 401
        with pytest.raises(InvalidStatus) as foreign, feed(handle.url, origin=Origin("https://evil.example")):
            pass
        assert foreign.value.response.status_code == 403
        headers = {"Authorization": f"Bearer {TOKEN}"}
        with feed(handle.url, additional_headers=headers) as socket:
            assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"


def test_closing_the_page_and_stopping_the_server_leave_the_game_running(
    served: ServerHandle, client: httpx.Client, runner: GameRunner
) -> None:
    http = client
    assert http.post("/api/v1/game", json={"white": ENGINE, "black": ENGINE}).status_code == 202
    with feed(served.url) as socket:
        state: Snapshot = json.loads(socket.recv(timeout=10))["state"]
        receive_until(socket, state, lambda s: s["game"] is not None and len(s["game"]["uci"]) >= 2)
    served.stop()
    with pytest.raises(httpx.ConnectError):
        http.get("/api/v1/state")
    before = plies(runner.live)
    wait_for(runner.live, lambda s: s["game"]["result"] is not None or len(s["game"]["uci"]) >= before + 4)
    assert runner.busy or runner.live.snapshot()["game"]["result"] is not None
    runner.stop()
    assert runner.wait(30)


# --- the command -----------------------------------------------------------------------------------


@contextlib.contextmanager
def serve_command(tmp_path: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """``chessatron serve`` in a process of its own; killed if a test leaves it running (a failure)."""
    (tmp_path / "chessatron.toml").write_text("# the defaults: everything simulated\n")
    env = {
        **os.environ,
        "CHESSATRON_STATE": str(tmp_path / "sim.json"),
        "CHESSATRON_GAMES": str(tmp_path / "games"),
        "CHESSATRON_CONFIG": str(tmp_path / "chessatron.toml"),
    }
    command = [sys.executable, "-m", "chessatron.cli", "serve", "--port", "0", "--speed", "max", *args]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as process:
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


def test_serve_prints_the_link_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    with serve_command(tmp_path) as process:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("the page: http://127.0.0.1:"), first
        url = first.split()[-1]
        assert "token" not in url
        for _ in range(100):
            try:
                answer = httpx.get(url + "api/v1/state", timeout=5)
                break
            except httpx.ConnectError:
                time.sleep(0.05)
        assert answer.status_code == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0


def test_serve_beyond_the_loopback_address_needs_the_printed_token(tmp_path: Path) -> None:
    with serve_command(tmp_path, "--host", "0.0.0.0") as process:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        assert "?token=" in url and len(url.split("?token=")[1]) >= 16
        port = url.split(":")[2].split("/")[0]
        local = f"http://127.0.0.1:{port}/api/v1/state"
        for _ in range(100):
            try:
                denied = httpx.get(local, timeout=5)
                break
            except httpx.ConnectError:
                time.sleep(0.05)
        assert denied.status_code == 401
        assert httpx.get(local, params={"token": url.split("?token=")[1]}, timeout=5).status_code == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0


def printed_token(tmp_path: Path, *args: str) -> str:
    with serve_command(tmp_path, "--host", "0.0.0.0", *args) as process:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        port = url.split(":")[2].split("/")[0]
        for _ in range(200):  # serving (a Ctrl-C before that ends the start-up, 130)
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/v1", timeout=5)
                break
            except httpx.ConnectError:
                time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert process.returncode == 0
    return url.split("?token=")[1]


def test_the_link_stays_the_same_from_one_start_to_the_next_until_a_new_token(tmp_path: Path) -> None:
    first = printed_token(tmp_path)
    kept = tmp_path / "web-token"  # beside the simulator's state
    assert kept.read_text().strip() == first and kept.stat().st_mode & 0o077 == 0  # for this user only
    assert printed_token(tmp_path) == first  # a bookmark still works
    renewed = printed_token(tmp_path, "--new-token")
    assert renewed != first and kept.read_text().strip() == renewed
    assert printed_token(tmp_path, "--token", "my-own-token") == "my-own-token"
    assert kept.read_text().strip() == renewed  # a token given for once is not kept


def test_stopping_the_service_stops_the_game_at_the_robot_s_next_safe_point_saved(tmp_path: Path) -> None:
    with serve_command(tmp_path, "--speed", "1") as process:  # real time: the robot is busy when it comes
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        started = httpx.post(url + "api/v1/game", json={"white": ENGINE, "black": ENGINE}, timeout=30)
        assert started.status_code == 202
        deadline = time.monotonic() + 60
        while not httpx.get(url + "api/v1/state", timeout=5).json()["gantry"]["work"]:
            assert time.monotonic() < deadline, "the robot never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)  # systemctl stop
        stopping = time.monotonic()
        output, errors = process.communicate(timeout=60)
    # the robot put down the piece it held and stopped there: no waiting for the whole set-up or move
    assert time.monotonic() - stopping < 20
    assert process.returncode == 0 and "Traceback" not in errors, errors
    assert "stopping at the next safe point (the robot puts down the piece it holds)" in output
    (saved,) = list_games(tmp_path / "games")  # kept, even in its set-up: `--resume` finishes that
    assert saved.in_progress and saved.has_begun


def test_after_ctrl_c_a_game_without_a_web_player_goes_on_until_ctrl_c_again(tmp_path: Path) -> None:
    with serve_command(tmp_path, "--speed", "1") as process:  # real time: the robot is still busy
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        started = httpx.post(url + "api/v1/game", json={"white": ENGINE, "black": ENGINE}, timeout=30)
        assert started.status_code == 202
        process.send_signal(signal.SIGINT)
        lines = [process.stdout.readline(), process.stdout.readline()]
        assert lines[0].startswith("Ctrl-C stops the server") and "goes on to the end" in lines[1], lines
        assert process.poll() is None  # still playing, the server gone
        with pytest.raises(httpx.ConnectError):
            httpx.get(url + "api/v1/state", timeout=5)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    assert process.returncode == 0 and "it is saved: `chessatron play --resume` continues it" in output
    (saved,) = list_games(tmp_path / "games")
    assert saved.in_progress and saved.white.kind == "engine"


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--token", "short"], "the token 'short' must be 8 to 128"), (["--speed", "fast"], "'fast' is not")],
)
def test_serve_refuses_bad_options_plainly(tmp_path: Path, args: list[str], message: str) -> None:
    with serve_command(tmp_path, *args) as process:
        _, errors = process.communicate(timeout=30)
    assert process.returncode == 2 and message in errors and "Traceback" not in errors


def test_a_new_game_after_a_stopped_game_with_a_person_at_the_board(
    client: httpx.Client, runner: GameRunner
) -> None:
    live = runner.live
    assert client.post("/api/v1/game", json={"white": ENGINE, "black": "hand:20:depth=1"}).status_code == 202
    wait_for(live, lambda s: s["game"] is not None and len(s["game"]["uci"]) >= 2)
    client.post("/api/v1/stop", json={})
    assert runner.wait(60)
    assert client.post("/api/v1/game", json={"white": ENGINE, "black": ENGINE}).status_code == 202
    wait_for(live, lambda s: s["game"] is not None and len(s["game"]["uci"]) >= 2)
    assert runner.last_error is None
    client.post("/api/v1/stop", json={})
    assert runner.wait(60) and runner.last_error is None


def test_a_person_speaking_their_moves_plays_a_game_started_from_the_page(
    client: httpx.Client, runner: GameRunner
) -> None:
    """On the simulator the microphone's simulated person says the moves; each is read back and
    confirmed, then carried out by the robot. Buttons the config lacks are refused beside the field."""
    refused = client.post("/api/v1/game", json={"white": "buttons", "black": ENGINE})
    assert refused.status_code == 422 and "the buttons player needs buttons" in refused.text
    assert runner.live.snapshot()["game"] is None
    assert client.post("/api/v1/game", json={"white": "voice", "black": ENGINE}).status_code == 202
    snapshot = wait_for(runner.live, lambda s: s["game"] is not None and len(s["game"]["uci"]) >= 2, 120)
    assert snapshot["game"]["white"] == "voice"
    client.post("/api/v1/stop", json={})
    assert runner.wait(60) and runner.last_error is None
