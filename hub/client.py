"""The hub's HTTP client for the Worker: retries with backoff, typed failures.

    HubError                  the sync cannot go on (message says what to do)
     ├── AuthFailed           401/403: the token is missing or wrong
     ├── VaultNameTaken       409 vault_name_taken: another vault id holds the name
     ├── HubBusy              another run holds the vault (409 vault_busy) or the state
     └── BatchRejected        422: the Worker refused items (details per item)
    BatchTooLarge             413: the caller splits the batch and retries
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from shared.api.protocol import MANIFEST_PAGE
from shared.api.sync_payload import SyncBatch, SyncResult
from shared.api.wire import Contact

LEASE_FIELDS = ("seq", "holder")  # the heartbeat's fields of migrations/0010
RETRY_STATUSES = {408, 425, 429, 500, 502, 503, 504}
MAX_ATTEMPTS = 6
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 30.0
TIMEOUT = httpx.Timeout(60.0, connect=10.0)

Answer = TypeVar("Answer", bound=BaseModel)


class HubError(Exception):
    pass


class AuthFailed(HubError):
    pass


class VaultNameTaken(HubError):
    def __init__(self, message: str, holder: str | None = None) -> None:
        super().__init__(message)
        self.holder = holder  # the vault id that holds the name, when the Worker says


class HubBusy(HubError):
    """Another run is syncing this vault (or using this state): this one sends nothing."""


class BatchRejected(HubError):
    def __init__(self, message: str, details: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.details = details


class BatchTooLarge(Exception):
    pass


def backoff_delay(attempt: int, retry_after: str | None = None,
                  rand: Callable[[], float] = random.random) -> float:
    """Full-jitter exponential backoff; a Retry-After in seconds wins when given."""
    if retry_after and retry_after.strip().isdigit():
        return min(float(retry_after), BACKOFF_CAP_S)
    return rand() * min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2**attempt)


def _error_message(response: httpx.Response) -> str:
    try:
        return str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return response.text[:300]


def _error_code(response: httpx.Response) -> str:
    try:
        return str(response.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return ""


def _error_detail(response: httpx.Response, key: str) -> str | None:
    try:
        value = response.json()["error"]["details"][key]
    except (ValueError, KeyError, TypeError):
        return None
    return str(value) if value is not None else None


def auth_headers(token: str, access_id: str | None = None,
                 access_secret: str | None = None) -> dict[str, str]:
    """The Worker's shared secret, plus a Cloudflare Access service token when given (the
    edge checks it before the Worker sees the request)."""
    headers = {"authorization": f"Bearer {token}", "user-agent": "mallory-hub"}
    if access_id and access_secret:
        headers["cf-access-client-id"] = access_id
        headers["cf-access-client-secret"] = access_secret
    return headers


class WorkerClient:
    def __init__(self, url: str, token: str, *, sleep: Callable[[float], None] = time.sleep,
                 access_id: str | None = None, access_secret: str | None = None) -> None:
        self.url = url.rstrip("/")
        self._sleep = sleep
        self.leases = True  # False once a Worker without leases refused the fields
        self._client = httpx.Client(base_url=self.url, timeout=TIMEOUT,
                                    headers=auth_headers(token, access_id, access_secret))

    def close(self) -> None:
        self._client.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        for attempt in range(MAX_ATTEMPTS):
            retry_after = None
            try:
                response = self._client.request(method, path, **kwargs)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                failure = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code not in RETRY_STATUSES:
                    return response
                failure = f"HTTP {response.status_code}: {_error_message(response)}"
                retry_after = response.headers.get("retry-after")
            if attempt + 1 < MAX_ATTEMPTS:
                self._sleep(backoff_delay(attempt, retry_after))
        raise HubError(f"{method} {self.url}{path} failed {MAX_ATTEMPTS} times; last: {failure}."
                       " The next run will retry the remaining changes.")

    def _check(self, response: httpx.Response) -> dict[str, Any]:
        if response.status_code in (401, 403):
            raise AuthFailed(f"the Worker refused the sync token ({response.status_code}: "
                             f"{_error_message(response)})")
        if response.status_code == 413:
            raise BatchTooLarge(_error_message(response))
        if response.status_code == 422:
            details: list[dict[str, Any]] = []
            with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
                details = response.json()["error"].get("details") or []
            raise BatchRejected(_error_message(response), details)
        if response.status_code == 409 and _error_code(response) == "vault_name_taken":
            raise VaultNameTaken(f"the Worker at {self.url} refused this vault's name: "
                                 f"{_error_message(response)}",
                                 _error_detail(response, "holder"))
        if response.status_code == 409 and _error_code(response) == "vault_busy":
            raise HubBusy(_error_message(response))
        if response.status_code != 200:
            raise HubError(f"unexpected answer {response.status_code}: "
                           f"{_error_message(response)}")
        return response.json()

    def _read(self, model: type[Answer], answer: Any, what: str) -> Answer:
        try:
            return model.model_validate(answer)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                 for e in exc.errors()[:3])
            raise HubError(f"unexpected {what} answer from {self.url} ({problems}); is the "
                           "Worker up to date (migrations/0002)?") from exc

    def push(self, batch: SyncBatch) -> SyncResult:
        # pydantic's own JSON (UTF-8, compact): what make_batches sized (hub/plan.py)
        answer = self._check(self._request("POST", "/vault/sync",
                                           content=batch.model_dump_json(),
                                           headers={"content-type": "application/json"}))
        return self._read(SyncResult, answer, "sync")

    def heartbeat(self, vault_id: str, vault_name: str, rejected: int | None = None, *,
                  seq: int | None = None, holder: str | None = None) -> Contact:
        """Register the vault (or adopt its pre-0002 copy), record the contact and take the
        run's sync sequence and the vault's lease for `holder`; at the end of the run
        (`seq`: its sequence), report the pages it could not send and give the lease up."""
        body: dict[str, Any] = {"vault_id": vault_id, "vault": vault_name}
        if rejected is not None:
            body["rejected"] = rejected
        if self.leases and seq is not None:
            body["seq"] = seq
        if self.leases and holder is not None:
            body["holder"] = holder
        try:
            answer = self._check(self._request("POST", "/vault/heartbeat", json=body))
        except BatchRejected as exc:
            # A Worker from before migrations/0010 refuses the lease fields by name: sync
            # with it as before, without a lease.
            if not self.leases or not any(str(d.get("field", "")).split(".")[0] in LEASE_FIELDS
                                          for d in exc.details):
                raise
            self.leases = False
            return self.heartbeat(vault_id, vault_name, rejected)
        return self._read(Contact, answer, "heartbeat")

    def manifest(self, vault_id: str) -> dict[str, str]:
        """The Worker's whole manifest of one vault, path → content hash."""
        notes: dict[str, str] = {}
        after = ""
        while True:
            page = self._check(self._request("GET", "/vault/manifest", params={
                "vault": vault_id, "after": after, "limit": MANIFEST_PAGE}))
            notes.update({n["path"]: n["content_hash"] for n in page["notes"]})
            if not page.get("next_after"):
                return notes
            after = page["next_after"]
