"""The personal API token online games are played with: from ``$LICHESS_TOKEN``, or kept by
``chessatron online login`` in a file readable by this user only.

The file (``$XDG_CONFIG_HOME/chessatron/online-tokens.json``, else ``~/.config/...``) maps each server's
address to its token, so that lichess.org and a server of one's own each have theirs.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from .. import files
from ..errors import ChessatronError, LoginError
from ..i18n import _

#: The environment variable a token may come from instead (it wins over a kept one).
ENV_VAR = "LICHESS_TOKEN"
#: The scopes a token needs: to play at a board (or, for a BOT account, as a bot), and to challenge.
PLAY_SCOPES = ("board:play", "bot:play")
CHALLENGE_SCOPE = "challenge:write"
_TOKEN = re.compile(r"[A-Za-z0-9_\-.~]{8,256}")


def token_path() -> Path:
    """``$CHESSATRON_ONLINE_TOKENS``, else ``$XDG_CONFIG_HOME/chessatron/online-tokens.json``
    (``~/.config/chessatron/...``)."""
    if explicit := os.environ.get("CHESSATRON_ONLINE_TOKENS"):
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "chessatron" / "online-tokens.json"


def token_page(url: str) -> str:
    """Where on the server a person makes a token with the scopes chessatron needs.

    >>> token_page("https://lichess.org")
    'https://lichess.org/account/oauth/token/create?scopes[]=board:play&scopes[]=challenge:write&description=chessatron'
    """
    return (
        f"{url.rstrip('/')}/account/oauth/token/create?scopes[]=board:play&scopes[]={CHALLENGE_SCOPE}"
        "&description=chessatron"
    )


def check_token(token: str) -> str:
    """``token`` without surrounding blanks, if it looks like an API token; else :class:`LoginError`.

    >>> check_token(" lip_abcdefgh12345 ")
    'lip_abcdefgh12345'
    """
    token = token.strip()
    if not _TOKEN.fullmatch(token):
        raise LoginError(
            _(
                "that does not look like an API token (8 or more letters, digits, _ or -); copy it from the "
                "page where you made it"
            )
        )
    return token


def _key(url: str) -> str:
    parsed = urlsplit(url)
    return f"{parsed.scheme}://{parsed.netloc}".lower()


def _read(path: Path) -> dict[str, str]:
    if files.is_missing(path):
        return {}
    data = files.load_json(path, files.ONLINE_TOKENS)
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise files.ONLINE_TOKENS.fail(path, _("it is not a table of server addresses and tokens"))
    return {str(k): v for k, v in data.items()}


def find_token(
    url: str, *, env: Mapping[str, str] | None = None, path: Path | None = None
) -> tuple[str, str]:
    """The token to play on ``url`` with, and where it came from; :class:`LoginError` when there is none."""
    env = os.environ if env is None else env
    explicit = env.get(ENV_VAR, "").strip()
    if explicit:
        return check_token(explicit), f"${ENV_VAR}"
    path = path or token_path()
    kept = _read(path).get(_key(url))
    if kept:
        return check_token(kept), str(path)
    raise LoginError(
        _(
            "no API token for {url}: run `chessatron online login` (or set ${variable}); make the token at "
            "{page}"
        ).format(url=url, variable=ENV_VAR, page=token_page(url))
    )


def keep_token(url: str, token: str, *, path: Path | None = None) -> Path:
    """Keep ``token`` for ``url`` in the tokens file, readable by this user only; returns the file."""
    path = path or token_path()
    tokens = _read(path)
    tokens[_key(url)] = check_token(token)
    _write_private(path, json.dumps(tokens, indent=2) + "\n")
    return path


def forget_token(url: str, *, path: Path | None = None) -> bool:
    """Forget the kept token for ``url``; whether there was one."""
    path = path or token_path()
    tokens = _read(path)
    if tokens.pop(_key(url), None) is None:
        return False
    _write_private(path, json.dumps(tokens, indent=2) + "\n")
    return True


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, the file readable and writable by this user only (mode 0600)
    from the moment it exists."""
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tokens-", suffix=".tmp")
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        temporary = None
    except OSError as exc:
        raise ChessatronError(
            _("cannot keep the token in {path!r}: {reason}").format(
                path=str(path), reason=exc.strerror or exc
            )
        ) from exc
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
