"""The simulated table between commands: which piece stands where, the game position, the magnet.

``chessatron setup`` (and later commands that use the simulator) start from the table the last one left,
the way a real table keeps its pieces. The state is a small JSON file, written atomically so that a crash
never leaves half a table behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import chess

from .. import files
from ..errors import ConfigError, StateError
from ..i18n import _
from ..planning.layout import Layout, MachinePoint
from ..planning.table import PhysicalPiece, Table

FORMAT = "chessatron-simulator/1"


def default_state_path() -> Path:
    """``$CHESSATRON_STATE`` or ``$XDG_STATE_HOME/chessatron/simulator.json``."""
    explicit = os.environ.get("CHESSATRON_STATE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "chessatron" / "simulator.json"


@dataclass
class SimulatorState:
    table: Table
    board: chess.Board
    gantry_mm: MachinePoint

    @classmethod
    def fresh(cls, layout: Layout) -> SimulatorState:
        """A table as delivered: set up for the standard start, the magnet at home."""
        board = chess.Board()
        return cls(Table.from_board(layout, board), board, layout.home_mm)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "fen": self.board.fen(),
            "chess960": self.board.chess960,
            "gantry_mm": list(self.gantry_mm),
            "pieces": [
                {"id": p.id, "symbol": p.symbol, "node": list(self.table.node_of(p.id))}
                for p in sorted(self.table, key=lambda p: p.id)
            ],
        }

    @classmethod
    def from_json(cls, data: Any, layout: Layout, source: str) -> SimulatorState:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ConfigError(
                _(
                    "{source} is not a chessatron simulator state ({found!r}); delete it or pass --fresh"
                ).format(source=source, found=found)
            )
        try:
            board = chess.Board(data["fen"], chess960=bool(data["chess960"]))
            placement = [
                (PhysicalPiece(str(p["id"]), str(p["symbol"])), (int(p["node"][0]), int(p["node"][1])))
                for p in data["pieces"]
            ]
            gantry = (float(data["gantry_mm"][0]), float(data["gantry_mm"][1]))
            table = Table(layout, placement)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, StateError) as exc:
            raise ConfigError(
                _("{source} is damaged ({error!r}); delete it or pass --fresh").format(
                    source=source, error=exc
                )
            ) from exc
        width, height = layout.node_extent
        if not layout.in_envelope(gantry) or any(
            not (0 <= n[0] < width and 0 <= n[1] < height) for n in table.placement().values()
        ):
            raise ConfigError(
                _("{source} was saved for another table layout; pass --fresh to start over").format(
                    source=source
                )
            )
        try:
            table.check_matches(board)
        except StateError as exc:
            raise ConfigError(
                _("{source} does not match its own position ({error}); pass --fresh").format(
                    source=source, error=exc
                )
            ) from exc
        return cls(table, board, gantry)


def load_state(path: Path, layout: Layout, *, fresh: bool = False) -> SimulatorState:
    """The saved simulated table, or a fresh one (set up as delivered) when none was saved yet or when
    ``fresh`` asks to forget it (``--fresh``)."""
    if fresh or files.is_missing(path):
        return SimulatorState.fresh(layout)
    return SimulatorState.from_json(files.load_json(path, files.SIMULATOR_STATE), layout, repr(str(path)))


def save_state(path: Path, state: SimulatorState) -> None:
    """Write atomically: a temporary file in the same folder, flushed, then renamed over the old one."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, delete=False, suffix=".tmp", encoding="utf-8"
        ) as f:
            json.dump(state.to_json(), f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(f.name, path)
    except OSError as exc:
        raise ConfigError(
            _("cannot save the simulator state to {path!r}: {error}").format(
                path=str(path), error=exc.strerror or exc
            )
        ) from exc


class TableKeeper(Protocol):
    """What a checkpoint reads of a session (:class:`~chessatron.game.devices.TableDevices`): the table
    as it stands, where the magnet is, and the position of the game under way (None between games)."""

    @property
    def table(self) -> Table: ...

    @property
    def gantry(self) -> MachinePoint: ...

    def current_board(self) -> chess.Board | None: ...


def save_after_robot_work(session: TableKeeper) -> None:
    """A session's checkpoint on the simulator (``play``, ``online``): after every robot job the table is
    saved to :func:`default_state_path` when it stands as the game's position, so that a killed process
    loses nothing."""
    board = session.current_board()
    if board is not None and session.table.board_fen() == board.board_fen():
        save_state(default_state_path(), SimulatorState(session.table, board, session.gantry))
