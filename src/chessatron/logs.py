"""Where log records go while the ``chessatron`` command runs: the user sees chessatron's own warnings
and errors, one line each (the records themselves stay English; the words around them are in the table's
language); everything else (python-chess, asyncio, uvicorn, Python's warnings, the
tracebacks behind those lines) goes to a log file, so that no library's noise reaches the terminal.

``--debug`` (or ``CHESSATRON_DEBUG=1``) shows every record and every traceback on stderr instead. The log
file is ``$CHESSATRON_LOG``, else ``$XDG_STATE_HOME/chessatron/chessatron.log``
(``~/.local/state/chessatron/chessatron.log``), kept under two megabytes (it and one older file).

The command calls :func:`configure` once and :meth:`LogSetup.close` when it ends; nothing here runs on
import, so a program that uses chessatron as a library keeps its own logging.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from .i18n import _, pgettext

__all__ = ["LogSetup", "active", "configure", "default_log_path", "internal_error"]

LOGGER = logging.getLogger(__name__)

#: Set on a record whose message the user was already shown (an internal error), so it is only filed.
SHOWN = "chessatron_shown"
#: One log file's size, in bytes, before it is rotated.
MAX_LOG_BYTES = 1024 * 1024

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def default_log_path() -> Path:
    """``$CHESSATRON_LOG``, else ``$XDG_STATE_HOME/chessatron/chessatron.log``."""
    explicit = os.environ.get("CHESSATRON_LOG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "chessatron" / "chessatron.log"


class _UserHandler(logging.Handler):
    """chessatron's warnings and errors as one line each (``chessatron: warning: …``) on the stderr of the
    moment (click's test runner swaps it), tracebacks left to the log file."""

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, SHOWN, False):
            return
        try:
            lines = record.getMessage().splitlines() or [""]
        except Exception:
            self.handleError(record)
            return
        if record.levelno >= logging.ERROR:
            said = _("error: {message}").format(message=lines[0])
        else:
            said = _("warning: {message}").format(message=lines[0])
        click.echo(f"chessatron: {said}", err=True)

    def handleError(self, record: logging.LogRecord) -> None:
        """A stderr that is gone (a closed pipe) must not stop the game with a logging traceback."""


class _FileHandler(logging.handlers.RotatingFileHandler):
    """The log file, kept small; a file that cannot be written is given up on without a word."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


@dataclass
class LogSetup:
    """The logging :func:`configure` set up; :meth:`close` takes it down again."""

    debug: bool
    path: Path | None
    """The log file, None when it could not be made (then library records go nowhere)."""
    _handlers: list[tuple[logging.Logger, logging.Handler]] = field(default_factory=list)
    _levels: list[tuple[logging.Logger, int]] = field(default_factory=list)
    _thread_hook: Any = None

    def close(self) -> None:
        global _ACTIVE
        for logger, handler in self._handlers:
            logger.removeHandler(handler)
            handler.close()
        for logger, level in self._levels:
            logger.setLevel(level)
        self._handlers.clear()
        self._levels.clear()
        logging.captureWarnings(False)
        if self._thread_hook is not None:
            threading.excepthook = self._thread_hook
            self._thread_hook = None
        if _ACTIVE is self:
            _ACTIVE = None

    def _add(self, logger: logging.Logger, handler: logging.Handler) -> None:
        logger.addHandler(handler)
        self._handlers.append((logger, handler))

    def _level(self, logger: logging.Logger, level: int) -> None:
        self._levels.append((logger, logger.level))
        logger.setLevel(level)


_ACTIVE: LogSetup | None = None


def active() -> LogSetup | None:
    """The logging the running command configured, if any."""
    return _ACTIVE


def configure(*, debug: bool = False, path: Path | None = None) -> LogSetup:
    """Send chessatron's warnings and errors to the user, one line each, and every record at INFO (ours)
    or WARNING (libraries') and above to the log file at ``path`` (default :func:`default_log_path`).
    With ``debug``, every record and traceback goes to stderr as well. Replaces an earlier setup."""
    global _ACTIVE
    if _ACTIVE is not None:
        _ACTIVE.close()
    root, ours = logging.getLogger(), logging.getLogger("chessatron")
    setup = LogSetup(debug=debug, path=None)
    target = path or default_log_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        to_file: logging.Handler = _FileHandler(
            target, maxBytes=MAX_LOG_BYTES, backupCount=1, encoding="utf-8", delay=True
        )
        setup.path = target
    except OSError:
        to_file = logging.NullHandler()  # no log file: library records go nowhere, never to the terminal
    to_file.setFormatter(logging.Formatter(_FORMAT))
    setup._add(root, to_file)
    if debug:
        to_stderr = logging.StreamHandler(sys.stderr)
        to_stderr.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        setup._add(root, to_stderr)
        setup._level(root, logging.DEBUG)
        setup._level(ours, logging.DEBUG)
    else:
        user = _UserHandler(logging.WARNING)
        setup._add(ours, user)
        setup._level(root, logging.WARNING)
        setup._level(ours, logging.INFO)
    logging.captureWarnings(True)  # Python's warnings (gpiozero's, a library's deprecations) are filed too
    setup._thread_hook = threading.excepthook
    threading.excepthook = _thread_failed
    _ACTIVE = setup
    return setup


def _thread_failed(args: threading.ExceptHookArgs) -> None:
    """A thread that died of an unexpected exception: one line for the user, the traceback filed."""
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "a thread"
    exc_info = (args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback)
    LOGGER.error("internal error in thread %s", name, exc_info=exc_info, extra={SHOWN: not _debug()})
    if not _debug():
        said = _("internal error in {thread}: {detail}; please report it").format(
            thread=name, detail=_one_line(args.exc_value)
        )
        click.echo(f"chessatron: {said}", err=True)


def internal_error(exc: BaseException) -> str:
    """File ``exc``'s traceback and return the line to show the user (``--debug`` shows it instead)."""
    LOGGER.error("internal error", exc_info=exc, extra={SHOWN: True})
    setup = _ACTIVE
    if setup is not None and setup.path is not None:
        return _("internal error: {detail}; please report it (the details are in {path})").format(
            detail=_one_line(exc), path=setup.path
        )
    return _("internal error: {detail}; please report it (run with --debug to see the details)").format(
        detail=_one_line(exc)
    )


def _one_line(exc: BaseException | None) -> str:
    if exc is None:
        return pgettext("error", "unknown")
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _debug() -> bool:
    return _ACTIVE is not None and _ACTIVE.debug
