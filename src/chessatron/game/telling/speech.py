"""Session events in spoken words: what the table says aloud, for a board played without a screen.

:func:`spoken_event` is to the speaker what :func:`~chessatron.game.telling.events.describe_event` is to the
terminal: the same events, in sentences meant for the ear rather than the eye. Moves are said as a player
reads them out (``"Nxf3+"``: "knight takes f3, check"; ``"O-O"``: "castles kingside"), results without
the score ("White wins by checkmate."), clock warnings ("One minute left for White."), and errors as
the one sentence the terminal prints. The words are English; the speaker's voice
(:mod:`~chessatron.feedback.speaker`) may be any of espeak-ng's English voices.

>>> spoken_san("Nxf3+")
'knight takes f3, check'
>>> spoken_event({"event": "result", "result": "1-0", "termination": "checkmate"})
'White wins by checkmate.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import chess

__all__ = [
    "SPOKEN_EVENTS",
    "clock_words",
    "confirm_words",
    "help_words",
    "spoken_event",
    "spoken_move",
    "spoken_san",
    "which_words",
]

_PIECES: Final = {"N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}
_SAN: Final = re.compile(r"^([NBRQK])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=?([NBRQ]))?([+#])?")
#: The events that have spoken words (the others, such as the robot's every drag, are silent).
SPOKEN_EVENTS: Final = frozenset(
    {
        "game",
        "resumed",
        "move",
        "result",
        "hint",
        "takeback",
        "notice",
        "warning",
        "error",
        "your-hands",
        "question",
        "revised",
        "arrange",
        "clock",
        "voice",
    }
)

_WIN_BY: Final[dict[str, str]] = {
    "checkmate": " by checkmate",
    "time forfeit": " on time",
    "abandoned": ": the opponent left the game",
}
_DRAW_BY: Final[dict[str, str]] = {
    "stalemate": " by stalemate",
    "threefold repetition": " by repetition",
    "fivefold repetition": " by repetition",
    "fifty moves": " by the fifty-move rule",
    "seventy-five moves": " by the seventy-five-move rule",
    "insufficient material": ": neither side can mate",
}


def spoken_san(san: str) -> str:
    """A move in SAN as a player says it.

    >>> [spoken_san(s) for s in ("e4", "exd5", "Nbd2", "R1e2", "e8=Q#", "O-O-O", "Ng1f3")]
    ['e4', 'e takes d5', 'knight from b to d2', 'rook from 1 to e2', 'e8 promotes to queen, checkmate', \
'castles queenside', 'knight from g1 to f3']
    """
    text = san.strip().rstrip("!?")
    suffix = ", checkmate" if text.endswith("#") else ", check" if text.endswith("+") else ""
    core = text.rstrip("+#")
    if core in ("O-O", "0-0"):
        return "castles kingside" + suffix
    if core in ("O-O-O", "0-0-0"):
        return "castles queenside" + suffix
    match = _SAN.match(core)
    if match is None:
        return text
    piece, file, rank, capture, square, promotion, _ = match.groups()
    words: list[str] = []
    if piece:
        words.append(_PIECES[piece])
        if file or rank:
            words.append(f"from {file or ''}{rank or ''}")
            words.append("takes" if capture else "to")
        elif capture:
            words.append("takes")
    elif capture:
        words += [file or "pawn", "takes"]
    words.append(square)
    if promotion:
        words.append(f"promotes to {_PIECES[promotion]}")
    return " ".join(words) + suffix


def spoken_move(board: chess.Board, move: chess.Move) -> str:
    """``move`` (legal on ``board``) as a player says it; "en passant" where it is one.

    >>> board = chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    >>> spoken_move(board, chess.Move.from_uci("e5d6"))
    'e takes d6 en passant'
    """
    words = spoken_san(board.san(move))
    if board.is_en_passant(move):
        head, comma, tail = words.partition(",")
        words = f"{head} en passant{comma}{tail}"
    return words


def clock_words(colour: str, seconds: float) -> str:
    """A clock warning: how much time ``colour`` (white or black) has left.

    >>> clock_words("white", 60), clock_words("black", 10)
    ('One minute left for White.', 'Ten seconds left for Black.')
    """
    whole = round(seconds)
    if whole >= 60 and whole % 60 == 0:
        minutes = whole // 60
        amount = "One minute" if minutes == 1 else f"{_number(minutes).capitalize()} minutes"
    else:
        amount = f"{_number(whole).capitalize()} second{'s' if whole != 1 else ''}"
    return f"{amount} left for {colour.capitalize()}."


def confirm_words(what: str) -> str:
    """The question that reads a move (or a command) back before anything is done.

    >>> confirm_words("knight takes f3")
    'knight takes f3. Yes or no?'
    """
    return f"{what}. Yes or no?"


def which_words(board: chess.Board, moves: Sequence[chess.Move]) -> str:
    """The question when the words fit several moves: which piece, by the square it stands on.

    >>> board = chess.Board("8/8/8/8/8/8/1N3N2/K6k w - - 0 1")
    >>> which_words(board, [chess.Move.from_uci("b2d3"), chess.Move.from_uci("f2d3")])
    'Which knight: from b2, or from f2?'
    """
    piece = board.piece_type_at(moves[0].from_square) if moves else None
    name = chess.piece_name(piece) if piece is not None else "piece"
    squares = [f"from {chess.square_name(move.from_square)}" for move in moves]
    return f"Which {name}: {', or '.join(squares) if len(squares) < 3 else _listed(squares)}?"


def help_words() -> str:
    """How to talk to the table, said when the player asks for help."""
    return (
        "Say your move, such as knight f three, pawn takes d five, or castle kingside. "
        "Say files as letters, or as alpha, bravo, charlie for a clearer sound. "
        "You can also say hint please, take back, offer a draw, resign, or repeat."
    )


def spoken_event(event: Mapping[str, Any], game: Mapping[str, Any] | None = None) -> str | None:
    """The sentence the table says for ``event`` (``game``: the live state's ``game`` part, as for
    :func:`~chessatron.game.telling.events.describe_event`), or None for an event it keeps quiet about.

    >>> spoken_event({"event": "move", "ply": 1, "uci": "g1f3", "san": "Nf3", "who": "engine:5"})
    'knight f3'
    >>> spoken_event({"event": "relocation", "index": 0, "of": 2}) is None
    True
    """
    kind = event.get("event")
    game = game or {}
    if kind == "move":
        return spoken_san(str(event.get("san") or event.get("uci") or ""))
    if kind == "result":
        return result_words(str(event.get("result")), event.get("termination"))
    if kind == "game":
        variant = _variant(event)
        return f"New game{variant}."
    if kind == "resumed":
        turn = game.get("turn")
        return "Game resumed" + (f": {str(turn).capitalize()} to move." if turn else ".")
    if kind == "hint":
        return f"Hint: {spoken_san(str(event.get('san')))}."
    if kind == "takeback":
        return _takeback(event)
    if kind == "notice":
        return _sentence(str(event.get("message") or ""))
    if kind == "voice":  # the voice player's questions; its turn is told by the move before it
        return None if event.get("prompt") == "move" else str(event.get("text") or "") or None
    if kind == "warning":
        return f"Warning: {_sentence(str(event.get('message') or ''))}"
    if kind == "error":
        return f"Stopped: {_sentence(str(event.get('message') or ''))}"
    if kind == "your-hands":
        uci = str(event.get("uci") or "")
        squares = f", from {uci[:2]} to {uci[2:4]}" if len(uci) >= 4 else ""
        return f"Please make my move: {spoken_san(str(event.get('san')))}{squares}."
    if kind == "question":
        asked = event.get("question")
        if not asked:
            return None
        options = [spoken_san(str(option.get("san"))) for option in asked.get("options") or ()]
        return f"Which move was it: {_listed(options, 'or')}?" if options else None
    if kind == "revised":
        sans = list(event.get("san") or ())
        if not sans:
            return "The last move was taken back on the board."
        return f"The last move was {_listed([spoken_san(san) for san in sans], 'then')}."
    if kind == "arrange":
        return f"Please {event.get('why') or 'set up'}: arrange the pieces as the lights show."
    if kind == "clock":
        return clock_words(str(event.get("colour")), float(event.get("seconds") or 0))
    return None


def result_words(result: str, termination: str | None) -> str:
    """How a game ended, in words (no score).

    >>> result_words("0-1", "resignation"), result_words("1/2-1/2", "stalemate")
    ('White resigns. Black wins.', 'Draw by stalemate.')
    """
    if result in ("1-0", "0-1"):
        winner, loser = ("White", "Black") if result == "1-0" else ("Black", "White")
        if termination == "resignation":
            return f"{loser} resigns. {winner} wins."
        return f"{winner} wins{_WIN_BY.get(termination or '', '')}."
    if result == "1/2-1/2":
        if termination == "agreed draw":
            return "Draw agreed."
        if termination == "time forfeit":
            return "A flag fell, but the other side cannot mate: draw."
        return f"Draw{_DRAW_BY.get(termination or '', '')}."
    return "The game stops unfinished."


def _variant(event: Mapping[str, Any]) -> str:
    fen = str(event.get("fen") or chess.STARTING_FEN)
    if not event.get("chess960"):
        return "" if fen == chess.STARTING_FEN else " from a set position"
    try:
        number = chess.Board(fen, chess960=True).chess960_pos(ignore_counters=False)
    except ValueError:
        number = None
    return f": Chess960, start {number}" if number is not None else ": Chess960 from a set position"


def _takeback(event: Mapping[str, Any]) -> str:
    plies = int(event.get("plies") or 0)
    moves = "one move" if plies == 1 else f"{_number(plies)} moves"
    return f"Took back {moves}{' on the board' if event.get('by') == 'hand' else ''}."


def _sentence(text: str) -> str:
    """``text`` as a spoken sentence: capitalised, ending in a full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + "."


def _listed(items: Sequence[str], last: str = "or") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f", {last} {items[-1]}"


def _number(value: int) -> str:
    words = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[value] if 0 <= value < len(words) else str(value)
