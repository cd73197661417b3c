"""The query parameters of the routes that take any, as pydantic models. They describe
what the handlers read (worker/routes/), with the same defaults and bounds, for
GET /openapi.json; the handlers parse their parameters themselves. They also say which
names a route takes: any other is a 422 before the handler runs (worker/app.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.api.limits import MAX_SAFE_INTEGER
from shared.api.protocol import MANIFEST_MAX_PAGE, MANIFEST_PAGE
from shared.rank.policy import EXPLICIT, EXPLICIT_MAX_LIMIT
from worker.corpora.filters import SourceFilter
from worker.routes.conversations import (
    CONVERSATIONS_MAX_PAGE,
    CONVERSATIONS_PAGE,
    MESSAGES_MAX_PAGE,
    MESSAGES_PAGE,
)

# RetrievalMode's values (worker/recall/retrieval_mode.py) as an inline enum: the parameter
# schemas here carry no $defs for a referenced enum. tests/worker/test_openapi.py pins them equal.
ModeParam = Literal["lexical", "hybrid", "adaptive", "quality"]


class SearchParams(BaseModel):
    q: str = Field(description="the search text; only stopwords → no terms, no hits")
    limit: int = Field(EXPLICIT.max_hits, ge=1, le=EXPLICIT_MAX_LIMIT)
    source: SourceFilter = Field("all", description="which corpora to search")
    vault: str | None = Field(None, description="only this vault's notes (its name, as in "
                              "mallory-hub --vault-name); unknown → 400 listing the known")
    tz: str | None = Field(None, description="the IANA zone to read \"last week\" in "
                           "(else OWNER_TIMEZONE, else UTC); not a zone → 400")
    mode: ModeParam | None = Field(
        None, description="how to retrieve (else the configured mode, /status); a semantic "
        "mode without an embedder → 400 mode_unavailable")


class ConversationsParams(BaseModel):
    before: str | None = Field(None, description="the next_before of the previous page")
    limit: int = Field(CONVERSATIONS_PAGE, ge=1, le=CONVERSATIONS_MAX_PAGE)


class MessagesParams(BaseModel):
    before: int | None = Field(None, ge=1, le=MAX_SAFE_INTEGER,
                               description="the next_before of the previous page (a seq)")
    limit: int = Field(MESSAGES_PAGE, ge=1, le=MESSAGES_MAX_PAGE)


class ManifestParams(BaseModel):
    vault: str = Field(description="the vault's id (a lower-case UUID)")
    after: str = Field("", description="the next_after of the previous page")
    limit: int = Field(MANIFEST_PAGE, ge=1, le=MANIFEST_MAX_PAGE)


class InspectAnswerParams(BaseModel):
    tz: str | None = Field(None, description="the IANA zone to read time words in (else "
                           "OWNER_TIMEZONE, else the zone the chat request named, else UTC)")
    mode: ModeParam | None = Field(
        None, description="how to re-run recall (else the configured mode); a semantic "
        "mode without an embedder → 400 mode_unavailable")


class MissingParams(SearchParams):
    q: str | None = Field(None, description="the search it is missing from (or answer=)")  # type: ignore[assignment]
    answer: str | None = Field(None, description="the answer (a message id) whose recall "
                               "it is missing from (or q=)")
    vault: str | None = Field(None, description="the missing note's vault (with path=)")
    path: str | None = Field(None, description="the missing note's path in its vault")
    message: str | None = Field(None, description="the missing message's id (or path=)")


def parameter_names(model: type[BaseModel]) -> tuple[str, ...]:
    """The query parameters `model` describes, as a client spells them (`as`, not `as_`)."""
    return tuple(field.alias or name for name, field in model.model_fields.items())
