"""Puzzles from games: the positions where a player erred although one move clearly stood out.

The criterion, in lichess's winning chances (-1..+1, :mod:`.judgement`), on a game Stockfish went
through (:mod:`.analysis`, two lines a position):

1. **the player erred**: their move gave away at least :attr:`Criterion.erred` (0.2, a lichess
   *mistake* or worse) against the engine's best move;
2. **one move stood out**: the best move was at least :attr:`Criterion.margin` (0.3) above the second
   best, so that any other move would itself have been a blunder next to it (a position with a lone
   legal move is no puzzle);
3. the position came from the opponent's move (the puzzle starts with it, as lichess's do), so a
   blunder on the game's very first move is left out.

The solution goes on while it stays forced: the opponent answers with the engine's best reply, and the
player's next move joins the line only if it stands out by the same margin, at most
:attr:`Criterion.max_moves` of the player's moves. A mined puzzle's rating is a first guess from its
shape (:func:`first_rating`), refined as people play it (:meth:`.store.PuzzleStore.rerate`).

Chess960 games give Chess960 puzzles (theme ``chess960``: castling is the king onto its rook).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import chess
import chess.engine

from ..game.engine.player import EnginePlayer
from ..game.records.record import GameRecord, PlayerKind
from ..i18n import _, ngettext
from ..i18n.formats import decimal
from .analysis import REVIEW_LIMIT, GameAnalysis, MoveAnalysis, Position, analyse_game, search_position
from .puzzle import CHESS960_THEME, Puzzle

#: The kinds of player who are people: their moves are mined.
PEOPLE: Final[frozenset[PlayerKind]] = frozenset({"keyboard", "board", "web", "buttons", "voice"})


@dataclass(frozen=True)
class Criterion:
    """What makes a position a puzzle (see the module docs)."""

    erred: float = 0.2
    """The least winning chances the player's move gave away."""
    margin: float = 0.3
    """The least the best move stands above the second, in winning chances."""
    max_moves: int = 3
    """The most moves of the player in a solution."""


def people_in(record: GameRecord) -> tuple[chess.Color, ...]:
    """The sides of a saved game a person played: those of a person's kind; both when neither side's
    kind is known (an imported game: probably the person's own over the board); none in a game between
    engines."""
    kinds = {chess.WHITE: record.white.kind, chess.BLACK: record.black.kind}
    people = tuple(colour for colour in chess.COLORS if kinds[colour] in PEOPLE)
    if people:
        return people
    if all(kind == "unknown" for kind in kinds.values()):
        return (chess.WHITE, chess.BLACK)
    return ()


def stands_out(position: Position, criterion: Criterion) -> bool:
    """Whether the best move in ``position`` clearly stands out (criterion 2)."""
    margin = position.margin()
    return margin is not None and margin >= criterion.margin - 1e-9


def mine_analysis(
    analysis: GameAnalysis,
    colours: Iterable[chess.Color],
    engine: EnginePlayer,
    *,
    criterion: Criterion = Criterion(),
    limit: chess.engine.Limit = REVIEW_LIMIT,
    source: str = "game",
    prefix: str = "g",
    game_url: str = "",
) -> list[Puzzle]:
    """The puzzles of an analysed game, from the moves of ``colours`` (see the module docs); ``engine``
    searches the solutions' later moves. Ids are ``prefix`` and the position's fingerprint."""
    wanted = set(colours)
    found = []
    for index, judged in enumerate(analysis.moves):
        if judged.colour not in wanted or judged.loss < criterion.erred - 1e-9 or index == 0:
            continue
        if not stands_out(judged.before, criterion):
            continue
        setting = analysis.moves[index - 1]  # the opponent's move that set the puzzle
        puzzle = _puzzle(analysis, setting, judged, engine, criterion, limit, source, prefix, game_url)
        if puzzle is not None:
            found.append(puzzle)
    return found


def why_none(
    analysis: GameAnalysis, colours: Iterable[chess.Color], criterion: Criterion = Criterion()
) -> str:
    """Why an analysed game gave no puzzle from the moves of ``colours``: the rule in a sentence, and how
    near the game came to it."""
    wanted = set(colours)
    erred = [
        judged
        for index, judged in enumerate(analysis.moves)
        if index > 0 and judged.colour in wanted and judged.loss >= criterion.erred - 1e-9
    ]
    values = {"erred": _chances(criterion.erred), "margin": _chances(criterion.margin)}
    if not erred:
        return _(
            "no move of yours lost {erred} or more of winning chances where one move clearly stood out "
            "({margin} above the next); none lost that much at all"
        ).format(**values)
    if not any(stands_out(judged.before, criterion) for judged in erred):
        return ngettext(
            "no move of yours lost {erred} or more of winning chances where one move clearly stood out "
            "({margin} above the next); {count} move of yours lost that much, but in its position another "
            "move was nearly as good as the best",
            "no move of yours lost {erred} or more of winning chances where one move clearly stood out "
            "({margin} above the next); {count} moves of yours lost that much, but in each of their "
            "positions another move was nearly as good as the best",
            len(erred),
        ).format(count=len(erred), **values)
    return _(
        "no move of yours lost {erred} or more of winning chances where one move clearly stood out "
        "({margin} above the next); the solutions of the positions where one did could not be played through"
    ).format(**values)


def _chances(value: float) -> str:
    """Winning chances as the messages write them: ``0.2`` (``0,2``)."""
    return decimal(value, 1) if round(value, 1) == value else decimal(value, 2)


def mine_game(
    record: GameRecord,
    engine: EnginePlayer,
    *,
    colours: Iterable[chess.Color] | None = None,
    criterion: Criterion = Criterion(),
    limit: chess.engine.Limit = REVIEW_LIMIT,
    source: str = "game",
    prefix: str = "g",
    game_url: str = "",
) -> list[Puzzle]:
    """The puzzles of a saved game: Stockfish goes through it, then :func:`mine_analysis` on the moves of
    ``colours`` (default: :func:`people_in`)."""
    sides = people_in(record) if colours is None else tuple(colours)
    if not sides or record.plies < 2:
        return []
    analysis = analyse_game(engine, record.start_board(), record.moves, limit=limit)
    return mine_analysis(
        analysis,
        sides,
        engine,
        criterion=criterion,
        limit=limit,
        source=source,
        prefix=prefix,
        game_url=game_url,
    )


def _puzzle(
    analysis: GameAnalysis,
    setting: MoveAnalysis,
    erred: MoveAnalysis,
    engine: EnginePlayer,
    criterion: Criterion,
    limit: chess.engine.Limit,
    source: str,
    prefix: str,
    game_url: str,
) -> Puzzle | None:
    board = chess.Board(setting.before.fen, chess960=analysis.chess960)
    start_fen = board.fen()
    line = [board.uci(setting.move)]
    board.push(setting.move)
    position = erred.before
    for _step in range(criterion.max_moves):
        best = position.best
        assert best is not None
        line.append(board.uci(best.move))
        board.push(best.move)
        if board.is_game_over() or len(best.pv) < 3:
            break
        reply = best.pv[1]
        if not board.is_legal(reply):
            break
        after_reply = board.copy(stack=False)
        after_reply.push(reply)
        if after_reply.is_game_over():
            break
        following = search_position(engine, after_reply, limit)
        if not stands_out(following, criterion):
            break
        line.append(board.uci(reply))
        board.push(reply)
        position = following
    themes = _themes(board, len(line) // 2, analysis.chess960)
    digest = hashlib.sha1(f"{start_fen} {' '.join(line)}".encode()).hexdigest()[:10]
    try:
        return Puzzle(
            f"{prefix}{digest}",
            start_fen,
            tuple(line),
            rating=first_rating(chess.Board(start_fen, chess960=analysis.chess960), line),
            rating_deviation=300,
            themes=themes,
            game_url=game_url,
            source=source,
        )
    except ValueError:
        return None  # (a line python-chess could not replay: no puzzle rather than a broken one)


def _themes(final: chess.Board, person_moves: int, chess960: bool) -> tuple[str, ...]:
    """Lichess's names for what can be told from the line alone: a mate and in how many, its length."""
    themes = []
    if final.is_checkmate():
        themes += ["mate", f"mateIn{person_moves}"]
    themes.append({1: "oneMove", 2: "short", 3: "long"}.get(person_moves, "veryLong"))
    if chess960:
        themes.append(CHESS960_THEME)
    return tuple(themes)


def first_rating(start: chess.Board, line: list[str]) -> int:
    """A mined puzzle's first rating, from its shape: 1100 for a one-move puzzle whose move captures or
    checks (what people look at first), 250 more for a quiet first move, 300 more for each further move
    of the solution. Played, it moves to where people's results put it.

    >>> first_rating(chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1"), ["g8f8", "d1d8"])
    1100
    """
    board = start.copy(stack=False)
    board.push_uci(line[0])
    first = board.parse_uci(line[1])
    forcing = board.is_capture(first) or board.gives_check(first)
    return 1100 + (0 if forcing else 250) + 300 * (len(line) // 2 - 1)
