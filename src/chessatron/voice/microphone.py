"""The microphone the voice player listens through: a sound card's input, its simulator, or none.

:func:`open_microphone` picks the backend by URL:

``mic://[DEVICE]?rate=16000``
    A sound card's input (a USB microphone on the Pi) read through sounddevice (PortAudio: Debian's
    ``libportaudio2``), cut into utterances by pocketsphinx's voice activity detection. ``DEVICE`` is
    sounddevice's number or a part of the device's name (``python -m sounddevice`` lists them; default:
    the system's input); ``rate`` the rate it records at (resampled to 16 kHz when it differs).
``sim://[name][?noise=100&seed=0]``
    :class:`SimMicrophone`: what a simulated person says (:meth:`SimMicrophone.say`, rendered by espeak-ng)
    or any recording (:meth:`SimMicrophone.hear`), with the noise of a quiet room (``noise``: its standard
    deviation in 16-bit units; 0 for none).
``none://``
    No microphone.

Only this module imports sounddevice, and only when a ``mic://`` microphone is opened.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..device import Device
from ..errors import ConfigError, HardwareError, MissingLibraryError
from ..feedback.device import Closing
from ..feedback.espeak import EspeakVoice, synthesize
from ..i18n import _
from ..ports import DeviceUrl, Microphone
from .audio import SAMPLE_RATE, add_noise, pcm_from_wav, resample

__all__ = [
    "MicrophoneDevice",
    "NullMicrophone",
    "SimMicrophone",
    "SoundCardMicrophone",
    "check_microphone_url",
    "open_microphone",
]

#: The longest utterance kept (seconds): a move, or a command, is said in far less.
MAX_UTTERANCE_S = 8.0
#: The noise of a quiet room through a cheap microphone (standard deviation, 16-bit units).
ROOM_NOISE = 100.0


@runtime_checkable
class MicrophoneDevice(Microphone, Closing, Protocol):
    """What :func:`open_microphone` returns: the :class:`~chessatron.ports.Microphone` port, with ``with``."""


class SoundCardMicrophone(Device):
    """A sound card's input through sounddevice, cut into utterances by voice activity detection."""

    def __init__(self, device: int | str | None = None, *, rate: int = SAMPLE_RATE) -> None:
        try:
            import sounddevice
        except (ImportError, OSError) as exc:  # OSError: sounddevice is there, PortAudio is not
            raise MissingLibraryError(
                _(
                    "the microphone needs sounddevice and PortAudio; run pip install 'chessatron[pi]' and "
                    "sudo "
                    "apt-get install libportaudio2 ({error})"
                ).format(error=exc)
            ) from exc
        from .recognizer import Utterances

        self.device = device
        self.rate = rate
        self._utterances = Utterances(sample_rate=rate)
        self._frame = self._utterances.frame_bytes // 2
        try:
            self._stream: Any = sounddevice.RawInputStream(
                samplerate=rate, blocksize=self._frame, dtype="int16", channels=1, device=device
            )
            self._stream.start()
        except (sounddevice.PortAudioError, ValueError) as exc:
            name = device if device is not None else "(default)"
            raise HardwareError(
                _(
                    "cannot record from the microphone {name!r}: {error}; python -m sounddevice lists the "
                    "devices"
                ).format(name=name, error=exc)
            ) from exc

    def listen(self, timeout_s: float) -> bytes | None:
        self._check_open()
        deadline = time.monotonic() + timeout_s
        started: float | None = None
        while True:
            frame, _overflowed = self._stream.read(self._frame)
            utterance = self._utterances.feed(bytes(frame))
            now = time.monotonic()
            if utterance is not None:
                samples = np.frombuffer(utterance, dtype="<i2")
                return resample(samples, self.rate).tobytes()
            if self._utterances.in_speech:
                started = started if started is not None else now
                if now - started > MAX_UTTERANCE_S:
                    self._utterances.reset()  # talk, not a move: forget it
                    started = None
            elif now >= deadline:
                return None

    def _close(self) -> None:
        stream = getattr(self, "_stream", None)
        if stream is not None:
            stream.stop()
            stream.close()

    def __repr__(self) -> str:
        return f"<SoundCardMicrophone {self.device!r} at {self.rate} Hz>"


class SimMicrophone(Device):
    """A simulated microphone: utterances queued by a simulated person (:meth:`say`) or a test
    (:meth:`hear`), each with the noise of the room; :meth:`listen` hands them out in order.

    ``person`` is called when :meth:`listen` finds nothing queued: a simulated person who speaks when the
    table waits for them (:class:`chessatron.sim.voice.SimulatedVoice`).
    """

    def __init__(self, *, noise: float = ROOM_NOISE, seed: int = 0, name: str = "default") -> None:
        self.noise = noise
        self.name = name
        self._rng = np.random.default_rng(seed)
        self._queue: collections.deque[tuple[str | None, bytes]] = collections.deque()
        #: Every utterance handed to the listener: the words said (None for a recording) and its PCM.
        self.heard: list[tuple[str | None, bytes]] = []
        self.person: Callable[[], None] | None = None

    def say(self, text: str, voice: EspeakVoice | None = None) -> None:
        """A person says ``text`` into the microphone (espeak-ng renders it)."""
        self.hear(pcm_from_wav(synthesize(text, voice)), text=text)

    def hear(self, pcm: bytes, *, text: str | None = None) -> None:
        """A recording (16-bit mono PCM at 16 kHz) reaches the microphone."""
        self._check_open()
        if self.noise > 0:
            pcm = add_noise(pcm, self.noise, self._rng)
        self._queue.append((text, pcm))

    @property
    def waiting(self) -> int:
        """Utterances said and not yet listened to."""
        return len(self._queue)

    def listen(self, timeout_s: float) -> bytes | None:
        self._check_open()
        if not self._queue and self.person is not None:
            self.person()
        if not self._queue:
            time.sleep(min(timeout_s, 0.05))
            return None
        utterance = self._queue.popleft()
        self.heard.append(utterance)
        return utterance[1]

    def __repr__(self) -> str:
        return f"<SimMicrophone {self.name!r} {len(self._queue)} waiting>"


class NullMicrophone(Device):
    """No microphone (``none://``): nothing is ever heard."""

    def listen(self, timeout_s: float) -> bytes | None:
        self._check_open()
        time.sleep(timeout_s)
        return None

    def __repr__(self) -> str:
        return "<NullMicrophone>"


def open_microphone(url: str) -> MicrophoneDevice:
    """The microphone ``url`` names (see the module docstring).

    Raises :class:`~chessatron.errors.ConfigError` for a bad URL,
    :class:`~chessatron.errors.MissingLibraryError` without sounddevice or PortAudio, and
    :class:`~chessatron.errors.HardwareError` when the device cannot record.
    """
    parsed = DeviceUrl.parse(url)
    settings = _settings(parsed, url)
    if parsed.scheme == "mic":
        return SoundCardMicrophone(**settings)
    if parsed.scheme == "sim":
        return SimMicrophone(**settings, name=parsed.target or "default")
    return NullMicrophone()


def check_microphone_url(url: str) -> None:
    """Check ``url`` as :func:`open_microphone` would, without opening a sound card (``chessatron config
    check``). Raises :class:`~chessatron.errors.ConfigError` naming what is wrong."""
    _settings(DeviceUrl.parse(url), url)


def _settings(parsed: DeviceUrl, url: str) -> dict[str, Any]:
    if parsed.scheme == "mic":
        parsed.check_options(("rate",), "mic://?rate=16000")
        rate = parsed.integer("rate", SAMPLE_RATE)
        if rate not in (8000, 16000, 32000, 44100, 48000):
            raise ConfigError(
                _("rate={rate!r} in a mic:// URL; use 16000, 44100 or 48000 (Hz)").format(rate=rate)
            )
        target = parsed.target.strip("/")
        device: int | str | None = int(target) if target.isdigit() else (target or None)
        return {"device": device, "rate": rate}
    if parsed.scheme == "sim":
        parsed.check_options(("noise", "seed"), "sim://?noise=100")
        noise = parsed.number("noise", ROOM_NOISE)
        if not 0 <= noise <= 10000:
            raise ConfigError(
                _("noise={noise!r} in a sim:// microphone URL; use 0 (none) to 10000").format(noise=noise)
            )
        return {"noise": noise, "seed": parsed.integer("seed", 0)}
    if parsed.scheme == "none":
        parsed.check_options(())
        return {}
    raise ConfigError(
        _("microphone URL {url!r} has the unknown scheme {scheme!r}; use mic://, sim:// or none://").format(
            url=url, scheme=parsed.scheme
        )
    )
