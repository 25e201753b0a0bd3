"""Audio as the recogniser takes it: 16-bit signed mono PCM at :data:`SAMPLE_RATE`, little-endian bytes.

>>> len(silence(0.5))
16000
"""

from __future__ import annotations

import io
import wave
from math import gcd
from typing import Any

import numpy as np

__all__ = ["SAMPLE_RATE", "add_noise", "pcm_from_wav", "resample", "silence", "wav_from_pcm"]

#: The speech model's sample rate (Hz); all PCM here is at this rate.
SAMPLE_RATE = 16000


def silence(seconds: float) -> bytes:
    """``seconds`` of digital silence as PCM."""
    return bytes(2 * round(seconds * SAMPLE_RATE))


def pcm_from_wav(data: bytes) -> bytes:
    """The PCM of a 16-bit WAV file's bytes, as mono at :data:`SAMPLE_RATE` (resampled with SciPy).

    Raises ValueError for anything but 16-bit PCM WAV.

    >>> pcm_from_wav(wav_from_pcm(silence(0.1))) == silence(0.1)
    True
    """
    try:
        with wave.open(io.BytesIO(data)) as wav:
            rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
            frames = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise ValueError(f"not a WAV file: {exc}") from exc
    if width != 2:
        raise ValueError(f"a WAV file of {8 * width}-bit samples; 16-bit PCM is needed")
    usable = len(frames) - len(frames) % (2 * channels)  # espeak-ng's streamed files may end mid-frame
    samples = np.frombuffer(frames[:usable], dtype="<i2").reshape(-1, channels).mean(axis=1)
    return resample(samples, rate).tobytes()


def wav_from_pcm(pcm: bytes) -> bytes:
    """PCM at :data:`SAMPLE_RATE` as the bytes of a WAV file."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(SAMPLE_RATE)
        wav.writeframes(pcm)
    return out.getvalue()


def resample(samples: np.ndarray[Any, Any], rate: int) -> np.ndarray[Any, np.dtype[np.int16]]:
    """``samples`` taken at ``rate`` Hz, at :data:`SAMPLE_RATE` as 16-bit integers."""
    if rate != SAMPLE_RATE:
        from scipy.signal import resample_poly

        common = gcd(rate, SAMPLE_RATE)
        samples = resample_poly(np.asarray(samples, dtype=np.float64), SAMPLE_RATE // common, rate // common)
    clipped: np.ndarray[Any, np.dtype[np.int16]] = np.clip(np.rint(samples), -32768, 32767).astype(np.int16)
    return clipped


def add_noise(pcm: bytes, level: float, rng: np.random.Generator) -> bytes:
    """``pcm`` with white noise of standard deviation ``level`` (16-bit units: 100 is a quiet room
    through a cheap microphone, about 45 dB below full scale)."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    samples = samples + rng.normal(0.0, level, samples.shape)
    return np.clip(np.rint(samples), -32768, 32767).astype(np.int16).tobytes()
