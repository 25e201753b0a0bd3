"""``chessatron hw calibrate magnet``: how fast the magnet can drag a piece before it loses it.

With one piece on a1 and a2 empty (the person puts them so; the sensors check), the magnet drags the piece
to a2 at increasing feeds (each :data:`FACTOR` times the one before, from :data:`FIRST_FEED_MM_MIN`), and
back at the first feed after each drag that carried it. The sensors (or, without any, the person) tell
whether the piece arrived. At the first feed that lost it, the person puts it back on a1 and the limit is
narrowed between the last feed that carried it and that one (:data:`NARROWING` more tries). The drag speed
(the layout's ``carry_feed_mm_min``) is then :data:`MARGIN` of the highest feed that carried the piece,
checked by one more trip there and back. The magnet is only ever on inside one drag: it is never left on.

When the sensors have no input of their own on a1 or a2 (its sensor dead or its wire joined to another's,
which their calibration leaves out of the pin map), the drag goes between the first square from a1 on and the
one above it that they do see (the same drag: one square toward the 8th rank); when they see no such two,
the person says whether the piece arrived.

The feeds tried stop at the fastest a drag of one square reaches (a longer one would not be faster on the
way there). The acceleration is GRBL's (``$120``/``$121``), which the layout's ``acceleration_mm_s2``
mirrors: every try uses it as it is; a magnet that loses the piece even at the first feed is told to lower
it. :func:`write_magnet` writes the drag speed.

A terminal-free example (``table`` and ``person`` as for
:func:`~chessatron.calibrate.board.calibrate_board`)::

    result = calibrate_magnet(table, person)
    if result.carry_feed_mm_min is not None:
        write_magnet(result, Path("table.toml"))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import chess

from ..errors import ConfigError
from ..grbl.motion import reachable_feed
from ..i18n import _
from ..planning.layout import Cell, MachinePoint
from .layout_write import LayoutWritten, write_layout_keys
from .person import Person

if TYPE_CHECKING:
    from .machine import GantryTable

__all__ = [
    "FACTOR",
    "FIRST_FEED_MM_MIN",
    "MARGIN",
    "NARROWING",
    "MagnetResult",
    "calibrate_magnet",
    "write_magnet",
]

#: The first feed tried (mm/min): slow enough for any magnet that works at all.
FIRST_FEED_MM_MIN = 600.0
#: Each feed tried is this many times the one before.
FACTOR = 1.3
#: Tries between the last feed that carried the piece and the first that lost it.
NARROWING = 3
#: The drag speed set: this share of the highest feed that carried the piece.
MARGIN = 0.75
#: Times the person is asked to put the piece back before the calibration gives up.
PUT_BACK_TRIES = 3
#: The squares of the trial drag, from and to, when the sensors see both (else another file's or rank's).
FROM, TO = chess.A1, chess.A2


@dataclass(frozen=True)
class _Trial:
    """The trial drag's squares, ``origin`` to ``target``; ``sensed``: the sensors tell whether the piece
    arrived (else the person does)."""

    origin: chess.Square
    target: chess.Square
    sensed: bool

    @property
    def names(self) -> dict[str, str]:
        return {"square": chess.square_name(self.origin), "empty": chess.square_name(self.target)}


@dataclass(frozen=True)
class MagnetResult:
    """What :func:`calibrate_magnet` learnt: the highest feed that carried the piece (mm/min; None: not
    even the first), the lowest that lost it (None: none did, up to ``top_feed_mm_min``, the fastest a
    drag of one square reaches), the drag speed to set (``carry_feed_mm_min``; None: none works), the
    acceleration every try used (mm/s², GRBL's ``$120``/``$121`` as the layout says) and findings."""

    held_mm_min: float | None
    lost_mm_min: float | None
    top_feed_mm_min: float
    carry_feed_mm_min: float | None
    acceleration_mm_s2: tuple[float, float]
    findings: tuple[str, ...]
    tries: int

    def changes(self) -> dict[tuple[str, str], float]:
        """The layout keys this result sets, by ``(section, key)`` (none when no drag speed works)."""
        if self.carry_feed_mm_min is None:
            return {}
        return {("machine", "carry_feed_mm_min"): self.carry_feed_mm_min}


def calibrate_magnet(table: GantryTable, person: Person) -> MagnetResult:
    """Find the magnet's safe drag speed with ``person`` putting the piece (see the module's description).

    ``table`` is a :class:`~chessatron.calibrate.machine.GantryTable`, started (connected, homed) here if it
    was not; its layout should have the board where it is (calibrate the board first). Nothing is written:
    pass the result to :func:`write_magnet`. Raises :class:`~chessatron.calibrate.person.Stopped` when the
    person stops, :class:`~chessatron.errors.ConfigError` when the piece cannot be put where the sensors
    see it, and the link's errors."""
    if table.at is None:
        table.start(person)
    layout = table.layout
    trial = _trial(table, person)
    start = layout.node_mm(layout.square_node(trial.origin))
    end = layout.node_mm(layout.square_node(trial.target))
    top = min(reachable_feed(start, end, layout.profile), max(layout.profile.max_rate_mm_min))
    acceleration = layout.profile.acceleration_mm_s2
    person.tell(
        _(
            "The magnet drags a piece from {square} to {empty} faster and faster, and back, until it loses "
            "the piece."
        ).format(**trial.names)
    )
    _put_piece(table, person, trial, first=True)
    tries = 0
    held: float | None = None
    lost: float | None = None
    feed = FIRST_FEED_MM_MIN
    while feed <= top + 1e-6:
        tries += 1
        if _carried(table, person, trial, start, end, feed):
            held = feed
            _back(table, person, trial, start, end)
            feed = top if feed < top and feed * FACTOR > top else feed * FACTOR
        else:
            lost = feed
            break
    if held is None:
        table.move(table.clamp(layout.home_mm)[0])
        finding = _(
            "The magnet lost the piece even at {feed} mm/min: check that it is close enough under the board "
            "and strong enough, or lower GRBL's acceleration ($120 and $121, and acceleration_mm_s2 in the "
            "layout: now {x} and {y} mm/s²)."
        ).format(feed=f"{FIRST_FEED_MM_MIN:g}", x=f"{acceleration[0]:g}", y=f"{acceleration[1]:g}")
        person.tell(finding)
        return MagnetResult(None, FIRST_FEED_MM_MIN, top, None, acceleration, (finding,), tries)
    if lost is not None:
        for _try in range(NARROWING):
            between = (held + lost) / 2
            tries += 1
            if _carried(table, person, trial, start, end, between):
                held = between
                _back(table, person, trial, start, end)
            else:
                lost = between
    carry = _round_feed(MARGIN * held)
    tries += 1
    while not _carried(table, person, trial, start, end, carry):  # a margin a second look does not confirm
        carry = _round_feed(MARGIN * carry)
        tries += 1
    _back(table, person, trial, start, end)
    table.move(table.clamp(layout.home_mm)[0])
    findings = [
        _(
            "The magnet carried the piece at {held} mm/min and lost it at {lost} mm/min; drags go at {carry} "
            "mm/min."
        ).format(held=f"{held:.0f}", lost=f"{lost:.0f}", carry=f"{carry:g}")
        if lost is not None
        else _(
            "The magnet carried the piece at every feed up to {top} mm/min, the fastest a drag of one "
            "square reaches; drags go at {carry} mm/min."
        ).format(top=f"{top:.0f}", carry=f"{carry:g}")
    ]
    findings.append(
        _(
            "Every drag accelerated at GRBL's $120/$121 ({x} and {y} mm/s², the layout's "
            "acceleration_mm_s2); the acceleration is GRBL's setting, not the layout's: change both "
            "together if pieces slip as drags start."
        ).format(x=f"{acceleration[0]:g}", y=f"{acceleration[1]:g}")
    )
    for finding in findings:
        person.tell(finding)
    return MagnetResult(held, lost, top, carry, acceleration, tuple(findings), tries)


def write_magnet(result: MagnetResult, path: Path) -> LayoutWritten:
    """Write the drag speed ``result`` found (``carry_feed_mm_min``) into the layout file at ``path`` (made
    from the built-in table when there is none), keeping the file before as ``path`` + ``.bak``; atomic.
    Raises :class:`~chessatron.errors.ConfigError` when the result has no drag speed (nothing is written),
    and what :func:`~.layout_write.write_layout_keys` raises."""
    if result.carry_feed_mm_min is None:
        raise ConfigError(
            _(
                "the magnet lost the piece at every speed tried; nothing to write (see what the "
                "calibration said)"
            )
        )
    return write_layout_keys(path, result.changes())


def _round_feed(feed: float) -> float:
    """A feed a person writes: to 10 mm/min."""
    return float(max(10, round(feed / 10) * 10))


def _trial(table: GantryTable, person: Person) -> _Trial:
    """The trial drag's squares: a1 to a2, or (the sensors having no input of their own on either) the first
    square from a1 on and the one above it that they see, said to ``person``; with none such, a1 to a2 with
    the person saying whether the piece arrived."""
    sensors = table.sensors
    if sensors is None:
        return _Trial(FROM, TO, sensed=False)
    # (every sensor open_sensor opens says which cells it sees; one that does not is taken to see them all)
    covered: frozenset[Cell] | None = getattr(sensors, "covered_cells", None)
    if covered is None:
        return _Trial(FROM, TO, sensed=True)
    layout = table.layout
    seen = [
        square
        for square in chess.SQUARES
        if chess.square_rank(square) < 7
        and layout.square_cell(square) in covered
        and layout.square_cell(square + 8) in covered
    ]
    if FROM in seen:  # (TO is the square above FROM)
        return _Trial(FROM, TO, sensed=True)
    names = {"square": chess.square_name(FROM), "empty": chess.square_name(TO)}
    if not seen:
        person.tell(
            _(
                "The sensors see no square and the one above it on inputs of their own (see what their "
                "calibration said): you say whether the piece arrived."
            )
        )
        return _Trial(FROM, TO, sensed=False)
    trial = _Trial(seen[0], seen[0] + 8, sensed=True)
    person.tell(
        _(
            "The sensors do not see both {square} and {empty} on inputs of their own (see what their "
            "calibration said): the magnet drags from {origin} to {target} instead."
        ).format(**names, origin=chess.square_name(trial.origin), target=chess.square_name(trial.target))
    )
    return trial


def _carried(
    table: GantryTable, person: Person, trial: _Trial, start: MachinePoint, end: MachinePoint, feed: float
) -> bool:
    """Drag the piece from the trial's origin to its target at ``feed``: True if it arrived; if not, the
    person puts it back."""
    person.tell(_("Dragging at {feed} mm/min.").format(feed=f"{feed:.0f}"))
    table.drag(start, end, feed)
    arrived = _arrived(table, person, trial, trial.target, (trial.origin,))
    if not arrived:
        person.tell(_("The magnet lost the piece at {feed} mm/min.").format(feed=f"{feed:.0f}"))
        _put_piece(table, person, trial, first=False)
    return arrived


def _back(table: GantryTable, person: Person, trial: _Trial, start: MachinePoint, end: MachinePoint) -> None:
    """The piece back from the target to the origin at the first feed; put back by the person if even that
    lost it."""
    table.drag(end, start, FIRST_FEED_MM_MIN)
    if not _arrived(table, person, trial, trial.origin, (trial.target,)):
        _put_piece(table, person, trial, first=False)


def _arrived(
    table: GantryTable, person: Person, trial: _Trial, square: chess.Square, away: Sequence[chess.Square]
) -> bool:
    """Whether the piece stands on ``square`` and on none of ``away``: the sensors, or the person."""
    layout = table.layout
    cells = table.occupied() if trial.sensed else None
    if cells is None:
        answer = person.ask(
            _("Did the piece reach the centre of {square}?").format(square=chess.square_name(square)),
            (_("yes"), _("no")),
        )
        return answer == _("yes")
    return layout.square_cell(square) in cells and not any(layout.square_cell(s) in cells for s in away)


def _put_piece(table: GantryTable, person: Person, trial: _Trial, *, first: bool) -> None:
    """Ask the person for one piece on the trial's origin and its target empty, until the sensors see it
    so."""
    for _attempt in range(PUT_BACK_TRIES):
        question = (
            _("Put one piece on the centre of {square} and leave {empty} empty, then say ready.")
            if first
            else _("Put the piece back on the centre of {square} and leave {empty} empty, then say ready.")
        )
        person.ask(question.format(**trial.names), (_("ready"),))
        if not trial.sensed or _arrived(table, person, trial, trial.origin, (trial.target,)):
            return
        person.tell(
            _("The sensors do not see one piece on {square} and none on {empty}.").format(**trial.names)
        )
    raise ConfigError(
        _(
            "the sensors never saw a piece on {square} with {empty} empty; check them (chessatron hw test "
            "sensors) and calibrate the magnet again"
        ).format(**trial.names)
    )
