"""Session events in spoken words: what the table says aloud, for a board played without a screen.

:func:`spoken_event` is to the speaker what :func:`~chessatron.game.telling.events.describe_event` is to the
terminal: the same events, in sentences meant for the ear rather than the eye. Moves are said as a player
reads them out (``"Nxf3+"``: "knight takes f3, check"; ``"O-O"``: "castles kingside"), results without
the score ("White wins by checkmate."), clock warnings ("One minute left for White."), and errors as
the one sentence the terminal prints. The words are the player's language's (:mod:`chessatron.i18n`:
"Springer schlägt f3, Schach", "petit roque"), for the speaker's voice of that language
(:mod:`~chessatron.feedback.speaker`); what a person says to the table stays English
(:mod:`chessatron.voice`), and so do the examples of it that the spoken help gives.

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

from ...i18n import N_, _, ngettext, pgettext
from .names import piece_name

__all__ = [
    "SPOKEN_EVENTS",
    "clock_words",
    "confirm_words",
    "help_words",
    "result_words",
    "spoken_event",
    "spoken_move",
    "spoken_san",
    "which_words",
]

_PIECES: Final = {"N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK, "Q": chess.QUEEN, "K": chess.KING}
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

#: A won game, by the winner (True: White) and the termination (None: any other).
_WINS: Final[Mapping[tuple[bool, str | None], str]] = {
    (True, "resignation"): N_("Black resigns. White wins."),
    (False, "resignation"): N_("White resigns. Black wins."),
    (True, "checkmate"): N_("White wins by checkmate."),
    (False, "checkmate"): N_("Black wins by checkmate."),
    (True, "time forfeit"): N_("White wins on time."),
    (False, "time forfeit"): N_("Black wins on time."),
    (True, "abandoned"): N_("White wins: the opponent left the game."),
    (False, "abandoned"): N_("Black wins: the opponent left the game."),
    (True, None): N_("White wins."),
    (False, None): N_("Black wins."),
}
#: A drawn game, by the termination (None: any other).
_DRAWS: Final[Mapping[str | None, str]] = {
    "agreed draw": N_("Draw agreed."),
    "time forfeit": N_("A flag fell, but the other side cannot mate: draw."),
    "stalemate": N_("Draw by stalemate."),
    "threefold repetition": N_("Draw by repetition."),
    "fivefold repetition": N_("Draw by repetition."),
    "fifty moves": N_("Draw by the fifty-move rule."),
    "seventy-five moves": N_("Draw by the seventy-five-move rule."),
    "insufficient material": N_("Draw: neither side can mate."),
    None: N_("Draw."),
}
#: A pawn promoted, by the piece it becomes ({move}: the move up to there, "e8", "e takes d8").
_PROMOTES: Final[Mapping[str, str]] = {
    # TRANSLATORS: spoken; {move}: the pawn's move in words ("e8", "e takes d8")
    "Q": N_("{move} promotes to queen"),
    "R": N_("{move} promotes to rook"),
    "B": N_("{move} promotes to bishop"),
    "N": N_("{move} promotes to knight"),
}
#: The question when the words fit several moves of one kind of piece.
_WHICH: Final[Mapping[chess.PieceType, str]] = {
    # TRANSLATORS: spoken; {options}: where each may come from ("from b2, or from f2")
    chess.PAWN: N_("Which pawn: {options}?"),
    chess.KNIGHT: N_("Which knight: {options}?"),
    chess.BISHOP: N_("Which bishop: {options}?"),
    chess.ROOK: N_("Which rook: {options}?"),
    chess.QUEEN: N_("Which queen: {options}?"),
    chess.KING: N_("Which king: {options}?"),
}
#: Why the pieces are to be arranged by hand (an ``arrange`` event's ``why``).
_ARRANGE: Final[Mapping[str, str]] = {
    "set up": N_("Please set up: arrange the pieces as the lights show."),
    "take back": N_("Please take back: arrange the pieces as the lights show."),
    "resume": N_("Please resume: arrange the pieces as the lights show."),
    "set up the puzzle": N_("Please set up the puzzle: arrange the pieces as the lights show."),
    "put it back": N_("Please put it back: arrange the pieces as the lights show."),
}


def spoken_san(san: str) -> str:
    """A move in SAN as a player says it.

    >>> [spoken_san(s) for s in ("e4", "exd5", "Nbd2", "R1e2", "e8=Q#", "O-O-O", "Ng1f3")]
    ['e4', 'e takes d5', 'knight from b to d2', 'rook from 1 to e2', 'e8 promotes to queen, checkmate', \
'castles queenside', 'knight from g1 to f3']
    """
    text = san.strip().rstrip("!?")
    core = text.rstrip("+#")
    return _checked(_spoken_core(core, text), text)


def _checked(words: str, san: str) -> str:
    """``words`` of a move, with check or mate as ``san`` ends."""
    if san.endswith("#"):
        # TRANSLATORS: spoken; {move}: a move in words
        return pgettext("spoken", "{move}, checkmate").format(move=words)
    if san.endswith("+"):
        return pgettext("spoken", "{move}, check").format(move=words)
    return words


def _spoken_core(core: str, text: str) -> str:
    if core in ("O-O", "0-0"):
        return pgettext("spoken", "castles kingside")
    if core in ("O-O-O", "0-0-0"):
        return pgettext("spoken", "castles queenside")
    match = _SAN.match(core)
    if match is None:
        return text
    piece, file, rank, capture, square, promotion, _check = match.groups()
    if piece:
        name = piece_name(_PIECES[piece])
        if file or rank:
            origin = f"{file or ''}{rank or ''}"
            if capture:
                # TRANSLATORS: spoken; {piece}: its name; {origin}: the file or square it comes from
                words = pgettext("spoken", "{piece} from {origin} takes {square}")
            else:
                words = pgettext("spoken", "{piece} from {origin} to {square}")
            words = words.format(piece=name, origin=origin, square=square)
        elif capture:
            words = pgettext("spoken", "{piece} takes {square}").format(piece=name, square=square)
        else:
            # TRANSLATORS: spoken: a piece's move ("knight f3")
            words = pgettext("spoken", "{piece} {square}").format(piece=name, square=square)
    elif capture and file:
        # TRANSLATORS: spoken: a pawn's capture; {file}: the pawn's file letter ("e takes d5")
        words = pgettext("spoken", "{file} takes {square}").format(file=file, square=square)
    elif capture:
        words = pgettext("spoken", "pawn takes {square}").format(square=square)
    else:
        words = square
    if promotion:
        words = _(_PROMOTES[promotion]).format(move=words)
    return words


def spoken_move(board: chess.Board, move: chess.Move) -> str:
    """``move`` (legal on ``board``) as a player says it; "en passant" where it is one.

    >>> board = chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    >>> spoken_move(board, chess.Move.from_uci("e5d6"))
    'e takes d6 en passant'
    """
    san = board.san(move)
    if not board.is_en_passant(move):
        return spoken_san(san)
    text = san.strip().rstrip("!?")
    core = _spoken_core(text.rstrip("+#"), text)
    # TRANSLATORS: spoken; {move}: a pawn's capture in words ("e takes d6")
    return _checked(pgettext("spoken", "{move} en passant").format(move=core), text)


def clock_words(colour: str, seconds: float) -> str:
    """A clock warning: how much time ``colour`` (white or black) has left.

    >>> clock_words("white", 60), clock_words("black", 10)
    ('One minute left for White.', 'Ten seconds left for Black.')
    """
    whole = round(seconds)
    black = colour.lower() == "black"
    if whole >= 60 and whole % 60 == 0:
        minutes = whole // 60
        if minutes == 1:
            return _("One minute left for Black.") if black else _("One minute left for White.")
        if black:
            # TRANSLATORS: spoken; {count}: a number in words ("ten"), or digits above ten
            said = ngettext("{count} minute left for Black.", "{count} minutes left for Black.", minutes)
        else:
            said = ngettext("{count} minute left for White.", "{count} minutes left for White.", minutes)
        return _capitalised(said.format(count=_number(minutes)))
    if whole == 1:
        return _("One second left for Black.") if black else _("One second left for White.")
    if black:
        said = ngettext("{count} second left for Black.", "{count} seconds left for Black.", whole)
    else:
        said = ngettext("{count} second left for White.", "{count} seconds left for White.", whole)
    return _capitalised(said.format(count=_number(whole)))


def confirm_words(what: str) -> str:
    """The question that reads a move (or a command) back before anything is done.

    >>> confirm_words("knight takes f3")
    'knight takes f3. Yes or no?'
    """
    # TRANSLATORS: spoken; {what}: a move or command in words. The player answers in English (yes, no)
    return _("{what}. Yes or no?").format(what=what)


def which_words(board: chess.Board, moves: Sequence[chess.Move]) -> str:
    """The question when the words fit several moves: which piece, by the square it stands on.

    >>> board = chess.Board("8/8/8/8/8/8/1N3N2/K6k w - - 0 1")
    >>> which_words(board, [chess.Move.from_uci("b2d3"), chess.Move.from_uci("f2d3")])
    'Which knight: from b2, or from f2?'
    """
    piece = board.piece_type_at(moves[0].from_square) if moves else None
    squares = [
        # TRANSLATORS: spoken: where a piece comes from, one of the options of "Which knight: {options}?"
        pgettext("spoken", "from {square}").format(square=chess.square_name(m.from_square))
        for m in moves
    ]
    options = _listed(squares)
    if piece is None:
        return _("Which piece: {options}?").format(options=options)
    return _(_WHICH[piece]).format(options=options)


def help_words() -> str:
    """How to talk to the table, said when the player asks for help (the table hears English)."""
    # TRANSLATORS: spoken help of the voice player. The table understands English only: keep the quoted
    # examples in English and say that they are English
    return _(
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
        return _new_game(event)
    if kind == "resumed":
        turn = str(game.get("turn") or "").lower()
        if turn == "white":
            return _("Game resumed: White to move.")
        if turn == "black":
            return _("Game resumed: Black to move.")
        return _("Game resumed.")
    if kind == "hint":
        # TRANSLATORS: spoken; {move}: the move in words
        return _("Hint: {move}.").format(move=spoken_san(str(event.get("san"))))
    if kind == "takeback":
        return _takeback(event)
    if kind == "notice":
        return _sentence(str(event.get("message") or ""))
    if kind == "voice":  # the voice player's questions; its turn is told by the move before it
        return None if event.get("prompt") == "move" else str(event.get("text") or "") or None
    if kind == "warning":
        # TRANSLATORS: spoken; {message}: a sentence
        return _("Warning: {message}").format(message=_sentence(str(event.get("message") or "")))
    if kind == "error":
        # TRANSLATORS: spoken, the game stopped; {message}: a sentence saying why
        return _("Stopped: {message}").format(message=_sentence(str(event.get("message") or "")))
    if kind == "your-hands":
        uci = str(event.get("uci") or "")
        move = spoken_san(str(event.get("san")))
        if len(uci) >= 4:
            # TRANSLATORS: spoken; {move}: the robot's move in words; {origin}, {target}: its squares
            return _("Please make my move: {move}, from {origin} to {target}.").format(
                move=move, origin=uci[:2], target=uci[2:4]
            )
        return _("Please make my move: {move}.").format(move=move)
    if kind == "question":
        asked = event.get("question")
        if not asked:
            return None
        options = [spoken_san(str(option.get("san"))) for option in asked.get("options") or ()]
        # TRANSLATORS: spoken; {options}: the moves in words ("bishop takes f3, or bishop takes h3")
        return _("Which move was it: {options}?").format(options=_listed(options)) if options else None
    if kind == "revised":
        sans = list(event.get("san") or ())
        if not sans:
            return _("The last move was taken back on the board.")
        # TRANSLATORS: spoken; {moves}: one move in words, or several in order ("knight f3, then e5")
        return _("The last move was {moves}.").format(
            moves=_listed([spoken_san(san) for san in sans], "then")
        )
    if kind == "arrange":
        why = str(event.get("why") or "set up")
        known = _ARRANGE.get(why)
        if known is not None:
            return _(known)
        # TRANSLATORS: spoken; {why}: what the pieces are arranged for
        return _("Please {why}: arrange the pieces as the lights show.").format(why=why)
    if kind == "clock":
        return clock_words(str(event.get("colour")), float(event.get("seconds") or 0))
    return None


def result_words(result: str, termination: str | None) -> str:
    """How a game ended, in words (no score).

    >>> result_words("0-1", "resignation"), result_words("1/2-1/2", "stalemate")
    ('White resigns. Black wins.', 'Draw by stalemate.')
    """
    if result in ("1-0", "0-1"):
        white = result == "1-0"
        return _(_WINS.get((white, termination)) or _WINS[white, None])
    if result == "1/2-1/2":
        return _(_DRAWS.get(termination) or _DRAWS[None])
    return _("The game stops unfinished.")


def _new_game(event: Mapping[str, Any]) -> str:
    fen = str(event.get("fen") or chess.STARTING_FEN)
    if not event.get("chess960"):
        return _("New game.") if fen == chess.STARTING_FEN else _("New game from a set position.")
    try:
        number = chess.Board(fen, chess960=True).chess960_pos(ignore_counters=False)
    except ValueError:
        number = None
    if number is None:
        return _("New game: Chess960 from a set position.")
    # TRANSLATORS: spoken; {number}: the Chess960 start's number
    return _("New game: Chess960, start {number}.").format(number=number)


def _takeback(event: Mapping[str, Any]) -> str:
    plies = int(event.get("plies") or 0)
    hand = event.get("by") == "hand"
    if plies == 1:
        return _("Took back one move on the board.") if hand else _("Took back one move.")
    if hand:
        # TRANSLATORS: spoken; {count}: a number in words ("two"), or digits above ten
        said = ngettext(
            "Took back {count} move on the board.", "Took back {count} moves on the board.", plies
        )
    else:
        said = ngettext("Took back {count} move.", "Took back {count} moves.", plies)
    return said.format(count=_number(plies))


def _sentence(text: str) -> str:
    """``text`` as a spoken sentence: capitalised, ending in a full stop."""
    text = text.strip()
    if not text:
        return text
    text = _capitalised(text)
    return text if text[-1] in ".?!" else text + "."


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _listed(items: Sequence[str], last: str = "or") -> str:
    """Spoken items, the last one after "or" (or "then"), with a pause (a comma) before it."""
    if len(items) <= 1:
        return "".join(items)
    head = ", ".join(items[:-1])
    if last == "then":
        # TRANSLATORS: spoken: moves one after the other; {items}: the first ones, comma-separated
        return pgettext("spoken", "{items}, then {last}").format(items=head, last=items[-1])
    # TRANSLATORS: spoken: the last of several options; {items}: the first ones, comma-separated
    return pgettext("spoken", "{items}, or {last}").format(items=head, last=items[-1])


def _number(value: int) -> str:
    """A small number in words (spoken), digits from eleven on."""
    words = (
        pgettext("spoken number", "zero"),
        pgettext("spoken number", "one"),
        pgettext("spoken number", "two"),
        pgettext("spoken number", "three"),
        pgettext("spoken number", "four"),
        pgettext("spoken number", "five"),
        pgettext("spoken number", "six"),
        pgettext("spoken number", "seven"),
        pgettext("spoken number", "eight"),
        pgettext("spoken number", "nine"),
        pgettext("spoken number", "ten"),
    )
    return words[value] if 0 <= value < len(words) else str(value)
