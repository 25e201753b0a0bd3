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
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError, HardwareError, MissingLibraryError
from ..i18n import _
from .audio import SAMPLE_RATE, add_noise, silence
from .grammar import Grammar
from .words import ACCENTS, EXTRA_WORDS, VOCABULARY

__all__ = ["Hearing", "SpeechRecognizer", "Utterances"]

LOGGER = logging.getLogger(__name__)

#: What to install when pocketsphinx is missing.
VOICE_EXTRA = "pip install 'chessatron[voice]'"
#: Silence around an utterance (seconds): the decoder needs a moment of it to find where speech starts.
PADDING_S = 0.25
#: The noise of the silence around an utterance (standard deviation, 16-bit units).
QUIET_NOISE = 30.0
#: Grammars kept compiled (a position's grammar is asked for again after a "no").
_KEPT_SEARCHES = 8
#: How the decoder searches a grammar of a few hundred phrases (pocketsphinx's settings; each measured
#: with ``python -m bench.voice``, and checked with its ``--held-out`` voices and games).
DECODER_SETTINGS: dict[str, Any] = {
    # the hypothesis is the best path the grammar's search found: pocketsphinx's second pass over the
    # word lattice (bestpath) rescores a grammar's lattice badly and loses words it had heard ("knight
    # to foxtrot three" came back as "to echo four", the rest of the utterance taken for silence)
    "bestpath": False,
    # beams far wider than a large vocabulary could afford, and more Gaussians a frame: a grammar of a
    # position keeps few paths alive, and a path pruned early is a move misheard
    "beam": 1e-70,
    "wbeam": 1e-50,
    "pbeam": 1e-70,
    "topn": 8,
    # every word costs more: a short phrase ("hotel four") is otherwise heard as a longer one made of
    # letters, each a single syllable that fits a sliver of the audio ("pawn to a four"); but not so
    # much more that the first word is left to the silence before it ("charlie three" for "knight
    # charlie three", as at 0.02)
    "wip": 0.1,
}
#: The frequency warps (pocketsphinx's ``warp_params`` for its ``inverse_linear`` vocal-tract-length
#: warping) each utterance is decoded at; the best-fitting decoding is what was heard. The model was
#: trained on voices of one range of vocal tracts; a voice far from it (a child's, a woman's high one, a
#: voice with a short or long tract) fits the grammar's phrases better with its frequencies scaled. On
#: ``python -m bench.voice``, three warps against one: 179 to 180 of 180 moves at the first try with the
#: spelling alphabet, 138 to 142 with letters; on its ``--held-out`` voices 155 to 163, and 135 either
#: way; at about 2.6 times the decoding time (85 to 220 ms an utterance on a desktop computer).
WARPS: tuple[float, ...] = (0.9, 1.0, 1.1)
#: How much worse than the best sequence of English sounds (a phone loop) the words heard may fit an
#: utterance, a 10 ms frame on average (pocketsphinx's log units), and still be taken for what was said:
#: noise, a cough or a remark fits the grammar's best phrase far worse than it fits the phone loop. (On
#: a hundred noises, knocks and remarks by four voices, decoded at one warp: "yes" heard in 22 and kept
#: in 1, a command or a request heard in 52 and kept in none; of 96 answers by twelve voices, 4 asked
#: again. Some voices fit the model poorly whatever they say, and the voice player takes what it hears
#: unclearly twice in a row. The figure counts the grammar's word costs too: it moves with
#: :data:`DECODER_SETTINGS`' ``wip``.)
CLEAR_FIT = -8.0
#: The decoder's name for the phone loop.
_PHONES = "phones"


@dataclass(frozen=True)
class Hearing:
    """What :meth:`SpeechRecognizer.hear` made of an utterance: the ``words`` the grammar allows that fit
    it best (``""`` for none), and whether they are ``clear``: checked against the phone loop and
    fitting nearly as well (:data:`CLEAR_FIT`), or not checked."""

    words: str
    clear: bool = True


def _pocketsphinx() -> Any:
    try:
        import pocketsphinx
    except ImportError as exc:
        raise MissingLibraryError(
            _("the voice player needs the {library!r} library, which is not installed; run {command}").format(
                library=exc.name or "pocketsphinx", command=VOICE_EXTRA
            )
        ) from exc
    return pocketsphinx


class SpeechRecognizer:
    """Recognises one utterance at a time against a grammar.

    ``model`` is a pocketsphinx acoustic model directory (default: the en-us model the package ships) and
    ``dictionary`` its pronunciation dictionary; words the grammars use that the dictionary lacks are
    added (:data:`~.words.EXTRA_WORDS`), and so are pronunciations of other accents than the
    dictionary's American one (:data:`~.words.ACCENTS`). The decoder's settings are
    :data:`DECODER_SETTINGS`; each utterance is decoded at each of :data:`WARPS` (``wide_voices``, as
    ``[microphone] wide_voices`` says), or once, unwarped, three times quicker for a slow computer.
    ``phones`` is a phone language model for the model's phones
    (default: the package's en-us one), the phone loop that words heard are checked against
    (:meth:`hear`).

    Raises :class:`~chessatron.errors.MissingLibraryError` without pocketsphinx and
    :class:`~chessatron.errors.ConfigError` for a model it cannot load.
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        dictionary: str | None = None,
        phones: str | None = None,
        wide_voices: bool = True,
    ) -> None:
        pocketsphinx = _pocketsphinx()
        hmm = model or pocketsphinx.get_model_path("en-us/en-us")
        words = dictionary or pocketsphinx.get_model_path("en-us/cmudict-en-us.dict")
        phone_lm = phones or pocketsphinx.get_model_path("en-us/en-us-phone.lm.bin")
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
                warp_type="inverse_linear",
                loglevel="FATAL",
                **DECODER_SETTINGS,
            )
            self._decoder.add_allphone_file(_PHONES, phone_lm)
        except (RuntimeError, ValueError) as exc:
            raise ConfigError(
                _(
                    "cannot load the speech model {model!r} or {phones!r} ({error}); reinstall {command}"
                ).format(model=hmm, phones=phone_lm, error=exc, command=VOICE_EXTRA)
            ) from exc
        self._log_base = math.log(self._decoder.config["logbase"])
        for word, sounds in EXTRA_WORDS.items():
            if self._decoder.lookup_word(word) is None:
                self._decoder.add_word(word, sounds, update=True)
        for word, sounds in ACCENTS.items():
            self._add_pronunciation(word, sounds)
        missing = sorted(word for word in VOCABULARY if self._decoder.lookup_word(word) is None)
        if missing:
            raise ConfigError(
                _("the speech dictionary {dictionary!r} lacks the words {words!r}").format(
                    dictionary=words, words=missing
                )
            )
        self._warps = WARPS if wide_voices else (1.0,)
        self._warp = 0.0  # the warp the features are computed with (set before each decoding)
        self._searches: OrderedDict[frozenset[str], str] = OrderedDict()
        self._count = 0
        self._quiet = add_noise(silence(PADDING_S), QUIET_NOISE, np.random.default_rng(0))

    def _add_pronunciation(self, word: str, sounds: str) -> None:
        """Another way of saying ``word``, as the dictionary writes one: ``word(2)``, ``word(3)``..., which
        the grammar's search listens for beside the first."""
        number = 2
        while (known := self._decoder.lookup_word(f"{word}({number})")) is not None:
            if known == sounds:
                return
            number += 1
        self._decoder.add_word(f"{word}({number})", sounds, update=True)

    def recognize(self, pcm: bytes, grammar: Grammar) -> str:
        """The words of the utterance ``pcm`` (16-bit mono at :data:`~.audio.SAMPLE_RATE`) that ``grammar``
        allows, lower case, one space apart; ``""`` when nothing in it fits."""
        return self.hear(pcm, grammar).words

    def hear(
        self, pcm: bytes, grammar: Grammar, *, checked: Callable[[str], bool] = lambda words: False
    ) -> Hearing:
        """The words of ``pcm`` as :meth:`recognize` finds them; those for which ``checked`` is true
        (words acted on without being read back: a yes, a hint) are also checked against the best
        sequence of English sounds, a phone loop: the grammar's search always finds its best phrase, in
        a cough too, and a cough fits it far worse than it fits the phone loop."""
        # a quiet room's noise under the utterance, and a moment of it before and after: digital silence
        # (a synthesiser's, a sound card's that gates) has no spectrum to normalise, and the words next
        # to it are lost (seeded: the same audio is always heard alike)
        noisy = add_noise(pcm, QUIET_NOISE, np.random.default_rng(len(pcm)))
        padded = self._quiet + noisy + self._quiet
        search = self._search(grammar)
        score, words = -math.inf, ""
        for warp in self._warps:  # the best fit at any warp (ties: the first)
            warped = self._decode(search, padded, warp)
            if warped > score:
                hypothesis = self._decoder.hyp()
                score, words = warped, " ".join(hypothesis.hypstr.split()) if hypothesis is not None else ""
        if not words or not checked(words):
            LOGGER.debug("heard %r", words)
            return Hearing(words)
        # against the phone loop's best fit at any warp too
        phones = max(self._decode(_PHONES, padded, warp) for warp in self._warps)
        fit = (score - phones) / max(self._decoder.n_frames(), 1)
        LOGGER.debug("heard %r, fitting %.1f a frame against the phone loop", words, fit)
        return Hearing(words, clear=fit >= CLEAR_FIT)

    def _decode(self, search: str, padded: bytes, warp: float) -> float:
        """Decode ``padded`` with ``search``, its frequencies warped by ``warp``; the best path's score
        (log units, -inf for none)."""
        decoder = self._decoder
        if warp != self._warp:
            decoder.config["warp_params"] = str(warp)
            decoder.reinit_feat()
            self._warp = warp
        decoder.activate_search(search)
        try:
            decoder.start_utt()
            decoder.process_raw(padded, full_utt=True)
            decoder.end_utt()
        except RuntimeError as exc:
            raise HardwareError(
                _("the speech recogniser failed on an utterance: {error}").format(error=exc)
            ) from exc
        hypothesis = decoder.hyp()
        # the binding hands the score over as a probability (the base to the score's power)
        if hypothesis is None or hypothesis.score <= 0.0:
            return -math.inf
        return math.log(hypothesis.score) / self._log_base

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
