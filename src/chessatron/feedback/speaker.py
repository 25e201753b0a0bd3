"""The speaker: moves, results, clock warnings and errors said aloud through espeak-ng, its simulator, or
none. Every backend honours ``muted``.

:func:`open_speaker` picks the backend by URL:

``espeak://[DEVICE]?voice=en-us&speed=160&pitch=50&volume=100&muted=0``
    espeak-ng (Debian's ``espeak-ng``) says each sentence through the sound card (``DEVICE``: an audio
    device's name, default the system's), one after another on a thread of its own: nothing is cut
    short, and the game does not wait for the words. ``voice`` is any espeak-ng voice with an optional
    variant (``en-gb``, ``en-us+f3``, ``en-gb-scotland``; ``espeak-ng --voices=en`` lists them). The
    words are in the player's language (:mod:`chessatron.i18n`) and said by a voice of it: the one
    chosen when it speaks that language, else espeak-ng's voice of the language with the variant chosen
    (:meth:`~.espeak.EspeakVoice.in_language`: German words with ``voice=en-us+f3`` are said by ``de+f3``).
``sim://[name][?dir=PATH&voice=…&speed=…]``
    :class:`SimSpeaker` keeps every sentence with its time and the voice it is said in; with ``dir`` it
    also writes each one as a WAV file rendered by espeak-ng in that voice (``0001.wav``, …) and a line
    of ``speech.log`` (time, file, words) there, never to a sound card.
``none://``
    No speaker.

The words come from :func:`chessatron.game.telling.speech.spoken_event`.

>>> speaker = open_speaker("sim://", clock=lambda: 3.5)
>>> speaker.say("knight f3")
>>> speaker.texts(), speaker.voices
(['knight f3'], ['en-us'])
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..errors import ConfigError, OutputDeviceError
from ..i18n import _, current_language
from ..ports import DeviceUrl, Speaker
from .device import Closing, OutputDevice, check_options
from .espeak import EspeakVoice, check_voice, speak, synthesize

__all__ = ["EspeakSpeaker", "NullSpeaker", "SimSpeaker", "SpeakerDevice", "check_speaker_url", "open_speaker"]

LOGGER = logging.getLogger(__name__)

#: How long closing waits for the sentences still to be said (the result at the end of a game).
CLOSE_WAIT_S = 20.0
_VOICE_OPTIONS = ("voice", "speed", "pitch", "volume")


@runtime_checkable
class SpeakerDevice(Speaker, Closing, Protocol):
    """What :func:`open_speaker` returns: the :class:`~chessatron.ports.Speaker` port, with ``with``."""


def _checked(voice: EspeakVoice) -> None:
    """An unknown voice is said when the speaker opens, not at the first move: the voice chosen, and the
    one it speaks the current language with."""
    check_voice(voice)
    spoken = voice.in_language(current_language())
    if spoken != voice:
        check_voice(spoken)


class EspeakSpeaker(OutputDevice):
    """Says sentences through the sound card with espeak-ng, in order, on a thread of its own, each in a
    voice of the language current when it was asked for."""

    def __init__(self, voice: EspeakVoice | None = None, *, device: str | None = None, muted: bool = False):
        self.voice = voice or EspeakVoice()
        self.device = device
        self.muted = muted
        _checked(self.voice)
        self._sentences: queue.Queue[tuple[str, EspeakVoice] | None] = queue.Queue()
        self._worker = threading.Thread(target=self._speak_all, name="chessatron-speaker", daemon=True)
        self._worker.start()

    def say(self, text: str) -> None:
        """Say ``text`` after what is being said (nothing while muted); returns at once."""
        self._check_open()
        if not self.muted and text.strip():
            # (the words are in the caller's language, which the speaker's thread does not share)
            self._sentences.put((text, self.voice.in_language(current_language())))

    def wait(self, timeout: float | None = None) -> None:
        """Block until everything asked for has been said (or ``timeout`` seconds have passed)."""
        end = None if timeout is None else time.monotonic() + timeout
        while self._sentences.unfinished_tasks and (end is None or time.monotonic() < end):
            time.sleep(0.02)

    def _speak_all(self) -> None:
        while True:
            sentence = self._sentences.get()
            text = sentence[0] if sentence is not None else None
            try:
                if sentence is None:
                    return
                speak(sentence[0], sentence[1], device=self.device)
            except OutputDeviceError:
                # nobody would see an error raised on this thread: the game goes on without the words
                LOGGER.exception("the speaker could not say %r", text)
            finally:
                self._sentences.task_done()

    def _close(self) -> None:
        self.wait(CLOSE_WAIT_S)
        self._sentences.put(None)
        self._worker.join(timeout=1.0)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "muted" if self.muted else "on"
        return f"<EspeakSpeaker {self.voice.voice} {state}>"


class SimSpeaker(OutputDevice):
    """Keeps every sentence it would say (nothing while muted) as ``(time, words)`` in ``said`` and the
    espeak-ng voice it would say it in (:meth:`~.espeak.EspeakVoice.in_language`) in ``voices``; with a
    ``directory``, also writes each as a WAV file rendered by espeak-ng and a line of ``speech.log``."""

    def __init__(
        self,
        *,
        muted: bool = False,
        name: str = "default",
        directory: Path | None = None,
        voice: EspeakVoice | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.muted = muted
        self.name = name
        self.directory = directory
        self.voice = voice or EspeakVoice()
        self._clock = clock
        self.said: list[tuple[float, str]] = []
        self.voices: list[str] = []
        if directory is not None:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise OutputDeviceError(
                    _("cannot write the simulated speaker's files in {folder!r}: {reason}").format(
                        folder=str(directory), reason=exc.strerror or exc
                    )
                ) from exc
            _checked(self.voice)

    def say(self, text: str) -> None:
        self._check_open()
        if self.muted or not text.strip():
            return
        now = self._clock()
        voice = self.voice.in_language(current_language())
        self.said.append((now, text))
        self.voices.append(voice.voice)
        LOGGER.info("says: %s", text)
        if self.directory is not None:
            name = f"{len(self.said):04d}.wav"
            try:
                (self.directory / name).write_bytes(synthesize(text, voice))
                with (self.directory / "speech.log").open("a", encoding="utf-8") as log:
                    log.write(f"{now:.3f}\t{name}\t{text}\n")
            except OSError as exc:
                raise OutputDeviceError(
                    _("cannot write {name!r} in {folder!r}: {reason}").format(
                        name=name, folder=str(self.directory), reason=exc
                    )
                ) from exc

    def texts(self) -> list[str]:
        """The sentences said, oldest first."""
        return [text for _when, text in self.said]

    def __repr__(self) -> str:
        return f"<SimSpeaker {self.name!r} {len(self.said)} sentences{' muted' if self.muted else ''}>"


class NullSpeaker(OutputDevice):
    """No speaker (``none://``)."""

    def __init__(self, *, muted: bool = False) -> None:
        self.muted = muted

    def say(self, text: str) -> None:
        self._check_open()

    def __repr__(self) -> str:
        return "<NullSpeaker>"


def open_speaker(
    url: str, *, muted: bool | None = None, clock: Callable[[], float] = time.monotonic
) -> SpeakerDevice:
    """The speaker ``url`` names (see the module docstring for schemes and options); ``muted`` overrides
    the URL's ``muted`` option, ``clock`` stamps the simulator's records.

    Raises :class:`~chessatron.errors.ConfigError` for a bad URL or an unknown voice,
    :class:`~chessatron.errors.MissingLibraryError` without espeak-ng (``espeak://``, or ``sim://`` with
    ``dir``).
    """
    parsed = DeviceUrl.parse(url)
    settings = _settings(parsed, url)
    if muted is not None:
        settings["muted"] = muted
    if parsed.scheme == "espeak":
        return EspeakSpeaker(**settings)
    if parsed.scheme == "sim":
        return SimSpeaker(**settings, name=parsed.target or "default", clock=clock)
    return NullSpeaker(muted=settings["muted"])


def check_speaker_url(url: str) -> None:
    """Check ``url`` as :func:`open_speaker` would, without running espeak-ng (``chessatron config
    check``). Raises :class:`~chessatron.errors.ConfigError` naming what is wrong."""
    _settings(DeviceUrl.parse(url), url)


def _voice(parsed: DeviceUrl) -> EspeakVoice:
    defaults = EspeakVoice()
    return EspeakVoice(
        voice=parsed.params.get("voice", defaults.voice),
        speed=parsed.integer("speed", defaults.speed),
        pitch=parsed.integer("pitch", defaults.pitch),
        volume=parsed.integer("volume", defaults.volume),
    )


def _settings(parsed: DeviceUrl, url: str) -> dict[str, Any]:
    """The keyword arguments of the speaker ``parsed`` names, checked."""
    if parsed.scheme == "espeak":
        check_options(parsed, (*_VOICE_OPTIONS, "muted"))
        return {"voice": _voice(parsed), "device": parsed.target or None, "muted": parsed.flag("muted")}
    if parsed.scheme == "sim":
        check_options(parsed, (*_VOICE_OPTIONS, "dir", "muted"))
        folder = parsed.params.get("dir")
        if folder is not None and not folder.strip():
            raise ConfigError(
                _("option dir= in a sim:// speaker URL needs a folder, as in sim://?dir=speech")
            )
        return {
            "voice": _voice(parsed),
            "directory": Path(folder).expanduser() if folder else None,
            "muted": parsed.flag("muted"),
        }
    if parsed.scheme == "none":
        check_options(parsed, ("muted",))
        return {"muted": parsed.flag("muted")}
    raise ConfigError(
        _("speaker URL {url!r} has the unknown scheme {scheme!r}; use espeak://, sim:// or none://").format(
            url=url, scheme=parsed.scheme
        )
    )
