"""The web page's server side: a Starlette app over a :class:`~chessatron.game.runner.GameRunner`.

The JSON API is versioned under ``/api/v1``; the page (``/`` and ``/static/``) uses nothing else:

=======================================  ===========================================================
``GET  /api/v1``                         what this server allows: ``{"api", "watch_only", ...}``, the
                                         table's ``layout`` (the page draws the table from it), the
                                         ``player``'s settings (``{"name", "level", "board", "sound"}``),
                                         the ``languages`` the table speaks (code: own name) and the
                                         ``language`` it is set to (None: not set, the page follows
                                         the browser)
``GET  /api/v1/state``                   the live snapshot (:mod:`chessatron.game.telling.live`) with
                                         what the runner is doing (``"runner"``, see :mod:`.feed`)
``GET  /api/v1/board.svg``               the board (``?orientation=black`` turns it round)
``GET  /api/v1/table.svg``               the whole table, the gantry and the drags under way
``WS   /api/v1/live``                    the snapshot, then its changes (see :mod:`.feed`)
``POST /api/v1/game``                    a new game ``{"white", "black", "chess960", "fen", "clock"}``
``POST /api/v1/online``                  an online game: ``{"player", "ai"|"challenge"|"seek"|"accept"|"game",
                                        "chess960", "rated", "color", "clock"}`` (:mod:`chessatron.online`)
``POST /api/v1/move``                    ``{"move": "e2e4"}`` for the web player to move
``POST /api/v1/select``                  ``{"square": "e2"}``: the web player picked that piece (the
                                         table's LEDs show where it may go); ``null`` puts it down
``POST /api/v1/command/{name}``          ``hint``, ``takeback``, ``draw``, ``resign``
``POST /api/v1/stop``                    stop the game, or a set-up, at its next safe point (a move, or
                                         between two of the robot's drags, the magnet released); the
                                         status says ``stopping…`` until then, and then what was kept
``GET  /api/v1/resume[?game=<id>]``      what Resume would continue, named (players, start, moves, when it
                                         was stopped, the robot's set-up time), and the other stopped
                                         games: see :mod:`.resuming` (the page asks before continuing)
``POST /api/v1/resume``                  continue the latest unfinished game with a move, or
                                         ``{"game": "<id>"}`` that one (404 unknown, 409 over or
                                         imported); ``"white"``/``"black"`` hand a side to another
                                         player; a side typed at the server's terminal (``keyboard``) is
                                         played on the page (``web``) from then on
``POST /api/v1/pause``, ``/continue``    feed hold and cycle start: the robot waits, then goes on
``POST /api/v1/reset``                   set the table up: ``{"target": "standard"|"N"|"N:M"|FEN}``
``POST /api/v1/forget``                  this browser forgets the page's token (its cookie goes)
``GET  /api/v1/settings``                every key of the machine config: its value in the file (None:
                                         unset), default, kind and documentation, the file's path, and
                                         the ``"problems"`` the config's checker finds in it
``POST /api/v1/settings``                ``{"values": {"grbl.url": "/dev/ttyUSB0", "speech.muted": null}}``
                                         (null: back to the default): checked as ``config check`` checks
                                         a file (422 with every problem: ``"errors": [{"field",
                                         "error"}]``, nothing written), saved atomically with the
                                         previous file kept as ``….bak``, used from the next game on
``/api/v1/games...``                    the saved games, for the viewer and as PGN: see :mod:`.saved`
``/training``, ``/api/v1/training/...``  puzzles, the rating, reviews: see :mod:`.training`
``GET  /i18n/{language}.json``           the page's words in a language: see :mod:`.words`
``/calibrate``, ``/api/v1/calibrate...``  the steps of ``hw calibrate`` on a phone: see :mod:`.calibrate`
=======================================  ===========================================================

Every POST takes a JSON object (``Content-Type: application/json``, at most 4 KiB). A request that cannot
be done is answered ``{"error": "why, and what to do"}`` with a 4xx status before anything reaches the
runner: 400 malformed, 401 no token, 403 foreign page, 404 no such thing, 409 not now (busy, not the web
player's turn, a watch-only page), 413 too large, 415 not JSON, 422 impossible (an illegal move, an
unknown player, a level the engine cannot play, a bad FEN, a set-up the table cannot make). A new game's
and a set-up's errors also name the ``"field"`` they are about. Answers that gain from it are gzipped.
The ``"error"`` is written in the language the request asks for (``Accept-Language``, ``?lang=``: see
:mod:`.words`); the keys and codes of every answer stay English, and so do moves (SAN, UCI).

The page is ``static/``; its board widget, chessground, is installed from npm into ``static/vendor/``
by ``make`` (``scripts/web-vendor``). Without it the page answers 503 saying so, rather than a page
without a board.
"""

# One module on purpose (about 660 lines): the page's API, each route a few lines over the runner; split,
# the routes would lose the one place that says what the page may do.

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import chess
import chess.pgn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ..config_keys import CONFIG_KEYS, KEY_OF
from ..config_player import PlayerSettings
from ..config_problems import Problem
from ..errors import (
    CannotResumeError,
    ChessatronError,
    ConfigError,
    GameFileError,
    GameNotFoundError,
    GameSaveError,
    IllegalMoveError,
    MissingLibraryError,
    OnlineError,
    ServerUnavailableError,
)
from ..game.jobs import BusyError
from ..game.players.spec import PlayerSpec
from ..game.requests import COMMANDS, REMOTE_PLAYERS
from ..game.runner import GameRunner, NotYourTurnError
from ..game.session import Session
from ..game.telling.live import LiveState
from ..i18n import LANGUAGES, _, explicit_language, ngettext
from ..i18n.formats import both
from ..planning.layout import Layout
from . import validate
from .calibrate import CalibrationApi, calibration_routes
from .feed import Feed, Snapshots
from .guard import COOKIE, COOKIE_MAX_AGE_S, Guard, SecurityHeaders, notice_page, token_of
from .pictures import SVG_POLICY, SVG_TYPE, Pictures, link_svg
from .resuming import resume_offer
from .saved import SavedGamesApi, saved_routes, unknown_game
from .training import TrainingApi, training_routes
from .validate import MAX_BODY_BYTES, BadRequestError, FieldError
from .words import Speaking, catalog_route

LOGGER = logging.getLogger(__name__)

STATIC: Final = Path(__file__).resolve().parent / "static"
#: The board widget's module, installed by ``make`` (``scripts/web-vendor``): the page needs it.
VENDORED: Final = Path("vendor") / "chessground" / "chessground.min.js"
API: Final = "/api/v1"
#: Answers smaller than this are sent as they are (compressing them would save nothing).
GZIP_MIN_BYTES: Final = 500

Endpoint = Callable[[Request], Awaitable[Response]]


class WatchOnlyError(ChessatronError, RuntimeError):
    """A command sent to a page that only watches (the demo's)."""


def status_of(exc: ChessatronError) -> int:
    """The HTTP status for an error the runner or the store raised."""
    if isinstance(exc, BadRequestError):
        return exc.status
    if isinstance(exc, BusyError | NotYourTurnError | WatchOnlyError | CannotResumeError):
        return 409
    if isinstance(exc, IllegalMoveError | ConfigError):
        return 422
    if isinstance(exc, GameNotFoundError):
        return 404
    if isinstance(exc, GameFileError | GameSaveError):
        return 500
    if isinstance(exc, ServerUnavailableError):
        return 502  # the online game's server, behind this one, cannot be reached
    if isinstance(exc, OnlineError):
        return 409  # not now: log in first (`chessatron online login`), or the server refused
    return 409


def _error(exc: ChessatronError) -> JSONResponse:
    answer = {"error": str(exc)}
    if isinstance(exc, FieldError):
        answer["field"] = exc.field
    return JSONResponse(answer, status_of(exc))


def missing_widget(static: Path = STATIC) -> str | None:
    """What to do when the page's board widget is not installed in ``static``; None when it is."""
    if (static / VENDORED).is_file():
        return None
    return _(
        "the page's board (chessground) is not installed: run `make` in chessatron's folder (its "
        "scripts/web-vendor installs it with npm), then start `chessatron serve` again"
    )


def layout_json(layout: Layout) -> dict[str, Any]:
    """The table as the page draws it: its cells (``[column, row, kind]`` for all but free ones), the
    reserve's spares, where a1 is, and how machine millimetres map onto it (node ``(i, j)`` is at
    ``origin + rotation(i, j) * pitch``)."""
    return {
        "columns": layout.columns,
        "rows": layout.rows,
        "board_cell": list(layout.board_cell),
        "cells": [
            [*cell, layout.cell_kind(cell)] for cell in layout.cells() if layout.cell_kind(cell) != "free"
        ],
        "reserve": [[*slot.cell, slot.symbol] for slot in layout.reserve],
        "origin_mm": list(layout.origin_mm),
        "rotation_deg": layout.rotation_deg,
        "pitch_mm": layout.pitch_mm,
    }


async def read_json(request: Request) -> object:
    """The body of a POST: a JSON value (``{}`` when empty), read up to :data:`MAX_BODY_BYTES`."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        raise BadRequestError(
            _("send JSON (Content-Type: application/json), not {kind!r}").format(
                kind=kind[:40] or _("no content type")
            ),
            415,
        )
    too_large = BadRequestError(
        _("the body is larger than {limit} bytes; no request needs that").format(limit=MAX_BODY_BYTES), 413
    )
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > MAX_BODY_BYTES:
        raise too_large
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise too_large
    except ClientDisconnect:
        # the page went away before its body was in (a closed tab, a lost network): nothing was asked,
        # and the answer goes nowhere
        raise BadRequestError(_("the page hung up before its request arrived whole"), 400) from None
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise BadRequestError(_("the body is not JSON: {reason}").format(reason=str(exc)[:80])) from exc


def _said(text: str) -> str:
    """A text another module wrote and marked (a config key's title or help), in the current language
    (an empty one stays empty: gettext answers "" with its catalog's header)."""
    return _(text) if text else text


def _problem_json(problem: Problem) -> dict[str, str | None]:
    """A problem of the config as the page shows it beside its field (``"field"``: its key, None for
    the file as a whole)."""
    return {"field": problem.key, "error": problem.message}


class Api:
    """The endpoints, over one runner (None: the page only watches) and its live state (the saved games'
    are :class:`~.saved.SavedGamesApi`'s, the training's :class:`~.training.TrainingApi`'s)."""

    def __init__(
        self,
        runner: GameRunner | None,
        live: LiveState,
        link: str | None = None,
        *,
        static: Path = STATIC,
        token: str | None = None,
        config_path: Path | None = None,
        language: str | None = None,
    ) -> None:
        self.runner = runner
        self.config_path = config_path
        #: The language the table is set to (``--lang``, the config's ``language``); None: not set, each
        #: page follows its browser.
        self.language = language
        self.link = link
        self.static = static
        self.token = token
        self.live = live
        self.snapshots = Snapshots(
            live,
            report=runner.report if runner is not None else None,
            clock_now=runner.clock_now if runner is not None else None,
        )
        self.pictures = Pictures(live)
        self.feed = Feed(live, self.snapshots)
        #: The player's settings as last saved (the runner takes them up from the next game on).
        self.player = runner.config.player if runner is not None else PlayerSettings()

    def _runner(self) -> GameRunner:
        if self.runner is None:
            raise self._watch_only()
        return self.runner

    @staticmethod
    def _watch_only() -> WatchOnlyError:
        return WatchOnlyError(_("this page only watches; start `chessatron serve` to play from a page"))

    # --- reading -----------------------------------------------------------------------------------

    async def info(self, request: Request) -> Response:
        return JSONResponse(
            {
                "api": 1,
                "watch_only": self.runner is None,
                "phone_link": self.link is not None,
                "players": list(REMOTE_PLAYERS),
                "commands": list(COMMANDS),
                "token": self.token is not None,
                "layout": layout_json(self.live.layout),
                "player": {
                    "name": self.player.name,
                    "level": self.player.level,
                    "board": self.player.board,
                    "sound": self.player.sound,
                },
                "languages": dict(LANGUAGES),
                "language": self.language,
            }
        )

    async def link_svg(self, request: Request) -> Response:
        if self.link is None:
            raise GameNotFoundError(
                _(
                    "this page is served on this machine only; start `chessatron serve --host 0.0.0.0` to "
                    "open it on a phone"
                )
            )
        return Response(
            link_svg(self.link), media_type=SVG_TYPE, headers={"content-security-policy": SVG_POLICY}
        )

    async def state(self, request: Request) -> Response:
        return JSONResponse(self.snapshots.fresh(self.snapshots.current()[1]))

    async def board_svg(self, request: Request) -> Response:
        orientation = validate.orientation(request.query_params.get("orientation"))
        svg = await run_in_threadpool(self.pictures.board, orientation)
        return Response(svg, media_type=SVG_TYPE, headers={"content-security-policy": SVG_POLICY})

    async def table_svg(self, request: Request) -> Response:
        svg = await run_in_threadpool(self.pictures.table)
        return Response(svg, media_type=SVG_TYPE, headers={"content-security-policy": SVG_POLICY})

    # --- commands ----------------------------------------------------------------------------------

    async def new_game(self, request: Request) -> Response:
        body = await read_json(request)
        runner = self.runner
        if runner is None:
            validate.game_request(body)
            raise self._watch_only()
        # the level's check asks the engine for its range once (a fraction of a second)
        game = await run_in_threadpool(
            lambda: validate.game_request(body, pieces=runner.inventory(), check_level=runner.check_levels)
        )
        runner.start_game(game)
        return JSONResponse({"accepted": "game", "white": game.white, "black": game.black}, 202)

    async def online_game(self, request: Request) -> Response:
        """An online game (see :mod:`chessatron.online`) on the config's server, with the token
        ``chessatron online login`` kept (or ``$LICHESS_TOKEN``): logged in before the answer, played in
        the background."""
        who, wanted = validate.online_request(await read_json(request))
        runner = self._runner()
        if runner.busy:
            raise BusyError(_("the table is busy; stop the game first (Stop game) or wait for its end"))
        try:
            from ..online.client import LichessClient
            from ..online.table import OnlineTable
            from ..online.token import find_token
        except ImportError as exc:
            raise MissingLibraryError(
                _("online play needs {library!r}: pip install 'chessatron[online]'").format(
                    library=exc.name or "its libraries"
                )
            ) from exc
        url = runner.config.lichess_url
        token, _source = find_token(url)
        client = LichessClient(url, token)
        spec = PlayerSpec.parse(who)

        def game(session: Session) -> None:
            with client:
                table = OnlineTable(session, client, spec, connected=True)
                table.play(table.start(wanted))

        try:
            account = await run_in_threadpool(client.account)
            runner.start_online(game)
        except BaseException:
            client.close()
            raise
        return JSONResponse({"accepted": "online", "mode": wanted.mode, "account": account.name}, 202)

    async def move(self, request: Request) -> Response:
        text = validate.move_text(await read_json(request))
        move = self._runner().move(text)
        return JSONResponse({"accepted": "move", "move": move.uci()}, 202)

    async def answer(self, request: Request) -> Response:
        text = validate.move_text(await read_json(request))
        move = self._runner().answer(text)
        return JSONResponse({"accepted": "answer", "move": move.uci()}, 202)

    async def select(self, request: Request) -> Response:
        square = validate.picked_square(await read_json(request))
        self._runner().select(square)
        return JSONResponse({"accepted": "select", "square": square}, 202)

    async def command(self, request: Request) -> Response:
        name = validate.command_name(str(request.path_params["name"]))
        validate.empty(await read_json(request))
        self._runner().command(name)
        return JSONResponse({"accepted": name}, 202)

    async def stop(self, request: Request) -> Response:
        validate.empty(await read_json(request))
        runner = self._runner()
        if not runner.busy:
            raise ChessatronError(_("nothing is running; there is nothing to stop"))
        runner.stop()
        return JSONResponse({"accepted": "stop"}, 202)

    async def resume(self, request: Request) -> Response:
        body = await read_json(request)
        runner = self._runner()
        game_id, sides = await run_in_threadpool(
            lambda: validate.resume_request(body, check_level=runner.check_levels)
        )
        players = {
            chess.WHITE if side == "white" else chess.BLACK: PlayerSpec.parse(spec)
            for side, spec in sides.items()
        }
        with unknown_game(game_id):
            resumed = await run_in_threadpool(runner.resume_game, game_id, players)
        return JSONResponse({"accepted": "resume", "game": resumed}, 202)

    async def resume_offer(self, request: Request) -> Response:
        """What Resume would continue, to be named and asked about before the robot moves a piece."""
        asked = request.query_params.get("game")
        game_id = validate.game_id(asked) if asked is not None else None
        runner = self._runner()
        with unknown_game(game_id):
            offer = await run_in_threadpool(resume_offer, runner, game_id)
        return JSONResponse(offer)

    async def pause(self, request: Request) -> Response:
        validate.empty(await read_json(request))
        runner = self._runner()
        if not runner.busy:
            raise ChessatronError(_("the robot is not running; there is nothing to pause"))
        await run_in_threadpool(runner.pause)
        return JSONResponse({"accepted": "pause"}, 202)

    async def resume_machine(self, request: Request) -> Response:
        validate.empty(await read_json(request))
        await run_in_threadpool(self._runner().resume_machine)
        return JSONResponse({"accepted": "continue"}, 202)

    async def reset(self, request: Request) -> Response:
        body = await read_json(request)
        pieces = self.runner.inventory() if self.runner is not None else None
        target = validate.reset_target(body, pieces=pieces)
        self._runner().reset_table(target)
        return JSONResponse({"accepted": "reset", "target": target}, 202)

    # --- settings ----------------------------------------------------------------------------------

    def _settings_path(self) -> Path:
        self._runner()
        if self.config_path is None:
            raise WatchOnlyError(_("this server was started without a config file to change"))
        return self.config_path

    async def settings(self, request: Request) -> Response:
        """Every key of the machine config, with its value in the file and what it does, and what the
        config's checker finds wrong in the file (each problem beside its field on the page)."""
        from ..config_write import BACKUP_SUFFIX, problems_in, settings_in

        path = self._settings_path()
        values = await run_in_threadpool(settings_in, path)
        problems = await run_in_threadpool(problems_in, path)
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        return JSONResponse(
            {
                "path": str(path),
                "exists": path.exists(),
                "previous": str(backup) if backup.exists() else None,
                # the keys' titles and help in the request's language (the config's own words where
                # they have no translation); a language is named in its own name
                "keys": [
                    {
                        "key": key.key,
                        "section": key.section,
                        "name": key.name,
                        "title": _said(key.title),
                        "kind": key.kind,
                        "default": key.default,
                        "value": values.get(key.key),
                        "doc": _said(key.doc),
                        "examples": list(key.examples),
                    }
                    for key in CONFIG_KEYS
                ],
                "languages": dict(LANGUAGES),
                "problems": [_problem_json(problem) for problem in problems],
            }
        )

    async def save_settings(self, request: Request) -> Response:
        """New values for keys of the machine config: checked, saved, used from the next game on."""
        from ..config_write import SettingError, save_settings

        changes = validate.settings_request(await read_json(request))
        path = self._settings_path()
        runner = self._runner()
        try:
            saved = await run_in_threadpool(save_settings, path, changes)
        except SettingError as exc:
            # every problem at once, each beside its field; the summary names them for the save button
            named = list(
                dict.fromkeys(
                    _said(KEY_OF[p.key].title) if p.key in KEY_OF else p.key or _("the file")
                    for p in exc.problems
                )
            )
            count = len(named)
            summary = ngettext(
                "{count} setting needs fixing: {settings}; nothing was saved",
                "{count} settings need fixing: {settings}; nothing was saved",
                count,
            ).format(count=count, settings=both(named))
            return JSONResponse(
                {
                    "error": summary,
                    "field": exc.key or "settings",
                    "errors": [_problem_json(problem) for problem in exc.problems],
                },
                422,
            )
        self.player = saved.config.player
        waits = runner.use_config(saved.config)
        applies = (
            _("from the next game on; the new layout when `chessatron serve` starts again")
            if waits
            else _("from the next game on")
        )
        return JSONResponse(
            {
                "accepted": "settings",
                "path": str(saved.path),
                "previous": str(saved.previous) if saved.previous is not None else None,
                "applies": applies,
            }
        )

    # --- the page ----------------------------------------------------------------------------------

    async def page(self, request: Request) -> Response:
        problem = missing_widget(self.static)
        if problem is not None:
            return HTMLResponse(notice_page(_("The page cannot be shown"), problem), 503)
        response = FileResponse(self.static / "index.html", media_type="text/html")
        token = token_of(request) if self.token is not None else None
        if token:
            # the guard has checked it: kept (again) for a year, so that the page's own requests carry
            # it and a bookmark of the page (the address without ?token=) goes on working
            response.set_cookie(
                COOKIE, token, max_age=COOKIE_MAX_AGE_S, httponly=True, samesite="strict", path="/"
            )
        return response

    async def forget(self, request: Request) -> Response:
        """This browser forgets the token: its cookie goes, and the page needs the link again."""
        validate.empty(await read_json(request))
        response = JSONResponse({"accepted": "forget"})
        response.delete_cookie(COOKIE, httponly=True, samesite="strict", path="/")
        return response


def _answering_errors(endpoint: Endpoint) -> Endpoint:
    async def wrapper(request: Request) -> Response:
        try:
            return await endpoint(request)
        except ChessatronError as exc:
            return _error(exc)

    return wrapper


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = _("nothing at {path!r}").format(path=request.url.path[:80])
    elif exc.status_code == 405:
        message = _("{method} is not allowed here").format(method=request.method)
    else:
        message = str(exc.detail)
    return JSONResponse({"error": message}, exc.status_code, headers=exc.headers)


def create_app(
    runner: GameRunner | None,
    live: LiveState,
    *,
    token: str | None,
    games_dir: Path,
    hosts: tuple[str, ...] = (),
    link: str | None = None,
    static: Path = STATIC,
    config_path: Path | None = None,
    language: str | None = None,
) -> Starlette:
    """The page and its API over ``runner`` (None: a page that only watches ``live``, for the demo).

    ``token``: required on every request when set (the server listens beyond the loopback address);
    ``hosts``: names the ``Host`` header may carry besides the loopback ones when there is no token;
    ``link``: the page's link on the network (with its token), shown as a QR code for phones;
    ``static``: the page's files (its board widget in ``vendor/``, see :func:`missing_widget`);
    ``config_path``: the machine config the settings change (None: none can be changed);
    ``language``: the language the table is set to (``--lang``, the config's ``language``), which every
    page then shows unless its person chooses another; None: each page follows its browser.
    """
    if language is None:
        language = explicit_language()
    api = Api(runner, live, link, static=static, token=token, config_path=config_path, language=language)
    calibration = CalibrationApi(runner, config_path, static, read_json)

    def get(path: str, endpoint: Endpoint) -> Route:
        return Route(API + path, _answering_errors(endpoint), methods=["GET"])

    def post(path: str, endpoint: Endpoint) -> Route:
        return Route(API + path, _answering_errors(endpoint), methods=["POST"])

    def starting(endpoint: Endpoint) -> Endpoint:  # work on the table: not while it is calibrated
        return _answering_errors(calibration.refusing(endpoint))

    routes = [
        Route("/", api.page, methods=["GET"]),
        Mount("/static", StaticFiles(directory=static), name="static"),
        Route("/i18n/{language}.json", catalog_route(static), methods=["GET"]),
        get("", api.info),
        get("/state", api.state),
        get("/board.svg", api.board_svg),
        get("/table.svg", api.table_svg),
        get("/link.svg", api.link_svg),
        WebSocketRoute(API + "/live", api.feed.serve),
        Route(API + "/game", starting(api.new_game), methods=["POST"]),
        Route(API + "/online", starting(api.online_game), methods=["POST"]),
        post("/move", api.move),
        post("/select", api.select),
        post("/answer", api.answer),
        post("/command/{name}", api.command),
        post("/stop", api.stop),
        get("/resume", api.resume_offer),
        Route(API + "/resume", starting(api.resume), methods=["POST"]),
        post("/pause", api.pause),
        post("/continue", api.resume_machine),
        Route(API + "/reset", starting(api.reset), methods=["POST"]),
        post("/forget", api.forget),
        get("/settings", api.settings),
        Route(API + "/settings", starting(api.save_settings), methods=["POST"]),
        *saved_routes(SavedGamesApi(games_dir), _answering_errors, API),
        *training_routes(TrainingApi(runner, games_dir, static, read_json), starting, API),
        *calibration_routes(calibration, _answering_errors, API),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            # outermost: whatever the inner layers answer is compressed when it gains from it (the
            # WebSocket is left to its own per-message compression)
            Middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES),
            Middleware(SecurityHeaders),
            # before the guard: its refusals are in the language asked for too
            Middleware(Speaking),
            Middleware(Guard, token=token, hosts=hosts),
        ],
        exception_handlers={HTTPException: _http_error},
    )
    app.state.api = api
    app.state.calibration = calibration
    return app
