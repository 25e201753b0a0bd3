"""The simulated GRBL by URL (``sim://world?speed=max&…``), and the host magnet of a servo layout in the
simulated world."""

from __future__ import annotations

import math
from typing import Any

from ...errors import ConfigError, DeviceClosedError
from ...i18n import _
from ...ports import DeviceUrl
from ..world import SimWorld, get_world
from .faults import FAULT_OPTIONS, faults_from_url
from .firmware import SimGrbl


class SimHostMagnet:
    """The host magnet of a servo layout, in the simulated world: engaging and releasing feed the
    ``(MAGNET ON)`` and ``(MAGNET OFF)`` markers to the twin (after a ``G4 P0``, which the twin wants
    before a marker). :attr:`actions` records what it was told to do."""

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.actions: list[str] = []
        self._closed = False

    def _switch(self, marker: str) -> None:
        if self._closed:
            raise DeviceClosedError("the simulated host magnet is closed; open a new one")
        with self.world.lock:
            self.world.twin.run(["G4 P0", f"({marker})"], finish=False)
        self.actions.append(marker)

    def engage(self) -> None:
        self._switch("MAGNET ON")

    def release(self) -> None:
        self._switch("MAGNET OFF")

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> SimHostMagnet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SimHostMagnet world={self.world.name!r} actions={len(self.actions)}>"


_URL_OPTIONS = (
    frozenset({"speed", "homing", "soft_limits", "idle_grace_s", "step_idle_delay_ms"}) | FAULT_OPTIONS
)


def sim_grbl_for_url(url: str, *, timeout: float | None = None, do_not_open: bool = False) -> SimGrbl:
    """A :class:`SimGrbl` for ``sim://[world][?speed=F|max&homing=0&soft_limits=1&error_line=N&…]``.

    Options: ``speed`` (a factor, or ``max`` for virtual time; default 1), ``homing``, ``soft_limits``,
    ``step_idle_delay_ms`` (``$1``), ``idle_grace_s`` and every field of :class:`SimFaults`. The world is
    looked up by name (created with the default layout if there is none yet). Raises
    :class:`~chessatron.errors.ConfigError` for an unknown option or a bad value.
    """
    world, options = sim_grbl_options(url)
    return SimGrbl(get_world(world), **options, timeout=timeout, port=url, do_not_open=do_not_open)


def sim_grbl_options(url: str) -> tuple[str, dict[str, Any]]:
    """The world's name and :class:`SimGrbl`'s keyword arguments a ``sim://`` URL names, checked without
    making anything (``chessatron config check``). Raises :class:`~chessatron.errors.ConfigError`."""
    parsed = DeviceUrl.parse(url)
    if parsed.scheme != "sim":
        raise ConfigError(_("{url!r} is not a sim:// URL").format(url=url))
    parsed.check_options(_URL_OPTIONS, "sim://?speed=max&homing=0")
    speed_text = parsed.params.get("speed", "1")
    speed = None if speed_text.lower() in ("max", "none") else parsed.number("speed", 1.0)
    if speed is not None and not (math.isfinite(speed) and speed > 0.0):
        raise ConfigError(
            _("speed={value!r} in {url!r} is not a positive factor or 'max'").format(
                value=speed_text, url=url
            )
        )
    idle = parsed.integer("step_idle_delay_ms", 0) if "step_idle_delay_ms" in parsed.params else None
    if idle is not None and not 0 <= idle <= 255:
        raise ConfigError(
            _("step_idle_delay_ms in {url!r} is grbl's $1: a whole number from 0 to 255").format(url=url)
        )
    return parsed.target.strip("/") or "default", {
        "speed": speed,
        "homing": parsed.flag("homing", True),
        "soft_limits": parsed.flag("soft_limits", False),
        "faults": faults_from_url(parsed),
        "idle_grace_s": parsed.number("idle_grace_s", 0.03),
        "step_idle_delay_ms": idle,
    }
