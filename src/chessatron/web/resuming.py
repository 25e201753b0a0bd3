"""What the page's *Resume last game* would continue, so that it can name the game and ask before the robot
moves a piece: ``GET /api/v1/resume`` (:mod:`.app` serves it).

The answer is ``{"game": {...}|null, "others": [{...}, ...]}``: ``game`` is what ``POST /api/v1/resume``
without an id continues (the latest unfinished game with a move, see
:func:`~chessatron.game.records.store.latest_resumable`), or with ``?game=<id>`` that one (404 unknown, 409
over or imported); ``others`` are the other unfinished games waiting to go on, newest first (at most
:data:`OTHERS_SHOWN`). Each says:

``id``, ``white``, ``black``
    the game and its players as it was played (``keyboard``, ``engine:3``…);
``plays``
    ``{"white", "black"}``: who plays each side once it goes on here (a side typed at the server's
    terminal is played on the page, see :meth:`~chessatron.game.runner.GameRunner.handed_over`);
``variant``, ``chess960``, ``start_fen``
    its start (``chess960``: its number, 0-959, when it began from one of the 960);
``plies``, ``moves``, ``clock``
    how far it went (half-moves, and moves begun: 1. e4 is one), its time control or None;
``started``, ``stopped``, ``stopped_s_ago``
    when it began and when it was last played (ISO 8601, UTC), and how many seconds ago that was by the
    server's clock (a phone's clock may be off);
``where``
    where it was started: ``"terminal"`` (a side typed at a terminal, ``chessatron play``), ``"page"``
    (a side played on the page), or None (neither: engines, a person at the board);
``robot``
    ``game`` only: ``{"moves", "seconds"}``, the robot's drags to set the table up for it from where the
    pieces stand and about how long they take; None when that cannot be known now (a job is running, no
    robot).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Final

import chess

from ..errors import ChessatronError
from ..game.records import store
from ..game.records.journal import read_journal
from ..game.records.record import GameRecord
from ..game.records.store import GameSummary
from ..game.runner import GameRunner

__all__ = ["OTHERS_SHOWN", "resume_offer"]

#: Other stopped games the page offers instead of the latest.
OTHERS_SHOWN: Final = 5


def resume_offer(
    runner: GameRunner, game_id: str | None = None, *, now: dt.datetime | None = None
) -> dict[str, Any]:
    """What *Resume* would continue (``game_id``: that game) and the other games waiting to go on.
    Raises :class:`~chessatron.errors.GameNotFoundError` and
    :class:`~chessatron.errors.CannotResumeError` for a ``game_id`` that cannot be continued."""
    moment = now or dt.datetime.now(dt.UTC)
    games_dir = runner.games_dir
    chosen = (
        store.latest_resumable(games_dir) if game_id is None else store.resumable_game(game_id, games_dir)
    )
    offer: dict[str, Any] = {"game": None, "others": []}
    if chosen is not None:
        summary, record = store.open_game(chosen.game_id, games_dir)
        offer["game"] = _game_json(runner, summary, record, moment)
        estimate = runner.set_up_estimate(_board(record))
        offer["game"]["robot"] = (
            {"moves": estimate[0], "seconds": round(estimate[1], 1)} if estimate is not None else None
        )
    waiting = [s for s in reversed(store.list_games(games_dir)) if s.is_open]
    for other in [s for s in waiting if chosen is None or s.game_id != chosen.game_id][:OTHERS_SHOWN]:
        try:
            summary, record = store.open_game(other.game_id, games_dir)
        except ChessatronError:
            continue  # gone or damaged since it was listed: not offered
        offer["others"].append(_game_json(runner, summary, record, moment))
    return offer


def _board(record: GameRecord) -> chess.Board:
    board = record.start_board()
    for move in record.moves:
        board.push(move)
    return board


def _game_json(
    runner: GameRunner, summary: GameSummary, record: GameRecord, now: dt.datetime
) -> dict[str, Any]:
    handed = runner.handed_over(summary)
    kinds = _started_kinds(summary)
    stopped = _last_written(summary.path) or summary.stored
    return {
        "id": summary.game_id,
        "white": summary.white.spec,
        "black": summary.black.spec,
        "plays": {
            side: handed[colour].spec if colour in handed else player.spec
            for side, colour, player in (
                ("white", chess.WHITE, summary.white),
                ("black", chess.BLACK, summary.black),
            )
        },
        "variant": record.variant,
        "chess960": record.start_number if record.chess960 else None,
        "start_fen": record.start_fen,
        "plies": summary.plies,
        "moves": summary.moves,
        "clock": record.clock.time_control() if record.clock else None,
        "started": summary.stored.isoformat(timespec="seconds"),
        "stopped": stopped.isoformat(timespec="seconds"),
        "stopped_s_ago": max(0, round((now - stopped).total_seconds())),
        "where": "terminal" if "keyboard" in kinds else "page" if "web" in kinds else None,
    }


def _started_kinds(summary: GameSummary) -> set[str]:
    """The kinds of player the game began with (its journal keeps them; a side handed over since is
    another's now)."""
    try:
        config = read_journal(summary.path).metadata.config
    except ChessatronError:
        return {summary.white.kind, summary.black.kind}
    return {str(config.get(side, "")).split(":", 1)[0] for side in ("white", "black")}


def _last_written(path: Path) -> dt.datetime | None:
    """When the game's journal was last written: its last move, or the stop that closed it."""
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).replace(microsecond=0)
    except OSError:
        return None
