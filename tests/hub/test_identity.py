"""The vault's identity file: created once, read back, restored from the state, and a
clear error when damaged or unwritable."""

from __future__ import annotations

import json
import multiprocessing
import uuid
from pathlib import Path

import pytest

from hub.client import HubError
from hub.identity import ensure_vault_id, id_path, read_vault_id
from hub.walk import walk_vault


def test_the_first_run_creates_an_id_that_later_runs_read(tmp_path: Path) -> None:
    assert read_vault_id(tmp_path) is None
    made = ensure_vault_id(tmp_path)
    assert str(uuid.UUID(made)) == made
    assert ensure_vault_id(tmp_path) == made == read_vault_id(tmp_path)
    assert list(walk_vault(tmp_path)) == []  # the hidden folder is never a page


def test_a_deleted_file_is_written_back_from_the_state(tmp_path: Path) -> None:
    made = ensure_vault_id(tmp_path)
    id_path(tmp_path).unlink()
    assert ensure_vault_id(tmp_path, remembered=made) == made
    assert json.loads(id_path(tmp_path).read_text())["vault_id"] == made


def test_the_file_wins_over_the_state(tmp_path: Path) -> None:
    made = ensure_vault_id(tmp_path)
    assert ensure_vault_id(tmp_path, remembered=str(uuid.uuid4())) == made


@pytest.mark.parametrize("content", ["{broken", '{"vault_id": "not-a-uuid"}', "[]", "{}"])
def test_a_damaged_file_is_an_error_not_a_new_identity(tmp_path: Path, content: str) -> None:
    id_path(tmp_path).parent.mkdir()
    id_path(tmp_path).write_text(content)
    with pytest.raises(HubError, match="damaged"):
        ensure_vault_id(tmp_path)


def test_an_unwritable_vault_says_what_to_do(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "mkdir", refuse)  # a read-only vault (tests run as root)
    with pytest.raises(HubError, match="make it writable"):
        ensure_vault_id(tmp_path)
    assert not id_path(tmp_path).exists()


ATTEMPTS, RUNS = 30, 6  # before exclusive creation, ids diverged in about 1 start in 4


def _first_run(vault: str, start: object, out: object) -> None:
    start.wait()  # type: ignore[attr-defined]
    out.put(ensure_vault_id(Path(vault)))  # type: ignore[attr-defined]


def test_first_runs_at_once_agree_on_one_id(tmp_path: Path) -> None:
    """Two (here six) first runs at once: each creates an id, exactly one lands in the
    file, and every run goes on with the id the file holds."""
    ctx = multiprocessing.get_context("fork")
    for attempt in range(ATTEMPTS):
        vault = tmp_path / f"v{attempt}"
        vault.mkdir()
        start, out = ctx.Barrier(RUNS), ctx.Queue()
        runs = [ctx.Process(target=_first_run, args=(str(vault), start, out))
                for _ in range(RUNS)]
        for p in runs:
            p.start()
        ids = {out.get(timeout=30) for _ in runs}
        for p in runs:
            p.join(timeout=30)
        assert ids == {read_vault_id(vault)}, f"attempt {attempt}: {ids}"
        assert [p.name for p in (vault / ".mallory").iterdir()] == ["vault.json"]
