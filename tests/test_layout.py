from __future__ import annotations

import tomllib
from pathlib import Path

import chess
import pytest

from chessatron.errors import ConfigError, LayoutError
from chessatron.planning.layout import Layout

DEFAULT_TOML = (Path(__file__).parents[1] / "src" / "chessatron" / "data" / "table.toml").read_text()


def test_classic_table_geometry(layout: Layout) -> None:
    assert (layout.columns, layout.rows, layout.square_mm) == (12, 10, 50.8)
    assert layout.pitch_mm == pytest.approx(25.4)
    assert layout.node_extent == (25, 21)
    # a1 and h8 centres are seven squares apart in both directions
    a1, h8 = layout.node_mm(layout.square_node(chess.A1)), layout.node_mm(layout.square_node(chess.H8))
    assert h8[0] - a1[0] == pytest.approx(7 * 50.8)
    assert h8[1] - a1[1] == pytest.approx(7 * 50.8)


def test_capture_zones_hold_every_capturable_piece(layout: Layout) -> None:
    for colour in chess.COLORS:
        assert len(layout.capture_cells[colour]) >= 15
    spares = sorted(slot.symbol for slot in layout.reserve)
    assert spares == sorted("QQRBNqqrbn")
    assert layout.free_cells()  # room to park


def test_node_and_square_round_trip(layout: Layout) -> None:
    for square in chess.SQUARES:
        assert layout.node_square(layout.square_node(square)) == square
    assert layout.node_square((0, 0)) is None
    assert layout.node_square((6, 3)) is None  # an edge midpoint


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rotated_table_keeps_square_spacing(rotation: int) -> None:
    text = DEFAULT_TOML.replace("rotation_deg = 0", f"rotation_deg = {rotation}")
    if rotation in (90, 180, 270):
        text = text.replace(
            "origin_mm = [10.0, 10.0]",
            {
                90: "origin_mm = [520.0, 10.0]",
                180: "origin_mm = [620.0, 520.0]",
                270: "origin_mm = [10.0, 620.0]",
            }[rotation],
        )
        text = text.replace(
            "envelope_mm = [0.0, 0.0, 630.0, 530.0]", "envelope_mm = [0.0, 0.0, 630.0, 630.0]"
        )
    import tomllib

    layout = Layout.from_dict(tomllib.loads(text))
    a1 = layout.node_mm(layout.square_node(chess.A1))
    b1 = layout.node_mm(layout.square_node(chess.B1))
    assert abs(a1[0] - b1[0]) + abs(a1[1] - b1[1]) == pytest.approx(50.8)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("columns = 12", "columns = 7"), "at least 8 x 8"),
        (
            ("envelope_mm = [0.0, 0.0, 630.0, 530.0]", "envelope_mm = [0.0, 0.0, 500.0, 530.0]"),
            "outside the envelope",
        ),
        (("board = [2, 1]", "board = [5, 1]"), "does not fit"),
        (("cell = [11, 2]", "cell = [5, 5]"), "overlaps the board"),
        (("to = [1, 9]", "to = [1, 5]"), "capture zone has"),
        (('method = "spindle"', 'method = "laser"'), "method"),
        (("square_mm = 50.8", 'square_mm = "big"'), "square_mm"),
        (("rotation_deg = 0", "rotation_deg = 45"), "rotation_deg"),
        (('piece = "Q"', 'piece = "K"'), "'K'"),
        (("step_idle_delay_ms = 255", "step_idle_delay_ms = 300"), r"grbl's \$1"),
        (("step_idle_delay_ms = 255", "step_idle_delay_ms = 2.5"), "step_idle_delay_ms"),
    ],
)
def test_bad_layouts_are_rejected_naming_the_problem(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    assert change[0] in DEFAULT_TOML
    path = tmp_path / "table.toml"
    path.write_text(DEFAULT_TOML.replace(change[0], change[1], 1))
    with pytest.raises(ConfigError, match=message):
        Layout.from_toml(path)


def test_layout_that_overlaps_its_zones_is_a_layout_error(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(DEFAULT_TOML.replace("from = [10, 0]", "from = [0, 0]"))
    with pytest.raises(LayoutError, match="overlaps"):
        Layout.from_toml(path)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        Layout.from_toml(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\ncolumns = 12")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Layout.from_toml(bad)


def test_default_file_loads_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(DEFAULT_TOML)
    assert Layout.from_toml(path) == Layout.default()


def test_the_step_idle_delay_of_the_layout_is_the_stop_delay_of_its_time_model() -> None:
    assert Layout.default().profile.stop_delay_s == 0.0  # $1=255: the motors stay on, no delay
    layout = Layout.from_dict(
        tomllib.loads(DEFAULT_TOML.replace("step_idle_delay_ms = 255", "step_idle_delay_ms = 25"))
    )
    assert layout.profile.stop_delay_s == pytest.approx(0.025)
