"""Session events as a person reads them: one line each, in the player's words and language (moves with the
language's piece letters, :func:`chessatron.i18n.notation.san_in`).

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

from ...i18n import N_, _, ngettext
from ...i18n.formats import decimal
from ...i18n.notation import san_in
from ..records.record import GameRecord

__all__ = ["arrange_words", "describe_event", "move_label", "result_line", "score_line", "summary_line"]

#: How a game ended, by the winner (True: White) and the termination; the score is the placeholder.
_WINS: Final[Mapping[tuple[bool, str | None], str]] = {
    # TRANSLATORS: the result of a game; {score}: 1-0 or 0-1
    (True, "resignation"): N_("Black resigns: White wins ({score})"),
    (False, "resignation"): N_("White resigns: Black wins ({score})"),
    (True, "checkmate"): N_("White wins by checkmate ({score})"),
    (False, "checkmate"): N_("Black wins by checkmate ({score})"),
    (True, "time forfeit"): N_("White wins on time ({score})"),
    (False, "time forfeit"): N_("Black wins on time ({score})"),
    (True, "abandoned"): N_("White wins (the opponent left the game) ({score})"),
    (False, "abandoned"): N_("Black wins (the opponent left the game) ({score})"),
    (True, None): N_("White wins ({score})"),
    (False, None): N_("Black wins ({score})"),
}
#: How a drawn game ended, by its termination; the score (1/2-1/2) is the placeholder.
_DRAWS: Final[Mapping[str | None, str]] = {
    # TRANSLATORS: the result of a drawn game; {score}: 1/2-1/2
    "agreed draw": N_("draw agreed ({score})"),
    "time forfeit": N_("draw: a flag fell, but the other side has no way to mate ({score})"),
    "stalemate": N_("draw by stalemate ({score})"),
    "threefold repetition": N_("draw by threefold repetition ({score})"),
    "fivefold repetition": N_("draw by fivefold repetition ({score})"),
    "fifty moves": N_("draw by the fifty-move rule ({score})"),
    "seventy-five moves": N_("draw by the seventy-five-move rule ({score})"),
    "insufficient material": N_("draw by insufficient material ({score})"),
    None: N_("draw ({score})"),
}
#: Why the pieces are to be arranged by hand (an ``arrange`` event's ``why``), before "please arrange".
_ARRANGE: Final[Mapping[str, str]] = {
    # TRANSLATORS: the robot cannot move the pieces; {fen}: the position to set up, in FEN
    "set up": N_("set up: please arrange the pieces as the lights show: {fen}"),
    "take back": N_("take back: please arrange the pieces as the lights show: {fen}"),
    "resume": N_("resume: please arrange the pieces as the lights show: {fen}"),
    "set up the puzzle": N_("set up the puzzle: please arrange the pieces as the lights show: {fen}"),
    "put it back": N_("put it back: please arrange the pieces as the lights show: {fen}"),
}
#: A player's move to be made by hand on the board, by whose it is (None: not known).
_YOUR_HANDS: Final[Mapping[tuple[str | None, bool], str]] = {
    # TRANSLATORS: {move}: the move in SAN; {origin}, {target}: its squares
    ("white", True): N_("please make White's move {move} on the board ({origin} to {target})"),
    ("black", True): N_("please make Black's move {move} on the board ({origin} to {target})"),
    (None, True): N_("please make the move {move} on the board ({origin} to {target})"),
    ("white", False): N_("please make White's move {move} on the board"),
    ("black", False): N_("please make Black's move {move} on the board"),
    (None, False): N_("please make the move {move} on the board"),
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
        return _game(event, game)
    if kind == "resumed":
        return _resumed(event, game)
    if kind == "result":
        return result_line(str(event.get("result")), event.get("termination"))
    if kind == "hint":
        return _("hint: {move}").format(move=san_in(str(event.get("san"))))
    if kind == "takeback":
        return _takeback(event, game)
    if kind == "notice":
        return str(event.get("message"))
    if kind == "warning":
        return _("warning: {message}").format(message=event.get("message"))
    if kind == "your-hands":
        turn = str(game.get("turn") or "").lower()
        uci = str(event.get("uci") or "")
        message = _(_YOUR_HANDS[turn if turn in ("white", "black") else None, len(uci) >= 4])
        return message.format(move=san_in(str(event.get("san"))), origin=uci[:2], target=uci[2:4])
    if kind == "question":
        asked = event.get("question")
        if not asked:
            return _("settled: the board shows the move")
        # (play and online ask it at the prompt as well: no web page serves their game)
        # TRANSLATORS: {question}: the moves the board may show, as a question ("Nxb5 or Nxe6?")
        return _(
            "the board cannot tell which move was made: {question} Type it, or lift the piece you moved and "
            "set it down again"
        ).format(question=asked.get("text"))
    if kind == "revised":
        sans = list(event.get("san") or ())
        if not sans:
            return _("the last move was withdrawn: its piece is back on its square")
        moves = " ".join(san_in(str(san)) for san in sans)
        return _("the last move was {moves}, not as first seen").format(moves=moves)
    if kind == "arrange":
        return arrange_words(str(event.get("why") or ""), str(event.get("fen")))
    if kind == "voice":
        heard = event.get("heard")
        if heard:
            # TRANSLATORS: {text}: what the voice player understood; {heard}: the words heard (English)
            return _('voice: {text} (heard "{heard}")').format(text=event.get("text"), heard=heard)
        return _("voice: {text}").format(text=event.get("text"))
    if kind == "clock":
        seconds = event.get("seconds")
        if str(event.get("colour")).lower() == "black":
            return _("Black has less than {seconds} s left").format(seconds=seconds)
        return _("White has less than {seconds} s left").format(seconds=seconds)
    return None


def arrange_words(why: str, fen: str) -> str:
    """The line asking a person to arrange the pieces by hand (``why``: the ``arrange`` event's)."""
    known = _ARRANGE.get(why)
    if known is not None:
        return _(known).format(fen=fen)
    # TRANSLATORS: {why}: what the pieces are arranged for; {fen}: the position, in FEN
    return _("{why}: please arrange the pieces as the lights show: {fen}").format(why=why, fen=fen)


def result_line(result: str, termination: str | None) -> str:
    """How a game ended, the winner first and the score last.

    >>> result_line("0-1", "resignation")
    'White resigns: Black wins (0-1)'
    >>> result_line("1/2-1/2", "stalemate")
    'draw by stalemate (1/2-1/2)'
    """
    if result in ("1-0", "0-1"):
        white = result == "1-0"
        message = _WINS.get((white, termination)) or _WINS[white, None]
        return _(message).format(score=result)
    if result == "1/2-1/2":
        return _(_DRAWS.get(termination) or _DRAWS[None]).format(score=result)
    # TRANSLATORS: {score}: the game's result as PGN writes it (*)
    return _("the game is unfinished ({score})").format(score=result)


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
        return _("game {id} stopped before the first move: not kept, as nothing was played").format(
            id=game_id
        )
    count = int(move_label(plies, start_fen).rstrip(".")) if plies else 0
    if finished:
        export = f"chessatron games --export {game_id}"
        if not count:
            # TRANSLATORS: {command}: the command that prints the game
            return _("game {id} saved (no moves): {command} prints it as PGN").format(
                id=game_id, command=export
            )
        # TRANSLATORS: {count}: the game's moves; {command}: the command that prints the game
        saved = ngettext(
            "game {id} saved ({count} move): {command} prints it as PGN",
            "game {id} saved ({count} moves): {command} prints it as PGN",
            count,
        )
        return saved.format(id=game_id, count=count, command=export)
    resume = f"chessatron play --resume {game_id}"
    if not count:
        # TRANSLATORS: {command}: the command that goes on with the game
        return _("game {id} stopped before the first move: {command} continues it").format(
            id=game_id, command=resume
        )
    # TRANSLATORS: {count}: the game's moves; {command}: the command that goes on with the game
    stopped = ngettext(
        "game {id} stopped after {count} move: {command} continues it",
        "game {id} stopped after {count} moves: {command} continues it",
        count,
    )
    return stopped.format(id=game_id, count=count, command=resume)


def score_line(records: Sequence[GameRecord], players: tuple[str, str]) -> str:
    """The score of games played in a row by the same ``players`` (White's, Black's).

    >>> score_line([GameRecord(result="1-0"), GameRecord(result="1/2-1/2")], ("keyboard", "engine:3"))
    'after 2 games: White keyboard 1.5, Black engine:3 0.5'
    """
    points = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
    white = sum(points.get(record.result, (0.0, 0.0))[0] for record in records)
    black = sum(points.get(record.result, (0.0, 0.0))[1] for record in records)
    # TRANSLATORS: {white}, {black}: the players (keyboard, engine:3); {white_points} and
    # {black_points}: their scores
    line = ngettext(
        "after {count} game: White {white} {white_points}, Black {black} {black_points}",
        "after {count} games: White {white} {white_points}, Black {black} {black_points}",
        len(records),
    )
    return line.format(
        count=len(records),
        white=players[0],
        black=players[1],
        white_points=_points(white),
        black_points=_points(black),
    )


def _points(points: float) -> str:
    """A score: ``1``, ``1.5`` (``1,5`` in German)."""
    return decimal(points, 0 if points == int(points) else 1)


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
    san = san_in(str(event.get("san")))
    return f"{label:>6} {san:<8} {event.get('who')}"


def _game(event: Mapping[str, Any], game: Mapping[str, Any]) -> str:
    white, black = game.get("white"), game.get("black")
    variant = _variant(event)
    if not white and not black:
        # TRANSLATORS: {id}: the game's id; {variant}: "standard chess", "Chess960 start 100 (QBBNRNKR)"...
        return _("game {id}: {variant}").format(id=event.get("id"), variant=variant)
    # TRANSLATORS: {white}, {black}: the players as the command line names them (keyboard, engine:3)
    return _("game {id}: {variant}, White {white} vs Black {black}").format(
        id=event.get("id"), variant=variant, white=white or "?", black=black or "?"
    )


def _variant(event: Mapping[str, Any]) -> str:
    fen = str(event.get("fen") or chess.STARTING_FEN)
    try:
        board = chess.Board(fen, chess960=bool(event.get("chess960")))
    except ValueError:
        # TRANSLATORS: a game's start, a position in FEN
        return _("from {fen}").format(fen=fen)
    number = board.chess960_pos(ignore_counters=False)
    if not board.chess960:
        return _("standard chess") if fen == chess.STARTING_FEN else _("from {fen}").format(fen=fen)
    if number is not None:
        # TRANSLATORS: {number}: the Chess960 start's number; {pieces}: White's back rank (QBBNRNKR)
        return _("Chess960 start {number} ({pieces})").format(
            number=number, pieces=board.board_fen().split("/")[-1]
        )
    return _("Chess960 from {fen}").format(fen=fen)


def _resumed(event: Mapping[str, Any], game: Mapping[str, Any]) -> str:
    white, black = game.get("white"), game.get("black")
    plies = int(event.get("plies") or 0)
    named = {"id": event.get("id"), "white": white or "?", "black": black or "?"}
    if plies:
        move = f"{move_label(plies, game.get('start_fen'))} {san_in(_last_san(game))}".rstrip()
        if white or black:
            # TRANSLATORS: {move}: the last move played, numbered ("12. Nf3"); {white}, {black}: the players
            line = _("resumed game {id} (White {white} vs Black {black}) after {move}").format(
                move=move, **named
            )
        else:
            line = _("resumed game {id} after {move}").format(move=move, **named)
    elif white or black:
        line = _("resumed game {id} (White {white} vs Black {black}) before the first move").format(**named)
    else:
        line = _("resumed game {id} before the first move").format(**named)
    turn = str(game.get("turn") or "").lower()
    if turn == "white":
        # TRANSLATORS: {line}: the line saying which game goes on
        return _("{line}; White to move").format(line=line)
    if turn == "black":
        return _("{line}; Black to move").format(line=line)
    return line


def _last_san(game: Mapping[str, Any]) -> str:
    sans: Sequence[str] = game.get("san") or ()
    return sans[-1] if sans else ""


def _takeback(event: Mapping[str, Any], game: Mapping[str, Any]) -> str:
    plies = int(event.get("plies") or 0)
    sans: Sequence[str] = list(game.get("san") or ())
    by_hand = event.get("by") == "hand"
    if 0 < plies <= len(sans):
        first = len(sans) - plies + 1
        moves = _numbered(sans[first - 1 :], first, game.get("start_fen"))
        if by_hand:
            # TRANSLATORS: {moves}: the moves taken back, numbered ("1. Nf3 b6")
            return _("took back {moves} on the board").format(moves=moves)
        return _("took back {moves}").format(moves=moves)
    if by_hand:
        taken = ngettext("took back {count} move on the board", "took back {count} moves on the board", plies)
    else:
        taken = ngettext("took back {count} move", "took back {count} moves", plies)
    return taken.format(count=plies)


def _numbered(sans: Sequence[str], first_ply: int, start_fen: str | None) -> str:
    """``["Nf3", "b6"]`` from ply 1: ``"1. Nf3 b6"``; from ply 2: ``"1... b6 2. Nf3"`` (the language's
    letters)."""
    parts: list[str] = []
    for offset, san in enumerate(sans):
        label = move_label(first_ply + offset, start_fen)
        if offset == 0 or not label.endswith("..."):
            parts.append(label)
        parts.append(san_in(san))
    return " ".join(parts)
