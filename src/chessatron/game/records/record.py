"""Game records: who played what from which start, and how it ended, as a value.

A :class:`GameRecord` is a value: its start position is kept as a canonical FEN (X-FEN for Chess960, as
python-chess writes it) so that records compare and hash exactly; :meth:`GameRecord.start_board` and
:meth:`GameRecord.board` hand out fresh boards. It is written and read as PGN (:mod:`.pgn`) and in the
compact form of tiny chess computers (:mod:`.compact`); the PGN headers it models itself, and those it keeps
as they were read (:attr:`GameRecord.tags`), are said here, so that a field added to the record is added to
both forms.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal, get_args

import chess
import chess.pgn

from ...errors import GameFileError, IllegalMoveError
from ...i18n import N_, _

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
#: How each termination reads to a person (translate with ``_()`` where shown: :func:`termination_name`).
TERMINATION_NAMES: dict[Termination, str] = {
    "checkmate": N_("checkmate"),
    "stalemate": N_("stalemate"),
    "threefold repetition": N_("threefold repetition"),
    "fivefold repetition": N_("fivefold repetition"),
    "fifty moves": N_("fifty moves"),
    "seventy-five moves": N_("seventy-five moves"),
    "insufficient material": N_("insufficient material"),
    "resignation": N_("resignation"),
    "agreed draw": N_("agreed draw"),
    "time forfeit": N_("time forfeit"),
    "abandoned": N_("abandoned"),
}

#: ``online``: the opponent of an online game, on the other end of a server (lichess).
PlayerKind = Literal[
    "engine", "keyboard", "buttons", "board", "web", "script", "unknown", "online", "voice", "app"
]
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


def termination_name(termination: str | None) -> str:
    """How a termination (one of :data:`TERMINATIONS`, as a journal or a PGN has it) reads in the current
    language; "game over" for none, an unknown one as it is written.

    >>> termination_name("time forfeit"), termination_name(None)
    ('time forfeit', 'game over')
    """
    if termination is None:
        return _("game over")
    name = TERMINATION_NAMES.get(termination)  # type: ignore[call-overload]
    return _(name) if name is not None else termination


def termination_of(outcome: chess.Outcome) -> Termination:
    """Our name for how python-chess says a game ended (``board.outcome(claim_draw=True)``)."""
    try:
        return _OUTCOME_TERMINATIONS[outcome.termination]
    except KeyError:
        raise GameFileError(
            _("{termination!r} does not happen in standard chess or chess960").format(
                termination=outcome.termination
            )
        ) from None


def _check_header_text(text: str) -> None:
    """PGN headers are one line each: no control characters, no line or paragraph separators."""
    for char in text:
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp"):
            raise GameFileError(
                _("{text!r} holds the control character {char!r}; PGN headers are one line").format(
                    text=text, char=char
                )
            )


@dataclass(frozen=True)
class Player:
    """One side's player: a display name, how it moves, and for an engine its level.

    The level is kept as the text after ``engine:`` (``"8"``, ``"elo1500:depth=12"``), so that
    :attr:`spec` is what :func:`chessatron.game.engine.settings.parse_level` reads.

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
            raise GameFileError(
                _("unknown player kind {kind!r}; use one of {kinds}").format(
                    kind=self.kind, kinds=", ".join(PLAYER_KINDS)
                )
            )
        if self.level is not None and (
            self.kind != "engine" or not re.fullmatch(r"[^\s:][^\s]*", self.level)
        ):
            raise GameFileError(
                _("a level of {level!r} for a {kind!r} player; only engines have a level, one word").format(
                    level=self.level, kind=self.kind
                )
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
            raise GameFileError(
                _("bad player {spec!r}; write engine, engine:LEVEL, keyboard, board or web").format(spec=spec)
            )
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
            raise GameFileError(
                _("a clock of {initial!r}+{increment!r} s; use a positive time").format(
                    initial=self.initial_s, increment=self.increment_s
                )
            )

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
        raise GameFileError(
            _("start number {number!r} is not a chess960 position; use 0 to 959").format(number=number)
        )
    return chess.Board() if number == STANDARD_START_NUMBER else chess.Board.from_chess960_pos(number)


def canonical_board(fen: str, chess960: bool) -> chess.Board:
    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError as exc:
        raise GameFileError(
            _("bad start position {fen!r} ({reason}); give a full FEN").format(fen=fen, reason=exc)
        ) from exc
    if board.status() != chess.STATUS_VALID:
        raise GameFileError(
            _("start position {fen!r} cannot arise in chess ({status!r})").format(
                fen=fen, status=board.status()
            )
        )
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
        board = canonical_board(self.start_fen, self.chess960)
        object.__setattr__(self, "start_fen", board.fen())
        object.__setattr__(self, "moves", tuple(self.moves))
        object.__setattr__(self, "clocks_ms", tuple(self.clocks_ms))
        # A Date, Termination or TimeControl we cannot model stays a tag, as read.
        raw = {"Date": self.date, "Termination": self.termination, "TimeControl": self.clock}
        fields = (OWN_TAGS | SETUP_TAGS) - {name for name, value in raw.items() if value is None}
        object.__setattr__(self, "tags", _canonical_tags(self.tags, fields))
        for text in (self.event, self.site, *(v for _tag, v in self.tags)):
            _check_header_text(text)
        # "?" is how PGN says "unknown"; so do we, with "".
        object.__setattr__(self, "event", "" if self.event == "?" else self.event)
        object.__setattr__(self, "site", "" if self.site == "?" else self.site)
        if all(ms is None for ms in self.clocks_ms):
            object.__setattr__(self, "clocks_ms", ())
        if self.result not in RESULTS:
            raise GameFileError(
                _("unknown result {result!r}; use one of {results}").format(
                    result=self.result, results=", ".join(RESULTS)
                )
            )
        if self.termination is not None and self.termination not in TERMINATIONS:
            raise GameFileError(
                _("unknown termination {termination!r}; use one of {terminations}").format(
                    termination=self.termination, terminations=TERMINATIONS
                )
            )
        if self.termination is not None and self.result == "*":
            raise GameFileError(
                _("a game that ended by {termination!r} needs a result, not '*'").format(
                    termination=self.termination
                )
            )
        if self.clocks_ms and len(self.clocks_ms) != len(self.moves):
            raise GameFileError(
                _("{readings!r} clock readings for {moves!r} moves; give one each or none").format(
                    readings=len(self.clocks_ms), moves=len(self.moves)
                )
            )
        if any(ms is not None and ms < 0 for ms in self.clocks_ms):
            raise GameFileError(
                _("negative clock readings in {readings!r}; give milliseconds left, 0 or more").format(
                    readings=self.clocks_ms
                )
            )
        canonical = []
        for ply, move in enumerate(self.moves, start=1):
            try:
                move = board.parse_uci(move.uci()) if move else move
            except ValueError:
                move = chess.Move.null()
            if not move:
                raise IllegalMoveError(
                    _("move {uci!r} at ply {ply} is illegal in {fen!r}").format(
                        uci=self.moves[ply - 1].uci(), ply=ply, fen=board.fen()
                    )
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


# --- the PGN headers a record models -------------------------------------------------------------

UNKNOWN_DATE = "????.??.??"
ROSTER_DEFAULTS = {
    "Event": "?",
    "Site": "?",
    "Date": UNKNOWN_DATE,
    "Round": "?",
    "White": "?",
    "Black": "?",
}
OWN_TAGS = frozenset({"White", "Black", "Result", "Termination", "Date", "Event", "Site", "TimeControl"}) | {
    f"{side}{what}" for side in ("White", "Black") for what in ("Kind", "Level")
}
SETUP_TAGS = frozenset({"Variant", "SetUp", "FEN"})


def _canonical_tags(tags: tuple[tuple[str, str], ...], fields: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """Roster tags (``Round``) first, as python-chess writes them, so that records compare after a round
    trip; headers that are ``fields`` of the record cannot be tags too."""
    names = [name for name, _value in tags]
    for name in names:
        if (
            not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*", name)
            or name in fields
            or names.count(name) > 1
        ):
            raise GameFileError(
                _("bad PGN tag {name!r}; use letters and digits, once, and not one of ours").format(name=name)
            )
    roster = list(ROSTER_DEFAULTS)
    return tuple(
        sorted(
            ((str(k), str(v)) for k, v in tags), key=lambda t: roster.index(t[0]) if t[0] in roster else 99
        )
    )
