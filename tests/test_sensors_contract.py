"""The occupancy sensor contract, run against every backend: what the game would notice.

The simulator always runs; the MCP23017 backend runs over a fake I2C bus of expanders whose pins follow
a simulated world, the Arduino backend over a Python model of the sketch, the bitboard backend over a
model of LiBoard's firmware (see :mod:`chessatron.sensors.fakes`). Each sensor sees the whole table where
its hardware does (the bitboard only the 64 squares). Real hardware: ``test_sensors_hardware.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import chess
import pytest

from chessatron.errors import SensorError
from chessatron.planning.layout import Cell, Layout
from chessatron.ports import Occupancy, OccupancySensor
from chessatron.sensors import (
    ArduinoSensor,
    BitboardSensor,
    Mcp23017Sensor,
    PinMap,
    SensorDevice,
    SimSensor,
    open_sensor,
)
from chessatron.sensors.fakes import FakeArduinoBoard, FakeLiBoard, FakeMcp23017Bus
from chessatron.sim.twin import TwinPiece
from chessatron.sim.world import SimWorld


@dataclass
class Rig:
    sensor: SensorDevice
    world: SimWorld
    unplug: Callable[[], None]
    """Pull the cable, or break the bus."""
    names: str
    """What an error message must name so the user finds the device."""


def sim_rig(world: SimWorld) -> Rig:
    sensor = open_sensor(f"sim://{world.name}", world.layout, world=world)
    assert isinstance(sensor, SimSensor)
    return Rig(sensor, world, sensor.unplug, "unplugged")


def mcp23017_rig(world: SimWorld) -> Rig:
    bus = FakeMcp23017Bus(world, PinMap.default(world.layout))
    sensor = open_sensor(
        "mcp23017://1?addresses=0x20,0x21,0x22,0x23,0x24,0x25,0x26,0x27", world.layout, bus=bus
    )
    assert isinstance(sensor, Mcp23017Sensor)
    return Rig(sensor, world, bus.unplug, "0x20")


def arduino_rig(world: SimWorld) -> Rig:
    board = FakeArduinoBoard(world)
    sensor = open_sensor("arduino:///dev/ttyACM0", world.layout, port=board)
    assert isinstance(sensor, ArduinoSensor)
    return Rig(sensor, world, board.unplug, "/dev/ttyACM0")


def bitboard_rig(world: SimWorld) -> Rig:
    board = FakeLiBoard(world)
    sensor = open_sensor("bitboard:///dev/ttyUSB0", world.layout, port=board)
    assert isinstance(sensor, BitboardSensor)
    return Rig(sensor, world, board.unplug, "/dev/ttyUSB0")


BACKENDS: dict[str, Callable[[SimWorld], Rig]] = {
    "sim": sim_rig,
    "mcp23017": mcp23017_rig,
    "arduino": arduino_rig,
    "bitboard": bitboard_rig,
}


@pytest.fixture(params=sorted(BACKENDS))
def rig(request: pytest.FixtureRequest, layout: Layout) -> Iterator[Rig]:
    world = SimWorld(layout, name=f"contract-{request.param}")
    made = BACKENDS[request.param](world)
    yield made
    made.sensor.close()


def start_position(layout: Layout) -> set[Cell]:
    """Where the pieces of a new game stand, worked out from the rules, not from the world."""
    board = {layout.square_cell(chess.square(file, rank)) for file in range(8) for rank in (0, 1, 6, 7)}
    return board | {slot.cell for slot in layout.reserve}


def move_by_hand(world: SimWorld, source: Cell, target: Cell) -> None:
    """Lift the piece on ``source`` and put it down on ``target``, as a person would."""
    layout = world.layout
    piece = world.twin.piece_at(*layout.node_mm(layout.cell_node(source)))
    assert piece is not None, f"no piece on {source}"
    world.twin.lift(piece.id)
    world.twin.place(TwinPiece(piece.id, piece.symbol, *layout.node_mm(layout.cell_node(target))))


def test_the_sensor_is_an_occupancy_sensor_port(rig: Rig) -> None:
    assert isinstance(rig.sensor, OccupancySensor)
    assert isinstance(rig.sensor, SensorDevice)
    assert repr(rig.sensor).startswith(f"<{type(rig.sensor).__name__} ")


def test_the_start_position_is_reported_exactly(rig: Rig, layout: Layout) -> None:
    expected = start_position(layout) & rig.sensor.covered_cells
    assert rig.sensor.scan() == expected
    assert rig.sensor.scan() == expected  # and again: a streaming board keeps its state
    whole_table = set(layout.cells())
    board = set(layout.board_cells())
    assert rig.sensor.covered_cells in (whole_table, board)
    assert len(expected) == (42 if rig.sensor.covered_cells == whole_table else 32)


def test_a_piece_moved_by_hand_shows_in_the_next_scan(rig: Rig, layout: Layout) -> None:
    before = rig.sensor.scan()
    e2, e4 = layout.square_cell(chess.E2), layout.square_cell(chess.E4)
    move_by_hand(rig.world, e2, e4)
    assert rig.sensor.scan() == (before - {e2}) | {e4}


def test_a_captured_piece_shows_in_its_capture_zone_where_the_sensor_reaches(
    rig: Rig, layout: Layout
) -> None:
    before = rig.sensor.scan()
    d8 = layout.square_cell(chess.D8)
    zone = layout.capture_cells[chess.BLACK][0]
    move_by_hand(rig.world, d8, zone)
    assert rig.sensor.scan() == (before - {d8}) | ({zone} & rig.sensor.covered_cells)


def test_a_lifted_piece_disappears_and_reappears(rig: Rig, layout: Layout) -> None:
    before = rig.sensor.scan()
    g1 = layout.square_cell(chess.G1)
    piece = rig.world.twin.piece_at(*layout.node_mm(layout.cell_node(g1)))
    assert piece is not None
    rig.world.twin.lift(piece.id)
    assert rig.sensor.scan() == before - {g1}
    rig.world.twin.place(piece)
    assert rig.sensor.scan() == before


def test_only_the_latest_position_counts_after_several_moves(rig: Rig, layout: Layout) -> None:
    before = rig.sensor.scan()
    e2, e4, g8, f6, h5 = (layout.square_cell(s) for s in (chess.E2, chess.E4, chess.G8, chess.F6, chess.H5))
    move_by_hand(rig.world, e2, e4)
    move_by_hand(rig.world, g8, f6)
    move_by_hand(rig.world, f6, h5)
    assert rig.sensor.scan() == (before - {e2, g8}) | {e4, h5}


def test_a_scan_never_reports_a_cell_the_sensor_cannot_see(rig: Rig, layout: Layout) -> None:
    for cell in layout.free_cells()[:3]:
        move_by_hand(rig.world, layout.square_cell(chess.B1), cell)
        assert rig.sensor.scan() <= rig.sensor.covered_cells
        move_by_hand(rig.world, cell, layout.square_cell(chess.B1))


def test_close_is_idempotent_and_a_closed_sensor_says_so(rig: Rig) -> None:
    rig.sensor.scan()
    rig.sensor.close()
    rig.sensor.close()
    with pytest.raises(SensorError, match="closed"):
        rig.sensor.scan()


def test_the_sensor_is_a_context_manager(rig: Rig) -> None:
    with rig.sensor as sensor:
        assert sensor is rig.sensor
        assert isinstance(sensor.scan(), frozenset)
    with pytest.raises(SensorError):
        rig.sensor.scan()


def test_a_pulled_cable_is_a_sensor_error_naming_the_device(rig: Rig) -> None:
    occupancy: Occupancy = rig.sensor.scan()
    assert occupancy
    rig.unplug()
    with pytest.raises(SensorError) as caught:
        rig.sensor.scan()
    message = str(caught.value)
    assert rig.names in message
    assert message[0].islower()
    if not isinstance(rig.sensor, SimSensor):
        assert isinstance(caught.value.__cause__, OSError)  # translated at the boundary, cause kept
    rig.sensor.close()  # closing a sensor whose device is gone still works
