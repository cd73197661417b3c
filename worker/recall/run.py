"""Running a plan: every planned statement in one D1 batch (one round trip); the keyed
runner itself is worker/db/planned.py, shared with the sync batch's writes."""

from __future__ import annotations

from worker.db.planned import Rows, run

__all__ = ["Rows", "run"]
