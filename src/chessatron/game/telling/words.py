"""The robot's work in a player's words and language: "9. Qe2" for the machine's ``MOVE 17 d1e2``, "the
captured pawn on e2 goes to Black's capture zone" for a drag.

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
from typing import Any, Final

import chess

from ...i18n import N_, _, ngettext
from ...i18n.notation import san_in
from ...planning.layout import Layout, Node
from ...planning.planner import Relocation
from .events import move_label
from .names import piece_name

__all__ = ["WorkWords", "countdown_words", "drag_words", "place_words", "seconds_left", "work_words"]

#: The robot carrying out a move, by whose it is (True: Black's) and whether it goes on with one it began.
_MAKING: Final[Mapping[tuple[bool, bool], str]] = {
    # TRANSLATORS: what the robot does (the terminal's headline; the status display's when it fits)
    (False, False): N_("Robot making White's move"),
    (True, False): N_("Robot making Black's move"),
    (False, True): N_("Robot finishing White's move"),
    (True, True): N_("Robot finishing Black's move"),
}
#: What one drag does, by its purpose ({piece}: the piece's name; {start}, {goal}: places, as
#: :func:`place_words` names them).
_DRAGS: Final[Mapping[str, str]] = {
    # TRANSLATORS: one drag of the robot's, on a line of the terminal; {piece}: the piece's name ("pawn"),
    # {start} and {goal}: a square ("e2") or a place ("Black's capture zone"). Write it so that no word
    # has to agree with the piece or the place (an arrow will do: "{piece} von {start} → {goal}")
    "capture": N_("the captured {piece} on {start} goes to {goal}"),
    "tidy": N_("the {piece} waiting in {start} goes on to {goal}"),
    "promote-out": N_("the {piece} on {start} makes room for its promotion: it goes to {goal}"),
    "promote-in": N_("the new {piece} comes from {start} to {goal}"),
    "castle": N_("castling: the {piece} goes from {start} to {goal}"),
    "park": N_("the {piece} on {start} makes way: it waits on {goal}"),
    "aside": N_("the {piece} on {start} makes way: it waits on {goal}"),
    "unpark": N_("the {piece} goes on from {start} to {goal}"),
    "back": N_("the {piece} goes back from {start} to {goal}"),
    "setup": N_("the {piece} goes from {start} to {goal}"),
    "hand": N_("the {piece} was moved by hand from {start} to {goal}"),
}


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
        return WorkWords(f"{label} {san_in(san)}", _(_MAKING[label.endswith("..."), resumed]))
    if kind in ("SETUP", "MOVE"):  # (a set-up cut short is taken up as the move before the first)
        return WorkWords(_("setting up"), _("Robot setting up the game"))
    if kind == "RESET":
        return WorkWords(_("setting up"), _("Robot setting the table up"))
    if kind == "TAKEBACK":
        count = int(words[1]) if len(words) > 1 and words[1].isdigit() else 1
        # TRANSLATORS: what the robot does (the terminal's headline)
        taking = ngettext("Robot taking back a move", "Robot taking back {count} moves", count)
        return WorkWords(_("taking back"), taking.format(count=count))
    if kind == "RESUME":
        return WorkWords(_("putting back"), _("Robot putting the pieces back where the game stopped"))
    if kind == "TIDY":
        return WorkWords(_("tidying"), _("Robot taking captured pieces to their zone"))
    return WorkWords(title.lower() or _("robot"), _("Robot moving"))


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
    left = seconds_left(work, now)
    if left is None:
        return None
    if left < 1.0:
        # TRANSLATORS: the robot's long work is about to end
        return _("almost done")
    # TRANSLATORS: how long the robot's work has left; {time}: minutes and seconds (2:40)
    return _("about {time}").format(time=minutes(left))


def seconds_left(work: Mapping[str, Any] | None, now: float | None = None) -> float | None:
    """The seconds the robot's long ``work`` has left at wall-clock time ``now`` (as
    :func:`countdown_words` counts them down; below one: almost done), None for short work (or none)."""
    if not work or work.get("left_s") is None:
        return None
    elapsed = (time.time() if now is None else now) - float(work.get("at") or 0.0)
    return float(work["left_s"]) - max(elapsed, 0.0)


def minutes(seconds: float) -> str:
    """``seconds`` as minutes and seconds: ``2:40``."""
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


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
        # TRANSLATORS: a place on the table, as {start} or {goal} of a robot's drag
        return _("a point between squares")
    kind = layout.cell_kind(cell)
    if kind == "capture-white":
        return _("White's capture zone")
    if kind == "capture-black":
        return _("Black's capture zone")
    if kind == "reserve":
        return _("the reserve")
    return _("the free room beside the board")


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
    piece = piece_name(relocation.piece.piece.piece_type)
    start, goal = place_words(layout, relocation.start), place_words(layout, relocation.goal)
    message = _DRAGS.get(relocation.purpose, _DRAGS["setup"])
    return _(message).format(piece=piece, start=start, goal=goal)
