"""What every device shares, inputs and outputs alike: an idempotent ``close()`` and ``with``.

A constructor that fails half-way calls :meth:`Device.close` itself, so a subclass's :meth:`Device._close`
must cope with a half-built device. Never rely on ``__del__``.

>>> class Lamp(Device):
...     def _close(self) -> None:
...         print("off")
>>> with Lamp() as lamp:
...     pass
off
>>> lamp.close()  # a second close does nothing
>>> lamp.closed
True
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

from .errors import ChessatronError, DeviceClosedError
from .i18n import _


class Device:
    """A device with an idempotent :meth:`close`, usable as a context manager.

    Subclasses put their teardown in :meth:`_close`, which runs at most once, and call
    :meth:`_check_open` before touching the hardware; :meth:`_closed_error` is what that raises.
    """

    _closed: bool = False

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release the device (idempotent: a second call does nothing)."""
        if self._closed:
            return
        self._closed = True
        self._close()

    def _close(self) -> None:
        """Teardown; runs once."""

    def _closed_error(self) -> ChessatronError:
        return DeviceClosedError(
            _("{device!r} is closed; open the device again to use it").format(device=self)
        )

    def _check_open(self) -> None:
        if self._closed:
            raise self._closed_error()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
