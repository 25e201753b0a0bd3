"""Online games end to end on the simulator, against the fake lichess server (:mod:`tests.fake_lichess`)
through berserk: a simulated person at the sensor board plays the server's opponent, the robot carries out
the opponent's moves; offers both ways, a stream that drops, HTTP 429, an opponent who resigns or leaves,
a first move that comes too late; and two tables playing each other through the server.

What a user would notice is checked: the game's moves here are the server's, the saved game's PGN holds
them, the table ends in the final position with the twin clean, every opponent move was the robot's and
every move of the person's was not.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from chessatron.config import Config
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.records import store
from chessatron.game.records.record import GameRecord
from chessatron.game.session import Session
from chessatron.online.client import LichessClient
from chessatron.online.model import OnlineRequest
from chessatron.online.table import OnlineTable, Waits

from .fake_lichess import FakeLichess, Script

ANN, BOB = "lip_ann_token_1", "lip_bob_token_2"
HAND = "hand:20:depth=1"
WAITS = Waits(game_s=10.0, challenge_s=20.0, seek_s=20.0, accept_s=20.0)


@pytest.fixture
def fake() -> Iterator[FakeLichess]:
    with FakeLichess() as server:
        server.add_user("Ann", ANN)
        yield server


@dataclass
class Played:
    """A game played at a simulated table, and what the table saw."""

    record: GameRecord
    events: list[dict[str, Any]]
    violations: list[object]
    table_fen: str
    sleeps: list[float] = field(default_factory=list)
    drops: int = 0
    journal_id: str = ""


def play(
    tmp_path: Path,
    fake: FakeLichess,
    request: OnlineRequest,
    *,
    player: str = HAND,
    token: str = ANN,
    world: str = "default",
    keyboard: KeyboardPlayer | None = None,
    on_event: Any = None,
    waits: Waits = WAITS,
) -> Played:
    """Play ``request`` at a simulated table (its own world, games folder) to the game's end."""
    config = Config.from_dict({"grbl": {"url": f"sim://{world}"}, "sensors": {"url": f"sim://{world}"}})
    events: list[dict[str, Any]] = []
    sleeps: list[float] = []

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        if on_event is not None:
            on_event(event)

    games = tmp_path / world / "games"
    with (
        LichessClient(fake.url, token, sleep=sleeps.append) as client,
        Session(config, games_dir=games, speed=None, emit=emit, keyboard=keyboard) as session,
    ):
        table = OnlineTable(session, client, PlayerSpec.parse(player), waits=waits, sleep=lambda s: None)
        record = table.play(table.start(request))
        assert session.world is not None
        game = session.live.snapshot()["game"]
        return Played(
            record,
            events,
            list(session.world.twin.violations),
            session.table.board_fen(),
            sleeps,
            table._feed.drops,
            game["id"] if game else "",
        )


def server_moves(fake: FakeLichess) -> list[chess.Move]:
    return list(fake.game().board.move_stack)


def saved_pgn_moves(tmp_path: Path, played: Played, world: str = "default") -> list[chess.Move]:
    text = store.export_pgn([played.journal_id], tmp_path / world / "games")
    import io

    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return list(game.mainline_moves())


def robot_moved_only_the_opponents_pieces(events: list[dict[str, Any]], ours: str) -> bool:
    """Every opponent move was followed by robot work, and no move of the person's was."""
    movers = []
    for event in events:
        if event["event"] == "move":
            movers.append([event["who"], 0])
        elif event["event"] == "relocation" and movers:
            movers[-1][1] += 1
    return (
        bool(movers)
        and all((count > 0) == (who == "online") for who, count in movers)
        and any(who == ours for who, _ in movers)
    )


@pytest.mark.parametrize("chess960", [False, True])
def test_a_person_at_the_board_plays_the_ai_to_the_end(
    tmp_path: Path, fake: FakeLichess, chess960: bool
) -> None:
    """The opponent's draw offer and takeback request are declined by the person's next move."""
    fake.script = Script(offer_draw_at=2, propose_takeback_at=4)
    played = play(tmp_path, fake, OnlineRequest(ai=3, chess960=chess960, clock="10+5"))
    game = fake.game()
    assert game.over and played.record.result != "*"
    assert list(played.record.moves) == server_moves(fake)
    assert saved_pgn_moves(tmp_path, played) == server_moves(fake)
    assert played.record.start_fen == chess.Board(game.board.root().fen(), chess960=chess960).fen()
    assert played.table_fen == game.board.board_fen()
    assert played.violations == []
    assert robot_moved_only_the_opponents_pieces(played.events, HAND)
    messages = " | ".join(str(e.get("message")) for e in played.events)
    assert "offers a draw" in messages and "asks to take back" in messages
    if chess960:
        kinds = [e["event"] for e in played.events]
        assert kinds.index("setup") < kinds.index("move")  # the robot set the position up first
        assert played.record.chess960


def test_dropped_streams_reconnect_and_the_game_goes_on(tmp_path: Path, fake: FakeLichess) -> None:
    moves = [0]

    def drop(event: dict[str, Any]) -> None:
        if event["event"] == "move":
            moves[0] += 1
            if moves[0] in (3, 8):
                fake.drop_streams(abrupt=moves[0] == 8)

    played = play(tmp_path, fake, OnlineRequest(ai=2), on_event=drop)
    assert played.drops >= 2
    assert list(played.record.moves) == server_moves(fake) and fake.game().over
    assert played.violations == []


def test_too_many_requests_wait_a_minute_and_go_on(tmp_path: Path, fake: FakeLichess) -> None:
    fake.answer_429(r"/move/", times=2)
    played = play(tmp_path, fake, OnlineRequest(ai=2))
    assert played.sleeps.count(60.0) == 2
    assert list(played.record.moves) == server_moves(fake) and fake.game().over


def test_a_seek_finds_an_opponent(tmp_path: Path, fake: FakeLichess) -> None:
    played = play(tmp_path, fake, OnlineRequest(seek="10+0", color="white"))
    assert fake.game().source == "lobby"
    assert list(played.record.moves) == server_moves(fake)
    assert played.record.white.name == "Ann"


def test_the_opponent_resigns(tmp_path: Path, fake: FakeLichess) -> None:
    fake.script = Script(resign_at=6)
    played = play(tmp_path, fake, OnlineRequest(ai=1, color="white"))
    assert (played.record.result, played.record.termination) == ("1-0", "resignation")
    assert list(played.record.moves) == server_moves(fake)


def test_a_person_plays_online_by_voice(tmp_path: Path, fake: FakeLichess) -> None:
    """On the simulator a simulated person says each move into the microphone; each is read back and
    confirmed before it goes to the server, and the robot carries out both sides' moves (nobody at a
    voice table touches a piece)."""
    fake.script = Script(resign_at=6)
    played = play(tmp_path, fake, OnlineRequest(ai=1, color="white"), player="voice")
    assert (played.record.result, played.record.termination) == ("1-0", "resignation")
    assert list(played.record.moves) == server_moves(fake)
    assert played.violations == [] and played.table_fen == fake.game().board.board_fen()
    movers: list[list[Any]] = []
    for event in played.events:
        if event["event"] == "move":
            movers.append([event["who"], 0])
        elif event["event"] == "relocation" and movers:
            movers[-1][1] += 1
    assert {who for who, _ in movers} == {"voice", "online"} and all(count > 0 for _, count in movers)
    prompts = [e["prompt"] for e in played.events if e["event"] == "voice"]
    assert "confirm" in prompts


def test_an_opponent_who_leaves_loses_on_a_claim(tmp_path: Path, fake: FakeLichess) -> None:
    fake.script = Script(leave_at=3, claim_win_in_s=0)
    played = play(tmp_path, fake, OnlineRequest(ai=1, color="white"))
    assert (played.record.result, played.record.termination) == ("1-0", "abandoned")
    assert any("opponent left" in str(e.get("message")) for e in played.events)
    claims = [path for method, path in fake.requests if path.rstrip("/").endswith("/claim-victory")]
    assert claims == [f"/api/board/game/{fake.game().id}/claim-victory"]


def test_a_first_move_that_does_not_come_aborts_the_game(tmp_path: Path) -> None:
    silent = threading.Event()

    def never(prompt: str) -> str | None:
        silent.wait(10)
        return None

    with FakeLichess(first_move_s=2.0) as fake:
        fake.add_user("Ann", ANN)
        played = play(
            tmp_path,
            fake,
            OnlineRequest(ai=1, color="white"),
            player="keyboard",
            keyboard=KeyboardPlayer(never),
        )
        silent.set()
        assert fake.game().status == "aborted"
    assert played.record.result == "*"
    assert any(e.get("status") == "aborted" for e in played.events)
    assert store.list_games(tmp_path / "default" / "games") == []  # nothing left to resume


def keyboard(lines: list[str]) -> KeyboardPlayer:
    """A player typing ``lines``, one a prompt (then nothing: the game goes on without them)."""
    queue = iter(lines)
    done = threading.Event()

    def read(prompt: str) -> str | None:
        line = next(queue, None)
        if line is None:
            done.wait(30)
        return line

    return KeyboardPlayer(read, lambda text: None)


def test_offers_both_ways_through_the_keyboard(tmp_path: Path, fake: FakeLichess) -> None:
    """The person takes back a move (agreed: the robot puts the pieces back), agrees to the opponent's
    takeback, asks for a hint (none online), then accepts the opponent's draw offer."""
    fake.script = Script(propose_takeback_at=4, offer_draw_at=6, accepts_takeback=True, accepts_draw=True)
    lines = ["e4", "takeback", "d4", "Nf3", "takeback", "hint", "g3", "draw"]
    played = play(
        tmp_path, fake, OnlineRequest(ai=1, color="white"), player="keyboard", keyboard=keyboard(lines)
    )
    assert (played.record.result, played.record.termination) == ("1/2-1/2", "agreed draw")
    assert list(played.record.moves) == server_moves(fake)
    takebacks = [e["plies"] for e in played.events if e["event"] == "takeback"]
    assert takebacks == [2, 1]
    messages = " | ".join(str(e.get("message")) for e in played.events)
    assert "asks to take back" in messages and "offers a draw" in messages and "no hints" in messages
    assert not any(e["event"] == "hint" for e in played.events)
    assert played.table_fen == fake.game().board.board_fen() and played.violations == []


def test_two_tables_play_each_other(tmp_path: Path, fake: FakeLichess) -> None:
    fake.add_user("Bob", BOB)
    results: dict[str, Played] = {}
    failures: list[BaseException] = []

    def table(name: str, token: str, request: OnlineRequest) -> None:
        try:
            results[name] = play(tmp_path, fake, request, token=token, world=name)
        except BaseException as exc:
            failures.append(exc)

    bob = threading.Thread(target=table, args=("bob", BOB, OnlineRequest(accept=True)))
    bob.start()
    fake.wait_for(lambda: any(m == "GET" and p == "/api/stream/event" for m, p in fake.requests))
    table("ann", ANN, OnlineRequest(challenge="Bob", color="white", clock="15+10"))
    bob.join(120)
    assert not failures, failures
    ann, bob_played = results["ann"], results["bob"]
    moves = server_moves(fake)
    assert list(ann.record.moves) == list(bob_played.record.moves) == moves and ann.record.result != "*"
    assert ann.record.result == bob_played.record.result
    for played in (ann, bob_played):
        assert played.violations == [] and played.table_fen == fake.game().board.board_fen()
        assert robot_moved_only_the_opponents_pieces(played.events, HAND)


def test_a_draw_offered_from_the_table_is_agreed_and_a_takeback_declined(
    tmp_path: Path, fake: FakeLichess
) -> None:
    fake.script = Script(accepts_draw=True, accepts_takeback=False)
    played = play(
        tmp_path,
        fake,
        OnlineRequest(ai=1, color="white"),
        player="keyboard",
        keyboard=keyboard(["e4", "takeback", "draw"]),
    )
    assert (played.record.result, played.record.termination) == ("1/2-1/2", "agreed draw")
    assert len(played.record.moves) == 2 and list(played.record.moves) == server_moves(fake)
    assert not any(e["event"] == "takeback" for e in played.events)
    assert any("does not agree to take back" in str(e.get("message")) for e in played.events)


def test_a_move_made_elsewhere_for_the_person_is_carried_out_by_the_robot(
    tmp_path: Path, fake: FakeLichess
) -> None:
    """The person plays their moves on the lichess website instead of the board: the robot makes them."""
    fake.script = Script(resign_at=4)
    done = threading.Event()
    failed: list[BaseException] = []

    def played_plies(plies: int) -> bool:
        return bool(fake.games) and len(fake.game().board.move_stack) >= plies

    def website() -> None:
        try:
            with LichessClient(fake.url, ANN) as phone:
                for plies, uci in ((0, "e2e4"), (2, "d2d4")):
                    # the opponent has answered (counted: its answer may come before a look at whose turn
                    # it is); generous, as on a loaded machine the table's set-up takes a while
                    fake.wait_for(functools.partial(played_plies, plies), 300)
                    done.wait(0.3)  # the table is waiting for the person
                    phone.move(fake.game().id, uci)
        except BaseException as exc:  # the keyboard stops waiting, and the test says why
            failed.append(exc)
            done.set()

    def silent(prompt: str) -> str | None:
        done.wait(300)  # (a person who never types: the moves come from the website)
        return None

    phone = threading.Thread(target=website)
    phone.start()
    try:
        played = play(
            tmp_path,
            fake,
            OnlineRequest(ai=1, color="white"),
            player="keyboard",
            keyboard=KeyboardPlayer(silent),
        )
    except KeyboardInterrupt:  # the silent keyboard's end of input: no move came from the website
        pytest.fail(f"the website's moves did not come: {failed!r}")
    done.set()
    phone.join(10)
    assert not failed, failed
    assert [m.uci() for m in played.record.moves][::2] == ["e2e4", "d2d4"]
    assert (played.record.result, played.record.termination) == ("1-0", "resignation")
    moves = [e for e in played.events if e["event"] == "move"]
    assert all(e["who"] == "online" for e in moves)  # all from the server, the robot making every one
    assert played.table_fen == fake.game().board.board_fen() and played.violations == []
