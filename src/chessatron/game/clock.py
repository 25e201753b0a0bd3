"""The chess clock of a game session: time controls as players write them, two countdowns, flag falls.

Pure bookkeeping over an injectable ``now`` (seconds, :func:`time.monotonic` by default): no I/O, no
threads, no sleeping. The session decides when each side's time runs. By the convention of chess
computers, the engine's clock runs while it thinks *and* while the robot moves its piece; the human's
clock starts once the robot has finished. While the robot resets the table or takes moves back the session
calls :meth:`ChessClock.pause`, and nobody is charged.

>>> fake = [0.0]
>>> clock = ChessClock(parse_clock("5+3"), now=lambda: fake[0])
>>> clock.start(chess.WHITE)
>>> fake[0] = 12.5  # white thinks for 12.5 s
>>> clock.press(chess.WHITE)  # white's remaining ms after the 3 s increment
290500
>>> clock.running == chess.BLACK
True
>>> format_clock(clock.remaining_ms(chess.WHITE)), format_clock(clock.remaining_ms(chess.BLACK))
('4:50', '5:00')
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import chess

from ..errors import ClockError, ConfigError
from ..i18n import N_, _
from .records.record import ClockSettings, Result, Termination

if TYPE_CHECKING:
    from .records.journal import JournalState

#: The longest time for the game a clock takes, and the largest increment, in seconds.
MAX_INITIAL_S = 24 * 3600
MAX_INCREMENT_S = 3600
#: A bare number above this many minutes is more likely PGN seconds (``300+2``) than minutes.
_MAX_BARE_MINUTES = 180

#: How to write a clock, after a clock that does not read (translated where shown).
_EXAMPLES = N_("write minutes+increment seconds such as 5+3, 90+30 or 0.5+0, or with units such as 3m+2s")
# Short numbers only: Decimal then multiplies them by a unit exactly.
_NUMBER = r"[0-9]{1,6}(?:\.[0-9]{1,6})?"
_UNIT = r"h|hr|min|m|sec|s"
_CLOCK_RE = re.compile(
    rf"(?P<base>{_NUMBER})\s*(?P<base_unit>{_UNIT})?(?:\s*[+|]\s*(?P<inc>{_NUMBER})\s*(?P<inc_unit>{_UNIT})?)?",
    re.ASCII | re.IGNORECASE,
)
_UNIT_S = {"h": 3600, "hr": 3600, "min": 60, "m": 60, "sec": 1, "s": 1}


# --- time controls ---------------------------------------------------------------------------------


def parse_clock(text: str) -> ClockSettings:
    """A time control as players write it on the command line (``--clock``).

    A bare first number is minutes and a bare increment is seconds; ``h``, ``m``/``min`` and ``s``/``sec``
    say otherwise. ``+`` or ``|`` separates the increment, which may be left out (no increment).

    >>> parse_clock("5+3")
    ClockSettings(initial_s=300, increment_s=3)
    >>> parse_clock("0.5+0"), parse_clock("90")
    (ClockSettings(initial_s=30, increment_s=0), ClockSettings(initial_s=5400, increment_s=0))
    >>> parse_clock("3m+2s"), parse_clock("300s+2s")
    (ClockSettings(initial_s=180, increment_s=2), ClockSettings(initial_s=300, increment_s=2))

    Raises :class:`ConfigError` for anything else: garbage, no time to start with, a time that is not a
    whole number of seconds, more than a day, and a bare number over 180 (``300+2`` is the PGN form in
    seconds; write ``300s+2``, or ``300m+2`` for five hours).
    """
    match = _CLOCK_RE.fullmatch(text.strip())
    if match is None:
        # TRANSLATORS: {examples} is a sentence saying how to write a clock
        raise ConfigError(_("bad clock {text!r}; {examples}").format(text=text, examples=_(_EXAMPLES)))
    base, base_unit, inc, inc_unit = match["base"], match["base_unit"], match["inc"], match["inc_unit"]
    if base_unit is None and Decimal(base) > _MAX_BARE_MINUTES:
        rest = match.string[match.end("base") :].replace(" ", "")
        raise ConfigError(
            _(
                "a clock of {text!r} would give each side {base} minutes; write {base}s{rest} for seconds "
                "(the PGN form), or {base}m{rest} if you mean minutes"
            ).format(text=text, base=base, rest=rest)
        )
    initial_s = _seconds(text, base, base_unit or "m")
    increment_s = 0 if inc is None else _seconds(text, inc, inc_unit or "s")
    if initial_s <= 0:
        # TRANSLATORS: {examples} is a sentence saying how to write a clock
        raise ConfigError(
            _("a clock of {text!r} gives no time to start with; {examples}").format(
                text=text, examples=_(_EXAMPLES)
            )
        )
    if initial_s > MAX_INITIAL_S or increment_s > MAX_INCREMENT_S:
        raise ConfigError(
            _(
                "a clock of {text!r} is longer than chessatron keeps; use at most 24 hours and 1 hour a move"
            ).format(text=text)
        )
    return ClockSettings(initial_s, increment_s)


def _seconds(text: str, number: str, unit: str) -> int:
    seconds = Decimal(number) * _UNIT_S[unit.lower()]
    if seconds != seconds.to_integral_value():
        # TRANSLATORS: {examples} is a sentence saying how to write a clock
        raise ConfigError(
            _("{number}{unit} in the clock {text!r} is not a whole number of seconds; {examples}").format(
                number=number, unit=unit, text=text, examples=_(_EXAMPLES)
            )
        )
    return int(seconds)


def format_control(settings: ClockSettings) -> str:
    """The time control as players write it, which :func:`parse_clock` reads back.

    >>> [format_control(ClockSettings(s, i)) for s, i in ((300, 3), (30, 0), (14400, 0))]
    ['5+3', '30s+0', '240m+0']
    """
    minutes, seconds = divmod(settings.initial_s, 60)
    if seconds:
        base = f"{settings.initial_s}s"
    elif minutes > _MAX_BARE_MINUTES:
        base = f"{minutes}m"
    else:
        base = str(minutes)
    return f"{base}+{settings.increment_s}"


def format_clock(ms: int) -> str:
    """A clock reading for a display: ``5:00``, ``0:59``, tenths under ten seconds (``0:09.8``) and hours
    over an hour (``1:02:03``). Rounds down, like a clock face; a negative time shows as zero.

    >>> [format_clock(ms) for ms in (300_000, 59_999, 9_850, 0, 3_723_000)]
    ['5:00', '0:59', '0:09.8', '0:00.0', '1:02:03']
    """
    ms = max(0, ms)
    if ms < 10_000:
        return f"0:{ms // 1000:02d}.{ms % 1000 // 100}"
    minutes, seconds = divmod(ms // 1000, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


# --- flag falls ------------------------------------------------------------------------------------


def flag_outcome(board: chess.Board, flagged: chess.Color) -> tuple[Result, Termination]:
    """Result and termination when ``flagged``'s time runs out in ``board``'s position.

    The flagged side loses, unless its opponent has too little material to ever mate (python-chess's
    :meth:`chess.Board.has_insufficient_material`): then the game is drawn. The termination is
    ``"time forfeit"`` either way; the result tells the two apart.

    >>> flag_outcome(chess.Board(), chess.WHITE)
    ('0-1', 'time forfeit')
    >>> flag_outcome(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1"), chess.WHITE)  # black has a bare king
    ('1/2-1/2', 'time forfeit')
    """
    if board.has_insufficient_material(not flagged):
        return "1/2-1/2", "time forfeit"
    return ("0-1" if flagged == chess.WHITE else "1-0"), "time forfeit"


# --- the clock -------------------------------------------------------------------------------------


def _name(colour: chess.Color) -> str:
    return chess.COLOR_NAMES[colour]


class ChessClock:
    """Two countdowns, one running at a time; times are in milliseconds, ``now`` in seconds.

    A new clock is stopped with both sides at the initial time. :meth:`start` starts the side to move,
    :meth:`press` ends a move (adding the increment, after every move including the first), and
    :meth:`pause` / :meth:`resume` stop and restart whichever side was running without charging anyone.

    A fallen flag stays fallen: a side's time never goes below zero, and a press that comes after the
    mover's time ran out adds no increment, stops the clock and returns 0, so check :meth:`flagged` after
    each press as well as while waiting. Thread-safe, so a display may read it while the session plays.
    """

    def __init__(self, settings: ClockSettings, *, now: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self._now = now
        self._lock = threading.Lock()
        # Milliseconds left as of ``_since`` (kept to the microsecond, so float sums do not drift).
        self._left = {chess.WHITE: settings.initial_s * 1000.0, chess.BLACK: settings.initial_s * 1000.0}
        self._turn: chess.Color | None = None  # whose time runs, or would run if not paused
        self._paused = False
        self._since = 0.0

    @classmethod
    def from_readings(
        cls,
        settings: ClockSettings,
        readings: Sequence[int | None],
        *,
        first: chess.Color = chess.WHITE,
        now: Callable[[], float] = time.monotonic,
    ) -> ChessClock:
        """A clock as it stood after the moves whose ``clock_ms`` readings (the mover's remaining ms after
        each move, ``None`` where none was taken) are given; ``first`` made the first move.

        Each side gets its last reading, or the initial time if it has none. The clock comes back paused
        with the side to move on turn, so the time lost to a crash is charged to nobody: call
        :meth:`resume` once the table is ready.

        >>> clock = ChessClock.from_readings(ClockSettings(300, 2), [290_000, 295_500, None])
        >>> clock.remaining_ms(chess.WHITE), clock.remaining_ms(chess.BLACK), clock.running
        (290000, 295500, None)
        >>> clock.turn == chess.BLACK
        True
        """
        times = {chess.WHITE: settings.initial_s * 1000, chess.BLACK: settings.initial_s * 1000}
        mover = first
        for reading in readings:
            if reading is not None:
                times[mover] = reading
            mover = not mover
        clock = cls(settings, now=now)
        clock.restore(times[chess.WHITE], times[chess.BLACK], mover)
        return clock

    @classmethod
    def from_journal(cls, state: JournalState, *, now: Callable[[], float] = time.monotonic) -> ChessClock:
        """The clock of a journaled game, from its moves' ``clock_ms`` readings (see :meth:`from_readings`);
        paused until :meth:`resume`. Raises :class:`ClockError` if the game was started without a clock."""
        meta = state.metadata
        if meta.clock is None:
            raise ClockError(
                _("game {game_id!r} was started without a clock; there is none to resume").format(
                    game_id=meta.game_id
                )
            )
        first = chess.Board(meta.start_fen, chess960=meta.chess960).turn
        return cls.from_readings(meta.clock, [m.clock_ms for m in state.moves], first=first, now=now)

    def __repr__(self) -> str:
        snapshot = self.to_dict()
        return (
            f"ChessClock({snapshot['control']!r}, white={format_clock(snapshot['white_ms'])!r}, "
            f"black={format_clock(snapshot['black_ms'])!r}, running={snapshot['running']!r})"
        )

    # --- reading -----------------------------------------------------------------------------------

    @property
    def running(self) -> chess.Color | None:
        """The side whose time is counting down now; ``None`` before the start and while paused."""
        with self._lock:
            return None if self._paused else self._turn

    @property
    def turn(self) -> chess.Color | None:
        """The side whose time runs, or will run on :meth:`resume`; ``None`` before the start."""
        with self._lock:
            return self._turn

    @property
    def paused(self) -> bool:
        with self._lock:
            return self._paused

    def remaining_ms(self, colour: chess.Color) -> int:
        """``colour``'s time left in milliseconds, live; rounded up, so it is 0 exactly when that side's
        flag has fallen."""
        with self._lock:
            return max(0, math.ceil(self._live_ms(colour)))

    def flagged(self) -> chess.Color | None:
        """The side whose time has run out (at exactly zero too), checked live; ``None`` if neither."""
        with self._lock:
            order = (chess.WHITE, chess.BLACK) if self._turn is None else (self._turn, not self._turn)
            return next((colour for colour in order if self._live_ms(colour) <= 0), None)

    def seconds_until_flag(self) -> float | None:
        """How long the running side has before its flag falls (0.0 once it has), so that a loop waiting
        for a move knows how long it may block; ``None`` when no time is running."""
        with self._lock:
            if self._turn is None or self._paused:
                return None
            return max(0.0, self._live_ms(self._turn) / 1000)

    def to_dict(self) -> dict[str, Any]:
        """A snapshot for displays: ``{"white_ms": 300000, "black_ms": 298500, "running": "white",
        "paused": False, "control": "5+3"}``; ``running`` is ``"white"``, ``"black"`` or ``None``."""
        with self._lock:
            running = None if self._paused or self._turn is None else _name(self._turn)
            return {
                "white_ms": max(0, math.ceil(self._live_ms(chess.WHITE))),
                "black_ms": max(0, math.ceil(self._live_ms(chess.BLACK))),
                "running": running,
                "paused": self._paused,
                "control": format_control(self.settings),
            }

    # --- changing ----------------------------------------------------------------------------------

    def start(self, colour: chess.Color) -> None:
        """Start ``colour``'s time: the side to move at the start of the game, or after a pause or a
        :meth:`restore` (whatever side was on turn then). Does nothing if ``colour``'s time is already
        running; raises :class:`ClockError` if the other side's is (:meth:`press` hands over the turn)."""
        with self._lock:
            if self._turn is not None and not self._paused:
                if self._turn == colour:
                    return
                raise ClockError(
                    f"cannot start {_name(colour)}'s time while {_name(self._turn)}'s is running; "
                    f"press the clock for {_name(self._turn)} when {_name(self._turn)} has moved"
                )
            self._turn, self._paused, self._since = colour, False, self._now()

    def press(self, colour: chess.Color) -> int:
        """``colour`` has finished its move: stop its time, add the increment and hand the turn to the
        other side. Returns ``colour``'s remaining milliseconds after the increment (the journal's
        ``clock_ms``).

        Works while paused too (the clock stays paused, with the turn handed over). If ``colour``'s flag
        had already fallen the move came too late: no increment, the clock stops and 0 is returned.
        Raises :class:`ClockError` if it is not ``colour``'s turn on the clock, or the clock was never
        started: a press for the wrong side means the session and the clock disagree about the game.
        """
        with self._lock:
            if self._turn is None:
                raise ClockError(
                    f"the clock was pressed for {_name(colour)} before it was started; call start() for the "
                    "side to move when the game begins"
                )
            if self._turn != colour:
                raise ClockError(
                    f"the clock was pressed for {_name(colour)} but it is {_name(self._turn)}'s turn on the "
                    "clock; press it for the side that has just moved"
                )
            self._charge()
            if self._left[colour] <= 0:
                self._paused = True
                return 0
            self._left[colour] += self.settings.increment_s * 1000
            self._turn = not colour
            return max(0, math.ceil(self._left[colour]))

    def pause(self) -> None:
        """Stop the running side's time without charging anyone until :meth:`resume`; does nothing if no
        time is running."""
        with self._lock:
            if self._turn is not None and not self._paused:
                self._charge()
                self._paused = True

    def resume(self) -> None:
        """Run again the time of the side that was on turn when paused (or restored); does nothing if it
        is running. Raises :class:`ClockError` if the clock was never started."""
        with self._lock:
            if self._turn is None:
                raise ClockError(
                    "cannot resume a clock that was never started; call start() for the side to move"
                )
            if self._paused:
                self._paused, self._since = False, self._now()

    def restore(self, white_ms: int, black_ms: int, turn: chess.Color) -> None:
        """Set both sides' times and whose turn it is, as after a crash or a take-back; the clock is then
        paused until :meth:`resume`. Raises :class:`ClockError` for a negative time."""
        if white_ms < 0 or black_ms < 0:
            raise ClockError(
                f"cannot restore a clock to {white_ms!r} ms for white and {black_ms!r} ms for black; "
                "give milliseconds left, 0 or more"
            )
        with self._lock:
            self._left = {chess.WHITE: float(white_ms), chess.BLACK: float(black_ms)}
            self._turn, self._paused, self._since = turn, True, self._now()

    # --- inside the lock ---------------------------------------------------------------------------

    def _live_ms(self, colour: chess.Color, now: float | None = None) -> float:
        left = self._left[colour]
        if colour == self._turn and not self._paused:
            left -= max(0.0, (self._now() if now is None else now) - self._since) * 1000
        return max(0.0, round(left, 3))

    def _charge(self) -> None:
        """Take the time since ``_since`` off the running side."""
        now = self._now()
        if self._turn is not None and not self._paused:
            self._left[self._turn] = self._live_ms(self._turn, now)
        self._since = now
