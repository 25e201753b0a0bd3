"""Session events as a person reads them: one line each, in the player's words.

A :class:`~chessatron.game.session.Session` reports what happens as event dicts (``{"event": "move",
"ply": 1, "san": "e4", ...}``); ``chessatron play --json`` prints them as they are, for scripts. The
terminal prints :func:`describe_event` of them instead: the same facts as a sentence, or nothing for the
events a player does not need a line for (the robot's every drag: the live view shows those).

``game`` is the live state's ``game`` part (:meth:`chessatron.game.telling.live.LiveState.snapshot`) as it
stood when the event was emitted: the session emits a move, a takeback or a result before the live state shows
the position after it, so ``game`` still holds the moves the event talks about and the players' names.

>>> describe_event({"event": "result", "result": "1/2-1/2", "termination": "agreed draw"})
'draw agreed (1/2-1/2)'
>>> game = {"white": "keyboard", "black": "engine:3", "start_fen": chess.STARTING_FEN, "san": []}
>>> describe_event({"event": "move", "ply": 2, "san": "c5", "who": "engine:3"}, game)
'  1... c5       engine:3'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import chess

from ..records.record import GameRecord

__all__ = ["describe_event", "move_label", "result_line", "score_line", "summary_line"]

#: How each ending reads after "White wins" / "Black wins" / "draw".
_WIN_BY: Final[dict[str, str]] = {
    "checkmate": "by checkmate",
    "time forfeit": "on time",
    "abandoned": "(the opponent left the game)",
}
_DRAW_BY: Final[dict[str, str]] = {
    "stalemate": "by stalemate",
    "threefold repetition": "by threefold repetition",
    "fivefold repetition": "by fivefold repetition",
    "fifty moves": "by the fifty-move rule",
    "seventy-five moves": "by the seventy-five-move rule",
    "insufficient material": "by insufficient material",
}


def describe_event(event: Mapping[str, Any], game: Mapping[str, Any] | None = None) -> str | None:
    """The line a player reads for ``event``, or None for an event the terminal does not print.

    >>> describe_event({"event": "game", "id": "f1363334", "fen": chess.STARTING_FEN, "chess960": False},
    ...                {"white": "keyboard", "black": "engine:3"})
    'game f1363334: standard chess, White keyboard vs Black engine:3'
    >>> describe_event({"event": "relocation", "index": 0, "of": 2, "what": "..."}) is None
    True
    """
    kind = event.get("event")
    game = game or {}
    if kind == "move":
        return _move(event, game)
    if kind == "game":
        return f"game {event.get('id')}: {_variant(event)}{_players(game)}"
    if kind == "resumed":
        return _resumed(event, game)
    if kind == "result":
        return result_line(str(event.get("result")), event.get("termination"))
    if kind == "hint":
        return f"hint: {event.get('san')}"
    if kind == "takeback":
        return _takeback(event, game)
    if kind == "notice":
        return str(event.get("message"))
    if kind == "warning":
        return f"warning: {event.get('message')}"
    if kind == "your-hands":
        colour = str(game.get("turn") or "").capitalize()
        whose = f"{colour}'s move " if colour else "the move "
        uci = str(event.get("uci") or "")
        squares = f" ({uci[:2]} to {uci[2:4]})" if len(uci) >= 4 else ""
        return f"please make {whose}{event.get('san')} on the board{squares}"
    if kind == "question":
        asked = event.get("question")
        if not asked:
            return "settled: the board shows the move"
        # (play and online ask it at the prompt as well: no web page serves their game)
        return (
            f"the board cannot tell which move was made: {asked.get('text')} Type it, or lift the piece "
            "you moved and set it down again"
        )
    if kind == "revised":
        sans = list(event.get("san") or ())
        if not sans:
            return "the last move was withdrawn: its piece is back on its square"
        return f"the last move was {' '.join(sans)}, not as first seen"
    if kind == "arrange":
        return f"{event.get('why')}: please arrange the pieces as the lights show: {event.get('fen')}"
    if kind == "voice":
        heard = event.get("heard")
        said = f"voice: {event.get('text')}"
        return f'{said} (heard "{heard}")' if heard else said
    if kind == "clock":
        return f"{str(event.get('colour')).capitalize()} has less than {event.get('seconds')} s left"
    return None


def result_line(result: str, termination: str | None) -> str:
    """How a game ended, the winner first and the score last.

    >>> result_line("0-1", "resignation")
    'White resigns: Black wins (0-1)'
    >>> result_line("1/2-1/2", "stalemate")
    'draw by stalemate (1/2-1/2)'
    """
    score = f"({result})"
    if result in ("1-0", "0-1"):
        winner, loser = ("White", "Black") if result == "1-0" else ("Black", "White")
        if termination == "resignation":
            return f"{loser} resigns: {winner} wins {score}"
        how = _WIN_BY.get(termination or "")
        return f"{winner} wins {how} {score}" if how else f"{winner} wins {score}"
    if result == "1/2-1/2":
        if termination == "agreed draw":
            return f"draw agreed {score}"
        if termination == "time forfeit":
            return f"draw: a flag fell, but the other side has no way to mate {score}"
        how = _DRAW_BY.get(termination or "")
        return f"draw {how} {score}" if how else f"draw {score}"
    return f"the game is unfinished {score}"


def summary_line(
    game_id: str, plies: int, start_fen: str | None, *, finished: bool, kept: bool = True
) -> str:
    """What the terminal says when a game stops: where it is kept and how to go on with it (``kept``:
    False for a game stopped before its first move, which holds nothing to go on with).

    >>> summary_line("f1363334", 3, None, finished=True)
    'game f1363334 saved (2 moves): chessatron games --export f1363334 prints it as PGN'
    >>> summary_line("f1363334", 4, None, finished=False)
    'game f1363334 stopped after 2 moves: chessatron play --resume f1363334 continues it'
    >>> summary_line("f1363334", 0, None, finished=False, kept=False)
    'game f1363334 stopped before the first move: not kept, as nothing was played'
    """
    if not kept:
        return f"game {game_id} stopped before the first move: not kept, as nothing was played"
    if plies:
        number = move_label(plies, start_fen).rstrip(".")
        length = f"{number} move{'s' if number != '1' else ''}"
    else:
        length = ""
    if finished:
        export = f"chessatron games --export {game_id} prints it as PGN"
        return f"game {game_id} saved ({length or 'no moves'}): {export}"
    where = f"after {length}" if length else "before the first move"
    return f"game {game_id} stopped {where}: chessatron play --resume {game_id} continues it"


def score_line(records: Sequence[GameRecord], players: tuple[str, str]) -> str:
    """The score of games played in a row by the same ``players`` (White's, Black's).

    >>> score_line([GameRecord(result="1-0"), GameRecord(result="1/2-1/2")], ("keyboard", "engine:3"))
    'after 2 games: White keyboard 1.5, Black engine:3 0.5'
    """
    points = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
    white = sum(points.get(record.result, (0.0, 0.0))[0] for record in records)
    black = sum(points.get(record.result, (0.0, 0.0))[1] for record in records)
    return f"after {len(records)} games: White {players[0]} {white:g}, Black {players[1]} {black:g}"


def move_label(ply: int, start_fen: str | None) -> str:
    """The move number of the ``ply``-th move (1 is the first) of a game from ``start_fen``: ``"1."``
    for White's move, ``"1..."`` for Black's.

    >>> move_label(3, None), move_label(1, "8/8/8/8/8/8/k7/K7 b - - 0 40")
    ('2.', '40...')
    """
    fields = (start_fen or chess.STARTING_FEN).split()
    black_first = len(fields) > 1 and fields[1] == "b"
    first = int(fields[5]) if len(fields) > 5 and fields[5].isdigit() else 1
    index = ply - 1 + (1 if black_first else 0)  # half-moves since White's first move of move `first`
    return f"{first + index // 2}{'...' if index % 2 else '.'}"


def _move(event: Mapping[str, Any], game: Mapping[str, Any]) -> str:
    label = move_label(int(event.get("ply") or 1), game.get("start_fen"))
    return f"{label:>6} {event.get('san')!s:<8} {event.get('who')}"


def _variant(event: Mapping[str, Any]) -> str:
    fen = str(event.get("fen") or chess.STARTING_FEN)
    try:
        board = chess.Board(fen, chess960=bool(event.get("chess960")))
    except ValueError:
        return f"from {fen}"
    number = board.chess960_pos(ignore_counters=False)
    if not board.chess960:
        return "standard chess" if fen == chess.STARTING_FEN else f"from {fen}"
    if number is not None:
        return f"Chess960 start {number} ({board.board_fen().split('/')[-1]})"
    return f"Chess960 from {fen}"


def _players(game: Mapping[str, Any]) -> str:
    white, black = game.get("white"), game.get("black")
    if not white and not black:
        return ""
    return f", White {white or '?'} vs Black {black or '?'}"


def _resumed(event: Mapping[str, Any], game: Mapping[str, Any]) -> str:
    players = _players(game).removeprefix(", ")
    line = f"resumed game {event.get('id')}" + (f" ({players})" if players else "")
    plies = int(event.get("plies") or 0)
    line += (
        f" after {move_label(plies, game.get('start_fen'))} {_last_san(game)}".rstrip()
        if plies
        else " before the first move"
    )
    turn = game.get("turn")
    return line + (f"; {str(turn).capitalize()} to move" if turn else "")


def _last_san(game: Mapping[str, Any]) -> str:
    sans: Sequence[str] = game.get("san") or ()
    return sans[-1] if sans else ""


def _takeback(event: Mapping[str, Any], game: Mapping[str, Any]) -> str:
    plies = int(event.get("plies") or 0)
    sans: Sequence[str] = list(game.get("san") or ())
    by_hand = " on the board" if event.get("by") == "hand" else ""
    if 0 < plies <= len(sans):
        first = len(sans) - plies + 1
        moves = _numbered(sans[first - 1 :], first, game.get("start_fen"))
        return f"took back {moves}{by_hand}"
    return f"took back {plies} move{'s' if plies != 1 else ''}{by_hand}"


def _numbered(sans: Sequence[str], first_ply: int, start_fen: str | None) -> str:
    """``["Nf3", "b6"]`` from ply 1: ``"1. Nf3 b6"``; from ply 2: ``"1... b6 2. Nf3"``."""
    parts: list[str] = []
    for offset, san in enumerate(sans):
        label = move_label(first_ply + offset, start_fen)
        if offset == 0 or not label.endswith("..."):
            parts.append(label)
        parts.append(san)
    return " ".join(parts)
