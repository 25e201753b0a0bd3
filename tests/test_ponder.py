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
from chessatron.game.engine.player import EnginePlayer
from chessatron.game.engine.settings import parse_level
from chessatron.game.players.keyboard import KeyboardPlayer
from chessatron.game.players.spec import PlayerSpec
from chessatron.game.ponder.model import likely_moves_of, waiting_spot
from chessatron.game.ponder.ponderer import Ponderer
from chessatron.game.session import Session
from chessatron.game.telling import lineinput
from chessatron.gantry.robot import Robot
from chessatron.grbl.link import GrblLink
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Plan, Planner
from chessatron.planning.table import Table
from chessatron.planning.timing import Timer
from chessatron.recognition import PieceLifted
from chessatron.sim.world import SimWorld, forget_world, register_world

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
    assert engine.analysed(board.copy()) == ahead[1]  # (what the session shows at once on a hit)
    other = board.copy()
    other.push_uci("b8c6")
    assert engine.analysed(other) is None  # not analysed: no search starts for it


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


def test_a_travel_superseded_by_a_plan_moves_nothing(robot: Robot) -> None:
    start = robot.writer.position
    begun = robot.plans_begun
    robot.execute(Plan((), 0.0, start, start), "NOTHING")  # a plan ran since the travel was asked for
    assert not robot.travel(
        LAYOUT.node_mm(LAYOUT.square_node(chess.E7)), unless=lambda: robot.plans_begun != begun
    )
    assert robot.writer.position == start


def test_a_lifted_piece_narrows_where_the_magnet_waits(robot: Robot, engine: EnginePlayer) -> None:
    events: list[object] = []
    with Ponderer(Planner(LAYOUT), robot=robot, candidates=3) as ponder:
        ponder.expect(SICILIAN, robot.table, engine, events=events)
        wait_until(lambda: len(ponder.replies_ready()) == 3, "replies to the three likely moves")
        starts = {move: ponder.reply_start(SICILIAN, move) for move in ponder.replies_ready()}
        # a move of a piece no other likely move moves, whose reply begins where the magnet is not
        move = next(
            m
            for m, start in starts.items()
            if sum(other.from_square == m.from_square for other in starts) == 1
            and start is not None
            and LAYOUT.node_mm(start) != robot.writer.position
        )
        events.append(PieceLifted(1.0, move.from_square, frozenset({move.to_square}), frozenset()))
        goal = starts[move]
        assert goal is not None
        wait_until(
            lambda: robot.writer.position == LAYOUT.node_mm(goal), f"the magnet under the reply to {move}"
        )
        ponder.heard(SICILIAN, move, robot.table)
    assert ponder.stats.lifts == 1


def test_on_a_hit_at_the_board_the_magnet_sets_off_for_the_reply_at_once(
    robot: Robot, engine: EnginePlayer
) -> None:
    with Ponderer(Planner(LAYOUT), robot=robot, candidates=3) as ponder:
        ponder.expect(SICILIAN, robot.table, engine, events=[])
        wait_until(lambda: len(ponder.replies_ready()) == 3, "replies to the three likely moves")
        wait_until(lambda: not ponder.is_pondering, "the magnet waiting")
        # a likely move whose reply begins elsewhere than where the magnet waits
        move, reply, start = next(
            (move, reply, start)
            for move, reply in ponder.replies_ready().items()
            if (start := ponder.reply_start(SICILIAN, move)) is not None
            and robot.writer.position != LAYOUT.node_mm(start)
        )
        ponder.heard(SICILIAN, move, robot.table)  # the person's move, committed
        wait_until(lambda: robot.writer.position == LAYOUT.node_mm(start), "the magnet under the reply")
        after = SICILIAN.copy()
        after.push(move)
        assert ponder.foreseen(after) == reply == engine.best_move(after)  # no search after the move
    assert (ponder.stats.hits, ponder.stats.misses) == (1, 0)


def test_a_piece_picked_on_the_page_takes_the_magnet_where_its_move_begins(
    robot: Robot, engine: EnginePlayer
) -> None:
    with Ponderer(Planner(LAYOUT), robot=robot, candidates=3) as ponder:
        ponder.expect(SICILIAN, robot.table, engine, by_hand=False)  # typed: the robot moves it first
        wait_until(lambda: len(ponder.replies_ready()) == 3, "replies to the three likely moves")
        # a likely move, not a capture, of a piece no other likely move moves, where the magnet is not
        move = next(
            m
            for m in ponder.replies_ready()
            if sum(other.from_square == m.from_square for other in ponder.replies_ready()) == 1
            and not SICILIAN.is_capture(m)
            and robot.writer.position != LAYOUT.node_mm(LAYOUT.square_node(m.from_square))
        )
        ponder.picked(move.from_square)
        piece = LAYOUT.node_mm(LAYOUT.square_node(move.from_square))
        wait_until(lambda: robot.writer.position == piece, f"the magnet under the piece of {move}")


def test_typing_nf_sends_the_magnet_under_the_knight_and_a_line_that_fits_nothing_changes_nothing(
    robot: Robot, engine: EnginePlayer
) -> None:
    with Ponderer(Planner(LAYOUT), robot=robot, candidates=3) as ponder:
        ponder.expect(SICILIAN, robot.table, engine, by_hand=False)  # typed: the robot moves it first
        wait_until(lambda: len(ponder.replies_ready()) == 3, "replies to the three likely moves")
        wait_until(lambda: not ponder.is_pondering, "the magnet waiting where the likely moves begin")
        # "N", then "Nf": one knight can go to the f-file (whether or not the engine foresaw Nf3); or
        # "Nc", should the magnet wait under the g1 knight already
        at_g1 = robot.writer.position == LAYOUT.node_mm(LAYOUT.square_node(chess.G1))
        text, square = ("Nc", chess.B1) if at_g1 else ("Nf", chess.G1)
        knight = LAYOUT.node_mm(LAYOUT.square_node(square))
        for typed in (text[:1], text):
            ponder.typed(typed)
        wait_until(lambda: robot.writer.position == knight, f"the magnet under the knight of {text!r}")
        travels, clues = ponder.stats.travels, ponder.stats.clues
        # a typo, a command: they fit no move, and the magnet stays where the knight is
        for typed in (f"{text}9", "hint", "Kh8"):
            ponder.typed(typed)
        # (then the other knight: the typing is followed in turn, so the lines above were taken in first)
        other, square = ("Nc", chess.B1) if text == "Nf" else ("Nf", chess.G1)
        ponder.typed(other)
        goal = LAYOUT.node_mm(LAYOUT.square_node(square))
        wait_until(lambda: robot.writer.position == goal, f"the magnet under the knight of {other!r}")
        assert (ponder.stats.travels, ponder.stats.clues) == (travels + 1, clues + 1)


def test_a_move_no_one_foresaw_is_searched_as_ever(robot: Robot, engine: EnginePlayer) -> None:
    with Ponderer(Planner(LAYOUT), robot=robot, candidates=2) as ponder:
        ponder.expect(SICILIAN, robot.table, engine, events=[])
        wait_until(lambda: len(ponder.replies_ready()) == 2, "replies to the two likely moves")
        move = next(m for m in SICILIAN.legal_moves if m not in ponder.replies_ready())
        ponder.heard(SICILIAN, move, robot.table)
        after = SICILIAN.copy()
        after.push(move)
        assert ponder.foreseen(after) is None
    assert (ponder.stats.hits, ponder.stats.misses) == (0, 1)


def test_the_engine_heading_for_a_move_plays_the_move_it_plays_without_listening() -> None:
    board = SICILIAN.copy()
    heard: list[tuple[chess.Move, object]] = []
    with EnginePlayer(parse_level("engine:20:depth=12")) as deep:
        played = deep.best_move(board, heading=lambda move, info: heard.append((move, info["depth"])))
        assert played == deep.best_move(board)  # the same search, listened to or not
    assert heard and heard[-1][0] == played  # the line it ended on is the move it plays
    depths = [depth for _, depth in heard]
    assert all(isinstance(depth, int) for depth in depths) and depths == sorted(depths)  # type: ignore[type-var]
    assert depths[-1] == 12


def test_on_a_miss_at_the_board_the_magnet_sets_off_for_the_move_the_search_heads_for(robot: Robot) -> None:
    """Nobody foresaw the person's move: while the engine searches its answer, the magnet goes under a
    piece of the move the search is heading for, before the engine has answered."""
    with (
        EnginePlayer(parse_level("engine:20:depth=14")) as deep,
        Ponderer(Planner(LAYOUT), robot=robot, candidates=1) as ponder,
    ):
        ponder.expect(SICILIAN, robot.table, deep, events=[])
        wait_until(lambda: len(ponder.replies_ready()) == 1, "the reply to the likeliest move")
        wait_until(lambda: not ponder.is_pondering, "the magnet waiting")
        move = chess.Move.from_uci("a2a3")  # no one's likely move
        assert move not in ponder.replies_ready()
        ponder.heard(SICILIAN, move, robot.table)
        after = SICILIAN.copy()
        after.push(move)
        assert ponder.foreseen(after) is None  # a miss: the engine searches now
        table = robot.table.copy()
        Planner(LAYOUT).plan_move(table, SICILIAN, move).apply(table)  # (the person's hand moved it)
        reply = deep.best_move(after, heading=lambda m, info: ponder.searching(after, m, info, table))
        wait_until(lambda: not ponder.is_pondering, "the magnet's travel")
        assert ponder.stats.headings >= 1
        under = {
            LAYOUT.node_mm(LAYOUT.square_node(square)) for square in (reply.from_square, reply.to_square)
        }
        assert robot.writer.position in under  # there before the answer was heard
        ponder.heard(after, reply, table)
    assert (ponder.stats.hits, ponder.stats.misses) == (0, 1)


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


#: White to move has two moves, one of them far likelier (taking the rook): the robot, which carries a
#: typed move out, waits where that move's first drag begins (the rook on a2, captured first).
LIKELY = chess.Board("7k/7p/8/8/8/8/r7/K7 w - - 0 1")


def play_against_the_web(
    tmp_path: Path,
    start: chess.Board,
    choose: Callable[[Ponderer, Session], chess.Move],
    config: Config | None = None,
) -> tuple[Session, Recorded, list[chess.Move]]:
    """The web page plays White, the engine Black: one move each; ``choose`` picks White's move once the
    ponderer has its replies ready. Returns the session (to close), its programs and the two moves."""
    web, black = PlayerSpec.parse("web"), PlayerSpec.parse(LEVEL)
    session = Session(config or Config.default(), games_dir=tmp_path, speed=None)
    session.connect()
    recorded = Recorded(session)
    journal = session.new_game(web, black, start)
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
        lambda: chess.WHITE in session.inboxes and session.ponderer is not None, "the web player's turn"
    )
    ponder = session.ponderer
    assert ponder is not None
    wait_until(lambda: len(ponder.replies_ready()) >= 1, "the engine's reply to a likely move")
    session.inboxes[chess.WHITE].inbox.put(choose(ponder, session))
    game.join(timeout=60)
    assert not failed, failed
    return session, recorded, moves


def engine_reply(start: chess.Board, moves: list[chess.Move]) -> chess.Move:
    board = start.copy()
    board.push(moves[0])
    with EnginePlayer(parse_level(LEVEL)) as fresh:
        return fresh.best_move(board)


def test_a_typed_move_foreseen_is_dragged_at_once_and_answered_without_a_search(tmp_path: Path) -> None:
    take = chess.Move.from_uci("a1a2")
    rook = LAYOUT.node_mm(LAYOUT.square_node(chess.A2))

    def when_the_magnet_waits(ponder: Ponderer, session: Session) -> chess.Move:
        assert session.robot is not None
        wait_until(
            lambda: session.robot is not None and session.robot.writer.position == rook, "the magnet at a2"
        )
        return take

    session, recorded, moves = play_against_the_web(tmp_path, LIKELY, when_the_magnet_waits)
    with session:
        assert session.ponderer is not None and session.ponderer.stats.hits == 1
        assert session.world is not None and not session.world.twin.violations
    assert moves == [take, engine_reply(LIKELY, moves)]  # the move the engine plays, found ahead
    program = recorded.of("MOVE 1")
    assert program[1].startswith("(capture") and program[2].startswith("M3")  # the drag at once: no travel
    waits = [program for program in recorded.programs if program[0] == "(WAIT FOR THE REPLY)"]
    assert waits and all(line.startswith(("(", "G0 ")) for program in waits for line in program)


def test_a_miss_answers_with_the_move_the_engine_would_have_played(tmp_path: Path) -> None:
    def unforeseen(ponder: Ponderer, session: Session) -> chess.Move:
        return next(m for m in chess.Board().legal_moves if m not in ponder.replies_ready())

    session, _, moves = play_against_the_web(tmp_path, chess.Board(), unforeseen)
    with session:
        assert session.ponderer is not None
        assert (session.ponderer.stats.hits, session.ponderer.stats.misses) == (0, 1)
        assert session.world is not None and not session.world.twin.violations
    assert moves[1] == engine_reply(chess.Board(), moves)


def test_a_config_that_keeps_the_gantry_still_still_answers_a_foreseen_move_at_once(tmp_path: Path) -> None:
    """``[grbl] wait_near_reply = false``: the magnet does not move while the person thinks (a quiet
    table), and the engine's reply found ahead is still played without a search."""
    take = chess.Move.from_uci("a1a2")
    config = Config.from_dict({"grbl": {"url": "sim://", "wait_near_reply": False}})

    def once_foreseen(ponder: Ponderer, session: Session) -> chess.Move:
        wait_until(lambda: take in ponder.replies_ready(), "the reply to the likely move")
        return take

    session, recorded, moves = play_against_the_web(tmp_path, LIKELY, once_foreseen, config)
    with session:
        assert session.ponderer is not None and session.ponderer.stats.hits == 1
    assert moves == [take, engine_reply(LIKELY, moves)]
    assert not [program for program in recorded.programs if program[0] == "(WAIT FOR THE REPLY)"]
    program = recorded.of("MOVE 1")
    assert program[1].startswith("(capture") and program[2].startswith("G0 ")  # from where it stood


def test_typing_at_the_prompt_takes_the_magnet_to_the_piece_before_enter(tmp_path: Path) -> None:
    """At the terminal readline tells the line as it grows (lineinput.tell, from its input hook): "N",
    "Nf", and before Enter the magnet is under the g1 knight; Nf3, sent, is dragged from there at once."""
    knight = LAYOUT.node_mm(LAYOUT.square_node(chess.G1))
    sessions: list[Session] = []
    under: list[bool] = []

    def read_line(prompt: str) -> str:
        robot = sessions[0].robot
        assert robot is not None
        under.append(robot.writer.position == knight)
        for text in ("N", "Nf"):
            lineinput.tell(text)
        wait_until(lambda: robot.writer.position == knight, "the magnet under the g1 knight")
        return "Nf3"

    keyboard = KeyboardPlayer(read_line, lambda line: None)
    session = Session(Config.default(), games_dir=tmp_path, speed=None, keyboard=keyboard)
    sessions.append(session)
    with session:
        session.connect()
        recorded = Recorded(session)
        white, black = PlayerSpec.parse("keyboard"), PlayerSpec.parse(LEVEL)
        journal = session.new_game(white, black, chess.Board())
        with journal:
            moves = session.play(journal, white, black, max_plies=2).moves
        assert session.ponderer is not None and session.ponderer.stats.clues >= 1
        assert session.world is not None and not session.world.twin.violations
    assert under == [False]  # (the magnet went there for the typing, not by chance)
    assert moves[0] == chess.Move.from_uci("g1f3")
    program = recorded.of("MOVE 1")
    assert program[2].startswith("M3")  # the drag at once: no travel before it


def test_a_typed_move_is_carried_out_while_the_watchers_evaluation_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The robot drags the person's move without waiting for the engine's view of the position after
    it (the robot needs no engine for that); the evaluation still reaches the watchers, before the
    robot answers."""
    take = chess.Move.from_uci("a1a2")
    dragging = threading.Event()
    seen_dragging: list[bool] = []
    analyse = EnginePlayer.analyse

    def slow_analyse(self: EnginePlayer, board: chess.Board, *args: object, **kwargs: object) -> object:
        if threading.current_thread().name == "chessatron-evaluation":
            seen_dragging.append(dragging.wait(30))  # sequential, it would wait in vain
        return analyse(self, board, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(EnginePlayer, "analyse", slow_analyse)

    def when_foreseen(ponder: Ponderer, session: Session) -> chess.Move:
        assert session.robot is not None
        stream = session.robot.link.stream

        def watched(lines: object, **kwargs: object) -> object:
            program = list(lines)  # type: ignore[call-overload]
            if program and program[0].startswith("(MOVE 1"):
                dragging.set()
            return stream(program, **kwargs)  # type: ignore[arg-type]

        session.robot.link.stream = watched  # type: ignore[assignment,method-assign]
        return take

    session, _, moves = play_against_the_web(tmp_path, LIKELY, when_foreseen)
    with session:
        assert session.live.snapshot()["evaluation"] is not None
    assert seen_dragging == [True]
    assert moves == [take, engine_reply(LIKELY, moves)]


def test_a_move_made_at_the_board_is_answered_without_a_search_of_its_own_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person waits for the engine's answer: the position after their move is not searched for the
    watchers before it (the answer's own search is the engine's view); the watchers still see the view
    after each move of the engine's."""
    searched_first: list[str] = []
    analyse = EnginePlayer.analyse
    game_thread: list[threading.Thread] = []

    def watched(self: EnginePlayer, board: chess.Board, *args: object, **kwargs: object) -> object:
        if threading.current_thread() in game_thread:
            searched_first.append(board.fen())
        return analyse(self, board, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(EnginePlayer, "analyse", watched)
    events: list[dict[str, object]] = []
    hand, engine = PlayerSpec.parse("hand:20:depth=1"), PlayerSpec.parse("engine:20:depth=2")
    with Session(Config.default(), games_dir=tmp_path, speed=None, emit=events.append) as session:
        session.connect()
        game_thread.append(threading.current_thread())
        with session.new_game(hand, engine, chess.Board()) as journal:
            record = session.play(journal, hand, engine, max_plies=6)
        shown = session.live.snapshot()["evaluation"]
    assert len(record.moves) == 6
    assert searched_first == []
    assert shown is not None and shown["fen"] == record.board().fen()  # the engine's view of its last move
