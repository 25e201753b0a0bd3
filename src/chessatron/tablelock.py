"""One program drives the table at a time: a lock on the machine, held by whoever drives it.

Two programs on one GRBL port interleave their lines (one's travel move lands in the middle of the other's
drag), and two on one simulated table overwrite each other's saved pieces. So every command that drives
the table holds its lock from connecting until it ends (``serve`` for its whole life: a game or a set-up
may start from the page at any time), and a second one stops at once with one line saying who has it:

    the table is in use by 'chessatron serve' (pid 4321) since 10:02: stop it first (Ctrl-C in its
    terminal, or `systemctl stop chessatron` for the service), then run this again

The machine is the GRBL port: a serial device by its resolved path (``/dev/serial/by-id/…`` and the
``/dev/ttyACM0`` it links to are one machine), or a pyserial URL without its options
(``socket://host:port``, ``rfc2217://host:port``); on the simulator it is the simulated table's state
file (:func:`~chessatron.sim.state.default_state_path`), so two state files are two tables. A program
with a table of its own in memory (``simulate``, ``demo``, ``run`` on ``sim://``) takes no lock.

The lock is an advisory ``flock`` on a small file: beside the simulator's state
(``simulator.json.lock``), or for a port in the state folder (``~/.local/state/chessatron/locks/``,
rather than ``$XDG_RUNTIME_DIR``: a systemd service has none, so the service and a person's shell would
lock different files). The file also says who holds the lock (command line, pid, since when). The kernel
drops an ``flock`` with the process that held it, so a program killed outright (SIGKILL, a power cut)
leaves no lock behind, only a stale file whose text is never believed: the lock decides, not the file.
On a serial device pyserial's ``exclusive`` open adds a lock on the device itself (:mod:`.grbl.wire`).

Within one program the lock is taken again freely (a web page's runner and the session it connects hold
one table); it is released when the last holder lets it go.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     state = Path(folder) / "simulator.json"
...     with hold_table("sim://", state=state):
...         held = lock_path("sim://", state=state).exists()
...     held, lock_path("sim://", state=state).exists(), lock_path("loop://", state=None)
(True, False, None)
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import re
import shlex
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .errors import TableInUseError
from .i18n import _, formats

if sys.platform != "win32":
    import fcntl

__all__ = ["Holder", "command_line", "hold_table", "lock_path", "read_holder", "table_url"]

LOGGER = logging.getLogger(__name__)

#: pyserial URLs whose "port" is in this process only: nothing another program could share.
_PRIVATE_SCHEMES = frozenset({"loop", "sim", "none"})
#: How long a second program looks for the holder's name in the lock file (the holder writes it just
#: after taking the lock), in seconds.
_HOLDER_WAIT_S = 0.5
#: The longest command line a refusal quotes.
_COMMAND_CHARS = 80


@dataclass(frozen=True)
class Holder:
    """Who holds a table's lock: the command line, its process id and since when (aware)."""

    command: str
    pid: int
    since: dt.datetime

    def describe(self, now: dt.datetime | None = None) -> str:
        """``'chessatron serve' (pid 4321) since 10:02`` (with the date when it is not today's), the time as
        the current language writes it."""
        local = self.since.astimezone()
        today = (now or dt.datetime.now().astimezone()).date()
        if local.date() == today:
            return _("{command!r} (pid {pid}) since {time}").format(
                command=self.command, pid=self.pid, time=formats.time_of_day(local)
            )
        return _("{command!r} (pid {pid}) since {date_time}").format(
            command=self.command, pid=self.pid, date_time=formats.date_time(local)
        )

    def to_json(self) -> dict[str, object]:
        return {"command": self.command, "pid": self.pid, "since": self.since.isoformat()}


def command_line(argv: list[str] | None = None) -> str:
    """This program's command line as a person typed it (``chessatron play --games 3``), shortened.

    >>> command_line(["/home/pi/chessatron/.venv/bin/chessatron", "serve", "--host", "0.0.0.0"])
    'chessatron serve --host 0.0.0.0'
    >>> command_line(["/usr/lib/python3/site-packages/chessatron/cli/__main__.py", "setup", "0"])
    'chessatron setup 0'
    """
    argv = list(sys.argv if argv is None else argv) or ["python"]
    name = Path(argv[0]).name
    program = "chessatron" if name in ("chessatron", "__main__.py") else name
    text = shlex.join([program, *argv[1:]])
    return text if len(text) <= _COMMAND_CHARS else text[: _COMMAND_CHARS - 1] + "…"


def state_folder() -> Path:
    """``$XDG_STATE_HOME/chessatron`` (``~/.local/state/chessatron``)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "chessatron"


def machine_of(url: str) -> str | None:
    """What identifies the machine behind a GRBL URL across programs, or None for a port no other program
    can reach (``sim://``, ``loop://``, ``none://``): a device by its resolved path, a URL without its
    options.

    >>> machine_of("socket://pi.local:7000?logging=debug"), machine_of("sim://lab?speed=max")
    ('socket://pi.local:7000', None)
    >>> machine_of("spy:///dev/null?file=log.txt")
    '/dev/null'
    """
    url = url.strip()
    if "://" not in url:
        return os.path.realpath(url) if url.startswith("/") else url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in _PRIVATE_SCHEMES:
        return None
    if scheme == "spy":  # pyserial's spy wraps the port after it
        return machine_of(parts.netloc + parts.path)
    return f"{scheme}://{parts.netloc}{parts.path}"


def table_url(urls: Mapping[str, str]) -> str:
    """The URL that names a config's table (its ``urls``): GRBL's, or for a table without a robot
    (``none://``) its sensors'."""
    grbl = urls["grbl"]
    return urls["sensors"] if grbl.strip().lower().startswith("none") else grbl


def lock_path(url: str, *, state: Path | None) -> Path | None:
    """The lock file of the table a command drives through GRBL at ``url``: beside the simulated table's
    ``state`` on ``sim://`` (None without one: the table lives in the program), in the state folder for a
    port (None for one no other program can reach)."""
    if url.strip().lower().startswith("sim"):
        return None if state is None else state.with_name(state.name + ".lock")
    machine = machine_of(url)
    if machine is None:
        return None
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", machine).strip("-") or "port"
    return state_folder() / "locks" / f"{name}.lock"


def _table_words(url: str) -> str:
    """What the table is, as the refusal names it: ``simulated`` or the URL of the machine."""
    return "sim" if url.strip().lower().startswith("sim") else url


@dataclass
class _Held:
    fd: int
    count: int


# The locks this program holds, by file: taken again within the program, released with the last holder.
_HELD: dict[str, _Held] = {}
_HELD_LOCK = threading.Lock()


@contextlib.contextmanager
def hold_table(url: str, *, state: Path | None = None) -> Iterator[None]:
    """Hold the lock of the table driven through GRBL at ``url`` (on ``sim://``, the simulated table saved
    at ``state``) while the ``with`` block runs.

    Raises :class:`~chessatron.errors.TableInUseError` (exit status 2) when another program holds it,
    naming that program. A lock whose file cannot be made (a read-only folder) is warned of in the log
    and not taken: the table is driven as before there was a lock."""
    path = lock_path(url, state=state)
    if path is None or sys.platform == "win32":
        yield
        return
    key = str(path.absolute())
    _acquire(path, key, _table_words(url), state)
    try:
        yield
    finally:
        _release(path, key)


def _acquire(path: Path, key: str, table: str, state: Path | None) -> None:
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is not None:
            held.count += 1
            return
        fd = _locked_fd(path, table, state)
        if fd is not None:
            _HELD[key] = _Held(fd, 1)


def _locked_fd(path: Path, table: str, state: Path | None) -> int | None:
    """A descriptor of ``path`` holding its lock, the holder's text written in it; None when the lock
    cannot be made at all. Raises :class:`TableInUseError` when another program holds it."""
    # again when the file was replaced (its holder removed it) between open and lock
    for _attempt in range(5):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            LOGGER.warning("cannot lock %s at %s (%s): another program could drive it too", table, path, exc)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _wait_for_holder(fd)
            os.close(fd)
            raise TableInUseError(_refusal(table, holder, state)) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except OSError:
            same = False
        if not same:
            os.close(fd)
            continue
        me = Holder(command_line(), os.getpid(), dt.datetime.now().astimezone())
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(me.to_json()) + "\n").encode("utf-8"), 0)
        except OSError as exc:  # the lock holds all the same; only its holder's name is missing
            LOGGER.warning("cannot say in %s who holds the table: %s", path, exc)
        return fd
    LOGGER.warning("cannot lock %s at %s: the file keeps being replaced", table, path)
    return None


def _release(path: Path, key: str) -> None:
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count > 0:
            return
        del _HELD[key]
        # removed while still locked, so that no program locks a file about to go
        with contextlib.suppress(OSError):
            if os.fstat(held.fd).st_ino == os.stat(path).st_ino:
                path.unlink()
        os.close(held.fd)


def read_holder(text: str) -> Holder | None:
    """The holder a lock file's ``text`` names, None when it names none (empty, damaged)."""
    try:
        data = json.loads(text)
        since = dt.datetime.fromisoformat(str(data["since"]))
        holder = Holder(str(data["command"]), int(data["pid"]), since)
    except (ValueError, KeyError, TypeError):
        return None
    return holder if since.tzinfo is not None and holder.pid > 0 else None


def _wait_for_holder(fd: int) -> Holder | None:
    """Who holds the lock on ``fd``'s file, by its text: read again for a moment while it names nobody
    alive (the holder writes its name just after taking the lock; before that the file may still hold a
    killed program's)."""
    deadline = time.monotonic() + _HOLDER_WAIT_S
    while True:
        try:
            holder = read_holder(os.pread(fd, 4096, 0).decode("utf-8", errors="replace"))
        except OSError:
            holder = None
        if holder is not None and _alive(holder.pid):
            return holder
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's program
    return True


def _refusal(table: str, holder: Holder | None, state: Path | None) -> str:
    """The one line that says who drives the table and what to do (``table``: :func:`_table_words`)."""
    simulated = table == "sim"
    if holder is not None and simulated:
        said = _(
            "the simulated table is in use by {holder}: stop it first (Ctrl-C in its terminal, or `systemctl "
            "stop chessatron` for the service), then run this again"
        )
    elif holder is not None:
        said = _(
            "the machine on {url!r} is in use by {holder}: stop it first (Ctrl-C in its terminal, or "
            "`systemctl stop chessatron` for the service), then run this again"
        )
    elif simulated:
        said = _(
            "the simulated table is in use by another program: stop it first (Ctrl-C in its terminal, or "
            "`systemctl stop chessatron` for the service), then run this again"
        )
    else:
        said = _(
            "the machine on {url!r} is in use by another program: stop it first (Ctrl-C in its terminal, or "
            "`systemctl stop chessatron` for the service), then run this again"
        )
    text = said.format(url=table, holder=holder.describe() if holder is not None else "")
    if state is not None:
        text = _("{refusal}; another state file (CHESSATRON_STATE, now {path!r}) is another table").format(
            refusal=text, path=str(state)
        )
    return text
