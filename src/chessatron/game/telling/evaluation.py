"""The engine's evaluation as watchers see it: the score and the principal variation of a position."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import chess
import chess.engine

#: Moves of the engine's line shown at most.
PV_SHOWN = 8


def evaluation_after(
    board: chess.Board, move: chess.Move, info: Mapping[str, object]
) -> dict[str, Any] | None:
    """The live state's ``evaluation`` after the engine played ``move`` on ``board``, from what it said
    while searching (``info``: its ``score``, ``pv`` and ``depth``): the score from White's side and the
    rest of its line, for the position after the move.

    None when the engine played another move than its line's first (a weaker level picks other
    moves): its score and line are about a game that did not happen.

    >>> from chess.engine import Cp, PovScore
    >>> info = {"score": PovScore(Cp(-30), chess.BLACK), "depth": 12, "pv": [chess.Move.from_uci("e7e5"),
    ...         chess.Move.from_uci("g1f3")]}
    >>> board = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    >>> evaluation_after(board, chess.Move.from_uci("e7e5"), info)["pv"]
    ['Nf3']
    >>> evaluation_after(board, chess.Move.from_uci("c7c5"), info) is None
    True
    """
    score = info.get("score")
    pv = info.get("pv")
    if not isinstance(score, chess.engine.PovScore) or not isinstance(pv, list) or not pv or pv[0] != move:
        return None
    after = board.copy(stack=False)
    after.push(move)
    mover = score.pov(board.turn)
    mate = mover.mate()
    if mate is not None and mate > 0:
        # "mate in 3" counts the mover's moves: one of them is played
        mover = chess.engine.Mate(mate - 1) if mate > 1 else chess.engine.MateGiven
    white = chess.engine.PovScore(mover, board.turn).white()
    return _evaluation(after, white, pv[1:], info.get("depth"))


def evaluation_of(board: chess.Board, info: Mapping[str, object]) -> dict[str, Any] | None:
    """The live state's ``evaluation`` of ``board`` from a search of that very position (``info``, as
    :meth:`EnginePlayer.analyse` returns it); None without a score.

    >>> from chess.engine import Cp, PovScore
    >>> info = {"score": PovScore(Cp(40), chess.WHITE), "depth": 12, "pv": [chess.Move.from_uci("e2e4")]}
    >>> evaluation = evaluation_of(chess.Board(), info)
    >>> evaluation["cp"], evaluation["mate"], evaluation["pv"], evaluation["fen"] == chess.STARTING_FEN
    (40, None, ['e4'], True)
    """
    score = info.get("score")
    if not isinstance(score, chess.engine.PovScore):
        return None
    pv = info.get("pv")
    return _evaluation(board, score.white(), pv if isinstance(pv, list) else [], info.get("depth"))


def _evaluation(
    board: chess.Board, white: chess.engine.Score, line: list[object], depth: object
) -> dict[str, Any]:
    """The score from White's side with the line from ``board`` in SAN (the legal start of it)."""
    replay = board.copy(stack=False)
    shown: list[str] = []
    for step in line[:PV_SHOWN]:
        if not isinstance(step, chess.Move) or not replay.is_legal(step):
            break
        shown.append(replay.san(step))
        replay.push(step)
    return {"cp": white.score(), "mate": white.mate(), "depth": depth, "pv": shown, "fen": board.fen()}
