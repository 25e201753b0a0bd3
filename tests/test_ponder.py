"""The reply starts before the move: the engine thinks on the person's time, the empty magnet waits where
the reply begins, and nothing of it ever moves a piece or touches a held machine."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import chess
import chess.engine
import pytest

from chessatron.config import Config
from chessatron.game.engine import EnginePlayer, parse_level
from chessatron.game.players import PlayerSpec
from chessatron.game.ponder import Ponderer, likely_moves_of, waiting_spot
from chessatron.game.session import Session
from chessatron.grbl.link import GrblLink
from chessatron.layout import Layout
from chessatron.planner import Planner
from chessatron.recognition import PieceLifted
from chessatron.robot import Robot
from chessatron.sim.world import SimWorld, forget_world, register_world
from chessatron.table import Table
from chessatron.timing import Timer

LAYOUT = Layout.default()
#: Full strength at a fixed depth: the same move every time, so a hit can be told from a miss.
LEVEL = "engine:20:depth=6"
SICILIAN = chess.Board("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.01)


def cp(value: int, turn: chess.Color) -> chess.engine.PovScore:
    return chess.engine.PovScore(chess.engine.Cp(value), turn)


# --- where to wait --------------------------------------------------------------------------------


def test_likely_moves_are_the_engine_lines_best_first_a_worse_line_less_likely() -> None:
    moves = [chess.Move.from_uci(u) for u in ("e7e5", "c7c5", "a7a6")]
    lines = [
        (moves[0], cp(30, chess.BLACK)),
        (moves[1], cp(20, chess.BLACK)),
        (moves[2], cp(-300, chess.BLACK)),
    ]
    predicted = likely_moves_of(lines)
    assert [p.move for p in predicted] == moves
    probabilities = [p.probability for p in predicted]
    assert probabilities[0] > probabilities[1] > probabilities[2] > 0
    assert sum(probabilities) < 1  # a person may play a move no line names


def test_the_magnet_waits_where_the_likely_reply_begins() -> None:
    timer = Timer(LAYOUT)
    likely, unlikely = LAYOUT.square_node(chess.E7), LAYOUT.square_node(chess.B8)
    assert waiting_spot(timer, [(likely, 0.8), (unlikely, 0.1)])[0] == likely
    assert waiting_spot(timer, [(likely, 0.1), (unlikely, 0.8)])[0] == unlikely


def test_between_equally_likely_replies_the_expected_travel_beats_waiting_at_either() -> None:
    timer = Timer(LAYOUT)
    a, b = LAYOUT.square_node(chess.A7), LAYOUT.square_node(chess.H2)
    spot, expected = waiting_spot(timer, [(a, 0.5), (b, 0.5)])
    at_a = 0.5 * timer.travel_between(a, b)
    assert expected <= at_a + 1e-9
    assert expected == pytest.approx(
        0.5 * timer.travel_between(spot, a) + 0.5 * timer.travel_between(spot, b)
    )


# --- the engine ahead of time ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine() -> Iterator[EnginePlayer]:
    with EnginePlayer(parse_level(LEVEL)) as player:
        yield player


@pytest.mark.parametrize(
    "fen",
    [
        chess.STARTING_FEN,
        SICILIAN.fen(),
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
        "8/5pk1/6p1/8/3Q4/6P1/5PKP/3q4 b - - 0 40",
    ],
)
def test_a_search_ahead_finds_the_very_move_the_engine_plays(engine: EnginePlayer, fen: str) -> None:
    board = chess.Board(fen)
    found = engine.foresee(board).result()
    assert found is not None
    move, info = found
    assert move == engine.best_move(board)
    assert "score" in info and "pv" in info  # what the session shows of the engine's move


def test_a_search_ahead_stops_when_the_game_goes_elsewhere() -> None:
    with EnginePlayer(parse_level("engine:time=20")) as slow:
        search = slow.foresee(SICILIAN)
        time.sleep(0.2)
        search.stop()
        assert search.result() is None  # stopped: no move comes of it
        assert slow.likely_moves(SICILIAN, count=2)  # the engine is free again at once


def test_an_evaluation_made_ahead_is_the_one_the_session_gets(engine: EnginePlayer) -> None:
    board = SICILIAN.copy()
    board.push_uci("g1f3")
    ahead = engine.analyse_ahead(board).result()
    assert ahead is not None
    assert engine.analyse(board) == ahead[1]  # the same search, not a second one


# --- the magnet -----------------------------------------------------------------------------------


@pytest.fixture
def robot(request: pytest.FixtureRequest) -> Iterator[Robot]:
    name = f"ponder-{request.node.name}"
    table = Table.from_board(LAYOUT, SICILIAN)
    world = register_world(SimWorld(LAYOUT, table.copy(), name=name))
    link = GrblLink(f"sim://{name}?speed=max&homing=0", layout=LAYOUT)
    link.open()
    try:
        link.connect()
        yield Robot(LAYOUT, link, table)
        assert not world.twin.violations
        assert not world.twin.magnet_on
        assert world.twin.pieces == SimWorld(LAYOUT, table).twin.pieces  # not a piece moved
    finally:
        link.close()
        forget_world(name)


def test_a_travel_moves_the_empty_magnet_and_nothing_else(robot: Robot) -> None:
    goal = LAYOUT.node_mm(LAYOUT.square_node(chess.E7))
    assert robot.travel(goal)
    assert robot.writer.position == goal


def test_the_magnet_stays_put_while_the_machine_is_held(robot: Robot) -> None:
    start = robot.writer.position
    robot.link.feed_hold()
    assert not robot.travel(LAYOUT.node_mm(LAYOUT.square_node(chess.E7)))
    assert robot.writer.position == start
    robot.link.resume()


def test_a_lifted_piece_narrows_where_the_magnet_waits(robot: Robot, engine: EnginePlayer) -> None:
    events: list[object] = []
    with Ponderer(Planner(LAYOUT), robot=robot, candidates=3) as ponder:
        ponder.expect(SICILIAN, robot.table, engine, events=events)
        wait_until(lambda: len(ponder.replies_ready()) == 3, "replies to the three likely moves")
        ready = ponder.replies_ready()
        # a move of a piece no other likely move moves, whose reply begins where the magnet is not
        move = next(
            m
            for m, start in ready.items()
            if sum(other.from_square == m.from_square for other in ready) == 1
            and LAYOUT.node_mm(start) != robot.writer.position
        )
        events.append(PieceLifted(1.0, move.from_square, frozenset({move.to_square}), frozenset()))
        goal = LAYOUT.node_mm(ready[move])
        wait_until(lambda: robot.writer.position == goal, f"the magnet under the reply to {move}")
        ponder.heard(SICILIAN, move, robot.table)
    assert ponder.stats.lifts == 1


# --- in a game ------------------------------------------------------------------------------------


class Recorded:
    """The robot's programs as they went to GRBL, one list of lines per stream."""

    def __init__(self, session: Session) -> None:
        assert session.robot is not None
        self.programs: list[list[str]] = []
        link = session.robot.link
        stream = link.stream

        def record(lines: object, **kwargs: object) -> object:
            program = list(lines)  # type: ignore[call-overload]
            self.programs.append(program)
            return stream(program, **kwargs)  # type: ignore[arg-type]

        link.stream = record  # type: ignore[assignment,method-assign]

    def of(self, title: str) -> list[str]:
        return next(program for program in self.programs if program[0].startswith(f"({title}"))


def play_against_the_web(
    tmp_path: Path, choose: Callable[[Ponderer], chess.Move]
) -> tuple[Session, Recorded, list[chess.Move]]:
    """The web page plays White, the engine Black: one move each; ``choose`` picks White's move once the
    ponderer has its replies ready. Returns the session (to close), its programs and the two moves."""
    web, black = PlayerSpec.parse("web"), PlayerSpec.parse(LEVEL)
    session = Session(Config.default(), games_dir=tmp_path, speed=None)
    session.connect()
    recorded = Recorded(session)
    journal = session.new_game(web, black, chess.Board())
    failed: list[BaseException] = []
    moves: list[chess.Move] = []

    def run() -> None:
        try:
            with journal:
                moves.extend(session.play(journal, web, black, max_plies=2).moves)
        except BaseException as exc:  # handed to the test
            failed.append(exc)

    game = threading.Thread(target=run)
    game.start()
    wait_until(
        lambda: chess.WHITE in session.inboxes and hasattr(session, "ponderer"), "the web player's turn"
    )
    ponder = session.ponderer
    wait_until(lambda: len(ponder.replies_ready()) >= 2, "the engine's replies to two likely moves")
    session.inboxes[chess.WHITE].inbox.put(choose(ponder))
    game.join(timeout=60)
    assert not failed, failed
    return session, recorded, moves


def engine_reply(moves: list[chess.Move]) -> chess.Move:
    board = chess.Board()
    board.push(moves[0])
    with EnginePlayer(parse_level(LEVEL)) as fresh:
        return fresh.best_move(board)


def test_a_ponder_hit_starts_the_first_drag_where_the_magnet_waits(tmp_path: Path) -> None:
    session, recorded, moves = play_against_the_web(
        tmp_path, lambda ponder: next(iter(ponder.replies_ready()))
    )
    with session:
        assert session.ponderer.stats.hits == 1
        assert session.world is not None and not session.world.twin.violations
    assert moves[1] == engine_reply(moves)  # the move the engine plays, found ahead
    reply = recorded.of("MOVE 2")
    assert reply[1].startswith("(move") and reply[2].startswith("M3")  # the drag at once: no travel first
    waits = [program for program in recorded.programs if program[0] == "(WAIT FOR THE REPLY)"]
    assert waits and all(line.startswith(("(", "G0 ")) for program in waits for line in program)


def test_a_miss_answers_with_the_move_the_engine_would_have_played(tmp_path: Path) -> None:
    def unforeseen(ponder: Ponderer) -> chess.Move:
        return next(m for m in chess.Board().legal_moves if m not in ponder.replies_ready())

    session, _, moves = play_against_the_web(tmp_path, unforeseen)
    with session:
        assert (session.ponderer.stats.hits, session.ponderer.stats.misses) == (0, 1)
        assert session.world is not None and not session.world.twin.violations
    assert moves[1] == engine_reply(moves)
