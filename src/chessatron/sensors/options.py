"""Reading a sensor URL's options strictly: a typo in an option name is an error, not a silent default."""

from __future__ import annotations

from ..errors import ConfigError
from ..i18n import _
from ..ports import DeviceUrl


def check_options(url: DeviceUrl, known: tuple[str, ...], example: str) -> None:
    """Raise :class:`ConfigError` for an option the backend does not know."""
    url.check_options(known, example)


def seconds(url: DeviceUrl, key: str, default: float) -> float:
    """A duration option in seconds, zero or more."""
    value = url.number(key, default)
    if not value >= 0.0 or value == float("inf"):
        raise ConfigError(
            _("option {key}={value!r} in a {scheme}:// URL must be zero or more seconds").format(
                key=key, value=url.params[key], scheme=url.scheme
            )
        )
    return value


def positive_integer(url: DeviceUrl, key: str, default: int) -> int:
    """A whole-number option greater than zero, such as a baud rate."""
    value = url.integer(key, default)
    if value <= 0:
        raise ConfigError(
            _("option {key}={value!r} in a {scheme}:// URL must be a positive whole number").format(
                key=key, value=url.params[key], scheme=url.scheme
            )
        )
    return value
