"""The classic node-by-node planner, for comparison only.

What hand-built gantry boards commonly do: a piece travels from node to node along the 8-connected
lattice (square centres, edge midpoints, corners), one ``G1`` per hop, the relocations in a fixed order
(victim first, then the mover; castling king first) and captured pieces to the first free cell of the
zone. Its paths obey the same clearance rule, so the comparison measures planning, not safety.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import chess

from chessatron.planning.layout import Layout, MachinePoint, Node
from chessatron.planning.paths import PathFinder
from chessatron.planning.planner import castling_squares
from chessatron.planning.table import Table
from chessatron.planning.timing import Timer

_STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]


class ClassicPlanner:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.finder = PathFinder(layout)
        self.timer = Timer(layout)

    def hop_path(self, start: Node, goal: Node, obstacles: Sequence[Node]) -> list[Node]:
        """Shortest 8-connected node path (every hop kept: one G-code line each)."""
        best = {start: 0.0}
        parent: dict[Node, Node] = {}
        queue = [(math.dist(start, goal), 0.0, start)]
        while queue:
            _, cost, node = heapq.heappop(queue)
            if node == goal:
                path = [node]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1]
            if cost > best.get(node, math.inf):
                continue
            for dx, dy in _STEPS:
                nxt = (node[0] + dx, node[1] + dy)
                if not self.finder.on_table(nxt) or not self.finder.is_clear(node, nxt, obstacles):
                    continue
                step = cost + math.hypot(dx, dy)
                if step < best.get(nxt, math.inf):
                    best[nxt] = step
                    parent[nxt] = node
                    heapq.heappush(queue, (step + math.dist(nxt, goal), step, nxt))
        raise RuntimeError(f"classic planner found no path from {start} to {goal}")

    def move_seconds(
        self, table: Table, board: chess.Board, move: chess.Move, at: MachinePoint
    ) -> tuple[float, MachinePoint]:
        """Carry out ``move`` on ``table`` the classic way; returns machine seconds and the end point."""
        layout = self.layout
        steps: list[tuple[str, Node]] = []
        node = layout.square_node
        if board.is_castling(move):
            king_from, king_to, rook_from, rook_to = castling_squares(board, move)
            king = table.piece_at(node(king_from))
            rook = table.piece_at(node(rook_from))
            assert king is not None and rook is not None
            if {king_from, rook_from} == {king_to, rook_to} and king_from != king_to:
                park = next(n for n in self._free_cells(table))
                steps += [(rook.id, park), (king.id, node(king_to)), (rook.id, node(rook_to))]
            else:
                if king_to == rook_from:  # the king's target is taken until the rook leaves
                    steps += [(rook.id, node(rook_to)), (king.id, node(king_to))]
                else:
                    steps += [(king.id, node(king_to)), (rook.id, node(rook_to))]
        else:
            mover = table.piece_at(node(move.from_square))
            assert mover is not None
            victim_square = None
            if board.is_en_passant(move):
                victim_square = chess.square(
                    chess.square_file(move.to_square), chess.square_rank(move.from_square)
                )
            elif board.piece_at(move.to_square) is not None:
                victim_square = move.to_square
            if victim_square is not None:
                victim = table.piece_at(node(victim_square))
                assert victim is not None
                steps.append((victim.id, layout.cell_node(table.free_capture_cells(victim.color)[0])))
            if move.promotion:
                cells = table.free_capture_cells(mover.color)
                spare = table.spares(chess.Piece(move.promotion, board.turn).symbol())[0]
                steps += [(mover.id, layout.cell_node(cells[0])), (spare.id, node(move.to_square))]
            else:
                steps.append((mover.id, node(move.to_square)))
        seconds = 0.0
        for piece_id, goal in steps:
            start = table.node_of(piece_id)
            if start == goal:
                continue
            path = self.hop_path(start, goal, table.occupied_nodes(excluding=[piece_id]))
            seconds += self.timer.travel_s(at, layout.node_mm(start)) + self.timer.magnet_s
            # one G1 per hop; GRBL's look-ahead still joins collinear hops, so time the polyline as is
            seconds += self.timer.drag_s(path)
            table.relocate(piece_id, goal)
            at = layout.node_mm(goal)
        return seconds, at

    def _free_cells(self, table: Table) -> list[Node]:
        cells = [self.layout.cell_node(c) for c in self.layout.free_cells()]
        return [n for n in cells if table.piece_at(n) is None]
