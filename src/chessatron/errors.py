"""One exception tree for everything chessatron raises.

Every error a user can meet derives from :class:`ChessatronError`; category bases group them (config,
hardware, protocol, chess, planning) and leaves also subclass the fitting built-in so that callers who
only know Python's exceptions still catch them. Messages are lower case, show the offending value with
``!r`` and say what to do.
"""

from __future__ import annotations


class ChessatronError(Exception):
    """Root of every error chessatron raises on purpose."""


# --- configuration ---------------------------------------------------------------------------------


class ConfigError(ChessatronError, ValueError):
    """A layout or configuration file is malformed or describes an impossible table."""


class LayoutError(ConfigError):
    """The table layout does not fit, overlaps itself or lacks room."""


class MachineProfileError(ConfigError):
    """GRBL motion settings or machine limits that no machine can have (a zero rate, an empty envelope)."""


# --- protocol --------------------------------------------------------------------------------------


class ProtocolError(ChessatronError):
    """A device said or was sent something that breaks its protocol."""


class GcodeError(ProtocolError, ValueError):
    """A G-code line that GRBL 1.1 would reject: bad syntax, too long, an unclosed comment."""


# --- hardware --------------------------------------------------------------------------------------


class HardwareError(ChessatronError):
    """A device is missing, unplugged or misbehaving."""


class SensorError(HardwareError, OSError):
    """An occupancy sensor could not be read: a bus or serial error, an unplugged cable."""


class SensorTimeoutError(SensorError, TimeoutError):
    """An occupancy sensor did not answer in time."""


class SensorReplyError(SensorError, ProtocolError):
    """An occupancy sensor answered, but with something its protocol does not allow, even on a retry."""


class MissingLibraryError(ConfigError, ImportError):
    """The configuration asks for a backend whose library is not installed (an extra such as ``pi``)."""


class OutputDeviceError(HardwareError, OSError):
    """An output device (LEDs, a display, the buzzer, the host magnet) could not be opened or driven."""


class MagnetError(OutputDeviceError):
    """The host magnet could not be switched: a servo or GPIO pin that refused, a pin already in use."""


class DeviceClosedError(HardwareError, RuntimeError):
    """A device was used after ``close()``; open a new one."""


class LedMappingError(ConfigError):
    """An LED strip mapping that cannot be right: a cell twice, a pixel count that does not match."""


class ColourError(ConfigError):
    """A colour that is not three channels of 0 to 255, or a colour name chessatron does not know."""


class NoteError(ConfigError):
    """A buzzer note that cannot be played: an unknown note name, a negative length, out of range."""


# --- chess -----------------------------------------------------------------------------------------


class ChessError(ChessatronError):
    """A problem with the chess game itself."""


class IllegalMoveError(ChessError, ValueError):
    """A move that is not legal in the current position."""


class GameFileError(ChessError, ValueError):
    """A PGN or game record that cannot be read."""


# --- planning and the physical table ---------------------------------------------------------------


class PlanningError(ChessatronError, RuntimeError):
    """The robot cannot carry out what was asked of it."""


class NoPathError(PlanningError):
    """No drag path obeys the clearance rule, even with a blocker moved aside."""


class NoRoomError(PlanningError):
    """A piece has nowhere to go: capture zone full, no free parking node."""


class NoSparePieceError(PlanningError):
    """A promotion needs a piece of a type that is neither in reserve nor captured."""


class MissingPieceError(PlanningError):
    """A physical piece needed for a set-up is not on the table."""


class MoveError(PlanningError, ValueError):
    """A linear move no machine can run: a coordinate that is not finite or a feed that is not positive."""


class EnvelopeError(PlanningError):
    """A coordinate lies outside the machine's envelope."""


class StateError(PlanningError):
    """The physical table and the chess position disagree."""


class PieceError(StateError, ValueError):
    """A physical piece described inconsistently: an unknown symbol, a duplicate id, a position not finite."""
