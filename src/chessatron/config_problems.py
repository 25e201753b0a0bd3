"""Everything wrong with a machine config at once, each problem naming its key: what
:meth:`chessatron.config.Config.from_dict` raises, and so ``chessatron config check``, every command that
reads the config and the web page's settings, which shows each problem beside its field.

A problem's message starts with the key as the file writes it (``[grbl] baudrate = '12abc' must be …``),
never with the file's path: the path follows once, at the end, where it helps (a command reading the
config the person did not name).

>>> found = Problems()
>>> found.add("grbl.baudrate", "[grbl] baudrate = '12abc' must be a whole number")
>>> with found.about("training.watcher_loss"):
...     raise ConfigError("[training] watcher_loss = 5 must be at most 2")
>>> print(ConfigProblems(found.found, where="/tmp/chessatron.toml"))
[grbl] baudrate = '12abc' must be a whole number; [training] watcher_loss = 5 must be at most 2 \
(2 problems in /tmp/chessatron.toml)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError
from .i18n import _, ngettext

__all__ = ["ConfigProblems", "Problem", "Problems", "shown_path"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a config: the key it is about (``"grbl.baudrate"``, ``"layout"``; None: the
    file as a whole, e.g. not TOML) and what is wrong, starting with the key as the file writes it."""

    key: str | None
    message: str


class ConfigProblems(ConfigError):
    """A config with one problem or more (:attr:`problems`, in the file's order); ``where``: the file
    they are in, said once at the end of the message (None: not a file, e.g. a command-line option)."""

    def __init__(self, problems: Sequence[Problem], where: str | None = None) -> None:
        if not problems:
            raise ValueError("a config with no problem is no error")
        self.problems = tuple(problems)
        self.where = where
        count = len(self.problems)
        if count > 1 and where:
            text = ngettext(
                "{problems} ({count} problem in {where})", "{problems} ({count} problems in {where})", count
            )
        elif count > 1:
            text = ngettext("{problems} ({count} problem)", "{problems} ({count} problems)", count)
        elif where:
            text = _("{problems} (in {where})")
        else:
            text = "{problems}"
        listed = "; ".join(problem.message for problem in self.problems)
        super().__init__(text.format(problems=listed, count=count, where=where))

    @property
    def key(self) -> str | None:
        """The key of the first problem."""
        return self.problems[0].key


class Problems:
    """The problems found so far while a config is checked: each check adds its own and the checking
    goes on, so that all of them are told at once."""

    def __init__(self) -> None:
        self.found: list[Problem] = []

    def add(self, key: str | None, message: str) -> None:
        self.found.append(Problem(key, message))

    def has(self, key: str) -> bool:
        """Whether a problem about ``key`` was found."""
        return any(problem.key == key for problem in self.found)

    @contextlib.contextmanager
    def about(self, key: str | None, prefix: str = "") -> Iterator[None]:
        """A :class:`ConfigError` raised inside is a problem of ``key`` (its message after ``prefix``);
        the checking goes on after the block."""
        try:
            yield
        except ConfigProblems as exc:
            self.found.extend(Problem(key, prefix + problem.message) for problem in exc.problems)
        except ConfigError as exc:
            self.add(key, prefix + str(exc))

    def check(self, where: str | None = None) -> None:
        """Raise :class:`ConfigProblems` when anything was found."""
        if self.found:
            raise ConfigProblems(self.found, where)


def shown_path(path: Path) -> str:
    """A file's path as a person reads it in a message: the home folder as ``~``.

    >>> shown_path(Path.home() / ".config" / "chessatron" / "chessatron.toml")
    '~/.config/chessatron/chessatron.toml'
    """
    text = os.fspath(path)
    home = os.path.expanduser("~")
    if home not in ("", "/") and text.startswith(home + os.sep):
        return "~" + text[len(home) :]
    return text
