"""Every judged evaluation set in bench/sets/ is well formed (docs/design.md, "Evaluation
sets", plus the
held-out split): files parse, categories and grades are from the protocol, every judged id
exists in the corpus, and every note passes the hub's own validation."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from bench.sets.tools.split import assign
from hub.notes import Rejection, parse_note

SETS_ROOT = Path(__file__).resolve().parents[2] / "bench" / "sets"
SETS = sorted(p.parent for p in SETS_ROOT.glob("*/queries.jsonl"))
CATEGORIES = {
    "exact_title", "vague_recollection", "paraphrase", "entity_alias", "question",
    "conclusion", "evidence", "temporal", "contradiction", "synthesis", "generic",
    "identifier", "typo", "conversation", "deep_fact", "multilingual", "chit_chat",
    "negative", "multi_term",
}
# The regression set runs in CI as a guard (tests/e2e/test_regression_eval.py); it is not
# split, since nothing is tuned on it and it measures no generalisation.
UNSPLIT = {"regression"}
MUST_BE_EMPTY = {"negative", "chit_chat"}
MAY_BE_EMPTY = MUST_BE_EMPTY | {"generic"}
QUERY_KEYS = {"id", "query", "category", "judgments", "split"}
OPTIONAL_KEYS = {"canonical", "conflict_set"}
MESSAGE_KEYS = {"conversation_id", "message_id", "role", "content", "created_at"}
MANIFEST_KEYS = {"doc_id", "path", "first_commit_at", "last_commit_at"}
MIN_HELDOUT_SHARE = 0.2
MIN_EMPTY_SHARE = 0.2  # negative + chit_chat, the false-positive class
MAX_SET_BYTES = 3_200_000


def read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def note_ids(set_dir: Path) -> set[str]:
    notes = set_dir / "corpus" / "notes"
    return {f"note:{p.relative_to(notes).as_posix()}" for p in notes.rglob("*.md")}


def corpus_ids(set_dir: Path) -> set[str]:
    messages = read_jsonl(set_dir / "corpus" / "conversations.jsonl")
    return note_ids(set_dir) | {f"msg:{m['message_id']}" for m in messages}


def stamp(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_there_is_a_set() -> None:
    assert SETS, f"no set with a queries.jsonl under {SETS_ROOT}"


@pytest.fixture(params=SETS, ids=[s.name for s in SETS])
def set_dir(request: pytest.FixtureRequest) -> Path:
    return request.param


def test_query_lines_have_the_protocol_shape(set_dir: Path) -> None:
    queries = read_jsonl(set_dir / "queries.jsonl")
    assert queries
    for q in queries:
        required = QUERY_KEYS - {"split"} if set_dir.name in UNSPLIT else QUERY_KEYS
        assert required <= q.keys() <= QUERY_KEYS | OPTIONAL_KEYS, q["id"]
        assert isinstance(q["query"], str) and q["query"].strip(), q["id"]
        assert q["category"] in CATEGORIES, (q["id"], q["category"])
        assert isinstance(q["judgments"], dict), q["id"]
        assert all(g in {1, 2, 3} and type(g) is int for g in q["judgments"].values()), q["id"]
        assert q.get("split", "tune") in {"tune", "heldout"}, q["id"]
    ids = [q["id"] for q in queries]
    assert len(ids) == len(set(ids)), Counter(ids).most_common(3)


def test_empty_judgments_only_where_the_protocol_allows(set_dir: Path) -> None:
    for q in read_jsonl(set_dir / "queries.jsonl"):
        if q["category"] in MUST_BE_EMPTY:
            assert q["judgments"] == {}, q["id"]
        elif q["category"] not in MAY_BE_EMPTY:
            assert q["judgments"], f"{q['id']} ({q['category']}) has no judged document"
            assert max(q["judgments"].values()) >= 2, f"{q['id']} has only partial hits"


def test_every_judged_id_exists_in_the_corpus(set_dir: Path) -> None:
    known = corpus_ids(set_dir)
    for q in read_jsonl(set_dir / "queries.jsonl"):
        unknown = set(q["judgments"]) - known
        assert not unknown, (q["id"], sorted(unknown))
        for key in OPTIONAL_KEYS & q.keys():
            assert set(q[key]) <= set(q["judgments"]), (q["id"], key)


def test_contradictions_name_the_competing_notes(set_dir: Path) -> None:
    for q in read_jsonl(set_dir / "queries.jsonl"):
        if q["category"] == "contradiction":
            assert len(q.get("conflict_set", [])) >= 2, q["id"]
            assert all(q["judgments"][d] >= 2 for d in q["conflict_set"]), q["id"]


@pytest.mark.parametrize("split_set", [s for s in SETS if s.name not in UNSPLIT],
                         ids=lambda s: s.name)
def test_split_is_the_seeded_one_and_holds_out_enough(split_set: Path) -> None:
    queries = read_jsonl(split_set / "queries.jsonl")
    expected = assign(queries)
    assert {q["id"]: q["split"] for q in queries} == expected
    held = sum(q["split"] == "heldout" for q in queries)
    assert held / len(queries) >= MIN_HELDOUT_SHARE
    for category in {q["category"] for q in queries}:
        members = [q for q in queries if q["category"] == category]
        if len(members) >= 2:
            assert any(q["split"] == "heldout" for q in members), category
            assert any(q["split"] == "tune" for q in members), category


def test_enough_queries_should_recall_nothing(set_dir: Path) -> None:
    queries = read_jsonl(set_dir / "queries.jsonl")
    empty = sum(q["category"] in MUST_BE_EMPTY for q in queries)
    assert empty / len(queries) >= MIN_EMPTY_SHARE


def test_every_note_passes_the_hubs_validation(set_dir: Path) -> None:
    notes = set_dir / "corpus" / "notes"
    rejected = []
    for path in sorted(notes.rglob("*.md")):
        rel = path.relative_to(notes).as_posix()
        parsed = parse_note(rel, path.read_bytes(), 0)
        if isinstance(parsed, Rejection):
            rejected.append((rel, parsed.reason))
    assert rejected == []


def test_conversation_lines_have_the_protocol_shape(set_dir: Path) -> None:
    messages = read_jsonl(set_dir / "corpus" / "conversations.jsonl")
    for m in messages:
        assert m.keys() == MESSAGE_KEYS, m.get("message_id")
        assert m["role"] in {"user", "assistant"}, m["message_id"]
        assert m["content"].strip(), m["message_id"]
        assert stamp(m["created_at"]).tzinfo is not None, m["message_id"]
    ids = [m["message_id"] for m in messages]
    assert len(ids) == len(set(ids)), Counter(ids).most_common(3)


def test_manifest_covers_exactly_the_notes(set_dir: Path) -> None:
    entries = read_jsonl(set_dir / "corpus" / "notes_manifest.jsonl")
    if not entries:
        pytest.skip("the manifest is optional")
    for e in entries:
        assert e.keys() == MANIFEST_KEYS, e
        assert e["path"] == "notes/" + e["doc_id"].removeprefix("note:"), e
        assert stamp(e["first_commit_at"]) <= stamp(e["last_commit_at"]), e
    assert {e["doc_id"] for e in entries} == note_ids(set_dir)


def test_set_stays_small(set_dir: Path) -> None:
    size = sum(p.stat().st_size for p in set_dir.rglob("*") if p.is_file())
    assert size < MAX_SET_BYTES, f"{set_dir.name} is {size} bytes"
