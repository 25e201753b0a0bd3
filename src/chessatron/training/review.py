"""A saved game reviewed: Stockfish through it (:mod:`.analysis`), annotated (:mod:`.annotation`), and the
review kept in the training store so that the web page shows it again at once; and the review as a
person reads it at the terminal (:func:`review_lines`): each side's inaccuracies, mistakes and blunders,
its average centipawn loss and its accuracy (:mod:`.accuracy`), then the marked moves one a line.

A review is kept under the game's id, its length and result (a game that went on since is reviewed
again) and the search limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import chess
import chess.engine

from ..game.engine.player import EnginePlayer
from ..game.engine.settings import parse_level
from ..game.records import store as games
from ..game.records.record import GameRecord, Player
from ..game.telling.events import move_label, result_line
from .accuracy import SideFigures, figures
from .analysis import REVIEW_LIMIT, Progress, analyse_game, describe_limit
from .annotation import annotated_pgn, review_json, white_cp
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


# --- as a person reads it ----------------------------------------------------------------------------

#: How each judgement is counted, one and many.
_COUNTED: Final = {
    "inaccuracy": ("inaccuracy", "inaccuracies"),
    "mistake": ("mistake", "mistakes"),
    "blunder": ("blunder", "blunders"),
}


@dataclass(frozen=True)
class SideReport:
    """One side of a reviewed game: who played it, its judged moves counted, and its figures."""

    colour: chess.Color
    player: str
    """``Ann (keyboard)``, ``engine:5``: the name and how the side was played."""
    counts: Mapping[str, int]
    """Inaccuracies, mistakes and blunders, by judgement."""
    figures: SideFigures

    def line(self) -> str:
        """``White Ann (keyboard): 1 inaccuracy, 0 mistakes, 2 blunders; average loss 87 cp, accuracy
        64%``."""
        side = "White" if self.colour == chess.WHITE else "Black"
        counted = ", ".join(
            f"{self.counts.get(judgement, 0)} {one if self.counts.get(judgement, 0) == 1 else many}"
            for judgement, (one, many) in _COUNTED.items()
        )
        figures = self.figures
        if figures.average_loss is None or figures.accuracy is None:
            return f"{side} {self.player}: no move"
        measured = f"average loss {round(figures.average_loss)} cp, accuracy {round(figures.accuracy)}%"
        return f"{side} {self.player}: {counted}; {measured}"


def side_reports(summary: Mapping[str, Any], record: GameRecord) -> list[SideReport]:
    """White's and Black's reports from a review's ``summary`` (:func:`~.annotation.review_json`, as kept)
    of ``record``."""
    points = list(summary.get("evaluations") or ())
    cps = [white_cp(point) for point in points]
    first = record.start_board().turn
    measured = figures(cps, first) if cps else {}
    reports = []
    for colour, player in ((chess.WHITE, record.white), (chess.BLACK, record.black)):
        name = "white" if colour == chess.WHITE else "black"
        counts: dict[str, int] = {}
        for mistake in summary.get("mistakes") or ():
            if mistake.get("colour") == name:
                counts[str(mistake.get("judgement"))] = counts.get(str(mistake.get("judgement")), 0) + 1
        reports.append(
            SideReport(colour, _who(player), counts, measured.get(colour, SideFigures(0, None, None)))
        )
    return reports


def marked_lines(summary: Mapping[str, Any]) -> list[str]:
    """Each judged move of a review's ``summary``, one a line, numbered as played, with the better move
    and the evaluation the move left (from White's side): ``5. Qg4?? — Ng3 was best (−3.1)``."""
    start_fen = summary.get("start_fen")
    after = {
        int(point.get("ply") or 0): str(point.get("text") or "") for point in summary.get("evaluations") or ()
    }
    lines = []
    for mistake in summary.get("mistakes") or ():
        ply = int(mistake.get("ply") or 0)
        evaluation = after.get(ply, "").replace("-", "−")
        left = f" ({evaluation})" if evaluation else ""
        label = move_label(ply, start_fen)
        lines.append(
            f"{label} {mistake.get('san')}{mistake.get('glyph')} — {mistake.get('best')} was best{left}"
        )
    return lines


def review_lines(summary: Mapping[str, Any], record: GameRecord, game_id: str) -> list[str]:
    """The review as ``chessatron review`` prints it: the game, each side's line (:class:`SideReport`),
    then the marked moves (:func:`marked_lines`)."""
    # (the moves numbered, as people count them: White's and Black's under one number)
    moves = (record.plies + (1 if record.start_board().turn == chess.WHITE else 2)) // 2
    length = f"{moves} move{'s' if moves != 1 else ''}" if record.plies else "no moves"
    ending = result_line(record.result, record.termination) if record.result != "*" else "unfinished"
    lines = [
        f"game {game_id}: White {_who(record.white)} vs Black {_who(record.black)}; {ending}; {length}",
        f"reviewed by Stockfish at {summary.get('limit')}",
        "",
    ]
    lines.extend(report.line() for report in side_reports(summary, record))
    lines.append("")
    marked = marked_lines(summary)
    if marked:
        lines.extend(marked)
    else:
        lines.append("no move marked: no move gave away 0.1 or more of winning chances")
    return lines


def _who(player: Player) -> str:
    """``Ann (keyboard)``, ``engine:5`` (a side without a name), ``unknown``."""
    return f"{player.name} ({player.spec})" if player.name else player.spec
