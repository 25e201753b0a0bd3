"""Pictures of the whole table: an SVG for files and browsers, a rich text view for the terminal.

Both show the table as the white player sees it (row 0 at the bottom): the 8x8 board, the capture
zones, the reserve slots and the free cells around them, every physical piece where it stands (pieces
may stand on any node, not only on cell centres), and optionally the drags of a plan and the gantry.

>>> layout = Layout.default()
>>> table = Table.from_board(layout, chess.Board())
>>> svg = table_svg(table, title="start")
>>> svg.count('class="piece"')
42
>>> table_text(table).plain.splitlines()[-1].strip()
'a  b  c  d  e  f  g  h'
"""

# One module on purpose (about 620 lines): the SVG and the terminal picture draw the same table from the
# same geometry; apart, they would drift.

from __future__ import annotations

import html
import itertools
import math
import os
import xml.etree.ElementTree as ET
from collections.abc import Collection, Iterable, Sequence

import chess
import chess.svg
from rich.console import Console
from rich.style import Style
from rich.text import Text

from .i18n import PSEUDO, _, current_language
from .planning.layout import Cell, Layout, MachinePoint, Node
from .planning.planner import Purpose, Relocation
from .planning.table import Table

__all__ = ["table_html", "table_svg", "table_text"]

# --- SVG -------------------------------------------------------------------------------------------

#: Fills of the SVG cells by :meth:`Layout.cell_kind`; board squares use the python-chess colours.
_SVG_FILL = {
    "light": "#f0d9b5",
    "dark": "#b58863",
    "capture-white": "#e8dcc0",
    "capture-black": "#bcc2cb",
    "reserve": "#dcd3ec",
    "free": "#fbfaf7",
}
#: Drag colours by the colour of the dragged piece.
_PATH_COLOUR = {chess.WHITE: "#1f6fd6", chess.BLACK: "#d63a1f"}
_GANTRY_COLOUR = "#e0115f"
_DASHED: frozenset[Purpose] = frozenset({"capture", "promote-out"})
#: Drags that only make way for another piece and undo it again.
_DOTTED: frozenset[Purpose] = frozenset({"park", "unpark", "aside", "back"})
#: python-chess draws its piece glyphs in a 45 x 45 box.
_GLYPH_BOX = chess.svg.SQUARE_SIZE
_PIECE_FRACTION = 0.7
_MARGIN_SQUARES = 0.5
_TITLE_SQUARES = 0.7


def table_svg(
    table: Table,
    paths: Sequence[Relocation] = (),
    *,
    gantry: MachinePoint | None = None,
    title: str | None = None,
    size_px: int = 900,
) -> str:
    """A standalone SVG picture of the whole table, ``size_px`` pixels wide.

    ``paths`` are drawn as polylines through node centres on top of the pieces, blue for white's
    pieces and red for black's: solid for moves, dashed for pieces leaving the board (captures, a
    promoted pawn), dotted for pieces that only make way (park, aside, and their way back); a dot marks
    each start and an arrowhead each goal. ``gantry`` is the magnet's position in machine millimetres;
    it is drawn as a crosshair (pinned to the picture's edge if it lies further off the table).

    Every piece is an SVG group ``<g class="piece">`` titled with its id; every drag a
    ``<polyline class="path">`` in a group titled with its description.

    >>> svg = table_svg(Table.from_board(Layout.default(), chess.Board()), gantry=(0.0, 0.0))
    >>> svg.startswith("<svg") and 'id="gantry"' in svg
    True
    """
    if size_px <= 0:
        raise ValueError(f"size_px is {size_px!r}; it must be a positive number of pixels")
    return ET.tostring(
        _SvgPicture(table.layout, size_px, title).draw(table, paths, gantry), encoding="unicode"
    )


def table_html(svg: str, title: str, moves: Sequence[str], start_fen: str | None = None) -> str:
    """A small standalone HTML page showing ``svg`` (from :func:`table_svg`) and the list of ``moves``
    (SAN) numbered by full moves as a score sheet is, from ``start_fen`` (default: the standard start):
    ``1. e4 c5``, ``2. Nf3``; a game that begins with Black's move starts ``1... e5``.

    >>> import re
    >>> page = table_html("<svg/>", "demo", ["e4", "c5", "Nf3"])
    >>> re.findall(r'<li value="(\\d+)">(.*?)</li>', page)
    [('1', 'e4 c5'), ('2', 'Nf3')]
    """
    items = "\n".join(
        f'      <li value="{number}">{html.escape(pair)}</li>'
        for number, pair in _full_moves(moves, start_fen)
    )
    none = html.escape(_("no moves"))
    listing = f'    <ol class="moves">\n{items}\n    </ol>' if moves else f'    <p class="moves">{none}</p>'

    language = "en" if current_language() == PSEUDO else current_language()
    return f"""<!DOCTYPE html>
<html lang="{language}">
<head>
  <meta charset="utf-8">
  <title>{html.escape(title)}</title>
  <style>
    body {{ font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }}
    main {{ display: flex; gap: 2em; align-items: flex-start; flex-wrap: wrap; }}
    .table svg {{ max-width: 100%; height: auto; }}
    .moves {{ font-family: ui-monospace, monospace; }}
  </style>
</head>
<body>
  <h1>{html.escape(title)}</h1>
  <main>
    <div class="table">
{svg}
    </div>
{listing}
  </main>
</body>
</html>
"""


def _full_moves(moves: Sequence[str], start_fen: str | None) -> list[tuple[int, str]]:
    """The moves paired by full move with their numbers: ``[(1, "e4 c5"), (2, "Nf3")]``; Black's first
    move alone behind an ellipsis when the game begins with it."""
    fields = (start_fen or chess.STARTING_FEN).split()
    number = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    pairs: list[tuple[int, str]] = []
    rest = list(moves)
    if len(fields) > 1 and fields[1] == "b" and rest:
        pairs.append((number, f"... {rest.pop(0)}"))
        number += 1
    for index in range(0, len(rest), 2):
        pairs.append((number + index // 2, " ".join(rest[index : index + 2])))
    return pairs


class _SvgPicture:
    """Pixel geometry of one picture: node ``(i, j)`` maps to ``(x, y)`` with y growing downwards."""

    def __init__(self, layout: Layout, size_px: int, title: str | None) -> None:
        self.layout = layout
        self.title = title
        self.square = size_px / (layout.columns + 2 * _MARGIN_SQUARES)
        self.margin = _MARGIN_SQUARES * self.square
        self.top = self.margin + (_TITLE_SQUARES * self.square if title else 0.0)
        self.width = float(size_px)
        self.height = self.top + layout.rows * self.square + self.margin
        self.stroke = 0.1 * self.square

    def xy(self, i: float, j: float) -> tuple[float, float]:
        half = self.square / 2
        return self.margin + i * half, self.top + (2 * self.layout.rows - j) * half

    def draw(self, table: Table, paths: Sequence[Relocation], gantry: MachinePoint | None) -> ET.Element:
        svg = ET.Element(
            "svg",
            {
                "xmlns": "http://www.w3.org/2000/svg",
                "xmlns:xlink": "http://www.w3.org/1999/xlink",
                "version": "1.1",
                "width": _f(self.width),
                "height": _f(self.height),
                "viewBox": f"0 0 {_f(self.width)} {_f(self.height)}",
            },
        )
        if self.title:
            ET.SubElement(svg, "title").text = self.title
        self._defs(svg, {piece.symbol for piece in table})
        ET.SubElement(svg, "rect", {"width": "100%", "height": "100%", "fill": "#ffffff"})
        self._cells(svg)
        self._labels(svg)
        self._pieces(svg, table)
        self._paths(svg, paths)
        if gantry is not None:
            self._gantry(svg, gantry)
        if self.title:
            text = ET.SubElement(
                svg,
                "text",
                _text_attrs(self.margin, self.margin + 0.45 * self.square, 0.34 * self.square, "#222222"),
            )
            text.set("font-weight", "bold")
            text.text = self.title
        return svg

    def _defs(self, svg: ET.Element, symbols: Iterable[str]) -> None:
        defs = ET.SubElement(svg, "defs")
        # The glyphs go in once and every piece <use>s one, the way chess.svg.board() does it.
        for symbol in sorted(set(symbols)):
            defs.append(ET.fromstring(chess.svg.PIECES[symbol]))
        for colour, fill in _PATH_COLOUR.items():
            marker = ET.SubElement(
                defs,
                "marker",
                {
                    "id": f"arrow-{chess.COLOR_NAMES[colour]}",
                    "viewBox": "0 0 10 10",
                    "refX": "6",
                    "refY": "5",
                    "markerWidth": "3",
                    "markerHeight": "3",
                    "markerUnits": "strokeWidth",
                    "orient": "auto",
                },
            )
            ET.SubElement(marker, "path", {"d": "M 0 0 L 10 5 L 0 10 z", "fill": fill})

    def _cells(self, svg: ET.Element) -> None:
        layout = self.layout
        group = ET.SubElement(svg, "g", {"class": "cells"})
        reserve = {slot.cell: slot.symbol for slot in layout.reserve}
        for cell in layout.cells():
            kind = layout.cell_kind(cell)
            if kind == "board":
                kind = (
                    "dark"
                    if (cell[0] - layout.board_cell[0] + cell[1] - layout.board_cell[1]) % 2 == 0
                    else "light"
                )
            x, y = self.xy(2 * cell[0], 2 * cell[1] + 2)
            attrs = {"x": _f(x), "y": _f(y), "width": _f(self.square), "height": _f(self.square)}
            attrs["fill"] = _SVG_FILL[kind]
            attrs["class"] = f"cell {kind}"
            if kind not in ("light", "dark"):
                attrs.update({"stroke": "#000000", "stroke-opacity": "0.12", "stroke-width": "1"})
            ET.SubElement(group, "rect", attrs)
            if cell in reserve:
                # The spare's letter shows where it lives; it disappears under the piece when it is home.
                cx, cy = self.xy(2 * cell[0] + 1, 2 * cell[1] + 1)
                mark = ET.SubElement(
                    group, "text", _text_attrs(cx, cy + 0.2 * self.square, 0.55 * self.square)
                )
                mark.set("text-anchor", "middle")
                mark.set("fill-opacity", "0.22")
                mark.text = reserve[cell]
        a1 = self.xy(*layout.square_node(chess.A1))
        h8 = self.xy(*layout.square_node(chess.H8))
        half = self.square / 2
        ET.SubElement(
            svg,
            "rect",
            {
                "class": "board-edge",
                "x": _f(a1[0] - half),
                "y": _f(h8[1] - half),
                "width": _f(h8[0] - a1[0] + self.square),
                "height": _f(a1[1] - h8[1] + self.square),
                "fill": "none",
                "stroke": "#6b4a2f",
                "stroke-width": _f(0.04 * self.square),
            },
        )

    def _labels(self, svg: ET.Element) -> None:
        layout = self.layout
        group = ET.SubElement(svg, "g", {"class": "labels"})
        size, inset = 0.2 * self.square, 0.07 * self.square
        for file in range(8):
            # Files in the bottom right corner of the first rank, ranks top left on the a-file, as on
            # the boards people know; each in the other square colour.
            x, y = self.xy(*layout.square_node(chess.square(file, 0)))
            colour = _SVG_FILL["dark" if file % 2 else "light"]
            label = ET.SubElement(
                group,
                "text",
                _text_attrs(x + self.square / 2 - inset, y + self.square / 2 - inset, size, colour),
            )
            label.set("text-anchor", "end")
            label.text = chess.FILE_NAMES[file]
        for rank in range(8):
            x, y = self.xy(*layout.square_node(chess.square(0, rank)))
            colour = _SVG_FILL["dark" if rank % 2 else "light"]
            label = ET.SubElement(
                group,
                "text",
                _text_attrs(
                    x - self.square / 2 + inset, y - self.square / 2 + inset + size * 0.8, size, colour
                ),
            )
            label.text = chess.RANK_NAMES[rank]
        # Table cell numbers in the margin: layout files name cells as [column, row].
        grey, small = "#8a8a8a", 0.18 * self.square
        for column in range(layout.columns):
            x, y = self.xy(2 * column + 1, 0)
            label = ET.SubElement(group, "text", _text_attrs(x, y + self.margin * 0.62, small, grey))
            label.set("text-anchor", "middle")
            label.text = str(column)
        for row in range(layout.rows):
            x, y = self.xy(0, 2 * row + 1)
            label = ET.SubElement(
                group, "text", _text_attrs(x - self.margin * 0.3, y + small * 0.35, small, grey)
            )
            label.set("text-anchor", "end")
            label.text = str(row)

    def _pieces(self, svg: ET.Element, table: Table) -> None:
        group = ET.SubElement(svg, "g", {"class": "pieces"})
        scale = _PIECE_FRACTION * self.square / _GLYPH_BOX
        placement = table.placement()
        for piece in sorted(table, key=lambda p: p.id):
            x, y = self.xy(*placement[piece.id])
            g = ET.SubElement(
                group,
                "g",
                {
                    "class": "piece",
                    "data-id": piece.id,
                    "transform": f"translate({_f(x)},{_f(y)}) scale({scale:.4f})",
                },
            )
            ET.SubElement(g, "title").text = piece.id
            glyph = f"#{chess.COLOR_NAMES[piece.color]}-{chess.piece_name(piece.piece.piece_type)}"
            offset = _f(-_GLYPH_BOX / 2)
            ET.SubElement(g, "use", {"xlink:href": glyph, "x": offset, "y": offset})

    def _paths(self, svg: ET.Element, paths: Sequence[Relocation]) -> None:
        group = ET.SubElement(svg, "g", {"class": "paths"})
        w = self.stroke
        for number, relocation in enumerate(paths, start=1):
            colour = relocation.piece.color
            fill = _PATH_COLOUR[colour]
            # Opacity on the group, not the strokes, so a path's own corners and arrowhead do not
            # darken where they overlap, while different paths still show through each other.
            g = ET.SubElement(group, "g", {"class": f"drag {relocation.purpose}", "opacity": "0.7"})
            ET.SubElement(g, "title").text = f"{number}. {relocation.describe(self.layout)}"
            points = " ".join(f"{_f(x)},{_f(y)}" for x, y in (self.xy(*node) for node in relocation.path))
            attrs = {
                "class": "path",
                "points": points,
                "fill": "none",
                "stroke": fill,
                "stroke-width": _f(w),
                "stroke-linecap": "round",
                "stroke-linejoin": "round",
                "marker-end": f"url(#arrow-{chess.COLOR_NAMES[colour]})",
            }
            if relocation.purpose in _DASHED:
                attrs["stroke-dasharray"] = f"{_f(2.5 * w)} {_f(1.8 * w)}"
                attrs["stroke-linecap"] = "butt"
            elif relocation.purpose in _DOTTED:
                attrs["stroke-dasharray"] = f"0 {_f(2 * w)}"
            ET.SubElement(g, "polyline", attrs)
            x, y = self.xy(*relocation.start)
            ET.SubElement(
                g, "circle", {"class": "start", "cx": _f(x), "cy": _f(y), "r": _f(0.9 * w), "fill": fill}
            )

    def _gantry(self, svg: ET.Element, gantry: MachinePoint) -> None:
        i, j = _machine_to_nodes(self.layout, gantry)
        x, y = self.xy(i, j)
        x = min(max(x, 0.0), self.width)
        y = min(max(y, 0.0), self.height)
        s = self.square
        g = ET.SubElement(
            svg,
            "g",
            {
                "id": "gantry",
                "class": "gantry",
                "transform": f"translate({_f(x)},{_f(y)})",
                "fill": "none",
                "stroke": _GANTRY_COLOUR,
                "stroke-width": _f(0.045 * s),
            },
        )
        ET.SubElement(g, "title").text = _("gantry at X{x} Y{y}").format(
            x=f"{gantry[0]:.1f}", y=f"{gantry[1]:.1f}"
        )
        ET.SubElement(g, "circle", {"r": _f(0.3 * s)})
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            ET.SubElement(
                g,
                "line",
                {
                    "x1": _f(dx * 0.18 * s),
                    "y1": _f(dy * 0.18 * s),
                    "x2": _f(dx * 0.44 * s),
                    "y2": _f(dy * 0.44 * s),
                },
            )
        ET.SubElement(g, "circle", {"r": _f(0.04 * s), "fill": _GANTRY_COLOUR, "stroke": "none"})


def _machine_to_nodes(layout: Layout, point: MachinePoint) -> tuple[float, float]:
    """Table coordinates, in node pitches, of a machine point: the inverse of :meth:`Layout.node_mm`."""
    x, y = layout.machine_to_table(point)
    return x / layout.pitch_mm, y / layout.pitch_mm


def _text_attrs(x: float, y: float, size: float, fill: str = "#000000") -> dict[str, str]:
    return {"x": _f(x), "y": _f(y), "font-size": _f(size), "font-family": "sans-serif", "fill": fill}


def _f(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# --- terminal --------------------------------------------------------------------------------------

#: Backgrounds of the terminal cells. Pieces are drawn white-on-dark or black-on-light, so the zone
#: that holds white pieces is dark and the one that holds black pieces is light.
_TEXT_BG = {
    "light": "#c8a478",
    "dark": "#8f6240",
    "capture-white": "#56606e",
    "capture-black": "#aab2bd",
    "reserve": "#7b6f8e",
    "free": "#3a3a3a",
}
_TEXT_FG = {chess.WHITE: "#ffffff", chess.BLACK: "#000000"}
_HIGHLIGHT = "#6fae3a"
_CELL_WIDTH = 3
#: Marker beside a piece that stands off its cell's centre, pointing where it really stands.
_ARROWS = {
    (1, 0): "→",
    (-1, 0): "←",
    (0, 1): "↑",
    (0, -1): "↓",
    (1, 1): "↗",
    (-1, 1): "↖",
    (1, -1): "↘",
    (-1, -1): "↙",
}
#: The same in ASCII, for a console font without arrows.
_ASCII_ARROWS = {
    (1, 0): ">",
    (-1, 0): "<",
    (0, 1): "^",
    (0, -1): "v",
    (1, 1): "/",
    (-1, 1): "\\",
    (1, -1): "\\",
    (-1, -1): "/",
}


def terminal_console(*, stderr: bool = False) -> Console:
    """A console for a command's lines (stdout, or stderr): styled on a terminal; into a pipe or a file
    never wrapped at 80 columns (a file path or a URL cut in two is no use to whoever reads the output).

    >>> terminal_console().soft_wrap  # (a test's output is no terminal)
    True
    """
    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal:
        console.soft_wrap = True
    return console


def wants_letters(console: Console) -> bool:
    """Whether ``console`` should get FEN letters instead of chess glyphs (:func:`table_text`'s
    ``letters``): its encoding is not UTF-8, or it is the Linux console (``TERM=linux``, a Raspberry Pi's
    screen), whose fonts have no chess symbols."""
    encoding = (console.encoding or "").lower().replace("-", "").replace("_", "")
    return not encoding.startswith("utf") or os.environ.get("TERM") == "linux"


def table_text(
    table: Table,
    *,
    gantry_node: Node | None = None,
    highlight: Collection[Node] = (),
    path: Sequence[Node] = (),
    letters: bool = False,
    carried: str | None = None,
) -> Text:
    """The whole table as rich text, one line per table row (highest row first) and three characters
    per cell, then a line of file letters; 39 characters wide on the classic table.

    Pieces are unicode chess symbols (FEN letters and ASCII arrows with ``letters=True``, for fonts
    without them, see :func:`wants_letters`). A
    piece standing on an edge or corner node shows in a nearby cell with an arrow pointing where it
    stands. The gantry's cell is bracketed ``[ ]`` (round the piece with id ``carried`` when the magnet
    carries one: it rides with the magnet). Cells under ``highlight`` nodes and along ``path``
    (a drag's polyline) get a green background. Print it with ``rich.print`` or ``Console.print``.

    >>> text = table_text(Table.from_board(Layout.default(), chess.Board()), letters=True)
    >>> text.plain.splitlines()[8][3 + 3 * 6 : 3 + 3 * 7]
    ' K '
    """
    layout = table.layout
    shown = _assign_cells(table)
    lit: set[Cell] = set()
    for node in highlight:
        lit.update(_touching_cells(layout, node))
    lit.update(_path_cells(layout, path))
    gantry_cell = None if gantry_node is None else _nearest_cell(layout, gantry_node)
    if carried is not None:  # the bracket goes round the piece on the magnet, wherever it is shown
        gantry_cell = next((cell for cell, entry in shown.items() if entry[2] == carried), gantry_cell)
    board_columns = {layout.board_cell[0] + file: file for file in range(8)}
    board_rows = {layout.board_cell[1] + rank: rank for rank in range(8)}
    label_style = Style(color="grey62")

    text = Text(no_wrap=True, overflow="crop")
    for row in reversed(range(layout.rows)):
        rank = board_rows.get(row)
        text.append(f"{rank + 1:>2} " if rank is not None else "   ", label_style)
        for column in range(layout.columns):
            cell = (column, row)
            background = _text_background(layout, cell)
            if cell in lit:
                background = _mix(background, _HIGHLIGHT, 0.7)
            base = Style(bgcolor=background)
            marker = Style(color="#ff2d55", bold=True, bgcolor=background)
            left, right = " ", " "
            if cell == gantry_cell:
                left, right = "[", "]"
            entry = shown.get(cell)
            if entry is not None:
                piece, offset, __ = entry
                glyph = piece.symbol() if letters else piece.unicode_symbol()
                centre = Text(glyph, Style(color=_TEXT_FG[piece.color], bold=True, bgcolor=background))
                if offset != (0, 0):
                    right = (_ASCII_ARROWS if letters else _ARROWS)[offset]
            elif cell in (slot.cell for slot in layout.reserve):
                symbol = next(slot.symbol for slot in layout.reserve if slot.cell == cell)
                centre = Text(symbol, Style(color="#b4aac4", bgcolor=background))
            else:
                centre = Text(" ", base)
            text.append(left, marker)
            text.append_text(centre)
            text.append(right, marker if right in "[]" else Style(color="#ff2d55", bgcolor=background))
        text.append("\n")
    text.append("   ")
    for column in range(layout.columns):
        file = board_columns.get(column)
        text.append(f" {chess.FILE_NAMES[file]} " if file is not None else "   ", label_style)
    return text


def _text_background(layout: Layout, cell: Cell) -> str:
    kind = layout.cell_kind(cell)
    if kind == "board":
        parity = (cell[0] - layout.board_cell[0] + cell[1] - layout.board_cell[1]) % 2
        return _TEXT_BG["dark" if parity == 0 else "light"]
    return _TEXT_BG[kind]


def _assign_cells(table: Table) -> dict[Cell, tuple[chess.Piece, tuple[int, int], str]]:
    """The piece each cell shows, its offset from the cell centre in nodes and its id. Pieces on centres
    come first; one between cells takes the first free neighbouring cell (or shares one it cannot avoid)."""
    layout = table.layout
    shown: dict[Cell, tuple[chess.Piece, tuple[int, int], str]] = {}
    placement = sorted(
        table.placement().items(), key=lambda item: (layout.node_cell(item[1]) is None, item[0])
    )
    for piece_id, node in placement:
        candidates = _touching_cells(layout, node)
        if not candidates:
            continue
        cell = next((c for c in candidates if c not in shown), candidates[0])
        centre = layout.cell_node(cell)
        offset = (node[0] - centre[0], node[1] - centre[1])
        shown.setdefault(cell, (table.piece(piece_id).piece, offset, piece_id))
    return shown


def _touching_cells(layout: Layout, node: Node) -> list[Cell]:
    """The cells whose closed square holds ``node``: one for a centre, two for an edge, four for a corner."""
    columns = [node[0] // 2] if node[0] % 2 else [node[0] // 2 - 1, node[0] // 2]
    rows = [node[1] // 2] if node[1] % 2 else [node[1] // 2 - 1, node[1] // 2]
    return [(c, r) for c in columns for r in rows if 0 <= c < layout.columns and 0 <= r < layout.rows]


def _nearest_cell(layout: Layout, node: Node) -> Cell:
    """The cell :func:`_assign_cells` would show a lone piece on ``node`` in, clamped onto the table."""
    column = min(max((node[0] - 1) // 2, 0), layout.columns - 1)
    row = min(max((node[1] - 1) // 2, 0), layout.rows - 1)
    return (column, row)


def _path_cells(layout: Layout, path: Sequence[Node]) -> set[Cell]:
    """Cells a polyline passes through; a stretch running along a cell border lights both sides."""
    cells: set[Cell] = set()
    for node in (path[0], path[-1]) if path else ():
        cells.update(_touching_cells(layout, node))
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        steps = max(1, math.ceil(8 * math.dist((x0, y0), (x1, y1))))
        for k in range(steps):
            t = (k + 0.5) / steps
            x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
            columns = _span(x, along_border=x0 == x1)
            rows = _span(y, along_border=y0 == y1)
            cells.update(
                (c, r) for c in columns for r in rows if 0 <= c < layout.columns and 0 <= r < layout.rows
            )
    return cells


def _span(value: float, *, along_border: bool) -> list[int]:
    """Cell indices at a coordinate in nodes: both sides of a border only when the path runs along it
    (a path merely crossing a border at a sample point lights its neighbours from the next sample)."""
    if abs(value / 2 - round(value / 2)) < 1e-9:
        return [round(value / 2) - 1, round(value / 2)] if along_border else []
    return [math.floor(value / 2)]


def _mix(a: str, b: str, t: float) -> str:
    """Blend two ``#rrggbb`` colours, ``t`` of the way from ``a`` to ``b``."""
    channels = (round(int(a[k : k + 2], 16) * (1 - t) + int(b[k : k + 2], 16) * t) for k in (1, 3, 5))
    return "#" + "".join(f"{c:02x}" for c in channels)
