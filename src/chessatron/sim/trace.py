"""Sensor traces: what the occupancy sensors reported, scan by scan, and what the player chose at a prompt.

A trace is a time-ordered list of entries, stored as JSON lines (one object per line, UTF-8, ``\\n``):

* ``{"t": 0.02, "occupied": "0x0000ffff0000ffff"}`` — a :class:`Snapshot` of the 8x8 board: ``t`` in
  seconds from the start of the trace, ``occupied`` a 64-bit bitboard in python-chess square numbering
  (a1 = bit 0, h1 = bit 7, h8 = bit 63) as ``0x`` and exactly 16 hex digits (written lower case);
* ``{"t": 4.5, "promote": "n"}`` — a :class:`PromotionChoice`: the player picked ``q``, ``r``, ``b`` or
  ``n`` for a promotion, e.g. at a prompt;
* ``{"t": 0.02, "cells": ["c0r9", "c2r1"]}`` — a :class:`TableSnapshot` of the whole table (board,
  capture zones and reserve): the occupied cells, each named ``c<column>r<row>`` after the layout's
  ``(column, row)`` cell (``c0r9`` is column 0, row 9), written sorted by column, then row;
* ``{"t": 3.0, "move": "e7e5"}`` — a :class:`KnownMove`: a move the recognizer was told rather than
  shown (the robot's, or a typed one);
* ``{"t": 7.5, "choose": "g4f3"}`` — a :class:`MoveChoice`: asked which move they made (the board fit
  several), the player named this one (UCI).

Times never go below zero and never decrease. Entries carry exactly the keys shown. :func:`write_trace`
writes ``t`` as Python's shortest round-tripping float, so ``write_trace(read_trace(f))`` reproduces a
file :func:`write_trace` wrote byte for byte.

>>> import io
>>> stream = io.StringIO()
>>> write_trace(stream, [Snapshot(0.0, chess.BB_RANK_1), PromotionChoice(1.25, "n")])
>>> print(stream.getvalue(), end="")
{"t": 0.0, "occupied": "0x00000000000000ff"}
{"t": 1.25, "promote": "n"}
>>> read_trace(io.StringIO(stream.getvalue()))[1]
PromotionChoice(t=1.25, piece='n')
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any, TypeAlias

import chess

from .. import files
from ..errors import GameFileError
from ..i18n import _
from ..planning.layout import Cell, Layout

__all__ = [
    "PROMOTION_LETTERS",
    "KnownMove",
    "MoveChoice",
    "PromotionChoice",
    "Snapshot",
    "TableSnapshot",
    "TraceEntry",
    "bits_board",
    "board_bits",
    "cell_name",
    "entry_line",
    "parse_cell_name",
    "parse_entry",
    "read_trace",
    "write_trace",
]

#: The letters a :class:`PromotionChoice` may carry.
PROMOTION_LETTERS = ("q", "r", "b", "n")

_HEX = re.compile(r"0x[0-9a-fA-F]{16}")
_CELL = re.compile(r"c(\d+)r(\d+)")


def _check_time(t: float) -> None:
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
        raise GameFileError(_("trace time {t!r} is not a finite number of seconds >= 0").format(t=t))


@dataclass(frozen=True)
class Snapshot:
    """One scan of the 8x8 board. Raises :class:`GameFileError` for a bad time or a value beyond 64 bits."""

    t: float
    """Seconds from the start of the trace."""
    occupied: int
    """Occupied squares as a bitboard, a1 = bit 0, h8 = bit 63."""

    def __post_init__(self) -> None:
        _check_time(self.t)
        if isinstance(self.occupied, bool) or not isinstance(self.occupied, int):
            raise GameFileError(_("occupancy {value!r} is not an int bitboard").format(value=self.occupied))
        if not 0 <= self.occupied <= chess.BB_ALL:
            raise GameFileError(
                _("occupancy {value} does not fit the 64 squares of a board").format(
                    value=f"{self.occupied:#x}"
                )
            )

    @property
    def squares(self) -> set[chess.Square]:
        """The occupied squares."""
        return bits_board(self.occupied)


@dataclass(frozen=True)
class PromotionChoice:
    """The player picked a promotion piece. Raises :class:`GameFileError` for a letter not in q r b n."""

    t: float
    """Seconds from the start of the trace."""
    piece: str
    """``q``, ``r``, ``b`` or ``n``."""

    def __post_init__(self) -> None:
        _check_time(self.t)
        if self.piece not in PROMOTION_LETTERS:
            raise GameFileError(
                _("promotion piece {piece!r} is not one of q, r, b, n (lower case)").format(piece=self.piece)
            )


@dataclass(frozen=True)
class TableSnapshot:
    """One scan of every cell of the table, board, capture zones and reserve included."""

    t: float
    """Seconds from the start of the trace."""
    cells: frozenset[Cell]
    """Occupied cells as ``(column, row)``."""

    def __post_init__(self) -> None:
        _check_time(self.t)
        for cell in self.cells:
            if min(cell) < 0:
                raise GameFileError(_("cell {cell!r} has a negative column or row").format(cell=cell))


@dataclass(frozen=True)
class KnownMove:
    """A move the recognizer was told rather than shown: the robot's, or a typed one (a session's log
    records them so that a replay sees what the live recognizer saw)."""

    t: float
    """Seconds from the start of the trace."""
    move: chess.Move

    def __post_init__(self) -> None:
        _check_time(self.t)


@dataclass(frozen=True)
class MoveChoice:
    """Asked which move they made (the board fitted several equally well), the player named ``choice``,
    at a prompt, on the web page or with the buttons."""

    t: float
    """Seconds from the start of the trace."""
    choice: chess.Move

    def __post_init__(self) -> None:
        _check_time(self.t)


TraceEntry: TypeAlias = Snapshot | PromotionChoice | TableSnapshot | KnownMove | MoveChoice


# --- helpers ---------------------------------------------------------------------------------------


def board_bits(cells: Iterable[Cell], layout: Layout) -> int:
    """The bitboard of the board squares among ``cells`` (cells off the board are ignored).

    >>> layout = Layout.default()
    >>> hex(board_bits([layout.square_cell(chess.H8), (0, 9)], layout))
    '0x8000000000000000'
    """
    bits = 0
    for cell in cells:
        square = layout.node_square(layout.cell_node(cell))
        if square is not None:
            bits |= chess.BB_SQUARES[square]
    return bits


def bits_board(bits: int) -> set[chess.Square]:
    """The squares of a bitboard. Raises :class:`GameFileError` for a value beyond 64 bits.

    >>> sorted(chess.square_name(s) for s in bits_board(0x81))
    ['a1', 'h1']
    """
    if not 0 <= bits <= chess.BB_ALL:
        raise GameFileError(
            _("occupancy {value} does not fit the 64 squares of a board").format(value=f"{bits:#x}")
        )
    return set(chess.SquareSet(bits))


def cell_name(cell: Cell) -> str:
    """``c<column>r<row>``, the name a trace file gives a table cell.

    >>> cell_name((0, 9))
    'c0r9'
    """
    return f"c{cell[0]}r{cell[1]}"


def parse_cell_name(name: str) -> Cell:
    """The cell a ``c<column>r<row>`` name stands for. Raises :class:`GameFileError` for other text."""
    match = _CELL.fullmatch(name) if isinstance(name, str) else None
    if match is None:
        raise GameFileError(
            _("cell name {name!r} is not of the form 'c<column>r<row>', e.g. 'c0r9'").format(name=name)
        )
    return (int(match[1]), int(match[2]))


# --- JSON lines ------------------------------------------------------------------------------------


def entry_line(entry: TraceEntry) -> str:
    """One entry as its JSON line, without the newline."""
    data: dict[str, Any] = {"t": float(entry.t)}
    if isinstance(entry, Snapshot):
        data["occupied"] = f"0x{entry.occupied:016x}"
    elif isinstance(entry, PromotionChoice):
        data["promote"] = entry.piece
    elif isinstance(entry, KnownMove):
        data["move"] = entry.move.uci()
    elif isinstance(entry, MoveChoice):
        data["choose"] = entry.choice.uci()
    else:
        data["cells"] = [cell_name(cell) for cell in sorted(entry.cells)]
    return json.dumps(data)


def parse_entry(text: str) -> TraceEntry:
    """One JSON line as an entry. Raises :class:`GameFileError` saying what is wrong with it."""
    try:
        data = files.parse_json(text, finite=False)  # _check_time says what a time must be
    except ValueError as exc:
        raise GameFileError(str(exc)) from exc
    if not isinstance(data, dict):
        raise GameFileError(_("expected a JSON object, found {text!r}").format(text=text.strip()))
    kinds = [key for key in ("occupied", "promote", "cells", "move", "choose") if key in data]
    if "t" not in data or len(kinds) != 1:
        raise GameFileError(
            _(
                "an entry needs 't' and exactly one of 'occupied', 'promote', 'cells', 'move', 'choose'; "
                "found "
                "keys {keys!r}"
            ).format(keys=sorted(data))
        )
    extra = sorted(set(data) - {"t", kinds[0]})
    if extra:
        raise GameFileError(
            _("unknown keys {keys!r}; an entry holds 't' and {kind!r} only").format(keys=extra, kind=kinds[0])
        )
    t, value = data["t"], data[kinds[0]]
    _check_time(t)
    if kinds[0] == "occupied":
        if not isinstance(value, str) or _HEX.fullmatch(value) is None:
            raise GameFileError(
                _("occupied {value!r} is not '0x' and 16 hex digits, e.g. '0xffff00000000ffff'").format(
                    value=value
                )
            )
        return Snapshot(float(t), int(value, 16))
    if kinds[0] == "promote":
        return PromotionChoice(float(t), value)
    if kinds[0] in ("move", "choose"):
        try:
            move = chess.Move.from_uci(str(value))
        except ValueError as exc:
            raise GameFileError(
                _("{key} {value!r} is not a UCI move such as 'e2e4'").format(key=kinds[0], value=value)
            ) from exc
        return KnownMove(float(t), move) if kinds[0] == "move" else MoveChoice(float(t), move)
    if not isinstance(value, list):
        raise GameFileError(_("cells {value!r} is not a list of names such as 'c0r9'").format(value=value))
    cells = [parse_cell_name(name) for name in value]
    if len(set(cells)) != len(cells):
        raise GameFileError(_("cells {value!r} names a cell twice").format(value=value))
    return TableSnapshot(float(t), frozenset(cells))


@contextmanager
def _opened(target: str | os.PathLike[str] | IO[str], mode: str) -> Iterator[IO[str]]:
    if isinstance(target, str | os.PathLike):
        with open(target, mode, encoding="utf-8", newline="\n") as stream:
            yield stream
    else:
        yield target


def write_trace(target: str | os.PathLike[str] | IO[str], entries: Iterable[TraceEntry]) -> None:
    """Write entries as JSON lines to a path (created or replaced) or an open text stream."""
    with _opened(target, "w") as stream:
        for entry in entries:
            stream.write(entry_line(entry) + "\n")


def read_trace(source: str | os.PathLike[str] | IO[str]) -> list[TraceEntry]:
    """Read a JSON-lines trace from a path or an open text stream; blank lines are skipped.

    Raises :class:`GameFileError` naming the line (counted from 1) of a malformed entry: bad JSON,
    missing or unknown keys, an occupancy that is not 16 hex digits, a bad cell name or promotion letter,
    a negative time or one earlier than the line before.
    """
    if isinstance(source, str | os.PathLike):
        name = _("trace {path!r}").format(path=os.fspath(source))
        lines = files.json_lines(source, files.TRACE)
    else:
        name = _("trace")
        lines = ((number, text) for number, text in enumerate(source, start=1) if text.strip())
    entries: list[TraceEntry] = []
    for number, text in lines:
        try:
            entry = parse_entry(text)
        except GameFileError as exc:
            raise GameFileError(
                _("{trace} line {line}: {problem}").format(trace=name, line=number, problem=exc)
            ) from exc
        if entries and entry.t < entries[-1].t:
            raise GameFileError(
                _(
                    "{trace} line {line}: time {t!r} is earlier than {before!r} on the line before; entries "
                    "must "
                    "be in time order"
                ).format(trace=name, line=number, t=entry.t, before=entries[-1].t)
            )
        entries.append(entry)
    return entries
