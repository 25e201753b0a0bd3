"""Changing the machine config from elsewhere than an editor (the web page's settings): the keys set in
the file, and new values written into it with its comments and layout kept, checked first, and saved so
that nothing is ever half-written or lost.

:func:`save_settings` edits the TOML document with tomlkit (which keeps the file's comments, the order of
its keys and its blank lines), checks the whole new text with :meth:`Config.from_text
<chessatron.config.Config.from_text>` (the checker ``chessatron config check`` uses) before anything is
written, refusing every wrong value at once (:class:`SettingError`, each problem naming its key), and
then replaces the file atomically: the new text goes to a temporary file beside it, flushed to the disk,
the previous file is kept as ``chessatron.toml.bak`` (one step back), and the new one is renamed into
place. A power cut at any moment leaves either the old file or the new one.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder) / "chessatron.toml"
...     saved = save_settings(path, {"grbl.home": True})
...     saved.config.home, settings_in(path)["grbl.home"], saved.previous is None
(True, True, True)
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from . import files
from .config import Config, default_config_text, in_file_order
from .config_keys import KEY_OF, ConfigKey
from .config_problems import ConfigProblems, Problem, Problems
from .errors import ChessatronError, ConfigError, MissingLibraryError
from .i18n import N_, _

__all__ = [
    "BACKUP_SUFFIX",
    "SavedConfig",
    "SettingError",
    "problems_in",
    "replace_file",
    "save_settings",
    "settings_in",
]

LOGGER = logging.getLogger(__name__)

#: The previous file is kept beside the new one under its name with this added.
BACKUP_SUFFIX: Final = ".bak"


class SettingError(ConfigProblems):
    """Values for keys of the config that cannot be, all of them (:attr:`problems`, each naming its
    key: ``"grbl.url"``; None for the file as a whole); :attr:`key` is the first one's."""


@dataclass(frozen=True)
class SavedConfig:
    """What :func:`save_settings` did: the file written, where the one before it is kept (None: there was
    none), and the config it holds now."""

    path: Path
    previous: Path | None
    config: Config


def settings_in(path: Path) -> dict[str, Any]:
    """The keys the config file at ``path`` sets, by ``section.name`` (``{}`` when there is no file),
    whether or not their values are right (:func:`problems_in` says). Raises :class:`ConfigError` for a
    file that cannot be read or is not TOML."""
    if files.is_missing(path):
        return {}
    data = files.load_toml(path, files.CONFIG)
    found: dict[str, Any] = {}
    for name, value in data.items():
        if isinstance(value, Mapping):
            found.update({f"{name}.{key}": inner for key, inner in value.items()})
        else:
            found[name] = value
    return found


def problems_in(path: Path) -> tuple[Problem, ...]:
    """Everything the config's checker finds wrong with the file at ``path`` (none without a file)."""
    if files.is_missing(path):
        return ()
    try:
        Config.from_text(files.read_text(path, files.CONFIG), path)
    except ConfigProblems as exc:
        return exc.problems
    return ()


def save_settings(path: Path, changes: Mapping[str, object]) -> SavedConfig:
    """Write ``changes`` (values by ``section.name``; None removes a key, so that its default holds)
    into the config file at ``path`` (made from the commented default when there is none), check the
    result as ``chessatron config check`` does, and replace the file atomically, the previous one kept
    as ``path`` + :data:`BACKUP_SUFFIX`. Nothing is written when a value is wrong.

    Raises :class:`SettingError` naming every wrong value with its key (a value of the wrong kind, and
    whatever the config's checker finds in the file as it would be), :class:`MissingLibraryError`
    without tomlkit (the ``web`` extra), :class:`~chessatron.errors.ChessatronError` when the file cannot
    be written."""
    try:
        import tomlkit
    except ImportError as exc:
        raise MissingLibraryError(
            _("changing the config from the page needs tomlkit: pip install 'chessatron[web]'")
        ) from exc
    problems = Problems()
    for key, value in changes.items():
        with problems.about(key):
            _check_kind(key, value)
    exists = not files.is_missing(path)
    before = files.read_text(path, files.CONFIG) if exists else default_config_text()
    try:
        document = tomlkit.parse(before)
    except Exception as exc:  # tomlkit's own errors: the file was damaged by hand
        raise SettingError(
            [
                Problem(
                    None,
                    _("the config file is not valid TOML ({detail}); fix it by hand first").format(
                        detail=exc
                    ),
                )
            ]
        ) from exc
    for key, value in changes.items():
        if not problems.has(key):
            _apply(document, KEY_OF[key], value, tomlkit)
    text = tomlkit.dumps(document)
    config: Config | None = None
    try:
        config = Config.from_text(text, path)
    except ConfigProblems as exc:
        # a key whose value was refused already keeps the file's value, which the checker may refuse too
        problems.found.extend(p for p in exc.problems if p.key is None or not problems.has(p.key))
    if problems.found:
        raise SettingError(sorted(problems.found, key=in_file_order))
    assert config is not None
    previous = _replace(path, text, keep=exists)
    LOGGER.info("settings saved to %s (%s)", path, ", ".join(sorted(changes)) or "no change")
    return SavedConfig(path, previous, config)


def _check_kind(key: str, value: object) -> None:
    """A value of the kind its key takes (the config's checker says whether it is one that works)."""
    if key not in KEY_OF:
        raise ConfigError(_("the config has no key {key!r}; the settings list those it has").format(key=key))
    if value is None:
        return
    entry = KEY_OF[key]
    kind = entry.kind
    said = {"key": entry.title, "value": value, "example": _example(key)}
    if kind == "bool" and not isinstance(value, bool):
        raise ConfigError(_("{key} = {value!r} must be true or false").format(**said))
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(
            _("{key} = {value!r} is not a whole number; write digits only, e.g. {example}").format(**said)
        )
    if kind == "choice" and value not in entry.examples:
        raise ConfigError(
            _("{key} = {value!r} must be one of {choices}").format(choices=", ".join(entry.examples), **said)
        )
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ConfigError(_("{key} = {value!r} is not a number; write e.g. {example}").format(**said))
    if kind == "level" and (isinstance(value, bool) or not isinstance(value, int | str)):
        raise ConfigError(_("{key} = {value!r} must be a level, e.g. {example}").format(**said))
    if kind in ("url", "path", "http", "text"):
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(_("{key} = {value!r} must be a text, e.g. {example}").format(**said))
        if any(ord(char) < 32 for char in value):
            raise ConfigError(_("{key} = {value!r} holds a control character").format(**said))


def _example(key: str) -> str:
    entry = KEY_OF[key]
    return repr(entry.examples[0] if entry.examples else entry.default)


def _apply(document: Any, key: ConfigKey, value: object, tomlkit: Any) -> None:
    """Set (or, for None, remove) ``key`` in the TOML ``document``, adding its section when missing (a
    key of no section goes before the first one: tomlkit puts it there)."""
    table = document if not key.section else document.get(key.section)
    if value is None:
        if table is not None:
            table.pop(key.name, None)
        return
    if table is None:
        table = tomlkit.table()
        document.add(key.section, table)
    table[key.name] = value


def replace_file(path: Path, text: str, *, what: str = N_("the config")) -> Path | None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, flushed, renamed into place), the
    file there before kept as ``path`` + :data:`BACKUP_SUFFIX` (returned; None when there was none).
    Raises :class:`~chessatron.errors.ChessatronError` naming ``what`` when it cannot be written; nothing
    is changed then."""
    return _replace(path, text, keep=not files.is_missing(path), what=what)


def _replace(path: Path, text: str, *, keep: bool, what: str = N_("the config")) -> Path | None:
    """Write ``text`` to ``path`` atomically; the file there before is kept as its backup (returned)."""
    backup = path.with_name(path.name + BACKUP_SUFFIX) if keep else None
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if keep else 0o644
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False, encoding="utf-8"
        ) as file:
            temporary = file.name
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        if backup is not None:
            # a hard link keeps the previous file under its backup name while the new one replaces it:
            # at every moment one of them is the config, and the backup is the old one, whole
            with contextlib.suppress(FileNotFoundError):
                backup.unlink()
            try:
                os.link(path, backup)
            except OSError:  # a filesystem without hard links (FAT on an SD card's boot partition)
                backup.write_bytes(path.read_bytes())
        os.replace(temporary, path)
        temporary = None
        _sync_folder(path.parent)
    except OSError as exc:
        raise ChessatronError(
            _("cannot save {what} to {path!r}: {reason}; nothing was changed").format(
                what=_(what), path=str(path), reason=exc.strerror or exc
            )
        ) from exc
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
    return backup


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entry for the renamed file to the disk (a power cut must not undo it)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
