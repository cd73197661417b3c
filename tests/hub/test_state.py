"""The hub's local state file: round trip, atomic write, and a clear error when broken."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.state import Entry, State, default_state_dir, load_state, save_state


def test_state_round_trips(tmp_path: Path) -> None:
    state = State(vault="V", url="http://w", last_sync_at=5,
                  notes={"a.md": Entry(hash="h", mtime_ns=1, size=2, pushed_at=3)})
    save_state(tmp_path, state)
    assert load_state(tmp_path) == state
    assert not (tmp_path / "state.json.tmp").exists()


def test_missing_state_is_empty(tmp_path: Path) -> None:
    assert load_state(tmp_path / "nowhere") == State()


def test_broken_state_says_how_to_rebuild(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="--full"):
        load_state(tmp_path)


def test_default_state_dir_is_per_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    one, two = default_state_dir(tmp_path / "a" / "Notes"), default_state_dir(tmp_path / "Notes")
    assert one != two and one.parent == tmp_path / "mallory-hub"
