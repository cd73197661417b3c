"""The hub ↔ Worker sync protocol's shared constants (the payload limits are in
shared/limits.py)."""

from __future__ import annotations

# How often the hub pushes (seconds); the Worker judges staleness from the same number.
DEFAULT_SYNC_INTERVAL_S = 15 * 60
# /status calls a vault stale after this many intervals without a hub contact.
STALE_AFTER_INTERVALS = 2
# GET /vault/manifest page sizes: the default and the most a request may ask for.
MANIFEST_PAGE = 1_000
MANIFEST_MAX_PAGE = 5_000
