"""Stockfish goes through a game: every position searched for its two best lines, every move judged.

One search a position, two lines (``MultiPV 2``) at full strength: the best line says what the position is
worth and what should have been played; the second says whether the best move stood out (a puzzle needs
one move clearly better than any other, :mod:`.mining`). A move's worth is the next position's score seen
from its player's side, so a game of n plies costs n + 1 searches. A position the game ended in needs none:
mate and the draws are scored as they are.

The search depth is the same for every position (:data:`REVIEW_LIMIT`; tests use shallow ones), so that the
two positions a move joins are measured alike.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import chess
import chess.engine

from ..game.engine.player import EnginePlayer
from ..i18n import _
from .judgement import Judgement, chances, judge, loss

LOGGER = logging.getLogger(__name__)

#: How deep a review searches each position: depth 14 takes a few tenths of a second a position on a
#: Raspberry Pi 4 (a game of 80 plies in half a minute to a minute), deep enough to see two-move tactics.
REVIEW_LIMIT: Final = chess.engine.Limit(depth=14)

#: Lines searched in each position: the best, and the second to tell whether the best stood out.
LINES: Final = 2

#: Called after each position searched: how many so far, of how many.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Line:
    """One of the engine's lines in a position: its first ``move``, the ``score`` it leads to, the ``pv``
    (the move first)."""

    move: chess.Move
    score: chess.engine.PovScore
    pv: tuple[chess.Move, ...]


@dataclass(frozen=True)
class Position:
    """A position of the game as the engine saw it: its FEN, its ``score`` (from the side to move, with the
    best play), and its lines, best first (none where the game ended)."""

    fen: str
    turn: chess.Color
    score: chess.engine.PovScore
    lines: tuple[Line, ...]

    @property
    def best(self) -> Line | None:
        return self.lines[0] if self.lines else None

    @property
    def second(self) -> Line | None:
        return self.lines[1] if len(self.lines) > 1 else None

    def margin(self) -> float | None:
        """How far the best move stands above the second, in winning chances of the side to move; None
        with a single legal move (nothing to choose) or none."""
        best, second = self.best, self.second
        if best is None or second is None:
            return None
        return chances(best.score.pov(self.turn)) - chances(second.score.pov(self.turn))


@dataclass(frozen=True)
class MoveAnalysis:
    """One move of the game judged: played in ``before``, leaving ``after``."""

    ply: int
    """From 1: the game's first move is ply 1."""
    move: chess.Move
    san: str
    colour: chess.Color
    before: Position
    after: Position

    @property
    def loss(self) -> float:
        """The winning chances the move gave away against the engine's best (0 for the best move)."""
        best = self.before.best
        if best is None or best.move == self.move:
            return 0.0
        return loss(self.before.score.pov(self.colour), self.after.score.pov(self.colour))

    @property
    def judgement(self) -> Judgement | None:
        best = self.before.best
        if best is None or best.move == self.move:
            return None
        return judge(self.before.score.pov(self.colour), self.after.score.pov(self.colour))


@dataclass(frozen=True)
class GameAnalysis:
    """Every position of a game, the start first, and every move judged."""

    start_fen: str
    chess960: bool
    positions: tuple[Position, ...]
    moves: tuple[MoveAnalysis, ...]
    limit: str
    """The search limit, as said (``depth 14``)."""


def terminal_score(board: chess.Board) -> chess.engine.PovScore | None:
    """The score of a position the game ended in, from the side to move: mated, or a draw by the rules;
    None when the game goes on."""
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        return None
    if outcome.winner is None:
        return chess.engine.PovScore(chess.engine.Cp(0), board.turn)
    return chess.engine.PovScore(chess.engine.Mate(0), board.turn)


def search_position(engine: EnginePlayer, board: chess.Board, limit: chess.engine.Limit) -> Position:
    """The engine's two best lines in ``board`` (at full strength, whatever its playing level)."""
    ended = terminal_score(board)
    if ended is not None:
        return Position(board.fen(), board.turn, ended, ())
    foresight = engine.predict(board, LINES, limit)
    foresight.likely_moves()  # waits for the search
    lines: list[Line] = []
    for said in foresight.lines:
        pv, score = said.get("pv"), said.get("score")
        if not isinstance(pv, list) or not pv or not isinstance(score, chess.engine.PovScore):
            continue
        moves = tuple(move for move in pv if isinstance(move, chess.Move))
        if moves and moves[0] not in (line.move for line in lines):
            lines.append(Line(moves[0], score, moves))
    if not lines:
        # (a search stopped before it said anything: the engine was closed meanwhile)
        raise chess.engine.EngineError(_("the engine gave no line for {fen!r}").format(fen=board.fen()))
    return Position(board.fen(), board.turn, lines[0].score, tuple(lines))


def analyse_game(
    engine: EnginePlayer,
    start: chess.Board,
    moves: Sequence[chess.Move],
    *,
    limit: chess.engine.Limit = REVIEW_LIMIT,
    progress: Progress | None = None,
) -> GameAnalysis:
    """Search every position of the game played from ``start`` (its moves ``moves``), the start first.

    Raises the engine's errors (:class:`~chessatron.errors.EngineFailedError`...)."""
    board = start.copy(stack=False)
    positions = [search_position(engine, board, limit)]
    total = len(moves) + 1
    if progress is not None:
        progress(1, total)
    judged: list[MoveAnalysis] = []
    for ply, move in enumerate(moves, start=1):
        san = board.san(move)
        colour = board.turn
        board.push(move)
        positions.append(search_position(engine, board, limit))
        judged.append(MoveAnalysis(ply, move, san, colour, positions[-2], positions[-1]))
        if progress is not None:
            progress(ply + 1, total)
    return GameAnalysis(start.fen(), start.chess960, tuple(positions), tuple(judged), describe_limit(limit))


def describe_limit(limit: chess.engine.Limit) -> str:
    """``depth 14``, ``20000 nodes``, ``0.5 s``: how far each position was searched.

    >>> describe_limit(chess.engine.Limit(depth=14))
    'depth 14'
    """
    parts = []
    if limit.depth is not None:
        parts.append(f"depth {limit.depth}")
    if limit.nodes is not None:
        parts.append(f"{limit.nodes} nodes")
    if limit.time is not None:
        parts.append(f"{limit.time:g} s")
    return ", ".join(parts) or "unlimited"
