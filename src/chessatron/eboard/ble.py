"""The Bluetooth LE transport: the table served as one protocol's real boards (a GATT server through BlueZ).

The only module that imports the Bluetooth library, dbus-fast (``pip install 'chessatron[pi]'``): BlueZ
serves GATT applications and advertisements that a program exports on the D-Bus system bus, and dbus-fast
exports them (typed, maintained, Home Assistant's D-Bus stack). It is thin: it owns the adapter's name
while it serves, the services and characteristics of a :class:`~.ble_profiles.BleProfile`, the
advertisements, and moves bytes — what the app writes goes to the protocol's
:meth:`~.core.EboardProtocol.received` (under the table's lock) with the characteristic's channel, and
what the protocol sends is notified on its channel's characteristic, split as the link and the real
boards allow (:class:`.ble_link.GattLink`, free of D-Bus, holds that logic).

Use::

    check_ble()                                  # one line saying what to install or enable, else the adapter
    server = BleServer(profile, lock, names=("MILLENNIUM CHESS",))
    protocol = Millennium(table, server.send, view)
    server.serve(protocol, stop)                 # blocks until stop is set; advertising stopped after
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Sequence
from typing import Annotated, Any

from ..errors import HardwareError
from ..i18n import _
from .ble_link import GattLink
from .ble_profiles import BleProfile, Characteristic
from .core import EboardProtocol

try:  # the pi extra; check_ble() says what to install when it is missing
    from dbus_fast import BusType, DBusError, Message, MessageType, Variant
    from dbus_fast.aio import MessageBus
    from dbus_fast.annotations import DBusSignature
    from dbus_fast.constants import PropertyAccess
    from dbus_fast.service import ServiceInterface, dbus_method, dbus_property
except ImportError:  # pragma: no cover - the message is check_ble's
    HAVE_DBUS = False
else:
    HAVE_DBUS = True

LOGGER = logging.getLogger(__name__)

PI_EXTRA = "pip install 'chessatron[pi]'"
ENABLE = "sudo apt install bluez && sudo systemctl enable --now bluetooth"
BLUEZ = "org.bluez"
#: How long BlueZ may take to answer a call before the transport gives up on it, in seconds.
CALL_TIMEOUT = 10.0
#: Where our GATT application lives on the bus (dbus-fast's ObjectManager lists what is under it to BlueZ).
ROOT = "/org/chessatron/eboard"
#: Where the advertisements live (outside the application: BlueZ reads them apart).
ADVERTISEMENTS = "/org/chessatron/advertisement"

SERVICE1 = "org.bluez.GattService1"
CHARACTERISTIC1 = "org.bluez.GattCharacteristic1"
ADVERTISEMENT1 = "org.bluez.LEAdvertisement1"


class BleUnavailableError(HardwareError):
    """This machine cannot serve Bluetooth LE: the message says what to install or enable."""


# -- the D-Bus objects BlueZ reads ------------------------------------------------------------------------

if HAVE_DBUS:
    #: A D-Bus method that answers nothing (dbus-fast reads a plain ``None`` as no signature at all)
    Nothing = Annotated[None, DBusSignature("")]
    Bytes = Annotated[bytes, DBusSignature("ay")]
    Options = Annotated[dict[str, Variant], DBusSignature("a{sv}")]
    Strings = Annotated[list[str], DBusSignature("as")]
    Str = Annotated[str, DBusSignature("s")]
    Path = Annotated[str, DBusSignature("o")]
    Bool = Annotated[bool, DBusSignature("b")]
    Paths = Annotated[list[str], DBusSignature("ao")]
    Manufacturer = Annotated[dict[int, Variant], DBusSignature("a{qv}")]

    class _Service(ServiceInterface):
        """One primary service (dbus-fast's own ObjectManager lists it to BlueZ with its properties)."""

        def __init__(self, uuid: str, characteristics: list[str]) -> None:
            super().__init__(SERVICE1)
            self.uuid = uuid
            self.characteristics = characteristics

        @dbus_property(access=PropertyAccess.READ)
        def UUID(self) -> Str:  # D-Bus names
            return self.uuid

        @dbus_property(access=PropertyAccess.READ)
        def Primary(self) -> Bool:
            return True

        @dbus_property(access=PropertyAccess.READ)
        def Characteristics(self) -> Paths:
            return self.characteristics

    class _Characteristic(ServiceInterface):
        """One characteristic: writes go to the link, notifications are PropertiesChanged on ``Value``."""

        def __init__(self, spec: Characteristic, service_path: str, link: GattLink) -> None:
            super().__init__(CHARACTERISTIC1)
            self.spec = spec
            self.service_path = service_path
            self.link = link
            self.value = spec.value

        @dbus_property(access=PropertyAccess.READ)
        def UUID(self) -> Str:
            return self.spec.uuid

        @dbus_property(access=PropertyAccess.READ)
        def Service(self) -> Path:
            return self.service_path

        @dbus_property(access=PropertyAccess.READ)
        def Flags(self) -> Strings:
            return list(self.spec.flags)

        @dbus_property(access=PropertyAccess.READ)
        def Value(self) -> Bytes:
            return self.value

        @dbus_method()
        def ReadValue(self, options: Options) -> Bytes:
            offset = options["offset"].value if "offset" in options else 0
            return self.value[int(offset) :]

        @dbus_method()
        def WriteValue(self, value: Bytes, options: Options) -> Nothing:
            mtu = options["mtu"].value if "mtu" in options else None
            self.link.written(self.spec, bytes(value), int(mtu) if mtu else None)

        @dbus_method()
        def StartNotify(self) -> Nothing:
            LOGGER.info("an app listens on %s", self.spec.uuid)

        @dbus_method()
        def StopNotify(self) -> Nothing:
            LOGGER.info("an app stopped listening on %s", self.spec.uuid)

        def notify(self, chunk: bytes) -> None:
            self.value = chunk
            self.emit_properties_changed({"Value": chunk})

    class _Advertisement(ServiceInterface):
        """One LE advertisement: a connectable peripheral with the boards' name, services and maker data."""

        def __init__(self, name: str, profile: BleProfile) -> None:
            super().__init__(ADVERTISEMENT1)
            self.local_name = name  # (``name`` is the interface's, to dbus-fast)
            self.profile = profile

        @dbus_property(access=PropertyAccess.READ)
        def Type(self) -> Str:
            return "peripheral"

        @dbus_property(access=PropertyAccess.READ)
        def LocalName(self) -> Str:
            return self.local_name

        @dbus_property(access=PropertyAccess.READ)
        def ServiceUUIDs(self) -> Strings:
            return list(self.profile.advertised)

        @dbus_property(access=PropertyAccess.READ)
        def ManufacturerData(self) -> Manufacturer:
            return {company: Variant("ay", data) for company, data in self.profile.manufacturer_data.items()}

        @dbus_property(access=PropertyAccess.READ)
        def Discoverable(self) -> Bool:
            return True  # general discoverable, whatever the adapter's own setting (phones list it)

        @dbus_method()
        def Release(self) -> Nothing:
            LOGGER.info("BlueZ released the advertisement %r", self.local_name)


# -- BlueZ --------------------------------------------------------------------------------------------------


def system_bus_address() -> str:
    """The D-Bus system bus's address (``DBUS_SYSTEM_BUS_ADDRESS``, else the usual socket)."""
    return os.environ.get("DBUS_SYSTEM_BUS_ADDRESS") or "unix:path=/run/dbus/system_bus_socket"


async def _call(
    bus: MessageBus, path: str, interface: str, member: str, signature: str = "", *body: Any
) -> Any:
    """Call BlueZ; its answer's body (a list), or :class:`DBusError` as it answered."""
    message = Message(
        destination=BLUEZ, path=path, interface=interface, member=member, signature=signature, body=list(body)
    )
    reply = await asyncio.wait_for(bus.call(message), CALL_TIMEOUT)
    if reply.message_type == MessageType.ERROR:
        raise DBusError(
            reply.error_name or "org.bluez.Error.Failed", str(reply.body[0] if reply.body else "")
        )
    return reply.body


async def _connect(address: str) -> MessageBus:
    if address.startswith("unix:path="):
        socket = address.removeprefix("unix:path=").split(",", 1)[0]
        if not os.path.exists(socket):
            raise BleUnavailableError(
                _("no D-Bus system bus at {socket!r}: {command}").format(socket=socket, command=ENABLE)
            )
    try:
        return await asyncio.wait_for(MessageBus(bus_address=address, bus_type=BusType.SYSTEM).connect(), 5.0)
    except (OSError, TimeoutError, DBusError) as exc:
        raise BleUnavailableError(
            _("cannot reach the D-Bus system bus at {address!r} ({reason}): {command}").format(
                address=address, reason=exc, command=ENABLE
            )
        ) from exc


async def _find_adapter(bus: MessageBus, adapter: str | None) -> str:
    """The object path of the adapter to serve on (``adapter``: its name such as ``hci0``, else the first)."""
    owned = await bus.call(
        Message(
            destination="org.freedesktop.DBus",
            path="/org/freedesktop/DBus",
            interface="org.freedesktop.DBus",
            member="NameHasOwner",
            signature="s",
            body=[BLUEZ],
        )
    )
    if owned.message_type == MessageType.ERROR or not owned.body[0]:
        raise BleUnavailableError(
            _("BlueZ is not running (no {name!r} on the system bus): {command}").format(
                name=BLUEZ, command=ENABLE
            )
        )
    try:
        (objects,) = await _call(bus, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
    except (DBusError, TimeoutError) as exc:  # a policy that keeps this user out, a BlueZ that hangs
        text = exc.text if isinstance(exc, DBusError) else _("no answer")
        raise BleUnavailableError(
            _(
                "BlueZ did not list its adapters ({reason}): run as a member of the bluetooth group (sudo "
                "usermod -aG bluetooth $USER, then log in again)"
            ).format(reason=text)
        ) from exc
    found: list[str] = sorted(
        str(path)
        for path, interfaces in objects.items()
        if {"org.bluez.Adapter1", "org.bluez.GattManager1", "org.bluez.LEAdvertisingManager1"}
        <= set(interfaces)
    )
    if adapter is not None:
        wanted = [path for path in found if path.rsplit("/", 1)[-1] == adapter]
        if not wanted:
            names = ", ".join(path.rsplit("/", 1)[-1] for path in found)
            if not names:
                raise BleUnavailableError(
                    _("no Bluetooth adapter {name!r} (no adapters)").format(name=adapter)
                )
            raise BleUnavailableError(
                _("no Bluetooth adapter {name!r} (adapters: {names})").format(name=adapter, names=names)
            )
        return wanted[0]
    if not found:
        raise BleUnavailableError(
            _(
                "no Bluetooth adapter found: plug one in, or unblock it with `sudo rfkill unblock "
                "bluetooth`, and check `bluetoothctl list`"
            )
        )
    return found[0]


def check_ble(adapter: str | None = None) -> str:
    """Whether this machine can serve Bluetooth LE: the adapter's object path (``/org/bluez/hci0``).

    Raises :class:`BleUnavailableError` with one line saying what to install or enable: the library
    missing, no D-Bus system bus, BlueZ not running, no adapter.
    """
    if not HAVE_DBUS:
        raise BleUnavailableError(
            _("Bluetooth LE needs the dbus-fast library: {command}").format(command=PI_EXTRA)
        )

    async def check() -> str:
        bus = await _connect(system_bus_address())
        try:
            return await _find_adapter(bus, adapter)
        finally:
            bus.disconnect()

    return asyncio.run(check())


class BleServer:
    """Serves one protocol's boards over Bluetooth LE until stopped.

    ``lock`` is the table's: every write reaches the protocol under it. ``names`` overrides the names
    advertised (the config's); ``adapter`` picks one (``hci1``), else the first.
    """

    def __init__(
        self,
        profile: BleProfile,
        lock: threading.Lock | threading.RLock,
        *,
        names: Sequence[str] = (),
        adapter: str | None = None,
    ) -> None:
        self.profile = profile.with_names(tuple(names))
        self.adapter = adapter
        self.link = GattLink(self.profile, lock, self._notify)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._characteristics: dict[str, _Characteristic] = {}

    def send(self, data: bytes, channel: str = "") -> None:
        """The protocol's ``send``, callable from any thread (dropped unless serving)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            LOGGER.debug("not serving: dropped %r on %r", data, channel)
            return
        with contextlib.suppress(RuntimeError):  # the loop closed between the check and the call
            loop.call_soon_threadsafe(self.link.send, bytes(data), channel)

    def _notify(self, characteristic: Characteristic, chunk: bytes) -> None:
        self._characteristics[characteristic.uuid].notify(chunk)

    def serve(self, protocol: EboardProtocol, stop: threading.Event) -> None:
        """Serve ``protocol`` until ``stop`` is set, then stop advertising and release the adapter.

        Raises :class:`BleUnavailableError` where the machine cannot serve (see :func:`check_ble`) or BlueZ
        refuses the services or the first advertisement.
        """
        if not HAVE_DBUS:
            raise BleUnavailableError(
                _("Bluetooth LE needs the dbus-fast library: {command}").format(command=PI_EXTRA)
            )
        self.link.protocol = protocol
        asyncio.run(self._serve(stop))

    async def _serve(self, stop: threading.Event) -> None:
        bus = await _connect(system_bus_address())
        advertisements: list[str] = []
        registered = False
        alias: str | None = None
        adapter = ""
        self._loop = asyncio.get_running_loop()
        try:
            adapter = await _find_adapter(bus, self.adapter)
            self._export(bus)
            alias = await self._claim(bus, adapter)
            try:
                await _call(bus, adapter, "org.bluez.GattManager1", "RegisterApplication", "oa{sv}", ROOT, {})
            except DBusError as exc:
                raise BleUnavailableError(
                    _("BlueZ refused the {protocol} services: {reason}").format(
                        protocol=self.profile.protocol, reason=exc.text
                    )
                ) from exc
            registered = True
            advertisements = await self._advertise(bus, adapter)
            LOGGER.info(
                "serving %s over Bluetooth LE as %s", self.profile.protocol, ", ".join(self.profile.names)
            )
            while not stop.is_set():
                await asyncio.sleep(0.1)
        finally:
            self._loop = None
            await self._release(bus, adapter, advertisements, registered, alias)

    def _export(self, bus: MessageBus) -> None:
        """Our services and characteristics under :data:`ROOT`, where BlueZ reads them (GetManagedObjects)."""
        for index, service in enumerate(self.profile.services):
            service_path = f"{ROOT}/service{index}"
            paths = []
            for number, spec in enumerate(service.characteristics):
                path = f"{service_path}/char{number}"
                characteristic = _Characteristic(spec, service_path, self.link)
                bus.export(path, characteristic)
                self._characteristics[spec.uuid] = characteristic
                paths.append(path)
            bus.export(service_path, _Service(service.uuid, paths))

    async def _claim(self, bus: MessageBus, adapter: str) -> str | None:
        """Power the adapter on and give it the first name (what a phone lists); the old name, to restore."""
        properties = "org.freedesktop.DBus.Properties"
        try:
            (powered,) = await _call(bus, adapter, properties, "Get", "ss", "org.bluez.Adapter1", "Powered")
            if not powered.value:
                LOGGER.info("powering the Bluetooth adapter on")
                await _call(
                    bus,
                    adapter,
                    properties,
                    "Set",
                    "ssv",
                    "org.bluez.Adapter1",
                    "Powered",
                    Variant("b", True),
                )
            (alias,) = await _call(bus, adapter, properties, "Get", "ss", "org.bluez.Adapter1", "Alias")
            name = Variant("s", self.profile.names[0])
            await _call(bus, adapter, properties, "Set", "ssv", "org.bluez.Adapter1", "Alias", name)
        except DBusError as exc:  # not fatal: the advertisement carries the name apps scan for
            LOGGER.warning("could not set up the adapter %s: %s", adapter, exc.text)
            return None
        return str(alias.value)

    async def _advertise(self, bus: MessageBus, adapter: str) -> list[str]:
        """One advertisement a name, as many as the adapter holds (the first must be taken)."""
        registered = []
        for index, name in enumerate(self.profile.names):
            path = f"{ADVERTISEMENTS}{index}"
            bus.export(path, _Advertisement(name, self.profile))
            try:
                await _call(
                    bus,
                    adapter,
                    "org.bluez.LEAdvertisingManager1",
                    "RegisterAdvertisement",
                    "oa{sv}",
                    path,
                    {},
                )
            except DBusError as exc:
                if index == 0:
                    raise BleUnavailableError(
                        _("BlueZ refused to advertise {name!r}: {reason}").format(name=name, reason=exc.text)
                    ) from exc
                LOGGER.warning("not advertising %r too: %s", name, exc.text)
                continue
            registered.append(path)
        return registered

    async def _release(
        self, bus: MessageBus, adapter: str, advertisements: list[str], registered: bool, alias: str | None
    ) -> None:
        """Stop advertising, take the services down, give the adapter its name back, leave the bus."""
        calls: list[tuple[str, str, str, list[Any]]] = [
            ("org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", "o", [path])
            for path in advertisements
        ]
        if registered:
            calls.append(("org.bluez.GattManager1", "UnregisterApplication", "o", [ROOT]))
        if alias is not None:
            calls.append(
                (
                    "org.freedesktop.DBus.Properties",
                    "Set",
                    "ssv",
                    ["org.bluez.Adapter1", "Alias", Variant("s", alias)],
                )
            )
        for interface, member, signature, body in calls:
            try:
                await _call(bus, adapter, interface, member, signature, *body)
            except (DBusError, TimeoutError, OSError) as exc:  # BlueZ went away first: nothing left to undo
                LOGGER.warning("%s on %s: %s", member, adapter, exc)
        bus.disconnect()
        self._characteristics.clear()


def serve_ble(
    protocol: EboardProtocol,
    profile: BleProfile,
    lock: threading.Lock | threading.RLock,
    stop: threading.Event,
    *,
    names: Sequence[str] = (),
    adapter: str | None = None,
) -> None:
    """Serve ``protocol`` as ``profile``'s boards until ``stop`` is set (``protocol.send`` pointed here)."""
    server = BleServer(profile, lock, names=names, adapter=adapter)
    protocol.send = server.send
    server.serve(protocol, stop)
