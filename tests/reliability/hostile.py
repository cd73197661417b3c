"""A seeded generator of hostile requests: FTS syntax, odd Unicode and surrogates, huge
and deep JSON, wrong types, future timestamps, bad cursors, odd paths, methods and
content types. Each kind of request is one record; `requests(seed, n)` mixes them."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import quote

from tests.conftest import BASE_URL
from tests.conftest import TOKEN as CONFTEST_TOKEN

TOKEN = CONFTEST_TOKEN  # the shared fixtures sync with it too
ORIGIN = BASE_URL

FTS_SYNTAX = ['"', '""', "'", "*", "^", "NEAR(a b, 2)", "a NOT b", "AND", "OR", "NOT",
              "title:x", "{title body}:x", "- x", "+x", "(", ")", "a*", '"open', 'x"y', ":",
              "col : term", "rank", "bm25(", "MATCH", ";DROP TABLE notes;--", "%", "_", "\\",
              "NULL", "0x00", "AND AND", "* * *", "\"\"\"", "a OR", "OR b", "1e999", "-1"]
ODD_UNICODE = ["\u0000", "\u202e", "\u200b", "\ufeff", "é", "ﬁ", "𝕏", "😀", "👩‍👩‍👧", "İ",
               "ß", "e\u0301", "a\u0308", "日本語", "עברית", "العربية", "\u3000", "\t", "\n",
               "…", "\u2028", "\x7f", "\U0010ffff", "Ω", "ǅ", "ﾊﾟ", "\u00ad", "Ⅻ", "²", "١"]
WORDS = ["sourdough", "starter", "tomato", "blight", "kyoto", "temple", "budget", "kitchen",
         "meeting", "car", "service", "keys", "ceramic", "jar", "marco", "priya", "porto",
         "latency", "pg:pull", "snake_case", "v1.2.3", "Ctrl+P", "paths/like/this.md"]
ODD_PATHS = ["/api/chat/", "//api//chat", "/api/%2e%2e/status", "/%2F", "/.env", "/.git/config",
             "/vault/../api/chat", "/api/chat;x", "/api/messages/%00", "/static/../../etc/passwd",
             "/api/" + "a" * 3000, "/%ff%fe", "/api/messages/%ed%a0%80", "/STATUS", "/api",
             "/api/conversations/%2F/messages", "/vault%2Fsync", "/%76ault/manifest",
             "/api/search%3Fq=x", "/_headers", "/login.html", "/owner/login", "/openapi.json",
             "/api/messages/" + "9" * 400, "/\u00e9", "/api/conversations/..%2F..%2Fvault"]
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "PROPFIND"]
CONTENT_TYPES = [None, "application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data; boundary=--x", "application/json; charset=latin-1",
                 "application/xml", "application/json, text/plain", "*/*", "\u00e9/\u00e9".encode()]
BIG_INTS = [2**53, 2**53 - 1, -1, 2**63, 10**30, -(2**53), 0]


@dataclass
class Spec:
    method: str
    path: str
    query: str = ""  # raw, already percent-encoded
    headers: dict[str, str | bytes] = field(default_factory=dict)
    body: bytes | None = None
    kind: str = ""

    def describe(self) -> str:
        body = (self.body or b"")[:120]
        return f"{self.kind}: {self.method} {self.path[:120]}?{self.query[:120]} {body!r}"


def text(rnd: random.Random, max_parts: int = 12) -> str:
    parts = []
    for _ in range(rnd.randint(0, max_parts)):
        pool = rnd.choice((FTS_SYNTAX, ODD_UNICODE, WORDS, WORDS))
        parts.append(rnd.choice(pool))
    if rnd.random() < 0.05:
        parts.append(" ".join(rnd.choice(WORDS) + str(i) for i in range(rnd.randint(50, 400))))
    if rnd.random() < 0.03:
        parts.append("x" * rnd.choice((1_999, 2_000, 2_001, 8_001)))
    if rnd.random() < 0.1:
        parts.append("".join(chr(rnd.randint(1, 0x10FFFF)) for _ in range(rnd.randint(1, 8))))
    return (" " if rnd.random() < 0.7 else "").join(parts)


def query_value(rnd: random.Random, value: str) -> str:
    """Percent-encoded, with now and then bytes that are not UTF-8 at all."""
    encoded = quote(value.encode("utf-8", "surrogatepass"), safe="")
    if rnd.random() < 0.08:
        encoded += rnd.choice(["%ff", "%ed%a0%80", "%c0%af", "%", "%zz", "%00", "+"])
    return encoded


def json_value(rnd: random.Random, depth: int = 0) -> object:
    roll = rnd.random()
    if depth > 3 or roll < 0.4:
        return rnd.choice([None, True, 0, -1.5, 1e300, rnd.choice(BIG_INTS), text(rnd, 3), ""])
    if roll < 0.7:
        return [json_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    return {text(rnd, 2)[:20]: json_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))}


def raw_json(rnd: random.Random, data: object) -> bytes:
    """`data` as JSON, or one of the byte-level ways a body can be broken."""
    roll = rnd.random()
    if roll < 0.75:
        return json.dumps(data, ensure_ascii=rnd.random() < 0.5).encode("utf-8", "surrogatepass")
    return rnd.choice([
        b"", b"null", b"[]", b"{", b'{"content": "\\ud800 lone"}', b'{"content": "\\udfff"}',
        b"[" * rnd.randint(33, 6_000), b'{"content": ' + b"9" * rnd.randint(41, 6_000) + b"}",
        b'{"content": NaN}', b'{"content": Infinity}', b"\xef\xbb\xbf{}", b"\xff\xfe",
        b'{"content": "x"}' + b" " * 10 + b"garbage", b'{"content": "x", "content": 5}',
        b'{"a": ' * 40 + b"1" + b"}" * 40, json.dumps({"content": "x" * 70_000}).encode(),
        b'{"content": "\\u0000\\u202e"}', b'"just a string"', b"1e99999",
    ])


def _hash(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def note_item(rnd: random.Random, i: int) -> dict[str, object]:
    item: dict[str, object] = {
        "path": f"Fuzz/{rnd.choice(WORDS).replace('/', '-')} {i}.md", "title": text(rnd, 3) or "t",
        "body": text(rnd, 30), "mtime": 1_780_000_000_000 + i, "note_date": 1_780_000_000_000,
        "content_hash": _hash(str(i)), "tags": [rnd.choice(WORDS)], "aliases": []}
    mutation = rnd.random()
    if mutation < 0.08:
        item["path"] = rnd.choice(["../x.md", "/abs.md", "a\\b.md", "x.txt", "", "a//b.md",
                                   "C:/x.md", "a/./b.md", "x" * 2_000 + ".md", "\u0000.md"])
    elif mutation < 0.14:
        item[rnd.choice(["mtime", "note_date"])] = rnd.choice([*BIG_INTS, 1.5, "soon", None])
    elif mutation < 0.18:
        item["content_hash"] = rnd.choice(["", "XYZ", _hash("x").upper(), 5])
    elif mutation < 0.22:
        item[rnd.choice(list(item))] = json_value(rnd)
    elif mutation < 0.25:
        item["surprise"] = 1
    return item


def search(rnd: random.Random) -> Spec:
    params = [f"q={query_value(rnd, text(rnd))}"] if rnd.random() < 0.95 else []
    if rnd.random() < 0.3:
        limit = rnd.choice(["5", "0", "51", "-1", "1e3", "١", "9" * 30, ""])
        params.append(f"limit={query_value(rnd, limit)}")
    if rnd.random() < 0.3:
        source = rnd.choice(["all", "notes", "messages", "x", ""])
        params.append(f"source={query_value(rnd, source)}")
    return Spec("GET", "/api/search", "&".join(params), kind="search")


def chat(rnd: random.Random, conversations: list[str]) -> Spec:
    data: dict[str, object] = {"content": text(rnd, 10) or "hello"}
    roll = rnd.random()
    if roll < 0.3 and conversations:
        data["conversation_id"] = rnd.choice(conversations)
    elif roll < 0.4:
        data["conversation_id"] = rnd.choice(["nope", "", "x" * 101, 5, None, "../etc"])
    if rnd.random() < 0.3:
        data["context"] = json_value(rnd)
    if rnd.random() < 0.1:
        data["content"] = json_value(rnd)
    headers: dict[str, str | bytes] = {"content-type": "application/json", "origin": ORIGIN}
    return Spec("POST", "/api/chat", headers=headers, body=raw_json(rnd, data), kind="chat")


def sync(rnd: random.Random, batch_no: int) -> Spec:
    data: dict[str, object] = {
        "batch_id": f"fuzz-{batch_no}" if rnd.random() < 0.9 else text(rnd, 2),
        "vault": rnd.choice(["Life", "", "x" * 300, "Vault ✓"]),
        "upserts": [note_item(rnd, batch_no * 10 + i) for i in range(rnd.randint(0, 6))],
        "deletes": [{"path": f"Fuzz/{rnd.choice(WORDS).replace('/', '-')} {i}.md",
                     "deleted_at": rnd.choice(BIG_INTS)} for i in range(rnd.randint(0, 2))]}
    auth = rnd.choice([f"Bearer {TOKEN}"] * 8 + ["Bearer wrong", "", "Basic x"])
    headers: dict[str, str | bytes] = {"content-type": "application/json",
                                       "authorization": auth}
    return Spec("POST", "/vault/sync", headers=headers, body=raw_json(rnd, data), kind="sync")


def listing(rnd: random.Random, conversations: list[str]) -> Spec:
    cursor = rnd.choice(["1780000000000.c1", "²1.x", "99999999999999999999.x", ".", "1.",
                         "9007199254740992.x", "1780000000000.\u00e9", "", text(rnd, 2)])
    conv = rnd.choice(conversations) if conversations and rnd.random() < 0.5 else text(rnd, 2)
    choice = rnd.randrange(4)
    if choice == 0:
        return Spec("GET", "/api/conversations",
                    f"before={query_value(rnd, cursor)}&limit={query_value(rnd, text(rnd, 1))}",
                    kind="conversations")
    if choice == 1:
        return Spec("GET", f"/api/conversations/{query_value(rnd, conv or 'c')}/messages",
                    f"before={query_value(rnd, rnd.choice(['1', '0', '-5', '²', '9' * 30]))}",
                    kind="messages")
    if choice == 2:
        return Spec("GET", f"/api/messages/{query_value(rnd, text(rnd, 2) or 'm')}",
                    kind="message")
    return Spec("GET", "/vault/manifest",
                f"after={query_value(rnd, text(rnd, 2))}&limit={query_value(rnd, text(rnd, 1))}",
                {"authorization": f"Bearer {TOKEN}"}, kind="manifest")


def odd(rnd: random.Random) -> Spec:
    path = rnd.choice([*ODD_PATHS, "/api/chat", "/api/search", "/status", "/vault/sync", "/"])
    headers: dict[str, str | bytes] = {"origin": rnd.choice([ORIGIN, "http://evil.test",
                                                             "null"])}
    content_type = rnd.choice(CONTENT_TYPES)
    if content_type:
        headers["content-type"] = content_type
    if rnd.random() < 0.3:
        headers["authorization"] = f"Bearer {TOKEN}"
    body = raw_json(rnd, json_value(rnd)) if rnd.random() < 0.6 else None
    return Spec(rnd.choice(METHODS), path, headers=headers, body=body, kind="odd")


Generator = Callable[[random.Random, int, list[str]], Spec]
# (weight, generator): a search or chat is what an attacker reaches most cheaply.
MIX: list[tuple[int, Generator]] = [
    (30, lambda rnd, i, convs: search(rnd)),
    (20, lambda rnd, i, convs: chat(rnd, convs)),
    (12, lambda rnd, i, convs: sync(rnd, i)),
    (18, lambda rnd, i, convs: listing(rnd, convs)),
    (18, lambda rnd, i, convs: odd(rnd)),
    (2, lambda rnd, i, convs: Spec("GET", "/status", kind="status")),
]


def requests(seed: int, n: int, conversations: list[str]) -> Iterator[Spec]:
    """`n` requests from `seed`; `conversations` fills up as chats succeed, so later chats
    can continue real conversations."""
    rnd = random.Random(seed)
    weights = [w for w, _ in MIX]
    for i in range(n):
        _, generate = rnd.choices(MIX, weights)[0]
        yield generate(rnd, i, conversations)
