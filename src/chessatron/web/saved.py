"""The web page's saved games: the list, one game for the viewer, its board at any ply and the PGN
downloads. Routes beside the page's API (:mod:`.app` adds them):

=======================================  ===========================================================
``GET  /api/v1/games``                   the saved games, newest first
``GET  /api/v1/games/{id}``              one game for the viewer: headers, players, variant (the
                                         Chess960 number), result, how it ended, start FEN, the moves
                                         as UCI and SAN, the board after each, whether it can be
                                         continued
``GET  /api/v1/games/{id}/board.svg``    its board after ``?ply=N`` half-moves (default: the end;
                                         past the end 422), the last move marked; ``&orientation=black``
``GET  /api/v1/games/{id}.pgn``          one game's PGN (a download)
``GET  /api/v1/games.pgn``               every saved game's PGN
=======================================  ===========================================================

An unknown game is answered 404 naming only its id, never the server's games folder.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Final

import chess
import chess.pgn
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..errors import GameNotFoundError
from ..game.records import store
from ..game.records.pgn import to_pgn
from ..game.records.record import GameRecord, Player, Termination, termination_of
from ..game.records.store import GameSummary
from ..i18n import _
from . import validate
from .pictures import SVG_POLICY, SVG_TYPE, saved_board_svg

__all__ = ["SavedGamesApi", "saved_game_json", "saved_routes", "unknown_game"]

PGN_TYPE: Final = "application/x-chess-pgn"

Endpoint = Callable[[Request], Awaitable[Response]]


class SavedGamesApi:
    """The saved games' endpoints over the games in ``games_dir``."""

    def __init__(self, games_dir: Path) -> None:
        self.games_dir = games_dir

    async def games(self, request: Request) -> Response:
        summaries = await run_in_threadpool(store.list_games, self.games_dir)
        return JSONResponse(
            [
                {
                    "id": s.game_id,
                    "started": s.stored.isoformat(timespec="seconds"),
                    "date": s.date.isoformat() if s.date else None,
                    "white": s.white.name or s.white.kind,
                    "black": s.black.name or s.black.kind,
                    "variant": s.variant,
                    "result": s.result,
                    "plies": s.plies,
                    "in_progress": s.in_progress,
                }
                for s in reversed(summaries)
            ]
        )

    async def saved_game(self, request: Request) -> Response:
        game_id = validate.game_id(str(request.path_params["game_id"]))
        with unknown_game(game_id):
            summary, record = await run_in_threadpool(store.open_game, game_id, self.games_dir)
        return JSONResponse(saved_game_json(summary, record))

    async def saved_board(self, request: Request) -> Response:
        game_id = validate.game_id(str(request.path_params["game_id"]))
        orientation = validate.orientation(request.query_params.get("orientation"))
        with unknown_game(game_id):
            record = await run_in_threadpool(store.load_game, game_id, self.games_dir)
        ply = validate.ply(request.query_params.get("ply"), record.plies)
        svg = await run_in_threadpool(saved_board_svg, record, ply, orientation)
        return Response(svg, media_type=SVG_TYPE, headers={"content-security-policy": SVG_POLICY})

    async def game_pgn(self, request: Request) -> Response:
        game_id = validate.game_id(str(request.path_params["game_id"]))
        with unknown_game(game_id):
            text = await run_in_threadpool(store.export_pgn, [game_id], self.games_dir)
        return _pgn(text, f"chessatron-{game_id}.pgn")

    async def all_pgn(self, request: Request) -> Response:
        def export() -> str:
            return store.export_pgn([s.game_id for s in store.list_games(self.games_dir)], self.games_dir)

        return _pgn(await run_in_threadpool(export), "chessatron-games.pgn")


def saved_routes(api: SavedGamesApi, answering: Callable[[Endpoint], Endpoint], prefix: str) -> list[Route]:
    """The saved games' API routes (``answering`` turns the errors into answers, as the page's)."""
    return [
        Route(prefix + "/games", answering(api.games), methods=["GET"]),
        Route(prefix + "/games.pgn", answering(api.all_pgn), methods=["GET"]),
        # before the next two: an id has no dot
        Route(prefix + "/games/{game_id}.pgn", answering(api.game_pgn), methods=["GET"]),
        Route(prefix + "/games/{game_id}", answering(api.saved_game), methods=["GET"]),
        Route(prefix + "/games/{game_id}/board.svg", answering(api.saved_board), methods=["GET"]),
    ]


@contextlib.contextmanager
def unknown_game(game_id: str | None) -> Iterator[None]:
    """An unknown ``game_id`` said without the server's games folder (the store's message names it): a
    :class:`~chessatron.errors.GameNotFoundError` (404) that names only the id."""
    try:
        yield
    except GameNotFoundError as exc:
        raise GameNotFoundError(
            _("no saved game {game!r}; the list of saved games shows those there are").format(game=game_id)
        ) from exc


def saved_game_json(summary: GameSummary, record: GameRecord) -> dict[str, Any]:
    """What the page's viewer shows of a saved game: who played it when, the start (``chess960``: its
    start number, when it is one of the 960), the moves as UCI and SAN with the board after each
    (``boards``: the board part of the FEN, the start first), how it ended, and whether it can be
    continued (``in_progress``); ``headers`` are those of its PGN."""
    board = record.start_board()
    san = []
    boards = [board.board_fen()]
    for move in record.moves:
        san.append(board.san(move))
        board.push(move)
        boards.append(board.board_fen())
    headers = chess.pgn.read_headers(io.StringIO(to_pgn(record)))
    return {
        "id": summary.game_id,
        "started": summary.stored.isoformat(timespec="seconds"),
        "date": record.date.isoformat() if record.date else None,
        "event": record.event or None,
        "site": record.site or None,
        "white": _player_json(record.white),
        "black": _player_json(record.black),
        "variant": record.variant,
        "chess960": record.start_number if record.chess960 else None,
        "start_fen": record.start_fen,
        "result": record.result,
        "termination": record.termination or _ending(board, record.result),
        "time_control": record.clock.time_control() if record.clock else None,
        "in_progress": summary.in_progress,
        "plies": record.plies,
        "uci": [move.uci() for move in record.moves],
        "san": san,
        "boards": boards,
        "headers": dict(headers) if headers is not None else {},
    }


def _ending(final: chess.Board, result: str) -> Termination | None:
    """How a game whose PGN does not say so ended, when its ``final`` position says it (a mate, a
    stalemate)."""
    outcome = final.outcome()
    return termination_of(outcome) if outcome is not None and outcome.result() == result else None


def _player_json(player: Player) -> dict[str, str | None]:
    return {"name": player.name or None, "kind": player.kind, "level": player.level, "spec": player.spec}


def _pgn(text: str, filename: str) -> Response:
    return Response(
        text,
        media_type=PGN_TYPE,
        headers={"content-disposition": f'attachment; filename="{filename}"'},
    )
