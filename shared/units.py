"""Units and numeric bounds used across the Worker, the hub and the benchmarks."""

from __future__ import annotations

MS_PER_SECOND = 1_000
MS_PER_DAY = 86_400_000
# D1 (and JavaScript) integers are exact only up to 2^53 - 1; a larger Python int becomes
# a BigInt in Pyodide, which D1 rejects (platform-notes §1.4).
MAX_SAFE_INTEGER = 2**53 - 1
