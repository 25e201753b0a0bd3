"""The buzzer: a passive piezo on a GPIO pin, its simulator, or none. Every backend honours ``muted``.

:func:`open_buzzer` picks the backend by URL:

``buzzer://PIN?mid=A5&octaves=2&blocking=0&muted=0``
    A passive piezo on GPIO ``PIN`` (BCM) played through gpiozero's ``TonalBuzzer``, which can play
    ``octaves`` octaves either side of ``mid`` (default A3 to A7). Tunes play on a background thread
    unless ``blocking=1``; a new tune cuts the one playing short.
``sim://[name]``
    :class:`SimBuzzer` records every tune with the time it started.
``none://``
    No buzzer.

Named tunes are in :data:`~chessatron.feedback.tunes.TUNES`. Only this module imports gpiozero for the
buzzer (the host magnet's backend in :mod:`chessatron.gantry.magnet` is the other gpiozero user), and
only when a ``buzzer://`` device is opened.

>>> buzzer = open_buzzer("sim://", clock=lambda: 12.5)
>>> buzzer.play(TUNES["move"])
>>> buzzer.played_names()
['move']
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from ..errors import ConfigError, NoteError, OutputDeviceError
from ..i18n import _
from ..ports import Buzzer, DeviceUrl, Note
from .device import Closing, OutputDevice, check_options, missing_library, pin_number
from .tunes import TUNES, Tune, check_tune, note_midi, tune_name

__all__ = [
    "TUNES",
    "BuzzerDevice",
    "NullBuzzer",
    "SimBuzzer",
    "TonalBuzzerDevice",
    "check_buzzer_url",
    "open_buzzer",
]

LOGGER = logging.getLogger(__name__)

Sleep = Callable[[float], None]


@runtime_checkable
class BuzzerDevice(Buzzer, Closing, Protocol):
    """What :func:`open_buzzer` returns: the :class:`~chessatron.ports.Buzzer` port, with ``with``."""


class TonalBuzzerDevice(OutputDevice):
    """A passive piezo played through gpiozero's ``TonalBuzzer``.

    ``sleep`` replaces the wait between notes (tests pass one that does not sleep); ``pin_factory`` is
    gpiozero's (default: :attr:`gpiozero.Device.pin_factory`).
    """

    def __init__(
        self,
        pin: int,
        *,
        mid: str = "A5",
        octaves: int = 2,
        muted: bool = False,
        blocking: bool = False,
        sleep: Sleep | None = None,
        pin_factory: Any = None,
    ) -> None:
        self.pin = pin
        self.muted = muted
        self.blocking = blocking
        self._sleep = sleep
        self._worker: threading.Thread | None = None
        self._stop = threading.Event()
        # Serialises play() and close() from different threads (the game loop, a web view).
        self._lock = threading.Lock()
        self._buzzer: Any = None
        mid_midi = _check_range(mid, octaves)
        self.lowest, self.highest = mid_midi - 12 * octaves, mid_midi + 12 * octaves
        try:
            import gpiozero
            from gpiozero.tones import Tone
        except ImportError as exc:
            raise missing_library(exc.name or "gpiozero", f"buzzer://{pin}") from exc
        self._tone = Tone
        self._errors: tuple[type[Exception], ...] = (gpiozero.GPIOZeroError, OSError)
        try:
            self._buzzer = gpiozero.TonalBuzzer(
                pin,
                # A note name, not a Tone: TonalBuzzer re-reads a Tone below 128 Hz as a MIDI number.
                mid_tone=Tone(midi=mid_midi).note,
                octaves=octaves,
                pin_factory=pin_factory,
            )
        except (gpiozero.GPIOZeroError, OSError) as exc:
            raise OutputDeviceError(
                _(
                    "cannot drive a buzzer on GPIO {pin!r} ({reason}); check that the pin is free and that "
                    "this "
                    "is a Raspberry Pi with gpiozero's pin libraries (lgpio or RPi.GPIO)"
                ).format(pin=pin, reason=f"{type(exc).__name__}: {exc}")
            ) from exc

    def play(self, tune: Sequence[Note]) -> None:
        """Play ``tune`` (unless muted), cutting short any tune still playing.

        Raises :class:`~chessatron.errors.NoteError` before a sound if a note is bad or out of range.
        """
        self._check_open()
        checked = check_tune(tune)
        for name, _seconds in checked:
            if name is not None and not self.lowest <= note_midi(name) <= self.highest:
                raise NoteError(
                    _(
                        "note {name!r} is outside this buzzer's range; widen it with the mid and octaves "
                        "options"
                    ).format(name=name)
                )
        if self.muted:
            return
        with self._lock:
            self._halt()
            if self.blocking:
                self._play_notes(checked)
                return
            self._worker = threading.Thread(
                target=self._play_in_background, args=(checked,), name="chessatron-buzzer", daemon=True
            )
            self._worker.start()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the tune playing (if any) has ended."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    @property
    def is_playing(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def _play_notes(self, tune: Tune) -> None:
        try:
            for name, seconds in tune:
                if self._stop.is_set() or self.muted:
                    break
                if name is None:
                    self._buzzer.stop()
                else:
                    self._buzzer.play(self._tone(midi=note_midi(name)))
                self._wait(seconds)
        except self._errors as exc:
            raise OutputDeviceError(
                _("the buzzer on GPIO {pin} failed: {reason}").format(pin=self.pin, reason=exc)
            ) from exc
        finally:
            self._buzzer.stop()

    def _play_in_background(self, tune: Tune) -> None:
        try:
            self._play_notes(tune)
        except Exception:
            # Nobody would see an error raised on the worker thread: log it instead of dying silently.
            LOGGER.exception("the buzzer on GPIO %s failed while playing", self.pin)

    def _wait(self, seconds: float) -> None:
        if self._sleep is not None:
            self._sleep(seconds)
        else:
            self._stop.wait(seconds)

    def _halt(self) -> None:
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            self._stop.set()
            worker.join()
        self._worker = None
        self._stop.clear()

    def _close(self) -> None:
        if self._buzzer is None:
            return
        with self._lock:
            try:
                self._halt()
                self._buzzer.stop()
            finally:
                self._buzzer.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "muted" if self.muted else "on"
        return f"<TonalBuzzerDevice GPIO{self.pin} {state}>"


#: The tunes a simulated buzzer keeps (the newest): a table served for days plays thousands.
RECORDED_TUNES = 500


class SimBuzzer(OutputDevice):
    """Records every tune it would play (nothing while muted) as ``(start time, tune)`` in ``played``
    (the newest :data:`RECORDED_TUNES`)."""

    def __init__(
        self, *, muted: bool = False, name: str = "default", clock: Callable[[], float] = time.monotonic
    ):
        self.muted = muted
        self.name = name
        self._clock = clock
        self.played: list[tuple[float, Tune]] = []

    def play(self, tune: Sequence[Note]) -> None:
        self._check_open()
        checked = check_tune(tune)
        if not self.muted:
            self.played.append((self._clock(), checked))
            if len(self.played) > 2 * RECORDED_TUNES:
                del self.played[:-RECORDED_TUNES]

    def tunes(self) -> list[Tune]:
        """The tunes played, oldest first."""
        return [tune for _when, tune in self.played]

    def played_names(self) -> list[str]:
        """The names (from :data:`TUNES`) of the tunes played, ``"?"`` for any other tune."""
        return [tune_name(tune) or "?" for _when, tune in self.played]

    def __repr__(self) -> str:
        return f"<SimBuzzer {self.name!r} {len(self.played)} tunes{' muted' if self.muted else ''}>"


class NullBuzzer(OutputDevice):
    """No buzzer (``none://``); it still checks the tunes it is given."""

    def __init__(self, *, muted: bool = False) -> None:
        self.muted = muted

    def play(self, tune: Sequence[Note]) -> None:
        self._check_open()
        check_tune(tune)

    def __repr__(self) -> str:
        return "<NullBuzzer>"


def open_buzzer(
    url: str,
    *,
    muted: bool | None = None,
    sleep: Sleep | None = None,
    clock: Callable[[], float] = time.monotonic,
    pin_factory: Any = None,
) -> BuzzerDevice:
    """The buzzer ``url`` names (see the module docstring for schemes and options).

    ``muted`` overrides the URL's ``muted`` option; ``sleep`` replaces the wait between notes;
    ``clock`` stamps the simulator's records; ``pin_factory`` is gpiozero's.

    Raises :class:`~chessatron.errors.ConfigError` for a bad URL,
    :class:`~chessatron.errors.MissingLibraryError` without gpiozero, and
    :class:`~chessatron.errors.OutputDeviceError` when the pin cannot be driven.
    """
    parsed = DeviceUrl.parse(url)
    settings = _settings(parsed, url)
    if muted is not None:
        settings["muted"] = muted
    if parsed.scheme == "buzzer":
        return TonalBuzzerDevice(**settings, sleep=sleep, pin_factory=pin_factory)
    if parsed.scheme == "sim":
        return SimBuzzer(**settings, name=parsed.target or "default", clock=clock)
    return NullBuzzer(**settings)


def check_buzzer_url(url: str) -> None:
    """Check ``url`` as :func:`open_buzzer` would, without touching a pin or importing gpiozero
    (``chessatron config check``). Raises :class:`~chessatron.errors.ConfigError` naming what is wrong."""
    _settings(DeviceUrl.parse(url), url)


def _settings(parsed: DeviceUrl, url: str) -> dict[str, Any]:
    """The keyword arguments of the buzzer ``parsed`` names, checked."""
    if parsed.scheme == "buzzer":
        check_options(parsed, ("mid", "octaves", "muted", "blocking"))
        settings: dict[str, Any] = {
            "pin": pin_number(parsed, "buzzer://12"),
            "mid": parsed.params.get("mid", "A5"),
            "octaves": parsed.integer("octaves", 2),
            "muted": parsed.flag("muted"),
            "blocking": parsed.flag("blocking"),
        }
        _check_range(settings["mid"], settings["octaves"])
        return settings
    if parsed.scheme in ("sim", "none"):
        check_options(parsed, ("muted",))
        return {"muted": parsed.flag("muted")}
    raise ConfigError(
        _("buzzer URL {url!r} has the unknown scheme {scheme!r}; use buzzer://, sim:// or none://").format(
            url=url, scheme=parsed.scheme
        )
    )


def _check_range(mid: str, octaves: int) -> int:
    """The MIDI number of ``mid``, if ``octaves`` either side of it stay within what gpiozero plays."""
    mid_midi = note_midi(mid)
    # gpiozero names notes from C0 (MIDI 12) to G9 (127); its range checks fail outside them.
    if not (1 <= octaves <= 9 and mid_midi - 12 * octaves >= 12 and mid_midi + 12 * octaves <= 127):
        raise ConfigError(
            _(
                "a buzzer {octaves!r} octaves around {mid!r} leaves the notes C0 to G9 gpiozero plays; "
                "try mid=A5&octaves=2"
            ).format(octaves=octaves, mid=mid)
        )
    return mid_midi
