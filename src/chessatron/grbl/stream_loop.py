"""The streaming loop of :meth:`GrblLink.stream <chessatron.grbl.link.GrblLink.stream>`: the I/O around
a :class:`~chessatron.grbl.charcount.Streamer` for one program, through the link's wire
(:class:`~chessatron.grbl.wire.GrblWire`).

It writes what the streamer says fits, polls status, hands each answer to the streamer and runs the host
actions at their sync points. Whatever GRBL or the port does ends the stream at a safe point, never with
an exception: an ``error:N`` halts it (the streamer then releases the magnet), an alarm, a reset or a
lost connection stop it, a garbled reply stops it and waits until GRBL is idle, and a board that goes
silent gets a soft reset (from its serial interrupt it switches the magnet outputs off). Every stop says
whether a piece may still hang on the magnet, and where the gantry stood.

Silence is judged by reads (:mod:`~chessatron.grbl.waits`): a board is silent only when a read that began
:attr:`~chessatron.grbl.wire.GrblWire.timeout_s` after it was asked something found nothing, so a host that
stalled (a busy Raspberry Pi) is logged as such and never taken for a frozen board.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Callable

from ..errors import (
    ChessatronError,
    ConnectionLostError,
    GarbledReplyError,
    GrblAlarm,
    GrblError,
    GrblResetError,
)
from ..i18n import _
from ..ports import HostMagnet
from .charcount import HostAction, Outgoing, Streamer, StreamProgress, StreamResult, dwell_s
from .protocol import RX_BUFFER_BYTES, Alarm, Error, Garbled, Message, Ok, Welcome, looks_like_reply
from .waits import Pace
from .wire import SOFT_RESET, GrblWire, number_text

__all__ = ["StreamInterrupted", "StreamRun"]

LOGGER = logging.getLogger(__name__)

# After a garbled reply: how long without an answer (and with GRBL idle) before its buffer is known empty.
_QUIET_S = 0.3
# A board gone silent is sent a soft reset (it switches the outputs off from the serial interrupt); how
# long to wait for the banner that shows it was only stuck.
_REVIVE_S = 0.5


class StreamInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a stream: the machine was sent a feed hold (``held``: the ``!`` went
    out) and stands still where it stopped, with the program line it was running (``line``) and the
    magnet as the lines sent left it (``magnet_may_be_on``): a piece may still hang on it."""

    def __init__(self, *, line: int | None, held: bool, magnet_may_be_on: bool) -> None:
        super().__init__()
        self.line = line
        self.held = held
        self.magnet_may_be_on = magnet_may_be_on


class StreamRun:
    """One :meth:`GrblLink.stream <chessatron.grbl.link.GrblLink.stream>` call: the I/O loop around a
    :class:`Streamer`, reading and writing through the link's wire (``link``).

    ``on_progress`` and ``on_host`` are the caller's (see the link's ``stream``); ``host_magnet`` is
    switched at the program's magnet markers, and ``homing_wait_s`` says how long GRBL may stay silent
    while a ``$H`` of the program runs (asked only then: it reads the board's settings).
    """

    def __init__(
        self,
        link: GrblWire,
        streamer: Streamer,
        *,
        on_progress: Callable[[StreamProgress], None] | None,
        on_host: Callable[[str], None] | None,
        host_magnet: HostMagnet | None,
        homing_wait_s: Callable[[], float],
    ) -> None:
        self.link = link
        self.streamer = streamer
        self.on_progress = on_progress
        self.on_host = on_host
        self.host_magnet = host_magnet
        self.homing_wait_s = homing_wait_s
        self.started = time.monotonic()
        self.failure: ChessatronError | None = None
        self.swallowing = False  # after a garbled reply: drop answers until GRBL is quiet and idle
        self.last_answer = self.started
        self.last_progress = -math.inf
        self.idle_since: float | None = None  # since when GRBL is idle and empty with lines unanswered
        self.homing_s: float | None = None  # homing_wait_s(), once a $H of the program asked for it
        self.told_magnet = False  # the failure says already what became of the magnet

    def run(self) -> StreamResult:
        link, streamer = self.link, self.streamer
        link._owed_since = None  # what an earlier wait left unanswered is no part of this one
        next_poll = self.started
        pace = Pace(link.url)
        try:
            while not streamer.is_finished or self.swallowing:
                while not self.swallowing and (item := streamer.next_item()) is not None:
                    link._write(item.data, streamer.running_line)
                    streamer.mark_sent(item)
                # every wait below is judged by the time this read began, after it: a host that stalled
                # before it reads what grbl sent meanwhile before anything is decided
                now = pace.before_read()
                if now >= next_poll:
                    link._write(b"?", streamer.running_line)
                    next_poll = now + 1.0 / link.status_hz
                messages = link._read(streamer.running_line)
                pace.after_read()
                for message in messages:
                    self._handle(message)
                if link.is_silent(now, self._silence_allowed_s()):
                    raise self._silent()
                if self.swallowing:
                    self._check_quiet(now)
                else:
                    self._check_stuck(now)
                self._progress(now)
                pace.rest()  # host actions (a servo's travel) and the progress bar take their time
        except (ConnectionLostError, GrblAlarm, GrblResetError) as exc:
            self._fail(exc if self.told_magnet else self._with_magnet(exc))
            self._release_host()
        except KeyboardInterrupt as stop:
            # The user stopped the run: hold the machine where it is, keep the position.
            held = False
            with contextlib.suppress(ChessatronError):
                link._write(b"!")
                link.is_held = held = True
            magnet = streamer.grbl_magnet_may_be_on or streamer.host_magnet_on
            raise StreamInterrupted(line=streamer.running_line, held=held, magnet_may_be_on=magnet) from stop
        self._progress(time.monotonic(), force=True)
        return streamer.result(self.failure, time.monotonic() - self.started)

    def _silence_allowed_s(self) -> float:
        """The link's timeout, or while a ``$H`` of the program runs, as long as homing may take: GRBL
        answers nothing, not even ``?``, until the cycle is over."""
        if any(item.block.startswith("$H") for item in self.streamer.in_flight):
            if self.homing_s is None:
                self.homing_s = self.homing_wait_s()
            return self.homing_s
        return self.link.timeout_s

    def _silent(self) -> ConnectionLostError:
        """GRBL answers nothing, not even ``?``: send it a soft reset (from its serial interrupt a reset
        switches the spindle and coolant outputs off at once, even with the main loop stuck) and tell
        whether it came back or stays frozen, with the magnet as the lines sent left it."""
        link, streamer = self.link, self.streamer
        line = streamer.running_line
        silence = _("grbl sent nothing for {seconds} s, not even a status report").format(
            seconds=number_text(link.timeout_s)
        )
        revived = False
        self.told_magnet = True
        with contextlib.suppress(ChessatronError):
            link._write(SOFT_RESET, line)
            # read until the banner or a read begun past the wait found none: the board has had its chance
            revived = link._wait_banner(_REVIVE_S) is not None
        link.is_held = False
        if revived:
            return link._lost(
                _(
                    "{silence}; a soft reset brought it back and switched its outputs off (a piece on the "
                    "magnet was dropped where the gantry stood)"
                ).format(silence=silence),
                line=line,
            )
        if streamer.grbl_magnet_may_be_on:
            what = _(
                "the board has frozen with the magnet on, so a piece may still hang on it where the gantry "
                "stopped, and it ignores a soft reset: switch the machine's power off (the magnet lets go "
                "of the piece), check the board and the cable, then switch it on, home and resume"
            )
        else:
            what = _(
                "the board has frozen (it ignores a soft reset); its magnet output was off: switch the "
                "machine's power off and on, check the board and the cable, then connect, home and resume"
            )
        if line is not None:
            text = _("grbl on {url!r} stopped answering while running program line {line}: {silence}; {what}")
        else:
            text = _("grbl on {url!r} stopped answering while running the program: {silence}; {what}")
        return ConnectionLostError(
            text.format(url=link.url, line=line, silence=silence, what=what), line=line
        )

    def _stopped_at(self, error: ChessatronError) -> tuple[float, ...] | None:
        """Where the gantry stood when ``error`` stopped it. After an alarm GRBL is asked (it answers ``?``
        in its alarm state; after a limit alarm only once it has had the soft reset it waits for, which
        keeps its position and its alarm lock): the last report may be a poll old, and on the simulator at
        full speed from before the program began. After a restart or a lost port: the last report."""
        status = self.link.last_status
        if isinstance(error, GrblAlarm):
            try:
                status = self.link.status_after_alarm()
            except ChessatronError as exc:
                LOGGER.warning("where grbl on %s stopped is unknown: %s", self.link.url, exc)
                return None
        return status.machine_position() if status is not None else None

    def _with_magnet(self, error: ConnectionLostError | GrblAlarm | GrblResetError) -> ChessatronError:
        """``error`` (an alarm, a restart, a port that failed) with what became of the magnet and the piece
        it may hold, and where the gantry stopped (:meth:`_stopped_at`). After an alarm or a restart GRBL
        has emptied its buffers: the magnet is as the switches it answered left it (a switch it had not
        answered was never made); a board whose cable was pulled may run on what it holds: as the lines
        sent left it."""
        streamer = self.streamer
        position = self._stopped_at(error)
        # each note twice: with where the gantry stood (X… Y…, G-code's way), and without (unknown)
        known = position is not None and len(position) >= 2
        at = f"X{position[0]:.1f} Y{position[1]:.1f}" if position is not None and known else ""
        how = ""
        if isinstance(error, ConnectionLostError):
            if streamer.grbl_magnet_may_be_on:
                note = (
                    _(
                        "the magnet was on: a board powered through the USB cable stopped with its outputs "
                        "off, so the piece it held, if any, dropped where the gantry stood near {position}; "
                        "a board with power of its own finishes the line it had and stands with the magnet "
                        "still on, the piece hanging on it there: switch the machine's power off to drop it"
                    )
                    if known
                    else _(
                        "the magnet was on: a board powered through the USB cable stopped with its outputs "
                        "off, so the piece it held, if any, dropped where the gantry stood; a board with "
                        "power of its own finishes the line it had and stands with the magnet still on, the "
                        "piece hanging on it there: switch the machine's power off to drop it"
                    )
                )
            elif streamer.host_magnet_on:
                note = (
                    _(
                        "the host released its magnet: the piece it held, if any, dropped where the gantry "
                        "stood near {position}"
                    )
                    if known
                    else _(
                        "the host released its magnet: the piece it held, if any, dropped where the gantry "
                        "stood"
                    )
                )
            else:
                note = (
                    _("the magnet was off: no piece hangs on it (the gantry stood near {position})")
                    if known
                    else _("the magnet was off: no piece hangs on it")
                )
        elif streamer.grbl_magnet_was_on or streamer.host_magnet_on:
            if not streamer.grbl_magnet_was_on:
                how = _("the host released its magnet")
            elif isinstance(error, GrblAlarm):
                how = _("grbl's alarm switched its outputs off")
            else:
                how = _("grbl's restart switched its outputs off")
            note = (
                _(
                    "the magnet was on: {how}, so no piece hangs on it; the piece it held, if any, dropped "
                    "where the gantry stopped near {position}, maybe off its square"
                )
                if known
                else _(
                    "the magnet was on: {how}, so no piece hangs on it; the piece it held, if any, dropped "
                    "where the gantry stopped, maybe off its square"
                )
            )
        elif streamer.grbl_magnet_switched_by is not None:
            note = (
                _(
                    "the magnet was off (line {line} had switched it off): no piece hangs on it; the gantry "
                    "stopped near {position}"
                )
                if known
                else _("the magnet was off (line {line} had switched it off): no piece hangs on it")
            )
        else:
            note = (
                _("the magnet was off: no piece hangs on it; the gantry stopped near {position}")
                if known
                else _("the magnet was off: no piece hangs on it")
            )
        said = note.format(position=at, how=how, line=streamer.grbl_magnet_switched_by)
        text = f"{error}; {said}"
        amended: ChessatronError
        if isinstance(error, GrblAlarm):
            amended = GrblAlarm(text, code=error.code, line=error.line)
        elif isinstance(error, GrblResetError):
            amended = GrblResetError(text, line=error.line)
        else:
            amended = ConnectionLostError(text, line=error.line)
        amended.__cause__ = error
        return amended

    def _fail(self, error: ChessatronError) -> None:
        if self.failure is None:
            self.failure = error
        self.streamer.halt()

    def _handle(self, message: Message) -> None:
        link, streamer = self.link, self.streamer
        if isinstance(message, Ok | Error):
            self.last_answer = time.monotonic()
            if self.swallowing:
                return
            ack = streamer.acknowledge(message)
            if ack is None:
                LOGGER.warning("grbl on %s answered %r with nothing in flight", link.url, message)
                return
            if ack.error is not None:
                self._fail(self._rejected(ack.item, ack.error))
            if ack.action is not None:
                self._run_action(ack.action)
        elif isinstance(message, Alarm):
            if message.code == 2:
                # a soft limit: grbl raises it as it plans the line with the target out of reach, in place
                # of that line's answer (the lines before it may still be running)
                raise link._alarm(message, streamer.oldest_line, planned=True)
            raise link._alarm(message, streamer.running_line)
        elif isinstance(message, Welcome):
            line = streamer.running_line
            raise GrblResetError(
                _(
                    "grbl restarted (its banner arrived) while running program line {line}; the lines it had "
                    "buffered are lost and the position may be too: home and run the program again"
                ).format(line=line),
                line=line,
            )
        elif isinstance(message, Garbled) and looks_like_reply(message):
            line = streamer.oldest_line
            self._fail(
                GarbledReplyError(
                    _(
                        "a reply from grbl arrived garbled ({text!r}) while program line {line} was running, "
                        "so which lines grbl accepted is unknown; the program was stopped and the magnet "
                        "released: check the cable (noise) and the baud rate, then run it again"
                    ).format(text=message.text, line=line),
                    line=line,
                )
            )
            streamer.forget_in_flight()
            self.swallowing = True

    def _check_stuck(self, now: float) -> None:
        """A reply lost without a trace (noise that ate a whole line) leaves lines unanswered for ever while
        GRBL sits idle with an empty buffer: after :attr:`GrblLink.timeout_s` of that (plus the dwells in
        flight, during which GRBL also reports ``Idle``), stop."""
        link, streamer = self.link, self.streamer
        status = link.last_status
        in_flight = streamer.in_flight
        idle = (
            bool(in_flight)
            and status is not None
            and link._last_status_at > self.last_answer
            and status.state == "Idle"
            and (status.rx_free is None or status.rx_free >= RX_BUFFER_BYTES - 1)
        )
        if not idle:
            self.idle_since = None
            return
        if self.idle_since is None:
            self.idle_since = now
            return
        if now - self.idle_since <= link.timeout_s + sum(dwell_s(item.block) for item in in_flight):
            return
        line = streamer.running_line
        self._fail(
            GarbledReplyError(
                _(
                    "grbl is idle with an empty buffer but never answered program line {line}: its answer "
                    "was lost, so which lines it accepted is unknown; the program was stopped and the magnet "
                    "released: check the cable (noise) and the baud rate, then run it again"
                ).format(line=line),
                line=line,
            )
        )
        streamer.forget_in_flight()
        self.idle_since = None

    def _check_quiet(self, now: float) -> None:
        """Leave the garbled-reply state once GRBL has answered everything: idle, receive buffer empty."""
        status = self.link.last_status
        if (
            now - self.last_answer < _QUIET_S
            or status is None
            or self.link._last_status_at <= self.last_answer
        ):
            return
        if status.state == "Idle" and (status.rx_free is None or status.rx_free >= RX_BUFFER_BYTES - 1):
            self.swallowing = False

    def _run_action(self, action: HostAction) -> None:
        streamer = self.streamer
        if streamer.halted and not action.is_release:
            streamer.host_done(action, ran=False)  # after an error nothing new is picked up
            return
        try:
            self._host(action)
        except ChessatronError as exc:
            streamer.host_done(action, ran=True, ok=False)
            self._fail(exc)
            return
        streamer.host_done(action, ran=True)

    def _host(self, action: HostAction) -> None:
        if action.kind == "host":
            assert self.on_host is not None
            self.on_host(action.name)
            return
        magnet = self.host_magnet
        assert magnet is not None
        if action.kind == "magnet-on":
            magnet.engage()
        else:
            magnet.release()

    def _release_host(self) -> None:
        magnet = self.host_magnet
        if magnet is None or not self.streamer.host_magnet_on:
            return
        try:
            magnet.release()
            self.streamer.host_done(HostAction("magnet-off", "MAGNET OFF", 0), ran=True)
        except ChessatronError as exc:
            LOGGER.error("could not release the host magnet after %s: %s", self.failure, exc)

    def _rejected(self, item: Outgoing, error: Error) -> GrblError:
        if item.line is None:
            return GrblError(
                _("grbl rejected the streamer's own {block!r} with error:{code} ({meaning})").format(
                    block=item.block, code=error.code, meaning=error.text
                ),
                code=error.code,
            )
        text = self.streamer.text(item.line)
        return GrblError(
            _(
                "grbl rejected program line {line} {text!r} with error:{code} ({meaning}); the program was "
                "stopped there and the magnet released: fix the line and run the rest again"
            ).format(line=item.line, text=text, code=error.code, meaning=error.text),
            code=error.code,
            line=item.line,
        )

    def _progress(self, now: float, *, force: bool = False) -> None:
        if self.on_progress is None or (not force and now - self.last_progress < 0.05):
            return
        self.last_progress = now
        self.on_progress(self.streamer.progress(self.link.last_status, now - self.started))
