"""What every output device shares: context management, an idempotent ``close()``, and the friendly
message when a backend's vendor library is missing.

The host magnet (:mod:`chessatron.gantry.magnet`) uses these too: it is an output device like the others.
"""

from __future__ import annotations

from collections.abc import Collection
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from ..device import Device
from ..errors import ConfigError, MissingLibraryError
from ..i18n import _
from ..ports import DeviceUrl

#: What to install when a vendor library is missing: the ``pi`` extra of pyproject.toml.
PI_EXTRA = "pip install 'chessatron[pi]'"


@runtime_checkable
class Closing(Protocol):
    """What every device an ``open_*`` function returns offers besides its port: ``with``, and whether
    it is closed. The ports (:mod:`chessatron.ports`) only promise ``close()``."""

    @property
    def closed(self) -> bool: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class OutputDevice(Device):
    """An output device (LEDs, display, buzzer, magnet): a :class:`~chessatron.device.Device` whose use
    after :meth:`close` raises :class:`~chessatron.errors.DeviceClosedError`."""


def missing_library(library: str, url: str) -> MissingLibraryError:
    """The error for a backend whose vendor library is not installed; raise it ``from`` the ImportError.

    >>> print(missing_library("gpiozero", "buzzer://12"))  # doctest: +NORMALIZE_WHITESPACE
    the device 'buzzer://12' needs the 'gpiozero' library, which is not installed;
    run pip install 'chessatron[pi]'
    """
    return MissingLibraryError(
        _("the device {url!r} needs the {library!r} library, which is not installed; run {command}").format(
            url=url, library=library, command=PI_EXTRA
        )
    )


def check_options(url: DeviceUrl, known: Collection[str]) -> None:
    """Raise :class:`ConfigError` for an option the backend does not know (most often a typo)."""
    url.check_options(known)


def pin_number(url: DeviceUrl, example: str) -> int:
    """The GPIO number a ``scheme://PIN`` URL names (BCM numbering)."""
    text = url.target.strip("/")
    if not text.isdigit():
        raise ConfigError(
            _("a {scheme}:// URL needs a GPIO (BCM) pin number, as in {example}; got {text!r}").format(
                scheme=url.scheme, example=example, text=text
            )
        )
    return int(text)
