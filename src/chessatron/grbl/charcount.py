"""Character counting, GRBL 1.1's streaming protocol, as bookkeeping free of I/O: what to send next,
which line an ``ok`` answers (the loop that does the I/O is :mod:`~chessatron.grbl.stream_loop`).

GRBL answers every line it reads with ``ok`` or ``error:N``, in order, and holds what it has not read
yet in a 128-byte serial buffer. A *character-counting* streamer keeps that buffer full without
overflowing it: it may send a line when the bytes of every line still unanswered plus this one fit in
the buffer, and each reply frees the oldest line's bytes. GRBL then always has the next line at hand and
its planner never starves between short moves.

:class:`Streamer` does that bookkeeping for a program:

* lines are sent without comments and whitespace (GRBL drops them anyway; fewer bytes mean more lines
  in the buffer), ending in ``\\n`` only: ``\\r\\n`` would make GRBL answer twice;
* comment-only and blank lines are not sent, but keep their program line numbers;
* ``$`` system commands (other than ``$J=`` jogs) go *send-response*: alone, after a ``G4 P0`` sync so
  GRBL is idle, and nothing follows until they are answered;
* host sync points: a dwell (``G4 P0``) followed by a ``(MAGNET ON)``, ``(MAGNET OFF)`` or ``(HOST name)``
  comment carries a :class:`HostAction`. GRBL answers a dwell only once all motion before it has
  finished, so the action runs when that answer arrives; nothing after it is sent until the host says the
  action is done (:meth:`Streamer.host_done`), or GRBL could start the next move while a servo is still
  turning. A marker without a dwell before it gets a ``G4 P0`` of the streamer's own. GRBL's ``Idle``
  state is no substitute: it reports ``Idle`` during a dwell, with motion still to come.
* a line that switches a magnet on (``M3``, ``M8``…) waits until every line before it is answered, so
  that after an error nothing new is picked up; GRBL waits for the motion before it to end before
  switching anyway, so this costs nothing;
* while the lines sent leave a magnet on (a drag), GRBL gets one line at a time: each only once it has
  accepted the one before. GRBL goes on running the lines behind a line it rejects, so with a whole drag
  in its buffer an ``error:N`` in the middle would let the piece travel on; this way the machine stops
  at the end of the last line it accepted, and the release sent then drops the piece exactly there.
  GRBL answers a motion line as soon as it is planned, long before it has run, so its planner still
  sees the drag ahead (a round trip on the cable per line, against a few hundred milliseconds of motion);
* unless the program ends with a dwell, a ``G4 P0`` of the streamer's own ends it, so that the last
  answer means the machine has stopped;
* after :meth:`Streamer.halt` (an error, a stop) no more program lines go out; what is already in
  GRBL's buffer runs anyway (GRBL cannot take lines back without a reset that loses the position), so the
  streamer then sends whatever releases the magnet, as the lines GRBL *accepted* left it (a refused
  release does not count). Nothing is sent past a release until GRBL has
  accepted it, or a travel move behind a refused one would drag the piece along at rapid.

>>> streamer = Streamer(["G0 X10 Y10", "(pick up)", "M3 S1000", "G1 X20 F4000", "M5"])
>>> def send_what_fits():
...     sent = []
...     while (item := streamer.next_item()) is not None:
...         streamer.mark_sent(item)
...         sent.append(item.data)
...     return sent
>>> send_what_fits()  # the engage waits for line 1's answer
[b'G0X10Y10\\n']
>>> streamer.acknowledge(Ok()).item.line
1
>>> streamer.state(2)  # the comment after line 1 has been passed
'ok'
>>> send_what_fits()  # from the engage on, one line at a time
[b'M3S1000\\n']
>>> _ = streamer.acknowledge(Ok()); send_what_fits()
[b'G1X20F4000\\n']
>>> _ = streamer.acknowledge(Ok()); send_what_fits()  # the final sync waits for the release's answer
[b'M5\\n']
"""

# One module on purpose (about 690 lines): the bookkeeping of GRBL's buffer, its progress and its
# results are one state machine; most of the length is the docs of what each answer means.

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

from ..errors import ChessatronError, GcodeError
from ..i18n import _
from ..planning.gcode_parse import parse_line, strip_line
from .protocol import RX_BUFFER_BYTES, Error, Ok, Status

__all__ = [
    "HostAction",
    "HostActionKind",
    "LineState",
    "MagnetState",
    "Outgoing",
    "ProgramLine",
    "StreamAck",
    "StreamProgress",
    "StreamResult",
    "Streamer",
    "dwell_s",
    "host_action",
    "program_line",
    "strip_line",
]

#: GRBL 1.1's line buffer holds 79 characters and the line end.
MAX_BLOCK_CHARS = 79
# Bytes GRBL takes as real-time commands wherever they appear: they must never be inside a line we send.
_REALTIME = frozenset("?!~\x18")

HostActionKind = Literal["magnet-on", "magnet-off", "host"]
LineState = Literal["pending", "sent", "ok", "error"]
"""``pending``: not sent (or, for a comment, not reached); ``sent``: sent, no answer (yet); ``ok``: GRBL
accepted it (a comment: passed; a host marker: its action ran); ``error``: GRBL rejected it (a host marker:
its action failed)."""


@dataclass(frozen=True)
class HostAction:
    """Something the host does at a sync point: engage or release the host magnet, or a named action
    (``(HOST name)``, passed to the caller). ``line`` is the marker's program line."""

    kind: HostActionKind
    name: str
    line: int

    @property
    def is_release(self) -> bool:
        """True for the action that drops a piece: always safe to run, even after an error."""
        return self.kind == "magnet-off"


def host_action(comment: str, line: int = 0) -> HostAction | None:
    """The host action a comment marks, if any: ``MAGNET ON``, ``MAGNET OFF`` or ``HOST name``
    (case and spacing are free).

    >>> host_action(" magnet  on ")
    HostAction(kind='magnet-on', name='MAGNET ON', line=0)
    >>> host_action("HOST wait-for-button", 7).name
    'WAIT-FOR-BUTTON'
    """
    words = comment.upper().split()
    text = " ".join(words)
    if text == "MAGNET ON":
        return HostAction("magnet-on", text, line)
    if text == "MAGNET OFF":
        return HostAction("magnet-off", text, line)
    if len(words) >= 2 and words[0] == "HOST":
        return HostAction("host", " ".join(words[1:]), line)
    return None


def _engages(block: str) -> bool:
    """True for a block that switches the spindle or coolant output on."""
    return _has_m_code(block, (3.0, 4.0, 7.0, 8.0))


def _releases(block: str) -> bool:
    """True for a block that switches the spindle or coolant output off (ends a drag)."""
    return _has_m_code(block, (5.0, 9.0, 2.0, 30.0))


def _magnet_after(block: str, spindle: bool, coolant: bool) -> tuple[bool, bool]:
    """The spindle and coolant outputs (on: True) once ``block`` has run after ``spindle``, ``coolant``."""
    try:
        line = parse_line(block)
    except GcodeError:
        return spindle, coolant
    for code in line.m_codes:
        if code in (3.0, 4.0):
            spindle = True
        elif code == 5.0:
            spindle = False
        elif code in (7.0, 8.0):
            coolant = True
        elif code == 9.0:
            coolant = False
        elif code in (2.0, 30.0):
            spindle = coolant = False
    return spindle, coolant


def _has_m_code(block: str, codes: tuple[float, ...]) -> bool:
    try:
        line = parse_line(block)
    except GcodeError:
        return False
    return any(code in codes for code in line.m_codes)


def dwell_s(block: str) -> float:
    """Seconds a block dwells (``G4 P…``), 0 for any other block.

    >>> dwell_s("G4P0.2"), dwell_s("G1X10F100")
    (0.2, 0.0)
    """
    try:
        line = parse_line(block)
    except GcodeError:
        return 0.0
    return max(line.value("P") or 0.0, 0.0) if 4.0 in line.g_codes else 0.0


def _is_dwell(block: str) -> bool:
    """True for a block GRBL answers only after all motion before it is done: a dwell without motion."""
    try:
        line = parse_line(block)
    except GcodeError:
        return False
    return 4.0 in line.g_codes and not (line.has("X") or line.has("Y") or line.has("Z"))


@dataclass(frozen=True)
class ProgramLine:
    """One line of the program: its number (from 1), its text, what is sent of it (None: nothing) and the
    host action it marks."""

    number: int
    text: str
    block: str | None
    action: HostAction | None


@dataclass(frozen=True)
class Outgoing:
    """One line to send: its bytes (with ``\\n``), its program line (None for a line the streamer adds),
    whether it goes send-response, the host action to run once GRBL answers it, and whether it switches
    a magnet on (``M3``/``M4``, ``M7``/``M8``)."""

    data: bytes
    line: int | None
    send_response: bool = False
    action: HostAction | None = None
    engages: bool = False
    releases: bool = False

    @property
    def block(self) -> str:
        return self.data[:-1].decode("ascii")


class MagnetState(NamedTuple):
    """The outputs that hold a piece, as a program's lines sent leave them: GRBL's spindle and coolant,
    and the host's magnet."""

    spindle: bool
    coolant: bool
    host: bool


@dataclass(frozen=True)
class StreamAck:
    """What one ``ok``/``error:N`` answered: the line, the error (None for ``ok``), and the host action to
    run now (the caller runs it, or not, and then calls :meth:`Streamer.host_done`)."""

    item: Outgoing
    error: Error | None
    action: HostAction | None


@dataclass(frozen=True)
class StreamProgress:
    """Where a stream stands: program lines to send (comments are not sent) in total, sent and answered,
    the last answered program line, the latest status report and wall-clock seconds since the start."""

    total: int
    sent: int
    answered: int
    line: int
    status: Status | None
    elapsed_s: float


@dataclass(frozen=True)
class StreamResult:
    """How a streamed program ended: the state of every program line (index 0 is line 1), the error that
    stopped it (None if it ran to the end) and wall-clock seconds.

    ``completed`` lists the lines GRBL accepted (and comments passed, host actions run): a caller knows
    which operations finished. GRBL accepts a motion line when it is planned, not when it has run, but a
    magnet switch or a dwell is accepted only after the motion before it is done, so an operation that
    ends with one (as every relocation does) has physically finished when its last line is completed.
    """

    states: tuple[LineState, ...]
    error: ChessatronError | None
    elapsed_s: float
    unfinished_from: int | None = None
    """After an alarm or a lost connection: the first line that may not have physically finished (GRBL
    had accepted the lines from it on, but was still running them). None when everything ran."""

    @property
    def ok(self) -> bool:
        """True if the whole program ran."""
        return self.error is None

    def state(self, line: int) -> LineState:
        """The state of program line ``line`` (from 1)."""
        return self.states[line - 1]

    @property
    def completed(self) -> tuple[int, ...]:
        """Program lines that completed, in order."""
        return tuple(n for n, state in enumerate(self.states, start=1) if state == "ok")

    @property
    def completed_through(self) -> int:
        """The largest n such that lines 1..n all completed (0 if line 1 did not)."""
        for n, state in enumerate(self.states, start=1):
            if state != "ok":
                return n - 1
        return len(self.states)

    @property
    def failed_line(self) -> int | None:
        """The program line the error names, if any."""
        line = getattr(self.error, "line", None)
        return line if isinstance(line, int) else None

    def raise_for_error(self) -> None:
        """Raise the error that stopped the program, if any."""
        if self.error is not None:
            raise self.error

    def __repr__(self) -> str:
        return (
            f"StreamResult(lines={len(self.states)}, completed_through={self.completed_through}, "
            f"error={self.error!r})"
        )


class Streamer:
    """Character-counting bookkeeping for one program (see the module docs).

    ``rx_buffer_bytes`` is GRBL's serial receive buffer. With ``final_sync`` the streamer ends with a
    ``G4 P0`` of its own unless the program ends with a dwell, so that the last answer means the machine
    has stopped.

    Raises :class:`~chessatron.errors.GcodeError` for a line that cannot be streamed safely: one with a
    character GRBL takes as a real-time command (``?``, ``!``, ``~``, control-x, bytes above 127) outside a
    comment, or one longer than GRBL's 79-character line buffer once comments and spaces are dropped.
    """

    def __init__(
        self,
        lines: Iterable[str],
        *,
        rx_buffer_bytes: int = RX_BUFFER_BYTES,
        final_sync: bool = True,
        first_line: int = 1,
        carried: MagnetState | None = None,
    ) -> None:
        if rx_buffer_bytes < MAX_BLOCK_CHARS + 1:
            raise ValueError(f"rx_buffer_bytes must hold a whole line (80 bytes), got {rx_buffer_bytes!r}")
        self.rx_buffer_bytes = rx_buffer_bytes
        self.first_line = first_line
        self.program: tuple[ProgramLine, ...] = tuple(
            program_line(number, text) for number, text in enumerate(lines, start=first_line)
        )
        self._items: list[Outgoing] = []
        self._item_states: list[LineState] = []
        self._item_of_line: dict[int, int] = {}
        # Comment lines: the number of items before them; they are passed once that many are answered.
        self._after: dict[int, int] = {}
        self._marker_states: dict[int, LineState] = {}
        self._build(final_sync, moving=carried is not None)
        self._next = 0  # index of the next item to send
        self._in_flight: deque[int] = deque()
        self._in_flight_bytes = 0
        self._answered = 0
        self._halted = False
        self._extra: deque[Outgoing] = deque()  # releases after a halt
        self._extra_sent: deque[Outgoing] = deque()
        self._awaiting_host: Outgoing | None = None
        self._spindle_on = False
        self._coolant_on = False
        self._host_magnet_on = False
        # GRBL's outputs as the switches it has answered left them (it answers one once it has made it),
        # and the program line of the last of those switches
        self._made: tuple[bool, bool] = (False, False)
        self._made_by: int | None = None
        self._before_switch: dict[int, tuple[bool, bool]] = {}
        self._sent_lines = self._answered_lines = self._last_line = 0
        self._synced = 0  # items before this index have physically finished
        # Items that switched the spindle or coolant as sent: GRBL answers them after the motion before.
        self._switches: set[int] = set()
        if carried is not None:  # the program goes on from where an earlier part left the magnet
            self._spindle_on, self._coolant_on, self._host_magnet_on = carried
            self._made = (carried.spindle, carried.coolant)

    # --- building -------------------------------------------------------------------------------

    def _add(self, item: Outgoing) -> None:
        if item.line is not None:
            self._item_of_line[item.line] = len(self._items)
        self._items.append(item)
        self._item_states.append("pending")

    def _build(self, final_sync: bool, *, moving: bool = False) -> None:
        since_sync = moving  # g-code sent since the last dwell (an earlier part's, when this goes on)
        for line in self.program:
            if line.block is not None:
                if line.block.startswith("$") and not line.block.startswith("$J="):
                    if since_sync:
                        self._add(Outgoing(b"G4P0\n", None))
                    self._add(Outgoing(f"{line.block}\n".encode("ascii"), line.number, send_response=True))
                    since_sync = False
                else:
                    data = f"{line.block}\n".encode("ascii")
                    block = line.block
                    self._add(Outgoing(data, line.number, engages=_engages(block), releases=_releases(block)))
                    since_sync = not _is_dwell(line.block)
            if line.action is not None:
                last = self._items[-1] if self._items else None
                if last is not None and last.action is None and not since_sync and _is_dwell(last.block):
                    self._items[-1] = replace(last, action=line.action)
                else:
                    self._add(Outgoing(b"G4P0\n", None, action=line.action))
                self._marker_states[line.number] = "pending"
                since_sync = False
            elif line.block is None:
                self._after[line.number] = len(self._items)
        if final_sync and since_sync:
            self._add(Outgoing(b"G4P0\n", None))

    # --- what can be seen -----------------------------------------------------------------------

    @property
    def in_flight_bytes(self) -> int:
        """Bytes sent and not yet answered: an upper bound on what sits in GRBL's receive buffer."""
        return self._in_flight_bytes

    @property
    def in_flight(self) -> tuple[Outgoing, ...]:
        """Lines sent and not yet answered, oldest first."""
        return tuple(self._items[i] for i in self._in_flight) + tuple(self._extra_sent)

    @property
    def oldest_line(self) -> int | None:
        """The program line GRBL is working on: the oldest unanswered, else the next to send."""
        for i in self._in_flight:
            if self._items[i].line is not None:
                return self._items[i].line
        for item in self._items[self._next :]:
            if item.line is not None:
                return item.line
        return None

    @property
    def running_line(self) -> int | None:
        """The first program line that may not have physically finished: the one after the last dwell or
        magnet switch GRBL has answered (those are answered only once all motion before them is done), else
        the next to send."""
        for item in self._items[self._synced : self._next]:
            if item.line is not None:
                return item.line
        return self.oldest_line

    @property
    def halted(self) -> bool:
        return self._halted

    @property
    def is_finished(self) -> bool:
        """True when nothing is left to send, to be answered or to be done by the host."""
        nothing_left = self._halted or self._next >= len(self._items)
        return (
            nothing_left
            and not self._in_flight
            and not self._extra
            and not self._extra_sent
            and self._awaiting_host is None
        )

    @property
    def magnet_engaged(self) -> bool:
        """True if the lines sent (and host actions run) leave a magnet on: spindle, coolant or host."""
        return self._spindle_on or self._coolant_on or self._host_magnet_on

    @property
    def host_magnet_on(self) -> bool:
        return self._host_magnet_on

    @property
    def carried(self) -> MagnetState:
        """The magnet as the lines sent leave it: where the next part of the program goes on from."""
        return MagnetState(self._spindle_on, self._coolant_on, self._host_magnet_on)

    def text(self, line: int) -> str:
        """The text of program line ``line`` (numbered from :attr:`first_line`)."""
        return self.program[line - self.first_line].text

    @property
    def grbl_magnet_was_on(self) -> bool:
        """True if GRBL's own magnet output (spindle or coolant) is on as the switches it has *answered*
        left it: GRBL answers a switch only once it has made it (after the motion before it), so when it
        stops and empties its buffers (an alarm, a reset) a switch sent and not answered was never made.
        (A board that goes on running its buffer, its cable pulled, is :attr:`grbl_magnet_may_be_on`'s.)"""
        return self._made[0] or self._made[1]

    @property
    def grbl_magnet_switched_by(self) -> int | None:
        """The program line of the last switch GRBL answered (None: none, or one of the streamer's own)."""
        return self._made_by

    @property
    def grbl_magnet_may_be_on(self) -> bool:
        """True if GRBL's own magnet output (spindle or coolant) may be on now: the lines sent leave it on,
        or a line that switches it off was sent and not yet answered (GRBL answers a switch only once it
        has made it, after the motion before it)."""
        in_flight = [self._items[i] for i in self._in_flight] + list(self._extra_sent)
        return self._spindle_on or self._coolant_on or any(_releases(item.block) for item in in_flight)

    def state(self, line: int) -> LineState:
        """The state of program line ``line`` (from 1)."""
        if line in self._marker_states:
            return self._marker_states[line]
        index = self._item_of_line.get(line)
        if index is not None:
            return self._item_states[index]
        return "ok" if self._answered >= self._after.get(line, 0) else "pending"

    def states(self) -> tuple[LineState, ...]:
        return tuple(self.state(line.number) for line in self.program)

    def progress(self, status: Status | None, elapsed_s: float) -> StreamProgress:
        """A :class:`StreamProgress` for the lines so far."""
        return StreamProgress(
            len(self._item_of_line),
            self._sent_lines,
            self._answered_lines,
            self._last_line,
            status,
            elapsed_s,
        )

    # --- sending ----------------------------------------------------------------------------------

    def _fits(self, item: Outgoing) -> bool:
        if self._awaiting_host is not None:
            return False
        if self._extra_sent:
            last: Outgoing | None = self._extra_sent[-1]
        else:
            last = self._items[self._in_flight[-1]] if self._in_flight else None
        if last is not None and (last.send_response or last.action is not None or item.send_response):
            return False  # wait for the answer (and the host action) before anything else
        if last is not None and self.magnet_engaged:
            return False  # a drag goes one accepted line at a time (see the module docs)
        if any(self._items[index].releases for index in self._in_flight):
            # Nothing moves on until GRBL has accepted the release: if it refused it, the magnet is
            # still on, and a travel move sent behind it would drag the piece along at rapid.
            return False
        if last is not None and item.engages:
            # Pick a piece up only once GRBL has accepted every line before: after an error nothing new is
            # picked up. It costs nothing, as GRBL waits for the motion to end before switching anyway.
            return False
        return self._in_flight_bytes + len(item.data) <= self.rx_buffer_bytes

    def next_item(self) -> Outgoing | None:
        """The line to send now, or None if it must wait (buffer full, send-response, host action)."""
        if self._halted:
            if self._extra and self._fits(self._extra[0]):
                return self._extra[0]
            return None
        if self._next < len(self._items) and self._fits(self._items[self._next]):
            return self._items[self._next]
        return None

    def mark_sent(self, item: Outgoing) -> None:
        """Record that ``item`` (the one :meth:`next_item` returned) has been written to the port."""
        if self._halted:
            if not self._extra or self._extra[0] is not item:
                raise ValueError(f"{item!r} is not the next line to send")
            self._extra_sent.append(self._extra.popleft())
            self._track_magnet(item.block)
        else:
            if self._next >= len(self._items) or self._items[self._next] is not item:
                raise ValueError(f"{item!r} is not the next line to send")
            before = (self._spindle_on, self._coolant_on)
            self._track_magnet(item.block)
            if (self._spindle_on, self._coolant_on) != before:
                self._switches.add(self._next)
                self._before_switch[self._next] = before
            self._item_states[self._next] = "sent"
            self._in_flight.append(self._next)
            self._next += 1
            self._sent_lines += item.line is not None
        self._in_flight_bytes += len(item.data)

    def _track_magnet(self, block: str) -> None:
        self._spindle_on, self._coolant_on = _magnet_after(block, self._spindle_on, self._coolant_on)

    # --- answers ----------------------------------------------------------------------------------

    def acknowledge(self, reply: Ok | Error) -> StreamAck | None:
        """Apply GRBL's answer to the oldest line in flight; None if nothing was in flight (a stray
        ``ok``, which the caller should log)."""
        error = reply if isinstance(reply, Error) else None
        if self._in_flight:
            index = self._in_flight.popleft()
            item = self._items[index]
            self._item_states[index] = "error" if error else "ok"
            if error is not None and index in self._before_switch:
                # GRBL rejected the switch, so it never happened: a refused M5 leaves the magnet on,
                # and halt() must still release it.
                self._spindle_on, self._coolant_on = self._before_switch[index]
            elif error is None and index in self._switches:
                self._made, self._made_by = _magnet_after(item.block, *self._made), item.line
            self._answered = index + 1
            if error is None and (index in self._switches or _is_dwell(item.block)):
                self._synced = index + 1
            if item.line is not None:
                self._answered_lines += 1
                self._last_line = item.line
        elif self._extra_sent:
            item = self._extra_sent.popleft()
            if error is None:
                self._made, self._made_by = _magnet_after(item.block, *self._made), None
        else:
            return None
        self._in_flight_bytes -= len(item.data)
        action = item.action
        if action is not None:
            if error is None:
                self._awaiting_host = item
            else:
                self._marker_states[action.line] = "error"
                action = None
        return StreamAck(item, error, action)

    def host_done(self, action: HostAction, *, ran: bool, ok: bool = True) -> None:
        """Record that the host action of the last answered sync point ran (or was skipped with ``ran``
        False); streaming may go on."""
        self._awaiting_host = None
        if ran:
            if action.kind == "magnet-on" and ok:
                self._host_magnet_on = True
            elif action.kind == "magnet-off" and ok:
                self._host_magnet_on = False
                # The program's own release ran: the one queued by halt() is not needed any more.
                self._extra = deque(item for item in self._extra if item.action is None)
            if action.line in self._marker_states:
                self._marker_states[action.line] = "ok" if ok else "error"

    def halt(self) -> None:
        """Send no more program lines; queue what releases the magnet (as the lines sent left it) and a
        final ``G4 P0``. Lines already sent are still answered and recorded."""
        if self._halted:
            return
        self._halted = True
        releases: list[Outgoing] = []
        if self._spindle_on:
            releases.append(Outgoing(b"M5\n", None))
        if self._coolant_on:
            releases.append(Outgoing(b"M9\n", None))
        pending_engage = self._awaiting_host is not None and (
            self._awaiting_host.action is not None and self._awaiting_host.action.kind == "magnet-on"
        )
        if self._host_magnet_on or pending_engage:
            releases.append(Outgoing(b"G4P0\n", None, action=HostAction("magnet-off", "MAGNET OFF", 0)))
        elif releases:
            releases.append(Outgoing(b"G4P0\n", None))
        self._extra.extend(releases)

    def forget_in_flight(self) -> tuple[Outgoing, ...]:
        """Drop every line in flight without an answer (their answers were lost): they stay ``sent``."""
        lost = self.in_flight
        self._in_flight.clear()
        self._extra_sent.clear()
        self._in_flight_bytes = 0
        self._awaiting_host = None
        return lost

    def result(self, error: ChessatronError | None, elapsed_s: float) -> StreamResult:
        """The :class:`StreamResult` of the lines so far, ended by ``error`` (None: it ran to the end)."""
        unfinished = None if self.is_finished else self.running_line
        return StreamResult(self.states(), error, elapsed_s, unfinished)


def program_line(number: int, raw: str) -> ProgramLine:
    """Program line ``number`` as the streamer sends it. Raises :class:`GcodeError` for a line that cannot
    be streamed safely (see :class:`Streamer`)."""
    text = raw.removesuffix("\n").removesuffix("\r")
    if "\n" in text or "\r" in text:
        raise GcodeError(
            _("program line {line} {text!r} holds a line break; give one line each").format(
                line=number, text=text[:40]
            )
        )
    block, comments = strip_line(text)
    bad = next((c for c in block if c in _REALTIME or ord(c) > 127), None)
    if bad is not None:
        raise GcodeError(
            _(
                "program line {line} {text!r} holds {character!r}, which grbl takes as a real-time command; "
                "remove it or put it in a comment"
            ).format(line=number, text=text[:60], character=bad)
        )
    if len(block) > MAX_BLOCK_CHARS:
        raise GcodeError(
            _(
                "program line {line} is {count} characters without spaces and comments; grbl's line buffer "
                "holds {most}: split {text!r}…"
            ).format(line=number, count=len(block), most=MAX_BLOCK_CHARS, text=text[:40])
        )
    actions = [a for a in (host_action(c, number) for c in comments) if a is not None]
    if len(actions) > 1:
        raise GcodeError(
            _("program line {line} {text!r} marks two host actions; put each on its own line").format(
                line=number, text=text
            )
        )
    return ProgramLine(number, text, block or None, actions[0] if actions else None)
