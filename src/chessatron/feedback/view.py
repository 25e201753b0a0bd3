"""Pictures of the square LEDs: a rich panel for the terminal, and a glow over the SVG table picture.

>>> import chess
>>> from rich.console import Console
>>> layout = Layout.default()
>>> console = Console(width=60, color_system=None)
>>> with console.capture() as capture:
...     console.print(leds_panel({layout.square_cell(chess.E4): (0, 200, 0)}, layout))
>>> "e4" in capture.get()
True
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Collection, Mapping

import chess
from rich.box import ROUNDED
from rich.panel import Panel
from rich.style import Style
from rich.text import Text

from ..i18n import _, ngettext
from ..planning.layout import Cell, Layout
from ..ports import RGB
from .colours import hex_colour, luminance, mix

__all__ = ["leds_panel", "leds_svg_group", "svg_with_leds"]

# Unlit squares look like a wooden board with the lights off; cells with no LED under them are a
# flat table grey, so a board-only strip shows where its light ends.
_UNLIT = {"light": (96, 84, 68), "dark": (64, 52, 40)}
_NO_LED: RGB = (34, 34, 34)
_CELL_WIDTH = 4
_CELL_HEIGHT = 2
#: How much of the square's own colour shows through a lit LED (a board is not a screen).
_SQUARE_SHOWS = 0.12
_SVG = "{http://www.w3.org/2000/svg}"


def leds_panel(
    colours: Mapping[Cell, RGB],
    layout: Layout,
    *,
    title: str | None = None,
    cells: Collection[Cell] | None = None,
) -> Panel:
    """The board (or the whole table, when a lit cell or ``cells`` reaches past the board) with every
    lit cell in its LED's colour and its name on it. ``cells`` are the cells that have an LED (default:
    all); the others show flat grey. Print it with ``rich.print``."""
    with_led = set(layout.cells()) if cells is None else set(cells)
    board = set(layout.board_cells())
    if (set(colours) | with_led) <= board:
        columns = range(layout.board_cell[0], layout.board_cell[0] + 8)
        rows = range(layout.board_cell[1], layout.board_cell[1] + 8)
    else:
        columns, rows = range(layout.columns), range(layout.rows)
    label = Style(color="grey62")
    text = Text(no_wrap=True, overflow="crop")
    for row in reversed(rows):
        rank = row - layout.board_cell[1]
        for line in range(_CELL_HEIGHT):
            left = f"{rank + 1:>2} " if line == 0 and 0 <= rank < 8 else "   "
            text.append(left, label)
            for column in columns:
                text.append_text(_cell_text(layout, (column, row), colours, with_led, line))
            text.append("\n")
    text.append("   ")
    for column in columns:
        file = column - layout.board_cell[0]
        name = chess.FILE_NAMES[file] if 0 <= file < 8 else ""
        text.append(name.center(_CELL_WIDTH), label)
    lit = len(colours)
    # TRANSLATORS: how many of the table's LEDs are lit
    subtitle = ngettext("{count} lit", "{count} lit", lit).format(count=lit) if lit else _("all off")
    return Panel(
        text,
        title=_("LEDs") if title is None else title,
        subtitle=subtitle,
        box=ROUNDED,
        expand=False,
        border_style="grey50",
    )


def _cell_text(
    layout: Layout, cell: Cell, colours: Mapping[Cell, RGB], with_led: set[Cell], line: int
) -> Text:
    square = layout.node_square(layout.cell_node(cell))
    if square is not None:
        base = _UNLIT["light" if (chess.square_file(square) + chess.square_rank(square)) % 2 else "dark"]
    else:
        base = _NO_LED
    colour = colours.get(cell)
    if colour is None or not any(colour):
        fill = base if cell in with_led or square is not None else _NO_LED
        return Text(" " * _CELL_WIDTH, Style(bgcolor=hex_colour(fill)))
    fill = mix(colour, base, _SQUARE_SHOWS)
    ink = "#000000" if luminance(fill) > 0.45 else "#ffffff"
    name = chess.square_name(square) if square is not None else f"{cell[0]}:{cell[1]}"
    content = name[:_CELL_WIDTH].center(_CELL_WIDTH) if line == 0 else " " * _CELL_WIDTH
    return Text(content, Style(color=ink, bgcolor=hex_colour(fill), bold=True))


# --- SVG -------------------------------------------------------------------------------------------


def leds_svg_group(
    colours: Mapping[Cell, RGB], layout: Layout, *, square_px: float, a8_top_left: tuple[float, float]
) -> str:
    """An SVG ``<g class="leds">`` fragment: a soft glow of each LED's colour over its cell, for a
    picture whose squares are ``square_px`` wide and whose a8 square's top left corner is at
    ``a8_top_left`` (pixels, y down). Each glow is a ``<rect class="led">`` titled with its cell."""
    group = ET.Element("g", {"class": "leds"})
    defs = ET.SubElement(group, "defs")
    seen: set[str] = set()
    x0, y0 = a8_top_left
    for cell, rgb in sorted(colours.items()):
        if not any(rgb):
            continue
        colour = hex_colour(rgb)
        gradient = f"led-glow-{colour[1:]}"
        if gradient not in seen:
            seen.add(gradient)
            radial = ET.SubElement(defs, "radialGradient", {"id": gradient, "r": "0.75"})
            for offset, opacity in (("0", "0.85"), ("0.55", "0.55"), ("1", "0.15")):
                ET.SubElement(
                    radial, "stop", {"offset": offset, "stop-color": colour, "stop-opacity": opacity}
                )
        x = x0 + (cell[0] - layout.board_cell[0]) * square_px
        y = y0 + (layout.board_cell[1] + 7 - cell[1]) * square_px
        inset = 0.04 * square_px
        rect = ET.SubElement(
            group,
            "rect",
            {
                "class": "led",
                "x": _f(x + inset),
                "y": _f(y + inset),
                "width": _f(square_px - 2 * inset),
                "height": _f(square_px - 2 * inset),
                "rx": _f(0.12 * square_px),
                "fill": f"url(#{gradient})",
                "stroke": colour,
                "stroke-width": _f(0.05 * square_px),
                "stroke-opacity": "0.9",
                "data-colour": colour,
            },
        )
        square = layout.node_square(layout.cell_node(cell))
        ET.SubElement(rect, "title").text = (
            chess.square_name(square)
            if square is not None
            else _("cell {column}:{row}").format(column=cell[0], row=cell[1])
        ) + f" {colour}"
    return ET.tostring(group, encoding="unicode")


def svg_with_leds(svg: str, colours: Mapping[Cell, RGB], layout: Layout) -> str:
    """``svg`` from :func:`chessatron.render.table_svg` with the LEDs glowing over their cells, under
    the pieces. Raises ValueError if ``svg`` has no board outline (``rect class="board-edge"``)."""
    root = ET.fromstring(svg)
    edge = next((e for e in root.iter(f"{_SVG}rect") if e.get("class") == "board-edge"), None)
    if edge is None:
        raise ValueError("the svg has no board outline (rect class='board-edge'); draw it with table_svg()")
    square = float(edge.get("width", "0")) / 8
    group = leds_svg_group(
        colours, layout, square_px=square, a8_top_left=(float(edge.get("x", "0")), float(edge.get("y", "0")))
    )
    marker = svg.find('<g class="pieces"')
    if marker < 0:
        marker = svg.rfind("</svg>")
    return svg[:marker] + group + svg[marker:]


def _f(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
