"""Validated field types of what the Worker accepts: times, counts, vault names, ids and
paths, with the checks behind them (used by shared/api/sync_payload.py and hub/)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo

from shared.api.limits import MAX_PATH_CHARS, MAX_SAFE_INTEGER
from shared.api.protocol import MAX_CLOCK_SKEW_MS
from shared.time.durations import MS_PER_DAY
from shared.time.note_dates import parse_day

# Strict: JSON `true` is not 1 and 1.5e12 is not a whole number of milliseconds.
Millis = Annotated[int, Field(strict=True, ge=0, le=MAX_SAFE_INTEGER)]
Count = Annotated[int, Field(strict=True, ge=0, le=MAX_SAFE_INTEGER)]
# A sync sequence the Worker handed out (POST /vault/heartbeat): 1, 2, ...
Seq = Annotated[int, Field(strict=True, ge=1, le=MAX_SAFE_INTEGER)]
VaultName = Annotated[str, Field(min_length=1, max_length=200)]
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# The validation context key holding the Worker's clock (see
# shared.api.sync_payload.parse_sync_batch).
NOW_MS = "now_ms"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


def check_vault_path(path: str) -> str:
    """A vault-relative POSIX path to a Markdown file: no absolute path, no `..`."""
    if not path or len(path) > MAX_PATH_CHARS:
        raise ValueError(f"path must be 1 to {MAX_PATH_CHARS} characters")
    if "\x00" in path or "\\" in path:
        raise ValueError("path must use '/' separators and hold no NUL or backslash")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        raise ValueError("path must be relative to the vault, not absolute")
    parts = path.split("/")
    if any(p in {"", ".", ".."} for p in parts):
        raise ValueError("path must not contain empty, '.' or '..' segments")
    if not path.lower().endswith(".md"):
        raise ValueError("path must name a Markdown file (.md)")
    return path


VaultPath = Annotated[str, AfterValidator(check_vault_path)]


def check_day(value: str) -> str:
    parse_day(value)  # ValueError: not YYYY-MM-DD, or no such day
    return value


IsoDay = Annotated[str, Field(strict=True, max_length=10), AfterValidator(check_day)]


def check_vault_id(value: str) -> str:
    if not _UUID.match(value):
        raise ValueError("vault_id must be a lower-case UUID (the hub keeps it in "
                         "<vault>/.mallory/vault.json)")
    return value


VaultId = Annotated[str, AfterValidator(check_vault_id)]


def check_skew(value: int, info: ValidationInfo) -> int:
    """Refuse a file time beyond the Worker's clock plus MAX_CLOCK_SKEW_MS (only when the
    Worker validates: the context then holds its clock)."""
    now = (info.context or {}).get(NOW_MS)
    if now is not None and value > now + MAX_CLOCK_SKEW_MS:
        ahead = (value - now) / MS_PER_DAY
        raise ValueError(f"{info.field_name} is {ahead:,.1f} days ahead of the Worker's clock "
                         f"(at most {MAX_CLOCK_SKEW_MS // MS_PER_DAY} day allowed): check the "
                         "hub computer's clock")
    return value
