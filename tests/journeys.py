"""A person at a real terminal, for the journey tests: the program runs on a pseudo-terminal that is its
controlling terminal (pexpect), as it does in a terminal window, so that Ctrl-C is the terminal's SIGINT to
the whole foreground process group (the program and every child it did not put in a group of its own),
Ctrl-D the end of input, and Tab, the arrows and Backspace reach readline as keys. What the person sees is
read two ways: the stream of text since a mark (:meth:`Terminal.expect`), and the screen as a terminal
would draw it (:meth:`Terminal.screen`, through pyte's VT100 emulator), so a live view redrawn in place is
read as it stands, not as the escapes that drew it.

Each program gets a home of its own (:func:`person_env`): config, games, training store, the simulated
table's state and the log file in the test's folder, never the tester's.

>>> keys("ctrl-c"), keys("tab"), keys("Nf3")
('\\x03', '\\t', 'Nf3')
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pexpect
import pyte

#: Keys by name, as a person presses them; anything else is typed as it is.
KEYS = {
    "enter": "\r",
    "tab": "\t",
    "ctrl-c": "\x03",
    "ctrl-d": "\x04",
    "backspace": "\x7f",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "escape": "\x1b",
}

_ESCAPES = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[78=>])")

#: A Python traceback or an internal error: never in front of a person.
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|internal error|Exception ignored")


def keys(name: str) -> str:
    """The bytes a terminal sends for a key named as in :data:`KEYS`, or the text itself."""
    return KEYS.get(name.lower(), name)


def person_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a person's program with everything it keeps in ``home``: the machine config
    (none: the simulator), games, the training store, the simulated table and the log. The tester's own
    readline settings and chessatron variables stay out."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("CHESSATRON_")}
    env.update(
        {
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            "CHESSATRON_LOG": str(home / "chessatron.log"),
            "INPUTRC": os.devnull,
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


class Terminal:
    """``chessatron ARGS`` (or any command) run at a terminal of ``columns`` x ``rows``.

    ``expect(pattern)`` waits for the pattern in the text shown since the last :meth:`mark` (escapes
    removed); ``screen()`` is the terminal's screen as drawn; ``press("ctrl-c")`` and ``type("e4")`` are
    the person's hands; ``exit_status()`` waits for the program to end."""

    def __init__(
        self,
        args: list[str],
        home: Path,
        *,
        columns: int = 120,
        rows: int = 40,
        env: Mapping[str, str] | None = None,
        program: list[str] | None = None,
    ) -> None:
        command = [*(program or [sys.executable, "-m", "chessatron.cli"]), *args]
        home.mkdir(parents=True, exist_ok=True)
        self.home = home
        self.raw = ""
        self._mark = 0
        # What was shown, escapes taken out as it comes (an escape cut between two reads waits in
        # _unclean), and what pyte has not drawn yet: it draws when the screen is looked at, so that a
        # live view's thousands of redraws cost nothing unless a test reads the screen.
        self._text = ""
        self._unclean = ""
        self._undrawn: list[str] = []
        self._screen = pyte.Screen(columns, rows)
        self._stream = pyte.Stream(self._screen)
        environment = dict(env) if env is not None else person_env(home)
        for sized in ("COLUMNS", "LINES"):  # the terminal's own size, never a test runner's
            environment.pop(sized, None)
        self.child = pexpect.spawn(
            command[0],
            command[1:],
            cwd=str(home),
            env=environment,
            dimensions=(rows, columns),
            encoding="utf-8",
            codec_errors="replace",
            timeout=None,
        )
        # A reader of its own: a program whose output nobody reads stops when the terminal's buffer is
        # full (a live view redraws several times a second), as it would not in a terminal window.
        self._lock = threading.Lock()
        self._ended = threading.Event()
        self._reader = threading.Thread(target=self._read_all, name="journey-terminal", daemon=True)
        self._reader.start()

    # -- what the person sees -----------------------------------------------------------------------

    @property
    def text(self) -> str:
        """Everything shown so far, escapes removed."""
        with self._lock:
            return self._text

    def _clean(self, chunk: str) -> None:
        """Add ``chunk`` to :attr:`text`, keeping back an escape sequence it ends in the middle of."""
        pending = self._unclean + chunk
        cut = len(pending)
        last = pending.rfind("\x1b")
        if last >= 0:
            found = _ESCAPES.match(pending, last)
            if found is None and len(pending) - last < 64:  # (a lone ESC long ago is no sequence)
                cut = last
        self._text += _ESCAPES.sub("", pending[:cut]).replace("\r", "")
        self._unclean = pending[cut:]

    def _draw(self) -> None:
        """Let pyte draw what the program wrote since the screen was last looked at (under the lock)."""
        for chunk in self._undrawn:
            try:
                self._stream.feed(chunk)
            except (TypeError, ValueError, IndexError, KeyError):
                # pyte does not know every sequence a terminal does (readline's cursor moves with several
                # parameters): the screen may be off by a line until the next redraw
                self._stream = pyte.Stream(self._screen)
        self._undrawn.clear()

    def _read_all(self) -> None:
        while True:
            try:
                chunk = self.child.read_nonblocking(65536, timeout=0.05)
            except pexpect.TIMEOUT:
                continue
            except (pexpect.EOF, OSError, ValueError):
                self._ended.set()
                return
            with self._lock:
                self.raw += chunk
                self._clean(chunk)
                self._undrawn.append(chunk)

    def _wait(self, timeout_s: float) -> None:
        self._ended.wait(timeout_s)

    def resize(self, columns: int, rows: int) -> None:
        """The person makes the terminal's window another size (the program hears SIGWINCH)."""
        with self._lock:
            self._draw()
            self._screen.resize(rows, columns)
        self.child.setwinsize(rows, columns)

    def mark(self) -> None:
        """From now on :meth:`expect` looks only at what is shown after this moment."""
        self._drain()
        self._mark = len(self.text)

    def expect(self, pattern: str, *, timeout_s: float = 60.0) -> re.Match[str]:
        """Wait until the text shown since the last :meth:`mark` matches ``pattern``; fails showing the
        end of the screen's text."""
        compiled = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        while True:
            found = compiled.search(self.text, self._mark)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} on the terminal:\n{self.text[-3000:]}")
            if not self.child.isalive():
                self._drain()
                if compiled.search(self.text, self._mark) is not None:
                    continue
                raise AssertionError(
                    f"the program ended ({self.child.exitstatus}, signal {self.child.signalstatus}) "
                    f"without showing {pattern!r}:\n{self.text[-3000:]}"
                )
            self._wait(0.05)

    def _drain(self) -> None:
        """Let what the program has written reach the screen (until it is quiet for a moment, or a third
        of a second: a live view may never be quiet)."""
        for _ in range(10):
            before = len(self.raw)
            self._wait(0.03)
            if len(self.raw) == before:
                return

    def screen(self) -> str:
        """The screen as the terminal draws it now, one line per row, trailing blanks removed."""
        self._drain()
        with self._lock:
            self._draw()
            display = list(self._screen.display)
        return "\n".join(line.rstrip() for line in display).rstrip("\n")

    def expect_screen(self, pattern: str, *, timeout_s: float = 60.0) -> re.Match[str]:
        """Wait until the screen as drawn (:meth:`screen`) matches ``pattern``: for what a live view
        redraws in place, which the stream of text shows many times over."""
        compiled = re.compile(pattern)
        deadline = time.monotonic() + timeout_s
        while True:
            found = compiled.search(self.screen())
            if found is not None:
                return found
            if time.monotonic() > deadline or not self.child.isalive():
                raise AssertionError(f"no {pattern!r} on the screen:\n{self.screen()}")
            self._wait(0.1)

    def lines(self) -> Iterator[str]:
        yield from self.screen().splitlines()

    def background(self, row: int, column: int) -> str:
        """The background colour the terminal draws at ``row``, ``column`` of :meth:`screen` (from 0):
        ``"default"``, or the colour (a marked square on the table, a highlighted move)."""
        self._drain()
        with self._lock:
            self._draw()
            return str(self._screen.buffer[row][column].bg)

    # -- what the person does -------------------------------------------------------------------------

    def type(self, text: str) -> None:
        """Type ``text`` (no Enter)."""
        self.child.send(text)

    def line(self, text: str) -> None:
        """Type ``text`` and press Enter."""
        self.child.send(text + "\r")

    def press(self, *names: str) -> None:
        """Press keys by name: ``press("ctrl-c")``, ``press("tab")``, ``press("up", "enter")``."""
        for name in names:
            self.child.send(keys(name))

    # -- the end --------------------------------------------------------------------------------------

    def exit_status(self, timeout_s: float = 60.0) -> int:
        """Wait for the program to end; its exit status (128 + N for a signal N, as a shell says)."""
        deadline = time.monotonic() + timeout_s
        while self.child.isalive():
            if time.monotonic() > deadline:
                raise AssertionError(f"the program did not end in {timeout_s} s:\n{self.text[-3000:]}")
            self._wait(0.05)
        self._ended.wait(5)
        self._reader.join(5)
        self.child.close()
        if self.child.signalstatus is not None:
            return 128 + int(self.child.signalstatus)
        return int(self.child.exitstatus or 0)

    def close(self) -> None:
        """End the program if it still runs (its whole process group, as closing the window does)."""
        if self.child.isalive():
            self.child.kill(9)
        self._ended.wait(5)
        self.child.close(force=True)

    def assert_clean(self) -> None:
        """Nothing a person should never see: no traceback, no internal error."""
        found = TRACEBACK.search(self.text)
        assert found is None, f"{found.group(0)!r} on the terminal:\n{self.text[-3000:]}"

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
