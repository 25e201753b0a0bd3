"""The sensors' part of ``hw calibrate`` on simulated tables built wrong: the pin map it finds is the
wiring the table was built with, on either path, and what is broken is named with the input to look at."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import chess
import pytest

from chessatron.calibrate.person import Stopped
from chessatron.calibrate.sensors import SensorsResult, SensorTable, calibrate_sensors, write_sensors
from chessatron.calibrate.simperson import SimHands, SimPerson
from chessatron.config import Config
from chessatron.planning.layout import Layout
from chessatron.sensors import open_sensor
from chessatron.sensors.names import cell_name
from chessatron.sensors.pinmap import Pin
from chessatron.sim.wiring import SimInputs, Wiring, build_wrong, save_wiring
from chessatron.sim.world import SimWorld

LAYOUT = Layout.default()


def calibrated(wiring: Wiring, path: str = "quick", seed: int = 0) -> tuple[SensorsResult, SimPerson]:
    world = SimWorld(LAYOUT)
    table = SensorTable(
        LAYOUT, SimInputs(world, wiring.sensors, seed=seed), SimHands(world), wait_s=0, gap_s=0
    )
    person = SimPerson(LAYOUT, wiring, path=path)
    return calibrate_sensors(table, person), person


@pytest.mark.parametrize("path", ["quick", "each"])
@pytest.mark.parametrize("seed", [3, 11, 17, 23, 31, 42])
def test_a_table_built_wrong_at_random_is_read_as_it_was_wired(path: str, seed: int) -> None:
    wiring = build_wrong(LAYOUT, seed=seed)
    result, _person = calibrated(wiring, path, seed)
    assert dict(result.pin_map.pins) == dict(wiring.sensors.pin_map().pins), wiring.faults


@pytest.mark.parametrize("fault", ["ports-swapped", "rank-reversed", "ranks-shuffled", "files"])
def test_the_quick_path_needs_a_few_probes_for_the_usual_wirings(fault: str) -> None:
    """The start position and one probe a line: far fewer steps than the 120 cells one at a time."""
    wiring = build_wrong(LAYOUT, fault, seed=5)
    result, person = calibrated(wiring, "quick")
    assert dict(result.pin_map.pins) == dict(wiring.sensors.pin_map().pins)
    assert result.findings == ()
    assert len(person.told) < 45


def test_a_board_wired_at_random_goes_square_by_square_from_the_quick_path() -> None:
    wiring = build_wrong(LAYOUT, "inputs-shuffled", seed=2)
    result, person = calibrated(wiring, "quick")
    assert dict(result.pin_map.pins) == dict(wiring.sensors.pin_map().pins)
    assert any("no usual wiring" in text for text in person.told)


@pytest.mark.parametrize("path", ["quick", "each"])
def test_a_dead_sensor_is_named_with_the_input_to_look_at(path: str) -> None:
    wiring = build_wrong(LAYOUT, "ranks-shuffled,dead", seed=8)
    (dead,) = wiring.sensors.dead
    cell = next(c for c, p in wiring.sensors.pins.items() if p == dead)
    result, _person = calibrated(wiring, path)
    name = chess.square_name(LAYOUT.node_square(LAYOUT.cell_node(cell)))  # type: ignore[arg-type]
    assert cell in result.left_out and cell not in result.pin_map.pins
    (finding,) = [f for f in result.findings if f.startswith(name)]
    assert "dead sensor" in finding and str(dead) in finding


@pytest.mark.parametrize("path", ["quick", "each"])
def test_two_squares_on_one_input_are_both_left_out_and_named(path: str) -> None:
    wiring = build_wrong(LAYOUT, "files,double", seed=4)
    result, _person = calibrated(wiring, path)
    assert dict(result.pin_map.pins) == dict(wiring.sensors.pin_map().pins)
    shared = [f for f in result.findings if "wire joined to another" in f]
    assert len(shared) == 1 and len(result.left_out) == 2


def test_a_flickering_input_is_named_and_its_square_still_found() -> None:
    wiring = build_wrong(LAYOUT, "rank-reversed,flicker", seed=6)
    (pin,) = wiring.sensors.flickering
    result, _person = calibrated(wiring, "each", seed=6)
    assert dict(result.pin_map.pins) == dict(wiring.sensors.pin_map().pins)
    assert any(f.startswith(f"Input {pin} flickers") for f in result.findings)


class StopsAtTheThirdQuestion(SimPerson):
    def ask(self, question: str, answers: Sequence[str]) -> str:
        if len(self.told) > 2:
            raise Stopped("ctrl-c")
        return super().ask(question, answers)


def test_a_person_who_stops_stops_the_part() -> None:
    wiring = build_wrong(LAYOUT, "files", seed=1)
    world = SimWorld(LAYOUT)
    table = SensorTable(LAYOUT, SimInputs(world, wiring.sensors), SimHands(world), wait_s=0, gap_s=0)
    with pytest.raises(Stopped):
        calibrate_sensors(table, StopsAtTheThirdQuestion(LAYOUT, wiring))


def test_the_map_written_is_read_by_the_simulated_sensors_through_the_wiring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The written config passes the checker, keeps the previous one, and the simulated table read
    through the wires it was built with and the map written sees every piece where it stands."""
    monkeypatch.setenv("CHESSATRON_STATE", str(tmp_path / "state" / "simulator.json"))
    config = tmp_path / "chessatron.toml"
    config.write_text('[sensors]\nurl = "sim://lab"\n', encoding="utf-8")
    wiring = build_wrong(LAYOUT, "ranks-shuffled", seed=9)
    save_wiring(wiring, LAYOUT)
    result, _person = calibrated(wiring)
    saved = write_sensors(result, config, "sim://lab", LAYOUT)
    assert saved.config_backup is not None and "sim://lab" in saved.config_backup.read_text(encoding="utf-8")
    settings = Config.load(config)
    assert settings.urls["sensors"] == f"sim://lab?map={tmp_path / 'pins.txt'}"
    world = SimWorld(LAYOUT, name="lab")
    with open_sensor(settings.urls["sensors"], LAYOUT, world=world) as sensor:
        assert sensor.scan() == world.occupied_cells()
    # the same map on a table wired as drawn reads pieces on the wrong cells, as a real table would
    save_wiring(Wiring.default(LAYOUT), LAYOUT)
    with open_sensor(settings.urls["sensors"], LAYOUT, world=world) as sensor:
        assert sensor.scan() != world.occupied_cells()


@pytest.mark.parametrize(("spec", "seed"), [(None, 1049), ("inputs-shuffled,files", 11)])
def test_cells_beside_the_board_wired_at_random_are_not_taken_for_a_pattern(
    spec: str | None, seed: int
) -> None:
    """Every input wired at random, then the board rewired a port per file (``hw calibrate --hand --seed
    1049``): the board fits the quick path's pattern, the cells beside it do not, and many share an input
    with a square. Each line beside the board whose far end is not where the pattern says is checked square
    by square, and every input two cells share is named once, with both cells."""
    wiring = build_wrong(LAYOUT, spec, seed=seed)
    result, person = calibrated(wiring, "quick")
    assert "The start position fits a port per file." in person.told
    assert dict(result.pin_map.pins) == dict(wiring.sensors.pin_map().pins)
    owners: dict[Pin, list[str]] = {}
    for cell, pin in wiring.sensors.pins.items():
        owners.setdefault(pin, []).append(cell_name(cell, LAYOUT))
    shared = {pin: names for pin, names in owners.items() if len(names) > 1}
    assert shared
    joined = [f for f in result.findings if "wire joined to another" in f]
    assert len(joined) == len(shared)
    for pin, names in shared.items():
        (finding,) = [f for f in joined if f" input {pin} " in f]
        assert sorted(finding.split(" are all on")[0].split(", ")) == sorted(names)
