"""What the page may ask for: every request body and path value checked before it reaches the runner.

Plain functions over decoded JSON, no I/O (what the table owns and what its engine can play come in as
arguments). A request that is malformed (a wrong type, a missing or unknown field, a string too long)
raises :class:`BadRequestError` with the HTTP status to answer (400); one that is well formed but asks for
something impossible (an unknown player, a level the engine cannot play, a Chess960 number out of range,
a FEN that is no position or needs more pieces than the table owns) raises the
:class:`~chessatron.errors.ConfigError` of the code that reads it (422). A new game's and a set-up's
errors are field errors (:class:`FieldError`) naming the field they are about, so that the page shows
each beside its control.

>>> game_request({"white": "web", "black": "engine:3", "chess960": 100})
GameRequest(white='web', black='engine:3', chess960='100', fen=None, clock=None)
>>> game_request({"white": "script:/etc/passwd"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
chessatron.web.validate.FieldError: a 'script' player cannot be chosen from the page; use web, ...
>>> game_request({"fen": "4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1"}, pieces={"Q": 3, "K": 1, "k": 1})
Traceback (most recent call last):
...
chessatron.web.validate.FieldError: the table cannot set this position up: it needs 4 white queens (Q) and \
the table has 3 (with its spares); choose a position with fewer
>>> game_id("../../etc/passwd")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
chessatron.web.validate.BadRequestError: no saved game can be called '../../etc/passwd'; game ids are ...
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, Literal

from ..errors import ChessatronError, ConfigError
from ..game.clock import parse_clock
from ..game.players.spec import PlayerSpec
from ..game.requests import COMMANDS, REMOTE_PLAYERS, GameRequest
from ..i18n import N_, _, ngettext
from ..i18n.formats import either
from ..i18n.notation import PIECE_LETTERS
from ..online.model import OnlineRequest
from ..planning.targets import parse_target, position_flaws, require_pieces

#: The largest request body accepted, in bytes; every valid one is far smaller.
MAX_BODY_BYTES: Final = 4096
MAX_PLAYER_CHARS: Final = 48
MAX_FEN_CHARS: Final = 100
MAX_CLOCK_CHARS: Final = 20
MAX_MOVE_CHARS: Final = 10
#: Engine options a page may set; ``threads=`` and ``hash=`` spend the host's cores and memory.
WEB_ENGINE_OPTIONS: Final = {"depth": 40, "time": 30, "nodes": 50_000_000}

Orientation = Literal["white", "black"]

_PLAYER_CHARS = re.compile(r"[a-z0-9:=.]+")
#: A move as typed, UCI or SAN, in the piece letters of any language (the runner reads the request's).
_MOVE = re.compile(f"[a-hA-H1-8Oox=+#{''.join(sorted(set(''.join(PIECE_LETTERS.values()))))}kqrbn-]{{2,10}}")
_GAME_ID = re.compile(r"[0-9a-z]{1,32}")
_PLY = re.compile(r"[0-9]{1,5}")
_SQUARE = re.compile(r"[a-h][1-8]")
#: A user name or game id on the online server.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
_CHESS960 = re.compile(r"random|\d{1,3}(:\d{1,3})?")


class BadRequestError(ChessatronError, ValueError):
    """A request the API cannot read: ``status`` is the HTTP status to answer with (400, 413, 415)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class FieldError(BadRequestError):
    """A request that cannot be done because of one of its fields (``field``: ``"fen"``, ``"black"``...),
    answered ``{"error", "field"}`` (422 unless malformed)."""

    def __init__(self, message: str, field: str, status: int = 422) -> None:
        super().__init__(message, status)
        self.field = field


@contextlib.contextmanager
def about(field: str) -> Iterator[None]:
    """Errors raised inside are about ``field``: each becomes a :class:`FieldError` with its name."""
    try:
        yield
    except FieldError:
        raise
    except BadRequestError as exc:
        raise FieldError(str(exc), field, exc.status) from exc
    except ChessatronError as exc:
        raise FieldError(str(exc), field) from exc


#: Checks a player's engine level against the engine (an Elo in its range); raises ConfigError.
LevelCheck = Callable[[PlayerSpec], None]


def fields(
    body: object, allowed: Mapping[str, tuple[type, ...]], required: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``body`` as a dict whose keys are all ``allowed`` with values of the allowed types (None always
    allowed for optional keys), ``required`` keys present; raises :class:`BadRequestError`.

    >>> fields({"move": 4}, {"move": (str,)}, ("move",))
    Traceback (most recent call last):
    ...
    chessatron.web.validate.BadRequestError: "move" must be a string, not 4
    """
    if not isinstance(body, dict):
        raise BadRequestError(_("the body must be a JSON object, not {value}").format(value=_short(body)))
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        usable = _("unknown field {field!r}; use {fields}")
        message = usable if allowed else _("unknown field {field!r}; this request takes none")
        raise BadRequestError(message.format(field=unknown[0], fields=", ".join(allowed)))
    for key in required:
        if body.get(key) is None:
            raise BadRequestError(_('the field "{field}" is missing').format(field=key))
    for key, value in body.items():
        types = allowed[key]
        if value is None and key not in required:
            continue
        # bool is an int in Python, never in a request
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            names = either([_(_TYPE_NAMES[t]) for t in types])
            raise BadRequestError(
                _('"{field}" must be {kinds}, not {value}').format(
                    field=key, kinds=names, value=_short(value)
                )
            )
    return dict(body)


_TYPE_NAMES = {
    # TRANSLATORS: what a field of a request must be: '"move" must be a string, not 4'
    str: N_("a string"),
    int: N_("a whole number"),
    bool: N_("true or false"),
    float: N_("a number"),
    dict: N_("an object"),
}


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text(body: dict[str, Any], key: str, limit: int) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    text = str(value).strip()
    if len(text) > limit:
        raise BadRequestError(
            _('"{field}" is {length} characters long; at most {limit} make sense here').format(
                field=key, length=len(text), limit=limit
            )
        )
    return text


def player(text: str) -> str:
    """A player a page may choose: ``web``, ``engine[:LEVEL]``, ``hand[:LEVEL]``, ``board``, ``voice`` or
    ``buttons`` (a person at the table who speaks their moves, or moves the cursor); never one
    that names a file on the server (``script:``) or its keyboard, nor engine options that spend the host's
    resources. Raises :class:`ConfigError` (422).

    >>> player("Engine:1500elo:depth=8")
    'engine:1500elo:depth=8'
    >>> player("engine:threads=64")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chessatron.errors.ConfigError: the engine option 'threads=' cannot be set from the page; use depth=, ...
    """
    text = text.strip().lower()
    kind = text.split(":", 1)[0]
    if kind not in REMOTE_PLAYERS:
        raise ConfigError(
            _(
                "a {kind!r} player cannot be chosen from the page; "
                "use web, engine[:LEVEL], hand[:LEVEL], board, voice or buttons"
            ).format(kind=kind)
        )
    if not _PLAYER_CHARS.fullmatch(text):
        raise ConfigError(
            _("the player {player!r} has characters no player has; write e.g. engine:5").format(player=text)
        )
    for field in text.split(":")[1:]:
        key, equals, value = field.partition("=")
        if not equals:
            continue
        if key not in WEB_ENGINE_OPTIONS:
            raise ConfigError(
                _("the engine option {option!r} cannot be set from the page; use {options}").format(
                    option=key + "=", options=", ".join(k + "=" for k in WEB_ENGINE_OPTIONS)
                )
            )
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not 0 < number <= WEB_ENGINE_OPTIONS[key]:
            raise ConfigError(
                _(
                    "the engine option {option!r} is out of range; {key}= must be above 0 and at most "
                    "{limit} from the page"
                ).format(option=field, key=key, limit=WEB_ENGINE_OPTIONS[key])
            )
    PlayerSpec.parse(text)  # the level's grammar, with its own message
    return text


def game_request(
    body: object, *, pieces: Mapping[str, int] | None = None, check_level: LevelCheck | None = None
) -> GameRequest:
    """A new game from ``{"white", "black", "chess960", "fen", "clock"}``; every field optional (``web``
    against ``engine`` in the standard start). ``chess960``: a number 0-959, ``"N"``, ``"N:M"`` or
    ``"random"``. The start, players and clock are all checked here: with ``pieces`` (what the table
    owns, by FEN letter) a start it cannot set up is refused, with ``check_level`` a level its engine
    cannot play. Raises :class:`FieldError` naming the field."""
    data = fields(
        body,
        {"white": (str,), "black": (str,), "chess960": (str, int), "fen": (str,), "clock": (str,)},
    )
    sides = {}
    for side, default in (("white", "web"), ("black", "engine")):
        with about(side):
            sides[side] = player(_text(data, side, MAX_PLAYER_CHARS) or default)
    with about("chess960"):
        chess960 = _text(data, "chess960", 16)
        if chess960 is not None and not _CHESS960.fullmatch(chess960):
            raise ConfigError(
                _("chess960 {value!r} is neither a number 0-959, N:M, nor 'random'").format(value=chess960)
            )
    with about("fen"):
        fen = _text(data, "fen", MAX_FEN_CHARS) or None
    with about("clock"):
        clock = _text(data, "clock", MAX_CLOCK_CHARS) or None
        if clock is not None:
            parse_clock(clock)
    request = GameRequest(white=sides["white"], black=sides["black"], chess960=chess960, fen=fen, clock=clock)
    for side, spec in zip(("white", "black"), request.players(), strict=True):
        if check_level is not None:
            with about(side):
                check_level(spec)
    with about("chess960" if chess960 is not None and fen is None else "fen"):
        start = request.start()
        flaws = position_flaws(start, fen=fen)
        if flaws:
            raise ConfigError(
                _("the position {fen!r} cannot be played: {flaws}").format(
                    fen=start.fen(), flaws="; ".join(flaws)
                )
            )
        if start.is_game_over():
            raise ConfigError(
                _("the position {fen!r} is already over; choose another").format(fen=start.fen())
            )
        if pieces is not None:
            require_pieces(start, pieces)
    return request


def online_request(body: object) -> tuple[str, OnlineRequest]:
    """An online game from ``{"player", "ai", "challenge", "seek", "accept", "game", "chess960", "rated",
    "color", "clock"}``: who sits at the table (``web`` unless said; as :func:`player`) and which game.

    >>> online_request({"ai": 3, "color": "white"})[1].mode
    'ai'
    """
    data = fields(
        body,
        {
            "player": (str,),
            "ai": (int,),
            "challenge": (str,),
            "seek": (str,),
            "accept": (bool,),
            "game": (str,),
            "chess960": (bool,),
            "rated": (bool,),
            "color": (str,),
            "clock": (str,),
        },
    )
    who = player(_text(data, "player", MAX_PLAYER_CHARS) or "web")
    for key in ("challenge", "game"):
        text = _text(data, key, 32)
        if text is not None and not _NAME.fullmatch(text):
            raise BadRequestError(
                _("{field} {value!r} is not a name; use letters, digits, - and _").format(
                    field=key, value=text
                )
            )
    color = _text(data, "color", 8) or "random"
    if color not in ("white", "black", "random"):
        raise BadRequestError(_("color {value!r}: use white, black or random").format(value=color))
    request = OnlineRequest(
        ai=data.get("ai"),
        challenge=_text(data, "challenge", 32),
        seek=_text(data, "seek", MAX_CLOCK_CHARS),
        accept=bool(data.get("accept", False)),
        game=_text(data, "game", 32),
        chess960=bool(data.get("chess960", False)),
        rated=bool(data.get("rated", False)),
        color=color,  # type: ignore[arg-type]
        clock=_text(data, "clock", MAX_CLOCK_CHARS),
    )
    return who, request


def move_text(body: object) -> str:
    """The move of ``{"move": "e2e4"}`` (UCI or SAN); the runner checks that it is legal.

    >>> move_text({"move": " e7e8q "})
    'e7e8q'
    """
    data = fields(body, {"move": (str,)}, ("move",))
    text = _text(data, "move", MAX_MOVE_CHARS) or ""
    if not _MOVE.fullmatch(text):
        raise BadRequestError(
            # TRANSLATORS: write the example moves with your language's piece letters (Sf3 in German)
            _("{move!r} is not a move; write it as UCI (e2e4, e7e8q) or SAN (Nf3, O-O)").format(move=text)
        )
    return text


def picked_square(body: object) -> str | None:
    """The square of ``{"square": "e2"}``, None for ``{"square": null}`` (the piece put down again).

    >>> picked_square({"square": "e2"}), picked_square({})
    ('e2', None)
    """
    data = fields(body, {"square": (str,)})
    text = _text(data, "square", 2)
    if text is not None and not _SQUARE.fullmatch(text):
        raise BadRequestError(_("{square!r} is not a square; squares are a1 to h8").format(square=text))
    return text


def reset_target(body: object, *, pieces: Mapping[str, int] | None = None) -> str:
    """The set-up of ``{"target": ...}``: ``standard``, a Chess960 number, ``N:M`` or a FEN (a position
    to set up); checked here, so a bad one never reaches the gantry: with ``pieces`` (what the table owns)
    one it cannot make is refused. Raises :class:`FieldError` (``"target"``)."""
    data = fields(body, {"target": (str, int)})
    with about("target"):
        target = _text(data, "target", MAX_FEN_CHARS) or "standard"
        setup = parse_target(target)
        if pieces is not None:
            require_pieces(setup.board, pieces)
    return target


#: The most keys one request changes: every key the config has, and a few more to be refused by name.
MAX_SETTINGS: Final = 40
MAX_SETTING_CHARS: Final = 400


def settings_request(body: object) -> dict[str, object]:
    """The new values of ``{"values": {"section.key": value, ...}}`` (null: back to the default): texts,
    numbers (finite) or true/false, of sensible size. Whether each is a value its key takes is the config
    checker's to say (:func:`chessatron.config_write.save_settings`).

    >>> settings_request({"values": {"grbl.home": True, "speech.muted": None, "training.watcher_loss": 0.2}})
    {'grbl.home': True, 'speech.muted': None, 'training.watcher_loss': 0.2}
    """
    data = fields(body, {"values": (dict,)}, ("values",))
    values: dict[str, object] = data["values"]
    if len(values) > MAX_SETTINGS:
        raise BadRequestError(
            _("{count} settings at once; the config has far fewer keys").format(count=len(values))
        )
    for key, value in values.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if (not isinstance(value, str | bool) and value is not None and not number) or (
            isinstance(value, float) and not math.isfinite(value)
        ):
            raise FieldError(
                _("{key!r} must be a text, a number or true/false, not {value}").format(
                    key=key[:40], value=_short(value)
                ),
                key,
                400,
            )
        if isinstance(value, str) and len(value) > MAX_SETTING_CHARS:
            raise FieldError(
                _("{key!r} is {length} characters long; no setting needs that").format(
                    key=key[:40], length=len(value)
                ),
                key,
                400,
            )
    return dict(values)


def command_name(name: str) -> str:
    """One of the runner's commands (hint, takeback, draw, resign); anything else is 404."""
    if name not in COMMANDS:
        raise BadRequestError(
            _("there is no command {name!r}; use {commands}").format(
                name=name[:20], commands=", ".join(COMMANDS)
            ),
            404,
        )
    return name


def game_id(text: str) -> str:
    """A saved game's id as the games folder names them; never a path."""
    if not _GAME_ID.fullmatch(text):
        raise BadRequestError(
            _(
                "no saved game can be called {game!r}; game ids are 1 to 32 lower-case letters and digits"
            ).format(game=text[:40])
        )
    return text


def resumed_game(body: object) -> str | None:
    """The saved game of ``{"game": "<id>"}`` to continue; None (``{}``) for the latest with a move.

    >>> resumed_game({"game": "k3x9"}), resumed_game({})
    ('k3x9', None)
    """
    return resume_request(body)[0]


def resume_request(
    body: object, *, check_level: LevelCheck | None = None
) -> tuple[str | None, dict[str, str]]:
    """A resume from ``{"game", "white", "black"}``: the saved game (None: the latest with a move) and the
    sides handed to other players from now on, as ``play --resume --white P`` hands them (players a page
    may choose, :func:`player`; with ``check_level`` a level its engine cannot play is refused). Raises
    :class:`FieldError` naming the field.

    >>> resume_request({"game": "k3x9", "black": "engine:5"})
    ('k3x9', {'black': 'engine:5'})
    """
    data = fields(body, {"game": (str,), "white": (str,), "black": (str,)})
    text = data.get("game")
    game = None if text is None else game_id(text)
    sides: dict[str, str] = {}
    for side in ("white", "black"):
        with about(side):
            spec = _text(data, side, MAX_PLAYER_CHARS)
            if spec:
                sides[side] = player(spec)
                if check_level is not None:
                    check_level(PlayerSpec.parse(sides[side]))
    return game, sides


def ply(text: str | None, plies: int) -> int:
    """The ``?ply=N`` of a saved game's picture: the position after N half-moves, 0 (the start) to
    ``plies`` (the end, also when there is no ``ply``). Malformed is 400, out of the game 422.

    >>> ply("3", 4), ply(None, 4)
    (3, 4)
    >>> ply("5", 4)
    Traceback (most recent call last):
    ...
    chessatron.web.validate.BadRequestError: ply 5 is past the end of this game; it has 4 plies (0 to 4)
    """
    if text is None:
        return plies
    if not _PLY.fullmatch(text):
        raise BadRequestError(
            _("ply {ply!r} must be a whole number of half-moves, 0 for the start").format(ply=text[:20])
        )
    number = int(text)
    if number > plies:
        raise BadRequestError(
            ngettext(
                "ply {ply} is past the end of this game; it has {plies} ply (0 to {plies})",
                "ply {ply} is past the end of this game; it has {plies} plies (0 to {plies})",
                plies,
            ).format(ply=number, plies=plies),
            422,
        )
    return number


def orientation(text: str | None) -> Orientation:
    if text in (None, "", "white"):
        return "white"
    if text == "black":
        return "black"
    raise BadRequestError(_("orientation {value!r} must be 'white' or 'black'").format(value=str(text)[:20]))


def empty(body: object) -> None:
    """Commands without arguments take ``{}`` (or no body)."""
    fields(body, {})
