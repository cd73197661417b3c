"""Settings: every malformed value is an error naming the key and the value."""

from __future__ import annotations

import pytest

from shared.errors import ConfigError
from worker.config import OwnerAuth, Settings


@pytest.mark.parametrize(("env", "fragment"), [
    ({"ACCESS_AUD": "abc"}, "ACCESS_TEAM_DOMAIN is missing"),
    ({"ACCESS_TEAM_DOMAIN": "t.cloudflareaccess.com"}, "ACCESS_AUD is missing"),
    ({"ACCESS_TEAM_DOMAIN": "https://t.example.com/path", "ACCESS_AUD": "a"},
     "ACCESS_TEAM_DOMAIN must be a host name"),
    ({"ACCESS_TEAM_DOMAIN": "t.example.com", "ACCESS_AUD": "a b"}, "ACCESS_AUD must be"),
    ({"MODEL_TIMEOUT_S": "soon"}, "MODEL_TIMEOUT_S must be a number from 1 to 600, got 'soon'"),
    ({"SYNC_INTERVAL_S": "-5"}, "SYNC_INTERVAL_S must be a whole number"),
    ({"RATE_LIMIT_CHAT_PER_MINUTE": "0"}, "RATE_LIMIT_CHAT_PER_MINUTE must be a whole number "
                                          "from 1 to 100000, got '0'"),
    ({"RATE_LIMIT_SEARCH_PER_MINUTE": "²"}, "RATE_LIMIT_SEARCH_PER_MINUTE"),
    ({"ALLOWED_HOSTS": "good.lan, bad host"}, "ALLOWED_HOSTS holds an invalid host name"),
])
def test_bad_settings_name_key_and_value(env: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(")):
        Settings.from_mapping(env)


def test_access_settings_are_normalised() -> None:
    settings = Settings.from_mapping({"ACCESS_TEAM_DOMAIN": "https://MyTeam.CloudflareAccess.com/",
                                      "ACCESS_AUD": "abc123"})
    assert settings.access is not None
    assert settings.access.issuer == "https://myteam.cloudflareaccess.com"
    assert settings.access.certs_url == \
        "https://myteam.cloudflareaccess.com/cdn-cgi/access/certs"
    assert settings.owner_auth is OwnerAuth.ACCESS


def test_owner_auth_precedence_and_env_cannot_enable_local_owner() -> None:
    assert Settings.from_mapping({}).owner_auth is OwnerAuth.NONE
    assert Settings.from_mapping({"LOCAL_OWNER": "1", "local_owner": "true"}).owner_auth \
        is OwnerAuth.NONE
    assert Settings.from_mapping({"OWNER_TOKEN": "o"}).owner_auth is OwnerAuth.OWNER_TOKEN
    assert Settings(local_owner=True).owner_auth is OwnerAuth.LOCAL_OWNER


def test_secrets_are_never_echoed() -> None:
    with pytest.raises(ConfigError) as info:
        Settings.from_mapping({"OWNER_TOKEN": "sekrit", "ACCESS_AUD": "x"})
    assert "sekrit" not in info.value.message


def test_defaults() -> None:
    settings = Settings.from_mapping({"ALLOWED_HOSTS": " a.lan ,B.LAN,, "})
    assert settings.allowed_hosts == ("a.lan", "b.lan")
    assert (settings.chat_per_minute, settings.search_per_minute) == (20, 120)
