"""The online game's pure parts (the server's JSON as values, how games end, what brings the table in step
with the server, the requests a user can make) and the client's manners with a server (one request at a
time, a minute's wait after HTTP 429, retries, its refusals in words), against the fake lichess server."""

from __future__ import annotations

import datetime as dt
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from chessatron.config import Config
from chessatron.errors import ConfigError, LoginError, OnlineGameError, ProtocolError, ServerRefusedError
from chessatron.game.players.base import Command
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session
from chessatron.online.client import LichessClient
from chessatron.online.feed import GameFeed
from chessatron.online.model import (
    Account,
    OnlineRequest,
    board_after,
    clock_view,
    outcome_of,
    parse_game_full,
    parse_game_state,
)
from chessatron.online.opponent import next_step
from chessatron.online.table import OnlineTable, is_lichess
from chessatron.online.token import ENV_VAR, find_token, keep_token

from .fake_lichess import FakeLichess

ANN = "lip_ann_token_1"


def full(
    moves: str = "", *, variant: str = "standard", fen: str = "startpos", **state: object
) -> dict[str, object]:
    return {
        "type": "gameFull",
        "id": "abcd1234",
        "variant": {"key": variant},
        "white": {"id": "ann", "name": "Ann", "rating": 1500},
        "black": {"id": "bob", "name": "Bob", "rating": 1600},
        "initialFen": fen,
        "clock": {"initial": 300000, "increment": 3000},
        "state": {
            "type": "gameState",
            "moves": moves,
            "wtime": 300000,
            "btime": 300000,
            "status": "started",
            **state,
        },
    }


def test_castling_the_server_writes_either_way_is_the_same_move() -> None:
    info, _ = parse_game_full(full())
    standard = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"
    assert (
        board_after(info, f"{standard} e1h1".split()).move_stack
        == board_after(info, f"{standard} e1g1".split()).move_stack
    )
    chess960, _ = parse_game_full(
        full(variant="chess960", fen="bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1")
    )
    board = board_after(chess960, ["g2g3", "g7g6", "f1e3", "f8e6", "g1h1"])  # king onto rook: castled
    assert board.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE) or board.piece_at(chess.H1)
    with pytest.raises(ProtocolError, match="not legal"):
        board_after(info, ["e2e5"])


def test_a_variant_the_table_does_not_play_is_refused() -> None:
    info, _ = parse_game_full(full(variant="atomic"))
    with pytest.raises(OnlineGameError, match="atomic"):
        info.start_board()


def test_berserk_clock_readings_and_offers_are_read() -> None:
    state = parse_game_state(
        {
            "moves": "e2e4",
            "wtime": dt.timedelta(seconds=290),
            "btime": 300000,
            "status": "started",
            "btakeback": True,
            "expiration": {"idleMillis": 2000, "millisToMove": 30000},
        }
    )
    assert (state.white_ms, state.black_ms, state.takeback_offer, state.first_move_ms) == (
        290000,
        300000,
        False,
        28000,
    )


@pytest.mark.parametrize(
    ("status", "winner", "moves", "ended"),
    [
        ("mate", "white", "f2f3 e7e5 g2g4 d8h4", ("1-0", "checkmate")),
        ("resign", "black", "", ("0-1", "resignation")),
        ("outoftime", "white", "", ("1-0", "time forfeit")),
        ("timeout", "black", "", ("0-1", "abandoned")),
        ("draw", None, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", ("1/2-1/2", "threefold repetition")),
        ("draw", None, "e2e4", ("1/2-1/2", "agreed draw")),
        ("stalemate", None, "", ("1/2-1/2", "stalemate")),
        ("aborted", None, "", None),
        ("noStart", None, "", None),
        ("started", None, "e2e4", None),
    ],
)
def test_how_the_server_ended_a_game(
    status: str, winner: str | None, moves: str, ended: tuple[str, str] | None
) -> None:
    extra = {"winner": winner} if winner else {}
    info, state = parse_game_full(full(moves, status=status, **extra))
    assert outcome_of(state, board_after(info, state.moves)) == ended


def test_the_clocks_run_once_both_sides_have_moved() -> None:
    info, state = parse_game_full(full("e2e4"))
    assert clock_view(info, state, chess.BLACK) == {
        "white_ms": 300000,
        "black_ms": 300000,
        "running": None,
        "control": "5+3",
    }
    info, state = parse_game_full(full("e2e4 e7e5"))
    assert clock_view(info, state, chess.WHITE)["running"] == "white"  # type: ignore[index]


def test_the_table_takes_back_before_it_catches_up() -> None:
    e4, e5, c5, nf3 = (chess.Move.from_uci(m) for m in ("e2e4", "e7e5", "c7c5", "g1f3"))
    assert next_step([e4, e5, nf3], [e4, c5]) == Command.TAKEBACK
    assert next_step([e4], [e4, c5, nf3]) == c5
    assert next_step([e4, c5], [e4, c5]) is None


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({}, "say which game"),
        ({"ai": 1, "accept": True}, "say which game"),
        ({"ai": 0}, "levels 1 to 8"),
        ({"seek": "5+0"}, "too fast to seek"),
        ({"seek": "ten"}, "not a time control"),
        ({"ai": 2, "clock": "200+0"}, "at most 180 minutes"),
    ],
)
def test_requests_a_user_gets_wrong(fields: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        OnlineRequest(**fields)  # type: ignore[arg-type]


class StubClient:
    """A client whose server is lichess.org and whose account is a person's (or a BOT's)."""

    def __init__(self, *, bot: bool) -> None:
        self.url = "https://lichess.org"
        self._account = Account("ann", "Ann", bot)

    def account(self) -> Account:
        return self._account


@pytest.mark.parametrize("bot", [False, True])
def test_on_lichess_org_an_engine_plays_only_for_a_bot(tmp_path: Path, bot: bool) -> None:
    assert is_lichess("https://lichess.org/") and not is_lichess("http://127.0.0.1:9663")
    with Session(Config.default(), games_dir=tmp_path) as session:
        table = OnlineTable(session, StubClient(bot=bot), PlayerSpec.parse("engine:3"))  # type: ignore[arg-type]
        if bot:
            table.check_player()
        else:
            with pytest.raises(ConfigError, match="BOT account"):
                table.check_player()


def test_a_token_from_the_environment_wins_over_a_kept_one(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    keep_token("https://lichess.org", "lip_kept_token", path=path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert find_token("https://lichess.org/", env={}, path=path)[0] == "lip_kept_token"
    assert find_token("https://lichess.org", env={ENV_VAR: "lip_env_token"}, path=path)[0] == "lip_env_token"
    with pytest.raises(LoginError, match="online login"):
        find_token("https://example.org", env={}, path=path)


@pytest.fixture
def fake() -> Iterator[FakeLichess]:
    with FakeLichess() as server:
        server.add_user("Ann", ANN)
        yield server


def test_http_429_waits_a_minute_then_goes_on(fake: FakeLichess) -> None:
    waits: list[float] = []
    fake.answer_429("/api/account", times=2)
    with LichessClient(fake.url, ANN, sleep=waits.append) as client:
        assert client.account().name == "Ann"
    assert waits == [60.0, 60.0]
    assert fake.requests.count(("GET", "/api/account")) == 3


def test_one_request_at_a_time(fake: FakeLichess) -> None:
    """Requests from several threads reach the server one after the other, never two at once."""
    with LichessClient(fake.url, ANN) as client:
        game_id = client.challenge_ai(1, clock=None, color="white", variant="standard")["id"]
        fake.answer_s = 0.02
        threads = [threading.Thread(target=client.draw, args=(game_id, False)) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert fake.requests.count(("POST", f"/api/board/game/{game_id}/draw/no")) == 6
    assert fake.most_in_flight == 1


def test_the_servers_refusal_is_said_in_its_words(fake: FakeLichess) -> None:
    with LichessClient(fake.url, ANN) as client:
        game_id = client.challenge_ai(1, clock=None, color="black", variant="standard")["id"]
        fake.wait_for(lambda: bool(fake.game(game_id).board.move_stack))
        with pytest.raises(ServerRefusedError, match="the server refused: Invalid move: e2e4") as refused:
            client.move(game_id, "e2e4")
        assert refused.value.status == 400


def test_a_bot_account_plays_through_the_bot_api(fake: FakeLichess) -> None:
    fake.add_user("Robo", "lip_robo_token", title="BOT")
    with LichessClient(fake.url, "lip_robo_token") as client:
        game_id = client.challenge_ai(1, clock=None, color="white", variant="standard")["id"]
        client.move(game_id, "e2e4")
        lines = client.game(game_id)
        next(lines)
        assert next(lines)["type"] == "gameFull"
    assert ("POST", f"/api/bot/game/{game_id}/move/e2e4") in fake.requests
    assert ("GET", f"/api/bot/game/stream/{game_id}") in fake.requests


def test_a_silent_stream_is_opened_again_and_catches_up(fake: FakeLichess) -> None:
    """A server that stops sending even its keep-alive lines: the stream gives up after the read timeout,
    opens again, and its first line has what happened meanwhile."""
    with LichessClient(fake.url, ANN, timeouts=(5.0, 0.5)) as client:
        game_id = client.challenge_ai(1, clock=None, color="white", variant="standard")["id"]
        feed = GameFeed(lambda: client.game(game_id), sleep=lambda s: None)
        feed.start()
        feed.ready(5)
        fake.stall_streams(2.0)
        client.move(game_id, "e2e4")
        state = feed.wait(lambda s: len(s.moves) == 2, 10)
        feed.close()
    assert feed.drops >= 1
    assert state.moves[0] == "e2e4" and len(state.moves) == 2
