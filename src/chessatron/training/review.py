"""A saved game reviewed: Stockfish through it (:mod:`.analysis`), annotated (:mod:`.annotation`), and the
review kept in the training store so that the web page shows it again at once; and the review as a
person reads it at the terminal (:func:`review_lines`): each side's inaccuracies, mistakes and blunders,
its average centipawn loss and its accuracy (:mod:`.accuracy`), then the marked moves one a line.

A review is kept under the game's id, its length and result (a game that went on since is reviewed
again) and the search limit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.engine

from ..game.engine.player import EnginePlayer
from ..game.engine.settings import parse_level
from ..game.records import store as games
from ..game.records.record import GameRecord, Player
from ..game.telling.events import move_label, result_line
from ..i18n import _, ngettext
from ..i18n.formats import decimal, percent
from ..i18n.notation import san_in
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
        64%``, in the current language."""
        white = self.colour == chess.WHITE
        figures = self.figures
        if figures.average_loss is None or figures.accuracy is None:
            return (_("White {player}: no move") if white else _("Black {player}: no move")).format(
                player=self.player
            )
        inaccuracies = self.counts.get("inaccuracy", 0)
        mistakes = self.counts.get("mistake", 0)
        blunders = self.counts.get("blunder", 0)
        if white:
            # TRANSLATORS: the review of a game, one side's line; loss in centipawns, accuracy a percentage
            message = _(
                "White {player}: {inaccuracies}, {mistakes}, {blunders}; average loss {loss} cp, accuracy "
                "{accuracy}"
            )
        else:
            message = _(
                "Black {player}: {inaccuracies}, {mistakes}, {blunders}; average loss {loss} cp, accuracy "
                "{accuracy}"
            )
        return message.format(
            player=self.player,
            inaccuracies=ngettext("{count} inaccuracy", "{count} inaccuracies", inaccuracies).format(
                count=inaccuracies
            ),
            mistakes=ngettext("{count} mistake", "{count} mistakes", mistakes).format(count=mistakes),
            blunders=ngettext("{count} blunder", "{count} blunders", blunders).format(count=blunders),
            loss=decimal(figures.average_loss),
            accuracy=percent(round(figures.accuracy) / 100),
        )


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
        evaluation = evaluation_words(after.get(ply, ""))
        said = {
            "label": move_label(ply, start_fen),
            "move": f"{san_in(str(mistake.get('san')))}{mistake.get('glyph')}",
            "best": san_in(str(mistake.get("best"))),
            "evaluation": evaluation,
        }
        if evaluation:
            # TRANSLATORS: a marked move of a review: "5. Qg4?? — Ng3 was best (−3.1)", the evaluation from
            # White's side after the move played
            lines.append(_("{label} {move} — {best} was best ({evaluation})").format(**said))
        else:
            lines.append(_("{label} {move} — {best} was best").format(**said))
    return lines


def evaluation_words(text: str) -> str:
    """An evaluation as the review keeps it (``+1.5``, ``-0.3``, ``#3``, ``#-2``) as the person reads it:
    the language's decimal mark and a true minus sign (``−0,3``); a mate as it is.

    >>> evaluation_words("-3.1"), evaluation_words("#-2"), evaluation_words("")
    ('−3.1', '#−2', '')
    """
    if not text:
        return ""
    if not text.startswith("#"):
        try:
            value = float(text)
        except ValueError:
            return text
        text = decimal(value, 1, signed=True)
    return text.replace("-", "−")


def limit_words(limit: str) -> str:
    """A review's search limit as kept (``depth 14``, ``20000 nodes``, ``0.5 s``, joined with ``, ``) in
    the current language."""
    parts = []
    for part in limit.split(", "):
        found = re.fullmatch(r"(?:depth (\d+)|(\d+) nodes|([\d.]+) s|(unlimited))", part)
        if found is None:
            parts.append(part)
        elif found[1]:
            parts.append(_("depth {depth}").format(depth=found[1]))
        elif found[2]:
            count = int(found[2])
            parts.append(ngettext("{count} node", "{count} nodes", count).format(count=decimal(count)))
        elif found[3]:
            seconds = float(found[3])
            parts.append(_("{seconds} s").format(seconds=decimal(seconds, 0 if seconds.is_integer() else 1)))
        else:
            parts.append(_("unlimited"))
    return ", ".join(parts)


def review_lines(summary: Mapping[str, Any], record: GameRecord, game_id: str) -> list[str]:
    """The review as ``chessatron review`` prints it: the game, each side's line (:class:`SideReport`),
    then the marked moves (:func:`marked_lines`)."""
    # (the moves numbered, as people count them: White's and Black's under one number)
    moves = (record.plies + (1 if record.start_board().turn == chess.WHITE else 2)) // 2
    length = (
        ngettext("{count} move", "{count} moves", moves).format(count=moves)
        if record.plies
        else _("no moves")
    )
    ending = result_line(record.result, record.termination) if record.result != "*" else _("unfinished")
    lines = [
        # TRANSLATORS: the review's first line: the game, its players, how it ended, its length
        _("game {id}: White {white} vs Black {black}; {ending}; {length}").format(
            id=game_id, white=_who(record.white), black=_who(record.black), ending=ending, length=length
        ),
        _("reviewed by Stockfish at {limit}").format(limit=limit_words(str(summary.get("limit") or ""))),
        "",
    ]
    lines.extend(report.line() for report in side_reports(summary, record))
    lines.append("")
    marked = marked_lines(summary)
    if marked:
        lines.extend(marked)
    else:
        lines.append(
            _("no move marked: no move gave away {chances} or more of winning chances").format(
                chances=decimal(0.1, 1)
            )
        )
    return lines


def _who(player: Player) -> str:
    """``Ann (keyboard)``, ``engine:5`` (a side without a name), ``unknown``."""
    return f"{player.name} ({player.spec})" if player.name else player.spec
