"""Hub-route checks made from headers alone (the Worker entrypoint runs them before the
ASGI adapter buffers any body)."""

from __future__ import annotations

import pytest

from shared.api.errors import Forbidden, PayloadTooLarge, Unauthorized
from shared.api.limits import MAX_SYNC_BODY_BYTES
from worker.auth import precheck_hub_request

TOKENS = ("current", "next")


def test_owner_routes_pass_untouched() -> None:
    precheck_hub_request("/api/chat", {}, ())
    precheck_hub_request("/", {"content-length": str(10**9)}, ())


@pytest.mark.parametrize(("headers", "error"), [
    ({}, Unauthorized),
    ({"authorization": "Token current"}, Unauthorized),
    ({"authorization": "Bearer wrong"}, Forbidden),
])
def test_hub_routes_need_the_token(headers: dict, error: type) -> None:
    with pytest.raises(error):
        precheck_hub_request("/vault/sync", headers, TOKENS)


def test_no_configured_token_refuses() -> None:
    with pytest.raises(Forbidden, match="SYNC_TOKEN"):
        precheck_hub_request("/vault/manifest", {"authorization": "Bearer x"}, ())


def test_declared_oversized_body_is_refused_before_reading() -> None:
    good = {"authorization": "Bearer next"}
    precheck_hub_request("/vault/sync", {**good, "content-length": "100"}, TOKENS)
    with pytest.raises(PayloadTooLarge):
        precheck_hub_request("/vault/sync",
                             {**good, "content-length": str(MAX_SYNC_BODY_BYTES + 1)}, TOKENS)
