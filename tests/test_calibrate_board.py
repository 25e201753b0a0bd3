"""The board under the gantry, calibrated on simulated tables built wrong (a few mm off, turned under a
degree, squares a little off the layout's), a simulated maker nudging the magnet: the layout written puts
every square where the real board has it, the machine never left its envelope nor kept its magnet on."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

import chess
import pytest

from chessatron import files
from chessatron.calibrate.board import calibrate_board, write_board
from chessatron.calibrate.machine import GantryTable
from chessatron.calibrate.person import Nudge, Stopped
from chessatron.config import Config
from chessatron.errors import LayoutError
from chessatron.planning.layout import Layout
from chessatron.sim.calibration_person import GantryPerson
from chessatron.sim.world import SimWorld, forget_world, register_world
from chessatron.sim.wrong_gantry import GantryBuild


def config_for(name: str, layout: Layout | None = None, *, sensors: bool = True) -> Config:
    config = Config.from_dict(
        {"grbl": {"url": f"sim://{name}"}, "sensors": {"url": f"sim://{name}" if sensors else "none://"}}
    )
    return config if layout is None else dataclasses.replace(config, layout=layout)


@pytest.fixture
def world_name(request: pytest.FixtureRequest) -> Iterator[str]:
    name = "calibrate-board-" + "".join(c if c.isalnum() else "-" for c in request.node.name)
    yield name
    forget_world(name)


def assert_machine_kept_safe(world: SimWorld) -> None:
    kinds = {v.kind for v in world.twin.violations}
    assert not kinds, world.twin.violations[:5]
    assert not world.twin.magnet_on


def worst_square_error(found: Layout, truth: Layout) -> float:
    """How far the layout found puts a square's centre from where the real board has it, at worst (mm)."""
    return max(
        math.dist(found.node_mm(found.square_node(s)), truth.node_mm(truth.square_node(s)))
        for s in chess.SQUARES
    )


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_board_is_found_where_it_was_built(seed: int, world_name: str, tmp_path: Path) -> None:
    config = config_for(world_name)
    build = GantryBuild.random(seed, config.layout)
    world = register_world(build.world(config.layout, name=world_name))
    truth = world.layout
    person = GantryPerson(world, seed=seed, slips=0.1)
    with GantryTable.open(config) as table:
        result = calibrate_board(table, person)

    found = result.layout
    assert math.dist(found.origin_mm, truth.origin_mm) <= 0.5, build.spec()
    assert abs(found.square_mm / truth.square_mm - 1) <= 0.002, build.spec()
    assert abs(found.rotation_deg - truth.rotation_deg) <= 0.05, build.spec()
    assert worst_square_error(found, truth) <= 0.6
    assert result.confirmed
    # the tour: the four corners of the board and the capture zones' corners, each confirmed
    assert sum("Is the magnet under" in q for q in person.asked) >= 8
    assert any(key not in ("done", "finer", "coarser") for key in person.keys)
    assert_machine_kept_safe(world)

    path = tmp_path / "table.toml"
    written = write_board(result, path)
    again = Layout.from_toml(path)
    assert again.origin_mm == found.origin_mm and again.square_mm == found.square_mm
    assert again.rotation_deg == found.rotation_deg
    assert written.previous is None and "# The classic chessatron table" in path.read_text()


def test_writing_keeps_the_previous_layout_and_its_comments(world_name: str, tmp_path: Path) -> None:
    config = config_for(world_name)
    world = register_world(GantryBuild.parse("offset=1.5:-2,turn=0.3").world(config.layout, name=world_name))
    with GantryTable.open(config) as table:
        result = calibrate_board(table, GantryPerson(world, seed=9))
    path = tmp_path / "my-table.toml"
    before = files.read_text(Path(files.__file__).parent / "data" / "table.toml", files.LAYOUT).replace(
        "clearance_mm = 25.4", "clearance_mm = 24.0"
    )
    path.write_text(before)
    written = write_board(result, path)
    assert written.previous == tmp_path / "my-table.toml.bak"
    assert written.previous.read_text() == before
    text = path.read_text()
    assert "clearance_mm = 24.0" in text and "# where the magnet rests after homing" in text
    assert f"rotation_deg = {result.layout.rotation_deg}" in text
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed into place


class Stubborn:
    """A maker who first drives the magnet far off to the left (to the machine's edge) and says done there,
    then does it properly; and who stops (Ctrl-C) at a chosen nudge, if asked to."""

    def __init__(self, honest: GantryPerson, *, wander: int = 0, stop_at: int | None = None) -> None:
        self.honest = honest
        self.wander = wander
        self.stop_at = stop_at
        self.nudges = 0
        self.told: list[str] = []

    def tell(self, text: str) -> None:
        self.told.append(text)
        self.honest.tell(text)

    def ask(self, question: str, answers: Sequence[str]) -> str:
        return self.honest.ask(question, answers)

    def ask_square(self, question: str) -> chess.Square | None:
        return self.honest.ask_square(question)

    def nudge(self, question: str) -> Nudge:
        self.nudges += 1
        if self.stop_at is not None and self.nudges >= self.stop_at:
            raise Stopped("the person pressed ctrl-c")
        if self.nudges == 1:
            return "coarser"
        if self.nudges <= self.wander:
            return "left"
        if self.nudges == self.wander + 1:
            return "done"
        return self.honest.nudge(question)


def test_a_nudge_past_the_machines_reach_stops_at_its_edge_and_a_wrong_centre_is_measured_again(
    world_name: str,
) -> None:
    config = config_for(world_name)
    world = register_world(GantryBuild.parse("offset=-2:1,turn=-0.2").world(config.layout, name=world_name))
    person = Stubborn(GantryPerson(world, seed=3), wander=40)
    with GantryTable.open(config) as table:
        result = calibrate_board(table, person)
    assert any("edge of the machine's reach" in text for text in person.told)
    assert any("Measure again" in text for text in person.told)  # a1 at x=0 makes squares far too wide
    assert math.dist(result.layout.origin_mm, world.layout.origin_mm) <= 0.5
    assert_machine_kept_safe(world)  # never a move outside the envelope


def test_stopping_midway_writes_nothing_and_leaves_the_magnet_off(world_name: str, tmp_path: Path) -> None:
    config = config_for(world_name)
    world = register_world(GantryBuild.parse("offset=3:3").world(config.layout, name=world_name))
    person = Stubborn(GantryPerson(world, seed=1), stop_at=6)
    with GantryTable.open(config) as table, pytest.raises(Stopped):
        calibrate_board(table, person)
    assert_machine_kept_safe(world)
    assert not (tmp_path / "table.toml").exists()


def test_a_board_turned_too_far_is_refused_saying_how_to_square_it(world_name: str) -> None:
    roomy = dataclasses.replace(
        Layout.default(), envelope_mm=(0.0, 0.0, 700.0, 600.0), origin_mm=(40.0, 40.0)
    )
    config = config_for(world_name, roomy)
    world = register_world(GantryBuild.parse("turn=3").world(roomy, name=world_name))
    with GantryTable.open(config) as table, pytest.raises(LayoutError, match="square the board"):
        calibrate_board(table, GantryPerson(world, seed=2))
    assert_machine_kept_safe(world)


def test_a_table_turned_a_little_is_one_the_gcode_follows() -> None:
    turned = dataclasses.replace(Layout.default(), rotation_deg=0.5)
    a1, h1 = (turned.node_mm(turned.square_node(s)) for s in (chess.A1, chess.H1))
    assert math.dist(a1, h1) == pytest.approx(7 * 50.8, abs=1e-3)
    assert math.degrees(math.atan2(h1[1] - a1[1], h1[0] - a1[0])) == pytest.approx(0.5, abs=1e-3)
    assert turned.nearest_node(a1) == turned.square_node(chess.A1)
    with pytest.raises(LayoutError, match="give or take"):
        dataclasses.replace(Layout.default(), rotation_deg=2.5)
