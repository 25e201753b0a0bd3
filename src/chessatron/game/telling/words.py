"""The robot's work in a player's words: "9. Qe2" for the machine's ``MOVE 17 d1e2``, "the captured pawn
on e2 goes to Black's capture zone" for a drag.

The session titles robot work as the G-code program does (``MOVE 17 d1e2``: the 17th ply, in UCI;
``SETUP``, ``RESET``, ``TAKEBACK 2``, ``RESUME``, ``TIDY 17``, with ``(resumed)`` for work taken up after a
stop); the live state's ``gantry.work`` carries that title. :func:`work_words` reads it against the live
``game`` (whose move list already holds a move the robot is carrying out), :func:`drag_words` says what
one drag does with squares, zones and piece names, :func:`countdown_words` how long long work has left.

>>> game = {"start_fen": chess.STARTING_FEN, "san": ["e4", "e5"], "uci": ["e2e4", "e7e5"]}
>>> work_words({"title": "MOVE 2 e7e5", "index": 0, "of": 1}, game)
WorkWords(title='1... e5', headline="Robot making Black's move")
>>> work_words({"title": "SETUP", "index": 3, "of": 20}, None).headline
'Robot setting up the game'
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import chess

from ...planning.layout import Layout, Node
from ...planning.planner import Relocation
from .events import move_label

__all__ = ["WorkWords", "countdown_words", "drag_words", "place_words", "work_words"]


@dataclass(frozen=True)
class WorkWords:
    """What the robot is doing: a short ``title`` ("9. Qe2", "setting up") for its progress bar and a
    ``headline`` ("Robot making White's move") for the line that otherwise says whose move it is."""

    title: str
    headline: str


def work_words(work: Mapping[str, Any], game: Mapping[str, Any] | None) -> WorkWords:
    """The robot's ``work`` (the live state's ``gantry.work``) in words; ``game`` is the live ``game``.

    >>> work_words({"title": "MOVE 17 d1e2 (resumed)"}, {"san": ["e4"] * 16 + ["Qe2"],
    ...            "uci": ["e2e4"] * 16 + ["d1e2"]})
    WorkWords(title='9. Qe2', headline="Robot finishing White's move")
    >>> work_words({"title": "TAKEBACK 2"}, None)
    WorkWords(title='taking back', headline='Robot taking back 2 moves')
    """
    title = str(work.get("title") or "")
    words = title.split()
    kind = words[0].upper() if words else ""
    resumed = "(resumed)" in words
    if kind == "MOVE" and len(words) >= 3 and words[1].isdigit() and int(words[1]) > 0:
        ply, uci = int(words[1]), words[2]
        start_fen = game.get("start_fen") if game else None
        label = move_label(ply, start_fen)
        sans: list[str] = list(game.get("san") or ()) if game else []
        ucis: list[str] = list(game.get("uci") or ()) if game else []
        san = sans[ply - 1] if len(sans) >= ply and len(ucis) >= ply and ucis[ply - 1] == uci else uci
        colour = "Black" if label.endswith("...") else "White"
        doing = "finishing" if resumed else "making"
        return WorkWords(f"{label} {san}", f"Robot {doing} {colour}'s move")
    if kind in ("SETUP", "MOVE"):  # (a set-up cut short is taken up as the move before the first)
        return WorkWords("setting up", "Robot setting up the game")
    if kind == "RESET":
        return WorkWords("setting up", "Robot setting the table up")
    if kind == "TAKEBACK":
        count = words[1] if len(words) > 1 and words[1].isdigit() else "1"
        moves = "a move" if count == "1" else f"{count} moves"
        return WorkWords("taking back", f"Robot taking back {moves}")
    if kind == "RESUME":
        return WorkWords("putting back", "Robot putting the pieces back where the game stopped")
    if kind == "TIDY":
        return WorkWords("tidying", "Robot taking captured pieces to their zone")
    return WorkWords(title.lower() or "robot", "Robot moving")


def countdown_words(work: Mapping[str, Any] | None, now: float | None = None) -> str | None:
    """How long the robot's work has left, for long work (``gantry.work`` with ``left_s`` seconds left at
    wall-clock time ``at``, as :meth:`~chessatron.game.tablework.TableWork.run_plan` tells it): "about
    2:40", counting down with ``now`` (default: the wall clock); "almost done" once the estimate has
    run out. None for short work (or none).

    >>> countdown_words({"title": "SETUP", "left_s": 160.0, "at": 1000.0}, now=1000.4)
    'about 2:40'
    >>> countdown_words({"title": "SETUP", "left_s": 160.0, "at": 1000.0}, now=1165.0)
    'almost done'
    >>> countdown_words({"title": "MOVE 3 e2e4", "index": 0, "of": 1}) is None
    True
    """
    if not work or work.get("left_s") is None:
        return None
    elapsed = (time.time() if now is None else now) - float(work.get("at") or 0.0)
    left = float(work["left_s"]) - max(elapsed, 0.0)
    if left < 1.0:
        return "almost done"
    seconds = round(left)
    return f"about {seconds // 60}:{seconds % 60:02d}"


def place_words(layout: Layout, node: Node) -> str:
    """Where ``node`` is, as a player names it: a square (``e2``), a zone or the reserve, the free room
    around the board, or a point between squares.

    >>> layout = Layout.default()
    >>> place_words(layout, layout.square_node(chess.E2)), place_words(layout, layout.cell_node((10, 2)))
    ('e2', "Black's capture zone")
    """
    square = layout.node_square(node)
    if square is not None:
        return chess.square_name(square)
    cell = layout.node_cell(node)
    if cell is None:
        return "a point between squares"
    kind = layout.cell_kind(cell)
    if kind == "capture-white":
        return "White's capture zone"
    if kind == "capture-black":
        return "Black's capture zone"
    if kind == "reserve":
        return "the reserve"
    return "the free room beside the board"


def drag_words(relocation: Relocation, layout: Layout) -> str:
    """What one drag of the robot's does, in a sentence.

    >>> layout = Layout.default()
    >>> from chessatron.planning.table import Table
    >>> table = Table.from_board(layout, chess.Board())
    >>> pawn = table.piece_at(layout.square_node(chess.E7))
    >>> drag = Relocation(pawn, (layout.square_node(chess.E7), layout.cell_node((10, 2))), "capture")
    >>> drag_words(drag, layout)
    "the captured pawn on e7 goes to Black's capture zone"
    """
    name = chess.piece_name(relocation.piece.piece.piece_type)
    start, goal = place_words(layout, relocation.start), place_words(layout, relocation.goal)
    purpose = relocation.purpose
    if purpose == "capture":
        return f"the captured {name} on {start} goes to {goal}"
    if purpose == "tidy":
        return f"the {name} waiting in {start} goes on to {goal}"
    if purpose == "promote-out":
        return f"the {name} on {start} makes room for its promotion: it goes to {goal}"
    if purpose == "promote-in":
        return f"the new {name} comes from {start} to {goal}"
    if purpose == "castle":
        return f"castling: the {name} goes from {start} to {goal}"
    if purpose in ("park", "aside"):
        return f"the {name} on {start} makes way: it waits on {goal}"
    if purpose == "unpark":
        return f"the {name} goes on from {start} to {goal}"
    if purpose == "back":
        return f"the {name} goes back from {start} to {goal}"
    if purpose == "setup":
        return f"the {name} goes from {start} to {goal}"
    if purpose == "hand":
        return f"the {name} was moved by hand from {start} to {goal}"
    return f"the {name} goes from {start} to {goal}"
