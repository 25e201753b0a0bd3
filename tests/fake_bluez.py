"""BlueZ as a GATT server program meets it, on a private D-Bus daemon: adapters that take a GATT
application and advertisements, read them as BlueZ does, and let a test play the app (write a
characteristic, hear its notifications). No Bluetooth anywhere: the program under test talks real D-Bus
to a fake ``org.bluez``.
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

from dbus_fast import DBusError, Message, MessageType, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.annotations import DBusSignature
from dbus_fast.service import ServiceInterface, dbus_method, dbus_property

T = TypeVar("T")
Nothing = Annotated[None, DBusSignature("")]
Path_ = Annotated[str, DBusSignature("o")]
Options = Annotated[dict[str, Variant], DBusSignature("a{sv}")]
Str = Annotated[str, DBusSignature("s")]
Bool = Annotated[bool, DBusSignature("b")]
ManagedObjects = Annotated[dict[str, dict[str, dict[str, Variant]]], DBusSignature("a{oa{sa{sv}}}")]


@contextmanager
def dbus_daemon(folder: Path) -> Iterator[str]:
    """A private D-Bus daemon (session policy: anyone may own any name); yields its address."""
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1", f"--address=unix:dir={folder}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert daemon.stdout is not None
        yield daemon.stdout.readline().strip()
    finally:
        daemon.terminate()
        daemon.wait(timeout=5)
        if daemon.stdout is not None:
            daemon.stdout.close()


class _ObjectManager(ServiceInterface):
    def __init__(self, bluez: FakeBluez) -> None:
        super().__init__("org.freedesktop.DBus.ObjectManager")
        self.bluez = bluez

    @dbus_method()
    def GetManagedObjects(self) -> ManagedObjects:
        interfaces = ("org.bluez.Adapter1", "org.bluez.GattManager1", "org.bluez.LEAdvertisingManager1")
        return {f"/org/bluez/{name}": {i: {} for i in interfaces} for name in self.bluez.adapters}


class _Adapter(ServiceInterface):
    def __init__(self) -> None:
        super().__init__("org.bluez.Adapter1")
        self.alias = "raspberrypi"
        self.powered = False

    @dbus_property()
    def Alias(self) -> Str:
        return self.alias

    @Alias.setter  # type: ignore[no-redef]  # dbus-fast's setter form
    def Alias(self, value: Str) -> Nothing:
        self.alias = value

    @dbus_property()
    def Powered(self) -> Bool:
        return self.powered

    @Powered.setter  # type: ignore[no-redef]
    def Powered(self, value: Bool) -> Nothing:
        self.powered = value


class _GattManager(ServiceInterface):
    def __init__(self, bluez: FakeBluez) -> None:
        super().__init__("org.bluez.GattManager1")
        self.bluez = bluez

    @dbus_method()
    async def RegisterApplication(self, application: Path_, options: Options) -> Nothing:
        # as BlueZ does before it answers: read the whole application
        self.bluez.objects = await self.bluez.ask(
            application, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects"
        )
        self.bluez.application = application

    @dbus_method()
    def UnregisterApplication(self, application: Path_) -> Nothing:
        self.bluez.application = None


class _AdvertisingManager(ServiceInterface):
    def __init__(self, bluez: FakeBluez) -> None:
        super().__init__("org.bluez.LEAdvertisingManager1")
        self.bluez = bluez

    @dbus_method()
    async def RegisterAdvertisement(self, advertisement: Path_, options: Options) -> Nothing:
        if len(self.bluez.advertisements) >= self.bluez.instances:
            raise DBusError("org.bluez.Error.NotPermitted", "Maximum advertisements reached")
        properties = await self.bluez.ask(
            advertisement, "org.freedesktop.DBus.Properties", "GetAll", "s", "org.bluez.LEAdvertisement1"
        )
        self.bluez.advertisements[advertisement] = {key: value.value for key, value in properties.items()}

    @dbus_method()
    def UnregisterAdvertisement(self, advertisement: Path_) -> Nothing:
        self.bluez.advertisements.pop(advertisement, None)


class FakeBluez:
    """``org.bluez`` on the bus at ``address`` with ``adapters`` (names such as ``hci0``), run on a thread.

    Records the application registered (``objects``: what GetManagedObjects answered), the advertisements
    (path -> properties) and the notifications heard (``notified``: characteristic UUID, bytes).
    """

    def __init__(self, address: str, adapters: tuple[str, ...] = ("hci0",), instances: int = 5) -> None:
        self.address = address
        self.adapters = adapters
        self.instances = instances
        self.objects: dict[str, dict[str, dict[str, Variant]]] = {}
        self.application: str | None = None
        self.advertisements: dict[str, dict[str, Any]] = {}
        self.notified: list[tuple[str, bytes]] = []
        self.adapter_objects: dict[str, _Adapter] = {}
        self._server: str | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._bus: MessageBus | None = None

    def __enter__(self) -> FakeBluez:
        self._thread.start()
        self.run(self._start())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bus is not None:
            self._bus.disconnect()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 10.0) -> T:
        """Run ``coroutine`` on the fake's loop and wait for it."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    async def _start(self) -> None:
        bus = self._bus = await MessageBus(bus_address=self.address).connect()
        bus.add_message_handler(self._heard)
        await bus.request_name("org.bluez")
        bus.export("/", _ObjectManager(self))
        for name in self.adapters:
            path = f"/org/bluez/{name}"
            adapter = self.adapter_objects[name] = _Adapter()
            bus.export(path, adapter)
            bus.export(path, _GattManager(self))
            bus.export(path, _AdvertisingManager(self))
        rule = "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
        await bus.call(
            Message(
                destination="org.freedesktop.DBus",
                path="/org/freedesktop/DBus",
                interface="org.freedesktop.DBus",
                member="AddMatch",
                signature="s",
                body=[rule],
            )
        )

    def _heard(self, message: Message) -> None:
        if message.message_type == MessageType.METHOD_CALL and message.member == "RegisterApplication":
            self._server = message.sender
        elif (
            message.message_type == MessageType.SIGNAL
            and message.member == "PropertiesChanged"
            and message.body[0] == "org.bluez.GattCharacteristic1"
            and "Value" in message.body[1]
        ):
            self.notified.append((self.uuid_at(message.path or ""), bytes(message.body[1]["Value"].value)))

    async def ask(self, path: str, interface: str, member: str, signature: str = "", *body: Any) -> Any:
        """Call the program under test (as BlueZ calls its application); the first value answered."""
        assert self._bus is not None and self._server is not None
        reply = await self._bus.call(
            Message(
                destination=self._server,
                path=path,
                interface=interface,
                member=member,
                signature=signature,
                body=list(body),
            )
        )
        assert reply.message_type == MessageType.METHOD_RETURN, reply.body
        return reply.body[0] if reply.body else None

    def uuid_at(self, path: str) -> str:
        """The UUID of the application's object at ``path``."""
        for properties in self.objects.get(path, {}).values():
            return str(properties["UUID"].value)
        return path

    def path_of(self, uuid: str) -> str:
        """The object path of the application's characteristic ``uuid``."""
        for path, interfaces in self.objects.items():
            properties = interfaces.get("org.bluez.GattCharacteristic1")
            if properties is not None and properties["UUID"].value == uuid:
                return path
        raise KeyError(uuid)

    def write(self, uuid: str, data: bytes, mtu: int = 23) -> None:
        """The app writes ``data`` to characteristic ``uuid`` over a link of ``mtu`` bytes."""
        options = {"mtu": Variant("q", mtu), "device": Variant("o", "/org/bluez/hci0/dev_00_11_22_33_44_55")}
        self.run(
            self.ask(
                self.path_of(uuid), "org.bluez.GattCharacteristic1", "WriteValue", "aya{sv}", data, options
            )
        )


def wait_until(condition: Callable[[], object], timeout: float = 5.0) -> bool:
    """Poll ``condition()`` until true or ``timeout`` seconds pass; its last value."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(condition())
