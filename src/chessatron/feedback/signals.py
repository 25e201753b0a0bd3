"""What the square LEDs say, in chess terms: where a lifted piece may go, who gives check, what was
illegal, which move the engine wants carried out.

Every ``show_*`` method returns the cells to light and their colours; hand that to
:meth:`LedStrip.show <chessatron.ports.LedStrip.show>`, or merge several with :func:`combine`.

>>> import chess
>>> signals = LedSignals(Layout.default())
>>> board = chess.Board()
>>> lit = signals.show_legal_moves(board, chess.E2)
>>> sorted(chess.square_name(signals.square(cell)) for cell in lit)
['e2', 'e3', 'e4']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import chess

from ..errors import ColourError, ConfigError
from ..i18n import _
from ..planning.layout import Cell, Layout
from ..ports import RGB
from .colours import NAMED_COLOURS, OFF, check_rgb, parse_colour

__all__ = ["LedSignals", "SignalColours", "combine"]


@dataclass(frozen=True)
class SignalColours:
    """The colour of each signal; build from a config table with :meth:`from_dict`."""

    destination: RGB = NAMED_COLOURS["green"]
    """An empty square the lifted piece may move to."""
    capture: RGB = NAMED_COLOURS["yellow"]
    """A square where the lifted piece would capture (en passant: the square it moves to)."""
    selected: RGB = NAMED_COLOURS["warm-white"]
    """The square the piece was lifted from."""
    check: RGB = NAMED_COLOURS["violet"]
    """The king in check and every piece giving check."""
    illegal: RGB = NAMED_COLOURS["red"]
    engine_from: RGB = NAMED_COLOURS["blue"]
    """Where the engine's move starts (a castling rook's start too)."""
    engine_to: RGB = NAMED_COLOURS["blue"]
    """Where the engine's move ends."""
    question: RGB = NAMED_COLOURS["cyan"]
    """Blinking: the squares of the moves the player is asked to choose between."""
    cursor: RGB = NAMED_COLOURS["magenta"]
    """Blinking over whatever the square shows: the buttons' cursor. No other signal is magenta, and no
    other blinks but the question, in cyan."""

    def __post_init__(self) -> None:
        for field in fields(self):
            check_rgb(getattr(self, field.name))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "[leds.colours]") -> SignalColours:
        """Colours from a config table, e.g. ``{"capture": "orange", "illegal": "#ff0000"}``; keys left
        out keep their defaults.

        >>> SignalColours.from_dict({"capture": "orange"}).capture
        (255, 96, 0)
        """
        names = {field.name for field in fields(cls)}
        changes: dict[str, RGB] = {}
        for key, value in data.items():
            if key not in names:
                raise ConfigError(
                    _("{source}: unknown signal {key!r}; the signals are {names}").format(
                        source=source, key=key, names=", ".join(sorted(names))
                    )
                )
            try:
                changes[key] = parse_colour(value)
            except ColourError as exc:
                raise ColourError(f"{source}: {key} = {exc}") from exc
        return replace(cls(), **changes)


class LedSignals:
    """Chess signals as LED colours for one table layout."""

    def __init__(self, layout: Layout, colours: SignalColours | None = None) -> None:
        self.layout = layout
        self.colours = colours or SignalColours()

    def cell(self, square: chess.Square) -> Cell:
        return self.layout.square_cell(square)

    def square(self, cell: Cell) -> chess.Square | None:
        """The chess square of a board cell (None off the board)."""
        return self.layout.node_square(self.layout.cell_node(cell))

    def show_legal_moves(self, board: chess.Board, from_square: chess.Square) -> dict[Cell, RGB]:
        """Where the piece on ``from_square`` may go: empty squares green, captures yellow, and its own
        square in the *selected* colour. Nothing when it has no legal move (or no piece is there).

        Castling lights the king's destination (g1 or c1 in standard chess; in Chess960, where
        python-chess writes castling as king-takes-rook, the square the king ends on)."""
        moves = [move for move in board.legal_moves if move.from_square == from_square]
        if not moves:
            return {}
        lit: dict[Cell, RGB] = {self.cell(from_square): self.colours.selected}
        for move in moves:
            if board.is_castling(move):
                to = _castled_king_square(board, move)
                lit[self.cell(to)] = self.colours.destination
            elif board.is_capture(move):
                lit[self.cell(move.to_square)] = self.colours.capture
            else:
                # Promotions give four moves to one square; it is lit once.
                lit.setdefault(self.cell(move.to_square), self.colours.destination)
        return lit

    def show_check(self, board: chess.Board) -> dict[Cell, RGB]:
        """The king in check and every checker, or nothing when the side to move is not in check."""
        if not board.is_check():
            return {}
        king = board.king(board.turn)
        squares = list(board.checkers()) + ([king] if king is not None else [])
        return {self.cell(square): self.colours.check for square in squares}

    def show_illegal(self, squares: Iterable[chess.Square] | chess.Move) -> dict[Cell, RGB]:
        """Red on each square: the squares of an illegal move, or wherever something is wrong."""
        if isinstance(squares, chess.Move):
            squares = (squares.from_square, squares.to_square)
        return {self.cell(square): self.colours.illegal for square in squares}

    def show_engine_move(self, move: chess.Move, board: chess.Board | None = None) -> dict[Cell, RGB]:
        """The engine's move for the player to carry out: its start and end. Given the ``board`` it is
        played on, castling also lights the rook's start and end, and the king's true destination."""
        lit = {self.cell(move.from_square): self.colours.engine_from}
        if board is not None and board.is_castling(move):
            king_to = _castled_king_square(board, move)
            rook_from, rook_to = _castling_rook(board, move)
            lit[self.cell(rook_from)] = self.colours.engine_from
            lit[self.cell(rook_to)] = self.colours.engine_to
            lit[self.cell(king_to)] = self.colours.engine_to
        else:
            lit[self.cell(move.to_square)] = self.colours.engine_to
        return lit

    def show_question(
        self, board: chess.Board, options: Iterable[chess.Move], *, lit: bool = True
    ) -> dict[Cell, RGB]:
        """The squares of the moves a question names (where each starts and ends; a castling's king and
        rook squares), in the *question* colour; with ``lit`` False, the same squares dark: alternate the
        two to blink them."""
        squares: set[chess.Square] = set()
        for move in options:
            squares |= {move.from_square, move.to_square}
            if board.is_castling(move):
                squares |= {_castled_king_square(board, move), *_castling_rook(board, move)}
        colour = self.colours.question if lit else OFF
        return {self.cell(square): colour for square in squares}

    def __repr__(self) -> str:
        return f"LedSignals({self.layout!r})"


def combine(*layers: Mapping[Cell, RGB]) -> dict[Cell, RGB]:
    """Several signals at once; a later layer wins where two light the same cell.

    >>> combine({(0, 0): (1, 1, 1)}, {(0, 0): (2, 2, 2), (1, 0): (3, 3, 3)})
    {(0, 0): (2, 2, 2), (1, 0): (3, 3, 3)}
    """
    merged: dict[Cell, RGB] = {}
    for layer in layers:
        merged.update(layer)
    return merged


def _castled_king_square(board: chess.Board, move: chess.Move) -> chess.Square:
    rank = chess.square_rank(move.from_square)
    return chess.square(6 if board.is_kingside_castling(move) else 2, rank)


def _castling_rook(board: chess.Board, move: chess.Move) -> tuple[chess.Square, chess.Square]:
    rank = chess.square_rank(move.from_square)
    kingside = board.is_kingside_castling(move)
    if board.piece_type_at(move.to_square) == chess.ROOK and board.color_at(move.to_square) == board.turn:
        rook_from = move.to_square  # king takes rook: python-chess's Chess960 notation
    else:
        rook_from = chess.square(7 if kingside else 0, rank)
    return rook_from, chess.square(5 if kingside else 3, rank)
