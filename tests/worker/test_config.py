"""Settings: defaults, parsing, and errors that name the key and the value."""

from __future__ import annotations

import pytest

from shared.api.errors import ConfigError
from shared.api.protocol import DEFAULT_SYNC_INTERVAL_S
from worker.config import OwnerAuth, Runtime, Settings


def test_defaults_from_an_empty_environment() -> None:
    settings = Settings.from_mapping({})
    assert settings == Settings()
    assert settings.sync_interval_s == DEFAULT_SYNC_INTERVAL_S


def test_values_are_read_and_trimmed() -> None:
    settings = Settings.from_mapping({
        "SYNC_TOKEN": "a", "SYNC_TOKEN_NEXT": "b", "MODEL_PROVIDER": " OpenAI ",
        "OPENAI_BASE_URL": "https://x/v1/", "SYNC_INTERVAL_S": "600", "MODEL_TIMEOUT_S": "2.5"})
    assert settings.sync_tokens == ("a", "b")
    assert settings.model_provider == "openai"
    assert settings.openai_base_url == "https://x/v1"
    assert (settings.sync_interval_s, settings.model_timeout_s) == (600, 2.5)


@pytest.mark.parametrize(("env", "message"), [
    ({"SYNC_INTERVAL_S": "15m"}, "SYNC_INTERVAL_S must be whole seconds from 1 to 604800, "
                                 "got '15m'"),
    ({"SYNC_INTERVAL_S": "0"}, "SYNC_INTERVAL_S must be whole seconds from 1 to 604800, "
                               "got '0'"),
    ({"SYNC_INTERVAL_S": "-5"}, "SYNC_INTERVAL_S must be whole seconds"),
    ({"SYNC_INTERVAL_S": "٥"}, "SYNC_INTERVAL_S must be whole seconds"),
    ({"MODEL_TIMEOUT_S": "soon"}, "MODEL_TIMEOUT_S must be a number of seconds from 1 to 600, "
                                  "got 'soon'"),
    ({"MODEL_TIMEOUT_S": "nan"}, "MODEL_TIMEOUT_S must be a number of seconds"),
    ({"MODEL_PROVIDER": "gpt"}, "MODEL_PROVIDER must be one of offline, openai, workers-ai, "
                                "got 'gpt'"),
    ({"RATE_LIMIT_CHAT_PER_MINUTE": "0"}, "RATE_LIMIT_CHAT_PER_MINUTE must be whole requests "
                                          "from 1 to 100000, got '0'"),
    ({"RATE_LIMIT_SEARCH_PER_MINUTE": "²"}, "RATE_LIMIT_SEARCH_PER_MINUTE must be whole"),
    ({"ACCESS_AUD": "abc"}, "setting ACCESS_TEAM_DOMAIN is missing"),
    ({"ACCESS_TEAM_DOMAIN": "t.cloudflareaccess.com"}, "setting ACCESS_AUD is missing"),
    ({"ACCESS_TEAM_DOMAIN": "https://t.example.com/path", "ACCESS_AUD": "a"},
     "setting ACCESS_TEAM_DOMAIN must be a host name"),
    ({"ACCESS_TEAM_DOMAIN": "t.example.com", "ACCESS_AUD": "a b"}, "setting ACCESS_AUD must be"),
    ({"ALLOWED_HOSTS": "good.lan, bad host"}, "setting ALLOWED_HOSTS holds an invalid host"),
])
def test_a_bad_setting_names_its_key_and_value(env: dict, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_mapping(env)
    assert caught.value.message.startswith(message)
    assert caught.value.status == 500 and caught.value.code == "configuration_error"


def test_settings_read_from_a_worker_env_object() -> None:
    class Env:
        SYNC_TOKEN = "secret"
        MODEL_PROVIDER = "workers-ai"
        DB = None

    assert Settings.from_mapping(Env()).model_provider == "workers-ai"


def test_runtime_from_env_needs_the_d1_binding() -> None:
    class Env:
        DB = None

    with pytest.raises(Exception, match="no D1 binding named DB"):
        Runtime.from_env(Env())


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
    assert Settings(local_owner=True, allowed_hosts=("localhost",)).owner_auth \
        is OwnerAuth.LOCAL_OWNER
    # Local owner holds only under a loopback-only host list (DNS rebinding).
    for hosts in ((), ("*",), ("localhost", "mallory.lan"), ("127.0.0.1", "10.0.0.2")):
        assert Settings(local_owner=True, allowed_hosts=hosts).owner_auth is OwnerAuth.NONE
    assert Settings(local_owner=True, allowed_hosts=("127.0.0.2", "[::1]")).owner_auth \
        is OwnerAuth.LOCAL_OWNER


def test_secrets_are_never_echoed() -> None:
    with pytest.raises(ConfigError) as info:
        Settings.from_mapping({"OWNER_TOKEN": "sekrit", "ACCESS_AUD": "x"})
    assert "sekrit" not in info.value.message


def test_defaults() -> None:
    settings = Settings.from_mapping({"ALLOWED_HOSTS": " a.lan ,B.LAN,, "})
    assert settings.allowed_hosts == ("a.lan", "b.lan")
    assert (settings.chat_per_minute, settings.search_per_minute) == (20, 120)


def test_owner_timezone_is_an_iana_zone() -> None:
    assert Settings.from_mapping({"OWNER_TIMEZONE": "Europe/Rome"}).owner_timezone == \
        "Europe/Rome"
    with pytest.raises(ConfigError, match="OWNER_TIMEZONE must be an IANA time zone such as "
                                          "Europe/Rome or America/New_York, got 'CEST'"):
        Settings.from_mapping({"OWNER_TIMEZONE": "CEST"})


def test_owner_timezone_is_kept_on_a_platform_without_zone_data(monkeypatch) -> None:
    import shared.time.zones as owner_time

    monkeypatch.setattr(owner_time, "available_timezones", set)
    # Unchecked (every zone is UTC there, shared/time/zones.py); it works once data is there.
    assert Settings.from_mapping({"OWNER_TIMEZONE": "CEST"}).owner_timezone == "CEST"
