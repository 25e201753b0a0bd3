"""The MCP23017 backend against a fake bus of expanders: how it sets the chips up, what it reads per scan,
and the messages for a wrong address list, a missing chip or a missing library."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import chess
import pytest

from chessatron.errors import ConfigError, MissingLibraryError, SensorError
from chessatron.planning.layout import Layout
from chessatron.sensors import Mcp23017Sensor, PinMap, open_sensor
from chessatron.sensors.fakes import FakeMcp23017Bus
from chessatron.sensors.mcp23017 import GPIOA, GPPUA, GPPUB, IOCON, IODIRA, IODIRB, IPOLA, IPOLB
from chessatron.sim.world import SimWorld

RANKS_1_AND_2 = "0A: a1 b1 c1 d1 e1 f1 g1 h1; 0B: a2 b2 c2 d2 e2 f2 g2 h2"


@pytest.fixture
def world(layout: Layout) -> SimWorld:
    return SimWorld(layout, name="mcp23017")


def test_every_pin_becomes_an_input_with_its_pull_up(world: SimWorld) -> None:
    bus = FakeMcp23017Bus(world, PinMap.default(world.layout))
    for registers in bus.registers.values():  # make the power-on state unlike the wanted one
        registers[GPPUA] = registers[IPOLB] = 0x0F
        registers[IODIRA] = 0x00
    with open_sensor("mcp23017://1", world.layout, bus=bus):
        for address in range(0x20, 0x28):
            registers = bus.registers[address]
            assert registers[IODIRA] == registers[IODIRB] == 0xFF
            assert registers[GPPUA] == registers[GPPUB] == 0xFF
            assert registers[IPOLA] == registers[IPOLB] == 0x00
            assert registers[IOCON] == 0x00  # bank 0, sequential reads


def test_a_scan_reads_each_expander_once(world: SimWorld) -> None:
    bus = FakeMcp23017Bus(world, PinMap.default(world.layout))
    with open_sensor("mcp23017://1", world.layout, bus=bus) as sensor:
        assert not bus.reads
        sensor.scan()
        assert bus.reads == Counter({address: 1 for address in range(0x20, 0x28)})


def test_a_map_for_part_of_the_table_senses_only_that_part(world: SimWorld) -> None:
    layout = world.layout
    pin_map = PinMap.parse(RANKS_1_AND_2, layout)
    url = "mcp23017:///dev/i2c-1?addresses=0x24&map=" + RANKS_1_AND_2.replace(" ", "+")
    with open_sensor(url, layout, bus=FakeMcp23017Bus(world, pin_map, (0x24,))) as sensor:
        assert isinstance(sensor, Mcp23017Sensor)
        assert sensor.covered_cells == pin_map.cells()
        assert len(sensor.scan()) == 16
        assert sensor.addresses == (0x24,)


def test_the_map_can_come_from_a_file(world: SimWorld, tmp_path: Path) -> None:
    path = tmp_path / "pins.txt"
    path.write_text("# two ranks\n" + RANKS_1_AND_2.replace("; ", "\n"), encoding="utf-8")
    pin_map = PinMap.parse(RANKS_1_AND_2, world.layout)
    with open_sensor(f"mcp23017://1?map={path}", world.layout, bus=FakeMcp23017Bus(world, pin_map)) as sensor:
        assert sensor.scan() == {
            world.layout.square_cell(s) for s in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_2)
        }


def test_a_missing_map_file_is_named(world: SimWorld, tmp_path: Path) -> None:
    bus = FakeMcp23017Bus(world, PinMap.default(world.layout))
    with pytest.raises(ConfigError, match=r"cannot read pin map .*nowhere\.txt': no such file"):
        open_sensor(f"mcp23017://1?map={tmp_path}/nowhere.txt", world.layout, bus=bus)


@pytest.mark.parametrize(
    ("addresses", "words"),
    [
        ("0x19", "i2c address 0x19 is not an mcp23017 address; use 0x20-0x27"),
        ("0x20,0x28", "0x28"),
        ("0x20,0x20", "lists 0x20 more than once"),
        ("0x20,0x21", "the pin map uses 8 expanders (0-7) but addresses= lists 2"),
        ("0x2z", "not a list of numbers"),
    ],
)
def test_a_wrong_address_list_is_a_config_error(addresses: str, words: str, world: SimWorld) -> None:
    bus = FakeMcp23017Bus(world, PinMap.default(world.layout))
    with pytest.raises(ConfigError) as caught:
        open_sensor(f"mcp23017://1?addresses={addresses}", world.layout, bus=bus)
    assert words in str(caught.value)
    assert bus.closed  # the sensor owned the bus and let it go


def test_more_addresses_than_the_map_uses_is_a_config_error(world: SimWorld) -> None:
    pin_map = PinMap.parse(RANKS_1_AND_2, world.layout)
    with pytest.raises(ConfigError, match="uses only 1; remove the unused addresses"):
        Mcp23017Sensor(FakeMcp23017Bus(world, pin_map), world.layout, pin_map, [0x20, 0x21])


def test_an_unknown_option_is_a_config_error(world: SimWorld) -> None:
    bus = FakeMcp23017Bus(world, PinMap.default(world.layout))
    with pytest.raises(ConfigError, match="unknown option 'adresses'"):
        open_sensor("mcp23017://1?adresses=0x20", world.layout, bus=bus)


def test_a_missing_expander_fails_at_open_naming_its_address(world: SimWorld) -> None:
    pin_map = PinMap.default(world.layout)
    bus = FakeMcp23017Bus(world, pin_map, tuple(range(0x20, 0x27)))  # 0x27 not soldered in
    with pytest.raises(SensorError) as caught:
        open_sensor("mcp23017://1", world.layout, bus=bus)
    message = str(caught.value)
    assert "mcp23017 at 0x27 on i2c bus '1' did not accept its configuration (Remote I/O error)" in message
    assert "i2cdetect -y 1" in message
    assert isinstance(caught.value.__cause__, OSError)
    assert bus.closed


def test_a_short_read_is_a_sensor_error(world: SimWorld) -> None:
    class ShortBus(FakeMcp23017Bus):
        def read_i2c_block_data(
            self, i2c_addr: int, register: int, length: int, force: bool | None = None
        ) -> list[int]:
            return super().read_i2c_block_data(i2c_addr, register, 1)

    pin_map = PinMap.default(world.layout)
    with (
        open_sensor("mcp23017://1", world.layout, bus=ShortBus(world, pin_map)) as sensor,
        pytest.raises(SensorError, match=r"returned \[\d+\] for GPIOA and GPIOB; expected two bytes"),
    ):
        sensor.scan()


def test_the_fake_bus_reads_a_magnet_low_only_with_pull_ups(world: SimWorld) -> None:
    # Guards the fake itself: without the driver's set-up, empty cells would read as pieces.
    bus = FakeMcp23017Bus(world, PinMap.default(world.layout))
    assert bus.read_i2c_block_data(0x20, GPIOA, 2) == [0x00, 0x00]
    bus.write_byte_data(0x20, GPPUA, 0xFF)
    bus.write_byte_data(0x20, GPPUB, 0xFF)
    assert bus.read_i2c_block_data(0x20, GPIOA, 2) == [0x00, 0x00]  # ranks 1 and 2: all pieces
    assert bus.read_i2c_block_data(0x21, GPIOA, 2) == [0x00, 0x00]  # no pull-ups yet on 0x21
    bus.write_byte_data(0x21, GPPUA, 0xFF)
    assert bus.read_byte_data(0x21, GPIOA) == 0xFF  # rank 3: empty


def test_without_smbus2_the_message_names_the_extra(world: SimWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "smbus2", None)
    with pytest.raises(MissingLibraryError, match=r"chessatron\[pi\]"):
        open_sensor("mcp23017://1", world.layout)


def test_a_bus_that_does_not_exist_is_a_sensor_error(world: SimWorld) -> None:
    with pytest.raises(SensorError, match=r"cannot open i2c bus '/dev/i2c-chessatron-none'.*raspi-config"):
        open_sensor("mcp23017:///dev/i2c-chessatron-none", world.layout)
