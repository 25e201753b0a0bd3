"""The simulated d-pad: presses from a script, or put in by a test or a program, in order.

``sim://[NAME]?script=right,up*2,select`` presses the buttons the script names, one after another, as
fast as the player reads them; ``sim://?file=presses.txt`` takes the script from a file (``#`` starts a
comment). A script that has run out is like the end of typed input: the player stops, the game saved.
Without a script the pad waits for :meth:`SimButtons.press`.

A script is button names (``up``, ``down``, ``left``, ``right``, ``select``, ``back``) separated by
commas, spaces or new lines; ``right*3`` is three presses.

>>> parse_presses("right*2, select back")
('right', 'right', 'select', 'back')
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from .. import files
from ..device import Device
from ..errors import ConfigError
from ..i18n import _
from ..keys import unknown
from ..ports import Button, DeviceUrl

BUTTONS: tuple[Button, ...] = get_args(Button)
OPTIONS = ("script", "file")
#: A press repeated more often than this in a script is a typo (``right*1000``).
MAX_REPEAT = 99


def parse_presses(text: str, *, source: str | None = None) -> tuple[Button, ...]:
    """The presses a script names, in order. Raises :class:`~chessatron.errors.ConfigError` naming the
    word it cannot read.

    >>> parse_presses("up # to the pawn\\nselect")
    ('up', 'select')
    """
    where = source if source is not None else _("the press script")
    presses: list[Button] = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].replace(",", " ").split()
        for word in words:
            name, star, count_text = word.lower().partition("*")
            if name not in BUTTONS:
                raise ConfigError(
                    _("{source}: {problem}").format(source=where, problem=unknown("button", name, BUTTONS))
                )
            count = 1
            if star:
                if not count_text.isdigit() or not 1 <= int(count_text) <= MAX_REPEAT:
                    raise ConfigError(
                        _("{source}: {word!r} must repeat a button 1 to {most} times, as in right*3").format(
                            source=where, word=word, most=MAX_REPEAT
                        )
                    )
                count = int(count_text)
            presses += [name] * count
    return tuple(presses)


@dataclass(frozen=True)
class SimSettings:
    """What a ``sim://`` pad URL says: its name and its script (None: no script, the pad waits)."""

    name: str
    script: tuple[Button, ...] | None


def sim_settings(url: DeviceUrl) -> SimSettings:
    """The settings of a ``sim://`` pad URL, checked (a script file is read and parsed)."""
    url.check_options(OPTIONS, "sim://?script=right,up*2,select")
    if "script" in url.params and "file" in url.params:
        raise ConfigError(_("give the presses as script= or in a file=, not both"))
    script: tuple[Button, ...] | None = None
    if "script" in url.params:
        script = parse_presses(url.params["script"], source="script=")
    elif "file" in url.params:
        path = Path(url.params["file"])
        script = parse_presses(files.read_text(path, files.PRESS_SCRIPT), source=repr(str(path)))
    return SimSettings(url.target.strip("/") or "default", script)


class SimButtons(Device):
    """A simulated pad: ``presses`` first (a script), then whatever :meth:`press` adds.

    ``ends``: whether the pad is finished once its presses have run out (a script's end is the end of
    the player's input); by default when a script was given. ``pressed`` records every press read,
    with the time it was read.
    """

    def __init__(
        self,
        presses: Iterable[Button] = (),
        *,
        ends: bool | None = None,
        name: str = "default",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        script = tuple(presses)
        for button in script:
            _check_button(button)
        self.name = name
        self.ends = bool(script) if ends is None else ends
        self._clock = clock
        self._queue: queue.Queue[Button] = queue.Queue()
        self._lock = threading.Lock()
        for button in script:
            self._queue.put(button)
        self.pressed: list[tuple[float, Button]] = []

    def press(self, *buttons: Button) -> None:
        """Press ``buttons``, one after another (a test, or a program standing in for a person)."""
        for button in buttons:
            _check_button(button)
        self._check_open()
        for button in buttons:
            self._queue.put(button)

    @property
    def pending(self) -> int:
        """Presses made but not read yet."""
        return self._queue.qsize()

    def read(self, timeout_s: float | None = None) -> Button | None:
        self._check_open()
        if self.is_finished:
            return None
        try:
            if timeout_s is not None and timeout_s <= 0:
                button = self._queue.get_nowait()
            else:
                button = self._queue.get(timeout=timeout_s)
        except queue.Empty:
            return None
        with self._lock:
            self.pressed.append((self._clock(), button))
        return button

    @property
    def is_finished(self) -> bool:
        return self.ends and self._queue.empty()

    def __repr__(self) -> str:
        return f"<SimButtons {self.name!r}, {self.pending} presses pending>"


def _check_button(button: str) -> None:
    if button not in BUTTONS:
        raise ConfigError(unknown("button", button, BUTTONS))
