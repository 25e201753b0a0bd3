"""A journal's damaged start line, rebuilt from what it still says: every field that can still be read on
its own, the rest from the file's name and the lines after it (pure).

One damaged key in the start line (``"whhte"``, a flipped byte that breaks the JSON) must not hide a game
whose every move is intact on the lines after it. So the start line's fields are read one by one (a field
whose value still decodes and checks is kept), the game's id and start time come from the file's name
(``20240512T153012Z-3fa2b1c4.jsonl``) when the line lost them, and a lost start position is found by the
moves: the line's own FEN or Chess960 number first, then the standard start, then every Chess960 start;
the reader replays the lines after the start from each and keeps the one that reads them all.

>>> found = readable_fields(b'{"type":"start","white":{"name":"Ann",?},"black":{"name":"Bo","kind":"board"}}')
>>> sorted(found), found["black"]
(['black', 'type'], {'name': 'Bo', 'kind': 'board'})
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import chess

from ....errors import ChessatronError, JournalError
from ..record import ClockSettings, Player, numbered_start
from .entries import GameMetadata, _player_from_json, _time

__all__ = ["Rebuilt", "readable_fields", "rebuild", "start_boards"]

#: The start line's fields, each read on its own when the line as a whole is damaged.
_FIELDS = (
    "type",
    "format",
    "time",
    "id",
    "variant",
    "fen",
    "number",
    "white",
    "black",
    "clock",
    "event",
    "site",
    "config",
)
_STEM = re.compile(r"(\d{8}T\d{6}Z)-([0-9a-z]{1,32})")


@dataclass(frozen=True)
class Rebuilt:
    """A start the damaged line may have had: its metadata, where its start position came from
    (``line``: the line's own FEN or number, ``standard`` or ``chess960``: a guess the moves must
    confirm) and the fields the line lost, in words."""

    metadata: GameMetadata
    origin: str
    lost: tuple[str, ...]


def readable_fields(raw: bytes) -> dict[str, Any]:
    """The start line's fields that still read: all of them if the line is JSON, else each field whose
    key and value are intact, read where it stands."""
    text = raw.decode("utf-8", errors="replace")
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict):
        return {key: whole[key] for key in _FIELDS if key in whole}
    decoder = json.JSONDecoder()
    found: dict[str, Any] = {}
    for key in _FIELDS:
        at = text.find(f'"{key}":')
        if at < 0:
            continue
        try:
            found[key], _ = decoder.raw_decode(text, at + len(key) + 3)
        except (ValueError, RecursionError):
            continue
    return found


def start_boards(fields: Mapping[str, Any]) -> Iterator[tuple[chess.Board, str]]:
    """The start positions the damaged line may have had, the likeliest first, each with where it comes
    from: ``line`` (its own FEN, or its Chess960 number), ``standard``, then ``chess960`` for each
    Chess960 start (guesses the moves after the line must confirm)."""
    own = _own_start(fields)
    if own is not None:
        yield own, "line"
    if fields.get("variant") != "chess960":
        yield chess.Board(), "standard"
    for number in range(960):
        if number != 518:  # (the standard start)
            yield chess.Board.from_chess960_pos(number), "chess960"


def rebuild(
    fields: Mapping[str, Any],
    start: chess.Board,
    origin: str,
    *,
    stem: str | None = None,
    first_time: dt.datetime | None = None,
) -> Rebuilt:
    """The start line's metadata from what it still says (``fields``), with ``start`` (from ``origin``):
    the id and the start time from the file's name (``stem``) or the first line after it
    (``first_time``) when the line lost them; what cannot be had is named in :attr:`Rebuilt.lost`."""
    lost: list[str] = []
    common = _common(fields, stem, first_time, lost)
    if origin != "line":
        lost.append("the start position")
    try:
        metadata = GameMetadata(start_fen=start.fen(), chess960=start.chess960, **common)
    except ChessatronError:  # what does not check together (a name no record takes) is dropped
        kept = {key: common[key] for key in ("game_id", "started", "clock") if key in common}
        metadata = GameMetadata(start_fen=start.fen(), chess960=start.chess960, **kept)
        lost.append("the players, event and site")
    return Rebuilt(metadata, origin, tuple(lost))


def _own_start(fields: Mapping[str, Any]) -> chess.Board | None:
    """The start position the line still gives: its FEN, else its Chess960 number."""
    chess960 = fields.get("variant") == "chess960"
    fen = fields.get("fen")
    if isinstance(fen, str) and len(fen) < 100:
        try:
            GameMetadata(start_fen=fen, chess960=chess960)
            return chess.Board(fen, chess960=chess960)
        except (ChessatronError, ValueError):
            pass
    number = fields.get("number")
    if isinstance(number, int) and not isinstance(number, bool):
        try:
            return numbered_start(number)
        except ChessatronError:
            pass
    return None


def _common(
    fields: Mapping[str, Any], stem: str | None, first_time: dt.datetime | None, lost: list[str]
) -> dict[str, Any]:
    """Every field of the metadata but the start position: as the line says it where it still can, else
    from the file's name or the first line after it, else unknown (named in ``lost``)."""
    named = _STEM.fullmatch(stem or "")
    common: dict[str, Any] = {}
    game_id = fields.get("id")
    if isinstance(game_id, str) and re.fullmatch(r"[0-9a-z]{1,32}", game_id):
        common["game_id"] = game_id
    elif named is not None:
        common["game_id"] = named[2]
    else:
        lost.append("the game's id")
    try:
        common["started"] = _time(fields)
    except JournalError:
        if named is not None:
            common["started"] = dt.datetime.strptime(named[1], "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.UTC)
        elif first_time is not None:
            common["started"] = first_time
        else:
            lost.append("when it started")
    for side in ("white", "black"):
        common[side] = _player(fields.get(side))
        if fields.get(side) is None or common[side] == Player():
            lost.append(side)
    clock = fields.get("clock")
    if isinstance(clock, dict):
        try:
            initial, increment = clock.get("initial_s"), clock.get("increment_s")
            if isinstance(initial, int) and isinstance(increment, int):
                common["clock"] = ClockSettings(initial, increment)
        except ChessatronError:
            pass
    if clock is not None and "clock" not in common:
        lost.append("the clock")
    for text in ("event", "site"):
        value = fields.get(text)
        if isinstance(value, str):
            try:
                _ = GameMetadata(event=value) if text == "event" else GameMetadata(site=value)
                common[text] = value
            except ChessatronError:
                lost.append(text)
    config = fields.get("config")
    if isinstance(config, dict):
        common["config"] = config
    else:
        lost.append("the session's settings")
    return common


def _player(data: object) -> Player:
    if not isinstance(data, dict):
        return Player()
    try:
        return _player_from_json(data)
    except ChessatronError:
        return Player()
