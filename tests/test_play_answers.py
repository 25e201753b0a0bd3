"""The board's question answered at the terminal: when the sensors cannot tell two captures apart, the
prompt asks "Which move was made at the board: Nxb5 or Nxe6?", Tab completes the two moves, a wrong
answer is explained and the question asked again, and the game goes on with the answer."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import chess

from chessatron.config import Config
from chessatron.game.players.answers import QuestionPrompt
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session
from chessatron.game.telling import lineinput
from chessatron.sim.hand_style import HandStyle

ENGINE = "engine:20:depth=1"
#: White's knight on d4 can take the queen on e6 or the pawn on b5: set on the queen and pushing it off,
#: it leaves the same board as on the pawn.
RIVALS = "6k1/8/4q3/1p6/3N4/8/8/6K1 w - - 0 1"
QUESTION = {
    "text": "Nxb5 or Nxe6?",
    "ply": 0,
    "options": [{"uci": "d4b5", "san": "Nxb5"}, {"uci": "d4e6", "san": "Nxe6"}],
}


def test_the_person_types_which_capture_they_made(tmp_path: Path) -> None:
    typed = iter(["Nf3", "nxe6"])
    prompts: list[str] = []
    offered: list[list[str]] = []
    shown: list[str] = []

    def read_line(prompt: str) -> str:
        prompts.append(str(prompt))
        offered.append(lineinput.completions("nx"))  # what Tab completes "nx" to
        return next(typed, "Nxe6")  # (never hangs the game, should it be asked more)

    keyboard = KeyboardPlayer(read_line, shown.append)
    events: list[dict[str, Any]] = []

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        questions.follow(event)

    white, black = PlayerSpec.parse("hand"), PlayerSpec.parse(ENGINE)
    with Session(Config.default(), games_dir=tmp_path / "games", speed=None, emit=emit) as session:
        session.hand_style = HandStyle.only("displacement")
        session.hand_answers = False  # a person: the question waits for an answer
        questions = QuestionPrompt(
            keyboard,
            session.answer,
            lambda: session.live.snapshot()["game"],
            hands_answer=lambda: session.hand_answers,
        )
        with questions:
            session.connect()
            journal = session.new_game(white, black, chess.Board(RIVALS))
            with journal:
                session.play(journal, white, black, max_plies=2)
    assert prompts[0] in (
        "Which move was made at the board: Nxb5 or Nxe6? ",
        "Which move was made at the board: Nxe6 or Nxb5? ",
    )
    assert sorted(offered[0]) == ["Nxb5", "Nxe6"]  # Tab offers the two moves asked about, nothing else
    assert any("'Nf3' is not one of the moves asked about" in line for line in shown)
    assert len(prompts) == 2  # asked again after the wrong answer, then settled
    assert journal.board().move_stack[0].uci() == "d4e6"
    assert [e["question"] for e in events if e["event"] == "question"][-1] is None  # settled


def wait_until(condition: Any, timeout_s: float = 10) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_question_settled_at_the_board_takes_the_prompt_away() -> None:
    release = threading.Event()
    prompts: list[str] = []

    def read_line(prompt: str) -> str:
        prompts.append(str(prompt))
        release.wait(10)  # the person types nothing meanwhile
        return "Nxe6"

    answered: list[str] = []
    game = {"white": "board", "black": "engine:3", "start_fen": RIVALS}
    with QuestionPrompt(
        KeyboardPlayer(read_line, lambda line: None), answered.append, lambda: game
    ) as asking:
        asking.follow({"event": "question", "question": QUESTION})
        assert wait_until(lambda: prompts)
        asking.follow({"event": "question", "question": None})  # the piece lifted and set down again
        release.set()
        time.sleep(0.3)
    assert answered == []  # the line typed after it was settled answers nothing


def test_no_question_at_the_prompt_when_nobody_types_or_a_simulated_hand_answers() -> None:
    reads: list[str] = []

    def end_of_input(prompt: str) -> None:
        reads.append(str(prompt))
        return None

    by_board = {"white": "board", "black": "engine:3", "start_fen": RIVALS}
    with QuestionPrompt(KeyboardPlayer(end_of_input, lambda line: None), print, lambda: by_board) as asking:
        asking.follow({"event": "question", "question": QUESTION})
        assert wait_until(lambda: asking.ended)  # the input ended (a service, a pipe): asked no more
        asking.follow({"event": "question", "question": None})
        asking.follow({"event": "question", "question": {**QUESTION, "text": "Nxe6 or Nxb5?"}})
        time.sleep(0.2)
    assert len(reads) == 1
    by_hand = {**by_board, "white": "hand"}
    reads.clear()
    with QuestionPrompt(KeyboardPlayer(end_of_input, lambda line: None), print, lambda: by_hand) as asking:
        asking.follow({"event": "question", "question": QUESTION})  # the hand lifts the piece again
        time.sleep(0.2)
    assert reads == []
