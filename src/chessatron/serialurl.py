"""Checking a serial port's name or pyserial URL before anything is opened, so that ``config check`` names
a typo in ``socket://host:port?loging=debug`` instead of the first game failing on it.

pyserial reads its URLs only when it opens the port (its handlers' ``from_url`` also configure logging
or open files), so the rules of the handlers chessatron's devices use are repeated here: ``socket://``
and ``rfc2217://`` need ``host:port``, and every handler takes only its own options. A device path
(``/dev/ttyUSB0``, ``COM3``) and the handlers not listed (``hwgrep://``, ``alt://``, ``cp2110://``) are
left to pyserial.

>>> check_serial_url("socket://192.168.1.20:2217")
>>> check_serial_url("socket://pi.local")
Traceback (most recent call last):
...
chessatron.errors.ConfigError: 'socket://pi.local' needs a host and a port: socket://HOST:PORT, e.g. socket://pi.local:7000
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlsplit

from .errors import ConfigError
from .i18n import _
from .keys import unknown

#: The options each pyserial URL handler knows (pyserial 3.5's ``serial.urlhandler.protocol_*``).
OPTIONS: Mapping[str, frozenset[str]] = {
    "socket": frozenset({"logging"}),
    "rfc2217": frozenset({"logging", "ign_set_control", "poll_modem", "timeout"}),
    "loop": frozenset({"logging"}),
    "spy": frozenset({"file", "color", "raw", "all"}),
}
_LOG_LEVELS = ("debug", "info", "warning", "error")


def check_serial_url(url: str) -> None:
    """Raise :class:`ConfigError` for a pyserial URL its handler would refuse when the port opens."""
    if "://" not in url:
        return  # a device path: only opening it can tell
    try:
        parts = urlsplit(url)
        options = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError as exc:
        raise ConfigError(
            _("cannot read the serial URL {url!r}: {reason}").format(url=url, reason=exc)
        ) from exc
    scheme = parts.scheme.lower()
    known = OPTIONS.get(scheme)
    if known is None:
        return
    for key, value in options:
        if key not in known:
            raise ConfigError(f"{url!r}: {unknown('option', key, known, scheme=scheme)}")
        if key == "logging" and value not in _LOG_LEVELS:
            raise ConfigError(
                _("{url!r}: logging={value!r} is not one of {levels}").format(
                    url=url, value=value, levels=", ".join(_LOG_LEVELS)
                )
            )
        if key == "timeout":
            try:
                float(value)
            except ValueError:
                raise ConfigError(
                    _("{url!r}: timeout={value!r} is not a number of seconds").format(url=url, value=value)
                ) from None
    if scheme in ("socket", "rfc2217"):
        try:
            port = parts.port
        except ValueError:
            port = -1
        if not parts.hostname or port is None:
            raise ConfigError(
                _(
                    "{url!r} needs a host and a port: {scheme}://HOST:PORT, e.g. {scheme}://pi.local:7000"
                ).format(url=url, scheme=scheme)
            )
        if not 0 < port < 65536:
            raise ConfigError(
                _("{url!r} has no valid port number; use 1 to 65535 after the host's ':'").format(url=url)
            )
