"""Cross-site request forgery: a state-changing owner request must be JSON and come from
this site's own origin.

A cross-site page can send `text/plain` or form bodies without a CORS preflight, and the
browser attaches the owner's cookies (Access's CF_Authorization among them). The probe
planted conversations this way (tests/reliability/). Requiring `application/json` forces a preflight
that this app never answers; requiring a same-origin `Origin` (or, when a browser omits
it, `Sec-Fetch-Site: same-origin|none`) refuses the request even where the first check
would not.
"""

from __future__ import annotations

from collections.abc import Mapping

from shared.api.errors import Forbidden, UnsupportedMediaType

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
SAME_SITE_FETCH = frozenset({"same-origin", "none"})
DEFAULT_PORTS = {"http": "80", "https": "443"}


def media_type(headers: Mapping[str, str]) -> str:
    return headers.get("content-type", "").split(";", 1)[0].strip().lower()


def has_body(headers: Mapping[str, str]) -> bool:
    length = headers.get("content-length", "").strip()
    return bool(headers.get("transfer-encoding")) or (length not in ("", "0"))


def check_media_type(method: str, headers: Mapping[str, str], expected: str = JSON) -> None:
    """415 unless the body is `expected`. A DELETE without a body needs no type."""
    got = media_type(headers)
    if got == expected or (method.upper() == "DELETE" and not has_body(headers)):
        return
    raise UnsupportedMediaType(f"send the body as Content-Type: {expected}, not "
                               f"{got[:60] or 'no type'!r}", code="json_required"
                               if expected == JSON else "form_required")


def origin_of(scheme: str, host: str) -> str:
    """`scheme://host[:port]` with the default port dropped, as browsers send Origin."""
    host = host.strip().lower()
    name, sep, port = host.rpartition(":")
    if sep and "]" not in port and port == DEFAULT_PORTS.get(scheme):
        host = name
    return f"{scheme}://{host}"


def check_same_origin(headers: Mapping[str, str], own_origin: str) -> None:
    origin = headers.get("origin")
    site = headers.get("sec-fetch-site", "").strip().lower()
    # Under `Referrer-Policy: no-referrer` a browser sends `Origin: null` on its own
    # same-origin form posts (the sign-in form); Sec-Fetch-Site, which no page can set,
    # then says where the post came from.
    if origin is not None and origin.strip().lower() == "null" and site == "same-origin":
        return
    if origin is not None:
        scheme, sep, rest = origin.strip().lower().partition("://")
        if not sep or origin_of(scheme, rest) != own_origin:
            raise Forbidden(f"cross-origin request refused: Origin {origin[:100]!r} is not "
                            f"{own_origin}", code="cross_origin_request")
        return
    if site in SAME_SITE_FETCH:
        return
    if site:
        raise Forbidden(f"cross-site request refused (Sec-Fetch-Site: {site[:30]})",
                        code="cross_origin_request")
    raise Forbidden(f"a state-changing request must name its origin: send 'Origin: "
                    f"{own_origin}' (browsers add it themselves)", code="origin_required")
