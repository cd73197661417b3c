"""A chat request's `context`: the zone it names, as sent and as stored."""

from __future__ import annotations

import pytest

from shared.api.owner_requests import ChatRequest, stored_time_zone


@pytest.mark.parametrize(("raw", "zone"), [
    ('{"client": "mallory-web", "timezone": "Europe/Rome"}', "Europe/Rome"),
    ('{"timezone": 5}', None),
    # Stored before `context` had to be an object: any JSON, or a string as it was sent.
    ('"{\\"timezone\\": \\"Europe/Rome\\"}"', None),
    ("web", None), ('["Europe/Rome"]', None), ("null", None), (None, None),
])
def test_the_stored_zone(raw: str | None, zone: str | None) -> None:
    assert stored_time_zone(raw) == zone


def test_the_zone_sent_is_the_zone_stored() -> None:
    request = ChatRequest.model_validate({"content": "x", "context": {"timezone": "Asia/Tokyo"}})
    assert request.client_time_zone() == "Asia/Tokyo"
    assert stored_time_zone(request.raw_context()) == "Asia/Tokyo"
