"""Settings: defaults, parsing, and errors that name the key and the value."""

from __future__ import annotations

import pytest

from shared.errors import ConfigError
from shared.protocol import DEFAULT_SYNC_INTERVAL_S
from worker.config import Runtime, Settings


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
    ({"SYNC_INTERVAL_S": "15m"}, "SYNC_INTERVAL_S must be whole seconds (at least 1), got '15m'"),
    ({"SYNC_INTERVAL_S": "0"}, "SYNC_INTERVAL_S must be whole seconds (at least 1), got '0'"),
    ({"SYNC_INTERVAL_S": "٥"}, "SYNC_INTERVAL_S must be whole seconds"),
    ({"MODEL_TIMEOUT_S": "soon"}, "MODEL_TIMEOUT_S must be a positive number of seconds, "
                                  "got 'soon'"),
    ({"MODEL_TIMEOUT_S": "nan"}, "MODEL_TIMEOUT_S must be a positive number"),
    ({"MODEL_PROVIDER": "gpt"}, "MODEL_PROVIDER must be one of offline, openai, workers-ai, "
                                "got 'gpt'"),
])
def test_a_bad_setting_names_its_key_and_value(env: dict, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_mapping(env)
    assert caught.value.message.startswith(message)
    assert caught.value.status == 500 and caught.value.code == "bad_configuration"


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
