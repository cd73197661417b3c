"""Retrieval modes end to end over real HTTP, with the local MiniLM embedder: the server of
`mallory serve` (uvicorn on SQLite, vectors beside it), notes synced through
POST /vault/sync (which embeds them), RETRIEVAL_MODE chosen per server. Paraphrase is
bridged only by the semantic modes; a failing embedder steps down to lexical and says so;
chat never fails because of it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from local.server import settings_for_bind
from local.thread_server import RunningServer, running_server
from shared.rank.policy import REASONS
from tests.conftest import note
from tests.e2e.conftest import SEMANTIC_BUDGET_S, sync_notes
from worker.config import Settings

pytestmark = pytest.mark.embed

NOTES = (
    note("Shop/Refund policy.md", "Customers may return goods within 30 days of purchase. "
         "We reimburse the full price to the original card.", title="Refund policy"),
    note("Shop/Shipping.md", "Parcels leave the warehouse on weekdays; tracking numbers "
         "arrive by email.", title="Shipping"),
    note("Garden/Tomatoes.md", "Pinch out the side shoots of tomato plants every week.",
         title="Tomatoes"),
    note("Dev/pg-pull.md", "heroku pg:pull copies the production database to a local "
         "Postgres.", title="heroku pg:pull"),
)
PARAPHRASE = "I want my money back"
REFUND = "Shop/Refund policy.md"


@pytest.fixture
def serve(tmp_path: Path) -> Iterator:
    """A server factory: serve(mode, env) → a running server with the notes synced."""
    stack: list = []

    def start(mode: str, env: dict[str, str] | None = None) -> RunningServer:
        settings = settings_for_bind(Settings(sync_tokens=("e2e-token",),
                                              retrieval_mode=mode), "127.0.0.1")
        ctx = running_server(tmp_path / f"{mode}-{len(stack)}.sqlite", token="e2e-token",
                             settings=settings, semantic_env=env or {},
                             semantic_budget_s=SEMANTIC_BUDGET_S)
        server = ctx.__enter__()
        stack.append(ctx)
        sync_notes(server, *NOTES)
        if env is None and mode != "lexical":
            wait_indexed(server)
        return server

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def wait_indexed(server: RunningServer, timeout_s: float = 60) -> None:
    """Until the background indexing has embedded every note section."""
    deadline = time.monotonic() + timeout_s
    con = server.db.connection
    while time.monotonic() < deadline:
        sections = con.execute("SELECT count(*) AS n FROM note_sections").fetchone()["n"]
        vectors = con.execute("SELECT count(*) AS n FROM vector_units WHERE corpus = 'notes'"
                              ).fetchone()["n"]
        if sections and vectors >= sections:
            return
        time.sleep(0.1)
    raise AssertionError("the notes were not embedded in time")


def search(server: RunningServer, q: str) -> dict:
    response = httpx.get(f"{server.url}/api/search", params={"q": q}, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def ids(body: dict) -> list[str]:
    return [h["id"] for h in body["hits"]]


def test_lexical_misses_the_paraphrase_and_adaptive_finds_it(serve) -> None:
    plain = serve("lexical")
    lexical = search(plain, PARAPHRASE)
    assert (lexical["mode"], lexical["fallback"]) == ("lexical", None)
    assert REFUND not in ids(lexical)
    # RETRIEVAL_MODE=lexical never loads a model: nothing was embedded
    assert plain.db.connection.execute("SELECT count(*) AS n FROM vector_units"
                                       ).fetchone()["n"] == 0

    adaptive = search(serve("adaptive"), PARAPHRASE)
    assert (adaptive["mode"], adaptive["fallback"]) == ("adaptive", None)
    assert ids(adaptive)[0] == REFUND


def test_hybrid_fuses_by_rank_and_quality_says_it_has_no_reranker(serve) -> None:
    hybrid = search(serve("hybrid"), PARAPHRASE)
    assert (hybrid["mode"], hybrid["fallback"]) == ("hybrid", None)
    assert REFUND in ids(hybrid)[:2]

    quality = search(serve("quality"), PARAPHRASE)
    assert (quality["mode"], quality["fallback"]) == ("quality", "no_reranker")
    assert ids(quality)[0] == REFUND


def test_an_exact_identifier_keeps_the_lexical_order_in_adaptive(serve) -> None:
    body = search(serve("adaptive"), "pg:pull")
    assert ids(body)[0] == "Dev/pg-pull.md"


def test_a_failing_embedder_steps_down_to_lexical_and_chat_goes_on(serve) -> None:
    # An OpenAI-compatible endpoint that refuses connections: the embedder fails.
    broken = serve("adaptive", {"EMBEDDINGS_BASE_URL": "http://127.0.0.1:9/v1",
                                "EMBEDDINGS_MODEL": "nomic-embed-text",
                                "EMBEDDINGS_DIMENSIONS": "384"})
    body = search(broken, "refund policy")
    assert body["mode"] == "lexical" and body["fallback"] in (
        "embedder_failed", "semantic_failed", "semantic_timeout")
    assert ids(body)[0] == REFUND
    chat = httpx.post(f"{broken.url}/api/chat", json={"content": "what is our refund policy?"},
                      headers={"origin": broken.url}, timeout=60)
    assert chat.status_code == 200, chat.text
    recall = chat.json()["recall"]
    assert recall["mode"] == "lexical" and recall["fallback"] == body["fallback"]
    assert [s["id"] for s in chat.json()["assistant_message"]["sources"]] == [REFUND]
    # /status says so, rather than "adaptive" as if all were well.
    status = httpx.get(f"{broken.url}/status", timeout=60)
    assert status.status_code == 200, status.text
    retrieval = status.json()["retrieval"]
    assert retrieval["mode"] == "lexical" and retrieval["embedder"]["reachable"] is False
    assert retrieval["embedder"]["error"] and "127.0.0.1:9" not in retrieval["embedder"]["error"]
    assert any("adaptive steps down to lexical" in n for n in retrieval["notes"]), retrieval


def test_automatic_recall_reports_the_mode_it_ran(serve) -> None:
    server = serve("adaptive")
    chat = httpx.post(f"{server.url}/api/chat", json={"content": "what is our refund policy?"},
                      headers={"origin": server.url}, timeout=60)
    assert chat.status_code == 200, chat.text
    body = chat.json()
    assert (body["recall"]["mode"], body["recall"]["fallback"]) == ("adaptive", None)
    assert [s["id"] for s in body["assistant_message"]["sources"]] == [REFUND]


def test_automatic_recall_bridges_a_paraphrase_through_the_cosine_bar(serve) -> None:
    """No word of the question is in the refund note: the lexical gate has no evidence,
    the calibrated cosine bar (shared.rank.policy.COSINE_BARS) has (MiniLM: 0.55)."""
    for mode, sources in (("lexical", []), ("adaptive", [REFUND])):
        server = serve(mode)
        chat = httpx.post(f"{server.url}/api/chat",
                          json={"content": "money back after buying something"},
                          headers={"origin": server.url}, timeout=60)
        assert chat.status_code == 200, chat.text
        assert [s["id"] for s in chat.json()["assistant_message"]["sources"]] == sources, \
            chat.json()["recall"]


def test_chit_chat_recalls_nothing_in_adaptive(serve) -> None:
    server = serve("adaptive")
    for text in ("lol my tomato plants died while I was on a call, anyway",
                 "what's the capital of Australia?"):
        chat = httpx.post(f"{server.url}/api/chat", json={"content": text},
                          headers={"origin": server.url}, timeout=60)
        assert chat.status_code == 200, chat.text
        assert chat.json()["recall"]["injected"] == 0, text


def test_a_search_can_ask_for_its_own_mode(serve) -> None:
    server = serve("adaptive")
    asked = httpx.get(f"{server.url}/api/search", params={"q": PARAPHRASE, "mode": "lexical"},
                      timeout=60).json()
    assert (asked["mode"], asked["fallback"]) == ("lexical", None)
    assert REFUND not in ids(asked)  # lexical's answer, not adaptive's
    assert ids(search(server, PARAPHRASE))[0] == REFUND  # and the default is untouched


def inspect(server: RunningServer, path: str, **params: str) -> dict:
    response = httpx.get(f"{server.url}{path}", params=params, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_inspector_shows_each_candidates_vector_scores_in_the_mode_asked(serve) -> None:
    """Why these memories, with the local MiniLM: the paraphrase's refund note (no word in
    common) is a candidate by its cosine and vector rank alone, fused in hybrid; the same
    server asked for lexical shows no vector score at all."""
    server = serve("hybrid")
    trace = inspect(server, "/api/inspect/search", q=PARAPHRASE)
    by_id = {c["id"]: c for c in trace["candidates"]}
    refund = by_id[REFUND]
    assert refund["lexical_rank"] is None and refund["matched_terms"] == []
    assert 0 < refund["cosine"] <= 1 and refund["vector_rank"] == 1
    assert refund["fused"] is not None and refund["fused"] > 0
    assert all(c["cosine"] is None or -1 <= c["cosine"] <= 1 for c in by_id.values())
    assert refund["decision"]["rule"] in REASONS and refund["decision"]["reason"]
    lexical = inspect(server, "/api/inspect/search", q=PARAPHRASE, mode="lexical")
    assert REFUND not in {c["id"] for c in lexical["candidates"]}
    assert all(c["cosine"] is None and c["vector_rank"] is None and c["fused"] is None
               for c in lexical["candidates"])

    # An answer's trace: automatic recall re-run in adaptive, with its confidence.
    adaptive = serve("adaptive")
    chat = httpx.post(f"{adaptive.url}/api/chat",
                      json={"content": "money back after buying something"},
                      headers={"origin": adaptive.url}, timeout=60)
    assert chat.status_code == 200, chat.text
    why = inspect(adaptive, f"/api/inspect/answers/{chat.json()['assistant_message']['id']}")
    refund = next(c for c in why["candidates"] if c["id"] == REFUND)
    assert refund["cosine"] is not None and refund["injected"] is True
    assert refund["decision"]["passed"] and refund["confidence"] is not None
    assert REFUND in {s["id"] for s in why["answer"]["cited"]} | {
        s["id"] for s in why["answer"]["injected"]}
