"""Local configuration: environment over .dev.vars, as wrangler does."""

from __future__ import annotations

from pathlib import Path

import pytest

from local.server import local_settings, read_dev_vars


def test_dev_vars_parsing(tmp_path: Path) -> None:
    path = tmp_path / ".dev.vars"
    path.write_text('# comment\nSYNC_TOKEN="abc"\nMODEL_PROVIDER = offline\nJUNK\n\n')
    assert read_dev_vars(path) == {"SYNC_TOKEN": "abc", "MODEL_PROVIDER": "offline"}
    assert read_dev_vars(tmp_path / "missing") == {}


def test_environment_wins_over_dev_vars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".dev.vars").write_text("SYNC_TOKEN=from-file\nSYNC_TOKEN_NEXT=next\n")
    monkeypatch.delenv("SYNC_TOKEN", raising=False)
    monkeypatch.delenv("SYNC_TOKEN_NEXT", raising=False)
    assert local_settings().sync_tokens == ("from-file", "next")
    monkeypatch.setenv("SYNC_TOKEN", "from-env")
    assert local_settings().sync_tokens == ("from-env", "next")


def test_no_token_anywhere_means_sync_disabled(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SYNC_TOKEN", raising=False)
    monkeypatch.delenv("SYNC_TOKEN_NEXT", raising=False)
    assert local_settings().sync_tokens == ()
