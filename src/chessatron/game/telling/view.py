"""The terminal view of a game: :func:`~.screen.render_view` of the live state, shown live on a terminal and
redrawn whenever the live state changes, from a thread of its own (the game thread only sets an event).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Final, Protocol

from rich.console import Console, RenderableType
from rich.live import Live

from ...planning.planner import Relocation
from ...planning.table import Table
from ...render import wants_letters
from ..clock import format_clock
from . import lineinput
from .lineinput import Prompt
from .live import LiveState
from .screen import render_view
from .words import countdown_words

__all__ = ["FPS", "PlayView", "Render"]

LOGGER = logging.getLogger(__name__)

#: At most this many redraws a second.
FPS: Final = 20


class Render(Protocol):
    """What draws the picture, called as :func:`render_view` is (a puzzle's view adds its panel to it)."""

    def __call__(
        self,
        snapshot: Mapping[str, Any],
        table: Table | None,
        paths: Sequence[Relocation],
        *,
        width: int,
        engine: bool,
        letters: bool,
    ) -> RenderableType: ...


# --- live ------------------------------------------------------------------------------------------


def _ticked(clock: Mapping[str, Any], elapsed_ms: float) -> dict[str, Any]:
    """The clock ``elapsed_ms`` after the snapshot was taken: the running side's time goes down."""
    ticked = dict(clock)
    running = clock.get("running")
    if running in ("white", "black"):
        key = f"{running}_ms"
        ticked[key] = max(0, int(clock.get(key) or 0) - int(elapsed_ms))
    return ticked


def _until_next_tick(ms: int) -> float:
    """Seconds until a clock showing ``ms`` shows something else (tenths under ten seconds)."""
    step = 100 if ms <= 10_000 else 1000
    return (ms % step or step) / 1000 + 0.001


class PlayView:
    """The game shown live on a terminal: :func:`render_view` of a :class:`LiveState`, redrawn as it
    changes (at most :data:`FPS` times a second, and as a running clock ticks).

    A thread of the view's own waits for changes; the game thread only sets an event, so a slow
    terminal never holds up the game. While a keyboard prompt waits for a line the live display must
    stop: :meth:`read_line` (a ``read_line`` for :class:`~chessatron.game.players.keyboard.KeyboardPlayer`)
    does that around the prompt, and :meth:`suspend` around anything else that reads the terminal.
    :meth:`print` shows a line above the live area.

    On a console that is no terminal (output to a file or pipe) the view shows nothing live: entering,
    leaving and :meth:`suspend` do nothing and :meth:`print` prints the line; :meth:`wanted` tells
    beforehand, so a caller can keep its plain line output instead.

    ``read_line(prompt)`` reads a line (None at the end of input); ``now`` is the monotonic clock in
    seconds by which a running chess clock ticks on between snapshots. ``engine`` shows the engine's
    view even while a person plays the engine (:func:`~.screen.engine_view_shown`); ``letters`` draws FEN
    letters instead of chess glyphs (default: :func:`wants_letters` of the console); ``render`` draws the
    picture, called as :func:`render_view` is (a puzzle's view, :mod:`chessatron.training.terminal`).

    Nothing is drawn before the table is known (a game set up or resumed), so that no empty frame is
    left above the first lines printed.

    >>> import io
    >>> from chessatron.planning.layout import Layout
    >>> quiet = Console(file=io.StringIO())
    >>> PlayView.wanted(quiet)
    False
    >>> with PlayView(LiveState(Layout.default()), quiet) as view:
    ...     view.is_showing
    False
    """

    def __init__(
        self,
        live: LiveState,
        console: Console,
        *,
        read_line: Callable[[str], str | None] = lineinput.read_line,
        now: Callable[[], float] = time.monotonic,
        engine: bool = False,
        letters: bool | None = None,
        render: Render = render_view,
    ) -> None:
        self.live = live
        self.console = console
        #: Show the engine's evaluation and line even while a person plays the engine.
        self.engine = engine
        #: FEN letters and ASCII marks instead of chess glyphs.
        self.letters = wants_letters(console) if letters is None else letters
        #: Whether this view draws at all (:meth:`wanted` for its console).
        self.enabled = self.wanted(console)
        self._read_line = read_line
        self._render = render
        self._now = now
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._display: Live | None = None
        self._thread: threading.Thread | None = None
        self._unlisten: Callable[[], None] | None = None
        self._started = False
        self._suspended = 0
        self._tick_s: float | None = None
        self._clock_seen: Mapping[str, Any] | None = None
        self._clock_at = 0.0

    def __repr__(self) -> str:
        state = "showing" if self.is_showing else ("off" if not self.enabled else "not showing")
        return f"PlayView({state}, width={self.console.width})"

    @staticmethod
    def wanted(console: Console) -> bool:
        """Whether a live view can show on ``console``: it is a terminal (and not a dumb one)."""
        return console.is_terminal and not console.is_dumb_terminal

    @property
    def is_showing(self) -> bool:
        """Whether the live display is on the screen now (entered, not suspended, not closed)."""
        return self._display is not None

    # --- lifetime ----------------------------------------------------------------------------------

    def __enter__(self) -> PlayView:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def start(self) -> None:
        """Show the view and follow the live state (does nothing when not :attr:`enabled` or started)."""
        if not self.enabled or self._started:
            return
        self._started = True
        self._closing.clear()
        try:
            self._show()
            self._unlisten = self.live.listen(lambda version: self._wake.set())
            self._thread = threading.Thread(target=self._follow, name="chessatron-view", daemon=True)
            self._thread.start()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stop following and leave the last picture on the screen. Idempotent."""
        if not self._started:
            return
        self._started = False
        self._closing.set()
        self._wake.set()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._lock:
            self._hide()

    # --- the terminal ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def suspend(self) -> Iterator[None]:
        """Stop the live display (its last picture stays) so that the terminal can be read, e.g. by
        ``input()``; it comes back, up to date, afterwards. Nests; does nothing when not showing."""
        with self._lock:
            self._suspended += 1
            self._hide()
        try:
            yield
        finally:
            with self._lock:
                self._suspended -= 1
                if self._suspended == 0 and self._started:
                    self._show()

    def read_line(self, prompt: str) -> str | None:
        """Read a line with the live display suspended: a ``read_line`` for a ``KeyboardPlayer``.

        The picture stands still while the prompt waits, so a running clock's time is put before the
        prompt (``[4:53] White to move: ``), as a :class:`~.lineinput.Prompt` that counts down while the
        player thinks."""
        clock = self._ticking_clock(self.live.snapshot().get("clock"))
        if clock is not None:
            running = str(clock["running"])
            plain = prompt
            shown = [f"[{format_clock(clock[f'{running}_ms'])}] {plain}"]
            stopped = [False]

            def now() -> str:
                # Once this side's clock stops (the flag fell, the game ended or was stopped) the prompt
                # keeps the time it last showed: its line may go on being read on a thread of its own
                # after it was given up, and a redraw then would print it over the lines that follow.
                ticked = None if stopped[0] else self._ticking_clock(self.live.snapshot().get("clock"))
                if ticked is None or ticked.get("running") != running:
                    stopped[0] = True
                    return shown[0]
                shown[0] = f"[{format_clock(ticked[f'{running}_ms'])}] {plain}"
                return shown[0]

            prompt = Prompt(shown[0], now)
        with self.suspend():
            return self._read_line(prompt)

    def print(self, line: RenderableType) -> None:
        """Show ``line`` above the live area (just print it when nothing is live). Strings are printed
        as they are, without rich markup."""
        if isinstance(line, str):
            self.console.print(line, markup=False, highlight=False)
        else:
            self.console.print(line)

    def redraw(self) -> None:
        """Draw the live state now (when showing; the first time once the table is known)."""
        with self._lock:
            if self._display is None:
                if self._started and not self._suspended:
                    self._show()
                return
            self._display.update(self._frame(), refresh=True)

    # --- inside ------------------------------------------------------------------------------------

    def _show(self) -> None:
        if self._display is not None or self._suspended:
            return
        if self.live.table()[0] is None:
            return  # nothing to show yet (redraw shows it once the table is known)
        # A fresh Live each time: a stopped one keeps the overflow setting it used for its last picture.
        display = Live(self._frame(), console=self.console, auto_refresh=False, transient=False)
        display.start(refresh=True)
        self._display = display

    def _hide(self) -> None:
        display, self._display = self._display, None
        if display is not None:
            display.update(self._frame())
            display.stop()

    def _follow(self) -> None:
        interval = 1 / FPS
        while not self._closing.is_set():
            self._wake.wait(self._tick_s)
            if self._closing.is_set():
                return
            self._wake.clear()
            try:
                self.redraw()
            except Exception:  # a broken picture must not end the view, nor ever the game
                LOGGER.exception("cannot draw the game view")
            self._closing.wait(interval)

    def _frame(self) -> RenderableType:
        """The picture of the live state now, with a running clock ticked on since its snapshot."""
        snapshot = self.live.snapshot()
        table, paths = self.live.table()
        clock = self._ticking_clock(snapshot.get("clock"))
        self._tick_s = None
        if clock is not None:
            snapshot["clock"] = clock
            self._tick_s = _until_next_tick(clock[f"{clock['running']}_ms"])
        if countdown_words((snapshot.get("gantry") or {}).get("work")) is not None:
            self._tick_s = min(self._tick_s or 1.0, 1.0)  # the robot's countdown ticks too
        return self._render(
            snapshot, table, paths, width=self.console.width, engine=self.engine, letters=self.letters
        )

    def _ticking_clock(self, clock: Mapping[str, Any] | None) -> dict[str, Any] | None:
        """A snapshot's ``clock`` ticked on since it last changed; None unless one runs."""
        with self._lock:
            now = self._now()
            if clock != self._clock_seen:
                self._clock_seen, self._clock_at = clock, now
            if not clock or clock.get("running") not in ("white", "black"):
                return None
            return _ticked(clock, (now - self._clock_at) * 1000)
