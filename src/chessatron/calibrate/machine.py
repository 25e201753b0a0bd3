"""The machine the board and magnet calibrations drive: GRBL (homed, then moved a line at a time and
waited for), the magnet switched the layout's way, and the sensors when the table has them.

:class:`GantryTable` is the ``table`` of :func:`~chessatron.calibrate.board.calibrate_board` and
:func:`~chessatron.calibrate.magnet.calibrate_magnet`. Build it from a machine config with
:meth:`GantryTable.open` (a context manager that opens and closes the link, the host magnet and the
sensors), or from objects already open (tests, a session that holds them)::

    with GantryTable.open(config, layout_path=Path("table.toml")) as table:
        result = calibrate_board(table, person)

Every move is checked against the layout's envelope before it is sent; the magnet is only ever on inside
one streamed program (engage, drag, release), so a stop, an error or a lost connection never leaves it on
(the link releases it: :meth:`~chessatron.grbl.link.GrblLink.stream`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Config
from ..errors import EnvelopeError
from ..grbl.link import GrblLink
from ..i18n import _
from ..planning.gcode import HEADER, ProgramWriter, number
from ..planning.layout import Cell, Layout, MachinePoint
from ..ports import DeviceUrl, OccupancySensor
from .person import Person

__all__ = ["GantryTable"]


@dataclass
class GantryTable:
    """What the board and magnet calibrations need of the machine.

    ``link`` is a :class:`~chessatron.grbl.link.GrblLink` (connected or not; with its host magnet for a
    servo layout), ``layout`` the layout the software reads now, ``layout_path`` the layout file the
    results are written to (None: the config uses the built-in table; the caller chooses where a new
    file goes), ``sensors`` the table's sensors (None: the person is asked what they see).
    """

    link: GrblLink
    layout: Layout
    layout_path: Path | None = None
    sensors: OccupancySensor | None = None
    #: Where the magnet is, as commanded (machine mm); None until the machine is homed or asked.
    at: MachinePoint | None = field(default=None, init=False)

    @classmethod
    @contextmanager
    def open(
        cls, config: Config, *, layout_path: Path | None = None, speed: float | None = None
    ) -> Iterator[GantryTable]:
        """The machine ``config`` describes, opened (and closed after): its GRBL link with the host magnet
        of a servo layout, its sensors. On the simulator (``sim://``) the world of the URL's name is used
        (register a table built wrong first: :meth:`chessatron.sim.wrong_gantry.GantryBuild.world`), at
        ``speed`` (None: as fast as it goes) unless the URL says. The table's lock is the caller's."""
        from ..gantry.magnet import open_magnet
        from ..grbl.run import host_magnet_for, simulator_url
        from ..sensors import open_sensor
        from ..sim.world import get_world

        layout = config.layout
        url = config.urls["grbl"]
        simulated = DeviceUrl.parse(url).scheme == "sim"
        with ExitStack() as stack:
            magnet = host_magnet_for(url, layout)
            if layout.magnet.method == "servo" and magnet is None:
                magnet = stack.enter_context(open_magnet(config.urls["magnet"]))
            if simulated:
                url = simulator_url(url, speed)
            link = stack.enter_context(
                GrblLink(url, layout=layout, baudrate=config.baudrate, host_magnet=magnet)
            )
            sensors = None
            sensors_url = config.urls["sensors"]
            if not sensors_url.startswith("none"):
                world = None
                if DeviceUrl.parse(sensors_url).scheme == "sim":
                    world = get_world(DeviceUrl.parse(sensors_url).target.strip("/") or "default", layout)
                sensors = stack.enter_context(open_sensor(sensors_url, layout, world=world))
            yield cls(link, layout, layout_path, sensors)

    # --- the machine -------------------------------------------------------------------------------

    def start(self, person: Person) -> None:
        """Connect (the settings' warnings told) and home when homing is on; the magnet is then at the
        layout's home. Raises what :meth:`GrblLink.connect` and :meth:`GrblLink.ready` raise."""
        if self.link.version is None:
            for warning in self.link.connect():
                person.tell(_("Warning: {warning}").format(warning=warning))
        if self.link.settings.get(22) == 1:
            person.tell(_("Homing the gantry: the machine is silent until it is done."))
            self.link.ready(home=True)
        else:
            self.link.ready()
        self.link.stream(list(HEADER)).raise_for_error()
        position = self.link.status(fresh=True).machine_position()
        self.at = self.layout.home_mm if position is None else (position[0], position[1])

    def clamp(self, point: MachinePoint) -> tuple[MachinePoint, bool]:
        """``point`` moved inside the envelope, and whether it had to be."""
        xmin, ymin, xmax, ymax = self.layout.envelope_mm
        inside = (min(max(point[0], xmin), xmax), min(max(point[1], ymin), ymax))
        return inside, inside != point

    def move(self, point: MachinePoint) -> None:
        """The magnet (off) to ``point``; returns once it is there. Raises
        :class:`~chessatron.errors.EnvelopeError` for a point outside the envelope (nothing is sent)."""
        self._stream([f"G0 {self._point(point)}", "G4 P0"])
        self.at = point

    def drag(self, start: MachinePoint, end: MachinePoint, feed_mm_min: float) -> None:
        """Engage the magnet at ``start``, drag in a straight line to ``end`` at ``feed_mm_min``, release.
        The magnet is off again when this returns, whatever happened (the link releases it on an error,
        which is raised)."""
        writer = ProgramWriter(self.layout, self.at)
        lines = [] if self.at == start else [f"G0 {self._point(start)}"]
        lines += writer.magnet(True)
        lines.append(f"G1 {self._point(end)} F{number(feed_mm_min)}")
        lines += writer.magnet(False)
        lines.append("G4 P0")
        self._stream(lines)
        self.at = end

    def occupied(self) -> frozenset[Cell] | None:
        """The cells the sensors see a piece on (None without sensors): the second of two scans, so that a
        piece just put down has settled."""
        if self.sensors is None:
            return None
        self.sensors.scan()
        return self.sensors.scan()

    def _point(self, point: MachinePoint) -> str:
        if not self.layout.in_envelope(point):
            raise EnvelopeError(
                _(
                    "machine point {point} lies outside the envelope {envelope}; check origin_mm, "
                    "rotation_deg and envelope_mm in the layout"
                ).format(point=repr(point), envelope=repr(self.layout.envelope_mm))
            )
        return f"X{number(point[0])} Y{number(point[1])}"

    def _stream(self, lines: list[str]) -> None:
        self.link.stream(lines).raise_for_error()
