"""The buzzer: note names, the named tunes, the gpiozero backend on mock pins, and the simulator."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from chessatron.errors import ConfigError, MissingLibraryError, NoteError, OutputDeviceError
from chessatron.feedback.buzzer import SimBuzzer, TonalBuzzerDevice, open_buzzer
from chessatron.feedback.tunes import TUNES, check_tune, note_frequency, note_midi, tune_name, tune_seconds

from .test_feedback_fakes import mock_pin_factory


@pytest.fixture
def pins() -> Iterator[Any]:
    with mock_pin_factory() as factory:
        yield factory


def test_note_names_agree_with_gpiozero() -> None:
    from gpiozero.tones import Tone

    for letter in "CDEFGAB":
        for accidental in ("", "#", "b", "♯", "♭"):
            for octave in range(10):
                name = f"{letter}{accidental}{octave}"
                try:
                    theirs = Tone(note=name).midi
                except ValueError:
                    with pytest.raises(NoteError):
                        note_midi(name)
                    continue
                assert note_midi(name) == theirs, name


@pytest.mark.parametrize("name", ["H4", "A", "A#", "4A", "A10", "Ab-1", ""])
def test_bad_note_names_are_named(name: str) -> None:
    with pytest.raises(NoteError, match=re.escape(repr(name))):
        note_midi(name)


def test_tunes_are_valid_and_short() -> None:
    for name, tune in TUNES.items():
        assert check_tune(tune) == tune, name
        assert tune_name(tune) == name
        assert 0 < tune_seconds(tune) <= 1.0, name
    assert tune_name([("A4", 1.0)]) is None
    assert note_frequency("A4") == 440.0


def test_every_tune_sounds_note_by_note_on_the_pin(pins: Any) -> None:
    heard: list[tuple[float | None, float]] = []
    pin = pins.pin(12)
    with open_buzzer("buzzer://12?blocking=1", sleep=lambda s: heard.append((pin.frequency, s))) as buzzer:
        for tune in TUNES.values():
            heard.clear()
            buzzer.play(tune)
            assert [(None if f is None else round(f, 3), s) for f, s in heard] == [
                (None if n is None else round(note_frequency(n), 3), s) for n, s in tune
            ]
            assert pin.frequency is None  # silent between tunes


def test_background_tunes_play_on_a_thread(pins: Any) -> None:
    heard: list[tuple[str, float | None]] = []
    pin = pins.pin(12)
    buzzer = open_buzzer(
        "buzzer://12", sleep=lambda s: heard.append((threading.current_thread().name, pin.frequency))
    )
    assert isinstance(buzzer, TonalBuzzerDevice)
    buzzer.play(TUNES["move"])
    buzzer.wait(5)
    assert [(thread, round(f or 0, 6)) for thread, f in heard] == [
        ("chessatron-buzzer", round(note_frequency("C6"), 6)),
        ("chessatron-buzzer", round(note_frequency("G6"), 6)),
    ]
    assert not buzzer.is_playing and pin.frequency is None
    buzzer.close()


def test_a_new_tune_cuts_the_playing_one_short(pins: Any) -> None:
    buzzer = open_buzzer("buzzer://12")
    started = time.monotonic()
    buzzer.play([("A5", 30.0)])
    buzzer.play([("C6", 0.01)])
    buzzer.close()  # stops the tune playing too
    assert time.monotonic() - started < 5
    assert pins.pin(12).frequency is None


def test_muting_while_a_tune_plays_silences_it(pins: Any) -> None:
    pin = pins.pin(12)
    notes: list[float | None] = []
    buzzer = open_buzzer("buzzer://12?blocking=1", sleep=lambda s: notes.append(pin.frequency))

    def mute_after_first(seconds: float) -> None:
        notes.append(pin.frequency)
        buzzer.muted = True

    buzzer._sleep = mute_after_first  # type: ignore[attr-defined]
    buzzer.play(TUNES["game-over"])
    assert notes == [pytest.approx(note_frequency("C6"))] and pin.frequency is None
    buzzer.close()


def test_notes_outside_the_buzzers_range_are_refused(pins: Any) -> None:
    with open_buzzer("buzzer://12?mid=A5&octaves=1&blocking=1", sleep=lambda s: None) as buzzer:
        with pytest.raises(NoteError, match="'C4' is outside this buzzer's range"):
            buzzer.play(TUNES["illegal"])
        assert pins.pin(12).frequency is None
    with pytest.raises(ConfigError, match="leaves the notes C0 to G9"):
        open_buzzer("buzzer://12?mid=C1&octaves=2")


def test_muted_comes_from_the_url_or_the_caller(pins: Any) -> None:
    assert open_buzzer("sim://?muted=1").muted
    assert not open_buzzer("sim://?muted=1", muted=False).muted
    with open_buzzer("buzzer://12?muted=yes") as buzzer:
        assert buzzer.muted


def test_a_pin_in_use_is_a_hardware_error(pins: Any) -> None:
    with open_buzzer("buzzer://12"), pytest.raises(OutputDeviceError, match="GPIO 12"):
        open_buzzer("buzzer://12")


def test_without_gpiozero_the_message_names_the_pi_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gpiozero", None)
    with pytest.raises(MissingLibraryError, match=re.escape("pip install 'chessatron[pi]'")):
        open_buzzer("buzzer://12")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("buzzer://12?octave=2", "unknown option 'octave'"),
        ("buzzer://twelve", "needs a GPIO"),
        ("buzzer://12?mid=Z4", "not a note name"),
        ("piezo://12", "unknown scheme 'piezo'"),
    ],
)
def test_bad_buzzer_urls_are_named(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_buzzer(url)


def test_the_sim_records_tunes_with_their_start_times() -> None:
    times = iter([10.0, 11.5])
    buzzer = open_buzzer("sim://", clock=lambda: next(times))
    assert isinstance(buzzer, SimBuzzer)
    buzzer.play(TUNES["robot-start"])
    buzzer.muted = True
    buzzer.play(TUNES["check"])
    buzzer.muted = False
    buzzer.play([("A5", 0.1)])
    assert buzzer.played == [(10.0, TUNES["robot-start"]), (11.5, (("A5", 0.1),))]
    assert buzzer.played_names() == ["robot-start", "?"]
