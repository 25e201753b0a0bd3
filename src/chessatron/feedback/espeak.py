"""espeak-ng, the speech synthesiser Debian ships (``apt-get install espeak-ng``): the one module that runs
it.

:func:`synthesize` renders text as WAV bytes (the simulated speaker's files, the simulated voice player's
utterances, the voice benchmark); :func:`speak` says it through the sound card (the ``espeak://``
speaker). Text goes to espeak-ng on its standard input, never on its command line.

The table speaks the player's language (:mod:`chessatron.i18n`): :meth:`EspeakVoice.in_language` is a
voice for it, espeak-ng's voice of that language (:data:`LANGUAGE_VOICES`) unless the voice chosen speaks
it already.

>>> synthesize("knight f3", EspeakVoice("en-gb", speed=150))[:4]
b'RIFF'
>>> EspeakVoice("en-us+f3").in_language("de").voice, EspeakVoice("en-gb").in_language("en").voice
('de+f3', 'en-gb')
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import ConfigError, MissingLibraryError, OutputDeviceError
from ..i18n import _

__all__ = ["LANGUAGE_VOICES", "EspeakVoice", "espeak_program", "speak", "synthesize", "voice_language"]

#: How long one sentence may take to say (seconds) before espeak-ng is given up on.
SPEAK_TIMEOUT_S = 60.0
_VOICE_NAME = re.compile(r"[A-Za-z0-9_+\-/]{1,64}")

#: espeak-ng's voice for each language the table speaks (the pseudo-language is said in English).
LANGUAGE_VOICES: Mapping[str, str] = {
    "en": "en-us",
    "de": "de",
    "fr": "fr",
    "es": "es",
    "nl": "nl",
    "it": "it",
}


def voice_language(voice: str) -> str:
    """The language an espeak-ng voice name speaks: ``en`` for ``en-gb-scotland+f3``, ``de`` for
    ``mb-de1`` (an MBROLA voice) and ``de``."""
    name = voice.split("+", 1)[0].rsplit("/", 1)[-1].lower().removeprefix("mb-")
    match = re.match(r"[a-z]+", name)
    return match.group(0) if match else name


@dataclass(frozen=True)
class EspeakVoice:
    """How espeak-ng speaks: ``voice`` (a language or voice name with an optional ``+variant``, such as
    ``en-gb``, ``en-us+f3``), ``speed`` in words per minute, ``pitch`` and ``volume`` (espeak-ng's
    0-99 and 0-200 scales)."""

    voice: str = "en-us"
    speed: int = 160
    pitch: int = 50
    volume: int = 100

    def __post_init__(self) -> None:
        if not _VOICE_NAME.fullmatch(self.voice):
            raise ConfigError(
                _(
                    "voice={voice!r} is not an espeak-ng voice name; use one such as en-gb, en-us or "
                    "en-us+f3 (espeak-ng --voices=en lists them)"
                ).format(voice=self.voice)
            )
        for name, value, low, high in (
            ("speed", self.speed, 80, 450),
            ("pitch", self.pitch, 0, 99),
            ("volume", self.volume, 0, 200),
        ):
            if not low <= value <= high:
                raise ConfigError(
                    _("{name}={value!r} is outside espeak-ng's range {low}-{high}").format(
                        name=name, value=value, low=low, high=high
                    )
                )

    def in_language(self, language: str) -> EspeakVoice:
        """This voice for words in ``language`` (a code of :data:`chessatron.i18n.LANGUAGES`): itself when
        it speaks that language, else espeak-ng's voice of the language (:data:`LANGUAGE_VOICES`) with this
        one's variant (``+f3``), speed, pitch and volume. A language without a voice is said in English."""
        wanted = LANGUAGE_VOICES.get(language, LANGUAGE_VOICES["en"])
        if voice_language(self.voice) == voice_language(wanted):
            return self
        _name, plus, variant = self.voice.partition("+")
        return dataclasses.replace(self, voice=wanted + plus + variant)

    def arguments(self) -> list[str]:
        return ["-v", self.voice, "-s", str(self.speed), "-p", str(self.pitch), "-a", str(self.volume)]


def espeak_program() -> str:
    """The path of espeak-ng. Raises :class:`~chessatron.errors.MissingLibraryError` saying how to
    install it when it is not there."""
    path = shutil.which("espeak-ng")
    if path is None:
        raise MissingLibraryError(
            _("speech needs espeak-ng, which is not installed; run sudo apt-get install espeak-ng")
        )
    return path


def synthesize(text: str, voice: EspeakVoice | None = None) -> bytes:
    """``text`` spoken by espeak-ng, as the bytes of a 16-bit mono WAV file (22,050 Hz).

    Raises :class:`~chessatron.errors.OutputDeviceError` when espeak-ng fails (an unknown voice, say).
    """
    return _run(["--stdout"], text, voice or EspeakVoice())


def speak(text: str, voice: EspeakVoice | None = None, *, device: str | None = None) -> None:
    """Say ``text`` through the sound card (``device``: an audio device's name, default the system's);
    returns when it has been said."""
    _run(["-d", device] if device else [], text, voice or EspeakVoice())


def check_voice(voice: EspeakVoice) -> None:
    """Whether espeak-ng knows ``voice``, saying nothing (``-q``). Raises
    :class:`~chessatron.errors.ConfigError` for a voice it does not have."""
    try:
        _run(["-q"], "chess", voice)
    except OutputDeviceError as exc:
        raise ConfigError(
            _(
                "espeak-ng has no voice {voice!r}; espeak-ng --voices={language} lists that language's voices"
            ).format(voice=voice.voice, language=voice_language(voice.voice))
        ) from exc


def _run(extra: list[str], text: str, voice: EspeakVoice) -> bytes:
    program = espeak_program()
    try:
        done = subprocess.run(
            [program, *voice.arguments(), *extra],
            input=text.encode("utf-8"),
            capture_output=True,
            timeout=SPEAK_TIMEOUT_S,
            check=False,
            # out of the terminal's process group: Ctrl-C is the program's, which stops at a safe point
            start_new_session=True,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OutputDeviceError(
            _("espeak-ng could not say {text!r}: {reason}").format(text=text, reason=exc)
        ) from exc
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip() or _("exit status {status}").format(
            status=done.returncode
        )
        raise OutputDeviceError(
            _("espeak-ng could not say {text!r}: {reason}").format(text=text, reason=reason)
        )
    return done.stdout
