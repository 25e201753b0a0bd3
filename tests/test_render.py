"""The SVG picture and the terminal view of the table show what stands where and what will move."""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from importlib import resources

import chess
import pytest
from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from chessatron.planning.layout import Layout, Node
from chessatron.planning.planner import Planner, Relocation
from chessatron.planning.table import PhysicalPiece, Table
from chessatron.render import table_html, table_svg, table_text

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
CELL = 3
LABEL = 3


def start(layout: Layout) -> Table:
    return Table.from_board(layout, chess.Board())


def on(table: Table, square: chess.Square) -> PhysicalPiece:
    piece = table.piece_at(table.layout.square_node(square))
    assert piece is not None, chess.square_name(square)
    return piece


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def with_class(root: ET.Element, tag: str, name: str) -> list[ET.Element]:
    return [e for e in root.iter(SVG + tag) if name in e.get("class", "").split()]


def translate(element: ET.Element) -> tuple[float, float]:
    match = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", element.get("transform", ""))
    assert match, element.attrib
    return float(match[1]), float(match[2])


def piece_position(root: ET.Element, piece_id: str) -> tuple[float, float]:
    (group,) = [g for g in with_class(root, "g", "piece") if g.get("data-id") == piece_id]
    return translate(group)


def play(layout: Layout, *sans: str) -> tuple[Table, Table, list[Relocation]]:
    """The table before the last move, the table after it, and the relocations of every move in order."""
    board, table, planner = chess.Board(), start(layout), Planner(layout)
    relocations: list[Relocation] = []
    before = table.copy()
    for san in sans:
        move = board.parse_san(san)
        plan = planner.plan_move(table, board, move)
        relocations.extend(plan.relocations)
        before = table.copy()
        plan.apply(table)
        board.push(move)
    return before, table, relocations


def line_cell(text: Text, layout: Layout, column: int, row: int) -> str:
    """The three characters the text view shows for table cell ``(column, row)``."""
    line = text.plain.splitlines()[layout.rows - 1 - row]
    return line[LABEL + CELL * column : LABEL + CELL * (column + 1)]


def background(text: Text, layout: Layout, column: int, row: int) -> str | None:
    offset = sum(len(line) + 1 for line in text.plain.splitlines()[: layout.rows - 1 - row])
    offset += LABEL + CELL * column + 1
    colour = None
    for span in text.spans:
        if span.start <= offset < span.end:
            style = Style.parse(span.style) if isinstance(span.style, str) else span.style
            if style.bgcolor is not None:
                colour = style.bgcolor.name
    return colour


def rotated(rotation: int, origin: tuple[float, float]) -> Layout:
    data = tomllib.loads((resources.files("chessatron") / "data" / "table.toml").read_text(encoding="utf-8"))
    data["machine"].update(
        rotation_deg=rotation, origin_mm=list(origin), envelope_mm=[0.0, 0.0, 700.0, 700.0]
    )
    return Layout.from_dict(data)


# --- SVG -------------------------------------------------------------------------------------------


def test_svg_draws_every_physical_piece_once(layout: Layout) -> None:
    table = start(layout)
    root = parse(table_svg(table))
    pieces = with_class(root, "g", "piece")
    assert len(pieces) == len(table) == 42
    assert sorted(g.get("data-id", "") for g in pieces) == sorted(p.id for p in table)
    glyph_ids = {g.get("id") for g in root.iter(SVG + "g") if g.get("id")}
    for group in pieces:
        (use,) = group.iter(SVG + "use")
        assert use.get(XLINK + "href", "").lstrip("#") in glyph_ids


def test_svg_puts_pieces_on_their_nodes_in_white_orientation(layout: Layout) -> None:
    table = start(layout)
    root = parse(table_svg(table))
    white_king = piece_position(root, on(table, chess.E1).id)
    black_king = piece_position(root, on(table, chess.E8).id)
    a1_rook = piece_position(root, on(table, chess.A1).id)
    assert white_king[0] == pytest.approx(black_king[0])
    assert white_king[1] > black_king[1]  # rank 1 at the bottom
    assert a1_rook[0] < white_king[0]  # the a-file on the left


def test_svg_draws_a_piece_standing_between_squares_where_it_stands(layout: Layout) -> None:
    table = start(layout)
    pawn = on(table, chess.E2)
    e2 = piece_position(parse(table_svg(table)), pawn.id)
    table.relocate(pawn.id, (layout.square_node(chess.E2)[0], layout.square_node(chess.E2)[1] + 1))
    e3 = piece_position(parse(table_svg(table)), pawn.id)
    square = 900 / (layout.columns + 1)
    assert e3 == pytest.approx((e2[0], e2[1] - square / 2), abs=0.01)


def test_svg_is_size_px_wide_and_shows_the_title(layout: Layout) -> None:
    root = parse(table_svg(start(layout), title="Game <1> & more", size_px=600))
    assert root.get("width") == "600"
    assert "Game <1> & more" in [t.text for t in root.iter(SVG + "text")]


def test_svg_labels_the_board_files_and_ranks(layout: Layout) -> None:
    texts = [t.text for t in parse(table_svg(start(layout))).iter(SVG + "text")]
    for name in [*chess.FILE_NAMES, *chess.RANK_NAMES]:
        assert name in texts


def test_svg_marks_reserve_cells_with_their_spare(layout: Layout) -> None:
    texts = [t.text for t in parse(table_svg(start(layout))).iter(SVG + "text")]
    for symbol in "QRBNqrbn":
        assert symbol in texts


def test_svg_draws_one_polyline_per_relocation_in_the_mover_colour(layout: Layout) -> None:
    before, _, relocations = play(layout, "e4", "d5", "exd5")
    root = parse(table_svg(before, relocations))
    lines = with_class(root, "polyline", "path")
    assert len(lines) == len(relocations) == 4
    colours = {r.piece.color: line.get("stroke") for r, line in zip(relocations, lines, strict=True)}
    assert colours[chess.WHITE] != colours[chess.BLACK]
    for relocation, line in zip(relocations, lines, strict=True):
        assert len(line.get("points", "").split()) == len(relocation.path)
        assert (line.get("stroke-dasharray") is not None) == (relocation.purpose == "capture")


def test_svg_path_runs_through_node_centres(layout: Layout) -> None:
    table = start(layout)
    plan = Planner(layout).plan_move(table, chess.Board(), chess.Move.from_uci("g1f3"))
    root = parse(table_svg(table, plan.relocations))
    (line,) = with_class(root, "polyline", "path")
    first = tuple(float(v) for v in line.get("points", "").split()[0].split(","))
    assert first == pytest.approx(piece_position(root, plan.relocations[0].piece.id), abs=0.01)


def test_svg_dots_drags_that_only_make_way(layout: Layout) -> None:
    table = start(layout)
    knight = on(table, chess.B1)
    b1 = layout.square_node(chess.B1)
    drags = [Relocation(knight, (b1, (b1[0], b1[1] - 2)), "park"), Relocation(knight, (b1, (5, 7)), "move")]
    lines = with_class(parse(table_svg(table, drags)), "polyline", "path")
    dotted, solid = (line.get("stroke-dasharray") for line in lines)
    assert dotted is not None and dotted.startswith("0 ")
    assert solid is None


def test_svg_has_no_gantry_unless_given(layout: Layout) -> None:
    root = parse(table_svg(start(layout)))
    assert [g for g in root.iter(SVG + "g") if g.get("id") == "gantry"] == []


@pytest.mark.parametrize(
    ("rotation", "origin"),
    [(0, (10.0, 10.0)), (90, (520.0, 10.0)), (180, (620.0, 520.0)), (270, (10.0, 620.0))],
)
def test_svg_gantry_marker_sits_over_the_node_it_is_above(rotation: int, origin: tuple[float, float]) -> None:
    layout = rotated(rotation, origin)
    table = start(layout)
    king = on(table, chess.E1)
    root = parse(table_svg(table, gantry=layout.node_mm(layout.square_node(chess.E1))))
    (marker,) = [g for g in root.iter(SVG + "g") if g.get("id") == "gantry"]
    assert translate(marker) == pytest.approx(piece_position(root, king.id), abs=0.01)


def test_html_page_embeds_the_picture_and_lists_the_moves(layout: Layout) -> None:
    svg = table_svg(start(layout))
    page = table_html(svg, "Game & analysis", ["e4", "e5", "Nf3"])
    assert page.startswith("<!DOCTYPE html>")
    assert svg in page
    assert "<title>Game &amp; analysis</title>" in page
    # numbered by full moves, as a score sheet is (not "1. e4 2. e5 3. Nf3")
    assert re.findall(r'<li value="(\d+)">(.*?)</li>', page) == [("1", "e4 e5"), ("2", "Nf3")]
    black_first = table_html(svg, "From a position", ["e5", "Nf3"], "8/8/8/8/8/8/k7/K7 b - - 0 40")
    assert re.findall(r'<li value="(\d+)">(.*?)</li>', black_first) == [("40", "... e5"), ("41", "Nf3")]


# --- terminal --------------------------------------------------------------------------------------


def test_text_has_a_line_per_table_row_and_file_letters(layout: Layout) -> None:
    lines = table_text(start(layout)).plain.splitlines()
    assert len(lines) == layout.rows + 1
    assert lines[-1].split() == list(chess.FILE_NAMES)
    assert all(cell_len(line) <= 80 for line in lines)
    ranks = [line[:LABEL].strip() for line in lines[: layout.rows]]
    assert ranks == ["", "8", "7", "6", "5", "4", "3", "2", "1", ""]


def test_text_shows_the_white_king_on_e1(layout: Layout) -> None:
    text = table_text(start(layout))
    column, row = layout.square_cell(chess.E1)
    assert line_cell(text, layout, column, row) == " ♔ "
    assert line_cell(table_text(start(layout), letters=True), layout, column, row) == " K "


def test_text_file_letters_stand_under_their_board_columns(layout: Layout) -> None:
    lines = table_text(start(layout)).plain.splitlines()
    column = layout.square_cell(chess.E1)[0]
    assert lines[-1][LABEL + CELL * column + 1] == "e"


def test_text_shows_spares_and_captured_pieces_off_the_board(layout: Layout) -> None:
    _, after, _ = play(layout, "e4", "d5", "exd5")
    text = table_text(after)
    captured = [line_cell(text, layout, *cell) for cell in layout.capture_cells[chess.BLACK]]
    assert " ♟ " in captured
    queen_slot = next(slot.cell for slot in layout.reserve if slot.symbol == "Q")
    assert line_cell(text, layout, *queen_slot) == " ♕ "


def test_text_marks_an_empty_reserve_slot_with_its_letter(layout: Layout) -> None:
    table = start(layout)
    slot = layout.reserve[0]
    spare = table.piece_at(layout.cell_node(slot.cell))
    assert spare is not None
    table.relocate(spare.id, layout.cell_node(layout.free_cells()[0]))
    assert line_cell(table_text(table), layout, *slot.cell) == f" {slot.symbol} "


def test_text_shows_an_off_centre_piece_with_an_arrow(layout: Layout) -> None:
    table = start(layout)
    pawn = on(table, chess.E2)
    e2 = layout.square_node(chess.E2)
    table.relocate(pawn.id, (e2[0] + 1, e2[1] + 1))  # the corner between e2, f2, e3 and f3
    text = table_text(table)
    assert line_cell(text, layout, *layout.square_cell(chess.E2)) == " ♙↗"
    assert line_cell(text, layout, *layout.square_cell(chess.F2)) == " ♙ "
    knight = on(table, chess.G1)
    g1 = layout.square_node(chess.G1)
    table.relocate(knight.id, (g1[0] - 1, g1[1]))  # the edge between f1, where a bishop stands, and g1
    assert line_cell(table_text(table), layout, *layout.square_cell(chess.G1)) == " ♘←"


def test_text_brackets_the_gantry_cell(layout: Layout) -> None:
    table = start(layout)
    column, row = layout.square_cell(chess.D1)
    text = table_text(table, gantry_node=layout.square_node(chess.D1))
    assert line_cell(text, layout, column, row) == "[♕]"
    assert sum(line.count("[") for line in text.plain.splitlines()) == 1


def test_text_highlights_the_cells_a_path_crosses(layout: Layout) -> None:
    table = start(layout)
    path: tuple[Node, ...] = (layout.square_node(chess.E2), layout.square_node(chess.E4))
    plain = table_text(table)
    lit = table_text(table, path=path)
    changed = {
        cell for cell in layout.cells() if background(plain, layout, *cell) != background(lit, layout, *cell)
    }
    assert changed == {layout.square_cell(s) for s in (chess.E2, chess.E3, chess.E4)}


def test_text_highlights_both_sides_of_a_path_along_a_border(layout: Layout) -> None:
    table = start(layout)
    e2, g2 = layout.square_node(chess.E2), layout.square_node(chess.G2)
    path: tuple[Node, ...] = ((e2[0], e2[1] + 1), (g2[0], g2[1] + 1))  # along the rank 2/3 border
    plain, lit = table_text(table), table_text(table, path=path)
    changed = {c for c in layout.cells() if background(plain, layout, *c) != background(lit, layout, *c)}
    assert changed == {
        layout.square_cell(s) for s in (chess.E2, chess.F2, chess.G2, chess.E3, chess.F3, chess.G3)
    }


def test_text_highlights_the_given_nodes(layout: Layout) -> None:
    table = start(layout)
    plain = table_text(table)
    lit = table_text(table, highlight=[layout.square_node(chess.A1)])
    changed = {c for c in layout.cells() if background(plain, layout, *c) != background(lit, layout, *c)}
    assert changed == {layout.square_cell(chess.A1)}
