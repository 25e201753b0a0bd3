"""The game journal: an append-only JSON-lines file per game, so that a power cut loses nothing.

Its rooms: :mod:`.entries` (metadata, state, the replay of entries), :mod:`.reading`, :mod:`.salvage` (a
damaged start line rebuilt) and :mod:`.writing`.

Every entry is one line, written and ``fsync``-ed before the call returns: the session writes a move
before the robot moves it, and one ``robot-done`` line per relocation finished, so a resumed session
knows the game and how far the robot got. A crash can only tear the line being written; reading ignores
a torn last line (with a logged warning) and :meth:`Journal.open` cuts it off before appending.

Every line ends in its checksum (``"crc"``, the CRC-32 of the line without it), so that damage is
told from play: a flipped byte anywhere in a line makes it damaged, where without the checksum it could
read as another robot path or clock. Damage before the last line (a garbage line, one flipped byte, a
block written twice, as a failing SD card makes them) costs only what follows it: the game is read up to
the last good line before the damage, and one logged warning says what was dropped (the moves the
dropped lines still show). A line that repeats an earlier one byte for byte is skipped (every line has
its own timestamp, so it is a block written twice). A damaged start line that still reads as one is
used, said as damaged (the moves after it are checked on their own); one that does not read (a damaged
key, broken JSON) is rebuilt from what it still says field by field, the file's name (the game's id and
start time) and the lines after it (a lost start position is the one from which the moves read: the
standard start, or the one Chess960 start that fits them), so its moves are kept (:mod:`.salvage`); only a
journal with no line after its start that reads as the game's, or whose start the moves cannot tell, is
unreadable (:class:`GameFileError`). :meth:`Journal.open` repairs a damaged journal before
appending: the good lines are written to a new file that replaces it, and the damaged file is kept
beside it (``….jsonl.damaged``). Journals written before lines had checksums are read as before: a line
without one is damaged only when it does not read or does not follow from the game.

The lines (every one also has ``"time"``, an ISO 8601 UTC timestamp, and ends in ``"crc"``)::

    {"type":"start","format":"chessatron-journal/1","id":"3fa2b1c4","variant":"chess960",
     "fen":"...","number":412,"white":{"name":"Ann","kind":"board","level":null},"black":{...},
     "clock":{"initial_s":300,"increment_s":2},"event":"","site":"","config":{...}}
    {"type":"move","ply":1,"uci":"e2e4","san":"e4","who":"board","clock_ms":298000}
    {"type":"robot-begin","ply":1,"operations":["capture d5 to zone 3","e4 to d5"]}
    {"type":"robot-done","ply":1,"index":0}
    {"type":"takeback","plies":2}
    {"type":"draw-offer","by":"white"}   {"type":"draw-accept","by":"black"}
    {"type":"resign","by":"white"}
    {"type":"result","result":"1-0","termination":"checkmate"}
    {"type":"player","side":"white","spec":"engine:3","player":{"name":"Stockfish","kind":"engine",...}}
    {"type":"abandon"}

``start`` comes first and only there (``number`` is informative: the FEN decides). ``robot-begin`` names
the ply whose position the robot is bringing the table to — the current ply, so 0 for setting up and the
remaining ply after a take-back; after a move it also journals the tidying (parked pieces taken on to
their zone while the person thinks, operations ``tidy …``). A ``robot-begin`` may carry ``"table":
[[id, symbol, i, j], ...]``, where every piece stood when it began, when that is not where the earlier
work left them (a set-up taken up again from the table as it stands); a resume starts from it, and
earlier work it leaves unfinished was given up. A take-back reopens a finished game. ``player``: another
player takes a side over from here on (a resumed game); the metadata's player and the config's spec for
that side (its ``white`` or ``black`` key) change. ``abandon``: nobody means to go on with the game, so
``play --resume`` no longer offers it; any later entry (the game taken up again by its id) lifts it.
"""

from __future__ import annotations

from .entries import (
    FORMAT,
    SUFFIX,
    Clock,
    GameMetadata,
    JournalState,
    MoveEntry,
    RobotProgress,
    game_stem,
    new_game_id,
    utc_now,
)
from .reading import DROPPED_MOVES_SHOWN, parse_journal, read_journal
from .writing import Journal

__all__ = [
    "DROPPED_MOVES_SHOWN",
    "FORMAT",
    "SUFFIX",
    "Clock",
    "GameMetadata",
    "Journal",
    "JournalState",
    "MoveEntry",
    "RobotProgress",
    "game_stem",
    "new_game_id",
    "parse_journal",
    "read_journal",
    "utc_now",
]
