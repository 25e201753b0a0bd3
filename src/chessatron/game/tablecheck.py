"""The table before a game's set-up, as its journal's start line keeps it, checked against the robot's work
journaled after it and repaired from that work where the two disagree (pure).

A resume rebuilds the physical table from the start line's table (``config.table``: where every piece stood
before the set-up), then every drag journaled since. The start line is one line among many: one flipped
digit there (a failing SD card) stands a pawn on its neighbour's node, and the resume stopped cold with
``two pieces stand on node (7, 5)``. But the drags after it are sealed line by line, and each names its
piece and the node it starts from, so a piece's first drag says where it stood before the set-up, whatever
the start line says. A piece no drag moved stood still all game, so the line's word for it is kept when
it can be true: a cell of the table that no other piece holds and no drag starts from or ends on. Else the
standard arrangement of the game's start (:meth:`~chessatron.planning.table.Table.from_board`, where a
set-up puts that piece) stands in for it, and an entry whose id was damaged (a second ``P`` on the cell a
drag confirms its pawn on) is dropped. What cannot be repaired so raises
:class:`~chessatron.errors.StateError`; the resume then names the file and the way on.

>>> layout = Layout.default()
>>> before = Table.from_board(layout, chess.Board())
>>> damaged = [[p.id, p.symbol, *((7, 5) if p.id == "wP1" else before.node_of(p.id))] for p in before]
>>> table, repairs = checked_table(damaged, layout, [(1, ["move wP1 5,5 5,9"])], chess.Board())
>>> table.node_of("wP1"), repairs
((5, 5), ('wP1 stood on node (5, 5), as its first drag says, not (7, 5)',))
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import chess

from ..errors import ChessatronError, StateError
from ..i18n import _
from ..i18n.formats import both
from ..planning.layout import Layout, Node
from ..planning.table import PhysicalPiece, Table

__all__ = ["checked_table", "first_nodes"]

_OPERATION = re.compile(r"(\S+) (\S+) (-?\d+),(-?\d+)(?: |$)")
_SYMBOLS = frozenset("PNBRQKpnbrqk")


def first_nodes(work: Iterable[Sequence[str]]) -> dict[str, Node]:
    """Where each piece the robot (or a person) dragged stood before its first drag, by id, from the
    journal's robot work (each a sequence of operations ``purpose id i,j i,j …``, in order)."""
    found: dict[str, Node] = {}
    for operations in work:
        for text in operations:
            match = _OPERATION.match(text.strip())
            if match is not None and match[2] not in found:
                found[match[2]] = (int(match[3]), int(match[4]))
    return found


def _ends(work: Sequence[Sequence[str]]) -> set[Node]:
    """Every node a drag of ``work`` starts from or ends on: no piece that stood still all along is there."""
    nodes: set[Node] = set()
    for operations in work:
        for text in operations:
            found = re.findall(r"(-?\d+),(-?\d+)", text)
            if found:
                nodes.update((int(i), int(j)) for i, j in (found[0], found[-1]))
    return nodes


def checked_table(
    data: object,
    layout: Layout,
    work: Iterable[tuple[int, Sequence[str]]],
    start: chess.Board,
    *,
    whole: bool = False,
) -> tuple[Table, tuple[str, ...]]:
    """The table before the set-up from the start line's ``data`` (``[[id, symbol, i, j], …]``), checked
    against the robot's ``work`` after it (the ply and operations of each ``robot-begin`` up to the first
    that carries a table of its own), and what had to be repaired, in words (nothing for a table that
    agrees). ``start`` is the game's start position; ``whole``: the work is all the journal holds, the
    set-up among it, and it was done (a move was made): then a piece no drag moved that stands on the
    board stands on its square of the start position, and each square of the start no set-up drag ended on
    holds such a piece. Raises
    :class:`StateError` when even the repair does not make a table (a piece that stood still all along
    where it cannot have, and whose place in the start arrangement is taken or unknown)."""
    plies = [(ply, tuple(operations)) for ply, operations in work]
    drags = [operations for _ply, operations in plies]
    standard = _standard(layout, start)
    repairs: list[str] = []
    read = _read_entries(data, standard, repairs)
    moved = first_nodes(drags)
    symbols: dict[str, str] = {pid: symbol for pid, (symbol, _node) in read.items()}
    nodes: dict[str, Node] = {}
    for pid, (_symbol, node) in read.items():
        first = moved.get(pid)
        if first is not None and first != node:
            # TRANSLATORS: a repair of a damaged journal; {piece} is a piece's id (wN2), the nodes are i,j
            repairs.append(
                _("{piece} stood on node {node}, as its first drag says, not {was}").format(
                    piece=pid, node=first, was=node
                )
            )
            node = first
        nodes[pid] = node
    for pid, first in moved.items():
        if pid in read:
            continue
        piece = standard.get(pid)
        symbol = piece[0] if piece is not None else _symbol_of(pid)
        if symbol is None:
            raise StateError(
                _("the journal drags a piece {piece!r} the table before the set-up lacks").format(piece=pid)
            )
        symbols[pid], nodes[pid] = symbol, first
        repairs.append(
            _("{piece} stood on node {node}, as its first drag says (the line had lost it)").format(
                piece=pid, node=first
            )
        )
    held = _held_at_start(layout, start, plies) if whole else {}
    _settle(nodes, symbols, moved, _ends(drags), standard, layout, held, repairs)
    placement = [(PhysicalPiece(pid, symbols[pid]), nodes[pid]) for pid in sorted(nodes)]
    return Table(layout, placement), tuple(repairs)


def _held_at_start(
    layout: Layout, start: chess.Board, plies: Sequence[tuple[int, Sequence[str]]]
) -> dict[Node, str | None]:
    """What each board cell held once the set-up was done, where no drag of the set-up (the work before
    the first move's) ended: the start position's symbol there, or None for an empty square. A piece no
    drag ever moved was there all along."""
    setup = []
    for ply, operations in plies:
        if ply != 0:
            break
        setup.append(operations)
    ends = _goals(setup)
    held: dict[Node, str | None] = {}
    for square in chess.SQUARES:
        node = layout.square_node(square)
        if node not in ends:
            piece = start.piece_at(square)
            held[node] = piece.symbol() if piece is not None else None
    return held


def _goals(work: Sequence[Sequence[str]]) -> set[Node]:
    nodes: set[Node] = set()
    for operations in work:
        for text in operations:
            found = re.findall(r"(-?\d+),(-?\d+)", text)
            if found:
                nodes.add((int(found[-1][0]), int(found[-1][1])))
    return nodes


def _read_entries(
    data: object, standard: dict[str, tuple[str, Node]], repairs: list[str]
) -> dict[str, tuple[str, Node]]:
    """The entries of the start line's table that still read, by id. Of two with one id (the other's
    damaged), the one where the start arrangement has that id keeps it; the other takes the id the start
    arrangement gives its place (or another of its kind that is missing), said in ``repairs``."""
    if not isinstance(data, list):
        raise StateError(_("the table before the set-up does not read: {data!r}").format(data=str(data)[:60]))
    read: dict[str, tuple[str, Node]] = {}
    twice: list[tuple[str, str, Node]] = []
    for entry in data:
        if not (isinstance(entry, list) and len(entry) == 4):
            continue
        pid, symbol, i, j = entry
        if not (isinstance(pid, str) and isinstance(symbol, str) and symbol in _SYMBOLS):
            continue
        if not (isinstance(i, int) and isinstance(j, int)) or isinstance(i, bool) or isinstance(j, bool):
            continue
        if pid in read:
            twice.append((pid, symbol, (i, j)))
        else:
            read[pid] = (symbol, (i, j))
    for pid, symbol, node in twice:
        if standard.get(pid) == (symbol, node):  # this one is where that id belongs: the other moves on
            (symbol, node), read[pid] = read[pid], (symbol, node)
        missing = [other for other, (kind, _node) in standard.items() if other not in read and kind == symbol]
        named = next((other for other in missing if standard[other][1] == node), None)
        if named is None and not missing:
            raise StateError(_("the table before the set-up names {piece!r} twice").format(piece=pid))
        named = named or missing[0]
        read[named] = (symbol, node)
        repairs.append(
            # TRANSLATORS: a repair of a damaged journal; {piece} and {named} are pieces' ids (wN2)
            _("the {piece} on node {node} is {named} (its id was damaged)").format(
                piece=pid, node=node, named=named
            )
        )
    return read


def _standard(layout: Layout, start: chess.Board) -> dict[str, tuple[str, Node]]:
    """Each piece's symbol and node in the start position's standard arrangement (empty when the position
    has none: more pieces of a kind than the set holds)."""
    try:
        table = Table.from_board(layout, start)
    except ChessatronError:
        return {}
    return {piece.id: (piece.symbol, table.node_of(piece.id)) for piece in table}


def _symbol_of(pid: str) -> str | None:
    """``wP3`` → ``P``, ``bP1`` → ``p``: the symbol an id names, when it follows the table's naming."""
    match = re.fullmatch(r"([wb])([PNBRQK])\d+", pid)
    if match is None:
        return None
    return match[2] if match[1] == "w" else match[2].lower()


def _settle(
    nodes: dict[str, Node],
    symbols: dict[str, str],
    moved: dict[str, Node],
    ends: set[Node],
    standard: dict[str, tuple[str, Node]],
    layout: Layout,
    held: dict[Node, str | None],
    repairs: list[str],
) -> None:
    """Every piece no drag moved where it cannot have stood still (off the table's cells, on a drag's
    start or end, on another piece's cell, on a square of the start that held another piece) goes to its
    node in the start arrangement; an entry whose id is damaged (none such in the start arrangement, on
    the cell a drag confirms a piece of its kind on) is dropped; a square of the start that no piece holds
    gets the one the start arrangement puts there. Raises :class:`StateError` for what is left."""
    width, height = layout.node_extent
    confirmed = {nodes[pid]: pid for pid in moved}

    def impossible(pid: str) -> bool:
        i, j = nodes[pid]
        if not (0 <= i < width and 0 <= j < height) or layout.node_cell((i, j)) is None:
            return True
        if (i, j) in ends or (i, j) in confirmed:
            return True
        return (i, j) in held and held[(i, j)] != symbols[pid]  # not what the square held all game

    doubtful = sorted(pid for pid in nodes if pid not in moved and impossible(pid))
    holders: dict[Node, list[str]] = {}
    for pid in nodes:
        if pid not in moved and pid not in doubtful:
            holders.setdefault(nodes[pid], []).append(pid)
    for node, pids in holders.items():
        if len(pids) > 1:  # two that stood still on one cell: the one whose start arrangement it is stays
            keeper = [pid for pid in pids if standard.get(pid) == (symbols[pid], node)]
            if len(keeper) != 1:
                raise StateError(
                    _("two pieces stand on node {node}: {pieces}").format(
                        node=node, pieces=both([repr(pid) for pid in pids])
                    )
                )
            doubtful += [pid for pid in pids if pid != keeper[0]]
    for pid in doubtful:
        twin = confirmed.get(nodes[pid])
        if pid not in standard and twin is not None and symbols[twin] == symbols[pid]:
            repairs.append(
                _("dropped {piece}, {twin}'s entry with its id damaged").format(piece=pid, twin=twin)
            )
            del nodes[pid]
        else:
            _to_start_arrangement(pid, nodes, symbols, standard, repairs)
    for _round in range(3):  # a piece put on its square may leave another's empty: again, until all are held
        at = {node: pid for pid, node in nodes.items()}
        empty = [(node, symbol) for node, symbol in sorted(held.items()) if symbol and node not in at]
        if not empty:
            return
        for node, symbol in empty:
            owner = next((pid for pid, place in standard.items() if place == (symbol, node)), None)
            if owner is None or owner in moved:
                break  # (said below)
            if owner not in nodes:
                symbols[owner] = symbol
                nodes[owner] = node
                repairs.append(
                    _(
                        "{piece} stood on node {node}, as the start arrangement has it (the line had lost it)"
                    ).format(piece=owner, node=node)
                )
            else:
                _to_start_arrangement(owner, nodes, symbols, standard, repairs)
    at = {node: pid for pid, node in nodes.items()}
    gaps = [node for node, symbol in sorted(held.items()) if symbol and node not in at]
    if gaps:
        raise StateError(
            _("no piece the journal names stood on node {node}, where the game's start has one").format(
                node=gaps[0]
            )
        )


def _to_start_arrangement(
    pid: str,
    nodes: dict[str, Node],
    symbols: dict[str, str],
    standard: dict[str, tuple[str, Node]],
    repairs: list[str],
) -> None:
    """Put ``pid`` on its node in the start arrangement; raise :class:`StateError` when it has none (or of
    another kind) or another piece holds it."""
    arranged = standard.get(pid)
    taken = {node for other, node in nodes.items() if other != pid}
    if arranged is None or arranged[0] != symbols[pid] or arranged[1] in taken:
        raise StateError(
            _("where {piece!r} stood before the set-up is damaged ({node}) and cannot be told again").format(
                piece=pid, node=nodes[pid]
            )
        )
    repairs.append(
        _("{piece} stood on node {node}, as the start arrangement has it, not {was}").format(
            piece=pid, node=arranged[1], was=nodes[pid]
        )
    )
    nodes[pid] = arranged[1]
