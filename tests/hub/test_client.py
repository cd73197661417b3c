"""The hub's HTTP behaviour against a mocked Worker (respx): retries, backoff, 401/413/422,
the heartbeat and the manifest."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import httpx
import pytest
import respx

from hub.client import (
    BACKOFF_CAP_S,
    MAX_ATTEMPTS,
    AuthFailed,
    HubError,
    WorkerClient,
    backoff_delay,
)
from hub.notes import Rejection
from hub.reading import Page, Unstable, read_page
from hub.sync import Syncer
from shared.api.sync_payload import SyncBatch, SyncResult

URL = "https://worker.example"
VAULT_ID = "0a0b0c0d-0000-4000-8000-000000000001"
OK = {"batch_id": "x", "status": "applied", "upserted": 1, "skipped_stale": 0, "deleted": 0,
      "withdrawn": 0}
BATCH = SyncBatch(batch_id="x", vault_id="11111111-1111-4111-8111-111111111111", vault="V",
                  seq=1)


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(sleeps: list[float]) -> WorkerClient:
    return WorkerClient(URL, "tok", sleep=sleeps.append)


def fresh_worker() -> None:
    """The heartbeat and manifest answers of a Worker that holds nothing of the vault."""
    respx.post(f"{URL}/vault/heartbeat").mock(return_value=httpx.Response(200, json={
        "worker_id": "w1", "adopted": False,
        "vault": {"id": "x", "name": "V", "seq": 1, "notes": 0, "checksum": 0,
                  "last_sync_at": None, "last_contact_at": None}}))
    respx.get(f"{URL}/vault/manifest").mock(return_value=httpx.Response(200, json={
        "vault": {}, "notes": [], "next_after": None}))


def vault(tmp_path: Path, n: int) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(n):
        (root / f"note{i}.md").write_text(f"note number {i}")
    return root


def test_backoff_is_exponential_with_full_jitter_and_a_cap() -> None:
    assert backoff_delay(0, rand=lambda: 1.0) == 0.5
    assert backoff_delay(3, rand=lambda: 1.0) == 4.0
    assert backoff_delay(30, rand=lambda: 1.0) == BACKOFF_CAP_S
    assert backoff_delay(3, rand=lambda: 0.25) == 1.0
    assert backoff_delay(1, retry_after="7") == 7.0


@respx.mock
def test_transient_failures_are_retried_then_succeed(client: WorkerClient,
                                                     sleeps: list[float]) -> None:
    route = respx.post(f"{URL}/vault/sync").mock(side_effect=[
        httpx.Response(503), httpx.ConnectTimeout("slow"),
        httpx.Response(429, headers={"retry-after": "2"}),
        httpx.Response(200, json=OK)])
    assert client.push(BATCH) == SyncResult(**OK)
    assert json.loads(route.calls.last.request.content) == BATCH.model_dump(mode="json")
    assert route.call_count == 4
    assert len(sleeps) == 3 and sleeps[2] == 2.0
    assert route.calls.last.request.headers["authorization"] == "Bearer tok"


@respx.mock
def test_persistent_failure_gives_up_with_a_clear_error(client: WorkerClient,
                                                        sleeps: list[float]) -> None:
    route = respx.post(f"{URL}/vault/sync").mock(return_value=httpx.Response(500))
    with pytest.raises(HubError, match="failed 6 times"):
        client.push(BATCH)
    assert route.call_count == MAX_ATTEMPTS and len(sleeps) == MAX_ATTEMPTS - 1


@respx.mock
def test_401_is_not_retried(client: WorkerClient) -> None:
    route = respx.post(f"{URL}/vault/sync").mock(return_value=httpx.Response(
        401, json={"error": {"code": "unauthorized", "message": "missing credentials"}}))
    with pytest.raises(AuthFailed, match="missing credentials"):
        client.push(BATCH)
    assert route.call_count == 1


@respx.mock
def test_413_splits_the_batch(tmp_path: Path, client: WorkerClient) -> None:
    sizes, accepted = [], []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sizes.append(len(body["upserts"]))
        if len(body["upserts"]) > 2:
            return httpx.Response(413, json={"error": {"message": "too large"}})
        accepted.append(len(body["upserts"]))
        return httpx.Response(200, json={**OK, "batch_id": body["batch_id"]})

    respx.post(f"{URL}/vault/sync").mock(side_effect=handler)
    fresh_worker()
    summary = Syncer(vault(tmp_path, 5), client, "V", tmp_path / "state").run()
    assert summary.sent == 5 and not summary.rejected
    assert sizes[0] == 5 and sum(accepted) == 5 and max(accepted) <= 2


@respx.mock
def test_the_pages_are_read_with_the_collector_paused_then_frozen_until_the_run_ends(
        tmp_path: Path, client: WorkerClient) -> None:
    collecting_while_read, frozen_while_sent = [], []

    def reading(root: Path, path: str, now_ms: int) -> Page | Rejection | Unstable:
        collecting_while_read.append(gc.isenabled())
        return read_page(root, path, now_ms)

    def handler(request: httpx.Request) -> httpx.Response:
        frozen_while_sent.append(gc.get_freeze_count())
        if len(frozen_while_sent) > 1:
            return httpx.Response(401, json={"error": {"message": "token revoked"}})
        return httpx.Response(200, json={**OK, "batch_id": json.loads(request.content)[
            "batch_id"]})

    respx.post(f"{URL}/vault/sync").mock(side_effect=handler)
    fresh_worker()
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    syncer = Syncer(vault(tmp_path, 3), client, "V", tmp_path / "state", batch_items=2,
                    read=reading)
    with pytest.raises(AuthFailed):
        syncer.run()  # the second batch is refused: the run ends with an error
    assert collecting_while_read == [False] * 3
    assert frozen_while_sent[0] > 0 and len(frozen_while_sent) == 2
    assert gc.get_freeze_count() == 0 and gc.isenabled()


@respx.mock
def test_422_drops_the_bad_items_and_sends_the_rest(tmp_path: Path,
                                                    client: WorkerClient) -> None:
    sent = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        paths = [u["path"] for u in body["upserts"]]
        if "note1.md" in paths:
            index = paths.index("note1.md")
            return httpx.Response(422, json={"error": {"code": "invalid_payload", "message": "bad",
                                                       "details": [{"item": f"upserts[{index}]",
                                                                    "field": "body",
                                                                    "message": "nope"}]}})
        sent.extend(paths)
        return httpx.Response(200, json={**OK, "batch_id": body["batch_id"]})

    respx.post(f"{URL}/vault/sync").mock(side_effect=handler)
    fresh_worker()
    summary = Syncer(vault(tmp_path, 3), client, "V", tmp_path / "state").run()
    assert sorted(sent) == ["note0.md", "note2.md"]
    assert [(r.path, r.reason) for r in summary.rejected] == [
        ("note1.md", "refused by the Worker: nope")]
    # The closing heartbeat reports the refused page.
    closing = json.loads(respx.calls.last.request.content)
    assert closing["rejected"] == 1 and closing["vault"] == "V"


@respx.mock
def test_access_service_token_headers_are_sent_when_configured() -> None:
    route = respx.get(f"{URL}/vault/manifest").mock(return_value=httpx.Response(
        200, json={"notes": [{"path": "a.md", "content_hash": "h", "mtime": 5, "seq": 1}],
                   "next_after": None}))
    client = WorkerClient(URL, "tok", access_id="id.access", access_secret="s3cret")
    assert client.manifest("vault-id") == {"a.md": "h"}
    assert route.calls.last.request.url.params["vault"] == "vault-id"
    headers = route.calls.last.request.headers
    assert headers["cf-access-client-id"] == "id.access"
    assert headers["cf-access-client-secret"] == "s3cret"
    assert headers["authorization"] == "Bearer tok"
    plain = WorkerClient(URL, "tok")
    plain.manifest("vault-id")
    assert "cf-access-client-id" not in route.calls.last.request.headers


@respx.mock
def test_a_sync_answer_that_is_not_a_sync_result_is_a_clear_error(client: WorkerClient
                                                                 ) -> None:
    respx.post(f"{URL}/vault/sync").mock(return_value=httpx.Response(
        200, json={"batch_id": "x", "status": "maybe"}))
    with pytest.raises(HubError, match=r"unexpected sync answer.*status"):
        client.push(BATCH)


@respx.mock
def test_the_heartbeat_reads_the_shared_contact_and_ignores_newer_fields(
        client: WorkerClient) -> None:
    respx.post(f"{URL}/vault/heartbeat").mock(return_value=httpx.Response(200, json={
        "worker_id": "w1", "adopted": True, "lease": "from a newer Worker",
        "vault": {"id": "x", "name": "V", "seq": 4, "notes": 2, "checksum": 9,
                  "last_sync_at": None, "last_contact_at": None, "colour": "blue"}}))
    contact = client.heartbeat("vault-id", "V")
    assert (contact.worker_id, contact.adopted) == ("w1", True)
    assert (contact.vault.seq, contact.vault.notes, contact.vault.checksum) == (4, 2, 9)


@respx.mock
def test_a_heartbeat_from_an_older_worker_is_a_clear_error(client: WorkerClient) -> None:
    respx.post(f"{URL}/vault/heartbeat").mock(return_value=httpx.Response(200, json={}))
    with pytest.raises(HubError, match="migrations/0002"):
        client.heartbeat("vault-id", "V")


@respx.mock
def test_a_worker_without_leases_is_synced_as_before() -> None:
    """A Worker from before migrations/0010 refuses the heartbeat's lease fields by name
    (422, extra fields forbidden): the hub drops them and carries on without a lease."""
    contact = {"worker_id": "w1", "adopted": False,
               "vault": {"id": "x", "name": "V", "seq": 4, "notes": 0, "checksum": 0,
                         "last_sync_at": None, "last_contact_at": None}}
    refused = {"error": {"code": "invalid_payload", "message": "heartbeat is invalid",
                         "details": [{"item": None, "field": "holder",
                                      "message": "Extra inputs are not permitted"}]}}
    route = respx.post(f"{URL}/vault/heartbeat").mock(side_effect=[
        httpx.Response(422, json=refused), httpx.Response(200, json=contact),
        httpx.Response(200, json=contact)])
    client = WorkerClient(URL, "tok", sleep=lambda s: None)
    assert client.heartbeat(VAULT_ID, "V", holder="hub-0123456789ab").vault.seq == 4
    client.heartbeat(VAULT_ID, "V", rejected=0, seq=4, holder="hub-0123456789ab")
    bodies = [json.loads(c.request.content) for c in route.calls]
    assert "holder" in bodies[0] and "holder" not in bodies[1]
    assert bodies[2] == {"vault_id": VAULT_ID, "vault": "V", "rejected": 0}
