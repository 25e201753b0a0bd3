"""The layout file: its sections and keys, the limits of its values, and typed reading of them with
messages that name the key and the file. :meth:`~chessatron.planning.layout.Layout.from_dict` builds the
table from what it reads; the checks of the table as a whole are the layout's.

>>> check_keys({"table": {"colums": 12}}, "table.toml")
Traceback (most recent call last):
...
chessatron.errors.ConfigError: table.toml: unknown key 'colums' in [table]; did you mean 'columns'? ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from ..errors import ConfigError
from ..i18n import _
from ..keys import unknown

__all__ = ["ARRAYS", "MAX_CELLS", "MAX_NUMBER", "SECTIONS", "LayoutReader", "check_keys"]


#: The keys of each section of a layout file, and of each entry of its arrays of tables.
SECTIONS: Mapping[str, frozenset[str]] = {
    "table": frozenset({"columns", "rows", "square_mm", "board", "clearance_mm"}),
    "machine": frozenset(
        {
            "origin_mm",
            "rotation_deg",
            "envelope_mm",
            "home_mm",
            "kinematics",
            "max_rate_mm_min",
            "acceleration_mm_s2",
            "junction_deviation_mm",
            "carry_feed_mm_min",
            "step_idle_delay_ms",
        }
    ),
    "magnet": frozenset({"method", "spindle_speed", "settle_s"}),
}
ARRAYS: Mapping[str, frozenset[str]] = {
    "capture_zone": frozenset({"colour", "from", "to"}),
    "reserve": frozenset({"piece", "cell"}),
}

#: A table of more columns or rows than this is no chessboard's (the planner's graphs grow with it).
MAX_CELLS = 64
#: No length, speed or acceleration of a table-top machine comes near a million (mm, mm/min, mm/s²).
MAX_NUMBER = 1e6


def check_keys(data: Mapping[str, Any], source: str) -> None:
    """Every section and key of ``data`` known; raises :class:`ConfigError` naming the closest known one."""
    for name, value in data.items():
        if name in SECTIONS:
            if isinstance(value, Mapping):
                for key in value:
                    if key not in SECTIONS[name]:
                        raise ConfigError(
                            f"{source}: {unknown('key', key, SECTIONS[name], where=f'[{name}]')}"
                        )
        elif name in ARRAYS:
            if isinstance(value, list):
                for i, entry in enumerate(value):
                    for key in entry if isinstance(entry, Mapping) else ():
                        if key not in ARRAYS[name]:
                            where = f"[[{name}]] #{i + 1}"
                            raise ConfigError(f"{source}: {unknown('key', key, ARRAYS[name], where=where)}")
        else:
            what = "section" if isinstance(value, Mapping | list) else "key"
            raise ConfigError(f"{source}: {unknown(what, name, {*SECTIONS, *ARRAYS})}")


class LayoutReader:
    """Typed access to a parsed layout file (``data``, read from ``source``) with messages that name the
    key and the file: each method reads one key of a section, or its default."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data = data
        self.source = source

    def fail(self, where: str, key: str, value: object, wanted: str) -> ConfigError:
        """The error for ``key`` = ``value`` in section ``where``: it should be ``wanted`` (in words)."""
        # TRANSLATORS: {wanted} is what the value should be, e.g. "a string", "one of spindle, coolant, servo"
        return ConfigError(
            _("{source}: [{where}] {key} = {value!r} is not {wanted}").format(
                source=self.source, where=where, key=key, value=value, wanted=wanted
            )
        )

    def section(self, name: str) -> Mapping[str, Any]:
        value = self.data.get(name, {})
        if not isinstance(value, Mapping):
            raise ConfigError(
                _("{source}: {name!r} must be a table ([{name}])").format(source=self.source, name=name)
            )
        return value

    def tables(self, name: str) -> list[Mapping[str, Any]]:
        value = self.data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise ConfigError(
                _("{source}: {name!r} must be an array of tables ([[{name}]])").format(
                    source=self.source, name=name
                )
            )
        return value

    def number(self, section: Mapping[str, Any], key: str, default: float, where: str = "") -> float:
        value = section.get(key, default)
        if not _is_number(value):
            raise self.fail(where or _where(section, self.data), key, value, _number())
        return float(value)

    def integer(self, section: Mapping[str, Any], key: str, default: int, *, maximum: int) -> int:
        value = section.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > maximum:
            raise self.fail(
                _where(section, self.data), key, value, _("a whole number up to {most}").format(most=maximum)
            )
        return value

    def string(self, section: Mapping[str, Any], key: str, default: str | None, where: str) -> str:
        value = section.get(key, default)
        if not isinstance(value, str):
            raise self.fail(where, key, value, _("a string"))
        return value

    def choice(
        self,
        section: Mapping[str, Any],
        key: str,
        options: tuple[str, ...],
        default: str | None,
        where: str = "",
    ) -> str:
        value = section.get(key, default)
        if value not in options:
            raise self.fail(
                where or _where(section, self.data),
                key,
                value,
                _("one of {options}").format(options=", ".join(options)),
            )
        return cast(str, value)

    def numbers(
        self, section: Mapping[str, Any], key: str, default: tuple[float, ...], n: int
    ) -> list[float]:
        value = section.get(key, default)
        if not isinstance(value, list | tuple) or len(value) != n or not all(_is_number(v) for v in value):
            raise self.fail(
                _where(section, self.data),
                key,
                value,
                _("a list of {count} numbers ({each})").format(count=n, each=_number()),
            )
        return [float(v) for v in value]

    def pair(self, section: Mapping[str, Any], key: str, default: tuple[float, float]) -> tuple[float, float]:
        x, y = self.numbers(section, key, default, 2)
        return (x, y)

    def quad(
        self, section: Mapping[str, Any], key: str, default: tuple[float, float, float, float]
    ) -> tuple[float, float, float, float]:
        a, b, c, d = self.numbers(section, key, default, 4)
        return (a, b, c, d)

    def cell(
        self, section: Mapping[str, Any], key: str, where: str, default: tuple[int, int] | None = None
    ) -> tuple[int, int]:
        value = section.get(key, default)
        if (
            not isinstance(value, list | tuple)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < MAX_CELLS for v in value)
        ):
            raise self.fail(
                where,
                key,
                value,
                _("a cell [column, row] of two whole numbers from 0 to {last}").format(last=MAX_CELLS - 1),
            )
        return (value[0], value[1])


def _number() -> str:
    """What a number in the layout must be, in words."""
    return _("a number from {least} to {most}").format(least=f"{-MAX_NUMBER:g}", most=f"{MAX_NUMBER:g}")


def _is_number(value: object) -> bool:
    """A finite TOML number no machine's measure exceeds (whole numbers too large for a float included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return -MAX_NUMBER <= value <= MAX_NUMBER  # False for NaN; exact for whole numbers of any size


def _where(section: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    for name, value in data.items():
        if value is section:
            return name
    return "?"
