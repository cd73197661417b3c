"""Bounded JSON parsing: nesting depth, number size and string size are checked before
`json.loads` runs, so a hostile body is a 400 with a code, never a crash.

The hostile-input probe's bodies (tests/reliability/): `[` × 5,000 raised RecursionError
inside `json.loads` and a 5,000-digit integer raised ValueError (Python's int-from-string limit
is 4,300 digits);
both were 500s. In Pyodide the recursion would hit a much smaller Wasm stack.

A key named twice in one object is refused too: `json.loads` keeps the last, so
`{"content": "first", "content": "second"}` would store what a reader of the body may not
see; RFC 8259 leaves duplicate names to the parser, and this one names the key.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from shared.api.errors import BadRequest

# A JSON string token (bytes): possessive, so an unterminated string cannot backtrack.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
# Every byte but brackets, deleted from the skeleton before its depth is counted.
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_OPENERS = frozenset(b"[{")
_LONG_DIGITS = re.compile(rb"[0-9]{%d,}")
# Hop between quotes when they are sparse: at most one per this many bytes.
_FEW_QUOTES_RATIO = 64
_BACKSLASH = ord("\\")


@dataclass(frozen=True)
class JsonLimits:
    # The deepest body a client sends is a sync batch at 4 (object › list › object › list);
    # chat `context` is free-form, so it gets room, but not a stack's worth.
    max_depth: int = 32
    # A Millis field is at most 16 digits (2^53); 40 leaves room for decimals.
    max_number_digits: int = 40
    # Encoded bytes of one string token; a note body (1 MB) may double with escapes.
    max_string_bytes: int = 2_500_000


DEFAULT_LIMITS = JsonLimits()


def _check_strings(body: bytes, what: str, limits: JsonLimits) -> bytes:
    """`body` with every string token emptied (so brackets and digits inside strings do
    not count), refusing a string over the size limit."""
    longest = 0

    def empty(match: re.Match[bytes]) -> bytes:
        nonlocal longest
        longest = max(longest, match.end() - match.start())
        return b'""'

    # Few, long strings (a hub batch of note bodies): hop between quotes with bytes.find,
    # which runs at memchr speed; the regex walks every byte (~27 ms vs ~3 ms on a 4 MB
    # batch, bench/jsonlimits.py). Many short strings or escaped quotes: the regex, whose
    # cost does not grow with the count.
    quotes = body.count(b'"')
    if quotes * _FEW_QUOTES_RATIO <= len(body) and body.count(b'\\"') * 16 <= quotes:
        skeleton, longest = _hop_strings(body)
    elif len(body) <= limits.max_string_bytes:  # no string can be over: no callback
        skeleton = _STRING.sub(b'""', body)
    else:
        skeleton = _STRING.sub(empty, body)
    if longest > limits.max_string_bytes:
        raise BadRequest(f"{what} body holds a string over {limits.max_string_bytes} bytes",
                         code="string_too_long")
    return skeleton


def _hop_strings(body: bytes) -> tuple[bytes, int]:
    """What `_STRING.sub(b'""', body)` returns, and the longest string token's length."""
    parts, start, longest = [], 0, 0
    while (opening := body.find(b'"', start)) >= 0:
        end = opening + 1
        while True:
            closing = body.find(b'"', end)
            if closing < 0:  # unterminated: leave it for json.loads to refuse
                parts.append(body[start:])
                return b"".join(parts), longest
            before = closing - 1
            while body[before] == _BACKSLASH:  # stops at the opening quote at the latest
                before -= 1
            if (closing - 1 - before) % 2 == 0:
                break
            end = closing + 1
        parts += [body[start:opening], b'""']
        longest = max(longest, closing + 1 - opening)
        start = closing + 1
    parts.append(body[start:])
    return b"".join(parts), longest


def _check_depth(skeleton: bytes, what: str, limits: JsonLimits) -> None:
    depth = 0
    for byte in skeleton.translate(None, _NOT_BRACKETS):
        depth += 1 if byte in _OPENERS else -1
        if depth > limits.max_depth:
            raise BadRequest(f"{what} body nests deeper than {limits.max_depth} levels",
                             code="json_too_deep")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class _DuplicateKey(Exception):  # not a ValueError: json.loads would not wrap it, nor we
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, refusing a key named twice. The C `dict()` does the
    work; only an object that shrank is walked again to find the key."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def loads_bounded(body: bytes, what: str, limits: JsonLimits = DEFAULT_LIMITS) -> Any:
    """Parse UTF-8 JSON within `limits`; BadRequest with a code for any violation."""
    skeleton = _check_strings(body, what, limits)
    _check_depth(skeleton, what, limits)
    if re.search(_LONG_DIGITS.pattern % (limits.max_number_digits + 1), skeleton):
        raise BadRequest(f"{what} body holds a number over {limits.max_number_digits} "
                         "digits", code="number_too_large")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"{what} body is not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(text or "null", parse_float=_finite, parse_constant=_no_constant,
                          object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise BadRequest(f"{what} body names the key {exc.key[:60]!r} twice in one object; "
                         "send each key once", code="duplicate_key") from None
    except json.JSONDecodeError as exc:
        raise BadRequest(f"{what} body is not valid JSON: {exc.msg} at line {exc.lineno} "
                         f"column {exc.colno}") from None
    except (ValueError, RecursionError):  # belt and braces behind the checks above
        raise BadRequest(f"{what} body holds a number or structure out of range") from None
