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


class UnsafeGcodeError(GcodeError):
    """A program ``chessatron run`` will not send (``run --raw`` sends it): a target outside the table's
    envelope, a rapid move with the magnet on, motion whose path cannot be checked. ``lines`` are the
    program lines refused (from 1)."""

    def __init__(self, message: str, *, lines: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.lines = lines


# --- hardware --------------------------------------------------------------------------------------


class HardwareError(ChessatronError):
    """A device is missing, unplugged or misbehaving."""


class SensorError(HardwareError, OSError):
    """An occupancy sensor could not be read: a bus or serial error, an unplugged cable."""


class SensorTimeoutError(SensorError, TimeoutError):
    """An occupancy sensor did not answer in time."""


class SensorReplyError(SensorError, ProtocolError):
    """An occupancy sensor answered with something its protocol does not allow (a garbled line)."""


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


class JournalError(ChessError, ValueError):
    """A game-journal entry that does not follow from the game so far: a take-back of moves never played,
    a robot step out of range, a journal used after ``close()``."""


class GameInUseError(ChessError, RuntimeError):
    """Another session is writing this game's journal; close it before resuming the game here."""


class GameSaveError(ChessError, OSError):
    """A game could not be written to disk: a full disk, a read-only or missing games folder."""


class GameNotFoundError(ChessError, LookupError):
    """No saved game has that id; ``chessatron games`` lists them."""


class CannotResumeError(ChessError, RuntimeError):
    """A saved game asked to be continued that cannot be: it is over, or it was imported (no journal)."""


class ClockError(ChessError, ValueError):
    """A chess clock used out of turn (a press for the side whose time is not running), resumed before it
    was ever started, or given a negative time."""


class GameOverError(ChessError, ValueError):
    """A move was asked for in a position that has none: checkmate or stalemate."""


class InvalidPositionError(ChessError, ValueError):
    """A position no game can reach (a missing king, pawns on a back rank); engines may crash on it."""


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


# --- the GRBL link ---------------------------------------------------------------------------------


class SerialPortError(HardwareError, OSError):
    """A serial port or pyserial URL that cannot be opened: a wrong name, a port in use, no permission."""


class TableInUseError(HardwareError, RuntimeError):
    """Another program drives the table (its GRBL port, or the simulated table's state): the message names
    it (command line, pid, since when) and says how to stop it (:mod:`chessatron.tablelock`)."""


class ConnectionLostError(HardwareError, ConnectionError):
    """A device stopped answering, or its cable was pulled, while it was in use.

    ``line`` is the program line that was running (the oldest one sent and not acknowledged), or None.
    """

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class GrblError(ProtocolError, RuntimeError):
    """GRBL rejected a line with ``error:N``: ``line`` is the program line (None outside a program) and
    ``code`` GRBL's error code."""

    def __init__(self, message: str, *, code: int, line: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.line = line


class GrblAlarm(HardwareError, RuntimeError):
    """GRBL raised ``ALARM:N`` and stopped: ``code`` is the alarm code, ``line`` the program line that was
    running (None outside a program)."""

    def __init__(self, message: str, *, code: int, line: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.line = line


class GrblLockedError(HardwareError, RuntimeError):
    """GRBL is locked in its alarm state (after power-up with homing enabled, or after any alarm) and
    refuses g-code until it is homed (``$H``) or unlocked (``$X``); this error says which is possible."""


class GrblBuildError(HardwareError, RuntimeError):
    """The GRBL firmware was built for another machine: Core-XY against a Cartesian layout (or the other
    way round), or a homing cycle that leaves the magnet away from the layout's ``home_mm``."""


class GrblVersionError(ProtocolError, ValueError):
    """The device's banner is not GRBL 1.1 (another firmware or another GRBL version)."""


class GarbledReplyError(ProtocolError, OSError):
    """A reply from GRBL arrived corrupted where an ``ok`` or ``error:N`` was due, so the streamer cannot
    tell which lines GRBL accepted. ``line`` is the oldest program line awaiting its reply."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


class GrblResetError(HardwareError, RuntimeError):
    """GRBL restarted (its banner arrived) in the middle of a job; the lines it had buffered are lost."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


# --- the chess engine ------------------------------------------------------------------------------


class EngineError(ChessatronError):
    """The chess engine is missing, cannot play as asked, or misbehaves."""


class EngineMissingError(EngineError, FileNotFoundError):
    """No chess engine program under the given name or path; install one or pass its path."""


class EngineSettingsError(EngineError, ConfigError):
    """An engine level that cannot be right (``engine:25``) or that the engine cannot play (a low Elo)."""


class EngineFailedError(EngineError, RuntimeError):
    """The engine did not start, or crashed or stopped answering again after every restart allowed."""


class EngineClosedError(EngineError, RuntimeError):
    """An engine player was used after ``close()``; open a new one."""


# --- online play -----------------------------------------------------------------------------------


class OnlineError(ChessatronError):
    """An online game's server (lichess.org, or another server that speaks the lichess API) refused,
    failed, or cannot be reached."""


class LoginError(OnlineError, PermissionError):
    """No API token, a token the server does not accept (HTTP 401), or one without the scope needed."""


class ServerUnavailableError(OnlineError, ConnectionError):
    """The server could not be reached, or answered with a server error, after every retry allowed."""


class ServerRefusedError(OnlineError, ValueError):
    """The server refused a request (HTTP 4xx): a move, a challenge, an offer. ``status`` is the HTTP
    status, the message says what the server said."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


class OnlineGameError(OnlineError, RuntimeError):
    """The online game cannot be played here: not found, not this account's, aborted, of a variant the
    table does not play."""


# --- training --------------------------------------------------------------------------------------


class TrainingError(ChessatronError):
    """Puzzles, their store, the rating, game reviews."""


class PuzzleError(TrainingError, ValueError):
    """A puzzle that cannot be: a bad FEN, an illegal move in its line, a line of the wrong length."""


class PuzzleFileError(TrainingError, ValueError):
    """A puzzle file (lichess's CSV, plain or zstandard-compressed) that cannot be read."""


class PuzzleFileCutError(PuzzleFileError):
    """A puzzle file that ends early or is damaged part-way (a download cut short): the puzzles before the
    damage were read."""


class PuzzleStoreError(TrainingError, OSError):
    """The local store of puzzles and attempts cannot be opened, read or written."""


class NoPuzzleError(TrainingError, LookupError):
    """No puzzle in the store fits what was asked (a rating, a theme, an opening)."""
