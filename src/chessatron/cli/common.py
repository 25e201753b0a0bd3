"""What every command shares: one line instead of a traceback (:func:`friendly`), SIGTERM as Ctrl-C,
the exit statuses, the options several commands take, and small helpers."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import ParamSpec, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .. import logs
from ..errors import ChessatronError
from ..i18n import N_, _
from ..planning.layout import Layout
from ..termination import ctrl_c_at_a_safe_moment, raising_on_sigterm
from .helptext import composed

P = ParamSpec("P")


R = TypeVar("R")


#: Exit status for a user error (bad file, illegal move, impossible table); 1 is a failed verdict.
EXIT_USAGE = 2


#: Exit status of a game stopped by Ctrl-C or SIGTERM: it stays saved for ``play --resume``. A typed
#: ``quit`` is no failure: 0.
EXIT_STOPPED = 130


#: Exit status after an internal error (a bug: the user sees one line, the log file the traceback).
EXIT_INTERNAL = 70


def friendly(func: Callable[P, R]) -> Callable[P, R]:
    """Turn chessatron errors into one line on stderr and a non-zero exit, and anything unexpected too:
    one line asking for a report, the traceback filed in the log (shown with ``--debug``)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ChessatronError as exc:
            click.echo(f"chessatron: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            click.echo("chessatron: " + _("interrupted"), err=True)
            sys.exit(EXIT_STOPPED)
        except click.exceptions.Abort as exc:
            if isinstance(exc.__context__, KeyboardInterrupt):  # Ctrl-C at one of click's own prompts
                click.echo("\nchessatron: " + _("interrupted"), err=True)
                sys.exit(EXIT_STOPPED)
            raise  # the end of input at click's prompt: click's own "Aborted!"
        except (click.ClickException, click.exceptions.Exit):
            raise  # click's own: usage errors it words itself
        except BrokenPipeError:
            # whoever read our output left (`| head`): nothing to say, and nowhere to say it
            with contextlib.suppress(OSError):
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115  # no second error at exit
            sys.exit(1)
        except Exception as exc:
            setup = logs.active()
            if setup is not None and setup.debug:
                raise
            click.echo(f"chessatron: {logs.internal_error(exc)}", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper


def sigterm_interrupts(func: Callable[P, R]) -> Callable[P, R]:
    """SIGTERM (a service stopped, a shutdown) stops the command as Ctrl-C does, at a safe point (a game
    stays saved, the magnet is released), instead of killing it in the middle of robot work; neither is
    raised inside threading's lock code, where it could leave a lock taken for good
    (:mod:`chessatron.termination`)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with raising_on_sigterm(KeyboardInterrupt), ctrl_c_at_a_safe_moment():
            return func(*args, **kwargs)

    return wrapper


#: A file a command reads: what is wrong with it (a folder, a device, missing) is said in one line by
#: :mod:`chessatron.files` rather than by click's usage message.
READ_FILE = click.Path(path_type=Path)


def load_layout(path: Path | None) -> Layout:
    return Layout.default() if path is None else Layout.from_toml(path)


layout_option = click.option(
    "--layout",
    "layout_path",
    type=READ_FILE,
    default=None,
    help=N_("Table layout TOML (default: the classic 12x10 table)."),
)


def write_file(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise cannot_write(path, exc) from exc


def cannot_write(path: Path, exc: OSError) -> ChessatronError:
    """The error for a file that cannot be written."""
    return ChessatronError(
        _("cannot write {path!r}: {reason}").format(path=str(path), reason=exc.strerror or exc)
    )


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def parse_speed(text: str) -> float | None:
    """``--speed``: a positive factor, or ``max`` (None) for as fast as the host allows."""
    if text.strip().lower() == "max":
        return None
    try:
        factor = float(text)
    except ValueError:
        factor = float("nan")
    if not factor > 0 or factor == float("inf"):
        raise click.BadParameter(
            _("{text!r} is not a positive factor or 'max'").format(text=text), param_hint="--speed"
        )
    return factor


#: What ``--speed`` is, in the same words on every command that has it (then why its default is what it is).
SPEED_HELP = N_(
    "How fast the simulated robot moves: 1 is a real robot's pace, 2 twice as fast, max as fast as this "
    "computer allows (a real machine always moves at its own pace)."
)

#: Why each kind of command has the default it has.
SPEED_DEFAULTS: dict[str, tuple[str, str]] = {
    # a game or a puzzle: what matters is the chess, not the robot's pace
    "play": (
        "max",
        N_("The default finishes the robot's moves before they can be watched (--speed 1 to watch them)."),
    ),
    # a page people watch the robot on, a sender that expects the machine's own timing
    "watch": ("1", N_("The default is the real machine's pace, as people watching it expect.")),
    "sender": ("1", N_("The default is the real machine's timing, as a GRBL sender expects.")),
    # the showcase: watchable, and over in minutes
    "demo": ("8", N_("The default shows the showcase in minutes.")),
}


def speed_option(kind: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``--speed FACTOR|max``, worded the same everywhere; ``kind`` (a key of :data:`SPEED_DEFAULTS`)
    says which default and why."""
    default, because = SPEED_DEFAULTS[kind]
    return click.option(
        "--speed",
        "speed_text",
        metavar="FACTOR|max",
        default=default,
        show_default=True,
        help=composed(SPEED_HELP, because),
    )


config_option = click.option(
    "--config",
    "config_path",
    type=READ_FILE,
    default=None,
    help=N_("Machine config TOML (default: $CHESSATRON_CONFIG or ~/.config/chessatron/chessatron.toml)."),
)


fresh_option = click.option(
    "--fresh",
    is_flag=True,
    help=N_("On the simulator: forget the saved table and start from a table set up as delivered."),
)


def write_bytes(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise cannot_write(path, exc) from exc


def web_server() -> ModuleType:
    """:mod:`chessatron.web.server`, or an error naming the extra that brings its libraries."""
    from ..errors import MissingLibraryError

    try:
        from ..web import server
    except ImportError as exc:
        raise MissingLibraryError(
            _("the web page needs {library!r}: pip install 'chessatron[web]'").format(library=exc.name)
            if exc.name
            else _("the web page needs its libraries: pip install 'chessatron[web]'")
        ) from exc
    return server
