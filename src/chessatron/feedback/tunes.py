"""Notes and the buzzer's named tunes, as plain values.

A tune is a sequence of :data:`~chessatron.ports.Note`: a note name (``"C6"``, ``"F#5"``, ``"Bb4"``;
None for a rest) and its length in seconds.

>>> note_midi("A4"), round(note_frequency("C6"), 1)
(69, 1046.5)
>>> tune_seconds(TUNES["check"])
0.3
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal, TypeAlias

from ..errors import NoteError
from ..i18n import _
from ..ports import Note

__all__ = [
    "TUNES",
    "Tune",
    "TuneName",
    "check_tune",
    "note_frequency",
    "note_midi",
    "tune_name",
    "tune_seconds",
]

Tune: TypeAlias = tuple[Note, ...]

TuneName = Literal["move", "check", "illegal", "game-over", "robot-start", "question"]

#: The tunes chessatron plays, written for a small piezo: it is loudest around 2-4 kHz, so they stay
#: high; the illegal-move buzz is low on purpose, to sound wrong.
TUNES: Mapping[TuneName, Tune] = {
    # A short blip each time a move is made, by the player or the robot.
    "move": (("C6", 0.05), ("G6", 0.07)),
    # Two sharp beeps.
    "check": (("A6", 0.12), (None, 0.06), ("A6", 0.12)),
    # A low double buzz.
    "illegal": (("C4", 0.15), (None, 0.05), ("C4", 0.3)),
    # A falling phrase that comes to rest.
    "game-over": (("C6", 0.12), ("G5", 0.12), ("E5", 0.12), ("C5", 0.45)),
    # A rising arpeggio when the robot is ready.
    "robot-start": (("C5", 0.08), ("E5", 0.08), ("G5", 0.08), ("C6", 0.22)),
    # Up at the end, as a voice asks: the board fits several moves, which one was it?
    "question": (("E6", 0.1), (None, 0.05), ("A6", 0.18)),
}

_NOTE = re.compile(r"([A-Ga-g])([#b♯♭]?)(\d)")
_STEPS = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}
_SHIFT = {"": 0, "#": 1, "♯": 1, "b": -1, "♭": -1}


def note_midi(name: str) -> int:
    """The MIDI number of a note name (A4 is 69, middle C is C4 = 60).

    Raises :class:`NoteError` for anything that is not a letter A-G, an optional ``#`` or ``b``, and an
    octave 0 to 9 (the names gpiozero's ``Tone`` reads too).
    """
    match = _NOTE.fullmatch(name.strip()) if isinstance(name, str) else None
    if match is None:
        raise NoteError(
            _("note {name!r} is not a note name; write a letter, # or b, and an octave, as in 'F#5'").format(
                name=name
            )
        )
    midi = (int(match[3]) + 1) * 12 + _STEPS[match[1].upper()] + _SHIFT[match[2]]
    if not 0 <= midi <= 127:
        raise NoteError(
            _("note {name!r} is above G9, the highest MIDI note; pick a lower octave").format(name=name)
        )
    return midi


def note_frequency(name: str) -> float:
    """The frequency of a note in hertz, in equal temperament with A4 at 440 Hz."""
    return 440.0 * 2 ** ((note_midi(name) - 69) / 12)


def check_tune(tune: Sequence[Note]) -> Tune:
    """``tune`` as a tuple, every name and length checked (:class:`NoteError` names the first bad one)."""
    if isinstance(tune, str):
        raise NoteError(
            _(
                "tune {tune!r} is a string; give a sequence of (note, seconds) pairs, or use TUNES[name]"
            ).format(tune=tune)
        )
    checked: list[Note] = []
    for i, entry in enumerate(tune):
        if not (isinstance(entry, tuple | list) and len(entry) == 2):
            raise NoteError(
                _("note #{number} of the tune is {entry!r}; write (note name or None, seconds)").format(
                    number=i + 1, entry=entry
                )
            )
        name, seconds = entry
        if name is not None:
            note_midi(name)
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or seconds < 0
        ):
            raise NoteError(
                _("note #{number} of the tune lasts {seconds!r} seconds; give a length of 0 or more").format(
                    number=i + 1, seconds=seconds
                )
            )
        checked.append((name, float(seconds)))
    return tuple(checked)


def tune_seconds(tune: Sequence[Note]) -> float:
    """How long a tune plays."""
    return round(sum(seconds for _note, seconds in tune), 9)


def tune_name(tune: Sequence[Note]) -> str | None:
    """The name under which ``tune`` is in :data:`TUNES`, or None."""
    key = tuple(tune)
    return next((name for name, known in TUNES.items() if known == key), None)
