"""``chessatron hw test``: walk a maker through their build, one device at a time.

Connect to GRBL (banner, settings checked against the layout, its build checked with ``$I``: each option
the table needs listed, ok or not, with the line of grbl's config.h to change; the advice on ``$1``), home
when homing is on (GRBL is silent while it homes: the step says how long it may take), move the magnet to
each corner of the table, engage and release the magnet, light each LED, show the sensor matrix live,
show a line on the display, play a tune, have each button pressed, say a sentence through the speaker
and listen for a word said into the microphone (how loud it came, and what the voice player
understood). On the simulator every step checks itself (the twin, the simulated person
who says "yes"); on hardware the maker answers whether it looked, or sounded, right.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess
import numpy as np
from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from .config import Config
from .errors import ChessatronError, GrblBuildError
from .gantry.verification import cell_name
from .grbl.build import BuildInfo, build_checks
from .grbl.motion import STEPPERS_ALWAYS_ON
from .planning.layout import Cell, Layout
from .ports import DeviceUrl, OccupancySensor
from .render import wants_letters

if TYPE_CHECKING:
    from .grbl.link import GrblLink

Ask = Callable[[str], bool]

#: How long the walk-through waits for each button to be pressed (seconds; a simulated pad: a moment).
BUTTON_WAIT_S = 20.0
#: How long it listens for the maker to say "yes" (seconds).
LISTEN_S = 10.0
#: What the speaker says.
TEST_SENTENCE = "chessatron hardware test: knight f3, check"
#: Below this level (dB below full scale) a word is too quiet for the recogniser: the microphone's gain.
QUIET_DBFS = -40.0


@dataclass(frozen=True)
class StepResult:
    name: str
    ok: bool
    detail: str


def _corners(layout: Layout) -> list[tuple[str, tuple[float, float]]]:
    width, height = layout.node_extent
    named = [("near left", (0, 0)), ("near right", (width - 1, 0)), ("far right", (width - 1, height - 1))]
    named.append(("far left", (0, height - 1)))
    return [(name, layout.node_mm(node)) for name, node in named]


def sensor_matrix(layout: Layout, cells: frozenset[Cell], *, letters: bool = False) -> Text:
    """The whole table as a grid of ● (occupied) and · (empty), top row first; ``#`` and ``.`` with
    ``letters`` (a console font without the symbols, :func:`~chessatron.render.wants_letters`)."""
    full, empty = (" # ", " . ") if letters else (" ● ", " · ")
    text = Text()
    for row in reversed(range(layout.rows)):
        for column in range(layout.columns):
            on = (column, row) in cells
            style = "bold green" if on else "dim"
            if layout.cell_kind((column, row)) == "board":
                style += " on grey15"
            text.append(full if on else empty, style=style)
        text.append("\n")
    return text


def describe_build(build: BuildInfo, layout: Layout, settings: Mapping[int, float]) -> list[str]:
    """The firmware's build as the maker should see it: its ``[OPT:…]`` line in words, then each option
    the table needs, checked (``ok``, ``FAIL``, or ``warn`` for what is only a warning), with the line of
    grbl's source to change when it fails."""
    lines = [
        f"grbl {build.version or '?'} {build.opt_line or 'without an [OPT:...] line'}"
        + (f": {', '.join(build.option_names())}" if build.options else "")
    ]
    if build.options is None:
        return lines
    lines.append("the $I options this table needs:")
    for check in build_checks(build, layout, settings):
        mark = "ok" if check.ok else "FAIL" if check.refuses else "warn"
        lines.append(f"  {mark:<4} {check.option:<4} {check.label}" + ("" if check.ok else f": {check.fix}"))
    return lines


def _describe_grbl(link: GrblLink, layout: Layout, console: Console) -> None:
    """What the maker should see about the firmware: its build (``$I``), each option checked, and the stop
    delay (``$1``)."""
    build = link.build
    if build is not None:
        for line in describe_build(build, layout, link.settings):
            console.print(line, markup=False)
    idle = link.settings.get(1)
    if idle == STEPPERS_ALWAYS_ON:
        console.print(
            "$1=255: the motors hold the carriage at every stop, while the magnet engages and releases"
        )
    elif idle is not None:
        console.print(f"$1={idle:g}: the motors go limp {idle:g} ms after every stop; set $1=255 (see below)")


def hardware_test(
    config: Config, *, console: Console, ask: Ask, sensor_seconds: float = 3.0, only: set[str] | None = None
) -> list[StepResult]:
    """Run the walk-through; returns one result per step (a failed step does not stop the others)."""
    layout = config.layout
    results: list[StepResult] = []

    def step(name: str, action: Callable[[], tuple[bool, str]]) -> None:
        if only is not None and name not in only:
            return
        console.rule(name)
        try:
            ok, detail = action()
        except ChessatronError as exc:
            ok, detail = False, str(exc)
        results.append(StepResult(name, ok, detail))
        # the detail is plain text: "pip install 'chessatron[pi]'" must not lose its [pi] as markup
        console.print(("[green]ok[/green] " if ok else "[red]failed[/red] ") + escape(detail))

    simulated = {kind: DeviceUrl.parse(url).scheme == "sim" for kind, url in config.urls.items()}

    def gantry() -> tuple[bool, str]:
        from .grbl.link import GrblLink
        from .sim.world import get_world

        with GrblLink(config.urls["grbl"], layout=layout, baudrate=config.baudrate) as link:
            try:
                warnings = link.connect()  # a build that does not fit the table fails the step here
            except GrblBuildError:
                if link.build is not None:
                    _describe_grbl(link, layout, console)  # what was checked, before what failed
                raise
            _describe_grbl(link, layout, console)
            for warning in warnings:
                console.print(f"[yellow]warning:[/yellow] {escape(warning)}")
            if config.home or link.is_locked:
                console.print(
                    f"homing ($H): grbl says nothing until it is done, which takes at most "
                    f"{link.homing_bound_s():.0f} s…"
                )
                started = time.monotonic()
                link.ready(home=config.home)
                status = link.status(fresh=True)
                at = status.machine_position() or (0.0, 0.0)
                console.print(
                    f"homed in {time.monotonic() - started:.1f} s; the magnet is at X{at[0]:g} Y{at[1]:g}, "
                    f"the layout's home_mm {layout.home_mm!r}",
                    markup=False,
                )
            elif link.settings.get(22) != 1:
                console.print("homing is off ($22=0): the gantry must stand at home_mm when grbl starts")
            missed = []
            for name, (x, y) in _corners(layout):
                console.print(f"magnet to the {name} corner of the table: X{x:g} Y{y:g}")
                result = link.stream([f"G0 X{x:.3f} Y{y:.3f}", "G4 P0"])
                result.raise_for_error()
                if simulated["grbl"]:
                    world = get_world(DeviceUrl.parse(config.urls["grbl"]).target or "default", layout)
                    at = world.twin.magnet_xy
                    if abs(at[0] - x) > 0.01 or abs(at[1] - y) > 0.01:
                        missed.append(name)
                elif not ask(f"is the magnet under the {name} corner?"):
                    missed.append(name)
            if missed:
                return (
                    False,
                    f"the magnet did not reach: {', '.join(missed)}; check $100/$101 steps/mm and $3",
                )
            return True, f"grbl answered, {len(warnings)} settings warnings, all four corners reached"

    def magnet() -> tuple[bool, str]:
        from .gantry.magnet import open_magnet

        url = config.urls["magnet"]
        if DeviceUrl.parse(url).scheme == "grbl":
            return True, f"the magnet is switched by GRBL ({layout.magnet.method}); the game programs test it"
        with open_magnet(url) as device:
            device.engage()
            engaged = simulated["magnet"] or ask("is the magnet up (engaged)?")
            device.release()
            released = simulated["magnet"] or ask("is the magnet down (released)?")
        return engaged and released, "engaged and released" if engaged and released else "check the wiring"

    def leds() -> tuple[bool, str]:
        from .feedback.leds import open_leds

        if config.urls["leds"].startswith("none"):
            return True, "no LEDs configured"
        with open_leds(config.urls["leds"], layout) as strip:
            for square in chess.SQUARES:
                strip.show({layout.square_cell(square): (0, 80, 255)})
                time.sleep(0 if simulated["leds"] else 0.05)
            strip.show({})
        ok = simulated["leds"] or ask("did the LEDs light one after another from a1 to h8?")
        return ok, "64 squares lit in turn" if ok else "check the mapping (order=, origin=) and the data pin"

    def sensors() -> tuple[bool, str]:
        from .sensors import open_sensor
        from .sim.world import get_world

        url = config.urls["sensors"]
        scheme = DeviceUrl.parse(url).scheme
        if scheme == "none":
            return True, "no sensors configured"
        world = get_world(DeviceUrl.parse(url).target or "default", layout) if scheme == "sim" else None
        device: OccupancySensor
        with open_sensor(url, layout, world=world) as device:
            cells = device.scan()
            deadline = time.monotonic() + (0 if scheme == "sim" else sensor_seconds)
            letters = wants_letters(console)
            with Live(
                sensor_matrix(layout, cells, letters=letters), console=console, auto_refresh=False
            ) as live:
                while time.monotonic() < deadline:
                    cells = device.scan()
                    live.update(sensor_matrix(layout, cells, letters=letters), refresh=True)
                    time.sleep(0.1)
        if world is not None:
            expected = world.occupied_cells()
            wrong = sorted(cells ^ expected)
            if wrong:
                return False, "sensors disagree with the table at " + ", ".join(
                    cell_name(layout, c) for c in wrong
                )
            return True, f"{len(cells)} occupied cells, as on the table"
        ok = ask("does the matrix show exactly where pieces stand?")
        return ok, f"{len(cells)} occupied cells" if ok else "check the pin map (map=) and the wiring"

    def display() -> tuple[bool, str]:
        from .feedback.display import open_display

        with open_display(config.urls["display"]) as screen:
            screen.show(["chessatron", "hw test"])
        ok = (
            simulated["display"]
            or config.urls["display"].startswith(("terminal", "none"))
            or ask("does the display show 'chessatron / hw test'?")
        )
        return ok, "status shown" if ok else "check the LCD address (i2cdetect -y 1)"

    def buzzer() -> tuple[bool, str]:
        from .feedback.buzzer import open_buzzer
        from .feedback.tunes import TUNES

        with open_buzzer(config.urls["buzzer"], muted=config.muted) as device:
            device.play(TUNES["robot-start"])
        ok = (
            simulated["buzzer"]
            or config.urls["buzzer"].startswith("none")
            or ask("did you hear a short tune?")
        )
        return ok, "tune played" if ok else "check the buzzer pin (a passive piezo needs PWM)"

    def buttons() -> tuple[bool, str]:
        from .buttons import BUTTONS, open_buttons

        url = config.urls["buttons"]
        if url.startswith("none"):
            return True, "no buttons configured"
        wait_s = 0.5 if simulated["buttons"] else BUTTON_WAIT_S
        with open_buttons(url) as pad:
            for name in BUTTONS:
                console.print(f"press {name}")
                deadline = time.monotonic() + wait_s
                while (pressed := pad.read(max(0.0, deadline - time.monotonic()))) != name:
                    if pressed is None:
                        return False, f"no {name} press within {wait_s:g} s; check its pin and wiring"
                    console.print(f"that was {pressed}; press {name}")
        return True, f"all {len(BUTTONS)} buttons answer"

    def speech() -> tuple[bool, str]:
        from .feedback.speaker import SimSpeaker, open_speaker

        url = config.urls["speech"]
        if url.startswith("none"):
            return True, "no speaker configured"
        with open_speaker(url, muted=False) as speaker:
            speaker.say(TEST_SENTENCE)
            if isinstance(speaker, SimSpeaker):
                ok = speaker.texts() == [TEST_SENTENCE]
            else:
                speaker.close()  # waits until the sentence has been said
                ok = ask(f"did you hear {TEST_SENTENCE!r}?")
        return (
            ok,
            "sentence said" if ok else "check the sound card (aplay -l) and the URL's device and volume",
        )

    def microphone() -> tuple[bool, str]:
        from .voice.audio import SAMPLE_RATE
        from .voice.grammar import answer_grammar
        from .voice.microphone import SimMicrophone, open_microphone
        from .voice.recognizer import SpeechRecognizer

        url = config.urls["microphone"]
        if url.startswith("none"):
            return True, "no microphone configured"
        # before the microphone: a missing library is said at once
        recognizer = SpeechRecognizer(wide_voices=config.wide_voices)
        with open_microphone(url) as mic:
            if isinstance(mic, SimMicrophone):
                mic.say("yes")
            console.print(f'say "yes" into the microphone (listening for {LISTEN_S:g} s)')
            pcm = mic.listen(LISTEN_S)
        if not pcm:
            return False, f"nothing heard within {LISTEN_S:g} s; check the device (python -m sounddevice)"
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float64)
        level = 20 * math.log10(max(float(np.sqrt(np.mean(samples**2))), 1.0) / 32768)
        # checked as the voice player checks an answer: a noise is always some phrase to the grammar
        hearing = recognizer.hear(pcm, answer_grammar(), checked=lambda words: True)
        heard = hearing.words if hearing.clear else ""
        understood = repr(heard) if heard else "nothing clearly"
        detail = f"{len(samples) / SAMPLE_RATE:.1f} s at {level:.0f} dBFS, understood {understood}"
        if level < QUIET_DBFS:
            return False, f"{detail}: too quiet; raise the microphone's gain (alsamixer)"
        if heard != "yes":
            return False, f"{detail}, not 'yes'; try again closer to the microphone, in a quieter room"
        return True, detail

    for name, action in (
        ("gantry", gantry),
        ("magnet", magnet),
        ("leds", leds),
        ("sensors", sensors),
        ("display", display),
        ("buzzer", buzzer),
        ("buttons", buttons),
        ("speech", speech),
        ("microphone", microphone),
    ):
        step(name, action)
    return results
