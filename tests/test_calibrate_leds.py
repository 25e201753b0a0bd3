"""The LEDs' part of ``hw calibrate`` on simulated chains built wrong: the chain it finds is the one the
table was built with, from a few answers for a usual chain, from every LED for any other, a wrong answer
corrected on the way; what it writes is what ``open_leds`` then lights."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from chessatron.calibrate.leds import LedsResult, LedTable, calibrate_leds, write_leds
from chessatron.calibrate.simperson import SimHands, SimPerson
from chessatron.config import Config
from chessatron.feedback.leds import SimLedStrip, open_leds, unpack
from chessatron.planning.layout import Cell, Layout
from chessatron.sensors.sim import SimSensor
from chessatron.sim.wiring import Wiring, build_wrong
from chessatron.sim.world import SimWorld

LAYOUT = Layout.default()


def calibrated(wiring: Wiring, *, mistakes: int = 0, touch: bool = False) -> tuple[LedsResult, SimPerson]:
    strip = open_leds("sim://", LAYOUT)
    assert isinstance(strip, SimLedStrip)
    chain = wiring.leds.cells

    def lit() -> dict[Cell, tuple[int, int, int]]:
        shown = strip.pixels.shown
        return {chain[i]: unpack(c) for i, c in enumerate(shown) if c and chain[i] is not None}  # type: ignore[misc]

    person = SimPerson(LAYOUT, wiring, lit=lit, mistakes=mistakes)
    sensors, hands = None, None
    if touch:
        world = SimWorld(LAYOUT)
        hands = SimHands(world, lit=lambda: next(iter(lit()), None))
        sensors = SimSensor(world)
    table = LedTable(LAYOUT, strip, strip.mapping.count, sensors, hands, wait_s=0)
    return calibrate_leds(table, person), person


def asked(person: SimPerson) -> int:
    return sum("which square" in text for text in person.told)


@pytest.mark.parametrize("seed", [1, 2, 5, 8, 13, 21])
def test_a_chain_built_wrong_at_random_is_found(seed: int) -> None:
    wiring = build_wrong(LAYOUT, seed=seed)
    result, _person = calibrated(wiring, mistakes=seed % 2)
    assert result.mapping.cells == wiring.leds.cells, wiring.faults
    assert result.confirmed


@pytest.mark.parametrize("fault", ["leds-serpentine", "leds-mirrored", "leds-grid"])
def test_a_usual_chain_takes_a_few_answers_and_is_written_as_options(fault: str) -> None:
    wiring = build_wrong(LAYOUT, fault, seed=3)
    result, person = calibrated(wiring)
    assert result.mapping.cells == wiring.leds.cells
    assert result.options is not None and asked(person) <= 4


def test_a_wrong_answer_is_asked_again_and_corrected() -> None:
    wiring = build_wrong(LAYOUT, "leds-serpentine", seed=7)
    result, person = calibrated(wiring, mistakes=1)
    assert result.mapping.cells == wiring.leds.cells
    assert any("look at that LED again" in text for text in person.told)


def test_a_chain_in_no_order_is_asked_led_by_led_and_written_to_a_file(tmp_path: Path) -> None:
    wiring = build_wrong(LAYOUT, "leds-table", seed=4)
    result, _person = calibrated(wiring)
    assert result.options is None and result.mapping.cells == wiring.leds.cells
    config = tmp_path / "chessatron.toml"
    saved = write_leds(result, config, "sim://?order=serpentine&origin=a1", LAYOUT)
    assert saved.file == tmp_path / "leds.txt"
    settings = Config.load(config)
    with open_leds(settings.urls["leds"], LAYOUT) as strip:
        assert isinstance(strip, SimLedStrip) and strip.mapping.cells == wiring.leds.cells


def test_with_sensors_the_person_answers_with_a_piece_on_the_lit_square(tmp_path: Path) -> None:
    wiring = build_wrong(LAYOUT, "leds-mirrored", seed=2)
    result, person = calibrated(wiring, touch=True)
    assert result.mapping.cells == wiring.leds.cells and asked(person) == 0
    config = tmp_path / "chessatron.toml"
    write_leds(result, config, "sim://", LAYOUT)
    settings = Config.load(config)
    with open_leds(settings.urls["leds"], LAYOUT) as strip:
        assert isinstance(strip, SimLedStrip)
        strip.show({LAYOUT.square_cell(chess.E4): (1, 2, 3)})
        index = strip.pixels.shown.index(0x010203)
        assert wiring.leds.cells[index] == LAYOUT.square_cell(chess.E4)
