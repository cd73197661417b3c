"""A JSON body into a model: an unpaired surrogate escape is a 400, and only an escape can
make one (a body without one is not re-encoded to look)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from shared.api.body import parse_json_model
from shared.api.errors import BadRequest


class Text(BaseModel):
    text: str


@pytest.mark.parametrize("body", [rb'{"text": "\ud800"}', rb'{"text": "a \uDFFF b"}',
                                  rb'{"text": "\ude00\ud83d"}'])
def test_an_unpaired_surrogate_escape_is_refused(body: bytes) -> None:
    with pytest.raises(BadRequest, match="unpaired UTF-16 surrogate"):
        parse_json_model(body, Text, "x")


@pytest.mark.parametrize(("body", "text"), [
    (rb'{"text": "\ud83d\ude00"}', "\U0001f600"),  # a pair: one character
    (rb'{"text": "\\ud800"}', "\\ud800"),  # an escaped backslash, then letters
    ('{"text": "raw 😀 and \u2028"}'.encode(), "raw 😀 and \u2028"),
])
def test_paired_escapes_and_look_alikes_pass(body: bytes, text: str) -> None:
    assert parse_json_model(body, Text, "x").text == text
