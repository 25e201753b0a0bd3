"""The machine config: one TOML file naming every device by URL, with documented defaults (all
simulated), and the table layout it uses.

Found at ``--config FILE``, else ``$CHESSATRON_CONFIG``, else ``~/.config/chessatron/chessatron.toml``;
when none exists every device is the simulator. ``chessatron config check`` validates a file and names the
first problem plainly; ``chessatron config init`` writes the commented default.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .errors import ConfigError
from .layout import Layout
from .ports import DeviceUrl

#: The schemes each kind of device understands (a bare path such as /dev/ttyUSB0 is ``serial``).
SCHEMES: Mapping[str, frozenset[str]] = {
    # none: a board without a robot (the players move every piece; sensors confirm)
    "grbl": frozenset({"sim", "serial", "socket", "rfc2217", "loop", "spy", "hwgrep", "alt", "none"}),
    "magnet": frozenset({"grbl", "servo", "gpio", "sim"}),
    "sensors": frozenset({"sim", "mcp23017", "arduino", "bitboard", "none"}),
    "leds": frozenset({"sim", "ws281x", "none"}),
    "display": frozenset({"terminal", "lcd", "sim", "none"}),
    "buzzer": frozenset({"buzzer", "sim", "none"}),
}

DEFAULT_URLS: Mapping[str, str] = {
    "grbl": "sim://",
    "magnet": "grbl://",
    "sensors": "sim://",
    "leds": "sim://",
    "display": "terminal://",
    "buzzer": "sim://",
}


#: Where online games are played unless ``[lichess] url`` (or ``online --url``) names another server.
DEFAULT_LICHESS_URL = "https://lichess.org"


def _is_http_url(text: str) -> bool:
    """Whether ``text`` is an http(s) address with a host.

    >>> _is_http_url("https://lichess.org"), _is_http_url("http://127.0.0.1:9663/")
    (True, True)
    >>> _is_http_url("lichess.org")
    False
    """
    parsed = urlsplit(text)
    return parsed.scheme in ("http", "https") and bool(parsed.hostname)


def default_config_path() -> Path:
    explicit = os.environ.get("CHESSATRON_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "chessatron" / "chessatron.toml"


def default_config_text() -> str:
    """The commented default config shipped with the package."""
    return (resources.files("chessatron") / "data" / "chessatron.toml").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Config:
    """Validated machine config."""

    layout: Layout
    urls: Mapping[str, str]
    """Device URL by kind: grbl, magnet, sensors, leds, display, buzzer."""
    baudrate: int = 115200
    home: bool = False
    """Home the machine (``$H``) before each game."""
    muted: bool = False
    source: str = "the built-in defaults"
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Sections this module does not interpret (engine, game, web), for the modules that do."""
    lichess_url: str = DEFAULT_LICHESS_URL
    """The server online games are played on (``[lichess] url``): lichess.org, or any server that speaks
    the lichess API."""

    def device(self, kind: str) -> DeviceUrl:
        return DeviceUrl.parse(self.urls[kind])

    @property
    def is_simulated(self) -> bool:
        return self.device("grbl").scheme == "sim"

    @classmethod
    def default(cls) -> Config:
        return cls.from_dict({}, source="the built-in defaults")

    @classmethod
    def load(cls, path: Path | None = None) -> Config:
        """The config at ``path`` (or the default location); the defaults when no file exists there
        and no path was given explicitly."""
        explicit = path is not None or "CHESSATRON_CONFIG" in os.environ
        target = path or default_config_path()
        try:
            text = target.read_text(encoding="utf-8")
        except FileNotFoundError:
            if explicit:
                raise ConfigError(
                    f"no config file at {str(target)!r}; `chessatron config init` writes one"
                ) from None
            return cls.default()
        except OSError as exc:
            raise ConfigError(f"cannot read config {str(target)!r}: {exc.strerror or exc}") from exc
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config {str(target)!r} is not valid TOML: {exc}") from exc
        return cls.from_dict(data, source=repr(str(target)), base=target.parent)

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, source: str = "the config", base: Path | None = None
    ) -> Config:
        known = set(SCHEMES) | {"layout", "engine", "game", "web", "lichess"}
        for key in data:
            if key not in known:
                raise ConfigError(
                    f"{source}: unknown section or key {key!r}; expected one of {', '.join(sorted(known))}"
                )
        layout_value = data.get("layout")
        if layout_value is None:
            layout = Layout.default()
        elif isinstance(layout_value, str):
            layout_path = Path(layout_value)
            if base is not None and not layout_path.is_absolute():
                layout_path = base / layout_path
            layout = Layout.from_toml(layout_path)
        else:
            raise ConfigError(f"{source}: layout = {layout_value!r} must be the path of a layout TOML file")
        urls: dict[str, str] = {}
        for kind, schemes in SCHEMES.items():
            section = data.get(kind, {})
            if not isinstance(section, Mapping):
                raise ConfigError(f'{source}: [{kind}] must be a table with url = "…"')
            url = section.get("url", DEFAULT_URLS[kind])
            if not isinstance(url, str):
                raise ConfigError(f"{source}: [{kind}] url = {url!r} must be a string")
            parsed = DeviceUrl.parse(url)
            if parsed.scheme not in schemes:
                raise ConfigError(
                    f"{source}: [{kind}] url = {url!r} has the unknown scheme {parsed.scheme!r}; "
                    f"use one of {', '.join(sorted(s + '://' for s in schemes))}"
                )
            urls[kind] = url
        grbl = data.get("grbl", {})
        baudrate = grbl.get("baudrate", 115200)
        if not isinstance(baudrate, int) or isinstance(baudrate, bool) or baudrate <= 0:
            raise ConfigError(f"{source}: [grbl] baudrate = {baudrate!r} must be a positive whole number")
        home = grbl.get("home", False)
        muted = data.get("buzzer", {}).get("muted", False)
        for name, value in (("[grbl] home", home), ("[buzzer] muted", muted)):
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: {name} = {value!r} must be true or false")
        magnet = DeviceUrl.parse(urls["magnet"]).scheme
        method = layout.magnet.method
        if method == "servo" and magnet == "grbl":
            raise ConfigError(
                f"{source}: the layout's magnet method is 'servo' (switched by the host) but [magnet] url is "
                f"{urls['magnet']!r}; set it to servo://PIN (or sim:// on the simulator)"
            )
        if method != "servo" and magnet in ("servo", "gpio"):
            raise ConfigError(
                f"{source}: the layout switches the magnet in the G-code ({method!r}) but [magnet] url is "
                f'{urls["magnet"]!r}; set method = "servo" in the layout\'s [magnet] or use url = "grbl://"'
            )
        extra = {k: data[k] for k in ("engine", "game", "web") if k in data}
        lichess = data.get("lichess", {})
        if not isinstance(lichess, Mapping):
            raise ConfigError(f'{source}: [lichess] must be a table with url = "https://…"')
        lichess_url = lichess.get("url", DEFAULT_LICHESS_URL)
        if not isinstance(lichess_url, str) or not _is_http_url(lichess_url):
            raise ConfigError(
                f"{source}: [lichess] url = {lichess_url!r} must be an http:// or https:// address, "
                f"e.g. {DEFAULT_LICHESS_URL!r}"
            )
        return cls(layout, urls, baudrate, home, muted, source, extra, lichess_url.rstrip("/"))

    def summary(self) -> list[str]:
        lines = [f"layout: {self.layout!r}"]
        lines += [f"{kind}: {url}" for kind, url in self.urls.items()]
        lines.append(f"lichess: {self.lichess_url}")
        return lines
