"""A recorded relevance run (the JSON `bench.relevance --json` writes): writing it with one
line per query, and reading it back checked, for the gates and later analyses."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# An interval [lo, hi] that json.dumps(indent=2) spreads over four lines.
_PAIR = re.compile(r"\[\n\s+([-+\d.eE]+),\n\s+([-+\d.eE]+)\n\s+\]")
PER_QUERY_KEYS = ("id", "category", "split", "judgments", "ranked", "injected", "figures")


class RunFileError(ValueError):
    """A recorded run that cannot be used: unreadable, or without per-query results."""


def dumps(result: dict[str, Any]) -> str:
    """Indented JSON, but each `per_query` entry on one line: a recorded run stays a few
    hundred lines and diffs query by query."""
    rest = {k: v for k, v in result.items() if k != "per_query"}
    text = _PAIR.sub(r"[\1, \2]", json.dumps(rest, indent=2, ensure_ascii=False))
    if "per_query" not in result:
        return text + "\n"
    entries = ",\n".join("    " + json.dumps(e, ensure_ascii=False)
                         for e in result["per_query"])
    head = text[:-2] + ",\n" if rest else "{\n"
    return f'{head}  "per_query": [\n{entries}\n  ]\n}}\n'


def write(result: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(result), encoding="utf-8")


def read(path: Path) -> dict[str, Any]:
    """A recorded run with per-query results, or RunFileError saying what is wrong."""
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RunFileError(f"{path}: cannot be read ({exc.strerror})") from exc
    except json.JSONDecodeError as exc:
        raise RunFileError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from exc
    return checked(result, str(path))


def checked(result: Any, name: str) -> dict[str, Any]:
    if not isinstance(result, dict) or "system" not in result:
        raise RunFileError(f"{name}: not a bench.relevance run (no 'system')")
    entries = result.get("per_query")
    if not isinstance(entries, list) or not entries:
        raise RunFileError(f"{name}: no per-query results; record the run again with "
                           "this build's `bench.relevance --json`")
    for i, entry in enumerate(entries):
        missing = [k for k in PER_QUERY_KEYS if not isinstance(entry, dict) or k not in entry]
        if missing:
            raise RunFileError(f"{name}: per_query[{i}] lacks {', '.join(missing)}")
    ids = [e["id"] for e in entries]
    if len(set(ids)) != len(ids):
        raise RunFileError(f"{name}: per_query repeats query ids")
    return result
