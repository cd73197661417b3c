"""The knowledge model end to end over real HTTP: the `mallory-hub` executable syncs a
vault with statuses and typed relations into the Worker app (uvicorn on SQLite) and prints
its lint findings; a chat then recalls competing notes together, labelled in the Recall
block the model receives and in the Sources footer the owner sees. The model provider is
the one fake, at its edge: an OpenAI-compatible endpoint mocked with respx."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import respx

from local.server import settings_for_bind
from local.thread_server import RunningServer, run_coroutine, running_server
from shared.block.envelope import CLOSE, OPEN
from tests.conftest import ROOT
from tests.e2e.hubs import run_hub, write
from worker.config import Settings
from worker.persona import PERSONA

MODEL = "https://llm.example/v1"
NOTES_DATED_S = datetime(2026, 11, 10, 10, tzinfo=UTC).timestamp()
TOKEN = "knowledge-token"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = Settings(sync_tokens=(TOKEN,), model_provider="openai",
                        openai_base_url=MODEL, openai_api_key="k", openai_model="m")
    with running_server(tmp_path / "knowledge.sqlite", token=TOKEN,
                        settings=settings_for_bind(settings, "127.0.0.1")) as s:
        yield s


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """The demo vault (it holds the regression set's conflict cases) and one page whose
    relation names a page that does not exist."""
    root = tmp_path / "Demo"
    shutil.copytree(ROOT / "examples" / "vault", root)
    for page in root.rglob("*.md"):  # dated 2026-11-10, whenever the test runs
        os.utime(page, (NOTES_DATED_S, NOTES_DATED_S))
    write(root, "Inbox/Typo.md", "---\nrelations:\n  - {target: Coffee - Aeropres, type: "
          "supports}\n---\nSee [[Coffee - Aeropres]].")
    return root


@pytest.fixture
def model() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as mock:
        mock.route(host="127.0.0.1").pass_through()  # the Worker itself
        yield mock


def answer(text: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant",
                                                              "content": text}}]})


def recall_block(request: httpx.Request) -> str:
    sent = json.loads(request.content)
    assert sent["messages"][0] == {"role": "system", "content": PERSONA}
    turn = sent["messages"][-1]["content"]
    return turn[turn.index(OPEN):turn.index(CLOSE) + len(CLOSE)]


def test_competing_notes_arrive_together_labelled_in_block_and_footer(
        server: RunningServer, vault: Path, tmp_path: Path,
        model: respx.MockRouter) -> None:
    done = run_hub(server, vault, tmp_path / "state")
    assert "lint error Inbox/Typo.md: relations[0] (supports 'Coffee - Aeropres'): no page " \
           "'Coffee - Aeropres' in the vault; did you mean 'Decisions/Coffee - AeroPress'?" \
           in done.stderr
    assert "lint warning Projects/Kitchen renovation.md: status 'active'" in done.stderr
    assert "(lint: 1 error, 2 warnings)" in done.stdout  # and the sync went through
    assert "sent 27," in done.stdout

    route = model.post(f"{MODEL}/chat/completions").mock(return_value=answer(
        "Brew it with the AeroPress, 15 g to 220 ml at 85 °C [1]. Your older note used a "
        "French press [2], but that one is deprecated."))
    with httpx.Client(base_url=server.url, timeout=30, headers={"origin": server.url}) as http:
        response = http.post("/api/chat", json={"content": "how do I brew my morning coffee?"})
        assert response.status_code == 200, response.text
        block = recall_block(route.calls.last.request)
        # The gate's estimate closes the chosen note's header; the note brought along
        # beside it was not weighed, so its header has none.
        assert ("[1] note «Coffee: AeroPress» (2026-11-10; canonical, stable — supersedes [2]"
                "; confidence 0.") in block
        assert ("[2] note «Coffee: French press» (2026-11-10; canonical, deprecated — "
                "superseded by [1])") in block
        sources = response.json()["assistant_message"]["sources"]
        assert [(s["n"], s["label"], s["standing"]) for s in sources] == [
            (1, "Coffee: AeroPress", "stable — supersedes [2]"),
            (2, "Coffee: French press", "deprecated — superseded by [1]")]

        # The model cites only the current claim: the footer still shows the other beside it.
        model.post(f"{MODEL}/chat/completions").mock(return_value=answer(
            "The daily call at 9:30 stays [1]."))
        response = http.post("/api/chat", json={"content": "is the team stand-up still a "
                                                           "daily call?"})
        block = recall_block(route.calls.last.request)
        assert "[1] note «Team stand-up: daily call at 9:30» (2026-11-10; canonical, stable " \
               "— contradicts [2]; confidence 0." in block
        # Chosen by the gate too, or brought along: with an estimate, or without one.
        assert re.search(r"\[2\] note «Team stand-up: async updates» \(2026-11-10; canonical, "
                         r"draft — contradicts \[1\](; confidence 0\.\d\d)?\)", block)
        reply = response.json()["assistant_message"]
        assert reply["content"] == "The daily call at 9:30 stays [1]."
        assert [(s["n"], s["standing"]) for s in reply["sources"]] == [
            (1, "stable — contradicts [2]"), (2, "draft — contradicts [1]")]
        stored = http.get(f"/api/conversations/{response.json()['conversation_id']}/messages")
        assert stored.json()["messages"][0]["sources"] == reply["sources"]

        hits = http.get("/api/search", params={"q": "coffee french press"}).json()["hits"]
        assert {h["id"]: h["standing"] for h in hits}["Decisions/Coffee - French press.md"] \
            == "deprecated"


EDGES_SQL = """
SELECT n.path AS source, r.target_path AS target, r.type, r.linked,
       EXISTS (SELECT 1 FROM vault_notes AS t
               WHERE t.vid = r.vid AND t.path = r.target_path) AS resolved
FROM note_relations AS r JOIN vault_notes AS n ON n.rid = r.note_rid ORDER BY n.path, r.ord
"""


def edges(server: RunningServer) -> list[tuple]:
    rows = run_coroutine(server.db.prepare(EDGES_SQL).all()).results
    return [(r["source"], r["target"], r["type"], r["linked"], r["resolved"]) for r in rows]


def test_renames_and_deletes_keep_the_adjacency_table_consistent(
        server: RunningServer, tmp_path: Path) -> None:
    vault, state = tmp_path / "V", tmp_path / "state"
    write(vault, "Plan.md", "---\nstatus: stable\nrelations:\n  - {target: Old plan, type: "
          "supersedes}\n---\nReplaces [[Old plan]].")
    write(vault, "Old plan.md", "---\nstatus: deprecated\n---\nThe old plan.")
    run_hub(server, vault, state)
    assert edges(server) == [("Plan.md", "Old plan.md", "supersedes", 1, 1)]

    # Renamed outside Obsidian (the link is not rewritten): the edge lapses, the hub says so.
    (vault / "Old plan.md").rename(vault / "Archived plan.md")
    done = run_hub(server, vault, state)
    # (read again or not — a page written under 2 s before its last read is — either way)
    assert "lint error Plan.md: " in done.stderr
    assert "[relation_missing_target]" in done.stderr
    assert edges(server) == [("Plan.md", "Old plan.md", "supersedes", 1, 0)]

    # The page that was missing comes back where the relation said: resent, resolved.
    write(vault, "Plan.md", "---\nrelations:\n  - {target: Later/Next plan, type: "
          "supersedes}\n---\nSee [[Later/Next plan]].")
    assert "no page 'Later/Next plan'" in run_hub(server, vault, state).stderr
    assert edges(server) == [("Plan.md", "Later/Next plan.md", "supersedes", 1, 0)]
    write(vault, "Later/Next plan.md", "Next.")
    run_hub(server, vault, state)
    assert edges(server) == [("Plan.md", "Later/Next plan.md", "supersedes", 1, 1)]

    (vault / "Plan.md").unlink()
    run_hub(server, vault, state)
    assert edges(server) == []
