"""The magnet's pull, calibrated on simulated tables whose magnet drops a dragged piece above a feed: the
drag speed written is below the feed that drops pieces and not absurdly low, the robot's drags at that
speed carry every piece, and the magnet is never left on."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from chessatron.calibrate.machine import GantryTable
from chessatron.calibrate.magnet import FIRST_FEED_MM_MIN, MARGIN, calibrate_magnet, write_magnet
from chessatron.config import Config
from chessatron.errors import ConfigError
from chessatron.planning.gcode import ProgramWriter
from chessatron.planning.layout import Layout
from chessatron.planning.planner import Planner
from chessatron.planning.table import Table
from chessatron.sensors.pinmap import PinMap
from chessatron.sim.calibration_person import GantryPerson
from chessatron.sim.pull import MagnetPull
from chessatron.sim.twin import Twin
from chessatron.sim.world import SimWorld, forget_world, register_world, twin_pieces
from chessatron.sim.wrong_gantry import GantryBuild


def config_for(name: str, *, sensors: bool = True) -> Config:
    return Config.from_dict(
        {"grbl": {"url": f"sim://{name}"}, "sensors": {"url": f"sim://{name}" if sensors else "none://"}}
    )


@pytest.fixture
def world_name(request: pytest.FixtureRequest) -> Iterator[str]:
    name = "calibrate-magnet-" + "".join(c if c.isalnum() else "-" for c in request.node.name)
    yield name
    forget_world(name)


def weak_world(name: str, seed: int) -> tuple[SimWorld, float]:
    """A table whose magnet drops pieces above a random feed (the board where the layout says)."""
    pull = GantryBuild.random(seed).pull
    assert pull.drop_feed_mm_min is not None
    return register_world(GantryBuild(pull=pull).world(Layout.default(), name=name)), pull.drop_feed_mm_min


def assert_machine_kept_safe(world: SimWorld) -> None:
    assert not world.twin.violations, world.twin.violations[:5]
    assert not world.twin.magnet_on


def game_drags(layout: Layout, pull: MagnetPull) -> Twin:
    """A few moves of a game (a capture among them) dragged by the robot at the layout's drag speed, on a
    twin with ``pull``'s magnet."""
    board = chess.Board()
    table = Table.from_board(layout, board)
    twin = Twin(
        twin_pieces(table),
        clearance_mm=layout.clearance_mm,
        envelope_mm=layout.envelope_mm,
        profile=layout.profile,
        start_mm=layout.home_mm,
        pull=pull,
    )
    planner, writer = Planner(layout), ProgramWriter(layout)
    for uci in ("e2e4", "d7d5", "e4d5", "d8d5", "g1f3"):
        move = chess.Move.from_uci(uci)
        plan = planner.plan_move(table, board, move, at=writer.position)
        twin.run(writer.plan(plan))
        plan.apply(table)
        board.push(move)
    return twin


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_the_drag_speed_is_below_the_feed_that_drops_pieces(
    seed: int, world_name: str, tmp_path: Path
) -> None:
    world, drop = weak_world(world_name, seed)
    person = GantryPerson(world, seed=seed)
    with GantryTable.open(config_for(world_name)) as table:
        result = calibrate_magnet(table, person)
    assert result.carry_feed_mm_min is not None
    assert 0.5 * drop <= result.carry_feed_mm_min < drop
    assert result.held_mm_min is not None and result.held_mm_min <= drop
    assert result.lost_mm_min is not None and result.lost_mm_min > drop
    assert world.twin.drops  # the pieces really were lost on the way, and put back
    assert any("put the piece back" in q.lower() for q in person.asked)
    assert_machine_kept_safe(world)

    path = tmp_path / "table.toml"
    write_magnet(result, path)
    assert Layout.from_toml(path).carry_feed_mm_min == result.carry_feed_mm_min


def test_without_sensors_the_person_says_where_the_piece_went(world_name: str) -> None:
    world, drop = weak_world(world_name, 21)
    person = GantryPerson(world, seed=21)
    with GantryTable.open(config_for(world_name, sensors=False)) as table:
        result = calibrate_magnet(table, person)
    assert result.carry_feed_mm_min is not None and 0.5 * drop <= result.carry_feed_mm_min < drop
    assert any("Did the piece reach" in q for q in person.asked)
    assert_machine_kept_safe(world)


def test_a_strong_magnet_drags_at_most_as_fast_as_one_square_lets_it(world_name: str) -> None:
    world = register_world(GantryBuild().world(Layout.default(), name=world_name))
    with GantryTable.open(config_for(world_name)) as table:
        result = calibrate_magnet(table, GantryPerson(world, seed=3))
    assert result.lost_mm_min is None and not world.twin.drops
    assert result.carry_feed_mm_min == pytest.approx(MARGIN * result.top_feed_mm_min, abs=10)
    assert_machine_kept_safe(world)


def test_a_magnet_too_weak_for_any_speed_writes_nothing_and_says_what_to_check(
    world_name: str, tmp_path: Path
) -> None:
    weak = GantryBuild(pull=MagnetPull(drop_feed_mm_min=FIRST_FEED_MM_MIN / 2))
    world = register_world(weak.world(Layout.default(), name=world_name))
    person = GantryPerson(world, seed=4)
    with GantryTable.open(config_for(world_name)) as table:
        result = calibrate_magnet(table, person)
    assert result.carry_feed_mm_min is None
    assert any("$120" in text for text in person.told)
    path = tmp_path / "table.toml"
    with pytest.raises(ConfigError, match="nothing to write"):
        write_magnet(result, path)
    assert not path.exists()
    assert_machine_kept_safe(world)


def test_the_robot_at_the_calibrated_speed_carries_every_piece_and_at_the_old_one_drops_them(
    world_name: str,
) -> None:
    world, drop = weak_world(world_name, 31)
    with GantryTable.open(config_for(world_name)) as table:
        result = calibrate_magnet(table, GantryPerson(world, seed=31))
    assert result.carry_feed_mm_min is not None
    pull = MagnetPull(drop_feed_mm_min=drop)
    fast = dataclasses.replace(Layout.default(), carry_feed_mm_min=drop * 1.5)
    calibrated = dataclasses.replace(Layout.default(), carry_feed_mm_min=result.carry_feed_mm_min)
    assert game_drags(fast, pull).drops
    assert not game_drags(calibrated, pull).drops


@pytest.mark.parametrize(
    ("unseen", "squares"),
    [
        ((chess.A1, chess.B2), ("c1", "c2")),
        ((chess.A2,), ("b1", "b2")),
        (tuple(chess.SQUARES[chess.A2 : chess.A8]), None),
    ],
    ids=["a1-unseen", "a2-unseen", "no-two-seen"],
)
def test_sensors_blind_on_a1_or_a2_move_the_trial_drag_to_squares_they_see(
    unseen: tuple[chess.Square, ...],
    squares: tuple[str, str] | None,
    world_name: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (bench.calibration's seeds 1049, 1088, 1094: the sensors' part left a1 out of the pin map, its wire
    # joined to another's, and the magnet's asked for a piece on a1 three times and gave up; seed 1092: a2
    # left out, every drag seemed to lose the piece, nothing was written and the layout's drag speed stayed
    # above the drop speed)
    monkeypatch.setenv("CHESSATRON_STATE", str(tmp_path / "simulator.json"))  # wired as the defaults say
    layout = Layout.default()
    left_out = {layout.square_cell(square) for square in unseen}
    pins = tmp_path / "pins.txt"
    kept = {cell: pin for cell, pin in PinMap.default(layout).pins.items() if cell not in left_out}
    pins.write_text(PinMap(kept).to_text(layout), encoding="utf-8")
    world, drop = weak_world(world_name, 12)
    person = GantryPerson(world, seed=12)
    config = Config.from_dict(
        {"grbl": {"url": f"sim://{world_name}"}, "sensors": {"url": f"sim://{world_name}?map={pins}"}}
    )
    with GantryTable.open(config) as table:
        result = calibrate_magnet(table, person)
    assert result.carry_feed_mm_min is not None and 0.5 * drop <= result.carry_feed_mm_min < drop
    if squares is None:  # the person says where the piece went
        assert any("you say whether the piece arrived" in text for text in person.told)
        assert any("Did the piece reach the centre of a2?" in q for q in person.asked)
    else:
        origin, target = squares
        assert any(f"the magnet drags from {origin} to {target} instead" in text for text in person.told)
        assert any(f"centre of {origin} and leave {target} empty" in q for q in person.asked)
        assert not any("a1" in q for q in person.asked)
    assert_machine_kept_safe(world)
