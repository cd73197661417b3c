"""Decoding a JSON request body into a model: 400 for what is not a bounded JSON object,
422 listing every invalid field (one error shape for every route that takes a body)."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from shared.api.errors import BadRequest, InvalidPayload
from shared.api.json_bounds import loads_bounded


def _error_details(exc: ValidationError) -> list[dict[str, Any]]:
    details = []
    for err in exc.errors(include_url=False):
        loc = list(err["loc"])
        item = None
        if len(loc) >= 2 and loc[0] in {"upserts", "deletes"} and isinstance(loc[1], int):
            item = f"{loc[0]}[{loc[1]}]"
            loc = loc[2:]
        details.append({"item": item, "field": ".".join(str(p) for p in loc) or None,
                        "message": err["msg"]})
    return details


M = TypeVar("M", bound=BaseModel)
# The only way to an unpaired surrogate in valid UTF-8 JSON: a \uD800-\uDFFF escape. A
# body without one (or without what looks like one) needs no re-encoding to check.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def parse_json_model(body: bytes, model: type[M], what: str,
                     context: dict[str, Any] | None = None) -> M:
    """Decode a JSON object body into `model`: 400 when it is not a JSON object, 422 with
    every invalid field (and, for lists of items, the item's index) when it does not fit."""
    data = loads_bounded(body, what)  # depth, number and string limits: 400 with a code
    if not isinstance(data, dict):
        raise BadRequest(f"{what} body must be a JSON object")
    try:
        if _SURROGATE_ESCAPE.search(body):
            json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:  # "\ud800" escapes decode to unpaired surrogates
        raise BadRequest(f"{what} body holds an unpaired UTF-16 surrogate escape "
                         f"({exc.object[exc.start]!r}); send valid Unicode text") from exc
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise InvalidPayload(f"the {what} request is invalid; nothing was applied",
                             _error_details(exc)) from exc
