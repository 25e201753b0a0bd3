"""The connect handshake with GRBL, free of I/O: which banner opens the session, and whether the answers to
``$I`` and ``$$`` are those commands' answers, line by line.

Why it needs care: an Arduino resets when its port is opened (the DTR line) and its bootloader waits a
second or two before GRBL starts; a board can also start late by itself. GRBL's *power-up* banner can then
arrive after the host sent its soft reset (control-x), and the reset's own banner a moment later. A host
that took the first banner for the reset's answer would send ``$$`` into a board about to reset: the
answers drift by one, ``$I`` receives the ``ok`` of a ``$$``, its ``[OPT:…]`` line is lost and the build
goes unchecked.

So :class:`BannerWatch` drops everything before the first banner and lets the session open only once no
further banner can come, judged by count and by timing: when every reset sent has been answered and a
boot's banner came too (more is impossible); when the one banner came within :data:`PROMPT_S` of the
reset (GRBL answers a reset at once; a booting board's banner comes a second or more after the port
opened); or else when a read begun :data:`SETTLE_S` after the last banner found the line quiet (GRBL
answers a reset that waited in its buffer within milliseconds of its power-up banner, so a second banner
cannot come later than that). Then :func:`build_answer_problem` and :func:`settings_answer_problem`
check each answer line by line: ``$I`` is ``[VER:…]``, ``[OPT:…]``, ``ok``; ``$$`` is ``$N=value`` lines,
``ok``. An answer of the wrong shape means the exchange is out of step, and the link starts it over.

>>> from chessatron.grbl.protocol import parse_message
>>> watch = BannerWatch()
>>> watch.sent_reset(0.0)
>>> watch.heard([parse_message("ok"), parse_message("Grbl 1.1h ['$' for help]")], 1.50)
>>> watch.settled(1.55)  # a banner long after the reset: the board's boot's, the reset's may follow
False
>>> watch.heard([parse_message("Grbl 1.1h ['$' for help]")], 1.56)
>>> watch.banners, watch.settled(1.57)  # a boot's banner and the reset's: no more can come
(2, True)
>>> build_answer_problem([parse_message("[VER:1.1h.20190830:]"), parse_message("[OPT:VCZ,15,128]")]) is None
True
>>> build_answer_problem([parse_message("$0=10")])
"'$I' was answered with settings ($N=… lines) and no [VER:…] or [OPT:…] line: the answers are out of step"
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..i18n import _, ngettext
from .protocol import Feedback, Garbled, Message, PushMessage, Setting, StartupBlock, Status, Welcome

__all__ = ["PROMPT_S", "SETTLE_S", "BannerWatch", "build_answer_problem", "settings_answer_problem"]

#: How long the line must stay quiet after a banner before the session opens (seconds). A soft reset
#: that waited in a booting board's buffer is answered within milliseconds of the power-up banner.
SETTLE_S = 0.2
#: A banner this soon after the host's soft reset (seconds) is that reset's answer: GRBL answers at once
#: (a USB serial adapter's latency included), a board booting as its port opened a second or more later.
PROMPT_S = 0.1


@dataclass
class BannerWatch:
    """Counts the banners that answer the host's soft resets (and a boot's), to tell when the session
    may open (see the module's docs). Times are the host's monotonic seconds."""

    settle_s: float = SETTLE_S
    prompt_s: float = PROMPT_S
    resets_sent: int = 0
    banners: int = 0
    last_reset_at: float | None = None
    last_banner_at: float | None = None
    welcome: Welcome | None = None
    """The last banner heard: the one that opens the session."""

    def sent_reset(self, at: float) -> None:
        """The host has sent a soft reset, at ``at``."""
        self.resets_sent += 1
        self.last_reset_at = at

    def heard(self, messages: Sequence[Message], at: float) -> None:
        """Messages read, the read over at ``at``. Everything but a banner is dropped: it belongs to the
        session before."""
        for message in messages:
            if isinstance(message, Welcome):
                self.banners += 1
                self.last_banner_at = at
                self.welcome = message

    def settled(self, read_began: float) -> bool:
        """True once the session may open, judged after a read that began at ``read_began`` (and found
        what :meth:`heard` was told)."""
        if self.last_banner_at is None:
            return False
        if self.banners > self.resets_sent:
            return True  # every reset answered, and a boot's banner besides: no more can come
        reset = self.last_reset_at
        if self.banners == 1 and reset is not None and self.last_banner_at - reset <= self.prompt_s:
            return True  # the reset's own answer, at once: no boot under way
        return read_began - self.last_banner_at >= self.settle_s


def _answers(messages: Sequence[Message]) -> list[Message]:
    """The lines of an answer that belong to it: status reports and feedback messages come at any time."""
    return [m for m in messages if not isinstance(m, Status | Feedback)]


def build_answer_problem(messages: Sequence[Message]) -> str | None:
    """What is wrong with the lines that came before ``$I``'s ``ok``, or None if they are its answer: a
    ``[VER:…]`` line, then an ``[OPT:…]`` line, nothing else."""
    lines = _answers(messages)
    kinds = [m.kind if isinstance(m, PushMessage) else None for m in lines]
    garbled = [m for m in lines if isinstance(m, Garbled)]
    if garbled:
        return _("a line of the '$I' answer arrived garbled ({text!r})").format(text=garbled[0].text)
    if any(isinstance(m, Setting | StartupBlock) for m in lines):
        if "OPT" in kinds:
            return _("'$I' was answered with settings ($N=… lines) and [OPT:…]: the answers are out of step")
        return _(
            "'$I' was answered with settings ($N=… lines) and no [VER:…] or [OPT:…] line: the answers are "
            "out "
            "of step"
        )
    if kinds == ["VER", "OPT"]:
        return None
    if not lines:
        return _(
            "'$I' was answered with a bare 'ok', without its [VER:…] and [OPT:…] lines: that 'ok' answered "
            "something else, or the lines were lost"
        )
    if "OPT" not in kinds:
        return _("'$I' was answered without an [OPT:…] line ({lines})").format(lines=_shown(lines))
    return _("'$I' was answered with {lines}, not one [VER:…] and one [OPT:…] line: out of step").format(
        lines=_shown(lines)
    )


def settings_answer_problem(messages: Sequence[Message]) -> str | None:
    """What is wrong with the lines that came before ``$$``'s ``ok``, or None if they are its answer:
    ``$N=value`` lines, at least one, nothing else."""
    lines = _answers(messages)
    others = [m for m in lines if not isinstance(m, Setting)]
    if others:
        return _("'$$' was answered with {lines} among its settings: the answers are out of step").format(
            lines=_shown(others)
        )
    if not lines:
        return _("'$$' was answered with a bare 'ok', without a single setting: the answers are out of step")
    return None


def _shown(lines: Sequence[Message]) -> str:
    """A few lines of an answer, for a message."""
    shown = ", ".join(_text(m) for m in lines[:3])  # GRBL's lines as they came, quoted
    more = len(lines) - 3
    if more <= 0:
        return shown
    return ngettext("{lines} and {count} more", "{lines} and {count} more", more).format(
        lines=shown, count=more
    )


def _text(message: Message) -> str:
    if isinstance(message, PushMessage):
        return repr(f"[{message.kind}:{message.body}]")
    if isinstance(message, Setting):
        return repr(f"${message.number}={message.value}")
    if isinstance(message, Garbled | Welcome):
        return repr(message.text)
    return repr(message)
