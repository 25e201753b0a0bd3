"""The config's ``[eboard]`` section: the table as the e-board of an app (``chessatron eboard``, and the
Pi's service that starts it): which protocol, over which transport, where, the names advertised over
Bluetooth LE, and the side the person at the board plays. Checked by the config's checker, as every
section is.

>>> problems = Problems()
>>> eboard_settings({"protocol": "millennium", "port": "/dev/ttyGS0"}, problems)
EboardSettings(protocol='millennium', transport='serial', port='/dev/ttyGS0', person='white', name=None)
>>> eboard_settings({"protocol": "chesslink", "transport": "wifi"}, problems).protocol is None
True
>>> [problem.key for problem in problems.found]
['eboard.protocol', 'eboard.transport']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, get_args

from .config_problems import Problems
from .eboard.registry import PROTOCOLS
from .i18n import _

__all__ = ["EBOARD_PROTOCOLS", "EboardSettings", "eboard_settings"]

#: The protocols ``chessatron eboard`` serves.
EBOARD_PROTOCOLS: Final = tuple(PROTOCOLS)
Transport: TypeAlias = Literal["serial", "ble"]
Person: TypeAlias = Literal["white", "black", "none"]


@dataclass(frozen=True)
class EboardSettings:
    """``[eboard]``: the app's protocol and how it is reached; None: not set (the command line says)."""

    protocol: str | None = None
    transport: Transport = "serial"
    port: str | None = None
    """The serial line (``/dev/ttyGS0``: the Pi as a USB board)."""
    person: Person = "white"
    """The side the person at a real table plays; ``none``: the app plays both."""
    name: str | None = None
    """The name advertised over Bluetooth LE instead of the real boards' own."""


def eboard_settings(section: Mapping[str, Any], problems: Problems) -> EboardSettings:
    """The ``[eboard]`` section's settings; each wrong value goes to ``problems`` and its default is used."""
    default = EboardSettings()
    protocol = section.get("protocol")
    if protocol is not None and (not isinstance(protocol, str) or protocol.lower() not in EBOARD_PROTOCOLS):
        choices = ", ".join(repr(name) for name in EBOARD_PROTOCOLS)
        problems.add(
            "eboard.protocol",
            _("[eboard] protocol = {value!r} must be one of {choices}").format(
                value=protocol, choices=choices
            ),
        )
        protocol = None
    transport = section.get("transport", default.transport)
    if transport not in get_args(Transport):
        problems.add(
            "eboard.transport",
            _("[eboard] transport = {value!r} must be 'serial' or 'ble'").format(value=transport),
        )
        transport = default.transport
    port = section.get("port")
    if port is not None and (not isinstance(port, str) or not port.strip()):
        problems.add(
            "eboard.port",
            _("[eboard] port = {value!r} must be a serial device such as '/dev/ttyGS0'").format(value=port),
        )
        port = None
    person = section.get("person", default.person)
    if person not in get_args(Person):
        problems.add(
            "eboard.person",
            _("[eboard] person = {value!r} must be 'white', 'black' or 'none'").format(value=person),
        )
        person = default.person
    name = section.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 29):
        problems.add(
            "eboard.name",
            _("[eboard] name = {value!r} must be a name of 1 to 29 characters (Bluetooth LE)").format(
                value=name
            ),
        )
        name = None
    return EboardSettings(
        protocol=protocol.lower() if isinstance(protocol, str) else None,
        transport=transport,
        port=port.strip() if isinstance(port, str) else None,
        person=person,
        name=name.strip() if isinstance(name, str) else None,
    )
