"""The hub's local state file: round trip, atomic write, the checksum it compares with the
Worker's, rebuilding from a manifest, and a clear error when broken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.identity import ensure_vault_id, id_path
from hub.state import (
    PARSER_VERSION,
    UNKNOWN,
    Entry,
    State,
    copied_from,
    default_state_dir,
    load_state,
    reconciled,
    record_changes,
    save_state,
)
from shared.api.vault_digest import vault_checksum


def test_state_round_trips(tmp_path: Path) -> None:
    state = State(vault="V", vault_id="id", url="http://w", worker_id="w1", last_sync_at=5,
                  notes={"a.md": Entry(hash="h", mtime_ns=1, size=2, pushed_at=3, read_ns=4)})
    save_state(tmp_path, state)
    assert load_state(tmp_path) == state
    assert not (tmp_path / "state.json.tmp").exists()


def test_a_version_1_state_loads_as_version_1(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text(json.dumps({
        "version": 1, "vault": "V", "url": "http://w", "last_sync_at": 5,
        "notes": {"a.md": {"hash": "h", "mtime_ns": 1, "size": 2, "pushed_at": 3}}}))
    state = load_state(tmp_path)
    assert state.version == 1 and state.notes["a.md"].read_ns == 0 and state.worker_id == ""


def test_missing_state_is_empty(tmp_path: Path) -> None:
    state = load_state(tmp_path / "nowhere")
    assert state == State(hub_id=state.hub_id) and state.hub_id.startswith("hub-")


def test_broken_state_says_how_to_rebuild(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="delete it"):
        load_state(tmp_path)


def test_checksum_is_the_shared_one_over_path_and_hash() -> None:
    state = State(notes={"b.md": Entry("h2", 1, 1, 1), "a.md": Entry("h1", 1, 1, 1)})
    assert state.checksum() == vault_checksum([("a.md", "h1"), ("b.md", "h2")])
    assert State().checksum() == 0


def test_reconciled_mirrors_the_manifest_and_keeps_agreeing_stats() -> None:
    kept = Entry("same", 10, 20, 1, read_ns=99)
    state = State(vault="V", worker_id="w", notes={
        "same.md": kept, "changed.md": Entry("old", 1, 1, 1), "gone.md": Entry("x", 1, 1, 1)})
    rebuilt = reconciled(state, {"same.md": "same", "changed.md": "new", "extra.md": "e"})
    assert rebuilt.notes["same.md"] == kept
    assert rebuilt.notes["changed.md"] == Entry("new", UNKNOWN, UNKNOWN, 0, parser=PARSER_VERSION)
    assert set(rebuilt.notes) == {"same.md", "changed.md", "extra.md"}
    assert (rebuilt.vault, rebuilt.worker_id) == ("V", "w")


def test_default_state_dir_is_per_vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    one, two = default_state_dir(tmp_path / "a" / "Notes"), default_state_dir(tmp_path / "Notes")
    assert one != two and one.parent == tmp_path / "mallory-hub"


def test_recorded_changes_are_replayed_on_load(tmp_path: Path) -> None:
    state = State(vault="V", notes={"a.md": Entry("h1", 1, 1, 1), "b.md": Entry("h2", 1, 1, 1)})
    save_state(tmp_path, state)
    state.notes["c.md"] = Entry("h3", 5, 6, 7, read_ns=8, relations=[["a.md", "related"]])
    del state.notes["b.md"]
    state.last_sync_at = 42
    record_changes(tmp_path, state, ["c.md"], ["b.md"])
    loaded = load_state(tmp_path)
    assert loaded == state and loaded.journal_lines == 1
    assert json.loads((tmp_path / "state.json").read_text())["notes"].keys() == {"a.md", "b.md"}


def test_a_save_folds_the_journal_in_and_drops_it(tmp_path: Path) -> None:
    state = State(notes={"a.md": Entry("h1", 1, 1, 1)})
    save_state(tmp_path, state)
    state.notes["b.md"] = Entry("h2", 1, 1, 1)
    record_changes(tmp_path, state, ["b.md"])
    save_state(tmp_path, state)
    assert [p.name for p in tmp_path.glob("journal-*")] == []
    assert load_state(tmp_path) == state


def test_a_line_torn_by_a_kill_is_not_recorded_and_the_next_change_saves(tmp_path: Path
                                                                        ) -> None:
    state = State(notes={"a.md": Entry("h1", 1, 1, 1)})
    save_state(tmp_path, state)
    state.notes["b.md"] = Entry("h2", 1, 1, 1)
    record_changes(tmp_path, state, ["b.md"])
    journal = next(tmp_path.glob("journal-*.jsonl"))
    with journal.open("a") as handle:
        handle.write('{"set": {"c.md": {"hash": "h3", "mtim')
    loaded = load_state(tmp_path)
    assert set(loaded.notes) == {"a.md", "b.md"} and loaded.journal == ""
    loaded.notes["d.md"] = Entry("h4", 1, 1, 1)
    record_changes(tmp_path, loaded, ["d.md"])
    assert set(load_state(tmp_path).notes) == {"a.md", "b.md", "d.md"}
    assert not journal.exists()


def test_a_state_never_saved_is_saved_whole(tmp_path: Path) -> None:
    state = State(notes={"a.md": Entry("h1", 1, 1, 1)})
    record_changes(tmp_path, state, ["a.md"])
    assert load_state(tmp_path) == state


def test_a_copy_is_told_from_a_move_by_whether_the_first_folder_still_holds_the_id(
        tmp_path: Path) -> None:
    first, copy, states = tmp_path / "Notes", tmp_path / "Copy", tmp_path / "states"
    first.mkdir()
    vault_id = ensure_vault_id(first)
    save_state(states / "notes", State(vault_id=vault_id, folder=str(first.resolve())))
    (states / "broken").mkdir()
    (states / "broken" / "state.json").write_text("{not json", encoding="utf-8")
    copy.mkdir()
    (copy / ".mallory").mkdir()
    id_path(copy).write_bytes(id_path(first).read_bytes())
    assert copied_from(copy, vault_id, states / "copy") == first.resolve()
    assert copied_from(first, vault_id, states / "notes") is None  # its own folder
    assert copied_from(copy, "another-id", states / "copy") is None
    id_path(first).write_text("{damaged", encoding="utf-8")  # its own runs say so
    assert copied_from(copy, vault_id, states / "copy") is None
    id_path(first).parent.rename(tmp_path / "elsewhere")
    first.rmdir()  # moved away: the copy is the vault now
    assert copied_from(copy, vault_id, states / "copy") is None
