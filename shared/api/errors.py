"""Typed errors shared by the Worker and the hub, mapped to one JSON error shape.

    MalloryError                     (500) something we did not expect
     ├── BadRequest                  (400) the request itself is wrong
     │    └── QueryTooLong           (400) search or chat text over the limit
     ├── Unauthorized                (401) credentials missing
     ├── Forbidden                   (403) credentials wrong or endpoint disabled
     ├── NotFound                    (404) no such conversation or message
     ├── Conflict                    (409) the request clashes with stored state
     ├── PayloadTooLarge             (413) body over the size limit
     ├── UnsupportedMediaType        (415) a state-changing request that is not JSON
     ├── MisdirectedRequest          (421) a Host header the server does not answer for
     ├── InvalidPayload              (422) body parsed but items are invalid (with details)
     ├── TooManyRequests             (429) over a rate limit (with Retry-After)
     ├── ConfigError                 (500) a setting is missing or malformed (names the key)
     ├── UpstreamError               (502) the model provider failed or timed out
     └── ServiceUnavailable          (503) a dependency (e.g. Access signing keys) is down

The Worker renders any of them as `{"error": {"code", "message", "details"?}}`, built by
`error_body`, the one helper for that shape. A raise site may pass a more precise `code`
(e.g. `access_jwt_expired`) than its class default; `headers` go on the response
(Retry-After on a 429).
"""

from __future__ import annotations

from typing import Any


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    """The JSON error shape of every error response."""
    error: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return {"error": error}


class MalloryError(Exception):
    status = 500
    code = "internal_error"

    def __init__(self, message: str, details: Any = None, *, code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        if code is not None:
            self.code = code
        self.headers = headers or {}

    def to_json(self) -> dict[str, Any]:
        return error_body(self.code, self.message, self.details)


class BadRequest(MalloryError):
    status = 400
    code = "bad_request"


class QueryTooLong(BadRequest):
    code = "query_too_long"


class Unauthorized(MalloryError):
    status = 401
    code = "unauthorized"


class Forbidden(MalloryError):
    status = 403
    code = "forbidden"


class NotFound(MalloryError):
    status = 404
    code = "not_found"


class Conflict(MalloryError):
    status = 409
    code = "conflict"


class VaultNameTaken(Conflict):
    code = "vault_name_taken"


class VaultBusy(Conflict):
    code = "vault_busy"


class PayloadTooLarge(MalloryError):
    status = 413
    code = "payload_too_large"


class UnsupportedMediaType(MalloryError):
    status = 415
    code = "unsupported_media_type"


class MisdirectedRequest(MalloryError):
    status = 421
    code = "unknown_host"


class InvalidPayload(MalloryError):
    status = 422
    code = "invalid_payload"


class TooManyRequests(MalloryError):
    status = 429
    code = "rate_limited"


class ConfigError(MalloryError):
    status = 500
    code = "configuration_error"


class UpstreamError(MalloryError):
    status = 502
    code = "model_unavailable"


class ServiceUnavailable(MalloryError):
    status = 503
    code = "service_unavailable"
