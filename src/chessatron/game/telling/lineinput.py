"""A line typed at the terminal, as in a shell: GNU readline's editing (the arrows, Home, End, Ctrl-A,
Ctrl-E...), the history of what was typed (the Up arrow), Tab completion of what may be typed (the legal
moves in SAN and UCI, the commands), a prompt that changes while it waits (a chess clock counting down),
and the line as it is being typed, told to whoever follows it (:func:`follow`: the robot's magnet heads
for the piece a move being typed begins with).

:func:`read_line` is ``input()`` with all that when both ends are a terminal, and plain ``input()``
otherwise (a pipe, a file, a test): the same lines come back either way. Readline is Python's standard
``readline`` module; the changing prompt needs three of GNU readline's functions that the module does
not wrap (``rl_set_prompt``, ``rl_on_new_line``, ``rl_redisplay``), called through ``ctypes`` from
Python's input hook, which readline runs on the reading thread while it waits for a key: ten times a
second, and before it takes each key in (so a key shows in the line at the next key, or a tenth of a
second later at most). The same hook reads the line typed so far (``readline.get_line_buffer()``, GNU
readline's ``rl_line_buffer``). Where any of that is missing (Windows, libedit without those functions,
no ``PyOS_InputHook``) the prompt stays as it was first shown and nobody is told what is being typed.

>>> prompt = Prompt("[5:00] White to move: ", lambda: "[4:59] White to move: ")
>>> prompt == "[5:00] White to move: ", prompt.current()
(True, '[4:59] White to move: ')
"""

from __future__ import annotations

import atexit
import contextlib
import io
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, Final

__all__ = ["Prompt", "follow", "offer", "read_line", "tell"]

LOGGER = logging.getLogger(__name__)

_lock = threading.Lock()
_words: tuple[str, ...] = ()
_following: Callable[[str], None] | None = None
_readline: ModuleType | None = None
_set_up = False
#: How soon a Ctrl-C that reached the input hook is sent again, for readline to hear (seconds): the hook
#: has returned by then.
_AGAIN_S = 0.01
#: The terminal's settings before readline took it over, while a line is being read (None otherwise).
_terminal_before: list[Any] | None = None


class Prompt(str):
    """A prompt whose text changes while it waits: it is the text to show first, and :meth:`current`
    says what it should read now (``"[4:53] White to move: "`` a second after ``"[4:54] ..."``).
    Anything that takes a plain prompt string takes a :class:`Prompt` (it shows its first text)."""

    _current: Callable[[], str] | None

    def __new__(cls, text: str, current: Callable[[], str] | None = None) -> Prompt:
        prompt = super().__new__(cls, text)
        prompt._current = current
        return prompt

    def current(self) -> str:
        """The prompt's text now (its first text when nothing changes it)."""
        return self._current() if self._current is not None else str(self)


def offer(words: Iterable[str]) -> None:
    """What Tab completes to at the next prompts: the legal moves, the commands (any order, no repeats)."""
    global _words
    with _lock:
        _words = tuple(dict.fromkeys(words))


def follow(listener: Callable[[str], None] | None) -> None:
    """Who is told the line typed so far at the next prompts, while they wait for keys (None: nobody):
    called with the whole line whenever it changed, on the thread that reads the keys, so it must return
    at once. Only a prompt read by readline at a terminal tells (see :func:`read_line`)."""
    global _following
    with _lock:
        _following = listener


def tell(text: str) -> None:
    """Tell whoever :func:`follow` names that the line being typed reads ``text`` so far (the input hook
    calls this while readline waits for keys). A follower that fails is logged, never raised: a move is
    still read whatever the follower does."""
    with _lock:
        listener = _following
    if listener is None:
        return
    try:
        listener(text)
    except Exception:
        LOGGER.debug("the follower of the line typed failed on %r", text, exc_info=True)


def completions(text: str, words: Iterable[str] | None = None) -> list[str]:
    """The words (default: those :func:`offer` gave) that complete ``text``, case aside: ``nf`` -> ``Nf3``.

    >>> completions("nf", ["Nf3", "Nc3", "e4", "g1f3"])
    ['Nf3']
    """
    with _lock:
        pool = _words if words is None else tuple(words)
    lower = text.lower()
    return [word for word in pool if word.lower().startswith(lower)]


def _complete(text: str, state: int) -> str | None:
    """Readline's completer: the ``state``-th completion of ``text``."""
    try:
        found = completions(text)
        return found[state] if state < len(found) else None
    except Exception:  # an exception here would only be swallowed by readline
        LOGGER.debug("completion of %r failed", text, exc_info=True)
        return None


def _terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed streams
        return False


def _with_readline() -> ModuleType | None:
    """Python's readline, set up once for moves (completion on Tab, words split at spaces only, so that
    ``O-O`` and ``e8=Q`` complete whole); None where it is missing."""
    global _readline, _set_up
    if _set_up:
        return _readline
    _set_up = True
    try:
        import readline
    except ImportError:  # Windows, or a Python built without it
        return None
    try:
        if "libedit" in (readline.__doc__ or ""):
            readline.parse_and_bind("bind ^I rl_complete")
        else:
            readline.parse_and_bind("tab: complete")
        readline.set_completer_delims(" \t\n")
        readline.set_completer(_complete)
    except Exception:  # a readline that cannot be set up still edits lines
        LOGGER.debug("readline could not be set up", exc_info=True)
    _readline = readline
    atexit.register(_give_the_terminal_back)
    return readline


def _give_the_terminal_back() -> None:
    """At exit, a line still being read (on a thread of its own, given up when the game stopped) leaves
    the terminal as readline set it: no echo, no line editing by the terminal. Put it back."""
    saved = _terminal_before
    if saved is None:
        return
    with contextlib.suppress(ImportError, OSError, ValueError, AttributeError):
        import termios

        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)
        sys.stdout.write("\n")
        sys.stdout.flush()


@contextlib.contextmanager
def _keeping_the_terminal() -> Iterator[None]:
    """Remember the terminal's settings while readline has it (for :func:`_give_the_terminal_back`)."""
    global _terminal_before
    try:
        import termios

        _terminal_before = termios.tcgetattr(sys.stdin.fileno())
    except (ImportError, OSError, ValueError, AttributeError):
        _terminal_before = None
    try:
        yield
    finally:
        _terminal_before = None


def _redrawing(prompt: str, readline: ModuleType) -> Callable[[], None] | None:
    """What redraws ``prompt`` whenever :meth:`Prompt.current` changes, from the input hook; None for a
    prompt that never changes, or where GNU readline's functions for it are missing."""
    if not isinstance(prompt, Prompt):
        return None
    try:
        import ctypes

        library = ctypes.CDLL(getattr(readline, "__file__", None))
        set_prompt = library.rl_set_prompt
        on_new_line = library.rl_on_new_line
        redisplay = library.rl_redisplay
        out = sys.stdout.fileno()
    except (ImportError, AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None  # no way to change the prompt: it stays as first shown
    set_prompt.argtypes = [ctypes.c_char_p]
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    shown = [str(prompt)]

    def redraw() -> None:
        text = prompt.current()
        if text != shown[0]:
            shown[0] = text
            set_prompt(text.encode(encoding, "replace"))
            # back to the start of the line and clear it; readline draws prompt and typing afresh
            os.write(out, b"\r\x1b[K")
            on_new_line()
            redisplay()

    return redraw


@contextlib.contextmanager
def _hooked(prompt: str, readline: ModuleType) -> Iterator[None]:
    """While readline waits for keys, redraw a :class:`Prompt` whenever its text changes and tell the
    follower (:func:`follow`) the line typed so far whenever that changes."""
    redraw = _redrawing(prompt, readline)
    try:
        import ctypes

        hook = ctypes.c_void_p.in_dll(ctypes.pythonapi, "PyOS_InputHook")
    except (ImportError, AttributeError, OSError, ValueError):
        yield  # no input hook: the prompt stays as first shown, and nobody hears of the typing
        return
    told = [""]
    before = hook.value
    held = _HeldSignals()

    def tick() -> int:
        # readline's own thread, between keys: the one place where its display may be changed
        if held.signum is not None:
            # Ctrl-C (or SIGTERM) came while the line was read. Raised in here, it would go to ctypes,
            # which only prints it, and the line would go on being read. Take the hook away (readline
            # then waits for keys with no timeout, and no Python runs between a signal and readline's own
            # check of it), give the signal its handler back and send it again: readline hears it, ends
            # the line, and input() raises what the handler raises, as it does without a hook.
            hook.value = before
            held.send_again(_AGAIN_S)
            return 0
        if redraw is not None:
            try:
                redraw()
            except Exception:  # never let a prompt's clock break the reading of a move
                LOGGER.debug("the prompt could not be redrawn", exc_info=True)
        try:
            text = readline.get_line_buffer()
        except Exception:  # a readline without it: nobody hears of the typing
            LOGGER.debug("the line typed could not be read", exc_info=True)
            return 0
        if text != told[0]:
            told[0] = text
            tell(text)
        return 0

    callback: Any = ctypes.CFUNCTYPE(ctypes.c_int)(tick)
    held.hold()
    hook.value = ctypes.cast(callback, ctypes.c_void_p).value
    try:
        yield
    finally:
        hook.value = before
        del callback
        held.send_again(0.0)  # a signal noted as the line ended is raised here, not lost


#: The signals a command turns into an exception: Ctrl-C, and SIGTERM (:mod:`chessatron.termination`).
_STOPPING: Final = (signal.SIGINT, signal.SIGTERM)


class _HeldSignals:
    """While the input hook is in place, Ctrl-C and SIGTERM are noted instead of raised: Python runs a
    signal's handler at the next Python code of the main thread, and while a line is read that is the
    hook, called by readline through ctypes, which swallows an exception (it prints ``Exception ignored on
    calling ctypes callback function`` and the line goes on being read). The hook then hands the signal
    back (:meth:`send_again`). Only the main thread may set handlers; elsewhere nothing is held (signals
    are handled on the main thread anyway)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._handlers: dict[int, Any] = {}

    def hold(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in _STOPPING:
            handler = signal.getsignal(signum)
            if callable(handler):  # an ignored or default signal stays as it is
                self._handlers[signum] = signal.signal(signum, self._note)

    def _note(self, signum: int, frame: object) -> None:
        if self.signum is None:
            self.signum = signum

    def send_again(self, delay_s: float) -> None:
        """Give the signals their handlers back and send the one noted again, after ``delay_s`` (from a
        timer thread, so that the hook has returned) or at once (0)."""
        for signum, handler in self._handlers.items():
            signal.signal(signum, handler)
        self._handlers.clear()
        noted, self.signum = self.signum, None
        if noted is None:
            return
        if delay_s <= 0:
            os.kill(os.getpid(), noted)
            return
        again = threading.Timer(delay_s, os.kill, (os.getpid(), noted))
        again.daemon = True
        again.start()


def read_line(prompt: str) -> str | None:
    """``input(prompt)`` with line editing, history and completion on a terminal; None at the end of
    input (Ctrl-D). A :class:`Prompt` is redrawn as it changes, and the follower (:func:`follow`) is
    told the line as it is typed. Bytes that are not text (in any locale)
    become U+FFFD, and so an unknown move, never an exception that would lose the lines read with them."""
    stdin = sys.stdin
    if isinstance(stdin, io.TextIOWrapper) and stdin.errors == "strict":
        stdin.reconfigure(errors="replace")
    readline = _with_readline() if _terminal() else None
    hooked: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if readline is not None:
        hooked = _hooked(prompt, readline)
    keeping = _keeping_the_terminal() if readline is not None else contextlib.nullcontext()
    try:
        with keeping, hooked:
            return input(str(prompt))
    except EOFError:
        return None
