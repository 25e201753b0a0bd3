"""Speech to words, offline: pocketsphinx with the US English model its Python package ships, listening
only for what a grammar allows (:mod:`.grammar`).

The only module that imports pocketsphinx (``pip install 'chessatron[voice]'``). Audio is 16-bit signed
mono PCM at :data:`~.audio.SAMPLE_RATE` (the model's rate); :func:`~.audio.pcm_from_wav` brings a WAV
file to it.

>>> import chess
>>> from chessatron.feedback.espeak import synthesize
>>> from chessatron.voice.audio import pcm_from_wav
>>> from chessatron.voice.grammar import move_grammar
>>> pcm = pcm_from_wav(synthesize("knight foxtrot three"))
>>> SpeechRecognizer().recognize(pcm, move_grammar(chess.Board()))
'knight foxtrot three'
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

import numpy as np

from ..errors import ConfigError, HardwareError, MissingLibraryError
from .audio import SAMPLE_RATE, add_noise, silence
from .grammar import EXTRA_WORDS, VOCABULARY, Grammar

__all__ = ["SpeechRecognizer", "Utterances"]

LOGGER = logging.getLogger(__name__)

#: What to install when pocketsphinx is missing.
VOICE_EXTRA = "pip install 'chessatron[voice]'"
#: Silence around an utterance (seconds): the decoder needs a moment of it to find where speech starts.
PADDING_S = 0.25
#: The noise of the silence around an utterance (standard deviation, 16-bit units).
QUIET_NOISE = 30.0
#: Grammars kept compiled (a position's grammar is asked for again after a "no").
_KEPT_SEARCHES = 8


def _pocketsphinx() -> Any:
    try:
        import pocketsphinx
    except ImportError as exc:
        raise MissingLibraryError(
            f"the voice player needs the {exc.name or 'pocketsphinx'!r} library, which is not installed; "
            f"run {VOICE_EXTRA}"
        ) from exc
    return pocketsphinx


class SpeechRecognizer:
    """Recognises one utterance at a time against a JSGF grammar.

    ``model`` is a pocketsphinx acoustic model directory (default: the en-us model the package ships) and
    ``dictionary`` its pronunciation dictionary; words the grammars use that the dictionary lacks are
    added (:data:`~.grammar.EXTRA_WORDS`).

    Raises :class:`~chessatron.errors.MissingLibraryError` without pocketsphinx and
    :class:`~chessatron.errors.ConfigError` for a model it cannot load.
    """

    def __init__(self, *, model: str | None = None, dictionary: str | None = None) -> None:
        pocketsphinx = _pocketsphinx()
        hmm = model or pocketsphinx.get_model_path("en-us/en-us")
        words = dictionary or pocketsphinx.get_model_path("en-us/cmudict-en-us.dict")
        try:
            self._decoder = pocketsphinx.Decoder(
                # dither: digital silence (a synthesiser's, a muted sound card's) would give the
                # features the log of zero, and the words around it are lost
                hmm=hmm,
                dict=words,
                lm=None,
                samprate=SAMPLE_RATE,
                dither=True,
                seed=1,
                loglevel="FATAL",
            )
        except (RuntimeError, ValueError) as exc:
            raise ConfigError(
                f"cannot load the speech model {hmm!r} ({exc}); reinstall {VOICE_EXTRA}"
            ) from exc
        for word, phones in EXTRA_WORDS.items():
            if self._decoder.lookup_word(word) is None:
                self._decoder.add_word(word, phones, update=True)
        missing = sorted(word for word in VOCABULARY if self._decoder.lookup_word(word) is None)
        if missing:
            raise ConfigError(f"the speech dictionary {words!r} lacks the words {missing!r}")
        self._searches: OrderedDict[frozenset[str], str] = OrderedDict()
        self._count = 0
        self._quiet = add_noise(silence(PADDING_S), QUIET_NOISE, np.random.default_rng(0))

    def recognize(self, pcm: bytes, grammar: Grammar) -> str:
        """The words of the utterance ``pcm`` (16-bit mono at :data:`~.audio.SAMPLE_RATE`) that ``grammar``
        allows, lower case, one space apart; ``""`` when nothing in it fits."""
        decoder = self._decoder
        decoder.activate_search(self._search(grammar))
        # a quiet room's noise under the utterance, and a moment of it before and after: digital silence
        # (a synthesiser's, a sound card's that gates) has no spectrum to normalise, and the words next
        # to it are lost (seeded: the same audio is always heard alike)
        noisy = add_noise(pcm, QUIET_NOISE, np.random.default_rng(len(pcm)))
        padded = self._quiet + noisy + self._quiet
        try:
            decoder.start_utt()
            decoder.process_raw(padded, full_utt=True)
            decoder.end_utt()
        except RuntimeError as exc:
            raise HardwareError(f"the speech recogniser failed on an utterance: {exc}") from exc
        hypothesis = decoder.hyp()
        words = " ".join(hypothesis.hypstr.split()) if hypothesis is not None else ""
        LOGGER.debug("heard %r", words)
        return words

    def _search(self, grammar: Grammar) -> str:
        """The decoder's search for ``grammar``, compiled once and kept while it is used."""
        name = self._searches.get(grammar.phrases)
        if name is not None:
            self._searches.move_to_end(grammar.phrases)
            return name
        self._count += 1
        name = f"grammar{self._count}"
        automaton = grammar.automaton()
        transitions = [(start, end, share, word) for start, end, word, share in automaton.transitions]
        fsg = self._decoder.create_fsg(name, 0, automaton.final, transitions)
        self._decoder.add_fsg(name, fsg)
        self._searches[grammar.phrases] = name
        while len(self._searches) > _KEPT_SEARCHES:
            _, old = self._searches.popitem(last=False)
            self._decoder.remove_search(old)
        return name

    def __repr__(self) -> str:
        return f"<SpeechRecognizer {len(self._searches)} grammars>"


class Utterances:
    """Cuts a stream of audio frames into utterances, by pocketsphinx's voice activity detection.

    Feed it frames of :attr:`frame_bytes` bytes with :meth:`feed`; it returns an utterance's PCM once the
    speaker has stopped, else None.
    """

    def __init__(self, *, sample_rate: int = SAMPLE_RATE) -> None:
        self._sample_rate = sample_rate
        self._endpointer = _pocketsphinx().Endpointer(sample_rate=sample_rate)
        self._speech: list[bytes] = []

    @property
    def in_speech(self) -> bool:
        """Whether someone is speaking (an utterance has begun and not ended)."""
        return bool(self._endpointer.in_speech)

    def reset(self) -> None:
        """Forget the utterance under way."""
        self._endpointer = _pocketsphinx().Endpointer(sample_rate=self._sample_rate)
        self._speech.clear()

    @property
    def frame_bytes(self) -> int:
        return int(self._endpointer.frame_bytes)

    def feed(self, frame: bytes) -> bytes | None:
        speech = self._endpointer.process(frame)
        if speech is not None:
            self._speech.append(speech)
            if not self._endpointer.in_speech:
                utterance = b"".join(self._speech)
                self._speech.clear()
                return utterance
        return None
