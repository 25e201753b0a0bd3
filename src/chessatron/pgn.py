"""Reading PGN text: python-chess's reader, kept quiet, with problems that name the wrong move.

python-chess logs what it cannot read (``illegal san: … while parsing <Game at 0x…>``) and skips text
that is no token at all without a word: in ``2. Nf9 Nc6`` it never sees ``Nf9`` and reports ``Nc6``
as White's illegal move. :func:`read_games` collects python-chess's errors instead of letting it log
them, says which move each is about, and first looks for text python-chess would skip.

>>> [problem for _, problem in read_games("1. e4 e5 2. Nf9 Nc6 *")]
["move 2: 'Nf9' is not a move"]
>>> [problem for _, problem in read_games("1. e4 e5 2. Ke3 *")]
["move 2 (white): 'Ke3' is illegal in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]
>>> [problem for _, problem in read_games('[Variant "Crazyhouse"]\\n\\n1. e4 e5 *')]
["[Variant 'Crazyhouse'] is a variant chessatron does not play; it plays standard chess and Chess960: \
give a game of one of those"]

Every pattern here reads hostile text in one pass: none may backtrack over what it matched (a pattern
that did took 6 s over a run of 24 digits, and twice as long for every digit more).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator

import chess
import chess.pgn

from .i18n import _

__all__ = ["read_games"]

#: What python-chess skips between tokens without harm: spaces, move numbers, check and mate signs, a
#: pawn's letter, "e.p.". Possessive (``*+``, ``++``): a run of digits is one number, never split and
#: split again, so a hostile run of digits costs one pass, not two to the power of its length.
_HARMLESS = re.compile(r"(?:\s++|\d++\.*+|\.++|[+#]++|e\.p\.|P)*+")
#: A move number: digits (from the start of the run, so a long run is looked at once) and a dot.
_MOVE_NUMBER = re.compile(r"(?<!\d)(\d++)\.")
#: The most digits a move number may have: the longest game chess allows has under 6000 moves.
MAX_MOVE_NUMBER_DIGITS = 5


def read_games(
    text: str, *, on_game: Callable[[int], None] | None = None
) -> Iterator[tuple[chess.pgn.Game, str | None]]:
    """Every game in ``text`` with what is wrong with it (None: nothing), python-chess logging nothing.

    The problem names the first text python-chess cannot read as a token (``move 2: 'Nf9' is not a
    move``), or else its first error with the move it is about (``move 2 (white): 'Ke3' is illegal in
    …``). ``on_game`` is told, after each game, how many characters of ``text`` are read (for progress).
    """
    stream = _Recording(text)
    while True:
        stream.lines = []
        try:
            game = chess.pgn.read_game(stream, Visitor=_QuietBuilder)
        except Exception as exc:  # python-chess's own bug on some damaged text: the rest is unreadable
            yield (
                chess.pgn.Game(),
                _("python-chess cannot read it ({kind}: {detail})").format(
                    kind=type(exc).__name__, detail=exc
                ),
            )
            return
        if game is None:
            return
        if on_game is not None:
            on_game(stream.tell())
        unreadable = _variant_problem(game) or _first_unreadable(stream.lines)
        if unreadable is not None:
            yield game, unreadable
        else:
            yield game, str(game.errors[0]) if game.errors else None


def _variant_problem(game: chess.pgn.Game) -> str | None:
    """A problem for a game of a variant chessatron does not play (python-chess reads Crazyhouse, Atomic
    and others with their own rules, which the table's rules, pieces and robot know nothing of)."""
    try:
        if game.headers.variant() is chess.Board:
            return None  # standard chess, or Chess960 by any of its names
    except ValueError:
        pass  # a variant nobody knows
    variant = game.headers.get("Variant", "?")
    shown = variant if len(variant) <= 40 else variant[:39] + "…"
    return _(
        "[Variant {variant!r}] is a variant chessatron does not play; it plays standard chess and Chess960: "
        "give a game of one of those"
    ).format(variant=shown)


class _Recording(io.StringIO):
    """A text stream that keeps the lines python-chess reads (it reads nothing but lines)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.lines: list[str] = []

    def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]  # typeshed: StringIO
        line = super().readline(-1 if size is None else size)
        self.lines.append(line)
        return line


class _QuietBuilder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """Collect errors, each saying the move it is about, instead of logging them."""

    _san: tuple[int, chess.Color, str] | None = None

    def end_variation(self) -> None:
        # After an error python-chess skips the rest of the line as if it were a variation, and takes a
        # stray ')' for its end: the main line must stay.
        if len(self.variation_stack) > 1:
            super().end_variation()

    def begin_parse_san(self, board: chess.Board, san: str) -> None:
        self._san = (board.fullmove_number, board.turn, san)

    def handle_error(self, error: Exception) -> None:
        if self._san is not None and isinstance(error, ValueError):
            number, turn, san = self._san
            said = {"number": number, "san": san, "fen": str(error).rsplit(" in ", 1)[-1]}
            if isinstance(error, chess.IllegalMoveError):
                message = (
                    _("move {number} (white): {san!r} is illegal in {fen}")
                    if turn
                    else _("move {number} (black): {san!r} is illegal in {fen}")
                )
            elif isinstance(error, chess.AmbiguousMoveError):
                message = (
                    # TRANSLATORS: a PGN file's moves are in English letters whatever the language: keep Nbd2
                    _(
                        "move {number} (white): {san!r} is ambiguous: give the piece's file or rank, as in "
                        "Nbd2"
                    )
                    if turn
                    else _(
                        "move {number} (black): {san!r} is ambiguous: give the piece's file or rank, as in "
                        "Nbd2"
                    )
                )
            else:
                message = (
                    _("move {number} (white): {san!r} is not a move")
                    if turn
                    else _("move {number} (black): {san!r} is not a move")
                )
            error = ValueError(message.format(**said))
        self.game.errors.append(error)


def _first_unreadable(lines: list[str]) -> str | None:
    """The first text in a game's ``lines`` that python-chess's movetext reader would skip, if any, as
    ``move 2: 'Nf9' is not a move``. Follows :func:`chess.pgn.read_game`: headers, then movetext where
    ``{…}`` comments (over several lines too), ``;`` and ``%`` comments are skipped."""
    movetext = False
    in_comment = False
    number: str | None = None
    for raw in lines:
        line = raw
        if not movetext:
            if not line.strip() or line.startswith(("[", "%", ";")):
                continue
            movetext = True
        fresh = True
        while line:
            if in_comment:
                close = line.find("}")
                if close < 0:
                    break
                line, in_comment, fresh = line[close + 1 :], False, False
                continue
            if fresh and line.startswith(("%", ";")):
                break
            position = 0
            rest = ""
            for match in chess.pgn.MOVETEXT_REGEX.finditer(line):
                gap = line[position : match.start()]
                number = _last_number(gap) or number
                if not _HARMLESS.fullmatch(gap):
                    return _describe(line, position, match.start(), number)
                too_long = _too_long_number(gap)
                if too_long is not None:
                    return too_long
                position = match.end()
                token = match.group(0)
                if token.startswith("{"):
                    in_comment, rest = True, line[match.start() + 1 :]
                    break
                if token.startswith(";"):
                    break
            else:
                if not _HARMLESS.fullmatch(line[position:]):
                    return _describe(line, position, len(line), number)
                too_long = _too_long_number(line[position:])
                if too_long is not None:
                    return too_long
            line, fresh = rest, False
    return None


def _last_number(gap: str) -> str | None:
    found = _MOVE_NUMBER.findall(gap)
    return found[-1] if found else None


def _too_long_number(gap: str) -> str | None:
    """A problem for a move number longer than any game can have (damage, or a hostile file)."""
    for number in _MOVE_NUMBER.findall(gap):
        if len(number) > MAX_MOVE_NUMBER_DIGITS:
            shown = number if len(number) <= 12 else number[:12] + "…"
            return _(
                "move number {number!r} ({digits} digits) is past any game: chess allows fewer than 6000 "
                "moves; the file is damaged"
            ).format(number=shown, digits=len(number))
    return None


def _describe(line: str, start: int, end: int, number: str | None) -> str:
    """The whole word around the first unreadable character between ``start`` and ``end``."""
    gap = line[start:end]
    match = _HARMLESS.match(gap)
    offset = start + (match.end() if match is not None else 0)
    left = offset
    while left > 0 and not line[left - 1].isspace():
        left -= 1
    right = offset
    while right < len(line) and not line[right].isspace():
        right += 1
    word = re.sub(r"^\d+\.+", "", line[left:right]) or line[left:right]
    if len(word) > 30:
        word = word[:29] + "…"
    if number is not None:
        return _("move {number}: {word!r} is not a move").format(number=number, word=word)
    return _("{word!r} is not a move").format(word=word)
