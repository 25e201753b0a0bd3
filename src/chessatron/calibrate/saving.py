"""Writing what a calibration learnt into a device URL of the machine config: an option set in the URL
(the rest of it kept), a file the option names written beside the config, and the config saved as
``chessatron config`` saves it (atomically, the previous file kept as ``….bak``).

>>> with_options("mcp23017://1?addresses=0x20,0x21", map="/home/pi/pins.txt")
'mcp23017://1?addresses=0x20,0x21&map=/home/pi/pins.txt'
>>> with_options("sim://?order=rows&origin=h1", order="serpentine", origin=None)
'sim://?order=serpentine'
>>> with_options("sim://", map="/home/pi/pins.txt")
'sim://?map=/home/pi/pins.txt'
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from ..config_write import replace_file, save_settings

__all__ = ["Saved", "save_url", "with_options"]


@dataclass(frozen=True)
class Saved:
    """What was written: the config and its backup, and the file written beside it (with its backup)."""

    config: Path
    config_backup: Path | None
    url: str
    file: Path | None = None
    file_backup: Path | None = None


def with_options(url: str, **options: str | None) -> str:
    """``url`` with ``options`` set (None removes one), the others kept in their order."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    for key, value in options.items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
    query = urlencode(params, safe="/:,;")
    # (urlunsplit would drop the // of a URL with no host: sim:// must stay sim://)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" + (f"?{query}" if query else "")


def save_url(
    config_path: Path, kind: str, url: str, *, file: Path | None = None, text: str | None = None
) -> Saved:
    """Write ``text`` to ``file`` (when given, its previous version kept) and set ``[kind] url`` to
    ``url`` in the config at ``config_path``, checked as ``config check`` checks it first."""
    file_backup = replace_file(file, text) if file is not None and text is not None else None
    try:
        saved = save_settings(config_path, {f"{kind}.url": url})
    except BaseException:
        # the config refused it: the file goes back to what it was, so that nothing changed
        if file is not None and file_backup is not None:
            os.replace(file_backup, file)
        elif file is not None:
            file.unlink(missing_ok=True)
        raise
    return Saved(saved.path, saved.previous, url, file, file_backup)
