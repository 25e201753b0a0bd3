"""The square LEDs: strip mappings, URL options, the WS281x driver's life cycle, the simulator's
pictures, and the chess signals."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from chessatron.errors import (
    ColourError,
    ConfigError,
    LedMappingError,
    MissingLibraryError,
    OutputDeviceError,
)
from chessatron.feedback import LedSignals, SignalColours, combine, open_leds, parse_colour
from chessatron.feedback.leds import PixelLedStrip, SimLedStrip, SimPixelStrip, StripSettings
from chessatron.feedback.mapping import LedMapping
from chessatron.feedback.view import leds_panel, svg_with_leds
from chessatron.planning.layout import Cell, Layout
from chessatron.planning.table import Table
from chessatron.render import table_svg

from .test_feedback_fakes import fake_rpi_ws281x

SVG = "{http://www.w3.org/2000/svg}"
RED = (255, 0, 0)


def cell(layout: Layout, name: str) -> Cell:
    return layout.square_cell(chess.parse_square(name))


def names(layout: Layout, cells: object) -> list[str]:
    """Square names of board cells, in the order given."""
    found = []
    for c in cells:  # type: ignore[attr-defined]
        square = layout.node_square(layout.cell_node(c))
        found.append(chess.square_name(square) if square is not None else f"{c[0]}:{c[1]}")
    return found


class Recorder:
    """A strip factory that keeps the SimPixelStrips it builds and the settings it was given."""

    def __init__(self) -> None:
        self.strips: list[SimPixelStrip] = []

    def __call__(self, settings: StripSettings) -> SimPixelStrip:
        self.strips.append(SimPixelStrip.from_settings(settings))
        return self.strips[-1]

    @property
    def strip(self) -> SimPixelStrip:
        (strip,) = self.strips
        return strip


# --- mappings --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "along", "first"),
    [
        ("a1", "ranks", ["a1", "b1", "c1"]),
        ("h1", "ranks", ["h1", "g1", "f1"]),
        ("a8", "ranks", ["a8", "b8", "c8"]),
        ("h8", "files", ["h8", "h7", "h6"]),
        ("a1", "files", ["a1", "a2", "a3"]),
    ],
)
def test_grid_starts_at_the_origin_corner(layout: Layout, origin: str, along: str, first: list[str]) -> None:
    mapping = LedMapping.grid(layout, "serpentine", origin=origin, along=along)  # type: ignore[arg-type]
    assert names(layout, mapping.cells[:3]) == first


def test_serpentine_folds_back_and_rows_do_not(layout: Layout) -> None:
    serpentine = LedMapping.grid(layout, "serpentine")
    rows = LedMapping.grid(layout, "rows")
    assert names(layout, serpentine.cells[7:10]) == ["h1", "h2", "g2"]
    assert names(layout, rows.cells[7:10]) == ["h1", "a2", "b2"]
    assert serpentine.index(cell(layout, "e4")) == 27 and rows.index(cell(layout, "e4")) == 28


@given(
    wiring=st.sampled_from(["serpentine", "rows"]),
    origin=st.sampled_from(["a1", "h1", "a8", "h8"]),
    along=st.sampled_from(["ranks", "files"]),
    cover=st.sampled_from(["board", "table"]),
)
def test_a_grid_puts_one_pixel_under_every_covered_cell(
    wiring: str, origin: str, along: str, cover: str
) -> None:
    layout = Layout.default()
    mapping = LedMapping.grid(layout, wiring, origin=origin, along=along, cover=cover)  # type: ignore[arg-type]
    covered = set(layout.board_cells()) if cover == "board" else set(layout.cells())
    assert set(mapping.cells) == covered and mapping.count == len(covered)
    if wiring == "serpentine":
        # A serpentine strip never jumps: each pixel sits next to the one before.
        for (c0, r0), (c1, r1) in zip(mapping.cells, mapping.cells[1:], strict=False):  # type: ignore[misc]
            assert abs(c0 - c1) + abs(r0 - r1) == 1


def test_mapping_entries_and_files(layout: Layout, tmp_path: Path) -> None:
    path = tmp_path / "leds.txt"
    path.write_text("# pixel 0 is a spare\n-, a1 b1\n11:0   # a capture cell\n")
    mapping = LedMapping.from_file(path, layout)
    assert mapping.cells == (None, cell(layout, "a1"), cell(layout, "b1"), (11, 0))
    assert mapping.index(cell(layout, "b1")) == 2 and mapping.index(cell(layout, "c1")) is None


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (["a1", "b1", "a1"], r"cell \(2, 1\) under pixels 0 and 2"),
        (["a1", "x9"], "pixel 1 is 'x9'"),
        (["a1", "40:0"], "outside the 12 x 10 table"),
        ([], "no pixels"),
    ],
)
def test_bad_mappings_are_named(layout: Layout, entries: list[str], message: str) -> None:
    with pytest.raises(LedMappingError, match=message):
        LedMapping.from_entries(entries, layout)


def test_a_missing_mapping_file_says_what_order_accepts(layout: Layout, tmp_path: Path) -> None:
    with pytest.raises(LedMappingError, match="order=serpentine"):
        open_leds(f"sim://?order={tmp_path / 'nope.txt'}", layout)


def test_count_must_match_the_mapping(layout: Layout) -> None:
    with pytest.raises(LedMappingError, match=r"count=60 but .* has 64 pixels; set count=64"):
        open_leds("ws281x://18?count=60", layout, strip_factory=Recorder())


# --- URL options -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ws281x://18?brigthness=0.3", "unknown option 'brigthness'"),
        ("ws281x://17", "GPIO 17 cannot drive WS281x"),
        ("ws281x://?count=64", "needs a GPIO"),
        ("ws281x://18?brightness=2", "brightness=2.0 is not between 0 and 1"),
        ("ws281x://18?strip=GRBW", "strip='GRBW' is not a colour order"),
        ("ws281x://18?dma=5", "dma=5 cannot be used"),
        ("ws281x://19?channel=0", "needs channel 1"),
        ("ws281x://18?origin=e4", "origin 'e4' is not one of"),
        ("ws281x://18?freq=1000", "freq=1000"),
        ("neopixel://18", "unknown scheme 'neopixel'"),
        ("none://?count=3", "unknown option 'count'"),
    ],
)
def test_bad_led_urls_are_named(layout: Layout, url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_leds(url, layout, strip_factory=Recorder())


def test_url_options_reach_the_driver(layout: Layout) -> None:
    recorder = Recorder()
    open_leds("ws281x://13?brightness=0.5&strip=rgb&invert=1&dma=11", layout, strip_factory=recorder).close()
    assert recorder.strip.settings == StripSettings(
        pin=13, count=64, dma=11, invert=True, brightness=128, channel=1, order="RGB"
    )


def test_the_real_pixel_strip_is_built_with_rpi_ws281x_arguments(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = fake_rpi_ws281x()
    monkeypatch.setitem(sys.modules, "rpi_ws281x", module)
    with open_leds("ws281x://18?cover=table&order=rows", layout) as strip:
        strip.show({(0, 0): RED})
    (built,) = module.built
    assert built == {
        "num": 120,
        "pin": 18,
        "freq_hz": 800_000,
        "dma": 10,
        "invert": False,
        "brightness": 77,
        "channel": 0,
        "strip_type": module.ws.WS2811_STRIP_GRB,
    }


def test_without_rpi_ws281x_the_message_names_the_pi_extra(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)
    with pytest.raises(MissingLibraryError, match=re.escape("pip install 'chessatron[pi]'")) as caught:
        open_leds("ws281x://18", layout)
    assert isinstance(caught.value, ImportError)


# --- driver life cycle -----------------------------------------------------------------------------


class BrokenStrip(SimPixelStrip):
    def __init__(self, count: int, *, fail_begin: bool = False) -> None:
        super().__init__(count)
        self.fail_begin = fail_begin
        self.fail_show = False

    def begin(self) -> None:
        if self.fail_begin:
            raise RuntimeError("ws2811_init failed with code -5 (mmap() failed)")
        super().begin()

    def show(self) -> None:
        if self.fail_show:
            raise RuntimeError("ws2811_render failed with code -11")
        super().show()


def test_a_strip_that_does_not_start_is_cleaned_up(layout: Layout) -> None:
    strip = BrokenStrip(64, fail_begin=True)
    with pytest.raises(OutputDeviceError, match="run as root"):
        PixelLedStrip(LedMapping.grid(layout), strip)
    assert strip.cleaned_up and not strip.frames


def test_a_failing_update_is_a_hardware_error(layout: Layout) -> None:
    strip = BrokenStrip(64)
    leds = PixelLedStrip(LedMapping.grid(layout), strip)
    strip.fail_show = True
    with pytest.raises(OutputDeviceError, match="failed to update"):
        leds.show({cell(layout, "e4"): RED})
    strip.fail_show = False
    leds.close()
    assert strip.cleaned_up and not any(strip.shown)


def test_only_changed_pixels_are_rewritten(layout: Layout) -> None:
    recorder = Recorder()
    with open_leds("ws281x://18", layout, strip_factory=recorder) as leds:
        start = len(recorder.strip.calls)
        leds.show({cell(layout, "e4"): RED, cell(layout, "d4"): RED})
        leds.show({cell(layout, "e4"): RED})
        leds.show({cell(layout, "e4"): RED})
        calls = recorder.strip.calls[start:]
    assert calls == [
        ("setPixelColor", (27, 0xFF0000)),
        ("setPixelColor", (28, 0xFF0000)),
        ("show", ()),
        ("setPixelColor", (28, 0)),
        ("show", ()),
    ]


def test_starts_dark_and_ends_dark(layout: Layout) -> None:
    recorder = Recorder()
    leds = open_leds("ws281x://18", layout, strip_factory=recorder)
    leds.show({cell(layout, "a1"): RED})
    leds.close()
    frames = recorder.strip.frames
    assert not any(frames[0]) and frames[1][0] == 0xFF0000 and not any(frames[-1])
    assert recorder.strip.calls[-1] == ("_cleanup", ())


def test_a_table_wide_strip_lights_the_capture_zones(layout: Layout) -> None:
    with open_leds("sim://?cover=table&order=serpentine", layout) as leds:
        capture = layout.capture_cells[chess.BLACK][3]
        leds.show({capture: (0, 0, 255)})
        assert isinstance(leds, SimLedStrip) and leds.colours == {capture: (0, 0, 255)}
        assert leds.frames[-1] == {capture: (0, 0, 255)} and leds.frames[0] == {}


# --- pictures --------------------------------------------------------------------------------------


def test_the_sim_draws_the_lit_board_in_the_terminal(layout: Layout) -> None:
    console = Console(width=80, color_system="truecolor", force_terminal=True)
    with open_leds("sim://lab", layout) as leds, console.capture() as capture:
        leds.show({cell(layout, "e4"): (0, 200, 0)})
        console.print(leds)
    out = capture.get()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "LEDs lab" in plain and "1 lit" in plain and "e4" in plain
    # e4 is drawn on the LED's green, mixed with a little of the light square under it.
    assert "48;2;12;186;8" in out
    assert plain.count("e4") == 1 and " a   b   c   d   e   f   g   h" in plain


def test_the_terminal_view_widens_to_the_table_when_zones_are_lit(layout: Layout) -> None:
    console = Console(width=80, color_system=None)
    with console.capture() as capture:
        console.print(leds_panel({layout.capture_cells[chess.WHITE][0]: RED}, layout))
    lines = capture.get().splitlines()
    assert len(lines) == 2 + 2 * layout.rows + 1


def test_the_svg_glows_under_the_pieces_on_the_right_square(layout: Layout) -> None:
    table = Table.from_board(layout, chess.Board())
    svg = table_svg(table, title="leds")
    with open_leds("sim://", layout) as leds:
        leds.show({cell(layout, "e4"): (0, 200, 0), cell(layout, "e2"): (255, 190, 0)})
        assert isinstance(leds, SimLedStrip)
        picture = leds.svg(svg)
    root = ET.fromstring(picture)
    children = list(root)
    groups = [e.get("class") for e in children]
    assert groups.index("leds") < groups.index("pieces")
    glows = {
        rect.findtext(f"{SVG}title"): rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "led"
    }
    assert set(glows) == {"e4 #00c800", "e2 #ffbe00"}
    edge = next(e for e in root.iter(f"{SVG}rect") if e.get("class") == "board-edge")
    square = float(edge.get("width", "0")) / 8
    e4 = glows["e4 #00c800"]
    # e4 is the 5th file from the board's left edge and the 5th rank from its top.
    assert float(e4.get("x", "0")) == pytest.approx(float(edge.get("x", "0")) + 4 * square, abs=0.1 * square)
    assert float(e4.get("y", "0")) == pytest.approx(float(edge.get("y", "0")) + 4 * square, abs=0.1 * square)


def test_svg_without_a_board_is_refused(layout: Layout) -> None:
    with pytest.raises(ValueError, match="board outline"):
        svg_with_leds('<svg xmlns="http://www.w3.org/2000/svg"/>', {}, layout)


# --- colours and signals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rgb"),
    [("green", (0, 200, 0)), ("#FF8000", (255, 128, 0)), ("ff8000", (255, 128, 0)), ("1, 2, 3", (1, 2, 3))],
)
def test_colours_from_config(text: str, rgb: tuple[int, int, int]) -> None:
    assert parse_colour(text) == rgb


@pytest.mark.parametrize("text", ["greenish", "#12345", "1,2", "1,2,300"])
def test_bad_colours_are_named(text: str) -> None:
    with pytest.raises(ColourError, match=re.escape(repr(text))):
        parse_colour(text)


def lit_names(signals: LedSignals, lit: dict[Cell, tuple[int, int, int]]) -> dict[str, tuple[int, int, int]]:
    return {chess.square_name(signals.square(c)): rgb for c, rgb in lit.items()}  # type: ignore[arg-type]


def test_legal_destinations_green_and_captures_yellow(layout: Layout) -> None:
    signals = LedSignals(layout)
    colours = signals.colours
    board = chess.Board("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    assert lit_names(signals, signals.show_legal_moves(board, chess.E5)) == {
        "e5": colours.selected,
        "e6": colours.destination,
        "f6": colours.capture,  # en passant: the pawn moves to f6 and takes on f5
    }
    board = chess.Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    king = lit_names(signals, signals.show_legal_moves(board, chess.E1))
    assert king["g1"] == king["c1"] == colours.destination and "h1" not in king
    promotion = chess.Board("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert lit_names(signals, signals.show_legal_moves(promotion, chess.A7)) == {
        "a7": colours.selected,
        "a8": colours.destination,
        "b8": colours.capture,
    }
    assert signals.show_legal_moves(chess.Board(), chess.E7) == {}  # black's pawn, white to move


def test_check_lights_the_king_and_every_checker(layout: Layout) -> None:
    signals = LedSignals(layout)
    double = chess.Board("4k3/8/8/1B6/8/8/8/4RK2 b - - 0 1")
    violet = signals.colours.check
    assert lit_names(signals, signals.show_check(double)) == {"e8": violet, "b5": violet, "e1": violet}
    assert signals.show_check(chess.Board()) == {}


def test_illegal_and_engine_moves(layout: Layout) -> None:
    signals = LedSignals(layout, SignalColours.from_dict({"engine_to": "cyan"}))
    red = signals.colours.illegal
    assert lit_names(signals, signals.show_illegal(chess.Move.from_uci("e2e5"))) == {"e2": red, "e5": red}
    assert lit_names(signals, signals.show_illegal([chess.D4])) == {"d4": red}
    blue, cyan = signals.colours.engine_from, parse_colour("cyan")
    assert lit_names(signals, signals.show_engine_move(chess.Move.from_uci("g1f3"))) == {
        "g1": blue,
        "f3": cyan,
    }
    board = chess.Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    castle = lit_names(signals, signals.show_engine_move(chess.Move.from_uci("e1g1"), board))
    assert castle == {"e1": blue, "h1": blue, "g1": cyan, "f1": cyan}
    chess960 = chess.Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", chess960=True)
    assert lit_names(signals, signals.show_engine_move(chess.Move.from_uci("e1a1"), chess960)) == {
        "e1": blue,
        "a1": blue,
        "c1": cyan,
        "d1": cyan,
    }


def test_signal_colours_from_config_are_checked() -> None:
    with pytest.raises(ConfigError, match="unknown signal 'capturre'"):
        SignalColours.from_dict({"capturre": "red"})
    with pytest.raises(ColourError, match="check = colour"):
        SignalColours.from_dict({"check": "ultraviolet"})
    with pytest.raises(ColourError):
        SignalColours(check=(0, 0, 300))


def test_combined_signals_show_on_the_strip(layout: Layout) -> None:
    signals = LedSignals(layout)
    board = chess.Board("4k3/8/8/1B6/8/8/8/4RK2 b - - 0 1")
    with open_leds("sim://", layout) as leds:
        leds.show(combine(signals.show_check(board), signals.show_illegal([chess.E8])))
        assert isinstance(leds, SimLedStrip)
        assert leds.colours[cell(layout, "e8")] == signals.colours.illegal
        assert leds.colours[cell(layout, "b5")] == signals.colours.check
