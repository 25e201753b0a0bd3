"""The Bluetooth LE transport: the boards' profiles, what a machine without Bluetooth is told, and the bytes
an app writes and hears through BlueZ — a fake BlueZ on a private D-Bus daemon (tests/fake_bluez.py), the
program talking real D-Bus to it. No Bluetooth here."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest

from chessatron.cli.common import EXIT_USAGE, friendly
from chessatron.eboard import ble
from chessatron.eboard.ble import BleServer, BleUnavailableError, check_ble, serve_ble
from chessatron.eboard.ble_link import GattLink
from chessatron.eboard.ble_profiles import (
    CHESSNUT,
    MILLENNIUM,
    PROFILES,
    BleProfile,
    Characteristic,
    is_uuid,
    profile,
)
from chessatron.eboard.core import EboardProtocol
from chessatron.eboard.registry import protocol_class
from chessatron.errors import ConfigError
from tests.eboard_clients.base import FakeTable
from tests.fake_bluez import FakeBluez, dbus_daemon, wait_until

#: The channels each protocol names (fixed in issue 38's briefs): written by the app, notified to it.
CHANNELS = {
    "millennium": ({""}, {""}),
    "chessnut": ({"write"}, {"board", "misc"}),
    "cpp": ({""}, {""}),
}


@dataclass
class Recorder(EboardProtocol):
    """A protocol that records what it hears (and whether the table's lock was held) and answers ``ping``."""

    name: ClassVar[str] = "recorder"
    transports: ClassVar[tuple[str, ...]] = ("ble",)
    heard: list[tuple[bytes, str]] = field(default_factory=list)
    lock: threading.Lock | None = None
    reply: bytes = b""
    reply_channel: str = ""

    def received(self, data: bytes, channel: str = "") -> None:
        assert self.lock is None or self.lock.locked(), (
            "the transport calls the protocol under the table's lock"
        )
        self.heard.append((data, channel))
        if data == b"ping":
            self.send(self.reply, self.reply_channel)


def recorder(lock: threading.Lock | None = None, reply: bytes = b"", channel: str = "") -> Recorder:
    return Recorder(FakeTable(), lambda data, channel: None, lock=lock, reply=reply, reply_channel=channel)


# -- the profiles -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_a_profile_is_well_formed(name: str) -> None:
    boards = PROFILES[name]
    uuids = [s.uuid for s in boards.services] + [c.uuid for c in boards.characteristics()]
    assert all(is_uuid(u) for u in [*uuids, *boards.advertised]), uuids
    assert len(set(uuids)) == len(uuids), "a UUID twice"
    assert set(boards.advertised) <= {s.uuid for s in boards.services}
    # an advertisement's name fits its 31 bytes beside the flags (BlueZ moves it to the scan response else)
    assert boards.names and all(0 < len(n.encode()) <= 29 for n in boards.names)
    for c in boards.characteristics():
        if c.role == "write":
            assert {"write", "write-without-response"} & set(c.flags), c
        elif c.role == "notify":
            assert "notify" in c.flags, c


@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_each_channel_of_a_protocol_is_one_characteristic(name: str) -> None:
    boards = PROFILES[name]
    written, notified = CHANNELS[name]
    roles = [(c.role, c.channel) for c in boards.characteristics() if c.role]
    assert sorted(roles) == sorted([("write", ch) for ch in written] + [("notify", ch) for ch in notified])


@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_the_profile_carries_the_channels_the_protocol_names(name: str) -> None:
    cls = protocol_class(name)
    channels: dict[str, str] = getattr(cls, "ble_channels", {})
    written, notified = CHANNELS[name]
    assert set(channels) == written | notified


def test_a_profile_is_found_by_name_and_its_names_overridden() -> None:
    assert profile(" Millennium ") is MILLENNIUM
    assert profile("chessnut").with_names(("Chessnut Air", "Smart Chess")).names == (
        "Chessnut Air",
        "Smart Chess",
    )
    assert profile("chessnut").with_names(()).names == ("Chessnut Air",)
    with pytest.raises(
        ConfigError, match=r"'dgt' is not served over Bluetooth LE: choose one of .*millennium"
    ):
        profile("dgt")


# -- the bytes path -----------------------------------------------------------------------------------------


def link_for(boards: BleProfile, protocol: Recorder) -> tuple[GattLink, list[tuple[str, bytes]]]:
    notified: list[tuple[str, bytes]] = []
    link = GattLink(
        boards, protocol.lock or threading.Lock(), lambda c, chunk: notified.append((c.uuid, chunk))
    )
    link.protocol = protocol
    protocol.send = link.send
    return link, notified


def role(boards: BleProfile, kind: str, channel: str) -> Characteristic:
    return next(c for c in boards.characteristics() if c.role == kind and c.channel == channel)


@pytest.mark.parametrize(
    ("boards", "channel", "mtu", "length", "chunks"),
    [
        (MILLENNIUM, "", 185, 67, [20, 20, 20, 7]),  # the module's 20-byte notifications, whatever the MTU
        (CHESSNUT, "board", 185, 38, [38]),  # a whole message in one notification where the link carries it
        (CHESSNUT, "misc", 23, 25, [20, 5]),  # split to the link where it does not (and a warning logged)
        (PROFILES["cpp"], "", 128, 72, [72]),
    ],
)
def test_a_write_reaches_the_protocol_and_its_answer_is_notified_in_chunks(
    boards: BleProfile, channel: str, mtu: int, length: int, chunks: list[int]
) -> None:
    lock = threading.Lock()
    reply = bytes(range(length))
    protocol = recorder(lock, reply, channel)
    link, notified = link_for(boards, protocol)
    writes = next(c for c in boards.characteristics() if c.role == "write")
    link.written(writes, b"ping", mtu)
    assert protocol.heard == [(b"ping", writes.channel)]
    assert [len(chunk) for _, chunk in notified] == chunks
    assert {uuid for uuid, _ in notified} == {role(boards, "notify", channel).uuid}
    assert b"".join(chunk for _, chunk in notified) == reply


def test_writes_elsewhere_and_sends_on_unknown_channels_go_nowhere() -> None:
    protocol = recorder()
    link, notified = link_for(CHESSNUT, protocol)
    link.written(role(CHESSNUT, "notify", "board"), b"\x21\x01\x00")  # the board's own notifier
    link.written(next(c for c in CHESSNUT.characteristics() if c.role is None), b"\x00")
    link.send(b"x", "nowhere")
    assert protocol.heard == [] and notified == []


# -- a machine that cannot serve -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if shutil.which("dbus-daemon") is None:
        pytest.fail(
            "no dbus-daemon for a fake BlueZ: `scripts/debian-packages` (`make test` runs it) installs it"
        )
    with dbus_daemon(tmp_path_factory.mktemp("dbus")) as address:
        yield address


def test_no_system_bus_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", f"unix:path={tmp_path}/system_bus_socket")
    with pytest.raises(BleUnavailableError, match=r"^no D-Bus system bus at .*: sudo apt install bluez"):
        check_ble()


def test_no_library_says_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ble, "HAVE_DBUS", False)
    with pytest.raises(
        BleUnavailableError, match=r"needs the dbus-fast library: pip install 'chessatron\[pi\]'"
    ):
        check_ble()


def test_no_bluez_says_to_enable_it(monkeypatch: pytest.MonkeyPatch, daemon: str) -> None:
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", daemon)
    with pytest.raises(
        BleUnavailableError, match=r"^BlueZ is not running .*systemctl enable --now bluetooth"
    ):
        check_ble()


def test_no_adapter_is_one_line_and_exit_status_2(
    monkeypatch: pytest.MonkeyPatch, daemon: str, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", daemon)
    with FakeBluez(daemon, adapters=()), pytest.raises(SystemExit) as stopped:
        friendly(check_ble)()  # as the eboard command runs it
    assert stopped.value.code == EXIT_USAGE == 2
    err = capsys.readouterr().err
    assert err.startswith("chessatron: no Bluetooth adapter found: ") and "rfkill unblock bluetooth" in err
    assert err.count("\n") == 1


def test_the_adapter_is_found_or_named(monkeypatch: pytest.MonkeyPatch, daemon: str) -> None:
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", daemon)
    with FakeBluez(daemon, adapters=("hci0", "hci1")):
        assert check_ble() == "/org/bluez/hci0"
        assert check_ble("hci1") == "/org/bluez/hci1"
        with pytest.raises(
            BleUnavailableError, match=r"no Bluetooth adapter 'hci7' \(adapters: hci0, hci1\)"
        ):
            check_ble("hci7")


# -- serving through (fake) BlueZ ----------------------------------------------------------------------------


def test_the_boards_are_served_advertised_and_released(monkeypatch: pytest.MonkeyPatch, daemon: str) -> None:
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", daemon)
    lock, stop = threading.Lock(), threading.Event()
    protocol = recorder(lock, bytes(range(45)))
    with FakeBluez(daemon) as bluez:
        server = threading.Thread(target=serve_ble, args=(protocol, MILLENNIUM, lock, stop))
        server.start()
        try:
            assert wait_until(lambda: bluez.advertisements), "advertising"
            (advert,) = bluez.advertisements.values()
            assert advert["LocalName"] == "MILLENNIUM CHESS" and advert["Type"] == "peripheral"
            assert advert["ServiceUUIDs"] == list(MILLENNIUM.advertised)
            adapter = bluez.adapter_objects["hci0"]
            assert adapter.alias == "MILLENNIUM CHESS" and adapter.powered
            served = {str(p["UUID"].value) for i in bluez.objects.values() for p in i.values()}
            assert served == {MILLENNIUM.services[0].uuid} | {c.uuid for c in MILLENNIUM.characteristics()}

            rx, tx = role(MILLENNIUM, "write", ""), role(MILLENNIUM, "notify", "")
            bluez.write(rx.uuid, b"ping", mtu=247)
            assert protocol.heard == [(b"ping", "")]
            assert wait_until(lambda: len(bluez.notified) == 3)
            assert [(uuid, len(chunk)) for uuid, chunk in bluez.notified] == [
                (tx.uuid, 20),
                (tx.uuid, 20),
                (tx.uuid, 5),
            ]
            # the table reports from its own thread, under its lock
            with lock:
                protocol.send(b"s" * 8, "")
            assert wait_until(lambda: len(bluez.notified) == 4) and bluez.notified[-1] == (tx.uuid, b"s" * 8)
        finally:
            stop.set()
            server.join(timeout=10)
        assert not server.is_alive()
        assert bluez.advertisements == {} and bluez.application is None
        assert bluez.adapter_objects["hci0"].alias == "raspberrypi"  # the adapter's own name back


def test_several_names_are_advertised_as_far_as_the_adapter_holds(
    monkeypatch: pytest.MonkeyPatch, daemon: str
) -> None:
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", daemon)
    lock, stop = threading.Lock(), threading.Event()
    protocol = recorder(lock, bytes(38), "board")
    names = ("Chessnut Air", "Smart Chess", "Chessnut Air+")
    with FakeBluez(daemon, instances=2) as bluez:
        server = BleServer(CHESSNUT, lock, names=names)
        protocol.send = server.send
        thread = threading.Thread(target=server.serve, args=(protocol, stop))
        thread.start()
        try:
            assert wait_until(lambda: len(bluez.advertisements) == 2)
            assert [a["LocalName"] for a in bluez.advertisements.values()] == list(names[:2])
            for advert in bluez.advertisements.values():  # the maker's data, as a real Air advertises it
                assert {k: v.value for k, v in advert["ManufacturerData"].items()} == dict(
                    CHESSNUT.manufacturer_data
                )
            bluez.write(role(CHESSNUT, "write", "write").uuid, b"ping", mtu=185)
            assert protocol.heard == [(b"ping", "write")]
            assert wait_until(lambda: bluez.notified == [(role(CHESSNUT, "notify", "board").uuid, bytes(38))])
        finally:
            stop.set()
            thread.join(timeout=10)
        assert bluez.advertisements == {}


def test_serving_without_an_adapter_fails_in_one_line(monkeypatch: pytest.MonkeyPatch, daemon: str) -> None:
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", daemon)
    with (
        FakeBluez(daemon, adapters=()),
        pytest.raises(BleUnavailableError, match="no Bluetooth adapter found"),
    ):
        serve_ble(recorder(), MILLENNIUM, threading.Lock(), threading.Event())
