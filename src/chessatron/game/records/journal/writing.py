""":class:`Journal`, the writer: one ``fsync``-ed line per entry, the file locked while a game has it open,
a damaged journal repaired (the damaged file kept beside it) before anything is appended."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

import chess

from ....errors import GameFileError, GameInUseError, GameSaveError, IllegalMoveError, JournalError
from ....i18n import _
from ..record import (
    Player,
    Result,
    Termination,
)

if sys.platform != "win32":
    import fcntl
from .entries import (
    LOGGER,
    SUFFIX,
    Clock,
    GameMetadata,
    JournalState,
    MoveEntry,
    RobotProgress,
    _line,
    _player_json,
    _Replay,
    utc_now,
)
from .reading import _Scan, _scan

# --- writing ---------------------------------------------------------------------------------------


#: The checksum that ends every line: ``,"crc":"<8 hex digits>"}``.
def _sync_directory(path: Path) -> None:
    """Make a rename in ``path`` durable; POSIX only (Windows cannot open a folder)."""
    if os.name == "posix":
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class Journal:
    """A game journal open for appending; one writer at a time (an advisory lock enforces it on POSIX).

    >>> with tempfile.TemporaryDirectory() as games_dir:
    ...     with Journal.create(Path(games_dir), GameMetadata(white=Player("Ann", "board"))) as journal:
    ...         journal.record_move(chess.Move.from_uci("e2e4"), who="board").san
    'e4'

    Each method writes one line and ``fsync``-s it before returning; it raises :class:`GameSaveError`
    when the disk refuses, :class:`IllegalMoveError` or :class:`JournalError` when the entry does not
    follow from the game so far (nothing is written then). Thread-safe.
    """

    def __init__(self, path: Path, fd: int, replay: _Replay, size: int, now: Clock) -> None:
        self.path = path
        self._fd: int | None = fd
        self._replay = replay
        self._size = size
        self._now = now
        self._lock = threading.Lock()

    @classmethod
    def create(cls, games_dir: Path, metadata: GameMetadata, *, now: Clock = utc_now) -> Journal:
        """Start the journal ``games_dir/<stem>.jsonl``: the start line is written to a temporary file and
        renamed into place, so a journal never exists without it."""
        path = games_dir / (metadata.stem + SUFFIX)
        if path.exists():
            raise GameSaveError(
                _("a journal {path!r} already exists; start the game with a new id").format(path=str(path))
            )
        temporary: str | None = None
        try:
            games_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("wb", dir=games_dir, delete=False, suffix=".tmp") as f:
                temporary = f.name
                f.write(_line(metadata.to_json()))
                f.flush()
                os.fsync(f.fileno())
            os.replace(f.name, path)
            _sync_directory(games_dir)
        except OSError as exc:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            raise GameSaveError(
                _("cannot start the game journal {path!r}: {reason}").format(
                    path=str(path), reason=exc.strerror or exc
                )
            ) from exc
        return cls.open(path, now=now)

    @classmethod
    def open(
        cls, path: Path, *, now: Clock = utc_now, start_config: Mapping[str, Any] | None = None
    ) -> Journal:
        """Open an existing journal to go on with its game, cutting off a torn last line first, and
        repairing a damaged one (see the module's docstring: its good lines replace it, the damaged file is
        kept beside it as ``<name>.damaged``, and a logged warning says so).

        ``start_config``: keys of the start line's ``config`` found damaged and rebuilt from the rest of
        the journal (the table before the set-up, from the robot's drags): a start line that says
        otherwise is repaired to say so, the same way.

        Raises :class:`GameInUseError` if another session has it open, :class:`GameFileError` if it cannot
        be read (a start line that cannot be rebuilt either), :class:`GameSaveError` if it cannot be
        prepared for writing."""
        source = repr(str(path))
        for _attempt in range(3):  # again when another session replaced (repaired) the file meanwhile
            try:
                fd = os.open(path, os.O_RDWR | os.O_APPEND)
            except OSError as exc:
                raise GameFileError(
                    _("cannot open the game journal {source}: {reason}").format(
                        source=source, reason=exc.strerror or exc
                    )
                ) from exc
            try:
                _lock(fd, path)
                if os.fstat(fd).st_ino != os.stat(path).st_ino:
                    os.close(fd)
                    continue
                data = _read_all(fd)
                scan = _scan(data, source, path.stem)
                if (start_config and _amend_start(scan, start_config)) or scan.damage is not None:
                    fd = _repair(path, fd, data, scan.kept)
                elif scan.committed < len(data):
                    os.ftruncate(fd, scan.committed)
                    os.fsync(fd)
            except OSError as exc:
                os.close(fd)
                raise GameSaveError(
                    _("cannot prepare the game journal {source}: {reason}").format(
                        source=source, reason=exc.strerror or exc
                    )
                ) from exc
            except BaseException:
                os.close(fd)
                raise
            replay = scan.replay
            replay.state = replace(replay.state, torn=False)
            return cls(path, fd, replay, sum(len(line) + 1 for line in scan.kept), now)
        raise GameInUseError(
            _("the game journal {source} keeps being replaced by another session; close it first").format(
                source=source
            )
        )

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r}, plies={len(self._replay.state.moves)}, closed={self.closed})"

    @property
    def state(self) -> JournalState:
        return self._replay.state

    @property
    def closed(self) -> bool:
        return self._fd is None

    def board(self) -> chess.Board:
        """A fresh board at the current position, with the moves on its stack."""
        return self._replay.board.copy()

    def record_move(self, move: chess.Move, who: str, *, clock_ms: int | None = None) -> MoveEntry:
        """Journal the next move (before the robot makes it); returns the entry with its SAN and ply."""
        with self._lock:
            board = self._replay.board
            try:
                move = board.parse_uci(move.uci()) if move else move
            except ValueError:
                move = chess.Move.null()
            if not move:
                raise IllegalMoveError(
                    _("that move is illegal in {fen!r}; journal legal moves only").format(fen=board.fen())
                )
            entry: dict[str, Any] = {
                "ply": len(self.state.moves) + 1,
                "uci": move.uci(),
                "san": board.san(move),
            }
            entry["who"] = who
            if clock_ms is not None:
                entry["clock_ms"] = clock_ms
            self._append("move", entry)
            return self.state.moves[-1]

    def robot_begin(
        self, operations: Sequence[str], *, table: Sequence[Sequence[object]] | None = None
    ) -> RobotProgress:
        """Journal the robot's plan to bring the table to the current position, one description each;
        ``table``: where every piece stood when it began (``[id, symbol, i, j]`` each), when that is not
        where the journal's earlier work left them (the table was changed since, e.g. by another game)."""
        with self._lock:
            fields: dict[str, object] = {"ply": len(self.state.moves), "operations": list(operations)}
            if table is not None:
                fields["table"] = [list(entry) for entry in table]
            self._append("robot-begin", fields)
            assert self.state.robot is not None
            return self.state.robot

    def robot_done(self, index: int) -> RobotProgress:
        """Journal that relocation ``index`` of the last :meth:`robot_begin` is finished."""
        with self._lock:
            robot = self.state.robot
            self._append("robot-done", {"ply": -1 if robot is None else robot.ply, "index": index})
            assert self.state.robot is not None
            return self.state.robot

    def take_back(self, plies: int = 1) -> None:
        with self._lock:
            self._append("takeback", {"plies": plies})

    def offer_draw(self, by: chess.Color) -> None:
        with self._lock:
            self._append("draw-offer", {"by": chess.COLOR_NAMES[by]})

    def accept_draw(self, by: chess.Color) -> None:
        """``by`` accepts the other side's standing offer: a draw by agreement."""
        with self._lock:
            self._append("draw-accept", {"by": chess.COLOR_NAMES[by]})

    def resign(self, by: chess.Color) -> None:
        with self._lock:
            self._append("resign", {"by": chess.COLOR_NAMES[by]})

    def finish(self, result: Result, termination: Termination | None) -> None:
        """Journal how the game ended (checkmate, a flag fall...)."""
        with self._lock:
            self._append("result", {"result": result, "termination": termination})

    def change_player(self, side: chess.Color, player: Player, spec: str) -> None:
        """From now on ``player`` plays ``side`` (``spec``: as the command line names it, ``engine:3``)."""
        with self._lock:
            self._append(
                "player", {"side": chess.COLOR_NAMES[side], "spec": spec, "player": _player_json(player)}
            )

    def abandon(self) -> None:
        """Nobody means to go on with the game: ``play --resume`` no longer offers it (its id still
        takes it up, and the next entry lifts this)."""
        with self._lock:
            self._append("abandon", {})

    def _append(self, kind: str, fields: Mapping[str, Any]) -> None:
        fd = self._fd
        if fd is None:
            raise JournalError(f"the journal {str(self.path)!r} is closed; open it again with Journal.open()")
        entry = {"type": kind, "time": self._now().isoformat(), **fields}
        trial = self._replay.copy()
        trial.apply(entry)
        data = _line(entry)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        except OSError as exc:
            # Cut off the partial line so that the next entry does not land in the middle of it.
            try:
                os.ftruncate(fd, self._size)
            except OSError:
                LOGGER.warning("%s: could not cut off a failed write; reading will skip it", self.path)
            raise GameSaveError(
                _("cannot write to the game journal {path!r}: {reason}").format(
                    path=str(self.path), reason=exc.strerror or exc
                )
            ) from exc
        self._size += len(data)
        self._replay = trial

    def discard(self) -> None:
        """Close and delete the journal of a game that never began (nothing after its start line), e.g.
        because its players could not play: no unfinished game is left behind for ``--resume``.

        Raises :class:`GameSaveError` for a journal with anything more in it."""
        with self._lock:
            if self._replay.state.lines > 1:
                raise GameSaveError(
                    _("the game journal {path!r} holds the game's play; it is kept").format(
                        path=str(self.path)
                    )
                )
        self.close()
        try:
            self.path.unlink(missing_ok=True)
            _sync_directory(self.path.parent)
        except OSError as exc:
            raise GameSaveError(
                _(
                    "cannot remove the game journal {path!r} of a game that never began: {reason}; delete it "
                    "by hand"
                ).format(path=str(self.path), reason=exc.strerror or exc)
            ) from exc

    def close(self) -> None:
        """Release the journal; safe to call twice."""
        with self._lock:
            if self._fd is not None:
                fd, self._fd = self._fd, None
                os.close(fd)  # also releases the lock

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _lock(fd: int, path: Path) -> None:
    """Take the journal's advisory lock (POSIX only), or raise :class:`GameInUseError`."""
    if sys.platform != "win32":
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GameInUseError(
                _("the game journal {path!r} is open in another session; close that one first").format(
                    path=str(path)
                )
            ) from None


def _repair(path: Path, fd: int, data: bytes, good: list[bytes]) -> int:
    """Replace the damaged journal at ``path`` (open and locked as ``fd``, holding ``data``) by its
    ``good`` lines, keeping the damaged file beside it; returns the new journal's descriptor, open and
    locked, and closes ``fd``. The new journal is complete before it takes the old one's name."""
    backup = _keep_damaged(path, data)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        _lock(descriptor, Path(temporary))
        if sys.platform != "win32":  # writes go to the end even after a failed write was cut off
            fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) | os.O_APPEND)
        content = b"".join(line + b"\n" for line in good)
        written = 0
        while written < len(content):
            written += os.write(descriptor, content[written:])
        os.fsync(descriptor)
        os.replace(temporary, path)
        _sync_directory(path.parent)
    except BaseException:
        os.close(descriptor)
        Path(temporary).unlink(missing_ok=True)
        raise
    os.close(fd)
    LOGGER.warning(
        "%r repaired: it holds the game up to the damage; the damaged file is kept as %r",
        str(path),
        str(backup),
    )
    return descriptor


def _amend_start(scan: _Scan, config: Mapping[str, Any]) -> bool:
    """Make the start line of ``scan`` (and the state read from it) hold ``config``'s keys in its config;
    whether it said otherwise."""
    state = scan.replay.state
    metadata = state.metadata
    if all(metadata.config.get(key) == value for key, value in config.items()):
        return False
    metadata = replace(metadata, config={**metadata.config, **config})
    scan.kept[0] = _line(metadata.to_json()).removesuffix(b"\n")
    scan.replay.state = replace(state, metadata=metadata)
    return True


def _keep_damaged(path: Path, data: bytes) -> Path:
    """Write ``data`` (a damaged journal's bytes) to a new file beside ``path``: ``<name>.damaged``, or
    ``<name>.damaged-2``... when that exists; returns its path."""
    for number in range(1, 1000):
        backup = path.with_name(f"{path.name}.damaged" + (f"-{number}" if number > 1 else ""))
        try:
            out = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        try:
            written = 0
            while written < len(data):
                written += os.write(out, data[written:])
            os.fsync(out)
        finally:
            os.close(out)
        return backup
    raise FileExistsError(f"too many damaged copies of {str(path)!r} beside it; remove some")


def _read_all(fd: int) -> bytes:
    chunks = []
    os.lseek(fd, 0, os.SEEK_SET)
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)
