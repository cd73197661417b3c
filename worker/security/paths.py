"""One canonical form of a request path, used by the entry precheck and the router alike.

The Workers ASGI adapter percent-decodes the path after the entry's header-only precheck
has looked at it, so `/vault%2Fsync` and `/%76ault/sync` used to pass the precheck as
"not a hub route" and then route to /vault/sync (found by the hostile-input probe,
tests/reliability/). Both the precheck and
the middleware that feeds the router use `normalise_path`, so they cannot disagree.
"""

from __future__ import annotations

from urllib.parse import unquote

from shared.api.errors import BadRequest

MAX_PATH_CHARS = 2_048
# Decoding repeats until the path stops changing, so a double-encoded `%2576` cannot
# survive one round as an innocent-looking `%76`; three rounds cover any real client.
MAX_DECODE_ROUNDS = 3


def normalise_path(raw: str) -> str:
    """Percent-decode (repeatedly), resolve `.` and `..` segments, collapse duplicate
    slashes. Raises BadRequest for a path that stays encoded, holds control characters,
    is not valid UTF-8 once decoded, or climbs above the root."""
    if len(raw) > MAX_PATH_CHARS:
        raise BadRequest(f"the request path is over {MAX_PATH_CHARS} characters",
                         code="bad_path")
    try:
        path = _decode(raw)
    except UnicodeDecodeError:
        raise BadRequest("the request path is not valid UTF-8 once percent-decoded",
                         code="bad_path") from None
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path) or "\\" in path:
        raise BadRequest("the request path holds control characters or backslashes",
                         code="bad_path")
    return _resolve(path)


def _decode(path: str) -> str:
    for _ in range(MAX_DECODE_ROUNDS):
        decoded = unquote(path, errors="strict")
        if decoded == path:
            return path
        path = decoded
    if unquote(path, errors="strict") != path:
        raise BadRequest("the request path is percent-encoded too many times",
                         code="bad_path")
    return path


def _resolve(path: str) -> str:
    trailing = path.endswith("/") or path.endswith("/.") or path.endswith("/..")
    segments: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not segments:
                raise BadRequest("the request path climbs above the root", code="bad_path")
            segments.pop()
            continue
        segments.append(segment)
    resolved = "/" + "/".join(segments)
    return resolved + "/" if trailing and segments else resolved

