"""A program file for ``chessatron run``, however long: read as it is needed, checked whole before
anything moves, then streamed a part at a time.

A maker's program may be millions of lines (a 40 MB file of engravings). Held whole it took a gigabyte
and minutes of silence: the streamer worked out every line before the first was sent. So a large file
(over :data:`WHOLE_BYTES`) is read from the disk on each pass instead: once to check it (every line
streamable, no host marker without its magnet, and unless ``--raw`` the guard's rules,
:mod:`~chessatron.grbl.guard`), with the bytes read so far for a progress bar, then a part of
:data:`PART_LINES` lines at a time while it streams (:meth:`~chessatron.grbl.link.GrblLink.stream_parts`).
A small file, a pipe (it reads once) or anything else is read whole, as :func:`chessatron.files.read_text`
reads it, with the same one-line errors.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "square.gcode"
...     _ = path.write_text("G21 G90\\n(corner)\\nG0 X10 Y10\\nG0 X200 Y10\\n", encoding="ascii")
...     program = ProgramFile.open(path)
...     check = check_program_file(program, Layout.default(), guard=True, host_magnet=False)
>>> check.lines, check.sends, check.refused, check.moves
(4, 3, 0, True)
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import files
from ..errors import ConfigError
from ..i18n import _
from ..planning.layout import Layout, MachinePoint
from .charcount import program_line
from .guard import Refusal, check_lines

__all__ = ["PART_LINES", "WHOLE_BYTES", "ProgramCheck", "ProgramFile", "check_program_file"]

#: A program file up to this size is read whole, once (bytes).
WHOLE_BYTES = 256 * files.KiB
#: Lines streamed as one part of a program read from the disk.
PART_LINES = 2000
#: Bytes read from the disk at a time.
_READ_BYTES = 256 * files.KiB

Progress = Callable[[int], None]
"""Called with the bytes read so far."""


@dataclass(frozen=True)
class ProgramFile:
    """A program file: its lines held whole (``text``), or for a large one read from the disk on each
    pass (``text`` None). ``size`` is its length in bytes."""

    path: Path
    size: int
    text: str | None

    @classmethod
    def open(cls, path: Path) -> ProgramFile:
        """The program at ``path``. Raises :class:`~chessatron.errors.ConfigError` for one that cannot be
        read (missing, a folder, a device, too large), naming it; a large file's text is checked as it is
        read."""
        try:
            info = os.stat(path)
        except OSError:
            info = None
        if info is None or not stat.S_ISREG(info.st_mode) or info.st_size <= WHOLE_BYTES:
            text = files.read_text(path, files.PROGRAM)  # (says what is wrong with the file, if anything)
            return cls(path, len(text), text)
        if info.st_size > files.PROGRAM.max_bytes:
            limit = files.PROGRAM.max_bytes // files.MiB
            raise files.PROGRAM.fail(
                path,
                _("it is larger than {limit} MiB").format(limit=limit),
                advice=_("is it the right file?"),
            )
        return cls(path, info.st_size, None)

    @property
    def whole(self) -> bool:
        return self.text is not None

    def lines(self, on_bytes: Progress | None = None) -> Iterator[str]:
        """The program's lines (without their line ends), from the first, read as they are needed;
        ``on_bytes`` hears how many bytes are read so far. Raises :class:`ConfigError` for bytes that are
        not ASCII."""
        if self.text is not None:
            yield from self.text.splitlines()
            if on_bytes is not None:
                on_bytes(self.size)
            return
        decoder = codecs.getincrementaldecoder("ascii")()
        rest, done = "", 0
        try:
            with self.path.open("rb") as handle:
                while chunk := handle.read(_READ_BYTES):
                    try:
                        text = rest + decoder.decode(chunk)
                    except UnicodeDecodeError as exc:
                        at = done + exc.start
                        raise files.PROGRAM.fail(
                            self.path,
                            _("it is not ASCII text (byte {byte} at offset {offset})").format(
                                byte=f"{chunk[exc.start]:#04x}", offset=at
                            ),
                        ) from None
                    done += len(chunk)
                    *complete, rest = text.split("\n")
                    for line in complete:
                        yield line.removesuffix("\r")
                    if on_bytes is not None:
                        on_bytes(done)
        except OSError as exc:
            raise files.PROGRAM.fail(self.path, exc.strerror or str(exc)) from exc
        if rest:
            yield rest.removesuffix("\r")

    def parts(self, size: int = PART_LINES) -> Iterator[list[str]]:
        """The program's lines, ``size`` at a time."""
        part: list[str] = []
        for line in self.lines():
            part.append(line)
            if len(part) >= size:
                yield part
                part = []
        if part:
            yield part


@dataclass(frozen=True)
class ProgramCheck:
    """What checking a program found: its ``lines``, how many are sent (``sends``: comments are not), the
    guard's first refusals (``refusals``), how many lines it refused in all (``refused``) and whether a
    line moves (``moves``: anything but ``$`` settings and comments, which GRBL refuses while locked)."""

    lines: int
    sends: int
    refusals: tuple[Refusal, ...]
    refused: int
    moves: bool


def check_program_file(
    program: ProgramFile,
    layout: Layout,
    start_mm: MachinePoint | None = None,
    *,
    guard: bool,
    host_magnet: bool,
    on_bytes: Progress | None = None,
    shown: int = 3,
) -> ProgramCheck:
    """Check every line of ``program`` before anything moves: that it can be streamed (raises
    :class:`~chessatron.errors.GcodeError` naming the first that cannot), that its magnet markers have a
    host magnet (``host_magnet``; raises :class:`ConfigError`), and with ``guard`` the guard's rules from
    ``start_mm`` (the first ``shown`` refusals kept, all counted)."""
    counts = {"lines": 0, "sends": 0, "moves": 0}

    def streamable() -> Iterator[str]:
        for number, text in enumerate(program.lines(on_bytes), start=1):
            line = program_line(number, text)
            counts["lines"] = number
            counts["sends"] += line.block is not None
            counts["moves"] += line.block is not None and not line.block.startswith("$")
            action = line.action
            if action is not None and (action.kind == "host" or not host_magnet):
                text = (
                    _(
                        "program line {line} marks ({marker}) for a host action, which `chessatron run` does "
                        "not have: write the program for the magnet on grbl's spindle or coolant output, or "
                        "set the layout's magnet method to servo and the config's [magnet] url"
                    )
                    if action.kind == "host"
                    else _(
                        "program line {line} marks ({marker}) for a host magnet, which `chessatron run` does "
                        "not have: write the program for the magnet on grbl's spindle or coolant output, or "
                        "set the layout's magnet method to servo and the config's [magnet] url"
                    )
                )
                raise ConfigError(text.format(line=number, marker=action.name))
            yield text

    refusals: list[Refusal] = []
    refused = 0
    if guard:
        for refusal in check_lines(streamable(), layout, start_mm):
            refused += 1
            if len(refusals) < shown:
                refusals.append(refusal)
    else:
        for _line in streamable():
            pass
    return ProgramCheck(counts["lines"], counts["sends"], tuple(refusals), refused, counts["moves"] > 0)
