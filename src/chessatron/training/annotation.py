"""A game annotated: the engine's evaluation after every move, each inaccuracy, mistake and blunder marked
(``?!``, ``?``, ``??``, by the winning chances it gave away, see :mod:`.judgement`) with the better move
as a variation, written into the game's PGN; and the same as JSON for the web page's graph and list.

The annotated PGN keeps every header of the game and adds ``Annotator``; each move carries the engine's
evaluation as a ``[%eval]`` comment (as lichess writes it, so that other tools draw the same graph), a
judged move its NAG and a comment (``Blunder (-3.2 → +1.5). Nf3 was best.``), and the better line (six
plies at most) as a variation beside it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import chess
import chess.engine
import chess.pgn

from ..game.records.pgn import to_pgn
from ..game.records.record import GameRecord
from .accuracy import CEILING_CP, figures
from .analysis import GameAnalysis, MoveAnalysis, Position
from .judgement import GLYPHS, NAGS, Judgement, chances

#: Plies of the better line written as a variation.
VARIATION_PLIES: Final = 6

#: How a judgement starts its comment.
WORDS: Final[dict[Judgement, str]] = {"blunder": "Blunder", "mistake": "Mistake", "inaccuracy": "Inaccuracy"}


@dataclass(frozen=True)
class Mistake:
    """A judged move, as the review lists it."""

    ply: int
    colour: chess.Color
    san: str
    judgement: Judgement
    loss: float
    """Winning chances given away (lichess's -1..+1 scale)."""
    best_san: str
    before_fen: str
    """The position the move was made in (what *replay from here* sets up)."""
    best_uci: str = ""

    def line(self, start: chess.Board) -> str:
        """``14... Qxb2?? (Nf6 was best)``."""
        return f"{self.number(start)} {self.san}{GLYPHS[self.judgement]} ({self.best_san} was best)"

    def number(self, start: chess.Board) -> str:
        """The move's number as it is written before it in a game from ``start``: ``14.``, ``14...``."""
        number = start.fullmove_number + (self.ply - 1 + (0 if start.turn == chess.WHITE else 1)) // 2
        return f"{number}{'.' if self.colour == chess.WHITE else '...'}"


def mistakes(
    analysis: GameAnalysis, colours: tuple[chess.Color, ...] = (chess.WHITE, chess.BLACK)
) -> list[Mistake]:
    """Every judged move of the players of ``colours``, in the order played."""
    found = []
    for move in analysis.moves:
        judgement = move.judgement
        best = move.before.best
        if judgement is None or best is None or move.colour not in colours:
            continue
        board = chess.Board(move.before.fen, chess960=analysis.chess960)
        found.append(
            Mistake(
                move.ply,
                move.colour,
                move.san,
                judgement,
                move.loss,
                board.san(best.move),
                move.before.fen,
                best.move.uci(),
            )
        )
    return found


def eval_text(score: chess.engine.PovScore) -> str:
    """A score from White's side as people read it: ``+1.5``, ``-0.3``, ``#3``, ``#-2``.

    >>> eval_text(chess.engine.PovScore(chess.engine.Cp(-150), chess.BLACK))
    '+1.5'
    """
    white = score.white()
    mate = white.mate()
    if mate is not None:
        return f"#{mate}" if mate != 0 else "#"
    cp = white.score()
    assert cp is not None
    return f"{cp / 100:+.1f}"


def annotated_pgn(record: GameRecord, analysis: GameAnalysis, *, annotator: str = "") -> str:
    """The game's PGN with the review in it (see the module docs)."""
    game = chess.pgn.read_game(io.StringIO(to_pgn(record)))
    assert game is not None  # written by to_pgn a moment ago
    game.headers["Annotator"] = annotator or f"chessatron (Stockfish, {analysis.limit})"
    node: chess.pgn.GameNode = game
    for judged in analysis.moves:
        child = node.next()
        assert child is not None and child.move == judged.move
        _annotate(node, child, judged, analysis.chess960)
        node = child
    return with_glyphs(game.accept(chess.pgn.StringExporter(columns=80))) + "\n"


#: The move assessments PGN numbers $1 to $6, as people write them after the move.
_GLYPHS: Final = {1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!"}


def with_glyphs(pgn: str) -> str:
    """python-chess writes a move's assessment as a numbered NAG (``Nf6 $4``); people, and lichess's
    exports, write it on the move (``Nf6??``), which every PGN reader reads back as the same NAG. Only
    movetext outside comments is touched.

    >>> with_glyphs("3. Qh5 Nf6 $4 { [%eval #1] } 4. Qxf7#")
    '3. Qh5 Nf6?? { [%eval #1] } 4. Qxf7#'
    """
    parts = re.split(r"(\{[^}]*\})", pgn)
    for index in range(0, len(parts), 2):  # (the odd parts are the comments)
        parts[index] = re.sub(r"(\S)\s+\$([1-6])(?![0-9])", lambda m: m[1] + _GLYPHS[int(m[2])], parts[index])
    return "".join(parts)


def _annotate(
    parent: chess.pgn.GameNode, node: chess.pgn.ChildNode, judged: MoveAnalysis, c960: bool
) -> None:
    after = judged.after
    node.set_eval(after.score)
    judgement = judged.judgement
    best = judged.before.best
    if judgement is None or best is None:
        return
    node.nags.add(NAGS[judgement])
    board = chess.Board(judged.before.fen, chess960=c960)
    swing = f"{eval_text(judged.before.score)} → {eval_text(after.score)}"
    node.comment = f"{node.comment} {WORDS[judgement]} ({swing}). {board.san(best.move)} was best.".strip()
    variation = parent.add_variation(best.move)
    replay = board.copy(stack=False)
    replay.push(best.move)
    for move in best.pv[1:VARIATION_PLIES]:
        if not replay.is_legal(move):
            break
        variation = variation.add_variation(move)
        replay.push(move)


def review_json(record: GameRecord, analysis: GameAnalysis) -> dict[str, Any]:
    """The review for the web page: the evaluation after every move from White's side (``cp`` clamped
    to ±1000, ``mate``, ``chances`` from -1 to +1) with the start first; the judged moves, each with its
    move number as written (``number``: ``5.``, ``5...``), the better move (``best`` in SAN, ``best_uci``)
    and the evaluation after the move played (``eval``, as :func:`eval_text` writes it); and for each side
    (``sides``) how many inaccuracies, mistakes and blunders it made, its accuracy and average centipawn
    loss (lichess's, see :mod:`.accuracy`; None for a side without a move)."""
    start = record.start_board()
    points = [_point(0, None, None, analysis.positions[0])]
    for judged in analysis.moves:
        points.append(_point(judged.ply, judged.san, judged.move.uci(), judged.after))
    listed = []
    found = mistakes(analysis)
    for mistake in found:
        listed.append(
            {
                "ply": mistake.ply,
                "colour": "white" if mistake.colour == chess.WHITE else "black",
                "san": mistake.san,
                "judgement": mistake.judgement,
                "glyph": GLYPHS[mistake.judgement],
                "loss": round(mistake.loss, 3),
                "best": mistake.best_san,
                "best_uci": mistake.best_uci,
                "fen": mistake.before_fen,
                "number": mistake.number(start),
                "eval": points[mistake.ply]["text"],
                "text": mistake.line(start),
            }
        )
    measured = figures([white_cp(point) for point in points], start.turn)
    sides = {}
    for colour, name in ((chess.WHITE, "white"), (chess.BLACK, "black")):
        marks = [mistake.judgement for mistake in found if mistake.colour == colour]
        side = measured[colour]
        sides[name] = {
            "inaccuracies": marks.count("inaccuracy"),
            "mistakes": marks.count("mistake"),
            "blunders": marks.count("blunder"),
            "accuracy": None if side.accuracy is None else round(side.accuracy, 1),
            "average_loss": None if side.average_loss is None else round(side.average_loss),
        }
    return {
        "start_fen": record.start_fen,
        "chess960": record.chess960,
        "limit": analysis.limit,
        "evaluations": points,
        "mistakes": listed,
        "sides": sides,
    }


def white_cp(point: Mapping[str, Any]) -> float:
    """An evaluation point's centipawns from White's side; a mate as :data:`~.accuracy.CEILING_CP`, its
    sign from the winning chances (``mate`` 0, the side to move mated, has none of its own)."""
    cp = point.get("cp")
    if cp is not None:
        return float(cp)
    chances = float(point.get("chances") or 0.0)
    return CEILING_CP if chances > 0 else -CEILING_CP if chances < 0 else 0.0


def _point(ply: int, san: str | None, uci: str | None, position: Position) -> dict[str, Any]:
    white = position.score.white()
    cp = white.score(mate_score=100000)
    return {
        "ply": ply,
        "san": san,
        "uci": uci,
        "cp": None if white.is_mate() or cp is None else max(-1000, min(1000, cp)),
        "mate": white.mate(),
        "chances": round(chances(white), 4),
        "text": eval_text(position.score),
    }
