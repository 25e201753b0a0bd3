"""At a real terminal (a pseudo-terminal) the clock at the keyboard prompt counts down while the player
thinks, and the line being typed is told key by key (the Up arrow, Tab and a typo at the prompt are the
journey's: :mod:`tests.test_journeys_terminal`)."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

_ESCAPES = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[78=>])")


class Terminal:
    """A program on a pseudo-terminal: keys go in, the screen's text (escapes removed) comes out."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        import fcntl
        import struct
        import termios

        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 140, 0, 0))
        self.process = subprocess.Popen(
            command, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.raw = b""

    @property
    def text(self) -> str:
        return _ESCAPES.sub("", self.raw.decode("utf-8", "replace")).replace("\r", "")

    def read(self, timeout_s: float) -> None:
        ready, _, _ = select.select([self.master], [], [], timeout_s)
        if ready:
            try:
                self.raw += os.read(self.master, 65536)
            except OSError:  # the program ended
                time.sleep(timeout_s)

    def expect(self, pattern: str, *, after: int = 0, timeout_s: float = 60.0) -> re.Match[str]:
        """Wait until the screen's text (from character ``after`` on) matches ``pattern``."""
        deadline = time.monotonic() + timeout_s
        while True:
            found = re.search(pattern, self.text[after:])
            if found is not None:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} on the screen:\n{self.text[-3000:]}")
            self.read(0.05)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> int:
        if self.master < 0:
            return self.process.wait()
        try:
            deadline = time.monotonic() + 30
            while self.process.poll() is None and time.monotonic() < deadline:
                self.read(0.05)
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
            return self.process.wait(timeout=10)
        finally:
            os.close(self.master)
            self.master = -1


def play_at_a_terminal(tmp_path: Path, *args: str) -> Terminal:
    """``chessatron play ARGS`` on a pseudo-terminal of 140 x 50, with a home of its own."""
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "INPUTRC": os.devnull,  # the tester's own readline settings stay out
    }
    env.pop("CHESSATRON_CONFIG", None)
    command = [sys.executable, "-m", "chessatron.cli", "play", "--speed", "max", "--games-dir"]
    return Terminal([*command, str(tmp_path / "games"), *args], env, tmp_path)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    script = tmp_path / "black.pgn"
    script.write_text("1. Nf3 d5 2. d4 Nf6 *\n", encoding="utf-8")
    session = play_at_a_terminal(
        tmp_path, "--white", "keyboard", "--black", f"script:{script}", "--clock", "5+0"
    )
    try:
        yield session
    finally:
        if session.process.poll() is None:
            session.process.send_signal(signal.SIGINT)
        session.close()


def test_the_clock_at_the_prompt_counts_down(terminal: Terminal) -> None:
    shown = terminal.expect(r"\[(\d+:\d\d)\] White to move: ")
    # the same prompt, redrawn with less time, while nothing is typed
    later = terminal.expect(r"\[(\d+:\d\d)\] White to move: ", after=shown.end())
    assert later.group(1) < shown.group(1)
    terminal.type("e4\r")
    terminal.expect(r"1\. e4 +keyboard")
    terminal.type("quit\r")
    assert terminal.close() == 0


@pytest.mark.parametrize("asked", [False, True], ids=["hidden", "--show-engine"])
def test_no_free_hint_from_the_engine_unless_asked(tmp_path: Path, asked: bool) -> None:
    args = ["--white", "keyboard", "--black", "engine:1", "--max-plies", "2"]
    session = play_at_a_terminal(tmp_path, *args, *(["--show-engine"] if asked else []))
    try:
        session.expect(r"White to move: ")
        session.type("e4\r")
        session.expect(r"1\.\.\. \S+ +engine:1")
        session.expect(r"stopped after 1 move")  # --max-plies: the game stays saved
    finally:
        code = session.close()
    assert code == 0
    # the engine's evaluation and its line (whose first move is White's best): only when asked for
    assert bool(re.search(r"eval [-+]?\d", session.text)) is asked


#: A prompt whose follower (lineinput.follow) writes each line it is told, as the robot's ponderer hears it.
FOLLOWED = """
import sys
from chessatron.game.telling import lineinput

told = open(sys.argv[1], "a", encoding="utf-8", buffering=1)
lineinput.follow(lambda text: told.write(repr(text) + "\\n"))
line = lineinput.read_line("White to move: ")
told.write(f"line {line!r}\\n")
"""


def followed_prompt(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    """The command of a program reading one line with a follower, its environment, and where it writes
    what the follower is told (a line each)."""
    script, told = tmp_path / "followed.py", tmp_path / "told.txt"
    script.write_text(FOLLOWED, encoding="utf-8")
    told.touch()
    env = {**os.environ, "TERM": "xterm-256color", "INPUTRC": os.devnull}
    return [sys.executable, str(script), str(told)], env, told


def test_the_line_being_typed_is_told_key_by_key_before_enter(tmp_path: Path) -> None:
    command, env, told = followed_prompt(tmp_path)
    terminal = Terminal(command, env, tmp_path)

    def heard() -> list[str]:
        return told.read_text(encoding="utf-8").splitlines()

    try:
        terminal.expect(r"White to move: ")
        # N, f, then a key that takes one back: each line told as it stands, Enter not yet pressed
        for key, expected in (("N", ["'N'"]), ("f", ["'N'", "'Nf'"]), ("\x7f", ["'N'", "'Nf'", "'N'"])):
            terminal.type(key)
            deadline = time.monotonic() + 10
            while heard() != expected:
                assert time.monotonic() < deadline, f"told {heard()}, not {expected}"
                terminal.read(0.05)
        terminal.type("f3\r")
    finally:
        code = terminal.close()
    assert code == 0
    assert heard()[-1] == "line 'Nf3'"


def test_without_a_terminal_the_line_comes_back_and_nobody_is_told(tmp_path: Path) -> None:
    command, env, told = followed_prompt(tmp_path)
    piped = subprocess.run(command, input=b"Nf3\n", capture_output=True, env=env, cwd=tmp_path, timeout=60)
    assert piped.returncode == 0, piped.stderr
    assert told.read_text(encoding="utf-8").splitlines() == ["line 'Nf3'"]
