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
from chessatron.game.players import PlayerSpec
from chessatron.game.session import Session
from chessatron.planning.layout import Cell
from chessatron.sim.hand import HandAction, perform

START = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def wait_until(session: Session, condition: Callable[[dict[str, Any]], bool], timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition(session.live.snapshot()):
        assert time.monotonic() < deadline, (
            session.live.snapshot()["status"],
            session.live.snapshot()["game"]["uci"],
        )
        session.live.wait(session.live.version, 0.2)


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

        def act(*steps: tuple[str, Cell, str]) -> None:
            t = 0.0
            actions = []
            for kind, where, symbol in steps:
                t += 0.15
                actions.append(HandAction(t, kind, where, symbol, "person"))  # type: ignore[arg-type]
            perform(world, actions, realtime=True)

        def person() -> None:
            try:
                wait_until(session, to_move(0))
                time.sleep(0.5)
                act(
                    ("lift", cell("d5"), "p"),
                    ("place", zone, "p"),
                    ("lift", cell("e4"), "P"),
                    ("place", cell("d5"), "P"),
                )
                wait_until(session, to_move(2))
                # the robot answered Nf6: the model follows the zone sensors to the pawn's real cell
                assert session.table.node_of(black_pawn.id) == layout.cell_node(zone)
                time.sleep(0.5)
                act(("lift", cell("f6"), "n"), ("place", cell("g8"), "n"))
                act(("lift", cell("d5"), "P"), ("place", cell("e4"), "P"))
                act(("lift", zone, "p"), ("place", cell("d5"), "p"))
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
