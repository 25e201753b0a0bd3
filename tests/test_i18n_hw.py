"""The machine's words in the player's language: GRBL's alarms and errors, a program's run, the sensors'
wiring advice, the layout's problems and the board's questions, all translated (in the pseudo-language,
where every translated text is wrapped in ⟦ ⟧ and anything outside escaped translation); and the voice
player, whose input understands English only, says so in the table's language and goes on in English."""

from __future__ import annotations

import io
import queue
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

import chess
import pytest
from rich.console import Console

import chessatron.grbl  # noqa: F401  (registers sim://)
from chessatron.errors import ChessatronError, ConfigError
from chessatron.grbl.run import run_program
from chessatron.i18n import PSEUDO, using
from chessatron.planning.layout import Layout
from chessatron.recognition import Ambiguous, Illegal, Recognizer
from chessatron.sensors import check_sensor_url
from chessatron.voice.player import Prompt, VoiceMover
from chessatron.voice.recognizer import SpeechRecognizer

from .recognition_script import Script

#: A drag (the magnet on the coolant output), the release, then travels; an alarm as line 7 runs.
DRAG_THEN_TRAVEL = [
    "G21 G90",
    "G0 X100 Y100",
    "M8",
    "G1 X150 Y100 F3000",
    "M9",
    "G0 X300 Y300",
    "G0 X50 Y50",
    "G0 X300 Y50",
]


def untranslated(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The words (three letters or more) outside every ⟦ ⟧ of ``text``, but the ``allowed`` ones: names,
    file names, protocol words."""
    outside: list[str] = []
    depth = 0
    for char in text:
        if char == "⟦":
            depth += 1
        elif char == "⟧":
            depth = max(0, depth - 1)
        elif depth == 0:
            outside.append(char)
    return [word for word in re.findall(r"[A-Za-z]{3,}", "".join(outside)) if word not in set(allowed)]


def message_of(raised: pytest.ExceptionInfo[ChessatronError]) -> str:
    text = str(raised.value)
    assert text.startswith("⟦"), text  # the whole sentence is one translated message
    return text


def test_a_program_stopped_by_an_alarm_is_told_in_the_language(tmp_path: Path) -> None:
    program = tmp_path / "drag.gcode"
    program.write_text("\n".join(DRAG_THEN_TRAVEL) + "\n", encoding="ascii")
    out, err = io.StringIO(), io.StringIO()
    with using(PSEUDO):
        result = run_program(
            program,
            url="sim://i18n-hw-run?alarm_line=7&homing=0&speed=max",
            layout=Layout.default(),
            console=Console(file=out, width=400),
            errors=Console(file=err, width=400),
            speed=None,
        )
    assert not result.ok
    said, errors = out.getvalue(), err.getvalue()
    # the alarm's name, what happened and what to do, each translated, in a translated sentence
    assert "ÀĹÀŔṀ:1 (⟦ĥàŕđ ĺîɱîţ⟧)" in errors and "⟦à ĺîɱîţ šŵîţçĥ ŵàš ĥîţ" in errors
    assert "ţĥé ɱàĝñéţ ŵàš öƒƒ" in errors  # and what became of the magnet
    assert untranslated(errors) == []
    assert untranslated(said, allowed=("drag", "gcode")) == []  # the progress bar's program name


def test_grbl_rejecting_a_line_explains_the_error_code_in_the_language() -> None:
    from chessatron.grbl.link import GrblLink
    from chessatron.sim.world import SimWorld, register_world

    register_world(SimWorld(Layout.default(), name="i18n-hw-error"))
    with GrblLink("sim://i18n-hw-error?speed=max&homing=0") as link, using(PSEUDO):
        link.connect()
        result = link.stream(["G21 G90", "G1 X10 Y10"])  # G1 without a feed rate: error:22
    error = str(result.error)
    assert "éŕŕöŕ:22 (⟦ţĥé ƒééđ ŕàţé îš ñöţ šéţ⟧)" in error
    assert untranslated(error) == []


def test_a_pin_map_mistake_is_explained_in_the_language(tmp_path: Path) -> None:
    pins = tmp_path / "pins.txt"
    pins.write_text("0A: a1 b1 c1 d1 e1 f1 g1 h1\n0B: a2 b2 c2\n", encoding="utf-8")
    with using(PSEUDO), pytest.raises(ConfigError) as raised:
        check_sensor_url(f"mcp23017://1?map={pins}", Layout.default())
    text = message_of(raised)
    assert "0B" in text and "'a2', 'b2', 'c2'" in text
    assert untranslated(text) == []


def test_a_layout_file_with_a_wrong_value_is_explained_in_the_language(tmp_path: Path) -> None:
    layout = tmp_path / "table.toml"
    layout.write_text('[magnet]\nmethod = "glue"\n', encoding="utf-8")
    with using(PSEUDO), pytest.raises(ConfigError) as raised:
        Layout.from_toml(layout)
    text = message_of(raised)
    assert "'glue'" in text
    # the layout's own words (its section, key and allowed values) stay as the file writes them
    assert untranslated(text) == []
    layout.write_text("[table]\ncolumns = 6\n", encoding="utf-8")
    with using(PSEUDO), pytest.raises(ConfigError) as raised:
        Layout.from_toml(layout)
    # "'/…/table.toml': ⟦the table has 6 x 10 squares; …⟧": the file's name, then the problem
    path, _colon, problem = str(raised.value).partition(": ")
    assert path == repr(str(layout)) and problem.startswith("⟦") and untranslated(problem) == []


def test_the_boards_question_and_its_guidance_are_in_the_language() -> None:
    # the knight on f3 can take on e5 or d4; pushed off, either victim leaves the same board behind
    two_targets = "rnbqkb1r/pppp1ppp/8/4p3/3p4/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1"
    with using("de"):  # the question in the language's piece letters (S for the knight in German)
        script = Script(Recognizer(chess.Board(two_targets))).lift("f3").settle(5.5)
        (asked,) = script.of(Ambiguous)
        assert set(asked.question.removesuffix("?").split(" oder ")) == {"Sxd4", "Sxe5"}
    with using(PSEUDO):
        assert untranslated(asked.question, allowed=("Sxd4", "Sxe5", "Nxd4", "Nxe5")) == []
        illegal = Script(Recognizer(chess.Board())).move("e2", "e5").settle(3.0)
        (error,) = illegal.of(Illegal)
        told = [error.reason, *error.guidance.instructions(chess.Board())]
    assert len(told) == 2 and all(text.startswith("⟦") for text in told)
    assert untranslated(" ".join(told)) == []


class _Silence:
    """A microphone nobody speaks into."""

    def listen(self, timeout_s: float) -> bytes | None:
        return None


def test_the_voice_player_says_in_the_language_that_it_understands_english_only() -> None:
    mover = VoiceMover(cast(Any, _Silence()), cast(SpeechRecognizer, None), listen_s=0.0)
    said: queue.Queue[Prompt] = queue.Queue()
    mover.on_prompt = said.put
    mover.expired = lambda: True  # the player's time is up at once: only the first prompts are said
    with using(PSEUDO):
        assert mover.choose(chess.Board()) is None
        assert mover.choose(chess.Board()) is None  # told once
    prompts = [said.get_nowait() for _ in range(said.qsize())]
    notice, *moves = prompts
    assert notice.text.startswith("⟦") and "Éñĝĺîšĥ" in notice.text
    assert [prompt.text for prompt in moves] == ["White to move: say your move."] * 2  # voice stays English
