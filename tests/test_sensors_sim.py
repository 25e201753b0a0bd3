"""The simulated sensor's noise: bounce, flicker and stuck cells, measured over many scans with a seed."""

from __future__ import annotations

from collections.abc import Iterator

import chess
import pytest

from chessatron.errors import ConfigError
from chessatron.planning.layout import Cell, Layout
from chessatron.ports import DeviceUrl
from chessatron.sensors import Noise, SimSensor, open_sensor
from chessatron.sensors.sim import NoiseModel
from chessatron.sim.twin import TwinPiece
from chessatron.sim.world import SimWorld, forget_world, get_world, register_world

LAYOUT = Layout.default()
CELLS = sorted(LAYOUT.cells())
# Two occupancies that differ in 60 cells: the left half of the table full, or the right half.
LEFT = frozenset(cell for cell in CELLS if cell[0] < 6)
RIGHT = frozenset(cell for cell in CELLS if cell[0] >= 6)


def sim_sensor(world: SimWorld, options: str = "") -> SimSensor:
    sensor = open_sensor(f"sim://{world.name}?{options}", world.layout, world=world)
    assert isinstance(sensor, SimSensor)
    return sensor


@pytest.fixture
def world(layout: Layout) -> SimWorld:
    return SimWorld(layout, name="noise")


def test_without_options_the_sensor_is_perfect(world: SimWorld) -> None:
    sensor = sim_sensor(world)
    assert sensor.noise.is_quiet
    assert all(sensor.scan() == world.occupied_cells() for _ in range(20))


def test_flicker_misreads_each_cell_with_its_probability() -> None:
    model = NoiseModel(Noise(flicker_p=0.05), CELLS, seed=7)
    wrong = sum(len(model.apply(LEFT) ^ LEFT) for _ in range(400))
    assert wrong / (400 * len(CELLS)) == pytest.approx(0.05, abs=0.005)


def test_the_same_seed_gives_the_same_noise_and_another_seed_other_noise() -> None:
    noise = Noise(bounce_scans=2, bounce_p=0.5, flicker_p=0.02)

    def run(seed: int) -> list[frozenset[Cell]]:
        model = NoiseModel(noise, CELLS, seed)
        return [model.apply(LEFT if i % 5 < 3 else RIGHT) for i in range(50)]

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_bounce_shows_the_old_value_with_its_probability_for_k_scans() -> None:
    model = NoiseModel(Noise(bounce_scans=2, bounce_p=0.3), CELLS, seed=3)
    stale = [0, 0, 0]
    changes = 300
    truth = LEFT
    model.apply(truth)
    for _ in range(changes):
        old, truth = truth, (RIGHT if truth == LEFT else LEFT)
        for scan in range(3):
            shown = model.apply(truth)
            stale[scan] += len((shown ^ truth) & (old ^ truth))
    changed = changes * len(LEFT ^ RIGHT)
    assert stale[0] / changed == pytest.approx(0.3, abs=0.02)
    assert stale[1] / changed == pytest.approx(0.3, abs=0.02)
    assert stale[2] == 0  # after k scans the truth shows


def test_bounce_without_a_probability_is_a_lag_of_k_scans(world: SimWorld) -> None:
    layout = world.layout
    sensor = sim_sensor(world, "bounce=2&seed=1")
    e2, e4 = layout.square_cell(chess.E2), layout.square_cell(chess.E4)
    before = sensor.scan()
    pawn = world.twin.piece_at(*layout.node_mm(layout.cell_node(e2)))
    assert pawn is not None
    world.twin.place(TwinPiece(pawn.id, pawn.symbol, *layout.node_mm(layout.cell_node(e4))))
    assert sensor.scan() == before
    assert sensor.scan() == before
    assert sensor.scan() == (before - {e2}) | {e4}


def test_stuck_cells_always_read_their_value(world: SimWorld) -> None:
    layout = world.layout
    sensor = sim_sensor(world, "stuck=e4:1,a1:0,c0r9:0&flicker=0.1&seed=5")
    e4, a1 = layout.square_cell(chess.E4), layout.square_cell(chess.A1)
    for _ in range(50):
        seen = sensor.scan()
        assert e4 in seen
        assert a1 not in seen
        assert (0, 9) not in seen  # a reserve queen stands there


def test_the_seed_is_kept_so_a_noisy_run_can_be_repeated(world: SimWorld) -> None:
    first = sim_sensor(world, "flicker=0.1")
    again = sim_sensor(world, f"flicker=0.1&seed={first.seed}")
    assert f"seed {first.seed}" in repr(first)
    assert [first.scan() for _ in range(10)] == [again.scan() for _ in range(10)]


@pytest.fixture
def lab(layout: Layout) -> Iterator[SimWorld]:
    world = register_world(SimWorld(layout, name="sensors-lab"))
    yield world
    forget_world("sensors-lab")


def test_a_world_is_found_by_its_name(lab: SimWorld, layout: Layout) -> None:
    lab.twin.lift(next(iter(lab.twin.pieces)))
    with open_sensor("sim://sensors-lab", layout) as sensor:
        assert isinstance(sensor, SimSensor)
        assert sensor.world is lab
        assert len(sensor.scan()) == 41
    assert get_world("sensors-lab") is lab


def test_a_world_of_another_table_is_refused(layout: Layout) -> None:
    small = Layout.from_dict(
        {
            "table": {"columns": 12, "rows": 10, "board": [2, 2]},
            "capture_zone": [
                {"colour": "white", "from": [0, 0], "to": [1, 9]},
                {"colour": "black", "from": [10, 0], "to": [11, 9]},
            ],
        }
    )
    with pytest.raises(ConfigError, match=r"a1 at \(2, 2\).*use another world name"):
        open_sensor("sim://", layout, world=SimWorld(small))


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ("bounce=x", "bounce='x' in a sim:// URL is not SCANS:PROBABILITY"),
        ("bounce=2:1.5", "bounce probability 1.5 is not between 0 and 1"),
        ("bounce=-1", "bounce lasts -1 scans"),
        ("flicker=2", "flicker probability 2.0"),
        ("flicker=often", "flicker='often' in a sim:// URL is not a number"),
        ("stuck=e4:2", "stuck='e4:2' in a sim:// URL is not CELL:0 or CELL:1"),
        ("stuck=z9:1", "'z9' is not a cell name"),
        ("seed=1.5", "seed='1.5' in a sim:// URL is not a whole number"),
        ("range=0", "range='0' in a sim:// URL must be positive"),
        ("flikker=0.1", "unknown option 'flikker'"),
    ],
)
def test_a_wrong_option_says_what_to_write(options: str, words: str, world: SimWorld) -> None:
    with pytest.raises(ConfigError) as caught:
        open_sensor(f"sim://?{options}", world.layout, world=world)
    assert words in str(caught.value)


def test_noise_reads_its_options_from_the_url(layout: Layout) -> None:
    noise = Noise.from_url(DeviceUrl.parse("sim://?bounce=3:0.25&flicker=0.001&stuck=h8:1"), layout)
    assert noise == Noise(3, 0.25, 0.001, {layout.square_cell(chess.H8): True})


def test_the_sensor_range_decides_whether_an_off_centre_piece_is_seen(world: SimWorld) -> None:
    layout = world.layout
    d4 = layout.square_cell(chess.D4)
    x, y = layout.node_mm(layout.cell_node(d4))
    world.twin.place(TwinPiece("stray", "N", x + 8.0, y))
    assert d4 in sim_sensor(world, "range=12").scan()
    assert d4 not in sim_sensor(world, "range=5").scan()
