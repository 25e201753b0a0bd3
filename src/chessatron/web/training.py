"""The web page's training: puzzles on the table, the person's rating and results over time, reviews of
saved games with *replay from here*. Its own page (``/training``, ``static/training.*``) and routes beside
the page's API (:mod:`.app` adds them):

=============================================  ======================================================
``GET  /training``                             the training page
``GET  /api/v1/training``                      the rating, every attempt (for the plots), the store's
                                               puzzles by source, the commonest themes, each
                                               theme's name as lichess writes it
``POST /api/v1/training/puzzles``              play puzzles: ``{"player", "count", "rating", "theme"}``
                                               (a theme's id, or its name)
``POST /api/v1/training/request``              ``{"what": "hint"|"give up"}`` for the puzzle under way
``GET  /api/v1/training/puzzle/{id}``          a puzzle's solution, each position of it (409 while
                                               the puzzle is under way)
``GET  /api/v1/training/review/{id}``          a saved game's review (202 ``{"reviewing"}`` while
                                               Stockfish goes through it; ask again); ``?only=kept``:
                                               the review kept, 204 when there is none (nothing runs)
``POST /api/v1/training/replay``               ``{"game", "ply", "player"}``: the robot sets up the
                                               position before that move, the game goes on against
                                               the engine from there
``POST /api/v1/training/watcher``              ``{"take_back": true|false}``: the answer to the
                                               watcher's offer (``[training] watcher``)
=============================================  ======================================================
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import chess
import chess.engine
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ..errors import ChessatronError, ConfigError, GameNotFoundError, NoPuzzleError
from ..game.jobs import BusyError
from ..game.players.spec import PlayerSpec
from ..game.records import store as games
from ..game.requests import GameRequest
from ..game.runner import GameRunner, NotYourTurnError
from ..game.session import Session
from ..i18n import _
from ..training.puzzle import Puzzle
from ..training.review import kept_review, review_game
from ..training.store import Filters, PuzzleStore
from ..training.table import PUZZLE_PLAYERS, PuzzleTable
from ..training.themes import theme_id, theme_name
from ..training.watcher import MoveWatcher
from . import validate
from .validate import BadRequestError

LOGGER = logging.getLogger(__name__)

#: The most puzzles one request plays.
MAX_COUNT: Final = 100
#: How deep the page's reviews search (as ``chessatron review``).
PAGE_REVIEW_DEPTH: Final = 14
#: What a puzzle id may be (:class:`~chessatron.training.puzzle.Puzzle` checks the same).
PUZZLE_ID: Final = re.compile(r"[A-Za-z0-9_:.-]{1,64}")

Endpoint = Callable[[Request], Awaitable[Response]]


class TrainingApi:
    """The training endpoints over ``runner`` (None: a page that only watches); ``read_json`` reads a
    request's body as the page's other endpoints do."""

    def __init__(
        self,
        runner: GameRunner | None,
        games_dir: Path,
        static: Path,
        read_json: Callable[[Request], Awaitable[object]],
        *,
        store_path: Path | None = None,
    ) -> None:
        self.runner = runner
        self._read = read_json
        self.games_dir = games_dir
        self.static = static
        self.store_path = store_path
        self.table: PuzzleTable | None = None
        self._reviewing: dict[str, tuple[int, int]] = {}
        self._review_errors: dict[str, str] = {}
        self._lock = threading.Lock()
        self.review_limit = chess.engine.Limit(depth=PAGE_REVIEW_DEPTH)

    def store(self) -> PuzzleStore:
        return PuzzleStore(self.store_path)

    def _runner(self) -> GameRunner:
        if self.runner is None:
            raise BusyError(_("this page only watches; start `chessatron serve` to train from a page"))
        return self.runner

    async def page(self, request: Request) -> Response:
        return FileResponse(self.static / "training.html", media_type="text/html")

    async def summary(self, request: Request) -> Response:
        def read() -> dict[str, Any]:
            store = self.store()
            rating = store.rating()
            return {
                "rating": round(rating.rating),
                "deviation": round(rating.deviation),
                "provisional": rating.is_provisional,
                "attempts": [attempt.to_json() for attempt in store.attempts()],
                "puzzles": {
                    source: store.count(Filters(source=source)) for source in ("starter", "lichess", "game")
                },
                "themes": [theme for theme, _count in store.themes()[:40]],
                "theme_names": {theme: theme_name(theme) for theme, _count in store.themes()},
                "players": list(PUZZLE_PLAYERS),
            }

        return JSONResponse(await run_in_threadpool(read))

    async def puzzles(self, request: Request) -> Response:
        body = validate.fields(
            await self._read(request),
            {"player": (str,), "count": (int,), "rating": (int,), "theme": (str,)},
        )
        with validate.about("player"):
            spec = PlayerSpec.parse(str(body.get("player") or "web"))
            if spec.kind not in PUZZLE_PLAYERS and spec.kind != "web":
                raise ConfigError(_("a {kind!r} player cannot solve puzzles here").format(kind=spec.kind))
        count = int(body.get("count") or 10)
        if not 1 <= count <= MAX_COUNT:
            raise BadRequestError(
                _('"count" is {count}; play 1 to {most} puzzles at a time').format(
                    count=count, most=MAX_COUNT
                )
            )
        rating = body.get("rating")
        if rating is not None and not 400 <= int(rating) <= 3500:
            raise BadRequestError(
                _('"rating" is {rating}; give a rating from 400 to 3500').format(rating=rating)
            )
        theme = theme_id(str(body.get("theme") or "")) or None  # an id, or its name as the page shows it
        runner = self._runner()
        store = self.store()

        def work(session: Session) -> None:
            table = PuzzleTable(
                session,
                store,
                spec,
                filters=Filters(theme=theme),
                rating=None if rating is None else int(rating),
            )
            self.table = table
            try:
                table.play(count)
            finally:
                self.table = None

        runner.start_training(work)
        return JSONResponse({"accepted": "puzzles", "player": spec.spec, "count": count}, 202)

    async def request(self, request: Request) -> Response:
        body = validate.fields(await self._read(request), {"what": (str,)}, ("what",))
        what = str(body["what"])
        if what not in ("hint", "give up"):
            raise BadRequestError(_('"what" is {what!r}; ask for "hint" or "give up"').format(what=what))
        table = self.table
        if table is None:
            raise NotYourTurnError(_("no puzzle is under way"))
        table.request("hint" if what == "hint" else "give up")
        return JSONResponse({"accepted": what}, 202)

    async def solution(self, request: Request) -> Response:
        """The solution of a puzzle played: the person's position, then the position after each move of
        the line (the board, the move, its SAN), for the page to step through."""
        puzzle_id = str(request.path_params["puzzle_id"])
        if not PUZZLE_ID.fullmatch(puzzle_id):
            raise BadRequestError(
                _("no puzzle can be called {puzzle!r}; the page names those played").format(
                    puzzle=puzzle_id[:40]
                )
            )
        if self.table is not None and self.runner is not None:
            shown = self.runner.live.snapshot().get("training") or {}
            if shown.get("id") == puzzle_id and shown.get("state") not in ("solved", "failed"):
                raise NotYourTurnError(_("this puzzle is under way: its solution shows once it is over"))
        try:
            puzzle = await run_in_threadpool(self.store().get, puzzle_id)
        except NoPuzzleError as exc:
            raise BadRequestError(str(exc), 404) from exc
        return JSONResponse(solution_json(puzzle))

    async def review(self, request: Request) -> Response:
        game_id = validate.game_id(str(request.path_params["game_id"]))
        only_kept = request.query_params.get("only") == "kept"
        store = self.store()
        try:
            kept = await run_in_threadpool(
                kept_review, game_id, self.games_dir, store, limit=self.review_limit
            )
        except GameNotFoundError as exc:
            raise GameNotFoundError(
                _("no saved game {game!r}; the list of saved games shows those there are").format(
                    game=game_id
                )
            ) from exc
        if kept is not None:
            return JSONResponse(kept.summary)
        if only_kept:
            return Response(status_code=204)
        with self._lock:
            failed = self._review_errors.pop(game_id, None)
            if failed is not None:
                raise ChessatronError(failed)
            progress = self._reviewing.get(game_id)
            if progress is None:
                self._reviewing[game_id] = (0, 0)
                threading.Thread(
                    target=self._review, args=(game_id, store), name="chessatron-review", daemon=True
                ).start()
                progress = (0, 0)
        return JSONResponse({"reviewing": game_id, "done": progress[0], "of": progress[1]}, 202)

    def _review(self, game_id: str, store: PuzzleStore) -> None:
        def advance(done: int, total: int) -> None:
            with self._lock:
                self._reviewing[game_id] = (done, total)

        try:
            engine = self.runner.session.engine_path if self.runner is not None else "stockfish"
            review_game(
                game_id, self.games_dir, store, limit=self.review_limit, engine_path=engine, progress=advance
            )
        except ChessatronError as exc:
            with self._lock:
                self._review_errors[game_id] = str(exc)
        except Exception as exc:  # the page hears of it; the log has the traceback
            LOGGER.exception("the review of game %s failed", game_id)
            with self._lock:
                self._review_errors[game_id] = _("the review failed: {error!r}").format(error=exc)
        finally:
            with self._lock:
                self._reviewing.pop(game_id, None)

    async def replay(self, request: Request) -> Response:
        body = validate.fields(
            await self._read(request), {"game": (str,), "ply": (int,), "player": (str,)}, ("game", "ply")
        )
        game_id = validate.game_id(str(body["game"]))
        runner = self._runner()
        try:
            record = await run_in_threadpool(games.load_game, game_id, self.games_dir)
        except GameNotFoundError as exc:
            raise GameNotFoundError(
                _("no saved game {game!r}; the list of saved games shows those there are").format(
                    game=game_id
                )
            ) from exc
        ply = validate.ply(str(body["ply"]), record.plies)
        if ply < 1:
            raise BadRequestError(_('"ply" counts the game\'s moves from 1: the move to play again'))
        board = record.start_board()
        for move in record.moves[: ply - 1]:
            board.push(move)
        person = validate.player(str(body.get("player") or "web"))
        sides = (person, "engine") if board.turn == chess.WHITE else ("engine", person)
        game = GameRequest(white=sides[0], black=sides[1], fen=board.fen())
        await run_in_threadpool(runner.start_game, game)
        return JSONResponse(
            {"accepted": "replay", "fen": board.fen(), "white": sides[0], "black": sides[1]}, 202
        )

    async def watcher(self, request: Request) -> Response:
        body = validate.fields(await self._read(request), {"take_back": (bool,)}, ("take_back",))
        watcher = self._runner().session.watcher
        if not isinstance(watcher, MoveWatcher):
            raise ConfigError(_("the watcher is off; set [training] watcher = true in the config"))
        watcher.answer(bool(body["take_back"]))
        return JSONResponse({"accepted": "watcher", "take_back": bool(body["take_back"])}, 202)


def training_routes(api: TrainingApi, answering: Callable[[Endpoint], Endpoint], prefix: str) -> list[Route]:
    """The training page and its API routes (``answering`` turns the errors into answers, as the page's)."""
    return [
        Route("/training", api.page, methods=["GET"]),
        Route(prefix + "/training", answering(api.summary), methods=["GET"]),
        Route(prefix + "/training/puzzles", answering(api.puzzles), methods=["POST"]),
        Route(prefix + "/training/request", answering(api.request), methods=["POST"]),
        Route(prefix + "/training/puzzle/{puzzle_id}", answering(api.solution), methods=["GET"]),
        Route(prefix + "/training/review/{game_id}", answering(api.review), methods=["GET"]),
        Route(prefix + "/training/replay", answering(api.replay), methods=["POST"]),
        Route(prefix + "/training/watcher", answering(api.watcher), methods=["POST"]),
    ]


def solution_json(puzzle: Puzzle) -> dict[str, Any]:
    """``puzzle``'s solution for the page: ``positions`` from the person's (after the opponent's move that
    sets the puzzle) to the line's end, each ``{"fen" (the board), "uci", "san" (the move that led there),
    "check": the side in check or None}``; ``text`` the line as written (``2. Rd8#``)."""
    board = puzzle.start_board()
    line = puzzle.line()
    positions = []
    for move in line:
        san = board.san(move)
        board.push(move)
        check = chess.COLOR_NAMES[board.turn] if board.is_check() else None
        positions.append({"fen": board.board_fen(), "uci": move.uci(), "san": san, "check": check})
    return {
        "id": puzzle.puzzle_id,
        "colour": chess.COLOR_NAMES[puzzle.colour],
        "positions": positions,
        "text": puzzle.position().variation_san(line[1:]),
    }
