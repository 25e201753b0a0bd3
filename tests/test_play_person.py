"""A real person at the board (no simulated brain): pieces put where they like, moves taken back by hand.

The test plays the person: it moves pieces in the simulated twin from another thread, as someone at the
table would, while the session reads the simulated sensors in real time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import pytest

from chessatron.config import Config
from chessatron.feedback.speaker import SimSpeaker
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.session import Session
from chessatron.planning.layout import Cell
from chessatron.sim.hand import HandAction, perform
from chessatron.sim.world import SimWorld

START = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def wait_until(session: Session, condition: Callable[[dict[str, Any]], bool], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition(session.live.snapshot()):
        assert time.monotonic() < deadline, (
            session.live.snapshot()["status"],
            session.live.snapshot()["game"]["uci"],
        )
        session.live.wait(session.live.version, 0.2)


def act(world: SimWorld, *steps: tuple[str, Cell, str]) -> None:
    """A person's hand: each step (lift or place, a cell, the piece's letter) 0.15 s after the last."""
    actions = [
        HandAction(0.15 * (k + 1), kind, where, symbol, "person")  # type: ignore[arg-type]
        for k, (kind, where, symbol) in enumerate(steps)
    ]
    perform(world, actions, realtime=True)


def to_move(plies: int) -> Callable[[dict[str, Any]], bool]:
    return lambda s: s["status"] == "white to move" and len(s["game"]["uci"]) == plies


def test_a_person_puts_a_captured_piece_anywhere_and_takes_moves_back_by_hand(tmp_path: Path) -> None:
    script = tmp_path / "black.pgn"
    script.write_text(f'[FEN "{START}"]\n[SetUp "1"]\n\n2. exd5 Nf6 *\n', encoding="utf-8")
    white, black = PlayerSpec.parse("board"), PlayerSpec.parse(f"script:{script}")
    failures: list[BaseException] = []
    with Session(Config.default(), games_dir=tmp_path / "games", speed=None) as session:
        session.connect()
        layout = session.layout
        assert session.world is not None
        world = session.world

        def cell(square: str) -> Cell:
            return layout.square_cell(chess.parse_square(square))

        journal = session.new_game(white, black, chess.Board(START))
        black_pawn = session.table.board_pieces()[chess.D5]
        # not the cell the robot would choose (the first free one): the person's own choice
        zone = session.table.free_capture_cells(chess.BLACK, "p")[-1]
        assert zone != session.table.free_capture_cells(chess.BLACK, "p")[0]

        def person() -> None:
            try:
                wait_until(session, to_move(0))
                time.sleep(0.5)
                act(
                    world,
                    ("lift", cell("d5"), "p"),
                    ("place", zone, "p"),
                    ("lift", cell("e4"), "P"),
                    ("place", cell("d5"), "P"),
                )
                wait_until(session, to_move(2))
                # the robot answered Nf6: the model follows the zone sensors to the pawn's real cell
                assert session.table.node_of(black_pawn.id) == layout.cell_node(zone)
                time.sleep(0.5)
                act(world, ("lift", cell("f6"), "n"), ("place", cell("g8"), "n"))
                act(world, ("lift", cell("d5"), "P"), ("place", cell("e4"), "P"))
                act(world, ("lift", zone, "p"), ("place", cell("d5"), "p"))
                wait_until(session, to_move(0))
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
        # the takeback is journaled and the model stands as the table does: the start position
        assert journal.board().fen() == START
        session.table.check_matches(chess.Board(START))
        assert session.table.board_pieces()[chess.D5].id == black_pawn.id
        assert not world.twin.violations


def test_a_move_that_is_not_legal_is_told_in_words_and_aloud(tmp_path: Path) -> None:
    """A pawn pushed three squares: the LEDs light it red, and the terminal, the web page's notices and
    the speaker say why and what to put back; the legal move made after it is played."""
    script = tmp_path / "black.pgn"
    script.write_text(f'[FEN "{START}"]\n[SetUp "1"]\n\n2. Nf3 Nf6 *\n', encoding="utf-8")
    white, black = PlayerSpec.parse("board"), PlayerSpec.parse(f"script:{script}")
    config = Config.from_dict({"speech": {"url": "sim://", "muted": False}})
    events: list[dict[str, Any]] = []
    failures: list[BaseException] = []
    with Session(config, games_dir=tmp_path / "games", speed=None, emit=events.append) as session:
        session.connect()
        layout = session.layout
        assert session.world is not None
        world = session.world

        def cell(square: str) -> Cell:
            return layout.square_cell(chess.parse_square(square))

        def person() -> None:
            try:
                wait_until(session, to_move(0))
                time.sleep(0.5)
                act(world, ("lift", cell("g1"), "N"), ("place", cell("g4"), "N"))  # a knight cannot go there
                wait_until(session, lambda s: any(e["event"] == "warning" for e in events))
                act(world, ("lift", cell("g4"), "N"), ("place", cell("f3"), "N"))
            except BaseException as exc:
                failures.append(exc)
                session.stop_requested.set()

        journal = session.new_game(white, black, chess.Board(START))
        helper = threading.Thread(target=person)
        helper.start()
        with journal:
            session.play(journal, white, black, max_plies=2)
        helper.join()
        assert not failures, failures
        assert [m.uci() for m in journal.board().move_stack] == ["g1f3", "g8f6"]
        warning = next(e for e in events if e["event"] == "warning")
        assert warning["message"] == "that is not a legal move: put the knight from g4 back on g1"
        notices = session.live.snapshot()["notices"]
        assert any(n["level"] == "warning" and "g4 back on g1" in n["message"] for n in notices)
        assert isinstance(session.speaker, SimSpeaker)
        assert any(text.startswith("Warning: That is not a legal move") for text in session.speaker.texts())
