"""Game records: who played what from which start, and how it ended — in PGN and in the compact form of
tiny chess computers.

A :class:`GameRecord` is a value: its start position is kept as a canonical FEN (X-FEN for Chess960, as
python-chess writes it) so that records compare and hash exactly; :meth:`GameRecord.start_board` and
:meth:`GameRecord.board` hand out fresh boards.

>>> record = GameRecord(moves=(chess.Move.from_uci("e2e4"),), white=Player("Ann", "keyboard"))
>>> from_pgn(to_pgn(record)) == record
True
>>> decode_compact(encode_compact(record)).moves == record.moves
True

The compact form
----------------
Big-endian 16-bit words.

* Word 0, the start: ``0``–``959`` is that Chess960 start position with white to move, full castling
  rights and fresh counters; ``518`` is the standard start *played as standard chess*, every other number
  is played as Chess960. ``0xFFFF`` (standard rules) or ``0xFFFE`` (Chess960 rules) means "not a numbered
  start": one length byte and that many ASCII bytes of FEN follow (X-FEN or Shredder-FEN for Chess960). A
  Chess960 game from position 518 therefore uses ``0xFFFE`` and a FEN. ``960``–``0xFFFD`` are invalid.
* Then one word a move (bit 15 is the most significant)::

      bit  15      0 (the spare bit; 1 marks the end word below)
      bits 14..12  special: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen (promotions),
                   5 kingside castling (O-O), 6 queenside castling (O-O-O), 7 invalid
      bits 11..9   to rank   (0 = rank 1)
      bits  8..6   to file   (0 = file a)
      bits  5..3   from rank
      bits  2..0   from file

  so bits 0–5 and 6–11 are python-chess square numbers (a1 = 0, h8 = 63). Castling is written as the king's
  own journey in standard terms — from the king's square to the g- or c-file of its rank, with special 5
  or 6 — which reads the same without a board, whatever the rules; the decoder turns it into the board's
  own move (``e1g1`` in standard chess, king-onto-rook such as ``b1a1`` in Chess960) and checks it is
  legal. Encoders always use 5 and 6 for castling; decoders also accept a plain word that is a legal move in
  the board's own notation.
* Optionally, last, one end word with bit 15 set: bits 1..0 the result (0 ``*``, 1 ``1-0``, 2 ``0-1``,
  3 ``1/2-1/2``), bits 5..2 the termination (0 unknown, else 1 + its index in :data:`TERMINATIONS`),
  bits 14..6 zero. Readers that do not know it can stop at the first word with bit 15 set.

Players, dates, clocks and other headers are not part of the compact form.
"""

# One module on purpose (about 600 lines): the PGN and the compact form are two encodings of one value,
# kept beside it so that a field added to the record is added to both.

from __future__ import annotations

import datetime as dt
import logging
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

import chess
import chess.pgn

from ..errors import GameFileError, IllegalMoveError
from ..pgn import read_games

LOGGER = logging.getLogger(__name__)

Result = Literal["1-0", "0-1", "1/2-1/2", "*"]
#: Every result, in the order the compact end word numbers them after ``*``.
RESULTS: tuple[Result, ...] = ("*", "1-0", "0-1", "1/2-1/2")

Termination = Literal[
    "checkmate",
    "stalemate",
    "threefold repetition",
    "fivefold repetition",
    "fifty moves",
    "seventy-five moves",
    "insufficient material",
    "resignation",
    "agreed draw",
    "time forfeit",
    # an online game whose player left it; the other claimed the win (or the draw)
    "abandoned",
]
#: Every termination; the compact end word stores 1 + the index, so only ever append to this.
TERMINATIONS: tuple[Termination, ...] = get_args(Termination)

#: ``online``: the opponent of an online game, on the other end of a server (lichess).
PlayerKind = Literal["engine", "keyboard", "buttons", "board", "web", "script", "unknown", "online", "voice"]
PLAYER_KINDS: tuple[PlayerKind, ...] = get_args(PlayerKind)

Variant = Literal["standard", "chess960"]

#: The Chess960 number of the standard start position.
STANDARD_START_NUMBER = 518

_OUTCOME_TERMINATIONS: dict[chess.Termination, Termination] = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.SEVENTYFIVE_MOVES: "seventy-five moves",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
    chess.Termination.FIFTY_MOVES: "fifty moves",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
}


def termination_of(outcome: chess.Outcome) -> Termination:
    """Our name for how python-chess says a game ended (``board.outcome(claim_draw=True)``)."""
    try:
        return _OUTCOME_TERMINATIONS[outcome.termination]
    except KeyError:
        raise GameFileError(
            f"{outcome.termination!r} does not happen in standard chess or chess960"
        ) from None


def _check_header_text(text: str) -> None:
    """PGN headers are one line each: no control characters, no line or paragraph separators."""
    for char in text:
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp"):
            raise GameFileError(f"{text!r} holds the control character {char!r}; PGN headers are one line")


@dataclass(frozen=True)
class Player:
    """One side's player: a display name, how it moves, and for an engine its level.

    The level is kept as the text after ``engine:`` (``"8"``, ``"elo1500:depth=12"``), so that
    :attr:`spec` is what :func:`chessatron.game.engine.parse_level` reads.

    >>> Player.from_spec("engine:8", name="Stockfish")
    Player(name='Stockfish', kind='engine', level='8')
    """

    name: str = ""
    kind: PlayerKind = "unknown"
    #: The engine's level as typed after ``engine:``; only engines have one.
    level: str | None = None

    def __post_init__(self) -> None:
        _check_header_text(self.name)
        if self.name == "?":  # how PGN says "unknown"; so do we, with ""
            object.__setattr__(self, "name", "")
        if self.kind not in PLAYER_KINDS:
            raise GameFileError(f"unknown player kind {self.kind!r}; use one of {', '.join(PLAYER_KINDS)}")
        if self.level is not None and (
            self.kind != "engine" or not re.fullmatch(r"[^\s:][^\s]*", self.level)
        ):
            raise GameFileError(
                f"a level of {self.level!r} for a {self.kind!r} player; only engines have a level, one word"
            )

    @property
    def spec(self) -> str:
        """``engine:8``, ``engine``, ``keyboard``, ``board``, ``web`` or ``unknown``."""
        return self.kind if self.level is None else f"{self.kind}:{self.level}"

    @classmethod
    def from_spec(cls, spec: str, name: str = "") -> Player:
        """Read :attr:`spec` back: ``"engine:8"`` is an engine at level 8."""
        text, colon, level = spec.partition(":")
        kind = parse_player_kind(text)
        if kind is None or (colon and kind != "engine"):
            raise GameFileError(f"bad player {spec!r}; write engine, engine:LEVEL, keyboard, board or web")
        return cls(name, kind, level if colon else None)


def parse_player_kind(text: str) -> PlayerKind | None:
    """``text`` as a :data:`PlayerKind`, or ``None`` when it is not one."""
    for kind in PLAYER_KINDS:
        if text == kind:
            return kind
    return None


@dataclass(frozen=True)
class ClockSettings:
    """A time control: ``initial_s`` seconds for the game plus ``increment_s`` seconds a move (PGN
    ``TimeControl "300+2"``)."""

    initial_s: int
    increment_s: int = 0

    def __post_init__(self) -> None:
        if self.initial_s <= 0 or self.increment_s < 0:
            raise GameFileError(f"a clock of {self.initial_s!r}+{self.increment_s!r} s; use a positive time")

    def time_control(self) -> str:
        """The PGN ``TimeControl`` value."""
        return f"{self.initial_s}+{self.increment_s}" if self.increment_s else str(self.initial_s)

    @classmethod
    def parse_time_control(cls, text: str) -> ClockSettings | None:
        """``"300+2"`` or ``"300"``; ``None`` for forms we do not model (``"40/7200"``, ``"-"``, ``"?"``,
        times past a year: the numbers of a damaged file, kept as the tag's text)."""
        match = re.fullmatch(r"(\d{1,8})(?:\+(\d{1,8}))?", text)
        if match is None or int(match[1]) == 0:
            return None
        return cls(int(match[1]), int(match[2] or 0))


def numbered_start(number: int) -> chess.Board:
    """The start position a compact record's number stands for: 518 is standard chess, others Chess960."""
    if not 0 <= number <= 959:
        raise GameFileError(f"start number {number!r} is not a chess960 position; use 0 to 959")
    return chess.Board() if number == STANDARD_START_NUMBER else chess.Board.from_chess960_pos(number)


def _canonical_board(fen: str, chess960: bool) -> chess.Board:
    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError as exc:
        raise GameFileError(f"bad start position {fen!r} ({exc}); give a full FEN") from exc
    if board.status() != chess.STATUS_VALID:
        raise GameFileError(f"start position {fen!r} cannot arise in chess ({board.status()!r})")
    return board


@dataclass(frozen=True)
class GameRecord:
    """A whole game: start, moves, players, result and the PGN headers we do not model.

    Raises :class:`GameFileError` for a bad start, result or clock list and :class:`IllegalMoveError` for
    a move that is not legal where it is played. Castling is stored in the board's own notation (``e1g1``
    in standard chess, king-onto-rook in Chess960); either notation is accepted.
    """

    #: The start position, canonical FEN (python-chess's X-FEN for Chess960).
    start_fen: str = chess.STARTING_FEN
    chess960: bool = False
    moves: tuple[chess.Move, ...] = ()
    white: Player = Player()
    black: Player = Player()
    result: Result = "*"
    termination: Termination | None = None
    date: dt.date | None = None
    event: str = ""
    site: str = ""
    clock: ClockSettings | None = None
    #: Empty, or for every move the mover's remaining time in milliseconds after it (PGN ``[%clk]``).
    clocks_ms: tuple[int | None, ...] = ()
    #: Other PGN headers, as read (``Round``, ``ECO``, ``WhiteElo``...).
    tags: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        board = _canonical_board(self.start_fen, self.chess960)
        object.__setattr__(self, "start_fen", board.fen())
        object.__setattr__(self, "moves", tuple(self.moves))
        object.__setattr__(self, "clocks_ms", tuple(self.clocks_ms))
        # A Date, Termination or TimeControl we cannot model stays a tag, as read.
        raw = {"Date": self.date, "Termination": self.termination, "TimeControl": self.clock}
        fields = (_OWN_TAGS | _SETUP_TAGS) - {name for name, value in raw.items() if value is None}
        object.__setattr__(self, "tags", _canonical_tags(self.tags, fields))
        for text in (self.event, self.site, *(v for _, v in self.tags)):
            _check_header_text(text)
        # "?" is how PGN says "unknown"; so do we, with "".
        object.__setattr__(self, "event", "" if self.event == "?" else self.event)
        object.__setattr__(self, "site", "" if self.site == "?" else self.site)
        if all(ms is None for ms in self.clocks_ms):
            object.__setattr__(self, "clocks_ms", ())
        if self.result not in RESULTS:
            raise GameFileError(f"unknown result {self.result!r}; use one of {', '.join(RESULTS)}")
        if self.termination is not None and self.termination not in TERMINATIONS:
            raise GameFileError(f"unknown termination {self.termination!r}; use one of {TERMINATIONS}")
        if self.termination is not None and self.result == "*":
            raise GameFileError(f"a game that ended by {self.termination!r} needs a result, not '*'")
        if self.clocks_ms and len(self.clocks_ms) != len(self.moves):
            raise GameFileError(
                f"{len(self.clocks_ms)!r} clock readings for {len(self.moves)!r} moves; give one each or none"
            )
        if any(ms is not None and ms < 0 for ms in self.clocks_ms):
            raise GameFileError(
                f"negative clock readings in {self.clocks_ms!r}; give milliseconds left, 0 or more"
            )
        canonical = []
        for ply, move in enumerate(self.moves, start=1):
            try:
                move = board.parse_uci(move.uci()) if move else move
            except ValueError:
                move = chess.Move.null()
            if not move:
                raise IllegalMoveError(
                    f"move {self.moves[ply - 1].uci()!r} at ply {ply} is illegal in {board.fen()!r}"
                )
            canonical.append(move)
            board.push(move)
        object.__setattr__(self, "moves", tuple(canonical))

    @classmethod
    def from_board(cls, board: chess.Board, **fields: Any) -> GameRecord:
        """The game played on ``board``: its root position and its move stack, plus any other fields."""
        root = board.root()
        return cls(start_fen=root.fen(), chess960=board.chess960, moves=tuple(board.move_stack), **fields)

    def start_board(self) -> chess.Board:
        """A fresh board at the start position."""
        return chess.Board(self.start_fen, chess960=self.chess960)

    def board(self) -> chess.Board:
        """A fresh board after every move, with the moves on its stack."""
        board = self.start_board()
        for move in self.moves:
            board.push(move)
        return board

    @property
    def variant(self) -> Variant:
        return "chess960" if self.chess960 else "standard"

    @property
    def start_number(self) -> int | None:
        """The Chess960 number of the start position (518 for the standard one), if it is one of the 960
        exactly as set up: white to move, full castling rights, fresh counters."""
        return self.start_board().chess960_pos(ignore_counters=False)

    @property
    def plies(self) -> int:
        return len(self.moves)


# --- PGN -------------------------------------------------------------------------------------------

_UNKNOWN_DATE = "????.??.??"
_ROSTER_DEFAULTS = {
    "Event": "?",
    "Site": "?",
    "Date": _UNKNOWN_DATE,
    "Round": "?",
    "White": "?",
    "Black": "?",
}
_OWN_TAGS = frozenset({"White", "Black", "Result", "Termination", "Date", "Event", "Site", "TimeControl"}) | {
    f"{side}{what}" for side in ("White", "Black") for what in ("Kind", "Level")
}
_SETUP_TAGS = frozenset({"Variant", "SetUp", "FEN"})


def _canonical_tags(tags: tuple[tuple[str, str], ...], fields: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """Roster tags (``Round``) first, as python-chess writes them, so that records compare after a round
    trip; headers that are ``fields`` of the record cannot be tags too."""
    names = [name for name, _ in tags]
    for name in names:
        if (
            not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*", name)
            or name in fields
            or names.count(name) > 1
        ):
            raise GameFileError(f"bad PGN tag {name!r}; use letters and digits, once, and not one of ours")
    roster = list(_ROSTER_DEFAULTS)
    return tuple(
        sorted(
            ((str(k), str(v)) for k, v in tags), key=lambda t: roster.index(t[0]) if t[0] in roster else 99
        )
    )


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
    headers["Date"] = f"{date.year:04d}.{date.month:02d}.{date.day:02d}" if date else _UNKNOWN_DATE
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
    text: str, source: str = "the PGN", *, on_game: Callable[[int, int], None] | None = None
) -> list[GameRecord]:
    """Every game in ``text`` (mainlines only; comments other than ``[%clk]``, NAGs and variations are
    dropped). Raises :class:`GameFileError` naming the game and the wrong move for anything python-chess
    could not read. ``on_game(characters, games)`` is told after each game how many characters of
    ``text`` are read and how many games found (for progress)."""
    records: list[GameRecord] = []
    count = 0

    def read(characters: int) -> None:
        nonlocal count
        count += 1
        if on_game is not None:
            on_game(characters, count)

    for game, problem in read_games(text, on_game=read):
        where = f"game {len(records) + 1} of {source}"
        if problem is not None:
            raise GameFileError(f"{where} cannot be read: {problem}; fix or remove that game")
        records.append(_record_from_game(game, where))
    return records


def from_pgn(text: str, source: str = "the PGN") -> GameRecord:
    """The one game in ``text``; :class:`GameFileError` when there is none or more than one."""
    records = read_pgn_games(text, source)
    if len(records) != 1:
        raise GameFileError(f"{source} holds {len(records)!r} games, not one; use read_pgn_games() for many")
    return records[0]


#: The longest a clock may show (seconds): past a year a ``[%clk]`` reading is damage.
MAX_CLOCK_S = 366 * 24 * 3600


def _record_from_game(game: chess.pgn.Game, source: str) -> GameRecord:
    try:
        board = game.board()
    except ValueError as exc:
        raise GameFileError(f"{source} has a bad start position: {exc}") from exc
    if type(board) is not chess.Board:
        raise GameFileError(f"{source} is {game.headers.get('Variant')!r}; only standard and chess960 play")
    headers = game.headers
    consumed = set(_OWN_TAGS - {"Termination", "Date", "TimeControl"}) | _SETUP_TAGS
    termination = _parse_termination(headers.get("Termination"))
    date = _parse_date(headers.get("Date", _UNKNOWN_DATE))
    clock = ClockSettings.parse_time_control(headers.get("TimeControl", ""))
    if termination is not None or "Termination" not in headers:
        consumed.add("Termination")
    if date is not None or headers.get("Date", _UNKNOWN_DATE) == _UNKNOWN_DATE:
        consumed.add("Date")
    if clock is not None:
        consumed.add("TimeControl")
    tags = tuple(
        (name, value)
        for name, value in headers.items()
        if name not in consumed and _ROSTER_DEFAULTS.get(name) != value
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
        raise GameFileError(f"{source} cannot be read: {exc}") from exc


def _clock_ms(node: chess.pgn.ChildNode, source: str) -> int | None:
    """A move's ``[%clk h:mm:ss]`` in milliseconds (None without one); a reading no clock shows (past a
    year, or more digits than Python reads) is damage."""
    try:
        seconds = node.clock()
    except (ValueError, OverflowError) as exc:
        seconds, why = math.inf, f" ({str(exc)[:60]})"
    else:
        why = ""
    if seconds is None:
        return None
    if not 0 <= seconds <= MAX_CLOCK_S:
        number = node.ply() // 2 + node.ply() % 2
        raise GameFileError(
            f"{source} cannot be read: the clock comment at move {number} ([%clk …]) is not a time a clock "
            f"shows (past a year){why}; fix or remove that comment"
        )
    return round(seconds * 1000)


def _known(value: str) -> str:
    return "" if value == "?" else value


def _player(headers: chess.pgn.Headers, side: str) -> Player:
    text = headers.get(f"{side}Kind", "unknown")
    kind = parse_player_kind(text)
    level = headers.get(f"{side}Level")
    if kind is None:
        raise GameFileError(f"unknown {side}Kind {text!r}; use engine, keyboard, board or web")
    return Player(_known(headers.get(side, "?")), kind, level)


def _parse_result(text: str, source: str) -> Result:
    for result in RESULTS:
        if text == result:
            return result
    raise GameFileError(f"{source} has the result {text!r}; use 1-0, 0-1, 1/2-1/2 or *")


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


# --- the compact form ------------------------------------------------------------------------------

_FEN_STANDARD = 0xFFFF
_FEN_CHESS960 = 0xFFFE
_END = 0x8000
_KINGSIDE, _QUEENSIDE, _RESERVED = 5, 6, 7


def encode_compact(record: GameRecord) -> bytes:
    """The compact form (see the module docstring): players, dates, clocks and tags are dropped."""
    out = bytearray()
    number = record.start_number
    if number is not None and (number != STANDARD_START_NUMBER) == record.chess960:
        out += number.to_bytes(2, "big")
    else:
        fen = record.start_fen.encode("ascii")
        out += (_FEN_CHESS960 if record.chess960 else _FEN_STANDARD).to_bytes(2, "big")
        out += bytes([len(fen)]) + fen
    board = record.start_board()
    for move in record.moves:
        out += _encode_move(board, move).to_bytes(2, "big")
        board.push(move)
    if record.result != "*" or record.termination is not None:
        ended = 0 if record.termination is None else 1 + TERMINATIONS.index(record.termination)
        out += (_END | ended << 2 | RESULTS.index(record.result)).to_bytes(2, "big")
    return bytes(out)


def _encode_move(board: chess.Board, move: chess.Move) -> int:
    if board.is_castling(move):
        kingside = board.is_kingside_castling(move)
        king_to = chess.square(6 if kingside else 2, chess.square_rank(move.from_square))
        return move.from_square | king_to << 6 | (_KINGSIDE if kingside else _QUEENSIDE) << 12
    special = 0 if move.promotion is None else move.promotion - 1
    return move.from_square | move.to_square << 6 | special << 12


def decode_compact(data: bytes) -> GameRecord:
    """A record from its compact form, players unknown. Raises :class:`GameFileError` naming the byte
    offset of truncated or invalid data: a bad start number, an illegal or malformed move, bytes after
    the end word."""
    if len(data) < 2:
        raise GameFileError(
            f"compact record truncated at byte {len(data)}: {bytes(data)!r} lacks a start word"
        )
    start = int.from_bytes(data[0:2], "big")
    offset = 2
    if start in (_FEN_STANDARD, _FEN_CHESS960):
        if len(data) < 3 or len(data) < 3 + data[2]:
            raise GameFileError(f"compact record truncated at byte {len(data)}: the start FEN is cut short")
        try:
            fen = data[3 : 3 + data[2]].decode("ascii")
            board = _canonical_board(fen, start == _FEN_CHESS960)
        except (UnicodeDecodeError, GameFileError) as exc:
            raise GameFileError(f"compact record has a bad start FEN at byte 3: {exc}") from exc
        offset = 3 + data[2]
    elif start <= 959:
        board = numbered_start(start)
    else:
        raise GameFileError(f"compact record starts with {start:#06x} at byte 0; use 0–959, 0xfffe or 0xffff")
    start_fen, chess960 = board.fen(), board.chess960
    result: Result = "*"
    termination: Termination | None = None
    while offset < len(data):
        if offset + 2 > len(data):
            raise GameFileError(
                f"compact record truncated at byte {offset}: half a move word {data[offset:]!r}"
            )
        word = int.from_bytes(data[offset : offset + 2], "big")
        if word & _END:
            result, termination = _decode_end(word, offset)
            if offset + 2 != len(data):
                raise GameFileError(f"compact record has {len(data) - offset - 2} bytes after its end word")
            break
        board.push(_decode_move(board, word, offset))
        offset += 2
    return GameRecord(
        start_fen=start_fen,
        chess960=chess960,
        moves=tuple(board.move_stack),
        result=result,
        termination=termination,
    )


def _decode_end(word: int, offset: int) -> tuple[Result, Termination | None]:
    ended = word >> 2 & 0xF
    if word & 0x7FC0 or ended > len(TERMINATIONS) or (word & 3 == 0 and ended):
        raise GameFileError(f"compact record has a bad end word {word:#06x} at byte {offset}")
    return RESULTS[word & 3], None if ended == 0 else TERMINATIONS[ended - 1]


def _decode_move(board: chess.Board, word: int, offset: int) -> chess.Move:
    from_square, to_square, special = word & 0x3F, word >> 6 & 0x3F, word >> 12 & 7
    where = f"ply {board.ply() + 1} at byte {offset} ({word:#06x})"
    if special in (_KINGSIDE, _QUEENSIDE):
        kingside = special == _KINGSIDE
        king_to = chess.square(6 if kingside else 2, chess.square_rank(from_square))
        for move in board.generate_castling_moves():
            same_side = board.is_kingside_castling(move) == kingside
            if same_side and move.from_square == from_square and to_square == king_to:
                return move
        side = "kingside" if kingside else "queenside"
        raise GameFileError(
            f"compact record: {side} castling {chess.square_name(from_square)}{chess.square_name(to_square)}"
            f" is not legal in {board.fen()!r}, {where}"
        )
    if special == _RESERVED:
        raise GameFileError(f"compact record: special code 7 is reserved, {where}")
    move = chess.Move(from_square, to_square, None if special == 0 else special + 1)
    try:
        legal = board.parse_uci(move.uci()) if from_square != to_square else chess.Move.null()
    except ValueError:
        legal = chess.Move.null()
    if not legal:
        raise GameFileError(f"compact record: {move.uci()!r} is not legal in {board.fen()!r}, {where}")
    return legal
