"""The Host allow-list (local serve): a DNS-rebinding page reaches 127.0.0.1 under its own
host name, so a request naming a host the server was not told about is refused (421)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence

from shared.api.errors import MisdirectedRequest

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
ANY_HOST = "*"


def host_name(host_header: str) -> str:
    """The name in a Host header, without port or IPv6 brackets, lower-cased."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.partition(":")[0] if host.count(":") == 1 else host


def is_loopback_name(name: str) -> bool:
    """localhost, 127.0.0.0/8 or ::1: a name only this machine answers to."""
    name = host_name(name)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def loopback_only(allowed: Sequence[str]) -> bool:
    """Whether the allow-list admits loopback names alone. An empty list or "*" admits
    any host, and so would a page that rebinds its own name to 127.0.0.1."""
    return bool(allowed) and all(h != ANY_HOST and is_loopback_name(h) for h in allowed)


def check_host(headers: Mapping[str, str], allowed: Sequence[str]) -> None:
    if not allowed or ANY_HOST in allowed:
        return
    name = host_name(headers.get("host", ""))
    if name not in {host_name(h) for h in allowed}:
        raise MisdirectedRequest(f"this server does not answer for host {name[:100]!r}; add "
                                 "it to ALLOWED_HOSTS (comma-separated) to allow it",
                                 code="unknown_host")
