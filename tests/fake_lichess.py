"""A fake lichess server for the tests: a real HTTP server on loopback (Starlette served by uvicorn in a
thread) speaking the endpoints chessatron uses, written from the lichess API's published OpenAPI
specification (doc/specs in lichess-org/api): the account, token test, the event stream and the Board and
Bot APIs' game streams (NDJSON, an empty keep-alive line every ``keepalive_s``), moves, draw and takeback
offers both ways, resign, abort, claim-victory, challenges (to a user, to the AI, accept, decline,
cancel), seeks, clocks, and a first move that does not come in time aborting the game.

It also does what a test needs of a server: a scripted opponent (the lichess AI, a seek's partner, a
challenged account that accepts by itself) that moves, offers and answers as told; streams dropped on
demand (cleanly or by cutting the connection); HTTP 429 answers on demand; and a record of every request.
berserk talks to it as to the real server (``Client(session, base_url=fake.url)``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import chess
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from chessatron.web.server import ServerHandle, start_in_thread

Policy = Callable[[chess.Board], chess.Move]
#: What a stream cut on purpose raises (uvicorn logs it as an application error: not one here).
CUT = "the fake server cuts the stream"


class _QuietCuts(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        while error is not None:
            if str(error) == CUT:
                return False
            error = error.__cause__ or error.__context__
        return True


logging.getLogger("uvicorn.error").addFilter(_QuietCuts())


def random_mover(seed: int = 1) -> Policy:
    """A weak opponent: a capture when it has one, else any legal move (seeded)."""
    rng = random.Random(seed)

    def choose(board: chess.Board) -> chess.Move:
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        captures = [m for m in moves if board.is_capture(m)]
        return rng.choice(captures or moves)

    return choose


@dataclass
class Script:
    """How the scripted opponent plays: its moves (``policy``), how long it takes for each, when it offers a
    draw or asks to take back its last move (with its first move that makes the game at least that many
    plies long), whether it agrees to the table's offers, when it resigns or leaves the game (at that many
    plies)."""

    policy: Policy = field(default_factory=random_mover)
    delay_s: float = 0.0
    offer_draw_at: int | None = None
    propose_takeback_at: int | None = None
    accepts_draw: bool = False
    accepts_takeback: bool = True
    resign_at: int | None = None
    leave_at: int | None = None
    claim_win_in_s: int = 1
    answer_s: float = 0.05


@dataclass
class User:
    id: str
    name: str
    token: str
    title: str | None = None
    scopes: str = "board:play,challenge:write"
    #: Challenges to this account are accepted at once, and it plays by ``script`` (a scripted opponent).
    script: Script | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    def light(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "title": self.title, "rating": 1500}


@dataclass
class Game:
    id: str
    white: User | None
    black: User | None
    variant: str = "standard"
    initial_fen: str | None = None
    clock: tuple[int, int] | None = None
    rated: bool = False
    source: str = "friend"
    ai_level: int | None = None
    #: The side the scripted opponent plays, and how.
    scripted: chess.Color | None = None
    script: Script | None = None
    board: chess.Board = field(default_factory=chess.Board)
    status: str = "started"
    winner: chess.Color | None = None
    draw_offer: chess.Color | None = None
    takeback_offer: chess.Color | None = None
    times_ms: list[float] = field(default_factory=lambda: [0.0, 0.0])
    last_move_at: float = field(default_factory=time.monotonic)
    created_at: float = field(default_factory=time.monotonic)
    version: int = 0
    gone: bool = False
    answered_at: int = -1

    def player(self, colour: chess.Color) -> User | None:
        return self.white if colour == chess.WHITE else self.black

    def colour_of(self, user: User) -> chess.Color | None:
        if self.white is user:
            return chess.WHITE
        if self.black is user:
            return chess.BLACK
        return None

    @property
    def over(self) -> bool:
        return self.status not in ("created", "started")

    def uci_moves(self) -> list[str]:
        replay = chess.Board(self.board.root().fen(), chess960=self.board.chess960)
        moves = []
        for move in self.board.move_stack:
            moves.append(replay.uci(move))
            replay.push(move)
        return moves

    def seat(self, colour: chess.Color) -> dict[str, Any]:
        user = self.player(colour)
        if user is None:
            return {"aiLevel": self.ai_level, "id": None, "name": f"Stockfish level {self.ai_level}"}
        return {"id": user.id, "name": user.name, "title": user.title, "rating": 1500}

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "type": "gameState",
            "moves": " ".join(self.uci_moves()),
            "wtime": int(self.times_ms[0]) if self.clock else 2147483647,
            "btime": int(self.times_ms[1]) if self.clock else 2147483647,
            "winc": self.clock[1] * 1000 if self.clock else 0,
            "binc": self.clock[1] * 1000 if self.clock else 0,
            "status": self.status,
        }
        if self.winner is not None:
            state["winner"] = chess.COLOR_NAMES[self.winner]
        if self.draw_offer is not None:
            state["wdraw" if self.draw_offer == chess.WHITE else "bdraw"] = True
        if self.takeback_offer is not None:
            state["wtakeback" if self.takeback_offer == chess.WHITE else "btakeback"] = True
        return state

    def full(self, first_move_ms: int) -> dict[str, Any]:
        state = self.state()
        if len(self.board.move_stack) < 2 and not self.over:
            idle = int((time.monotonic() - self.last_move_at) * 1000)
            state["expiration"] = {"idleMillis": idle, "millisToMove": first_move_ms}
        return {
            "type": "gameFull",
            "id": self.id,
            "variant": {"key": self.variant, "name": self.variant.capitalize(), "short": "Std"},
            "speed": "rapid" if self.clock else "correspondence",
            "perf": {"name": "Rapid"},
            "rated": self.rated,
            "createdAt": 1745112707998,
            "white": self.seat(chess.WHITE),
            "black": self.seat(chess.BLACK),
            "initialFen": self.initial_fen or "startpos",
            "clock": {"initial": self.clock[0] * 1000, "increment": self.clock[1] * 1000}
            if self.clock
            else None,
            "state": state,
        }

    def event_info(self, user: User) -> dict[str, Any]:
        colour = self.colour_of(user)
        assert colour is not None
        opponent = self.player(not colour)
        return {
            "fullId": self.id + "abcd",
            "gameId": self.id,
            "id": self.id,
            "fen": self.board.fen(),
            "color": chess.COLOR_NAMES[colour],
            "lastMove": "",
            "source": self.source,
            "status": {"id": 20, "name": self.status},
            "variant": {"key": self.variant, "name": self.variant},
            "speed": "rapid",
            "perf": "rapid",
            "rated": self.rated,
            "hasMoved": bool(self.board.move_stack),
            "opponent": {"id": opponent.id, "username": opponent.name, "rating": 1500}
            if opponent is not None
            else {"id": None, "username": f"Stockfish level {self.ai_level}", "ai": self.ai_level},
            "isMyTurn": self.board.turn == colour,
            "compat": {"bot": False, "board": True},
        }


class _Counting:
    """Counts the requests (streams aside) the server answers at once, each taking ``fake.answer_s``."""

    STREAMS = ("/api/stream/event", "/game/stream/", "/api/board/seek")

    def __init__(self, app: ASGIApp, fake: FakeLichess) -> None:
        self.app = app
        self.fake = fake

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or any(part in path for part in self.STREAMS):
            await self.app(scope, receive, send)
            return
        fake = self.fake
        with fake.lock:
            fake.in_flight += 1
            fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
        try:
            await asyncio.sleep(fake.answer_s)
            await self.app(scope, receive, send)
        finally:
            with fake.lock:
                fake.in_flight -= 1


class FakeLichess:
    """The fake server's world (accounts, challenges, games) and its HTTP app; :meth:`start` serves it.

    ``first_move_s``: a game whose first moves do not come in time is aborted. ``keepalive_s``: how often
    the streams send an empty line."""

    def __init__(self, *, keepalive_s: float = 0.25, first_move_s: float = 60.0, seed: int = 7) -> None:
        self.keepalive_s = keepalive_s
        self.first_move_s = first_move_s
        self.rng = random.Random(seed)
        self.lock = threading.RLock()
        self.users: dict[str, User] = {}
        self.games: dict[str, Game] = {}
        self.challenges: dict[str, dict[str, Any]] = {}
        self.seeks: list[tuple[User, dict[str, Any]]] = []
        #: Every request: (method, path).
        self.requests: list[tuple[str, str]] = []
        #: Requests to answer with HTTP 429 (path regex, how many more times).
        self.too_many: list[list[Any]] = []
        #: The default script of the opponents the server makes up (the AI, a seek's partner).
        self.script = Script()
        #: Requests (streams aside) being answered now, the most ever at once, and how long each takes.
        self.in_flight = 0
        self.most_in_flight = 0
        self.answer_s = 0.0
        self.stalled_until = 0.0
        self._drops: dict[str, int] = {}
        self._abrupt = False
        self._closed = threading.Event()
        self._handle: ServerHandle | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    # --- set-up ------------------------------------------------------------------------------------

    def add_user(
        self,
        name: str,
        token: str,
        *,
        title: str | None = None,
        script: Script | None = None,
        scopes: str = "board:play,challenge:write",
    ) -> User:
        user = User(name.lower(), name, token, title, scopes, script)
        with self.lock:
            self.users[user.id] = user
        return user

    def start(self) -> FakeLichess:
        self._handle = start_in_thread(self.app())
        self.url = self._handle.url.rstrip("/")
        self._thread = threading.Thread(target=self._referee, name="fake-lichess", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closed.set()
        if self._handle is not None:
            self._handle.stop(5.0)
        if self._thread is not None:
            self._thread.join(5.0)

    def __enter__(self) -> FakeLichess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what a test does to the server ------------------------------------------------------------

    def drop_streams(self, *, abrupt: bool = False) -> None:
        """End every game stream now (``abrupt``: by cutting the connection)."""
        with self.lock:
            self._abrupt = abrupt
            for game_id in self.games:
                self._drops[game_id] = self._drops.get(game_id, 0) + 1

    def stall_streams(self, seconds: float) -> None:
        """Let every stream go silent (not even keep-alive lines) for ``seconds``: a server that hangs."""
        with self.lock:
            self.stalled_until = time.monotonic() + seconds

    def answer_429(self, path_pattern: str, times: int = 1) -> None:
        """Answer the next ``times`` requests whose path matches ``path_pattern`` with HTTP 429."""
        with self.lock:
            self.too_many.append([re.compile(path_pattern), times])

    def game(self, game_id: str | None = None) -> Game:
        with self.lock:
            if game_id is None:
                return list(self.games.values())[-1]
            return self.games[game_id]

    def wait_for(self, predicate: Callable[[], bool], timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("the fake lichess server waited in vain")
            time.sleep(0.02)

    # --- the game's rules --------------------------------------------------------------------------

    def _new_id(self) -> str:
        return "".join(
            self.rng.choice("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8)
        )

    def _create_game(
        self,
        game_id: str,
        white: User | None,
        black: User | None,
        *,
        variant: str,
        clock: tuple[int, int] | None,
        rated: bool,
        source: str,
        scripted: chess.Color | None = None,
        script: Script | None = None,
        ai_level: int | None = None,
        fen: str | None = None,
    ) -> Game:
        if variant == "chess960":
            number = self.rng.randrange(960)
            board = chess.Board.from_chess960_pos(number)
            fen = board.fen()
        else:
            board = chess.Board(fen or chess.STARTING_FEN)
            fen = fen if fen and fen != chess.STARTING_FEN else None
        game = Game(
            game_id, white, black, variant, fen, clock, rated, source, ai_level, scripted, script, board
        )
        if clock:
            game.times_ms = [clock[0] * 1000.0, clock[0] * 1000.0]
        self.games[game_id] = game
        for user in (white, black):
            if user is not None:
                user.events.append({"type": "gameStart", "game": game.event_info(user)})
        return game

    def _changed(self, game: Game) -> None:
        game.version += 1
        if game.over:
            for user in (game.white, game.black):
                if user is not None:
                    user.events.append({"type": "gameFinish", "game": game.event_info(user)})

    def _tick_clock(self, game: Game) -> None:
        """Charge the side to move for the time since the last move (clocks run from the second move)."""
        if not game.clock or len(game.board.move_stack) < 2 or game.over:
            return
        now = time.monotonic()
        index = 0 if game.board.turn == chess.WHITE else 1
        game.times_ms[index] -= (now - game.last_move_at) * 1000
        game.last_move_at = now

    def _push(self, game: Game, move: chess.Move, *, offer: bool = False, propose: bool = False) -> None:
        self._tick_clock(game)
        mover = game.board.turn
        if game.clock and len(game.board.move_stack) >= 2:
            game.times_ms[0 if mover == chess.WHITE else 1] += game.clock[1] * 1000
        game.board.push(move)
        game.last_move_at = time.monotonic()
        if game.draw_offer is not None and game.draw_offer != mover:
            game.draw_offer = None  # a move declines the other side's offer
        game.takeback_offer = mover if propose else None
        if offer:
            game.draw_offer = mover
        board = game.board
        if board.is_checkmate():
            game.status, game.winner = "mate", mover
        elif board.is_stalemate():
            game.status = "stalemate"
        elif board.is_insufficient_material() or board.is_repetition(3) or board.halfmove_clock >= 100:
            game.status = "draw"
        self._changed(game)

    def _end(self, game: Game, status: str, winner: chess.Color | None) -> None:
        game.status, game.winner = status, winner
        game.draw_offer = game.takeback_offer = None
        self._changed(game)

    def _take_back(self, game: Game, proposer: chess.Color) -> None:
        plies = 2 if game.board.turn == proposer else 1
        for _ in range(min(plies, len(game.board.move_stack))):
            game.board.pop()
        game.takeback_offer = None
        game.last_move_at = time.monotonic()
        self._changed(game)

    def _referee(self) -> None:
        """The server's own moves: scripted opponents, expirations, flags."""
        while not self._closed.is_set():
            with self.lock:
                for game in list(self.games.values()):
                    if not game.over:
                        self._rule(game)
            time.sleep(0.005)

    def _rule(self, game: Game) -> None:
        now = time.monotonic()
        plies = len(game.board.move_stack)
        if plies < 2 and now - game.last_move_at > self.first_move_s:
            self._end(game, "aborted", None)
            return
        if game.clock and plies >= 2:
            index = 0 if game.board.turn == chess.WHITE else 1
            if game.times_ms[index] - (now - game.last_move_at) * 1000 <= 0:
                game.times_ms[index] = 0
                self._end(game, "outoftime", not game.board.turn)
                return
        side, script = game.scripted, game.script
        if side is None or script is None:
            return
        if script.leave_at is not None and plies >= script.leave_at and not game.gone:
            game.gone = True
            game.version += 1
        if game.gone:
            return
        if script.resign_at is not None and plies >= script.resign_at:
            self._end(game, "resign", not side)
            return
        if game.answered_at != game.version and now - game.last_move_at >= script.answer_s:
            if game.draw_offer == (not side):
                game.answered_at = game.version
                if script.accepts_draw:
                    self._end(game, "draw", None)
                    return
                game.draw_offer = None
                self._changed(game)
            if game.takeback_offer == (not side):
                game.answered_at = game.version
                if script.accepts_takeback:
                    self._take_back(game, not side)
                else:
                    game.takeback_offer = None
                    self._changed(game)
                return
        if game.board.turn == side and now - game.last_move_at >= script.delay_s:
            # its offers come with its move, as a move can offer a draw on lichess
            offers = script.offer_draw_at is not None and plies + 1 >= script.offer_draw_at
            proposes = script.propose_takeback_at is not None and plies + 1 >= script.propose_takeback_at
            if offers:
                script.offer_draw_at = None
            if proposes:
                script.propose_takeback_at = None
            self._push(game, script.policy(game.board), offer=offers, propose=proposes)

    # --- HTTP --------------------------------------------------------------------------------------

    def app(self) -> Starlette:
        routes = [
            Route("/api/account", self.h_account),
            Route("/api/token/test", self.h_token_test, methods=["POST"]),
            Route("/api/stream/event", self.h_events),
            Route("/api/challenge/ai", self.h_challenge_ai, methods=["POST"]),
            Route("/api/challenge/{challenge_id}/accept", self.h_accept, methods=["POST"]),
            Route("/api/challenge/{challenge_id}/decline", self.h_decline, methods=["POST"]),
            Route("/api/challenge/{challenge_id}/cancel", self.h_cancel, methods=["POST"]),
            Route("/api/challenge/{username}", self.h_challenge, methods=["POST"]),
            Route("/api/board/seek", self.h_seek, methods=["POST"]),
        ]
        for api in ("board", "bot"):
            routes += [
                Route(f"/api/{api}/game/stream/{{game_id}}", self.h_game_stream),
                Route(f"/api/{api}/game/{{game_id}}/move/{{move}}", self.h_move, methods=["POST"]),
                Route(f"/api/{api}/game/{{game_id}}/{{action}}/", self.h_action, methods=["POST"]),
                Route(f"/api/{api}/game/{{game_id}}/{{action}}/{{answer}}", self.h_offer, methods=["POST"]),
                Route(f"/api/{api}/game/{{game_id}}/{{action}}", self.h_action, methods=["POST"]),
            ]
        return Starlette(routes=routes, middleware=[Middleware(_Counting, fake=self)])

    def _user(self, request: Request) -> User | Response:
        with self.lock:
            self.requests.append((request.method, request.url.path))
            for entry in self.too_many:
                if entry[1] > 0 and entry[0].search(request.url.path):
                    entry[1] -= 1
                    return JSONResponse({"error": "Too many requests. Try again later."}, status_code=429)
            header = request.headers.get("authorization", "")
            token = header.removeprefix("Bearer ").strip()
            for user in self.users.values():
                if user.token == token:
                    return user
        return JSONResponse({"error": "No such token"}, status_code=401)

    async def _form(self, request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").startswith("application/json"):
            data = await request.json()
            return {k: v for k, v in (data or {}).items() if v is not None}
        fields = parse_qs((await request.body()).decode(), keep_blank_values=False)
        return {k: v[-1] for k, v in fields.items()}

    @staticmethod
    def _error(message: str, status: int = 400) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def h_account(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        return JSONResponse({"id": user.id, "username": user.name, "title": user.title, "perfs": {}})

    async def h_token_test(self, request: Request) -> Response:
        body = (await request.body()).decode()
        answer: dict[str, Any] = {}
        with self.lock:
            for token in filter(None, body.split(",")):
                user = next((u for u in self.users.values() if u.token == token), None)
                answer[token] = (
                    None if user is None else {"userId": user.id, "scopes": user.scopes, "expires": None}
                )
        return JSONResponse(answer)

    async def _ndjson(self, lines: AsyncIterator[dict[str, Any] | None]) -> AsyncIterator[bytes]:
        async for line in lines:
            yield b"\n" if line is None else (json.dumps(line) + "\n").encode()

    async def h_events(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user

        async def lines() -> AsyncIterator[dict[str, Any] | None]:
            with self.lock:
                sent = len(user.events)
                opening: list[dict[str, Any]] = [
                    {"type": "challenge", "challenge": c}
                    for c in self.challenges.values()
                    if c["status"] == "created" and user.id in (c["challenger"]["id"], c["destUser"]["id"])
                ]
                opening += [
                    {"type": "gameStart", "game": g.event_info(user)}
                    for g in self.games.values()
                    if not g.over and g.colour_of(user) is not None
                ]
            for line in opening:
                yield line
            last = time.monotonic()
            while not self._closed.is_set():
                with self.lock:
                    new, sent = user.events[sent:], len(user.events)
                for line in new:
                    yield line
                if time.monotonic() - last >= self.keepalive_s:
                    last = time.monotonic()
                    yield None
                await asyncio.sleep(0.01)

        return StreamingResponse(self._ndjson(lines()), media_type="application/x-ndjson")

    def _clock(self, data: dict[str, Any]) -> tuple[int, int] | None:
        if data.get("clock.limit") is None:
            return None
        return int(data["clock.limit"]), int(data.get("clock.increment") or 0)

    async def h_challenge_ai(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        data = await self._form(request)
        level = int(data.get("level", 1))
        if not 1 <= level <= 8:
            return self._error("level: must be between 1 and 8")
        colour = data.get("color", "random")
        if colour == "random":
            colour = self.rng.choice(["white", "black"])
        with self.lock:
            game_id = self._new_id()
            ours = chess.WHITE if colour == "white" else chess.BLACK
            white, black = (user, None) if ours == chess.WHITE else (None, user)
            game = self._create_game(
                game_id,
                white,
                black,
                variant=data.get("variant", "standard"),
                clock=self._clock(data),
                rated=False,
                source="ai",
                scripted=not ours,
                script=self.script,
                ai_level=level,
            )
            info = {
                "id": game.id,
                "variant": {"key": game.variant},
                "speed": "rapid",
                "perf": "rapid",
                "rated": False,
                "fen": game.board.fen(),
                "turns": 0,
                "source": "ai",
                "status": {"id": 20, "name": "started"},
                "player": colour,
                "fullId": game.id + "abcd",
            }
        return JSONResponse(info, status_code=201)

    async def h_challenge(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        data = await self._form(request)
        name = request.path_params["username"].lower()
        with self.lock:
            dest = self.users.get(name)
            if dest is None:
                return self._error(f"No such user: {name}", 404)
            challenge_id = self._new_id()
            clock = self._clock(data)
            challenge = {
                "id": challenge_id,
                "url": f"{self.url}/{challenge_id}",
                "status": "created",
                "challenger": user.light(),
                "destUser": dest.light(),
                "variant": {"key": data.get("variant") or "standard", "name": "Standard", "short": "Std"},
                "rated": str(data.get("rated", False)).lower() == "true",
                "speed": "rapid" if clock else "correspondence",
                "timeControl": {
                    "type": "clock",
                    "limit": clock[0],
                    "increment": clock[1],
                    "show": f"{clock[0] // 60}+{clock[1]}",
                }
                if clock
                else {"type": "unlimited"},
                "color": data.get("color") or "random",
                "perf": {"icon": "", "name": "Rapid"},
            }
            self.challenges[challenge_id] = challenge
            for who, direction in ((user, "out"), (dest, "in")):
                who.events.append(
                    {
                        "type": "challenge",
                        "challenge": {**challenge, "direction": direction},
                        "compat": {"bot": False, "board": True},
                    }
                )
            if dest.script is not None:
                self._start_challenge(challenge_id)
        return JSONResponse({**challenge, "direction": "out"})

    def _start_challenge(self, challenge_id: str) -> Game:
        challenge = self.challenges[challenge_id]
        challenge["status"] = "accepted"
        challenger = self.users[challenge["challenger"]["id"]]
        dest = self.users[challenge["destUser"]["id"]]
        colour = challenge["color"]
        if colour == "random":
            colour = self.rng.choice(["white", "black"])
        white, black = (challenger, dest) if colour == "white" else (dest, challenger)
        limit = challenge["timeControl"].get("limit")
        clock = (limit, challenge["timeControl"]["increment"]) if limit else None
        scripted = None if dest.script is None else (chess.WHITE if white is dest else chess.BLACK)
        return self._create_game(
            challenge_id,
            white,
            black,
            variant=challenge["variant"]["key"],
            clock=clock,
            rated=challenge["rated"],
            source="friend",
            scripted=scripted,
            script=dest.script,
        )

    async def h_accept(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        with self.lock:
            challenge = self.challenges.get(request.path_params["challenge_id"])
            if (
                challenge is None
                or challenge["status"] != "created"
                or challenge["destUser"]["id"] != user.id
            ):
                return self._error("Not found.", 404)
            self._start_challenge(challenge["id"])
        return JSONResponse({"ok": True})

    async def h_decline(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        with self.lock:
            challenge = self.challenges.get(request.path_params["challenge_id"])
            if challenge is None or challenge["destUser"]["id"] != user.id:
                return self._error("Not found.", 404)
            challenge["status"] = "declined"
            self.users[challenge["challenger"]["id"]].events.append(
                {
                    "type": "challengeDeclined",
                    "challenge": {
                        **challenge,
                        "declineReason": "I'm not accepting challenges at the moment.",
                    },
                }
            )
        return JSONResponse({"ok": True})

    async def h_cancel(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        with self.lock:
            challenge = self.challenges.get(request.path_params["challenge_id"])
            if challenge is None:
                return self._error("Not found.", 404)
            challenge["status"] = "canceled"
            self.users[challenge["destUser"]["id"]].events.append(
                {"type": "challengeCanceled", "challenge": challenge}
            )
        return JSONResponse({"ok": True})

    async def h_seek(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        if user.title == "BOT":
            return self._error("BOT accounts cannot seek")
        data = await self._form(request)
        minutes, increment = float(data.get("time", 0)), int(data.get("increment", 0))
        if minutes * 60 + 40 * increment < 480:
            return self._error("Invalid time control: the Board API seeks rapid and classical games only")
        seek = {
            "time": minutes,
            "increment": increment,
            "variant": data.get("variant", "standard"),
            "color": data.get("color", "random"),
            "rated": data.get("rated") == "true",
            "game": None,
        }
        with self.lock:
            self.seeks.append((user, seek))

        async def lines() -> AsyncIterator[dict[str, Any] | None]:
            pairs_at = time.monotonic() + 0.2
            while not self._closed.is_set():
                with self.lock:
                    if seek["game"] is not None:
                        return
                    if time.monotonic() >= pairs_at:
                        self._pair(user, seek)
                        return
                yield None
                await asyncio.sleep(min(self.keepalive_s, 0.1))

        return StreamingResponse(self._ndjson(lines()), media_type="application/x-ndjson")

    def _pair(self, user: User, seek: dict[str, Any]) -> None:
        """A seek finds its opponent: another account's matching seek, else a scripted one."""
        partner = next(
            (
                other
                for other, theirs in self.seeks
                if other is not user
                and theirs["game"] is None
                and (theirs["time"], theirs["increment"], theirs["variant"])
                == (seek["time"], seek["increment"], seek["variant"])
            ),
            None,
        )
        clock = (round(seek["time"] * 60), seek["increment"])
        colour = seek["color"] if seek["color"] != "random" else self.rng.choice(["white", "black"])
        opponent = partner or self.users.get("seeker") or self.add_user("Seeker", "seeker-token")
        white, black = (user, opponent) if colour == "white" else (opponent, user)
        scripted = None if partner is not None else (chess.BLACK if colour == "white" else chess.WHITE)
        game = self._create_game(
            self._new_id(),
            white,
            black,
            variant=seek["variant"],
            clock=clock,
            rated=seek["rated"],
            source="lobby",
            scripted=scripted,
            script=self.script if partner is None else None,
        )
        for who, theirs in self.seeks:
            if who in (user, partner) and theirs["game"] is None:
                theirs["game"] = game.id

    def _game_for(self, request: Request, user: User) -> Game | Response:
        with self.lock:
            game = self.games.get(request.path_params["game_id"])
            if game is None:
                return self._error("Not found.", 404)
            if game.colour_of(user) is None:
                return self._error("This is not your game", 400)
            if request.url.path.startswith("/api/bot/") != (user.title == "BOT"):
                return self._error("This endpoint is for the other kind of account", 400)
        return game

    async def h_game_stream(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        game = self._game_for(request, user)
        if isinstance(game, Response):
            return game
        colour = game.colour_of(user)

        async def lines() -> AsyncIterator[dict[str, Any] | None]:
            with self.lock:
                full = game.full(int(self.first_move_s * 1000))
                version, drops, gone = game.version, self._drops.get(game.id, 0), False
            yield full
            if game.over:
                return
            last = time.monotonic()
            while not self._closed.is_set():
                if time.monotonic() < self.stalled_until:
                    await asyncio.sleep(0.01)
                    continue
                with self.lock:
                    if self._drops.get(game.id, 0) != drops:
                        if self._abrupt:
                            raise ConnectionResetError(CUT)
                        return
                    changed, version = game.version != version, game.version
                    state = game.state()
                    over = game.over
                    left = game.gone and colour != game.scripted
                    claim = game.script.claim_win_in_s if game.script else 1
                if changed:
                    yield state
                    if over:
                        return
                if left and not gone:
                    gone = True
                    yield {"type": "opponentGone", "gone": True, "claimWinInSeconds": claim}
                if time.monotonic() - last >= self.keepalive_s:
                    last = time.monotonic()
                    yield None
                await asyncio.sleep(0.01)

        return StreamingResponse(self._ndjson(lines()), media_type="application/x-ndjson")

    async def h_move(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        game = self._game_for(request, user)
        if isinstance(game, Response):
            return game
        with self.lock:
            colour = game.colour_of(user)
            if game.over or game.board.turn != colour:
                return self._error("Not your turn, or game already over")
            try:
                move = game.board.parse_uci(request.path_params["move"])
            except ValueError:
                return self._error(f"Invalid move: {request.path_params['move']}")
            self._push(game, move)
        return JSONResponse({"ok": True})

    async def h_offer(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        game = self._game_for(request, user)
        if isinstance(game, Response):
            return game
        action, yes = request.path_params["action"], request.path_params["answer"] in ("yes", "true")
        with self.lock:
            colour = game.colour_of(user)
            assert colour is not None
            if game.over:
                return self._error("The game is over")
            if action == "draw":
                if yes and game.draw_offer == (not colour):
                    self._end(game, "draw", None)
                elif yes:
                    game.draw_offer = colour
                    self._changed(game)
                elif game.draw_offer is not None:
                    game.draw_offer = None
                    self._changed(game)
            elif action == "takeback":
                if yes and game.takeback_offer == (not colour):
                    self._take_back(game, not colour)
                elif yes and game.board.move_stack:
                    game.takeback_offer = colour
                    self._changed(game)
                elif not yes and game.takeback_offer is not None:
                    game.takeback_offer = None
                    self._changed(game)
            else:
                return self._error(f"Unknown action {action}", 404)
        return JSONResponse({"ok": True})

    async def h_action(self, request: Request) -> Response:
        user = self._user(request)
        if isinstance(user, Response):
            return user
        game = self._game_for(request, user)
        if isinstance(game, Response):
            return game
        action = request.path_params["action"]
        with self.lock:
            colour = game.colour_of(user)
            assert colour is not None
            if game.over:
                return self._error("The game is over")
            if action == "resign":
                self._end(game, "resign", not colour)
            elif action == "abort":
                if len(game.board.move_stack) >= 2:
                    return self._error("The game can no longer be aborted")
                self._end(game, "aborted", None)
            elif action == "claim-victory":
                if not game.gone:
                    return self._error("The opponent has not left the game")
                self._end(game, "timeout", colour)
            else:
                return self._error(f"Unknown action {action}", 404)
        return JSONResponse({"ok": True})
