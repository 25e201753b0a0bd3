"""What the real boards of each protocol look like over Bluetooth LE: the names apps scan for, the GATT
services and characteristics they find, and which characteristic carries which of the protocol's channels.

Pure data (no Bluetooth library): :mod:`.ble` serves a profile through BlueZ. A characteristic's ``role``
says what the transport does with it: ``"write"`` — what the app writes there reaches
:meth:`~chessatron.eboard.core.EboardProtocol.received` with the characteristic's channel; ``"notify"`` —
what the protocol sends on that channel is notified there. Characteristics without a role are served as the
real boards have them (apps may look for them) and carry nothing.

Sources (read to learn, nothing copied):

* Millennium ChessLink: the board's Microchip BM70/71 "transparent UART" service; python-mchess
  ``mchess/chess_link_bluepy.py`` (scans for the local name ``MILLENNIUM CHESS``, writes 8841, enables
  notifications on 1e4d); the further characteristics and their flags as Universal-Chess
  (``universalchess`` BLE manager, adrian-dybwad/Universal-Chess) serves them to the same apps.
* Chessnut Air: chessnutech/Chessnut_eBoards and chessnutech/chess_move_api (the 1b7e8261 service family:
  8262 board notifications, 8272 commands, 8273 command replies), ChessnutPy's names
  (``Chessnut Air``, ``Smart Chess``); the manufacturer data a real Air advertises as Universal-Chess
  records it.
* Chess Peripheral Protocol: vovagorodok/chess_peripheral_protocol ("Bluetooth LE"), blichess
  ``src/externalDevice/bluetooth.ts`` (the app writes f53513ca, listens on f535147e, finds the board by
  the service UUID) and ArduinoBleChess (the peripheral: f53513ca write, f535147e read + notify). The name
  is the maker's choice: apps filter on the service.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..errors import ConfigError
from ..i18n import _

#: BlueZ's names of the GATT characteristic properties used here (org.bluez.GattCharacteristic1 ``Flags``).
Flag = Literal["read", "write", "write-without-response", "notify", "indicate"]
Role = Literal["write", "notify"]


@dataclass(frozen=True)
class Characteristic:
    """One GATT characteristic: its UUID, its properties, and the protocol channel it carries."""

    uuid: str
    flags: tuple[Flag, ...]
    #: ``"write"``: the app's writes reach the protocol on ``channel``; ``"notify"``: the protocol's sends on
    #: ``channel`` are notified here; None: served as the real boards have it, carrying nothing.
    role: Role | None = None
    channel: str = ""
    #: The fixed value a read returns (a characteristic with a role reads as the last value it carried).
    value: bytes = b""


@dataclass(frozen=True)
class Service:
    """One primary GATT service and its characteristics."""

    uuid: str
    characteristics: tuple[Characteristic, ...]


@dataclass(frozen=True)
class BleProfile:
    """How one protocol's real boards appear over Bluetooth LE."""

    #: The protocol's name (as in :data:`chessatron.eboard.registry.PROTOCOLS`).
    protocol: str
    #: The local names advertised, the first the adapter's own (what a phone lists); apps look for these.
    names: tuple[str, ...]
    services: tuple[Service, ...]
    #: The service UUIDs put in the advertisement (apps that filter a scan by service find them).
    advertised: tuple[str, ...]
    #: The most bytes one notification carries, as the real boards send them (None: a whole message per
    #: notification, up to what the link's MTU allows).
    chunk: int | None = None
    #: Manufacturer data advertised (company id -> bytes), as the real boards advertise it.
    manufacturer_data: Mapping[int, bytes] = field(default_factory=dict)

    def characteristics(self) -> tuple[Characteristic, ...]:
        """Every characteristic of every service, in order."""
        return tuple(c for service in self.services for c in service.characteristics)

    def channels(self, role: Role) -> dict[str, Characteristic]:
        """Channel -> its characteristic in ``role`` (where the app writes, where it hears)."""
        return {c.channel: c for c in self.characteristics() if c.role == role}

    def with_names(self, names: tuple[str, ...]) -> BleProfile:
        """This profile advertised under ``names`` instead (the config's); empty keeps the boards'."""
        if not names:
            return self
        return BleProfile(
            self.protocol, names, self.services, self.advertised, self.chunk, self.manufacturer_data
        )


def _isssc(short: str) -> str:
    """A UUID of Microchip's (ISSC) transparent UART family, ``49535343-...``."""
    return f"49535343-{short}"


def _chessnut(number: int) -> str:
    """A UUID of Chessnut's ``1b7e82NN`` family."""
    return f"1b7e82{number:02x}-2877-41c3-b46e-cf057c562023"


MILLENNIUM = BleProfile(
    protocol="millennium",
    names=("MILLENNIUM CHESS",),
    services=(
        Service(
            _isssc("fe7d-4ae5-8fa9-9fafd205e455"),
            (
                # the module's connection parameters, read-only on the real board
                Characteristic(
                    _isssc("6daa-4d02-abf6-19569aca69fe"),
                    ("read",),
                    value=bytes.fromhex("00240024000000f401"),
                ),
                Characteristic(_isssc("aca3-481c-91ec-d85e28a60318"), ("write", "notify")),
                # TX of the board: what the board says, notified (python-mchess subscribes here)
                Characteristic(
                    _isssc("1e4d-4bd9-ba61-23c647249616"),
                    ("read", "write", "write-without-response", "notify"),
                    role="notify",
                ),
                # RX of the board: what the app writes (python-mchess writes here)
                Characteristic(
                    _isssc("8841-43f4-a8d4-ecbe34729bb3"), ("write", "write-without-response"), role="write"
                ),
                Characteristic(_isssc("026e-3a9b-954c-97daef17e26e"), ("write", "notify")),
            ),
        ),
    ),
    advertised=(_isssc("fe7d-4ae5-8fa9-9fafd205e455"),),
    # a serial line over the air: the module sends what the board's UART gave it in 20-byte notifications
    # (the ATT default), and ChessLink apps reassemble the stream
    chunk=20,
)

CHESSNUT = BleProfile(
    protocol="chessnut",
    names=("Chessnut Air",),
    services=(
        Service(
            _chessnut(0x61), (Characteristic(_chessnut(0x62), ("notify",), role="notify", channel="board"),)
        ),
        Service(
            _chessnut(0x71),
            (
                Characteristic(
                    _chessnut(0x72), ("write", "write-without-response"), role="write", channel="write"
                ),
                Characteristic(_chessnut(0x73), ("notify",), role="notify", channel="misc"),
            ),
        ),
        # present on the real boards; web apps ask for it among their optional services
        Service(
            _chessnut(0x81),
            (
                Characteristic(_chessnut(0x82), ("write", "write-without-response")),
                Characteristic(_chessnut(0x83), ("notify",)),
            ),
        ),
    ),
    advertised=(_chessnut(0x61),),
    manufacturer_data={0x4450: bytes.fromhex("4353b953056400003e9751101b00")},
)

CPP = BleProfile(
    protocol="cpp",
    names=("chessatron",),
    services=(
        Service(
            "f5351050-b2c9-11ec-a0c0-b3bc53b08d33",
            (
                # the spec's "tx" and "rx" are the app's: the app transmits on f53513ca, receives on f535147e
                Characteristic("f53513ca-b2c9-11ec-a0c1-639b8957db99", ("write",), role="write"),
                Characteristic("f535147e-b2c9-11ec-a0c2-8bbd706ec4e6", ("read", "notify"), role="notify"),
            ),
        ),
    ),
    advertised=("f5351050-b2c9-11ec-a0c0-b3bc53b08d33",),
)

#: Protocol name -> its boards' profile (the protocols served over Bluetooth LE).
PROFILES: dict[str, BleProfile] = {p.protocol: p for p in (MILLENNIUM, CHESSNUT, CPP)}


def is_uuid(text: str) -> bool:
    """Whether ``text`` is a UUID in the lower-case 8-4-4-4-12 form BlueZ uses."""
    try:
        return str(uuid.UUID(text)) == text
    except ValueError:
        return False


def profile(protocol: str) -> BleProfile:
    """The profile of ``protocol``'s boards. Raises :class:`~chessatron.errors.ConfigError` naming those."""
    found = PROFILES.get(protocol.strip().lower())
    if found is None:
        choices = ", ".join(PROFILES)
        raise ConfigError(
            _("{protocol!r} is not served over Bluetooth LE: choose one of {choices}, or --port").format(
                protocol=protocol, choices=choices
            )
        )
    return found
