"""A :class:`~.record.GameRecord` as PGN and back: python-chess writes and reads it (main lines only), our
reader (:func:`chessatron.pgn.read_games`) names the wrong move of a game it cannot read.

>>> from .record import Player
>>> record = GameRecord(moves=(chess.Move.from_uci("e2e4"),), white=Player("Ann", "keyboard"))
>>> from_pgn(to_pgn(record)) == record
True
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import chess
import chess.pgn

from ...errors import ChessatronError, GameFileError, IllegalMoveError
from ...i18n import _
from ...pgn import read_games
from .record import (
    OWN_TAGS,
    RESULTS,
    ROSTER_DEFAULTS,
    SETUP_TAGS,
    TERMINATIONS,
    UNKNOWN_DATE,
    ClockSettings,
    GameRecord,
    Player,
    Result,
    Termination,
    parse_player_kind,
)

__all__ = ["MAX_CLOCK_S", "from_pgn", "read_pgn_games", "to_pgn", "write_pgn"]


def _pgn_termination(termination: Termination) -> str:
    return termination[0].upper() + termination[1:]


def to_pgn(record: GameRecord) -> str:
    """The record as one PGN game, ending in a newline.

    Besides the seven-tag roster it writes ``Termination``, ``TimeControl``, ``[%clk]`` comments, the
    ``Variant "Chess960"``/``SetUp``/``FEN`` headers python-chess writes for the start, and our own
    ``WhiteKind``/``BlackKind`` (``engine``, ``keyboard``...) and ``WhiteLevel``/``BlackLevel``.
    """
    game = chess.pgn.Game()
    headers = game.headers
    headers["Event"] = record.event or "?"
    headers["Site"] = record.site or "?"
    date = record.date
    headers["Date"] = f"{date.year:04d}.{date.month:02d}.{date.day:02d}" if date else UNKNOWN_DATE
    headers["White"] = record.white.name or "?"
    headers["Black"] = record.black.name or "?"
    headers["Result"] = record.result
    for side, player in (("White", record.white), ("Black", record.black)):
        if player.kind != "unknown":
            headers[f"{side}Kind"] = player.kind
        if player.level is not None:
            headers[f"{side}Level"] = player.level
    if record.termination is not None:
        headers["Termination"] = _pgn_termination(record.termination)
    if record.clock is not None:
        headers["TimeControl"] = record.clock.time_control()
    for name, value in record.tags:
        headers[name] = value
    game.setup(record.start_board())
    node: chess.pgn.GameNode = game
    clocks = record.clocks_ms or (None,) * len(record.moves)
    for move, clock_ms in zip(record.moves, clocks, strict=True):
        node = node.add_variation(move)
        if clock_ms is not None:
            node.set_clock(clock_ms / 1000)
    return game.accept(chess.pgn.StringExporter(columns=80)) + "\n"


def read_pgn_games(
    text: str, source: str | None = None, *, on_game: Callable[[int, int], None] | None = None
) -> list[GameRecord]:
    """Every game in ``text`` (mainlines only; comments other than ``[%clk]``, NAGs and variations are
    dropped). Raises :class:`GameFileError` naming the game and the wrong move for anything python-chess
    could not read. ``on_game(characters, games)`` is told after each game how many characters of
    ``text`` are read and how many games found (for progress)."""
    source = _("the PGN") if source is None else source
    records: list[GameRecord] = []
    count = 0

    def read(characters: int) -> None:
        nonlocal count
        count += 1
        if on_game is not None:
            on_game(characters, count)

    for game, problem in read_games(text, on_game=read):
        where = _("game {number} of {source}").format(number=len(records) + 1, source=source)
        if problem is not None:
            raise GameFileError(
                _("{game} cannot be read: {problem}; fix or remove that game").format(
                    game=where, problem=problem
                )
            )
        records.append(_record_from_game(game, where))
    return records


def from_pgn(text: str, source: str | None = None) -> GameRecord:
    """The one game in ``text``; :class:`GameFileError` when there is none or more than one."""
    source = _("the PGN") if source is None else source
    records = read_pgn_games(text, source)
    if len(records) != 1:
        raise GameFileError(
            _("{source} holds {count!r} games, not one; use read_pgn_games() for many").format(
                source=source, count=len(records)
            )
        )
    return records[0]


#: The longest a clock may show (seconds): past a year a ``[%clk]`` reading is damage.
MAX_CLOCK_S = 366 * 24 * 3600


def _record_from_game(game: chess.pgn.Game, source: str) -> GameRecord:
    try:
        board = game.board()
    except ValueError as exc:
        raise GameFileError(
            _("{source} has a bad start position: {reason}").format(source=source, reason=exc)
        ) from exc
    if type(board) is not chess.Board:
        raise GameFileError(
            _("{source} is {variant!r}; only standard and chess960 play").format(
                source=source, variant=game.headers.get("Variant")
            )
        )
    headers = game.headers
    consumed = set(OWN_TAGS - {"Termination", "Date", "TimeControl"}) | SETUP_TAGS
    termination = _parse_termination(headers.get("Termination"))
    date = _parse_date(headers.get("Date", UNKNOWN_DATE))
    clock = ClockSettings.parse_time_control(headers.get("TimeControl", ""))
    if termination is not None or "Termination" not in headers:
        consumed.add("Termination")
    if date is not None or headers.get("Date", UNKNOWN_DATE) == UNKNOWN_DATE:
        consumed.add("Date")
    if clock is not None:
        consumed.add("TimeControl")
    tags = tuple(
        (name, value)
        for name, value in headers.items()
        if name not in consumed and ROSTER_DEFAULTS.get(name) != value
    )
    nodes = list(game.mainline())
    clocks = [_clock_ms(node, source) for node in nodes]
    try:
        return GameRecord(
            start_fen=board.fen(),
            chess960=board.chess960,
            moves=tuple(node.move for node in nodes),
            white=_player(headers, "White"),
            black=_player(headers, "Black"),
            result=_parse_result(headers.get("Result", "*"), source),
            termination=termination,
            date=date,
            event=_known(headers.get("Event", "?")),
            site=_known(headers.get("Site", "?")),
            clock=clock,
            clocks_ms=tuple(clocks) if any(c is not None for c in clocks) else (),
            tags=tags,
        )
    except (GameFileError, IllegalMoveError) as exc:
        raise GameFileError(_("{source} cannot be read: {reason}").format(source=source, reason=exc)) from exc


def _clock_ms(node: chess.pgn.ChildNode, source: str) -> int | None:
    """A move's ``[%clk h:mm:ss]`` in milliseconds (None without one); a reading no clock shows (past a
    year, or more digits than Python reads) is damage."""
    try:
        seconds = node.clock()
    except (ValueError, OverflowError) as exc:
        seconds, why = math.inf, str(exc)[:60]
    else:
        why = ""
    if seconds is None:
        return None
    if not 0 <= seconds <= MAX_CLOCK_S:
        number = node.ply() // 2 + node.ply() % 2
        if why:
            wrong = _(
                "{source} cannot be read: the clock comment at move {number} ([%clk …]) is not a time a "
                "clock "
                "shows (past a year) ({reason}); fix or remove that comment"
            )
        else:
            wrong = _(
                "{source} cannot be read: the clock comment at move {number} ([%clk …]) is not a time a "
                "clock "
                "shows (past a year); fix or remove that comment"
            )
        raise GameFileError(wrong.format(source=source, number=number, reason=why))
    return round(seconds * 1000)


def _known(value: str) -> str:
    return "" if value == "?" else value


def _player(headers: chess.pgn.Headers, side: str) -> Player:
    text = headers.get(f"{side}Kind", "unknown")
    kind = parse_player_kind(text)
    level = headers.get(f"{side}Level")
    if kind is None:
        raise GameFileError(
            # TRANSLATORS: {tag} is a PGN tag's name (WhiteKind, BlackKind)
            _("unknown {tag} {text!r}; use engine, keyboard, board or web").format(
                tag=f"{side}Kind", text=text
            )
        )
    return Player(_known(headers.get(side, "?")), kind, level)


def _parse_result(text: str, source: str) -> Result:
    for result in RESULTS:
        if text == result:
            return result
    raise GameFileError(
        _("{source} has the result {text!r}; use 1-0, 0-1, 1/2-1/2 or *").format(source=source, text=text)
    )


def _parse_termination(text: str | None) -> Termination | None:
    for termination in TERMINATIONS:
        if text is not None and text.lower() == termination:
            return termination
    return None


def _parse_date(text: str) -> dt.date | None:
    try:
        return dt.datetime.strptime(text, "%Y.%m.%d").date()
    except ValueError:
        return None


def write_pgn(records: GameRecord | Sequence[GameRecord], path: Path) -> None:
    """Write one game, or several one after another, as PGN."""
    games = [records] if isinstance(records, GameRecord) else list(records)
    try:
        path.write_text("\n".join(to_pgn(record) for record in games), encoding="utf-8")
    except OSError as exc:
        raise ChessatronError(
            _("cannot write {path!r}: {reason}").format(path=str(path), reason=exc.strerror or exc)
        ) from exc
