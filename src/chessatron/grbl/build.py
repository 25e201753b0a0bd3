"""How the GRBL firmware was built (its ``$I`` answer) and whether that fits a table layout. No I/O.

GRBL 1.1 answers ``$I`` with ``[VER:1.1h.20190830:note]`` and ``[OPT:VC,15,128]``: one letter per
compile-time option (``report_build_info`` in ``report.c``), the planner's blocks and the serial receive
buffer's bytes. The letter that matters most here is ``C``: a firmware built without ``#define COREXY``
drives a Core-XY gantry's motors as if they were X and Y, so every move goes diagonally (and the other
way round for a Cartesian gantry).

>>> from chessatron.grbl.protocol import PushMessage
>>> build = BuildInfo.from_messages([PushMessage("VER", "1.1h.20190830:"), PushMessage("OPT", "VCZ,15,128")])
>>> build.is_corexy, build.planner_blocks, build.option_names()
(True, 15, ['variable spindle', 'Core-XY kinematics', 'homing sets the origin'])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import GrblBuildError
from ..planning.layout import Layout
from .protocol import Message, PushMessage

__all__ = ["OPTION_LETTERS", "BuildInfo", "check_build"]

#: The ``[OPT:…]`` letters of GRBL 1.1h and what each says was compiled in (or, for the last group,
#: left out).
OPTION_LETTERS = {
    "V": "variable spindle",
    "N": "line numbers",
    "M": "mist coolant (M7)",
    "C": "Core-XY kinematics",
    "P": "parking motion",
    "Z": "homing sets the origin",
    "H": "single-axis homing commands",
    "T": "two limit switches on an axis",
    "A": "feed overrides while probing",
    "D": "spindle direction pin as enable",
    "0": "spindle off at S0",
    "S": "software debounce",
    "R": "parking override control",
    "L": "no alarm lock at power-up",
    "+": "safety door input pin",
    "*": "no $RST=* command",
    "$": "no $RST=$ command",
    "#": "no $RST=# command",
    "I": "no build info write command",
    "E": "no buffer sync at eeprom writes",
    "W": "no buffer sync at work offset changes",
    "2": "dual axis motors",
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
                version, _, note = message.body.partition(":")
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
        return [OPTION_LETTERS.get(letter, f"option {letter!r}") for letter in self.options or ""]

    def __str__(self) -> str:
        opt = "no [OPT:…] line" if self.options is None else f"[OPT:{self.options}]"
        return f"grbl {self.version or '(no version)'} {opt}"


def check_build(build: BuildInfo, layout: Layout | None, *, where: str = "grbl") -> list[str]:
    """Warnings where the build does not fit ``layout`` (or, without one, a magnet table).

    Raises :class:`~chessatron.errors.GrblBuildError` when the kinematics differ: a Cartesian build on a
    Core-XY table (no ``C``) or the other way round drives every move along the wrong direction.
    """
    warnings: list[str] = []
    if build.options is None:
        return [
            f"{where} did not say how it was built ($I has no [OPT:...] line), so whether it drives a "
            "core-xy gantry cannot be checked; flash grbl 1.1h built for this table (docs/raspberry-pi.md)"
        ]
    if layout is None:
        return warnings
    corexy = layout.profile.kinematics == "corexy"
    if corexy != build.is_corexy:
        built = "core-xy" if build.is_corexy else "cartesian"
        fix = (
            "uncomment #define COREXY in grbl's config.h, build and flash it again"
            if corexy
            else "comment out #define COREXY in grbl's config.h and flash it again"
        )
        other = "corexy" if build.is_corexy else "cartesian"
        raise GrblBuildError(
            f"{where} was built for a {built} machine ([OPT:{build.options},...]) but the layout's "
            f"kinematics is {layout.profile.kinematics!r}, so every move would go the wrong way: {fix} "
            f"(docs/raspberry-pi.md, 'flash grbl for this table'), or set kinematics = {other!r} in the "
            "layout if that is the machine"
        )
    blocks = build.planner_blocks
    if blocks is not None and blocks != layout.profile.planner_blocks:
        warnings.append(
            f"{where}'s planner holds {blocks} blocks ([OPT:{build.options},{blocks},...]) but the time "
            f"model plans with {layout.profile.planner_blocks}; the planner's timing will be off"
        )
    return warnings
