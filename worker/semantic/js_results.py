"""Reading what a JS binding (AI, Vectorize) hands back: results as plain Python through
the project's `to_py` (dicts from SDK >= 1.3, JsProxy objects from older ones), and a
rejected call's error as short text for a typed error. Semantic adapters import both from
here, so a move of `to_py` touches one line."""

from __future__ import annotations

from worker.db.binding import to_py

# Enough for a Workers AI or Vectorize error code and its message; a JS stack is not.
ERROR_DETAIL_CHARS = 300


def error_detail(exc: BaseException) -> str:
    return str(exc)[:ERROR_DETAIL_CHARS]


__all__ = ["ERROR_DETAIL_CHARS", "error_detail", "to_py"]
