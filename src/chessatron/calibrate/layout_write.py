"""What a calibration learnt, written into the layout file: the keys it measured changed, the file's
comments and every other key kept (tomlkit), the result checked as a layout before anything is written,
and the file replaced atomically with the one before it kept as ``<name>.bak``
(:func:`~chessatron.config_write.replace_file`). With no layout file yet (the config uses the built-in
table), the built-in one is the starting point and the new file is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .. import files
from ..config_write import replace_file
from ..errors import ConfigError, MissingLibraryError
from ..i18n import N_, _
from ..planning.layout import Layout

__all__ = ["LayoutWritten", "write_layout_keys"]

Value = float | list[float]


@dataclass(frozen=True)
class LayoutWritten:
    """What :func:`write_layout_keys` did: the file written, the previous one kept (None: there was
    none) and the layout the file holds now."""

    path: Path
    previous: Path | None
    layout: Layout


def write_layout_keys(path: Path, changes: Mapping[tuple[str, str], Value]) -> LayoutWritten:
    """Set ``changes`` (values by ``(section, key)``, e.g. ``("machine", "origin_mm")``) in the layout
    file at ``path`` (made from the built-in table when there is none), check the whole file as a layout,
    and replace it atomically, the previous file kept as ``path`` + ``.bak``.

    Raises :class:`~chessatron.errors.ConfigError` when the result is not a layout that works (nothing is
    written), :class:`MissingLibraryError` without tomlkit, and
    :class:`~chessatron.errors.ChessatronError` when the file cannot be written."""
    try:
        import tomlkit
    except ImportError as exc:
        raise MissingLibraryError(
            _("writing the layout needs tomlkit: pip install 'chessatron[web]'")
        ) from exc
    if files.is_missing(path):
        before = (resources.files("chessatron") / "data" / "table.toml").read_text(encoding="utf-8")
    else:
        before = files.read_text(path, files.LAYOUT)
    try:
        document: Any = tomlkit.parse(before)
    except Exception as exc:  # tomlkit's own errors: the file was damaged by hand
        raise ConfigError(
            _("the layout {path} is not valid TOML ({error}); fix it by hand first").format(
                path=repr(str(path)), error=exc
            )
        ) from exc
    for (section, key), value in changes.items():
        table = document.get(section)
        if table is None:
            table = tomlkit.table()
            document.add(section, table)
        table[key] = value
    text = tomlkit.dumps(document)
    layout = Layout.from_dict(files.parse_toml(text), source=repr(str(path)))
    previous = replace_file(path, text, what=N_("the layout"))
    return LayoutWritten(path, previous, layout)
