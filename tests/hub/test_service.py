"""Service recipes (hub/service.py): quoting, names, what the units hold. That the units
really run the hub is tested end to end in tests/e2e/test_hub_cli.py."""

from __future__ import annotations

import plistlib
import re
import shlex
from pathlib import Path

import pytest

from hub.service import (
    SOURCE_THEN_EXEC,
    ServiceSpec,
    _systemd_word,
    env_file_template,
    launchd_plist,
    slug,
    systemd_service,
    systemd_timer,
)


def spec(**changes: object) -> ServiceSpec:
    base: dict = dict(executable=Path("/usr/local/bin/mallory-hub"), vault=Path("/home/a/Notes"),
                      url="https://mallory.example.com", env_file=Path("/home/a/.config/env"))
    return ServiceSpec(**{**base, **changes})


@pytest.mark.parametrize(("word", "written"), [
    ("plain/path-1.md", "plain/path-1.md"),
    ("with space", '"with space"'),
    ("100%", "100%%"),
    ("$HOME", '"$$HOME"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("back\\slash", '"back\\\\slash"'),
    ("", '""'),
])
def test_systemd_words_are_escaped_and_quoted(word: str, written: str) -> None:
    assert _systemd_word(word) == written
    [back] = shlex.split(written)  # systemd's quoting is the shell's, plus %% and $$
    assert back.replace("%%", "%").replace("$$", "$") == word


@pytest.mark.parametrize(("name", "expected"), [
    ("My Notes", "my-notes"), ("Work/2026", "work-2026"), ("Ünïcode ✓", "n-code"),
    ("---", "vault")])
def test_slug(name: str, expected: str) -> None:
    assert slug(name) == expected


def test_the_service_names_the_env_file_and_never_a_token() -> None:
    text = systemd_service(spec(vault_name="Work", exclude=("Private/**",)))
    assert "EnvironmentFile=/home/a/.config/env" in text
    assert ("ExecStart=/usr/local/bin/mallory-hub sync --vault /home/a/Notes --url "
            "https://mallory.example.com --vault-name Work --exclude \"Private/**\"") in text
    assert "SYNC_TOKEN" not in text.replace("# SYNC_TOKEN", "")
    assert "Type=oneshot" in text


def test_the_timer_runs_every_interval() -> None:
    timer = systemd_timer(spec(interval_s=600))
    assert "OnUnitActiveSec=600s" in timer and "every 10 minutes" in timer
    assert "Unit=mallory-hub-notes.service" in timer


def test_the_launchd_agent_sources_the_env_file_before_the_hub() -> None:
    agent = plistlib.loads(launchd_plist(spec(vault_name="Home")).encode())
    assert agent["Label"] == "com.mallory-recall.hub.home"
    assert agent["ProgramArguments"][:5] == ["/bin/sh", "-c", SOURCE_THEN_EXEC,
                                             "/home/a/.config/env", "/usr/local/bin/mallory-hub"]
    assert agent["StartInterval"] == 900


def test_the_env_template_names_every_key_without_values() -> None:
    lines = env_file_template().splitlines()
    assert "SYNC_TOKEN=" in lines
    assert "# CF_ACCESS_CLIENT_ID=" in lines and "# CF_ACCESS_CLIENT_SECRET=" in lines


@pytest.mark.parametrize(("changes", "message"), [
    ({"url": "mallory.example.com"}, "--url must be an http(s) URL"),
    ({"url": "https://a b"}, "--url must be an http(s) URL"),
    ({"vault": Path("Notes")}, "vault must be an absolute path"),
    ({"env_file": Path("env")}, "env_file must be an absolute path"),
])
def test_a_bad_spec_is_refused_with_its_reason(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        spec(**changes)
