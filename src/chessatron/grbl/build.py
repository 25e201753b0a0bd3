"""How the GRBL firmware was built (its ``$I`` answer) and whether that fits a table layout. No I/O.

GRBL 1.1 answers ``$I`` with ``[VER:1.1h.20190830:note]`` and ``[OPT:VCZ,15,128]``: one letter per
compile-time option (``report_build_info`` in ``report.c``), the planner's blocks and the serial receive
buffer's bytes. What the table needs of the build (docs/raspberry-pi.md, "flash GRBL for this table") is
checked at every connect, each check with the line of ``config.h`` (or ``serial.h``) that decides it:

* ``C`` exactly when the layout is Core-XY (``#define COREXY``): otherwise every move goes diagonally;
* ``Z``, the origin at home after homing (``#define HOMING_FORCE_SET_ORIGIN``): otherwise homing puts the
  magnet at minus the travel and every coordinate is off;
* no ``L``: locked at power-up until homed (``#define HOMING_INIT_LOCK``, GRBL's default): otherwise a board
  just switched on takes g-code from wherever the gantry stands;
* a receive buffer of at least 128 bytes (``RX_BUFFER_SIZE`` in ``serial.h``): the streamer fills 128;
* ``V``, a variable spindle (GRBL's default), when the magnet hangs on the spindle output: without it the
  output moves from pin D11 to D12;
* the planner's blocks the time model plans with (15 on an Arduino Uno).

The first four refuse the connection when they fail (``Z`` and no ``L`` only with homing on, ``$22=1``;
with homing off they matter only once switches are fitted, and are warnings), the last two are warnings.

>>> from chessatron.grbl.protocol import PushMessage
>>> build = BuildInfo.from_messages([PushMessage("VER", "1.1h.20190830:"), PushMessage("OPT", "VCZ,15,128")])
>>> build.is_corexy, build.planner_blocks, build.option_names()
(True, 15, ['variable spindle', 'Core-XY kinematics', 'homing sets the origin'])
>>> [(check.option, check.ok) for check in build_checks(build, Layout.default(), {22: 1.0})]
[('C', True), ('Z', True), ('no L', True), ('128', True), ('V', True), ('15', True)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import GrblBuildError
from ..i18n import N_, _
from ..planning.layout import Layout
from .protocol import RX_BUFFER_BYTES, Message, PushMessage

__all__ = ["OPTION_LETTERS", "BuildCheck", "BuildInfo", "build_checks", "check_build"]

# The guide's section on the build's options (the guide is in English).
_GUIDE = "docs/raspberry-pi.md, 'flash grbl for this table'"

#: The ``[OPT:…]`` letters of GRBL 1.1h and what each says was compiled in (or, for the last group,
#: left out).
OPTION_LETTERS = {
    "V": N_("variable spindle"),
    "N": N_("line numbers"),
    "M": N_("mist coolant (M7)"),
    "C": N_("Core-XY kinematics"),
    "P": N_("parking motion"),
    "Z": N_("homing sets the origin"),
    "H": N_("single-axis homing commands"),
    "T": N_("two limit switches on an axis"),
    "A": N_("feed overrides while probing"),
    "D": N_("spindle direction pin as enable"),
    "0": N_("spindle off at S0"),
    "S": N_("software debounce"),
    "R": N_("parking override control"),
    "L": N_("no alarm lock at power-up"),
    "+": N_("safety door input pin"),
    "*": N_("no $RST=* command"),
    "$": N_("no $RST=$ command"),
    "#": N_("no $RST=# command"),
    "I": N_("no build info write command"),
    "E": N_("no buffer sync at eeprom writes"),
    "W": N_("no buffer sync at work offset changes"),
    "2": N_("dual axis motors"),
}


@dataclass(frozen=True)
class BuildInfo:
    """GRBL's ``$I`` answer: its version, the build note stored with ``$I=``, the option letters, the
    planner's blocks and the receive buffer's bytes (None where the answer lacks them)."""

    version: str | None
    note: str
    options: str | None
    planner_blocks: int | None = None
    rx_buffer_bytes: int | None = None

    @classmethod
    def from_messages(cls, messages: Iterable[Message]) -> BuildInfo:
        """Read the ``[VER:…]`` and ``[OPT:…]`` lines of a ``$I`` answer (others are ignored)."""
        version: str | None = None
        note = ""
        options: str | None = None
        blocks = rx_bytes = None
        for message in messages:
            if not isinstance(message, PushMessage):
                continue
            if message.kind == "VER":
                version, _colon, note = message.body.partition(":")
            elif message.kind == "OPT":
                letters, *numbers = message.body.split(",")
                options = letters
                if len(numbers) >= 2 and numbers[0].isdigit() and numbers[1].isdigit():
                    blocks, rx_bytes = int(numbers[0]), int(numbers[1])
        return cls(version, note, options, blocks, rx_bytes)

    @property
    def is_corexy(self) -> bool | None:
        """True for a Core-XY build, False for a Cartesian one, None if GRBL did not say."""
        return None if self.options is None else "C" in self.options

    def option_names(self) -> list[str]:
        """The options in words, in GRBL's order."""
        return [
            _(OPTION_LETTERS[letter])
            if letter in OPTION_LETTERS
            else _("option {letter!r}").format(letter=letter)
            for letter in self.options or ""
        ]

    @property
    def opt_line(self) -> str | None:
        """The ``[OPT:…]`` line as GRBL sent it (letters, planner blocks, receive buffer bytes)."""
        if self.options is None:
            return None
        numbers = (self.planner_blocks, self.rx_buffer_bytes)
        tail = "" if None in numbers else f",{numbers[0]},{numbers[1]}"
        return f"[OPT:{self.options}{tail}]"

    def __str__(self) -> str:
        return _("grbl {version} {options}").format(
            version=self.version or _("(no version)"), options=self.opt_line or _("no [OPT:…] line")
        )


@dataclass(frozen=True)
class BuildCheck:
    """One thing the table needs of GRBL's build, as its ``$I`` answer shows it: ``option`` is how the
    ``[OPT:…]`` line shows it (``C``, ``no L``, ``128`` bytes…), ``label`` says it in words (with the
    define behind it), ``ok`` whether the build has it, ``refuses`` whether a failure refuses the
    connection (else it is a warning); ``found`` says what the build has instead, ``harm`` what goes
    wrong with it and ``fix`` the line to change."""

    option: str
    label: str
    ok: bool
    refuses: bool
    found: str
    harm: str
    fix: str

    def problem(self, where: str) -> str:
        """The failure in words: what the build has (``where``, e.g. "grbl on '/dev/ttyUSB0'", is the
        board), what goes wrong, what to change."""
        found = self.found.replace("{where}", where)
        # TRANSLATORS: what the firmware's build has, what goes wrong with it, and what to change
        return _("{found}: {harm}; {fix}").format(found=found, harm=self.harm, fix=self.fix)


def build_checks(
    build: BuildInfo, layout: Layout | None, settings: Mapping[int, float] | None = None
) -> list[BuildCheck]:
    """What the table needs of the build, checked (see the module's docs): without a layout, the
    kinematics, the magnet's output and the planner are not checked; without ``settings`` (``$$``),
    homing counts as on. Raises :class:`~chessatron.errors.GrblBuildError` if the answer had no
    ``[OPT:…]`` line. The words are in the current language; ``found`` keeps a ``{where}`` placeholder
    for :meth:`BuildCheck.problem`."""
    options, opt = build.options, build.opt_line
    if options is None or opt is None:
        raise GrblBuildError(
            _("grbl did not say how it was built ($I had no [OPT:...] line), so it cannot be checked")
        )
    homing = settings is None or settings.get(22) == 1
    checks: list[BuildCheck] = []
    if layout is not None:
        corexy = layout.profile.kinematics == "corexy"
        found = (
            _("{where} was built for a core-xy machine ({opt}) but the layout's kinematics is {kinematics!r}")
            if "C" in options
            else _(
                "{where} was built for a cartesian machine ({opt}) but the layout's kinematics is "
                "{kinematics!r}"
            )
        )
        checks.append(
            BuildCheck(
                "C" if corexy else "no C",
                _("core-xy kinematics (COREXY)") if corexy else _("cartesian kinematics (no COREXY)"),
                corexy == ("C" in options),
                True,
                _keep_where(found, opt=opt, kinematics=layout.profile.kinematics),
                _("every move would go the wrong way"),
                _(
                    "uncomment #define COREXY in grbl's config.h (or set kinematics = 'cartesian' in the "
                    "layout if that is the machine)"
                )
                if corexy
                else _(
                    "comment out #define COREXY in grbl's config.h (or set kinematics = 'corexy' in the "
                    "layout if that is the machine)"
                ),
            )
        )
    checks.append(
        BuildCheck(
            "Z",
            _("the origin at home after homing (HOMING_FORCE_SET_ORIGIN)"),
            "Z" in options,
            homing,
            _keep_where(_("{where} was built without HOMING_FORCE_SET_ORIGIN (no Z in {opt})"), opt=opt),
            _(
                "homing would put the machine's origin at the far end of the travel, so every coordinate "
                "would be off by the table's size"
            )
            if homing
            else _(
                "homing would put the machine's origin at the far end of the travel, so every coordinate "
                "would be off by the table's size (only a warning while homing is off, $22=0: it matters "
                "once switches are fitted)"
            ),
            _("uncomment #define HOMING_FORCE_SET_ORIGIN in grbl's config.h"),
        )
    )
    checks.append(
        BuildCheck(
            "no L",
            _("locked at power-up until homed (HOMING_INIT_LOCK)"),
            "L" not in options,
            homing,
            _keep_where(_("{where} was built without HOMING_INIT_LOCK (L in {opt})"), opt=opt),
            _(
                "switched on, it would take g-code at once, from wherever the gantry stands, and chessatron "
                "would not home it first"
            )
            if homing
            else _(
                "switched on, it would take g-code at once, from wherever the gantry stands, and chessatron "
                "would not home it first (only a warning while homing is off, $22=0: it matters once "
                "switches are fitted)"
            ),
            _("keep #define HOMING_INIT_LOCK in grbl's config.h (grbl's default)"),
        )
    )
    rx = build.rx_buffer_bytes
    if rx is not None:
        checks.append(
            BuildCheck(
                f"{RX_BUFFER_BYTES}",
                _("a receive buffer of {bytes} bytes (RX_BUFFER_SIZE)").format(bytes=RX_BUFFER_BYTES),
                rx >= RX_BUFFER_BYTES,
                True,
                _keep_where(
                    _("{where} was built with a {bytes}-byte receive buffer ({opt})"), bytes=rx, opt=opt
                ),
                _("the streamer fills {bytes} bytes, so lines would overflow it and be lost").format(
                    bytes=RX_BUFFER_BYTES
                ),
                _("set #define RX_BUFFER_SIZE {bytes} in grbl's serial.h (grbl's default)").format(
                    bytes=RX_BUFFER_BYTES
                ),
            )
        )
    if layout is not None and layout.magnet.method == "spindle":
        checks.append(
            BuildCheck(
                "V",
                _("a variable spindle, the magnet on its output (VARIABLE_SPINDLE)"),
                "V" in options,
                False,
                _keep_where(_("{where} was built without VARIABLE_SPINDLE (no V in {opt})"), opt=opt),
                _(
                    "its spindle output is on pin D12, not on D11 where grbl 1.1 drives it, so a magnet "
                    "wired "
                    "to D11 would never engage"
                ),
                _(
                    "wire the magnet to D12, or keep #define VARIABLE_SPINDLE in grbl's config.h (grbl's "
                    "default)"
                ),
            )
        )
    blocks = build.planner_blocks
    if layout is not None and blocks is not None:
        wanted = layout.profile.planner_blocks
        checks.append(
            BuildCheck(
                f"{wanted}",
                _("{count} planner blocks, as the time model plans (BLOCK_BUFFER_SIZE)").format(count=wanted),
                blocks == wanted,
                False,
                _keep_where(_("{where} has a planner of {count} blocks ({opt})"), count=blocks, opt=opt),
                _("the time model plans with {count}, so the planner's timing will be off").format(
                    count=wanted
                ),
                _("keep BLOCK_BUFFER_SIZE at its default in grbl's planner.h (15 blocks on an Arduino Uno)"),
            )
        )
    return checks


def _keep_where(message: str, **values: object) -> str:
    """``message`` with ``values`` put in and its ``{where}`` kept for :meth:`BuildCheck.problem`."""
    return message.format(where="{where}", **values)


def check_build(
    build: BuildInfo,
    layout: Layout | None,
    *,
    settings: Mapping[int, float] | None = None,
    where: str = "grbl",
) -> list[str]:
    """Warnings where the build does not fit ``layout`` and the table's needs (see the module's docs;
    ``settings``: the ``$$`` answer, for whether homing is on; ``where``: what the messages call the board).

    Raises :class:`~chessatron.errors.GrblBuildError` when it cannot be checked (no ``[OPT:…]`` line) or
    fails a check that refuses the connection: a Cartesian build on a Core-XY table (no ``C``) or the other
    way round drives every move along the wrong direction, a build without ``Z`` homes to the far end, one
    with ``L`` moves from anywhere after power-up, a small receive buffer loses lines.
    """
    if build.options is None:
        raise GrblBuildError(
            _(
                "{where} did not say how it was built ($I had no [OPT:...] line), so whether it drives a "
                "core-xy gantry and homes to the origin cannot be checked, and chessatron will not move it: "
                "flash grbl 1.1h built for this table ({guide})"
            ).format(where=where, guide=_GUIDE)
        )
    checks = build_checks(build, layout, settings)
    refused = [check for check in checks if not check.ok and check.refuses]
    if refused:
        problems = refused[0].problem(where)
        for check in refused[1:]:
            # TRANSLATORS: two problems of the firmware's build, one after the other
            problems = _("{problems}; also, {problem}").format(
                problems=problems, problem=check.problem(where)
            )
        raise GrblBuildError(
            _(
                "{problems}; then build and flash grbl again ({guide}). chessatron will not move it until "
                "then"
            ).format(problems=problems, guide=_GUIDE)
        )
    return [
        _("{problem}, then build and flash grbl again").format(problem=check.problem(where))
        for check in checks
        if not check.ok
    ]
