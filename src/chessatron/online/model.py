"""An online game as the lichess API's streams tell it: values and pure functions over its JSON.

The game stream (``/api/board/game/stream/{id}``) opens with a ``gameFull`` line (who plays, the variant,
the start position, the clock, and the ``state``) and then sends a ``gameState`` line for every change:
the whole move list in UCI, both clocks, the status, draw and takeback offers. Because every state holds
the whole move list, a stream that drops and opens again catches up by itself: its first line is the game
as it is now. The event stream (``/api/stream/event``) tells of games starting and ending and of
challenges.

>>> info, state = parse_game_full({"type": "gameFull", "id": "abcd1234", "variant": {"key": "standard"},
...     "white": {"id": "ann", "name": "Ann", "rating": 1500}, "black": {"id": None, "aiLevel": 3},
...     "initialFen": "startpos", "clock": {"initial": 600000, "increment": 5000},
...     "state": {"type": "gameState", "moves": "e2e4 e7e5", "wtime": 590000, "btime": 600000,
...               "status": "started", "bdraw": True}})
>>> info.colour_of("ann"), info.black.label, state.moves, state.draw_offer
(True, 'lichess AI level 3', ('e2e4', 'e7e5'), False)
>>> board_after(info, state.moves).fen()
'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import chess

from ..errors import ConfigError, OnlineGameError, ProtocolError
from ..game.records.record import ClockSettings, Result, Termination
from ..i18n import _

#: The statuses of a game still being played (GameStatusName in the API's specification).
PLAYING = ("created", "started")
#: The variants the table plays.
Variant = Literal["standard", "chess960", "fromPosition"]
VARIANTS: tuple[Variant, ...] = ("standard", "chess960", "fromPosition")
#: The least estimated game length (initial + 40 x increment, seconds) of a rapid game: the Board API seeks
#: rapid and classical games only.
RAPID_ESTIMATE_S = 480


@dataclass(frozen=True)
class Account:
    """The account an API token belongs to."""

    id: str
    name: str
    #: A BOT account (its games go through the Bot API, and an engine may play them).
    is_bot: bool = False

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Account:
        """From ``GET /api/account``."""
        name = str(data.get("username") or data.get("id") or "")
        if not name:
            raise ProtocolError(
                _("the server's account answer has no user name: {answer!r}").format(answer=dict(data))
            )
        return cls(str(data.get("id") or name.lower()), name, data.get("title") == "BOT")


@dataclass(frozen=True)
class Seat:
    """One side of an online game: a user (``id``), or the lichess AI (``ai_level``, no id)."""

    id: str | None
    name: str
    rating: int | None = None
    ai_level: int | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Seat:
        data = data or {}
        level = data.get("aiLevel", data.get("ai"))
        user = data.get("id")
        name = str(data.get("name") or data.get("username") or user or "")
        if isinstance(level, int):
            return cls(None, name or f"lichess AI level {level}", None, level)
        rating = data.get("rating")
        return cls(str(user) if user else None, name or "?", rating if isinstance(rating, int) else None)

    @property
    def label(self) -> str:
        """How the player shows: ``Ann (1500)``, ``lichess AI level 3``."""
        if self.ai_level is not None:
            return f"lichess AI level {self.ai_level}"
        return f"{self.name} ({self.rating})" if self.rating is not None else self.name


@dataclass(frozen=True)
class ServerState:
    """The game as the server last told it (a ``gameState``)."""

    moves: tuple[str, ...] = ()
    status: str = "started"
    #: Time left on the clocks, milliseconds (None: no clock).
    white_ms: int | None = None
    black_ms: int | None = None
    winner: chess.Color | None = None
    #: The side whose draw offer, or takeback proposal, stands.
    draw_offer: chess.Color | None = None
    takeback_offer: chess.Color | None = None
    #: Milliseconds left to make the first move before the server aborts the game, when it says.
    first_move_ms: int | None = None

    @property
    def is_over(self) -> bool:
        return self.status not in PLAYING


@dataclass(frozen=True)
class GameInfo:
    """What does not change in an online game (a ``gameFull`` without its state)."""

    id: str
    variant: str
    white: Seat
    black: Seat
    #: The start position's FEN, None for the standard start.
    initial_fen: str | None = None
    clock: ClockSettings | None = None
    speed: str = ""
    rated: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    def colour_of(self, account_id: str) -> chess.Color | None:
        """The colour ``account_id`` plays, None when it plays neither."""
        if self.white.id is not None and self.white.id.lower() == account_id.lower():
            return chess.WHITE
        if self.black.id is not None and self.black.id.lower() == account_id.lower():
            return chess.BLACK
        return None

    def seat(self, colour: chess.Color) -> Seat:
        return self.white if colour == chess.WHITE else self.black

    def start_board(self) -> chess.Board:
        """The start position, with Chess960 rules for a Chess960 game. Raises
        :class:`OnlineGameError` for a variant the table does not play."""
        if self.variant not in VARIANTS:
            raise OnlineGameError(
                _(
                    "game {id!r} is {variant!r}; the table plays standard chess, Chess960 and games from a "
                    "position only"
                ).format(id=self.id, variant=self.variant)
            )
        try:
            board = chess.Board(self.initial_fen or chess.STARTING_FEN, chess960=self.variant == "chess960")
        except ValueError as exc:
            raise ProtocolError(
                _("game {id!r} starts from {fen!r}: {reason}").format(
                    id=self.id, fen=self.initial_fen, reason=exc
                )
            ) from exc
        if self.variant == "fromPosition":
            board.chess960 = board.has_chess960_castling_rights()
        return board


def _millis(value: object) -> int | None:
    """A clock reading in milliseconds (berserk turns the top-level ones into timedeltas)."""
    if isinstance(value, dt.timedelta):
        return round(value.total_seconds() * 1000)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


def _side(white: object, black: object) -> chess.Color | None:
    return chess.WHITE if white is True else chess.BLACK if black is True else None


def parse_game_state(data: Mapping[str, Any]) -> ServerState:
    """A ``gameState`` line (or a ``gameFull``'s ``state``)."""
    moves = data.get("moves", "")
    if not isinstance(moves, str):
        raise ProtocolError(
            _("the server sent moves {moves!r}; expected UCI moves separated by spaces").format(moves=moves)
        )
    winner = data.get("winner")
    expiration = data.get("expiration")
    first_move_ms = None
    if isinstance(expiration, Mapping):
        to_move, idle = _millis(expiration.get("millisToMove")), _millis(expiration.get("idleMillis"))
        if to_move is not None:
            first_move_ms = max(0, to_move - (idle or 0))
    return ServerState(
        moves=tuple(moves.split()),
        status=str(data.get("status") or "started"),
        white_ms=_millis(data.get("wtime")),
        black_ms=_millis(data.get("btime")),
        winner=chess.WHITE if winner == "white" else chess.BLACK if winner == "black" else None,
        draw_offer=_side(data.get("wdraw"), data.get("bdraw")),
        takeback_offer=_side(data.get("wtakeback"), data.get("btakeback")),
        first_move_ms=first_move_ms,
    )


def parse_game_full(data: Mapping[str, Any]) -> tuple[GameInfo, ServerState]:
    """A ``gameFull`` line: the game and its state."""
    if data.get("type") != "gameFull" or not isinstance(data.get("id"), str):
        raise ProtocolError(
            _("a game stream must open with its gameFull line, not {line}").format(
                line=f"{dict(data)!r:.200}"
            )
        )
    variant = data.get("variant") or {}
    clock = data.get("clock")
    settings = None
    if isinstance(clock, Mapping):
        initial, increment = _millis(clock.get("initial")), _millis(clock.get("increment"))
        if initial:
            settings = ClockSettings(max(1, round(initial / 1000)), round((increment or 0) / 1000))
    fen = data.get("initialFen")
    info = GameInfo(
        id=data["id"],
        variant=str(variant.get("key", "standard") if isinstance(variant, Mapping) else variant),
        white=Seat.from_json(data.get("white")),
        black=Seat.from_json(data.get("black")),
        initial_fen=None if fen in (None, "", "startpos") else str(fen),
        clock=settings,
        speed=str(data.get("speed") or ""),
        rated=bool(data.get("rated")),
    )
    state = data.get("state")
    return info, parse_game_state(state if isinstance(state, Mapping) else {})


def board_after(info: GameInfo, moves: Sequence[str]) -> chess.Board:
    """The start position with ``moves`` (the server's UCI, castling either way) played on it.

    Raises :class:`ProtocolError` for a move that is not legal there."""
    board = info.start_board()
    for uci in moves:
        try:
            board.push(board.parse_uci(uci))
        except ValueError as exc:
            raise ProtocolError(
                _("the server's move {move!r} is not legal in {fen!r} (game {id!r})").format(
                    move=uci, fen=board.fen(), id=info.id
                )
            ) from exc
    return board


def common_plies(ours: Sequence[chess.Move], theirs: Sequence[chess.Move]) -> int:
    """How many first moves two move lists share.

    >>> e4, e5, c5 = (chess.Move.from_uci(m) for m in ("e2e4", "e7e5", "c7c5"))
    >>> common_plies([e4, e5], [e4, c5]), common_plies([e4], [e4, e5])
    (1, 1)
    """
    count = 0
    for a, b in zip(ours, theirs, strict=False):
        if a != b:
            break
        count += 1
    return count


def outcome_of(state: ServerState, board: chess.Board) -> tuple[Result, Termination | None] | None:
    """How a finished game ended, in the journal's terms; None while it goes on, or when it ended without a
    result (aborted, never started). ``board`` is the final position, to tell which draw it was: one no rule
    explains was agreed.

    >>> outcome_of(ServerState(status="resign", winner=chess.BLACK), chess.Board())
    ('0-1', 'resignation')
    >>> outcome_of(ServerState(status="draw"), chess.Board())
    ('1/2-1/2', 'agreed draw')
    >>> outcome_of(ServerState(status="aborted"), chess.Board()) is None
    True
    """
    if not state.is_over or state.status == "aborted":
        return None
    if state.winner is None:
        if state.status in ("noStart", "unknownFinish", "cheat"):
            return None
        return "1/2-1/2", _draw_termination(state, board)
    result: Result = "1-0" if state.winner == chess.WHITE else "0-1"
    termination: dict[str, Termination] = {
        "mate": "checkmate",
        "resign": "resignation",
        "outoftime": "time forfeit",
        "timeout": "abandoned",
    }
    return result, termination.get(state.status)


def _draw_termination(state: ServerState, board: chess.Board) -> Termination:
    if state.status == "stalemate" or board.is_stalemate():
        return "stalemate"
    if state.status == "outoftime":
        return "time forfeit"  # a flag fell, but the other side could not have mated
    if state.status == "timeout":
        return "abandoned"
    if board.is_insufficient_material() or state.status == "insufficientMaterialClaim":
        return "insufficient material"
    if board.is_repetition(3):
        return "threefold repetition"
    if board.halfmove_clock >= 100:
        return "fifty moves"
    return "agreed draw"


def ending_text(state: ServerState) -> str:
    """The server's reason for a game that ended without a result, in words (the current language's).

    >>> ending_text(ServerState(status="aborted"))
    'the game was aborted'
    """
    if state.status == "aborted":
        return _("the game was aborted")
    if state.status == "noStart":
        return _("the game never started: the first move did not come in time")
    # TRANSLATORS: {status} is the server's status code (unknownFinish, cheat...)
    return _("the game ended ({status})").format(status=state.status)


def clock_view(info: GameInfo, state: ServerState, turn: chess.Color) -> dict[str, Any] | None:
    """The live state's ``clock`` from the server's clocks: they run once both sides have moved (as on
    lichess), for the side to move, until the game ends."""
    if info.clock is None or state.white_ms is None or state.black_ms is None:
        return None
    running = None
    if len(state.moves) >= 2 and not state.is_over:
        running = "white" if turn == chess.WHITE else "black"
    return {
        "white_ms": state.white_ms,
        "black_ms": state.black_ms,
        "running": running,
        "control": f"{info.clock.initial_s / 60:g}+{info.clock.increment_s}",
    }


_TIME_CONTROL = re.compile(r"\s*(\d+(?:\.\d+)?)\s*\+\s*(\d+)\s*")


def parse_time_control(text: str) -> tuple[float, int]:
    """``MIN+INC`` as minutes for the game and seconds a move.

    >>> parse_time_control("10+5"), parse_time_control("0.5+0")
    ((10.0, 5), (0.5, 0))
    """
    match = _TIME_CONTROL.fullmatch(text)
    if match is None or (float(match[1]) <= 0 and int(match[2]) == 0):
        raise ConfigError(
            _("{text!r} is not a time control; write minutes+seconds, e.g. 10+5 or 15+10").format(text=text)
        )
    minutes, increment = float(match[1]), int(match[2])
    if minutes > 180 or increment > 180:
        raise ConfigError(
            _("{text!r}: the server allows at most 180 minutes and 180 seconds a move").format(text=text)
        )
    return minutes, increment


def check_seek(minutes: float, increment: int) -> None:
    """The Board API seeks rapid and classical games only: at least 8 minutes estimated (the initial time
    and 40 increments). Raises :class:`ConfigError` saying what to seek instead.

    >>> check_seek(10, 0)
    >>> check_seek(3, 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chessatron.errors.ConfigError: a 3+2 game is too fast to seek from a board: ...
    """
    if minutes * 60 + 40 * increment < RAPID_ESTIMATE_S:
        raise ConfigError(
            _(
                "a {control} game is too fast to seek from a board: the server pairs board players in rapid "
                "and classical games only (initial minutes x 60 + 40 x increment at least {seconds} s), e.g. "
                "--seek 10+0 or --seek 15+10"
            ).format(control=f"{minutes:g}+{increment}", seconds=RAPID_ESTIMATE_S)
        )


Color = Literal["white", "black", "random"]


@dataclass(frozen=True)
class OnlineRequest:
    """Which game to play: exactly one of ``ai`` (the lichess AI's level, 1-8), ``challenge`` (a user name),
    ``seek`` (``MIN+INC``), ``accept`` (the next challenge that comes in) or ``game`` (a game's id).

    >>> OnlineRequest(ai=3).mode, OnlineRequest(game="abcd1234").mode
    ('ai', 'game')
    """

    ai: int | None = None
    challenge: str | None = None
    seek: str | None = None
    accept: bool = False
    game: str | None = None
    chess960: bool = False
    rated: bool = False
    color: Color = "random"
    #: The clock for a game against the AI or a challenge (``MIN+INC``); None: no clock.
    clock: str | None = None

    def __post_init__(self) -> None:
        given = [
            name
            for name, value in (
                ("--ai", self.ai),
                ("--challenge", self.challenge),
                ("--seek", self.seek),
                ("--accept", self.accept or None),
                ("--game", self.game),
            )
            if value is not None
        ]
        if len(given) != 1:
            message = (
                _(
                    "say which game to play with one of --ai LEVEL, --challenge USER, --seek MIN+INC, "
                    "--accept or --game ID (got {options})"
                )
                if given
                else _(
                    "say which game to play with one of --ai LEVEL, --challenge USER, --seek MIN+INC, "
                    "--accept or --game ID (got none)"
                )
            )
            raise ConfigError(message.format(options=", ".join(given)))
        if self.ai is not None and not 1 <= self.ai <= 8:
            raise ConfigError(_("the lichess AI plays at levels 1 to 8, not {level!r}").format(level=self.ai))
        if self.color not in ("white", "black", "random"):
            raise ConfigError(_("colour {colour!r}: use white, black or random").format(colour=self.color))
        if self.seek is not None:
            check_seek(*parse_time_control(self.seek))
        if self.clock is not None:
            parse_time_control(self.clock)

    @property
    def mode(self) -> str:
        for name in ("ai", "challenge", "seek", "game"):
            if getattr(self, name) is not None:
                return name
        return "accept"

    @property
    def variant(self) -> str:
        return "chess960" if self.chess960 else "standard"

    def clock_seconds(self) -> tuple[int, int] | None:
        if self.clock is None:
            return None
        minutes, increment = parse_time_control(self.clock)
        return round(minutes * 60), increment
