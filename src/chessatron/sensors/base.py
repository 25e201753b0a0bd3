"""What every sensor backend shares: a name for messages, ``with``, an idempotent ``close()`` and a
:class:`~chessatron.errors.SensorError` when a closed sensor is used."""

from __future__ import annotations

from ..device import Device
from ..errors import ChessatronError, SensorError
from ..i18n import _


class SensorBase(Device):
    """A sensor backend: ``name`` says which in messages; scans after :meth:`close` raise
    :class:`SensorError`."""

    name: str = "the sensor"

    def _closed_error(self) -> ChessatronError:
        return SensorError(
            _("the sensor on {name} is closed; open a new one with open_sensor()").format(name=self.name)
        )
