"""``chessatron hw calibrate``: the table finds its sensors' wiring, its LED chain, where the board lies
under the gantry and the magnet's pull, with the person's help, each part written into the config (or the
layout) as soon as it is done, the previous file kept.

On the simulator the table can be built wrong on purpose (``--wrong FAULT,…`` or ``--seed N``: see
:mod:`chessatron.sim.wiring` and :mod:`chessatron.sim.wrong_gantry`; kept between commands, so that later
ones, a game too, see the same table) and a simulated person can follow the instructions (``--hand``);
without ``--hand`` the simulated table's hands still move the pieces it asks for, the terminal says where
the magnet really is, and the person at the terminal answers.

The board and the magnet are written into the layout file the config's ``layout =`` names; with the
built-in layout, into ``table.toml`` beside the config, which ``layout =`` then names.
"""

from __future__ import annotations

import logging
import sys
from contextlib import ExitStack
from pathlib import Path

import click
from rich.console import Console, RenderableType

from ..calibrate.bench import PARTS, Bench, NotHereError
from ..calibrate.person import Person, Stopped
from ..config import Config, default_config_path
from ..errors import ChessatronError
from ..i18n import N_, _
from ..ports import DeviceUrl
from ..render import terminal_console
from .common import EXIT_STOPPED, config_option, friendly
from .main import Command

LOGGER = logging.getLogger(__name__)


@click.command(
    "calibrate",
    cls=Command,
    help=N_(
        "Calibrate the table with your help: which input each sensor is on, the LEDs' chain, the board "
        "under the gantry, the magnet's pull (PART: sensors, leds, board, magnet or all, the default).\n\n"
        "Each part writes what it learnt into the config (the board and the magnet: into the layout) as "
        "soon as it is done, the previous file kept beside it as .bak; Ctrl-C stops the part under way and "
        "writes nothing of it. Run it again at any time."
    ),
)
@click.argument("parts", nargs=-1, type=click.Choice([*PARTS, "all"]))
@click.option(
    "--hand",
    is_flag=True,
    help=N_("On the simulator: a simulated person follows the instructions and answers."),
)
@click.option(
    "--wrong",
    metavar="FAULT,...",
    default=None,
    help=N_(
        "On the simulator: build the table wrong first, with these faults "
        "(e.g. ports-swapped,leds-serpentine,board-offset,board-turned,magnet-weak)."
    ),
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help=N_("On the simulator: build the table wrong at random from this seed."),
)
@config_option
@friendly
def calibrate_command(
    parts: tuple[str, ...], hand: bool, wrong: str | None, seed: int | None, config_path: Path | None
) -> None:
    # (the help is the command's decorator's, marked for translation)
    from ..sim.state import default_state_path
    from ..tablelock import hold_table, table_url

    chosen = [p for p in PARTS if p in parts or "all" in parts or not parts]
    path = config_path or default_config_path()
    settings = Config.load(config_path)
    console = terminal_console()
    simulated = {kind: DeviceUrl.parse(url).scheme == "sim" for kind, url in settings.urls.items()}
    on_sim = simulated["sensors"] or simulated["leds"] or simulated["grbl"]
    if (hand or wrong is not None or seed is not None) and not on_sim:
        raise click.UsageError(_("--hand, --wrong and --seed are for a simulated table (sim:// devices)"))
    with ExitStack() as stack:
        # one program drives the table at a time (the simulated one: the table saved between commands)
        stack.enter_context(
            hold_table(table_url(settings.urls), state=default_state_path() if on_sim else None)
        )
        bench = _Bench(settings, path, console, stack)
        if on_sim and bench.simulate(wrong, seed):
            console.print(_("The simulated table was built wrong on purpose; calibrate it."))
        person = bench.person(hand, seed)
        for part in chosen:
            console.rule(part)
            try:
                done = bench.run_part(part, person)
            except (Stopped, KeyboardInterrupt):
                console.print(
                    _("Stopped: nothing of the {part} part was written; run it again at any time.").format(
                        part=part
                    )
                )
                sys.exit(EXIT_STOPPED)
            if not done:
                continue
            bench.reload()


class _Bench(Bench):
    """The bench at the terminal: its console, what it draws of the simulated table, its person."""

    def __init__(self, settings: Config, path: Path, console: Console, stack: ExitStack) -> None:
        super().__init__(path, settings)
        self.console = console
        self.stack = stack

    def picture(self) -> RenderableType | None:
        from ..feedback.view import leds_panel

        lit = self.lit()
        return leds_panel(lit, self.settings.layout, title=_("the LEDs as they light")) if lit else None

    def person(self, hand: bool, seed: int | None) -> Person:
        def echo(text: str) -> None:
            self.console.print(text, markup=False, highlight=False)

        if hand:
            from ..calibrate.simperson import SimMaker, SimPerson
            from ..sim.calibration_person import GantryPerson

            return SimMaker(
                SimPerson(self.settings.layout, self.wiring, lit=self.lit, echo=echo),
                GantryPerson(self.world, seed=seed or 0),
                echo=echo,
            )
        from ..calibrate.terminal import TerminalPerson

        simulated = self.world is not None
        return TerminalPerson(
            self.console,
            picture=self.picture if simulated else None,
            look=self.hint if simulated else None,
        )

    def run_part(self, part: str, person: Person) -> bool:
        """Run one part, write what it learnt and say so; False when it wrote nothing."""
        from ..calibrate.simperson import SimMaker

        if isinstance(person, SimMaker):
            person.part = part
        try:
            outcome = self.run(part, person, self.stack)
        except NotHereError as exc:
            self.console.print(str(exc), markup=False)
            return False
        for line in outcome.lines:
            self.console.print(line, markup=False)
        for path, _kept in outcome.files:
            self.console.print(_("Written: {file}").format(file=path), markup=False, soft_wrap=True)
        for _path, kept in outcome.files:
            if kept is not None:
                said = _("The previous one is kept as {kept}").format(kept=kept)
                self.console.print(said, markup=False, soft_wrap=True)
        return outcome.written


def offer_calibration(failed: list[str], yes: bool, config_path: Path | None) -> None:
    """After ``hw test``: when the sensors or the LEDs failed, say which part of ``hw calibrate`` finds
    their right values, and offer to run it."""
    parts = [part for part in ("sensors", "leds") if part in failed]
    if not parts:
        return
    click.echo(
        _("`chessatron hw calibrate {parts}` finds their right values with you.").format(
            parts=" ".join(parts)
        )
    )
    if yes or not sys.stdin.isatty():
        return
    if click.confirm(_("Calibrate them now?"), default=False):
        args = list(parts) + (["--config", str(config_path)] if config_path else [])
        try:
            calibrate_command.main(args, standalone_mode=False)
        except ChessatronError as exc:
            click.echo(f"chessatron: {exc}", err=True)
