"""The table's status display and buzzer follow the game: the moves, whose turn it is, the clocks, the
result and the board's questions on the display; a tune for a move, a check, the end of the game, an
error or a question on the buzzer.

Like the terminal view (:mod:`.view`), an :class:`Announcer` watches a
:class:`~chessatron.game.telling.live.LiveState` from a thread of its own, so that a slow LCD on I2C never
holds up the game: the game thread only sets an event. :func:`display_lines` and :func:`tunes_between` are the
pure parts, over live snapshots.

>>> import chess
>>> from chessatron.planning.layout import Layout
>>> live = LiveState(Layout.default())
>>> live.show_board(chess.Board(), players=("keyboard", "engine:5"))
>>> display_lines(live.snapshot(), cols=16, rows=2)
['White to move', 'no moves yet']
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

from ...config import Config
from ...errors import ChessatronError
from ...feedback.tunes import TUNES, TuneName
from ...i18n import N_, _, pgettext
from ...i18n.notation import san_in
from ...ports import Buzzer, DeviceUrl, StatusDisplay
from ..clock import format_clock
from .events import move_label
from .live import LiveState
from .words import countdown_words, minutes, seconds_left, work_words

__all__ = ["Announcer", "display_lines", "open_announcer", "tunes_between"]

LOGGER = logging.getLogger(__name__)

#: At most this many updates of the display a second.
UPDATES_PER_S: Final = 10

#: How the end of a game reads on a small display, on the line under "White wins 1-0" or "Draw 1/2-1/2".
_ENDINGS: Final[dict[str, str]] = {
    # TRANSLATORS: status display, at most 16 columns: how the game ended, under "White wins 1-0"
    "checkmate": N_("by checkmate"),
    "resignation": N_("by resignation"),
    "time forfeit": N_("on time"),
    "agreed draw": N_("agreed"),
    "stalemate": N_("by stalemate"),
    "threefold repetition": N_("by repetition"),
    "fivefold repetition": N_("by repetition"),
    "fifty moves": N_("by 50-move rule"),
    "seventy-five moves": N_("by 75-move rule"),
    "insufficient material": N_("no mating material"),
    "abandoned": N_("opponent left"),
}


def turn_line(turn: str, check: bool) -> str:
    """Whose move it is (``turn``: white or black) on a small display, and whether in check."""
    if turn == "black" and check:
        # TRANSLATORS: status display, at most 16 columns
        return pgettext("status display", "Black in check")
    if turn == "black":
        # TRANSLATORS: status display, at most 14 columns (the buttons' display adds " +" in check)
        return pgettext("status display", "Black to move")
    if check:
        # TRANSLATORS: status display, at most 16 columns
        return pgettext("status display", "White in check")
    # TRANSLATORS: status display, at most 14 columns (the buttons' display adds " +" in check)
    return pgettext("status display", "White to move")


# --- what the display shows ------------------------------------------------------------------------


def display_lines(
    snapshot: Mapping[str, Any],
    *,
    cols: int | None = None,
    rows: int | None = None,
    now: float | None = None,
) -> list[str]:
    """The lines a status display shows for a live ``snapshot``, most important first: a question the
    board asks, the result, what the robot does (and for long work how long it has left at wall-clock
    time ``now``), or whose move it is (and check); the last move; the clocks. On a display of ``rows``
    lines of ``cols`` characters the clocks and the last move share a line when they fit, and the least
    important lines go.

    >>> game = {"san": ["e4", "c5"], "uci": ["e2e4", "c7c5"], "turn": "white", "check": False,
    ...         "result": None, "start_fen": None}
    >>> clock = {"white_ms": 293_000, "black_ms": 300_000, "running": "white"}
    >>> display_lines({"game": game, "clock": clock}, cols=16, rows=2)
    ['White to move', 'W4:53 B5:00 c5']
    >>> display_lines({"game": game, "question": {"text": "Bxf3 or Bxh3?"}}, cols=16, rows=2)
    ['Which move?', 'Bxf3 or Bxh3?']
    >>> work = {"title": "SETUP", "index": 3, "of": 25, "left_s": 160.0, "at": 50.0}
    >>> display_lines({"game": game, "gantry": {"work": work}}, cols=16, rows=2, now=50.0)
    ['Setting up', 'about 2:40 left']
    """
    game = snapshot.get("game")
    work = (snapshot.get("gantry") or {}).get("work")
    left = seconds_left(work, now)
    if not game:
        if work and left is not None:  # a set-up between games
            return [_work_line(work, None, cols), _left(left)]
        # TRANSLATORS: status display, at most 16 columns
        return ["chessatron", str(snapshot.get("status") or _("no game"))]
    lines: list[str] = []
    question = snapshot.get("question")
    result = game.get("result")
    if question:
        # TRANSLATORS: status display, at most 16 columns: the board asks which of several moves was made
        lines += [_("Which move?"), str(question.get("text") or "")]
    elif result is not None:
        lines += _result_lines(str(result), game.get("termination"), cols)
    elif work:
        lines.append(_work_line(work, game, cols))
        if left is not None:
            lines.append(_left(left))
    elif snapshot.get("status_kind") == "setting up":
        # TRANSLATORS: status display, at most 16 columns: the robot is about to set the table up
        lines.append(_("Setting up"))
    else:
        lines.append(turn_line(str(game.get("turn") or "white").lower(), bool(game.get("check"))))
    move = _last_move(game)
    clock = _clock_line(snapshot.get("clock"))
    if rows is None or len(lines) + 2 <= rows:
        return lines + [move] + ([clock] if clock else [])
    room = max(rows - len(lines), 0)
    if room and clock:
        sans: Sequence[str] = game.get("san") or ()
        tries = [f"{clock} {move}", f"{clock} {san_in(sans[-1])}" if sans else clock, clock]
        lines.append(next(line for line in tries if cols is None or len(line) <= cols))
    elif room:
        lines.append(move)
    return lines[: rows if rows else None]


def _left(seconds: float) -> str:
    """How long the robot's long work has left, in a line."""
    if seconds < 1.0:
        # TRANSLATORS: status display, at most 16 columns: the robot's long work is about to end
        return pgettext("status display", "almost done")
    # TRANSLATORS: status display, at most 16 columns; {time}: minutes and seconds (2:40)
    return _("about {time} left").format(time=minutes(seconds))


def _work_line(work: Mapping[str, Any], game: Mapping[str, Any] | None, cols: int | None) -> str:
    """What the robot does, in a line that fits: its headline, else for long work (counted down on the
    next line) its short title ("Setting up"), else "Robot moving"."""
    words = work_words(work, game)
    if cols is None or len(words.headline) <= cols:
        return words.headline
    short = words.title[:1].upper() + words.title[1:]
    # TRANSLATORS: status display, at most 16 columns
    return short if "left_s" in work and len(short) <= cols else _("Robot moving")


def _result_lines(result: str, termination: str | None, cols: int | None) -> list[str]:
    ending = _ENDINGS.get(termination or "")
    how = _(ending) if ending else termination or ""
    if result in ("1-0", "0-1"):
        # TRANSLATORS: status display, at most 16 columns (else "White wins" shows); {score}: 1-0 or 0-1
        won = (_("White wins {score}") if result == "1-0" else _("Black wins {score}")).format(score=result)
        if cols is not None and len(won) > cols:
            # TRANSLATORS: status display, at most 16 columns
            won = _("White wins") if result == "1-0" else _("Black wins")
        return [won, how] if how else [won]
    if result == "1/2-1/2":
        # TRANSLATORS: status display, at most 16 columns; {score}: 1/2-1/2
        drawn = _("Draw {score}").format(score=result)
        return [drawn, how] if how else [drawn]
    # TRANSLATORS: status display, at most 16 columns
    return [_("Game stopped")]


def _last_move(game: Mapping[str, Any]) -> str:
    sans: Sequence[str] = game.get("san") or ()
    if not sans:
        # TRANSLATORS: status display, at most 16 columns
        return _("no moves yet")
    return f"{move_label(len(sans), game.get('start_fen'))} {san_in(sans[-1])}".replace("... ", "...")


def _clock_line(clock: Mapping[str, Any] | None) -> str:
    if not clock:
        return ""
    white, black = int(clock.get("white_ms") or 0), int(clock.get("black_ms") or 0)
    # TRANSLATORS: status display: both clocks in 12 columns (W4:53 B5:00), a letter each for White and Black
    return _("W{white} B{black}").format(white=format_clock(white), black=format_clock(black))


# --- what the buzzer plays -------------------------------------------------------------------------


def tunes_between(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[TuneName]:
    """The tunes for what changed from the live snapshot ``before`` to ``after``: a new game
    (``robot-start``), a move (``move``; ``check`` when it gives check), the end of the game
    (``game-over``), a question from the board (``question``), a warning or an error, or the machine
    stopping in alarm (``illegal``).

    >>> game = {"id": "g1", "san": [], "check": False, "result": None}
    >>> tunes_between({"game": game}, {"game": {**game, "san": ["e4"]}})
    ['move']
    """
    before = before or {}
    tunes: list[TuneName] = []
    old, new = before.get("game") or {}, after.get("game") or {}
    if new and new.get("id") != old.get("id") and new.get("result") is None:
        tunes.append("robot-start")
    elif new and new.get("id") == old.get("id"):
        grew = len(new.get("san") or ()) > len(old.get("san") or ())
        if new.get("result") is not None and old.get("result") is None:
            tunes.append("game-over")
        elif grew:
            tunes.append("check" if new.get("check") else "move")
    if after.get("question") and after.get("question") != before.get("question"):
        tunes.append("question")
    if _new_trouble(before, after):
        tunes.append("illegal")
    return tunes


def _new_trouble(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """A warning or error notice came, or the machine went into alarm."""
    old_notices, new_notices = before.get("notices") or [], after.get("notices") or []
    fresh = new_notices[len(old_notices) :] if len(new_notices) > len(old_notices) else []
    if new_notices and old_notices and new_notices[-1] != old_notices[-1] and not fresh:
        fresh = new_notices[-1:]  # the list is kept short: the newest one is new
    if any(notice.get("level") in ("warning", "error") for notice in fresh):
        return True
    old_state = str((before.get("gantry") or {}).get("state") or "")
    new_state = str((after.get("gantry") or {}).get("state") or "")
    return new_state.startswith("Alarm") and not old_state.startswith("Alarm")


# --- following the game ----------------------------------------------------------------------------


def _ticked(clock: Mapping[str, Any], elapsed_ms: float) -> dict[str, Any]:
    ticked = dict(clock)
    running = clock.get("running")
    if running in ("white", "black"):
        key = f"{running}_ms"
        ticked[key] = max(0, int(clock.get(key) or 0) - int(elapsed_ms))
    return ticked


class Announcer:
    """Shows a :class:`LiveState` on a status display and plays its tunes on a buzzer, from a thread of
    its own, until :meth:`close`. A running clock is shown ticking (once a second) when ``tick``.

    ``cols``/``rows``: the display's size in characters (None: lines of any length, as many as there
    are). A device that fails is given up (one warning) and the game goes on without it. Changes that
    come faster than the thread follows are shown together (the newest state, the most telling tune);
    with ``threaded`` False every change is shown, and played, on the thread that makes it (tests).

    >>> import chess
    >>> from chessatron.feedback.display import SimDisplay
    >>> from chessatron.feedback.buzzer import SimBuzzer
    >>> from chessatron.planning.layout import Layout
    >>> live, display, buzzer = LiveState(Layout.default()), SimDisplay(16, 2), SimBuzzer()
    >>> with Announcer(live, display=display, buzzer=buzzer, cols=16, rows=2) as announcer:
    ...     live.show_board(chess.Board(), game_id="g1", players=("keyboard", "engine"))
    ...     announcer.settle()
    >>> display.text.splitlines()[0], buzzer.played_names()
    ('White to move', ['robot-start'])
    """

    def __init__(
        self,
        live: LiveState,
        *,
        display: StatusDisplay | None = None,
        buzzer: Buzzer | None = None,
        cols: int | None = None,
        rows: int | None = None,
        tick: bool = True,
        threaded: bool = True,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.live = live
        self.display = display
        self.buzzer = buzzer
        self.cols, self.rows, self.tick = cols, rows, tick
        self.threaded = threaded
        self._now = now
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._idle = threading.Event()
        self._seen: dict[str, Any] | None = None
        self._clock_seen: Mapping[str, Any] | None = None
        self._clock_at = 0.0
        self._unlisten: Callable[[], None] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Announcer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        if self._thread is not None or self._unlisten is not None:
            return
        self._seen = self.live.snapshot()
        self._show(self._seen)
        if not self.threaded:
            self._unlisten = self.live.listen(lambda version: self.update())
            return
        self._unlisten = self.live.listen(lambda version: self._wake.set())
        self._thread = threading.Thread(target=self._follow, name="chessatron-announcer", daemon=True)
        self._thread.start()

    def update(self) -> None:
        """Show the live state as it is now and play the tunes for what changed since the last time."""
        snapshot = self.live.snapshot()
        try:
            self._play(tunes_between(self._seen, snapshot))
            self._show(snapshot)
        except Exception:  # a broken device must never end the game
            LOGGER.exception("cannot show the game on the display or the buzzer")
        self._seen = snapshot

    def settle(self, timeout_s: float = 5.0) -> None:
        """Wait until everything the live state says has been shown and played (for tests and the end
        of a game)."""
        deadline = time.monotonic() + timeout_s
        while self._thread is not None and time.monotonic() < deadline:
            seen = self._seen
            done = seen is not None and seen.get("version") == self.live.version
            if done and self._idle.is_set() and not self._wake.is_set():
                return
            time.sleep(0.01)

    def close(self) -> None:
        """Show the last state, stop following. Idempotent; the devices belong to the caller."""
        if self._thread is None:
            if self._unlisten is not None:
                self._unlisten()
                self._unlisten = None
            return
        self.settle(1.0)
        self._closing.set()
        self._wake.set()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        self._thread.join(timeout=5)
        self._thread = None

    def _follow(self) -> None:
        while not self._closing.is_set():
            self._idle.set()
            self._wake.wait(self._tick_s())
            self._idle.clear()
            if self._closing.is_set():
                return
            self._wake.clear()
            self.update()
            # a display needs no more, and the game thread keeps the processor (changes in between
            # are shown together)
            self._closing.wait(1 / UPDATES_PER_S)

    def _tick_s(self) -> float | None:
        seen = self._seen or {}
        if self.tick and countdown_words((seen.get("gantry") or {}).get("work")) is not None:
            return 1.0  # the robot's countdown
        clock = seen.get("clock")
        if not self.tick or not clock or clock.get("running") not in ("white", "black"):
            return None
        return 1.0 - (self._now() - self._clock_at) % 1.0 + 0.001

    def _show(self, snapshot: dict[str, Any]) -> None:
        if self.display is None:
            return
        clock = snapshot.get("clock")
        now = self._now()
        if clock != self._clock_seen:
            self._clock_seen, self._clock_at = clock, now
        if self.tick and clock:
            snapshot = {**snapshot, "clock": _ticked(clock, (now - self._clock_at) * 1000)}
        lines = display_lines(snapshot, cols=self.cols, rows=self.rows)
        try:
            self.display.show(lines)
        except ChessatronError as exc:
            LOGGER.warning("the display stopped working (%s); the game goes on without it", exc)
            self.display = None

    def _play(self, tunes: list[TuneName]) -> None:
        if self.buzzer is None or not tunes:
            return
        # the most telling one: a check or the end says more than the move that made it
        tune = tunes[-1] if "illegal" not in tunes else "illegal"
        try:
            self.buzzer.play(TUNES[tune])
        except ChessatronError as exc:
            LOGGER.warning("the buzzer stopped working (%s); the game goes on without it", exc)
            self.buzzer = None


# --- the machine's devices -------------------------------------------------------------------------


@contextlib.contextmanager
def open_announcer(config: Config, live: LiveState) -> Iterator[Announcer]:
    """The config's display and buzzer (muted as ``[buzzer] muted`` says) following ``live`` while the
    block runs. A ``terminal://`` display is left out: the terminal shows the game already (``play``'s
    view, or the lines of ``serve``), and it stands in for an LCD in ``hw test``. A device that cannot be
    opened (no LCD at its address, a library missing) is one warning; the game goes on without it."""
    from ...feedback.buzzer import open_buzzer
    from ...feedback.display import LcdDisplay, SimDisplay, open_display

    with contextlib.ExitStack() as stack:
        display_url, buzzer_url = config.urls["display"], config.urls["buzzer"]
        scheme = DeviceUrl.parse(display_url).scheme
        display = buzzer = None
        if scheme not in ("none", "terminal"):
            try:
                display = stack.enter_context(open_display(display_url))
            except ChessatronError as exc:
                LOGGER.warning("the display %s cannot be used: %s; playing without it", display_url, exc)
        if DeviceUrl.parse(buzzer_url).scheme != "none":
            try:
                buzzer = stack.enter_context(open_buzzer(buzzer_url, muted=config.muted))
            except ChessatronError as exc:
                LOGGER.warning("the buzzer %s cannot be used: %s; playing without it", buzzer_url, exc)
        cols = rows = None
        if isinstance(display, LcdDisplay):
            cols, rows = display.settings.cols, display.settings.rows
        elif isinstance(display, SimDisplay):
            cols, rows = display.cols, display.rows
        announcer = stack.enter_context(Announcer(live, display=display, buzzer=buzzer, cols=cols, rows=rows))
        yield announcer
