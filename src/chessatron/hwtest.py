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
from .i18n import N_, _, formats, ngettext, pgettext
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
#: What the speaker says (in the table's language: :func:`spoken_sentence`).
TEST_SENTENCE = N_("chessatron hardware test: knight f3, check")
#: Below this level (dB below full scale) a word is too quiet for the recogniser: the microphone's gain.
QUIET_DBFS = -40.0


#: Each corner of the table: its name, where the magnet goes, and the question a maker answers.
_CORNER_WORDS = {
    "near left": (
        N_("near left"),
        N_("magnet to the near left corner of the table: X{x} Y{y}"),
        N_("is the magnet under the near left corner?"),
    ),
    "near right": (
        N_("near right"),
        N_("magnet to the near right corner of the table: X{x} Y{y}"),
        N_("is the magnet under the near right corner?"),
    ),
    "far right": (
        N_("far right"),
        N_("magnet to the far right corner of the table: X{x} Y{y}"),
        N_("is the magnet under the far right corner?"),
    ),
    "far left": (
        N_("far left"),
        N_("magnet to the far left corner of the table: X{x} Y{y}"),
        N_("is the magnet under the far left corner?"),
    ),
}


def step_title(name: str) -> str:
    """A step's title in the current language (``leds`` is ``LEDs`` in German)."""
    titles = {
        "gantry": pgettext("hw test", "gantry"),
        "magnet": pgettext("hw test", "magnet"),
        "leds": pgettext("hw test", "leds"),
        "sensors": pgettext("hw test", "sensors"),
        "display": pgettext("hw test", "display"),
        "buzzer": pgettext("hw test", "buzzer"),
        "buttons": pgettext("hw test", "buttons"),
        "speech": pgettext("hw test", "speech"),
        "microphone": pgettext("hw test", "microphone"),
    }
    return titles.get(name, name)


def spoken_sentence() -> str:
    """What the speaker says, in the current language."""
    return _(TEST_SENTENCE)


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
    version = build.version or "?"
    if build.opt_line:
        first = f"grbl {version} {build.opt_line}"
    else:
        first = _("grbl {version} without an [OPT:...] line").format(version=version)
    lines = [first + (f": {', '.join(build.option_names())}" if build.options else "")]
    if build.options is None:
        return lines
    lines.append(_("the $I options this table needs:"))
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
            _("$1=255: the motors hold the carriage at every stop, while the magnet engages and releases"),
            markup=False,
        )
    elif idle is not None:
        console.print(
            _("$1={value}: the motors go limp {value} ms after every stop; set $1=255 (see below)").format(
                value=f"{idle:g}"
            ),
            markup=False,
        )


def hardware_test(
    config: Config, *, console: Console, ask: Ask, sensor_seconds: float = 3.0, only: set[str] | None = None
) -> list[StepResult]:
    """Run the walk-through; returns one result per step (a failed step does not stop the others)."""
    layout = config.layout
    results: list[StepResult] = []

    def step(name: str, action: Callable[[], tuple[bool, str]]) -> None:
        if only is not None and name not in only:
            return
        console.rule(escape(step_title(name)))
        try:
            ok, detail = action()
        except ChessatronError as exc:
            ok, detail = False, str(exc)
        results.append(StepResult(name, ok, detail))
        # the detail is plain text: "pip install 'chessatron[pi]'" must not lose its [pi] as markup
        if ok:
            mark = "[green]" + escape(pgettext("hw test", "ok")) + "[/green] "
        else:
            mark = "[red]" + escape(pgettext("hw test", "failed")) + "[/red] "
        console.print(mark + escape(detail))

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
                console.print(
                    "[yellow]" + escape(pgettext("hw test", "warning:")) + "[/yellow] " + escape(warning)
                )
            if config.home or link.is_locked:
                console.print(
                    _(
                        "homing ($H): grbl says nothing until it is done, which takes at most {seconds} s…"
                    ).format(seconds=f"{link.homing_bound_s():.0f}"),
                    markup=False,
                )
                started = time.monotonic()
                link.ready(home=config.home)
                status = link.status(fresh=True)
                at = status.machine_position() or (0.0, 0.0)
                console.print(
                    _(
                        "homed in {seconds} s; the magnet is at X{x} Y{y}, the layout's home_mm {home!r}"
                    ).format(
                        seconds=formats.decimal(time.monotonic() - started, 1),
                        x=f"{at[0]:g}",
                        y=f"{at[1]:g}",
                        home=layout.home_mm,
                    ),
                    markup=False,
                )
            elif link.settings.get(22) != 1:
                console.print(
                    _("homing is off ($22=0): the gantry must stand at home_mm when grbl starts"),
                    markup=False,
                )
            missed = []
            for name, (x, y) in _corners(layout):
                console.print(_(_CORNER_WORDS[name][1]).format(x=f"{x:g}", y=f"{y:g}"), markup=False)
                result = link.stream([f"G0 X{x:.3f} Y{y:.3f}", "G4 P0"])
                result.raise_for_error()
                if simulated["grbl"]:
                    world = get_world(DeviceUrl.parse(config.urls["grbl"]).target or "default", layout)
                    at = world.twin.magnet_xy
                    if abs(at[0] - x) > 0.01 or abs(at[1] - y) > 0.01:
                        missed.append(name)
                elif not ask(_(_CORNER_WORDS[name][2])):
                    missed.append(name)
            if missed:
                corners = ", ".join(_(_CORNER_WORDS[name][0]) for name in missed)
                return (
                    False,
                    _("the magnet did not reach: {corners}; check $100/$101 steps/mm and $3").format(
                        corners=corners
                    ),
                )
            return True, ngettext(
                "grbl answered, {count} settings warning, all four corners reached",
                "grbl answered, {count} settings warnings, all four corners reached",
                len(warnings),
            ).format(count=len(warnings))

    def magnet() -> tuple[bool, str]:
        from .gantry.magnet import open_magnet

        url = config.urls["magnet"]
        if DeviceUrl.parse(url).scheme == "grbl":
            return True, _("the magnet is switched by GRBL ({method}); the game programs test it").format(
                method=layout.magnet.method
            )
        with open_magnet(url) as device:
            device.engage()
            engaged = simulated["magnet"] or ask(_("is the magnet up (engaged)?"))
            device.release()
            released = simulated["magnet"] or ask(_("is the magnet down (released)?"))
        if engaged and released:
            return True, _("engaged and released")
        return False, _("check the wiring")

    def leds() -> tuple[bool, str]:
        from .feedback.leds import open_leds

        if config.urls["leds"].startswith("none"):
            return True, _("no LEDs configured")
        with open_leds(config.urls["leds"], layout) as strip:
            for square in chess.SQUARES:
                strip.show({layout.square_cell(square): (0, 80, 255)})
                time.sleep(0 if simulated["leds"] else 0.05)
            strip.show({})
        ok = simulated["leds"] or ask(_("did the LEDs light one after another from a1 to h8?"))
        return ok, _("64 squares lit in turn") if ok else _(
            "check the mapping (order=, origin=) and the data pin"
        )

    def sensors() -> tuple[bool, str]:
        from .sensors import open_sensor
        from .sim.world import get_world

        url = config.urls["sensors"]
        scheme = DeviceUrl.parse(url).scheme
        if scheme == "none":
            return True, _("no sensors configured")
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
                return False, _("sensors disagree with the table at {cells}").format(
                    cells=", ".join(cell_name(layout, c) for c in wrong)
                )
            return True, ngettext(
                "{count} occupied cell, as on the table",
                "{count} occupied cells, as on the table",
                len(cells),
            ).format(count=len(cells))
        ok = ask(_("does the matrix show exactly where pieces stand?"))
        if ok:
            return ok, ngettext("{count} occupied cell", "{count} occupied cells", len(cells)).format(
                count=len(cells)
            )
        return ok, _("check the pin map (map=) and the wiring")

    def display() -> tuple[bool, str]:
        from .feedback.display import open_display

        with open_display(config.urls["display"]) as screen:
            screen.show(["chessatron", "hw test"])
        ok = (
            simulated["display"]
            or config.urls["display"].startswith(("terminal", "none"))
            or ask(_("does the display show 'chessatron / hw test'?"))
        )
        return ok, _("status shown") if ok else _("check the LCD address (i2cdetect -y 1)")

    def buzzer() -> tuple[bool, str]:
        from .feedback.buzzer import open_buzzer
        from .feedback.tunes import TUNES

        with open_buzzer(config.urls["buzzer"], muted=config.muted) as device:
            device.play(TUNES["robot-start"])
        ok = (
            simulated["buzzer"]
            or config.urls["buzzer"].startswith("none")
            or ask(_("did you hear a short tune?"))
        )
        return ok, _("tune played") if ok else _("check the buzzer pin (a passive piezo needs PWM)")

    def buttons() -> tuple[bool, str]:
        from .buttons import BUTTONS, open_buttons

        url = config.urls["buttons"]
        if url.startswith("none"):
            return True, _("no buttons configured")
        wait_s = 0.5 if simulated["buttons"] else BUTTON_WAIT_S
        with open_buttons(url) as pad:
            for name in BUTTONS:
                # (the buttons by the names the config gives their pins: up, down, left, right, select, back)
                console.print(_("press {button}").format(button=name), markup=False)
                deadline = time.monotonic() + wait_s
                while (pressed := pad.read(max(0.0, deadline - time.monotonic()))) != name:
                    if pressed is None:
                        return False, _(
                            "no {button} press within {seconds} s; check its pin and wiring"
                        ).format(button=name, seconds=f"{wait_s:g}")
                    console.print(
                        _("that was {pressed}; press {button}").format(pressed=pressed, button=name),
                        markup=False,
                    )
        return True, _("all {count} buttons answer").format(count=len(BUTTONS))

    def speech() -> tuple[bool, str]:
        from .feedback.speaker import SimSpeaker, open_speaker

        url = config.urls["speech"]
        if url.startswith("none"):
            return True, _("no speaker configured")
        sentence = spoken_sentence()
        with open_speaker(url, muted=False) as speaker:
            speaker.say(sentence)
            if isinstance(speaker, SimSpeaker):
                ok = speaker.texts() == [sentence]
            else:
                speaker.close()  # waits until the sentence has been said
                ok = ask(_("did you hear {sentence!r}?").format(sentence=sentence))
        return (
            ok,
            _("sentence said")
            if ok
            else _("check the sound card (aplay -l) and the URL's device and volume"),
        )

    def microphone() -> tuple[bool, str]:
        from .voice.audio import SAMPLE_RATE
        from .voice.grammar import answer_grammar
        from .voice.microphone import SimMicrophone, open_microphone
        from .voice.recognizer import SpeechRecognizer

        url = config.urls["microphone"]
        if url.startswith("none"):
            return True, _("no microphone configured")
        # before the microphone: a missing library is said at once
        recognizer = SpeechRecognizer(wide_voices=config.wide_voices)
        with open_microphone(url) as mic:
            if isinstance(mic, SimMicrophone):
                mic.say("yes")
            # TRANSLATORS: voice input stays English: the maker says the English word "yes"
            console.print(
                _('say "yes" into the microphone (listening for {seconds} s)').format(seconds=f"{LISTEN_S:g}")
            )
            pcm = mic.listen(LISTEN_S)
        if not pcm:
            return False, _(
                "nothing heard within {seconds} s; check the device (python -m sounddevice)"
            ).format(seconds=f"{LISTEN_S:g}")
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float64)
        level = 20 * math.log10(max(float(np.sqrt(np.mean(samples**2))), 1.0) / 32768)
        # checked as the voice player checks an answer: a noise is always some phrase to the grammar
        hearing = recognizer.hear(pcm, answer_grammar(), checked=lambda words: True)
        heard = hearing.words if hearing.clear else ""
        said = {
            "seconds": formats.decimal(len(samples) / SAMPLE_RATE, 1),
            "level": f"{level:.0f}",
            "heard": heard,
        }
        if heard:
            detail = _("{seconds} s at {level} dBFS, understood {heard!r}").format(**said)
        else:
            detail = _("{seconds} s at {level} dBFS, understood nothing clearly").format(**said)
        if level < QUIET_DBFS:
            return False, _("{detail}: too quiet; raise the microphone's gain (alsamixer)").format(
                detail=detail
            )
        if heard != "yes":
            return False, _(
                "{detail}, not 'yes'; try again closer to the microphone, in a quieter room"
            ).format(detail=detail)
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
