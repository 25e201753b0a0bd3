"""The live feed: snapshots of the :class:`~chessatron.game.telling.live.LiveState` pushed to every open page.

The game thread only schedules a wake-up on the server's event loop (``call_soon_threadsafe``, at most one
outstanding per page), so a page that is slow, or gone, never holds it up. Each page then gets the newest
state: the first message is the whole snapshot, later ones only what changed: whole top-level ``parts``,
and in ``patch`` the changed keys of a part that keeps its keys (the gantry's position, without its
path), to be merged into the page's copy of that part::

    {"type": "snapshot", "state": {...}}
    {"type": "update", "version": 42, "parts": {"status": "robot moving"}, "patch": {"gantry": {"x": 12.5}}}

A change that leaves everything the page holds as it was sends nothing.

Besides the live state's parts (see :mod:`chessatron.game.telling.live`) a snapshot has ``"runner"``: what the
runner is doing (``{"job", "paused", "stopping", "leds"}``, see
:meth:`~chessatron.game.runner.GameRunner.report`; None on a page that only watches). A page's first message
carries the chess clock as it reads at that moment, and the time left of long robot work (a set-up) as it is
then; later ones carry them when they change (the page counts down itself): a page opened, or reloaded, in
the middle of either shows the truth, not what was true when the part last changed.

Bursts (the gantry reports its position many times a second) are coalesced: a page gets at most one
message every :data:`MIN_INTERVAL_S`, always the latest state. A page that does not take a message within
:data:`SEND_TIMEOUT_S` is dropped; it reconnects and starts again from a snapshot.

>>> from chessatron.planning.layout import Layout
>>> live = LiveState(Layout.default())
>>> live.show_board(chess.Board("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"))
>>> live.update(prompt={"colour": "white", "legal": {"e7": ["e8"]}})
>>> version, state = Snapshots(live).current()
>>> state["prompt"]["promotion"], state["prompt"]["san"]["e7e8q"], version == live.version
(['e7e8'], 'e8=Q', True)
>>> changes({"a": 1, "b": [2]}, {"a": 1, "b": [3], "version": 7})
{'type': 'update', 'version': 7, 'parts': {'b': [3]}}
>>> changes({"g": {"x": 1, "y": 2, "path": []}}, {"g": {"x": 1.5, "y": 2, "path": []}, "version": 8})
{'type': 'update', 'version': 8, 'parts': {}, 'patch': {'g': {'x': 1.5}}}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Final

import chess
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..game.telling.live import LiveState

LOGGER = logging.getLogger(__name__)

MIN_INTERVAL_S: Final = 0.015
SEND_TIMEOUT_S: Final = 5.0
#: Pages watching at once; more are turned away (they retry).
MAX_PAGES: Final = 32
#: WebSocket close codes: going away (the server stops), try again later (too many pages, too slow).
CLOSE_TRY_AGAIN: Final = 1013


Report = Callable[[], dict[str, Any] | None]


class Snapshots:
    """The live state's snapshot for pages, made once per version (pages share it), with the prompt's
    moves filled in (``"promotion"``: the UCI prefixes that need a piece chosen; ``"san"``: every legal
    move's SAN by its UCI, so that a page can write the player's move at once) and the runner's
    ``report`` (None: a page that only watches) as the part ``"runner"``; ``clock_now`` reads the game's
    clock as it is now, for :meth:`fresh`."""

    def __init__(
        self, live: LiveState, report: Report | None = None, clock_now: Report | None = None
    ) -> None:
        self.live = live
        self.report = report
        self.clock_now = clock_now
        self._lock = threading.Lock()
        self._latest: tuple[int, dict[str, Any]] = (-1, {})

    def current(self) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if self._latest[0] == self.live.version:
                return self._latest
        state = self.live.snapshot()
        _add_prompt_moves(state)
        state["runner"] = self.report() if self.report is not None else None
        with self._lock:
            if state["version"] > self._latest[0]:
                self._latest = (state["version"], state)
        return state["version"], state

    def fresh(self, state: dict[str, Any]) -> dict[str, Any]:
        """``state`` for a page that starts watching now: a running clock as it reads now, and the robot's
        time left as it is now, not as they were when they last changed (the page counts down from when
        the state arrives)."""
        state = _work_now(state)
        clock = state.get("clock")
        if self.clock_now is None or not clock or clock.get("running") is None:
            return state
        now = self.clock_now()
        if now is None or now.get("running") != clock["running"] or now.get("control") != clock["control"]:
            return state
        return {**state, "clock": now}


def _work_now(state: dict[str, Any], now_s: float | None = None) -> dict[str, Any]:
    """``state`` with the robot's long work (``gantry.work``: ``left_s`` reckoned at ``at``, Unix seconds)
    counted down to ``now_s`` (default: now).

    >>> state = {"gantry": {"x": 0, "work": {"title": "RESET", "left_s": 90.0, "at": 100.0}}}
    >>> _work_now(state, 130.0)["gantry"]["work"], state["gantry"]["work"]["left_s"]
    ({'title': 'RESET', 'left_s': 60.0, 'at': 130.0}, 90.0)
    """
    gantry = state.get("gantry")
    if not isinstance(gantry, dict):
        return state
    work = gantry.get("work")
    if not isinstance(work, dict) or work.get("left_s") is None or work.get("at") is None:
        return state
    now = time.time() if now_s is None else now_s
    left = max(0.0, float(work["left_s"]) - max(0.0, now - float(work["at"])))
    work = {**work, "left_s": round(left, 1), "at": round(now, 3)}
    return {**state, "gantry": {**gantry, "work": work}}


def _add_prompt_moves(state: dict[str, Any]) -> None:
    prompt, game = state.get("prompt"), state.get("game")
    if prompt is None or game is None or "promotion" in prompt:
        return
    board = chess.Board(game["fen"], chess960=game["variant"] == "chess960")
    moves = list(board.legal_moves)
    prompt["promotion"] = sorted({move.uci()[:4] for move in moves if move.promotion})
    prompt["san"] = {move.uci(): board.san(move) for move in moves}


def changes(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """The message that brings a page from ``before`` (None: nothing yet) to ``after``."""
    if before is None:
        return {"type": "snapshot", "state": after}
    parts: dict[str, Any] = {}
    patch: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key)
        if key == "version" or old == value:
            continue
        if isinstance(old, dict) and isinstance(value, dict) and old.keys() == value.keys():
            patch[key] = {name: part for name, part in value.items() if old[name] != part}
        else:
            parts[key] = value
    message = {"type": "update", "version": after["version"], "parts": parts}
    if patch:
        message["patch"] = patch
    return message


class Feed:
    """Serves the live state to the pages connected to ``/api/v1/live``."""

    def __init__(self, live: LiveState, snapshots: Snapshots) -> None:
        self.live = live
        self.snapshots = snapshots
        self.pages = 0

    async def serve(self, websocket: WebSocket) -> None:
        """Accept the page and push updates until it leaves (or is too slow, or the server stops)."""
        if self.pages >= MAX_PAGES:
            await websocket.close(CLOSE_TRY_AGAIN, "too many pages are watching; try again later")
            return
        self.pages += 1
        try:
            await websocket.accept()
            await self._watch(websocket)
        finally:
            self.pages -= 1

    async def _watch(self, websocket: WebSocket) -> None:
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()
        pending = threading.Event()

        def wake() -> None:
            pending.clear()
            changed.set()

        def listener(version: int) -> None:  # in the game thread: only schedule, never wait
            if not pending.is_set():
                pending.set()
                loop.call_soon_threadsafe(wake)

        stop_listening = self.live.listen(listener)
        receiver = asyncio.ensure_future(_drain(websocket))
        sender = asyncio.ensure_future(self._push(websocket, changed))
        try:
            await asyncio.wait({receiver, sender}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop_listening()
            for task in (receiver, sender):
                task.cancel()
            for task in (receiver, sender):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _push(self, websocket: WebSocket, changed: asyncio.Event) -> None:
        sent: dict[str, Any] | None = None
        while True:
            version, state = self.snapshots.current()
            if sent is None or version != sent["version"]:
                message = (
                    changes(sent, state) if sent is not None else changes(None, self.snapshots.fresh(state))
                )
                if message["type"] == "update" and not message["parts"] and "patch" not in message:
                    sent = state  # nothing the page holds changed: nothing to send
                    continue
                text = json.dumps(message, separators=(",", ":"))
                try:
                    await asyncio.wait_for(websocket.send_text(text), SEND_TIMEOUT_S)
                except TimeoutError:
                    LOGGER.info("dropping a page that took no update for %.0f s", SEND_TIMEOUT_S)
                    with contextlib.suppress(Exception):
                        await websocket.close(CLOSE_TRY_AGAIN, "too slow; reconnect")
                    return
                except (WebSocketDisconnect, RuntimeError, OSError):
                    return  # gone
                sent = state
                await asyncio.sleep(MIN_INTERVAL_S)  # let a burst of changes become one message
            if self.live.version == sent["version"]:
                changed.clear()
                await changed.wait()


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the page sends, to notice when it leaves."""
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
    except (WebSocketDisconnect, RuntimeError, OSError):
        return
