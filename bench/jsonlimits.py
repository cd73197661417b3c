"""Cost of the bounded JSON parser (shared/api/json_bounds.py) against plain `json.loads` on
the same bodies, same run: a hub batch (100 notes, ~4 MB) and a chat body.

    uv run python -m bench.jsonlimits [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial

from bench.corpus import Generator
from shared.api.json_bounds import loads_bounded


def batch_body(notes: int = 100) -> bytes:
    gen = Generator(seed=5)
    upserts = [{"path": f"Folder/note {i}.md", "title": gen.text(4, 0.3), "tags": ["a", "b"],
                "aliases": [], "body": gen.text(5_500), "mtime": 1_780_000_000_000 + i,
                "note_date": 1_780_000_000_000, "content_hash": "0" * 64}
               for i in range(notes)]
    return json.dumps({"batch_id": "b", "vault": "V", "upserts": upserts,
                       "deletes": []}).encode()


def best_of(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    chat = json.dumps({"content": "what did Marco want from me? " * 40,
                       "context": {"client": "web", "v": 2}}).encode()
    print(f"{'body':<12}{'bytes':>12}{'json.loads ms':>16}{'bounded ms':>14}{'ratio':>8}")
    for name, body in (("hub batch", batch_body()), ("chat", chat)):
        plain = best_of(partial(json.loads, body), args.repeat)
        bounded = best_of(partial(loads_bounded, body, name), args.repeat)
        print(f"{name:<12}{len(body):>12,}{plain * 1e3:>16.2f}{bounded * 1e3:>14.2f}"
              f"{bounded / plain:>8.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
