"""The MCP23017 pin map: its text format, its default for the classic table, and the messages a builder
gets for a map that cannot be right."""

from __future__ import annotations

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chessatron.errors import ConfigError
from chessatron.planning.layout import Cell, Layout
from chessatron.sensors.names import cell_name, parse_cell
from chessatron.sensors.pinmap import Pin, PinMap

LAYOUT = Layout.default()
ALL_CELLS = sorted(LAYOUT.cells())


def test_cell_names_are_chess_squares_on_the_board_and_column_row_elsewhere(layout: Layout) -> None:
    assert cell_name(layout.square_cell(chess.E4), layout) == "e4"
    assert cell_name((0, 9), layout) == "c0r9"
    assert parse_cell("E4", layout) == layout.square_cell(chess.E4)
    assert parse_cell("c2r1", layout) == layout.square_cell(chess.A1)  # a board cell by column and row
    assert {parse_cell(cell_name(cell, layout), layout) for cell in layout.cells()} == set(layout.cells())


@pytest.mark.parametrize(
    ("name", "words"),
    [("i9", "not a cell name"), ("c12r0", "outside the 12 x 10 table"), ("[0,9]", "c0r9"), ("", "e4")],
)
def test_a_bad_cell_name_says_how_cells_are_named(name: str, words: str, layout: Layout) -> None:
    with pytest.raises(ConfigError, match=words.replace("[", r"\[")):
        parse_cell(name, layout)


def test_the_default_map_wires_every_cell_of_the_classic_table_to_eight_expanders(layout: Layout) -> None:
    pin_map = PinMap.default(layout)
    assert pin_map.cells() == set(layout.cells())
    assert pin_map.expanders == 8
    assert pin_map.pins[layout.square_cell(chess.A1)] == Pin(0, "A", 0)
    assert pin_map.pins[layout.square_cell(chess.H1)] == Pin(0, "A", 7)
    assert pin_map.pins[layout.square_cell(chess.E4)] == Pin(1, "B", 4)
    assert pin_map.pins[layout.square_cell(chess.H8)] == Pin(3, "B", 7)
    assert pin_map.pins[(0, 0)] == Pin(4, "A", 0)
    assert pin_map.port_cells(7, "B") == (None,) * 8  # 120 cells leave one port free
    text = pin_map.to_text(layout)
    assert "0A: a1 b1 c1 d1 e1 f1 g1 h1\n" in text
    assert "4A: c0r0 c1r0 c2r0 c3r0 c4r0 c5r0 c6r0 c7r0\n" in text
    assert "7B" not in text


def test_the_text_format_reads_back_what_it_writes(layout: Layout) -> None:
    pin_map = PinMap.default(layout)
    assert PinMap.parse(pin_map.to_text(layout), layout) == pin_map


def test_a_map_in_a_url_uses_semicolons_and_commas(layout: Layout) -> None:
    pin_map = PinMap.parse("0A:a1,b1,c1,d1,e1,f1,g1,h1;1b: - - c0r0 - - - - e4  # spare bits", layout)
    assert pin_map.expanders == 2
    assert pin_map.pins == {
        **{layout.square_cell(chess.square(f, 0)): Pin(0, "A", f) for f in range(8)},
        (0, 0): Pin(1, "B", 2),
        layout.square_cell(chess.E4): Pin(1, "B", 7),
    }


def test_comments_and_blank_lines_are_ignored(layout: Layout) -> None:
    text = "# the a-file\n\n   0B: a1 a2 a3 a4 a5 a6 a7 a8   # left edge\n\n"
    assert PinMap.parse(text, layout).port_cells(0, "B") == tuple(
        layout.square_cell(chess.square(0, r)) for r in range(8)
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0A: a1 b1 c1", "line 1: port 0A lists 3 cells"),
        ("0A: a1 b1 c1 d1 e1 f1 g1 h1 a2", "list exactly 8"),
        ("0C: a1 b1 c1 d1 e1 f1 g1 h1", "start it with an expander index and port"),
        ("8A: a1 b1 c1 d1 e1 f1 g1 h1", "expanders 0-7"),
        ("a1 b1 c1 d1 e1 f1 g1 h1", "such as '0A:'"),
        ("0A: a1 b1 c1 d1 e1 f1 g1 h1\n0A: a2 - - - - - - -", "line 2: port 0A was already given on line 1"),
        (
            "0A: a1 b1 c1 d1 e1 f1 g1 h1\n2B: - - - a1 - - - -",
            "cell 'a1' is wired to pin 2B3 and already to pin 0A0",
        ),
        ("0A: a1 b1 c1 d1 e1 f1 g1 i1", "line 1: 'i1' is not a cell name"),
        ("0A: a1 b1 c1 d1 e1 f1 g1 c0r10", "'c0r10' lies outside the 12 x 10 table"),
        ("# nothing here", "wires no cell"),
    ],
)
def test_a_wrong_map_is_named_by_line_with_the_fix(text: str, words: str, layout: Layout) -> None:
    with pytest.raises(ConfigError) as caught:
        PinMap.parse(text, layout, source="pins.txt")
    assert words in str(caught.value)


def test_a_table_too_big_for_eight_expanders_needs_its_own_map() -> None:
    big = Layout.from_dict(
        {
            "table": {"columns": 14, "rows": 10},
            "machine": {"envelope_mm": [0.0, 0.0, 800.0, 600.0]},
            "capture_zone": [
                {"colour": "white", "from": [0, 0], "to": [1, 9]},
                {"colour": "black", "from": [12, 0], "to": [13, 9]},
            ],
        }
    )
    with pytest.raises(ConfigError, match="140 cells, more than the 128 inputs"):
        PinMap.default(big)


def test_the_decoder_reads_active_low(layout: Layout) -> None:
    decoder = PinMap.default(layout).decoder()
    assert decoder.occupied([(0xFF, 0xFF)] * 8) == frozenset()
    readings = [(0xFF, 0xFF)] * 8
    readings[1] = (0xFF, 0xFF & ~(1 << 4))  # 1B bit 4: e4
    readings[7] = (0x00, 0x00)  # 7B has no sensors: its bits mean nothing
    expected = {layout.square_cell(chess.E4)} | {
        cell for cell in layout.cells() if cell[1] == 9 and cell[0] >= 4
    }
    assert decoder.occupied(readings) == expected


@st.composite
def pin_maps(draw: st.DrawFn) -> dict[Cell, Pin]:
    cells = draw(st.lists(st.sampled_from(ALL_CELLS), min_size=1, max_size=40, unique=True))
    pins = draw(
        st.lists(
            st.builds(Pin, st.integers(0, 7), st.sampled_from(["A", "B"]), st.integers(0, 7)),
            min_size=len(cells),
            max_size=len(cells),
            unique=True,
        )
    )
    return dict(zip(cells, pins, strict=True))


@settings(max_examples=60, deadline=None)
@given(pin_maps(), st.data())
def test_any_map_survives_text_and_decodes_what_its_pins_read(
    pins: dict[Cell, Pin], data: st.DataObject
) -> None:
    pin_map = PinMap(pins)
    assert PinMap.parse(pin_map.to_text(LAYOUT), LAYOUT) == pin_map
    occupied = set(data.draw(st.sets(st.sampled_from(sorted(pins)))))
    readings = []
    for expander in range(pin_map.expanders):
        ports = []
        for port in ("A", "B"):
            value = 0xFF
            for cell, pin in pins.items():
                if pin.expander == expander and pin.port == port and cell in occupied:
                    value &= ~(1 << pin.bit)
            ports.append(value)
        readings.append((ports[0], ports[1]))
    assert pin_map.decoder().occupied(readings) == occupied
