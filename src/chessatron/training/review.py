"""A saved game reviewed: Stockfish through it (:mod:`.analysis`), annotated (:mod:`.annotation`), and the
review kept in the training store so that the web page shows it again at once.

A review is kept under the game's id, its length and result (a game that went on since is reviewed
again) and the search limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess.engine

from ..game.engine.player import EnginePlayer
from ..game.engine.settings import parse_level
from ..game.records import store as games
from .analysis import REVIEW_LIMIT, Progress, analyse_game, describe_limit
from .annotation import annotated_pgn, review_json
from .store import PuzzleStore


@dataclass(frozen=True)
class Reviewed:
    """A game's review: ``summary`` (:func:`~.annotation.review_json`, with the game's ``id``) and its
    annotated ``pgn``."""

    summary: dict[str, Any]
    pgn: str


def review_key(game_id: str, plies: int, result: str, limit: chess.engine.Limit) -> str:
    return f"{game_id}:{plies}:{result}:{describe_limit(limit)}"


def kept_review(
    game_id: str, games_dir: Path, store: PuzzleStore, *, limit: chess.engine.Limit = REVIEW_LIMIT
) -> Reviewed | None:
    """The review of game ``game_id`` made before with ``limit``, if it still fits the game."""
    record = games.load_game(game_id, games_dir)
    kept = store.review(review_key(game_id, record.plies, record.result, limit))
    return None if kept is None else Reviewed(*kept)


def review_game(
    game_id: str,
    games_dir: Path,
    store: PuzzleStore,
    *,
    limit: chess.engine.Limit = REVIEW_LIMIT,
    engine_path: str = "stockfish",
    engine: EnginePlayer | None = None,
    progress: Progress | None = None,
) -> Reviewed:
    """Review saved game ``game_id`` (or hand back the review kept for it). Raises
    :class:`~chessatron.errors.GameNotFoundError` and the engine's errors."""
    record = games.load_game(game_id, games_dir)
    key = review_key(game_id, record.plies, record.result, limit)
    kept = store.review(key)
    if kept is not None:
        return Reviewed(*kept)
    if engine is None:
        with EnginePlayer(parse_level("engine"), engine=engine_path) as own:
            analysis = analyse_game(own, record.start_board(), record.moves, limit=limit, progress=progress)
    else:
        analysis = analyse_game(engine, record.start_board(), record.moves, limit=limit, progress=progress)
    summary = review_json(record, analysis) | {"id": game_id}
    pgn = annotated_pgn(record, analysis)
    store.keep_review(key, summary, pgn)
    return Reviewed(summary, pgn)
