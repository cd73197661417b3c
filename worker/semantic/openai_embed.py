"""Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama,
llama.cpp's server, vLLM …) through httpx.

    POST {base_url}/embeddings  {"model": m, "input": ["…", …]}
    → {"data": [{"index": i, "embedding": [...]}, …], …}

Answers may list embeddings in any order; `index` says which input each belongs to.
Errors never quote the provider's body or the base URL: a URL may carry credentials
(`https://user:key@host/v1`) and a body may echo the request. They say what failed and
what to check instead.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import httpx

from worker.semantic.embed_io import batches, checked_texts, for_kind, unit_vectors
from worker.semantic.ports import EmbedderError, EmbedKind

WHO = "embedding provider"
DEFAULT_TIMEOUT_S = 15.0
# Local servers (llama.cpp, Ollama) embed one request's inputs together, so a modest batch
# bounds the work per request; OpenAI itself accepts up to 2048 inputs (and 300,000 tokens)
# per request, so raise it there.
DEFAULT_MAX_BATCH = 64
STATUS_HINTS = {
    400: "the provider refused the request; check the model name and input length",
    401: "check the API key",
    403: "check the API key and its permissions",
    404: "check the base URL (it should end in /v1) and the model name",
    413: "the batch is too large for the provider; lower max_batch",
    429: "rate limited; retry later",
}


class OpenAIEmbedder:
    def __init__(self, base_url: str, model: str, dimensions: int, *, api_key: str = "",
                 timeout_s: float = DEFAULT_TIMEOUT_S, max_batch: int = DEFAULT_MAX_BATCH,
                 query_instruction: str = "") -> None:
        if not base_url.startswith(("http://", "https://")):
            raise EmbedderError("the embedding base URL must start with http:// or https://")
        if not model:
            raise EmbedderError("the OpenAI-compatible embedder needs a model name")
        if dimensions < 1 or max_batch < 1 or timeout_s <= 0:
            raise EmbedderError("dimensions, max_batch and timeout_s must be positive")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._query_instruction = query_instruction
        self.model = model
        self.dimensions = dimensions
        self.max_batch = max_batch

    async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        prepared = for_kind(checked_texts(texts, WHO), kind, self._query_instruction)
        if not prepared:
            return []
        # As client auth the key wins over `user:pass@` in the URL, which httpx would
        # otherwise send as Basic auth in its place; with no key, the URL's own one applies.
        auth = _Bearer(self._api_key) if self._api_key else None
        vectors: list[list[float]] = []
        async with httpx.AsyncClient(timeout=self._timeout_s, auth=auth) as client:
            for batch in batches(prepared, self.max_batch):
                answer = await self._post(client, {"model": self.model, "input": batch})
                ordered = _embeddings_by_index(answer, len(batch))
                vectors.extend(unit_vectors(ordered, len(batch), self.dimensions, WHO))
        return vectors

    async def _post(self, client: httpx.AsyncClient, payload: dict[str, Any]) -> Any:
        try:
            response = await client.post(self._url, json=payload)
        except httpx.TimeoutException as exc:
            raise EmbedderError(f"the {WHO} did not answer within {self._timeout_s:g} s") \
                from exc
        except httpx.HTTPError as exc:  # its message may hold the URL: name the class only
            raise EmbedderError(f"could not reach the {WHO} ({type(exc).__name__})") from exc
        if response.status_code != 200:
            hint = STATUS_HINTS.get(response.status_code, "")
            raise EmbedderError(f"{WHO} answered {response.status_code}"
                                + (f"; {hint}" if hint else ""))
        try:
            return response.json()
        except ValueError as exc:
            raise EmbedderError(f"the {WHO} sent an answer that is not JSON") from exc


class _Bearer(httpx.Auth):
    def __init__(self, key: str) -> None:
        self._key = key

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["authorization"] = f"Bearer {self._key}"
        yield request


def _embeddings_by_index(answer: Any, count: int) -> list[Any]:
    """The `embedding` lists in input order, or EmbedderError describing the shape."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list):
        raise EmbedderError(f"the {WHO} answered without a `data` list")
    by_index: dict[int, Any] = {}
    for item in data:
        index = item.get("index") if isinstance(item, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < count:
            shown = index if isinstance(index, int) else type(index).__name__
            raise EmbedderError(f"the {WHO} answered with index {shown} for a batch of "
                                f"{count}")
        if index in by_index:
            raise EmbedderError(f"the {WHO} answered twice for index {index}")
        by_index[index] = item.get("embedding")
    if len(by_index) != count:
        raise EmbedderError(f"the {WHO} returned {len(by_index)} embeddings for {count} texts")
    return [by_index[i] for i in range(count)]
