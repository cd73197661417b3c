"""Reading settings from a Worker `env` or a mapping, with errors that name the key and
the value it got (never a secret's value)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfoNotFoundError

from shared.api.errors import ConfigError
from shared.time.zones import load_zone, zone_data_available

_HOSTNAME = re.compile(r"(?=.{1,253}\Z)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+"
                       r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
_AUD = re.compile(r"[\x21-\x7e]{1,200}")
_NUMBER = re.compile(r"[0-9]{1,9}(\.[0-9]{1,6})?")
_WHOLE = re.compile(r"[0-9]{1,9}")


@dataclass(frozen=True)
class AccessConfig:
    team_domain: str  # e.g. "myteam.cloudflareaccess.com"
    aud: str  # the Access application's AUD tag

    @property
    def issuer(self) -> str:
        return f"https://{self.team_domain}"

    @property
    def certs_url(self) -> str:
        return f"{self.issuer}/cdn-cgi/access/certs"


class Reader:
    """One setting at a time from a mapping or a Worker env object."""

    def __init__(self, env: Mapping[str, Any] | Any) -> None:
        self.env = env

    def text(self, name: str, default: str = "") -> str:
        env = self.env
        value = env.get(name) if isinstance(env, Mapping) else getattr(env, name, None)
        return str(value).strip() if value not in (None, "") else default

    def whole(self, name: str, default: int, unit: str, low: int = 1,
              high: int = 10**9 - 1) -> int:
        raw = self.text(name)
        if not raw:
            return default
        if not _WHOLE.fullmatch(raw) or not low <= int(raw) <= high:
            raise ConfigError(f"{name} must be whole {unit} from {low} to {high}, "
                              f"got {raw[:60]!r}")
        return int(raw)

    def number(self, name: str, default: float, unit: str, low: float, high: float) -> float:
        raw = self.text(name)
        if not raw:
            return default
        if not _NUMBER.fullmatch(raw) or not low <= float(raw) <= high:
            raise ConfigError(f"{name} must be a number of {unit} from {low:g} to {high:g}, "
                              f"got {raw[:60]!r}")
        return float(raw)

    def choice(self, name: str, default: str, allowed: tuple[str, ...]) -> str:
        raw = self.text(name, default).lower()
        if raw not in allowed:
            raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {raw[:60]!r}")
        return raw

    def time_zone(self, name: str) -> str:
        """An IANA time zone name, checked against the zone data when there is any (on a
        platform without it every zone is UTC: shared/time/zones.py)."""
        raw = self.text(name)
        if raw and zone_data_available():
            try:
                load_zone(raw)
            except (ValueError, ZoneInfoNotFoundError):
                raise ConfigError(f"{name} must be an IANA time zone such as Europe/Rome or "
                                  f"America/New_York, got {raw[:60]!r}") from None
        return raw

    def access(self) -> AccessConfig | None:
        """ACCESS_TEAM_DOMAIN and ACCESS_AUD, both or neither: one alone is an error, since
        a half-configured Access would otherwise silently leave the owner routes open."""
        team_domain, aud = self.text("ACCESS_TEAM_DOMAIN"), self.text("ACCESS_AUD")
        if not team_domain and not aud:
            return None
        if not aud:
            raise ConfigError("setting ACCESS_AUD is missing: ACCESS_TEAM_DOMAIN is set, and "
                              "Cloudflare Access needs both (the AUD tag is on the Access "
                              "application's overview page)")
        if not team_domain:
            raise ConfigError("setting ACCESS_TEAM_DOMAIN is missing: ACCESS_AUD is set, "
                              "and Cloudflare Access needs both (e.g. "
                              "myteam.cloudflareaccess.com)")
        host = team_domain.lower().removeprefix("https://").rstrip("/")
        if not _HOSTNAME.fullmatch(host):
            raise ConfigError("setting ACCESS_TEAM_DOMAIN must be a host name such as "
                              f"myteam.cloudflareaccess.com, got {team_domain[:100]!r}")
        if not _AUD.fullmatch(aud):
            raise ConfigError("setting ACCESS_AUD must be the application's AUD tag (no "
                              f"spaces), got {aud[:100]!r}")
        return AccessConfig(team_domain=host, aud=aud)

    def hosts(self) -> tuple[str, ...]:
        """ALLOWED_HOSTS: comma-separated host names (no ports); "*" allows any."""
        hosts = tuple(h.strip().lower() for h in self.text("ALLOWED_HOSTS").split(",")
                      if h.strip())
        for host in hosts:
            if host != "*" and not re.fullmatch(r"[a-z0-9.\-\[\]:]{1,253}", host):
                raise ConfigError(f"setting ALLOWED_HOSTS holds an invalid host name "
                                  f"{host[:100]!r}; list names like localhost,mallory.lan "
                                  "separated by commas")
        return hosts
