"""A client's end of a pseudo-terminal: the app's side of the serial line ``chessatron eboard --port``
opens (the other end, by its name)."""

from __future__ import annotations

import os
import select
import tty
from collections.abc import Iterator
from contextlib import contextmanager

from .base import Link


class PtyLink(Link):
    """The master end of a pseudo-terminal, as an app's serial port."""

    def __init__(self, master: int) -> None:
        self.master = master

    def write(self, data: bytes, channel: str = "") -> None:
        del channel
        os.write(self.master, data)

    def read(self, timeout: float) -> tuple[str, bytes] | None:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return None
        try:
            return "", os.read(self.master, 4096)
        except OSError:
            return None  # the board's end is closed


@contextmanager
def serial_line() -> Iterator[tuple[PtyLink, str]]:
    """A pseudo-terminal: the app's link and the name of the board's end (for ``--port``). The board's end
    stays open here too (raw, no echo), so that the line lives while the program opens and closes it."""
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    try:
        yield PtyLink(master), os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)
