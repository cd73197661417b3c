"""The questions the README's first screen suggests, asked of `scripts/run`'s setup: the
demo vault synced by a real hub process into `mallory serve`'s server, lexical mode and
the offline responder, as on a fresh machine. Each recalls and cites a note of the vault."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from tests.conftest import ROOT
from tests.e2e.hubs import run_hub
from worker.config import Settings

TOKEN = "readme-token"


def suggested() -> list[str]:
    """The questions of the README's "Ask it, say, …" line."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(ln for ln in readme.splitlines() if ln.strip().startswith("it). Ask it, say,"))
    return re.findall(r'\*"([^"]+)"\*', line)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = Settings(sync_tokens=(TOKEN,), retrieval_mode="lexical")
    with running_server(tmp_path / "readme.sqlite", token=TOKEN,
                        settings=settings_for_bind(settings, "127.0.0.1")) as s:
        yield s


def test_the_readme_questions_cite_a_note_of_the_demo_vault(server: RunningServer,
                                                            tmp_path: Path) -> None:
    questions = suggested()
    assert len(questions) == 2, questions
    vault = tmp_path / "vault"
    shutil.copytree(ROOT / "examples" / "vault", vault)
    run_hub(server, vault, tmp_path / "hub-state")
    for q in questions:
        response = httpx.post(f"{server.url}/api/chat", json={"content": q}, timeout=60,
                              headers={"Origin": server.url})
        assert response.status_code == 200, response.text
        answer = response.json()
        notes = [s for s in answer["assistant_message"]["sources"] if s["kind"] == "note"]
        assert answer["recall"]["injected"] >= 1 and notes, (q, answer["assistant_message"])
