"""A person at the board whose move the sensors cannot settle alone: the game asks (the web page, the
events, the LEDs blinking the candidates' squares) and goes on with the answer; and the robot never answers
a move the person is still making."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import httpx
import pytest

from chessatron.config import Config
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.runner import GameRunner
from chessatron.game.session import Session
from chessatron.planning.layout import Cell
from chessatron.sim.hand import HandAction, perform
from chessatron.sim.hand_style import HandStyle
from chessatron.web.server import ServerHandle

ENGINE = "engine:20:depth=1"
#: White's knight on d4 can take the queen on e6 or the pawn on b5: set on the queen and pushing it off,
#: it leaves the same board as on the pawn.
RIVALS = "6k1/8/4q3/1p6/3N4/8/8/6K1 w - - 0 1"

Snapshot = dict[str, Any]


def wait_for(
    live_of: Callable[[], Snapshot], condition: Callable[[Snapshot], bool], timeout_s: float = 60
) -> Snapshot:
    deadline = time.monotonic() + timeout_s
    while True:
        snapshot = live_of()
        if condition(snapshot):
            return snapshot
        assert time.monotonic() < deadline, f"gave up waiting; the state is {snapshot['status']!r}"
        time.sleep(0.05)


def plies(snapshot: Snapshot) -> int:
    game = snapshot["game"]
    return 0 if game is None else len(game["uci"])


def test_a_person_asked_which_capture_answers_on_the_web_page_and_the_game_goes_on(
    runner: GameRunner, served: ServerHandle
) -> None:
    runner.session.hand_style = HandStyle.only("displacement")
    runner.session.hand_answers = False  # the simulated person leaves the answer to the page
    with httpx.Client(base_url=served.url, timeout=30) as client:
        answered = client.post("/api/v1/answer", json={"move": "Nxe6"})
        assert answered.status_code == 409  # nothing is asked yet
        started = client.post("/api/v1/game", json={"white": "hand", "black": ENGINE, "fen": RIVALS})
        assert started.status_code == 202, started.text
        asked = wait_for(lambda: client.get("/api/v1/state").json(), lambda s: s["question"] is not None)
        question = asked["question"]
        assert question["text"] in ("Nxb5 or Nxe6?", "Nxe6 or Nxb5?")
        assert {o["uci"] for o in question["options"]} == {"d4e6", "d4b5"}
        assert plies(asked) == 0  # nothing guessed meanwhile, the engine has not answered
        # the LEDs blink the candidates' squares
        lit = wait_for(lambda: client.get("/api/v1/state").json(), lambda s: bool(s["leds"]), 10)["leds"]
        assert set(lit) <= {"d4", "e6", "b5"}
        wrong = client.post("/api/v1/answer", json={"move": "Nf3"})
        assert wrong.status_code == 422 and "Nxe6" in wrong.json()["error"]
        # the hand took the queen (its brain's choice); the player says so
        right = client.post("/api/v1/answer", json={"move": "Nxe6"})
        assert right.status_code == 202, right.text
        going = wait_for(lambda: client.get("/api/v1/state").json(), lambda s: plies(s) >= 2)
        assert going["game"]["uci"][0] == "d4e6" and going["question"] is None
        client.post("/api/v1/stop", json={})
    runner.wait(30)
    assert not runner.session.world or not runner.session.world.twin.violations


def test_a_simulated_person_answers_by_lifting_the_capturing_piece_again(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = []
    white, black = PlayerSpec.parse("hand"), PlayerSpec.parse(ENGINE)
    with Session(Config.default(), games_dir=tmp_path / "games", speed=None, emit=events.append) as session:
        session.hand_style = HandStyle.only("displacement")
        session.connect()
        journal = session.new_game(white, black, chess.Board(RIVALS))
        with journal:
            session.play(journal, white, black, max_plies=2)
        asked = [e for e in events if e["event"] == "question"]
        assert asked[0]["question"]["text"] in ("Nxb5 or Nxe6?", "Nxe6 or Nxb5?")
        assert asked[-1]["question"] is None  # settled
        assert journal.board().move_stack[0].uci() == "d4e6"
        assert len(journal.board().move_stack) == 2
        assert session.world is not None and not session.world.twin.violations


CASTLE = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def test_the_robot_answers_castling_made_rook_first_not_the_rook_move(tmp_path: Path) -> None:
    # a real person (the test, from another thread) moves the rook, pauses, then the king: the rook move
    # is seen first, but the robot waits for the move to stand and answers the castling
    script = tmp_path / "black.pgn"
    script.write_text(f'[FEN "{CASTLE}"]\n[SetUp "1"]\n\n4. O-O Nf6 *\n', encoding="utf-8")
    white, black = PlayerSpec.parse("board"), PlayerSpec.parse(f"script:{script}")
    events: list[dict[str, Any]] = []
    failures: list[BaseException] = []
    with Session(Config.default(), games_dir=tmp_path / "games", speed=None, emit=events.append) as session:
        session.connect()
        assert session.world is not None
        world, layout = session.world, session.layout

        def cell(square: str) -> Cell:
            return layout.square_cell(chess.parse_square(square))

        journal = session.new_game(white, black, chess.Board(CASTLE))

        def person() -> None:
            try:
                wait_for(session.live.snapshot, lambda s: s["status"] == "white to move")
                time.sleep(0.5)
                steps = [
                    (0.0, "lift", cell("h1"), "R"),
                    (0.2, "place", cell("f1"), "R"),
                    (1.2, "lift", cell("e1"), "K"),  # a second's pause: the rook move is seen alone
                    (1.5, "place", cell("g1"), "K"),
                ]
                perform(world, [HandAction(t, k, c, p, "person") for t, k, c, p in steps], realtime=True)  # type: ignore[arg-type]
                # the robot has carried the answer out (a stop would otherwise end its work there)
                wait_for(session.live.snapshot, lambda s: plies(s) == 2 and s["status"] == "white to move")
            except BaseException as exc:
                failures.append(exc)
            finally:
                session.stop_requested.set()

        helper = threading.Thread(target=person)
        helper.start()
        with journal, pytest.raises(KeyboardInterrupt):
            session.play(journal, white, black)
        helper.join()
        assert not failures, failures
        assert [m.uci() for m in journal.board().move_stack] == ["e1g1", "g8f6"]
        journaled = [e["uci"] for e in events if e["event"] == "move"]
        revised = [e for e in events if e["event"] == "revised"]
        # the rook move was journaled for a moment, then revised; the robot never answered it
        assert journaled == ["h1f1", "g8f6"] and [e["uci"] for e in revised] == [["e1g1"]]
        assert revised[0]["undone"] == "h1f1"
        session.table.check_matches(journal.board())
        assert not world.twin.violations
