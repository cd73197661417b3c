"""The hub ↔ Worker sync protocol's shared constants (the payload limits are in
shared/api/limits.py)."""

from __future__ import annotations

from shared.time.durations import MS_PER_DAY

# How often the hub pushes (seconds); the Worker judges staleness from the same number.
DEFAULT_SYNC_INTERVAL_S = 15 * 60
# /status calls a vault stale after this many intervals without a hub contact.
STALE_AFTER_INTERVALS = 2
# GET /vault/manifest page sizes: the default and the most a request may ask for.
MANIFEST_PAGE = 1_000
MANIFEST_MAX_PAGE = 5_000
# A file time (an upsert's mtime, a delete's deleted_at) may be this far ahead of the
# Worker's clock: a hub whose clock is off by a time zone still syncs, while a date years
# ahead is refused (before 0002 a delete dated 2^53 − 1 blocked its path for good).
MAX_CLOCK_SKEW_MS = MS_PER_DAY

# The shape of `sections` in a sync batch (shared/api/sync_payload.py SectionSpan: [s, e) offsets in
# code points, heading, heading path, 16-hex digest). A hub says which shape it sends in
# `sections_version`; a batch without it is read as version 1 (hubs from before the field).
# A Worker refuses a version it does not list, naming it, so a newer hub never has its
# sections misread by an older Worker.
SECTIONS_VERSION = 1
READABLE_SECTIONS_VERSIONS = (1,)

# A hub run's lease on its vault (migrations/0010) lasts this long after the run's last
# heartbeat or batch: far above the gaps of a live run (reading 10,000 notes takes under
# 10 s and a batch under a second, bench.sync), and short enough that a hub killed by
# another's hand leaves the vault to other hubs within minutes.
LEASE_MS = 5 * 60 * 1000
