"""The table resets itself: after every engine game, from random states, to any target."""

from __future__ import annotations

import os
import random

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chessatron.errors import ConfigError, MissingPieceError
from chessatron.planning.layout import Layout
from chessatron.planning.reset import arrangement_problems
from chessatron.planning.table import Table
from chessatron.planning.targets import parse_target
from chessatron.sim.simulate import TableSimulator, game_moves

from .conftest import shared_games
from .test_random_games import random_move

GAMES = shared_games()
LAYOUT = Layout.default()


def reset_and_check(sim: TableSimulator, target: chess.Board) -> None:
    setup = sim.set_up(target)
    assert [v.message for v in setup.violations] == []
    assert arrangement_problems(sim.table, target) == []
    assert not sim.twin.magnet_on


@pytest.mark.parametrize(("name", "game"), GAMES, ids=[name for name, _ in GAMES])
def test_reset_after_every_engine_game(name: str, game: chess.pgn.Game) -> None:
    board, moves = game_moves(game)
    rng = random.Random(name)
    # the standard start, the game's own and a Chess960 start drawn for it (`python -m bench` resets more)
    targets = [chess.Board(), board, chess.Board.from_chess960_pos(rng.randrange(960))]
    played = TableSimulator(LAYOUT, board)
    for move in moves:
        played.play(move)
    for target in targets:
        # each reset from the game's end, as the table stands then (played once: its tidying is costly)
        sim = TableSimulator(LAYOUT, played.board, table=played.table, start_mm=played.writer.position)
        reset_and_check(sim, target)
        # the twin's pieces stand exactly where the set-up says, reserve full, zones empty
        for slot in LAYOUT.reserve:
            piece = sim.table.piece_at(LAYOUT.cell_node(slot.cell))
            assert piece is not None and piece.symbol == slot.symbol
        assert all(sim.table.place_of(p.id) != "capture" for p in sim.table)


def test_reset_of_a_reset_table_moves_nothing() -> None:
    sim = TableSimulator(LAYOUT, chess.Board())
    setup = sim.set_up(chess.Board())
    assert setup.plan.relocations == () and setup.seconds == 0


def test_set_up_a_fen_sends_the_rest_to_the_zones_and_reserve() -> None:
    sim = TableSimulator(LAYOUT, chess.Board())
    target = chess.Board("8/5k2/8/3Q4/8/8/2K5/8 w - - 0 1")
    reset_and_check(sim, target)
    white_off = [p for p in sim.table if p.color and sim.table.place_of(p.id) == "capture"]
    assert len(white_off) == 14  # the standard set less king and queen; the spares sit in the reserve


def test_set_up_a_position_that_uses_spares() -> None:
    sim = TableSimulator(LAYOUT, chess.Board())
    target = chess.Board("QQQ1k3/8/8/8/8/8/8/4K3 w - - 0 1")
    reset_and_check(sim, target)
    assert all(
        sim.table.piece_at(LAYOUT.cell_node(s.cell)) is None for s in LAYOUT.reserve if s.symbol == "Q"
    )


def test_double_fischer_random_start() -> None:
    target = parse_target("dfrc:0:959").board
    assert target.board_fen().split("/")[0] != target.board_fen().split("/")[-1].lower()
    sim = TableSimulator(LAYOUT, chess.Board())
    reset_and_check(sim, target)


@pytest.mark.parametrize("number", [0, 518, 959])
def test_a_game_interrupted_by_a_set_up_is_put_back_exactly(number: int) -> None:
    # a game with captures and a promotion stops, the table is set up for something else, then the game's
    # arrangement comes back: every place (board, zones, reserve) holds a piece of the kind it held
    game, moves = GAMES[0][1], game_moves(GAMES[0][1])[1]
    sim = TableSimulator(LAYOUT, game_moves(game)[0])
    for move in moves[:60]:
        sim.play(move)
    stopped = sim.table.copy()
    sim.set_up(chess.Board.from_chess960_pos(number))
    plan = sim.resetter.plan_arrangement(sim.table, stopped, at=sim.writer.position)
    lines, violations, _ = sim._run_plan("RESUME", plan)
    assert violations == [] and lines
    plan.apply(sim.table)
    assert {sim.table.node_of(p.id): p.symbol for p in sim.table} == {
        stopped.node_of(p.id): p.symbol for p in stopped
    }
    assert sim.compare_twin() == [] and not sim.twin.magnet_on
    again = sim.resetter.plan_arrangement(sim.table, stopped)
    assert again.relocations == ()  # already there: nothing moves


def test_missing_piece_is_reported_before_any_motion() -> None:
    board = chess.Board()
    full = Table.from_board(LAYOUT, board)
    lost = next(p for p in full if p.symbol == "n")
    table = Table(LAYOUT, [(p, full.node_of(p.id)) for p in full if p.id != lost.id])
    sim = TableSimulator(LAYOUT, board)
    sim.table = table
    seconds = sim.twin.seconds
    with pytest.raises(MissingPieceError, match=r"1 black knight \(n\)"):
        sim.set_up(chess.Board.from_chess960_pos(7))
    assert sim.twin.seconds == seconds


@pytest.mark.parametrize(
    "text", ["960", "-1", "1:960", "rnbqkbnr/pppppppp w", "8/8/8/8/8/8/8/KK1k4 w - - 0 1"]
)
def test_bad_targets_are_refused(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_target(text)


@settings(
    max_examples=int(os.environ.get("CHESSATRON_RESETS", "8")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 200), target=st.integers(0, 959), fen=st.booleans()
)
def test_reset_from_random_states_to_random_targets(seed: int, plies: int, target: int, fen: bool) -> None:
    rng = random.Random(seed)
    sim = TableSimulator(LAYOUT, chess.Board.from_chess960_pos(rng.randrange(960)))
    for _ in range(plies):
        move = None if sim.board.is_game_over() else random_move(rng, sim)
        if move is None:
            break
        sim.play(move, tidy=seed % 2 == 0)  # half the tables with pieces still parked beside the board
    goal = chess.Board.from_chess960_pos(target)
    if fen:
        # a random reachable position as the target: some pieces off, maybe promoted ones
        other = TableSimulator(LAYOUT, chess.Board())
        for _ in range(rng.randrange(120)):
            move = None if other.board.is_game_over() else random_move(rng, other)
            if move is None:
                break
            other.play(move, tidy=False)  # (only its position matters)
        goal = other.board
    reset_and_check(sim, goal)
