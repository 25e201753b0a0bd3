"""The bytes path of the Bluetooth LE transport, free of D-Bus: what an app writes to a characteristic goes
to the protocol under the table's lock with the characteristic's channel, and what the protocol sends on a
channel is notified on that channel's characteristic, in chunks the link and the real boards allow.
:mod:`.ble` serves it through BlueZ.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable

from .ble_profiles import BleProfile, Characteristic
from .core import EboardProtocol

LOGGER = logging.getLogger(__name__)

#: The ATT MTU every link starts with (23 bytes: 20 of them a notification's payload).
DEFAULT_MTU = 23
#: The bytes of an ATT notification that are not payload (opcode, handle).
ATT_HEADER = 3


class GattLink:
    """Moves bytes between one protocol and a profile's characteristics, whatever serves them.

    ``notify(characteristic, chunk)`` sends one notification (the server's job); :meth:`written` is what an
    app wrote. The link's MTU is learnt from the writes (BlueZ passes it with each), so a message is split
    into notifications no longer than the link carries, nor than the real boards send (``profile.chunk``).
    """

    def __init__(
        self,
        profile: BleProfile,
        lock: threading.Lock | threading.RLock,
        notify: Callable[[Characteristic, bytes], None],
    ) -> None:
        self.profile = profile
        self.lock = lock
        self.notify = notify
        self.protocol: EboardProtocol | None = None
        self.mtu = DEFAULT_MTU
        self._notifiers = profile.channels("notify")

    def written(self, characteristic: Characteristic, data: bytes, mtu: int | None = None) -> None:
        """The app wrote ``data`` to ``characteristic`` (over a link of ``mtu`` bytes, where known)."""
        if mtu:
            self.mtu = mtu
        if characteristic.role != "write":
            LOGGER.debug("ignored a write of %d bytes to %s", len(data), characteristic.uuid)
            return
        protocol = self.protocol
        if protocol is None:
            LOGGER.debug("no protocol yet: dropped %r", bytes(data))
            return
        with self.lock:
            try:
                protocol.received(bytes(data), characteristic.channel)
            except Exception:  # a protocol must not raise; if one does, the link stays up for the next write
                LOGGER.exception("the %s protocol failed on %r", self.profile.protocol, bytes(data))

    def chunk_size(self) -> int:
        """The most bytes one notification carries now."""
        limit = self.profile.chunk or math.inf
        return int(min(limit, max(1, self.mtu - ATT_HEADER)))

    def send(self, data: bytes, channel: str = "") -> None:
        """Notify ``data`` on ``channel``'s characteristic, in as many notifications as it takes."""
        characteristic = self._notifiers.get(channel)
        if characteristic is None:
            LOGGER.warning(
                "the %s profile has no channel %r: dropped %r", self.profile.protocol, channel, data
            )
            return
        size = self.chunk_size()
        if self.profile.chunk is None and len(data) > size:
            # a protocol of whole messages: the app reads each notification as one, and BlueZ would cut it
            LOGGER.warning(
                "a %d-byte message split for a %d-byte link: the app may not read it", len(data), self.mtu
            )
        for start in range(0, len(data), size):
            self.notify(characteristic, bytes(data[start : start + size]))
