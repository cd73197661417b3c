"""Where the hub's sync token comes from, best first: `--token-file FILE`, `$SYNC_TOKEN`,
the service's env file (`~/.config/mallory-hub/env`, hub/service.py), and last
`--token`, which works but warns: a command's arguments are visible to every user of the
machine (`ps`), its environment and files are not."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TOKEN_KEY = "SYNC_TOKEN"
TOKEN_ARG_WARNING = ("warning: --token shows the sync token in the process list to every "
                     "user of this machine; use --token-file FILE or $SYNC_TOKEN instead")


def default_env_file() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "mallory-hub" / "env"


class TokenFileError(ValueError):
    pass


def read_token_file(path: Path) -> str:
    """The token in `path`: its only non-comment line, or the value of its SYNC_TOKEN=…
    line (an env file); empty when it holds none."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TokenFileError(f"cannot read the token file {path}: {exc.strerror or exc}"
                             ) from exc
    lines = [line.strip() for line in text.splitlines()
             if line.strip() and not line.strip().startswith("#")]
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and key.strip().removeprefix("export ").strip() == TOKEN_KEY:
            return value.strip().strip('"').strip("'")
    bare = [line for line in lines if "=" not in line]
    return bare[0] if len(bare) == 1 and len(lines) == 1 else ""


@dataclass(frozen=True)
class Token:
    value: str
    warning: str | None = None


def find_token(token_file: str | None, token_arg: str | None,
               env_file: Path | None = None) -> Token:
    """The sync token, or an empty one. Raises TokenFileError for an unreadable or empty
    --token-file."""
    if token_file:
        value = read_token_file(Path(token_file).expanduser())
        if not value:
            raise TokenFileError(f"the token file {token_file} holds no token (the token "
                                 f"alone, or a {TOKEN_KEY}=… line)")
        return Token(value)
    if token_arg:
        return Token(token_arg, TOKEN_ARG_WARNING)
    if os.environ.get(TOKEN_KEY):
        return Token(os.environ[TOKEN_KEY])
    env_file = env_file or default_env_file()
    if env_file.is_file():
        try:
            return Token(read_token_file(env_file))
        except TokenFileError:
            return Token("")
    return Token("")
