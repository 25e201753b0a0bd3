"""The protocols ``chessatron eboard`` serves, by name, imported when asked for."""

from __future__ import annotations

import importlib

from ..errors import ConfigError
from ..i18n import _
from .core import EboardProtocol

#: Protocol name -> ``module:class`` under this package.
PROTOCOLS = {
    "millennium": "millennium:Millennium",
    "dgt": "dgt:Dgt",
    "chessnut": "chessnut:Chessnut",
    "cpp": "cpp:Cpp",
}


def protocol_class(name: str) -> type[EboardProtocol]:
    """The protocol called ``name``. Raises :class:`~chessatron.errors.ConfigError` naming the choices."""
    spec = PROTOCOLS.get(name.strip().lower())
    if spec is None:
        choices = ", ".join(PROTOCOLS)
        raise ConfigError(
            _("no e-board protocol {name!r}: choose one of {choices}").format(name=name, choices=choices)
        )
    module, _colon, attribute = spec.partition(":")
    cls: type[EboardProtocol] = getattr(importlib.import_module(f"{__package__}.{module}"), attribute)
    return cls
