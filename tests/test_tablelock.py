"""One program drives the table at a time (issue 36): with ``chessatron serve`` running on a simulated
table, ``setup`` and ``play`` on that table stop at once, saying who has it; a holder killed outright
leaves no lock behind; another table (another state file) is another program's to drive."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from chessatron.tablelock import hold_table, lock_path, read_holder

from .journeys import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock and pseudo-terminals are POSIX")

FAST = ["--white", "engine:20:depth=1", "--black", "engine:20:depth=1", "--max-plies", "1"]


def _refusal(terminal: Terminal, holder: Terminal) -> str:
    """The one line a refused program ends with: it names the holder's command and pid; exit status 2."""
    found = terminal.expect(
        # (the time as the language writes it: 14:05, 2:05 PM)
        r"chessatron: the simulated table is in use by '([^']+)' \(pid (\d+)\) "
        r"since \d\d?:\d\d\D*?: stop it first"
    )
    assert found[1] == "chessatron serve --port 0 --speed max"
    assert int(found[2]) == holder.child.pid
    assert terminal.exit_status() == 2
    terminal.assert_clean()
    return found[0]


def test_serve_holds_the_table_and_a_killed_serve_leaves_it_free(tmp_path: Path) -> None:
    home = tmp_path / "ann"
    with Terminal(["serve", "--port", "0", "--speed", "max"], home) as serve:
        serve.expect(r"the page: http://127\.0\.0\.1:\d+/")
        with (
            Terminal(["setup", "0"], home) as setup,
            Terminal(["play", *FAST], home) as play,
            Terminal(["setup", "0"], tmp_path / "bo") as elsewhere,
        ):
            _refusal(setup, serve)
            _refusal(play, serve)
            assert not list((home / "data").glob("**/*.jsonl"))  # no game was begun
            # another home, another simulated table: set up while serve drives Ann's
            elsewhere.expect(r"set up Chess960 start #0: \d+ pieces moved")
            assert elsewhere.exit_status() == 0
        serve.child.kill(signal.SIGKILL)  # no chance to let go of anything
        assert serve.exit_status() == 128 + signal.SIGKILL
    lock = home / "state" / "chessatron" / "simulator.json.lock"
    assert "chessatron serve" in lock.read_text()  # the stale file stays, and is not believed
    with Terminal(["setup", "0"], home) as after:
        after.expect(r"set up Chess960 start #0: \d+ pieces moved")
        assert after.exit_status() == 0
        after.assert_clean()
    assert not lock.exists()  # let go when it ended


def test_a_lock_file_is_not_believed_without_its_lock(tmp_path: Path) -> None:
    state = tmp_path / "simulator.json"
    path = lock_path("sim://", state=state)
    assert path == tmp_path / "simulator.json.lock"
    # what a killed holder left: its name, a pid alive (this one), no lock
    path.write_text(
        f'{{"command": "chessatron serve", "pid": {os.getppid()}, "since": "2024-05-01T10:02:00+00:00"}}'
    )
    with hold_table("sim://?speed=max", state=state):
        holder = read_holder(path.read_text())
        assert holder is not None and holder.pid == os.getpid()
        with hold_table("sim://", state=state):  # the same program takes it again (a runner and its session)
            pass
        assert path.exists()
    assert not path.exists()


def test_one_port_by_two_names_is_one_machine(tmp_path: Path) -> None:
    device = tmp_path / "ttyACM0"
    device.touch()
    alias = tmp_path / "usb-Arduino_Uno-if00"
    alias.symlink_to(device)
    assert lock_path(str(alias), state=None) == lock_path(str(device), state=None)
    assert lock_path("socket://pi.local:7000?logging=debug", state=None) == lock_path(
        "socket://pi.local:7000", state=None
    )
    assert lock_path("sim://", state=None) is None  # a table in this program only: nothing to lock
