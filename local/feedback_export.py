"""`mallory feedback export`: the owner's explicit judgments as regression cases, in the
evaluation set format of docs/design.md (the format of bench/sets/regression).

    uv run mallory feedback export --db .data/mallory.sqlite --out my-feedback \\
        [--vault ~/Notes]

writes
    queries.jsonl              one case per question with at least one 👍: {"id", "query",
                               "category", "judgments": {doc: 2}, "irrelevant": [docs judged
                               👎]} — "the owner said this helps" is grade 2 (highly
                               relevant), the owner's word on usefulness, not on perfection;
    irrelevant.jsonl           questions with only 👎: {"id", "query", "category": "generic",
                               "judgments": {}, "irrelevant": [...]}, documents recall must
                               not inject for them (bench.scoring counts each one injected
                               as `auto_irrelevant_injected`, never as a false positive: the
                               question may well have an answer nobody judged);
    corpus/conversations.jsonl the conversations of every judged message, without the turns
                               the judgments were made on (the question would find itself);
    corpus/notes               a link to the vault (--vault), as bench/sets/regression has.

Categories (docs/design.md has no "feedback" category; bench/sets/README.md lists them): a
case whose 👍 documents are all past messages is `conversation` ("the answer lives in a
past chat"); any other is `question`, the category of a request whose form is unknown — a
chat message that recalled something asked memory for it. A 👎-only case is `generic`, the
one answerable-looking category the format lets be empty: recall over-matched its wording.

Questions are grouped by their hash (shared/rank/feedback.py), so the same question asked twice
is one case with its latest judgment per document. A question the owner has since forgotten
is skipped (its text is gone). Note ids are `note:<path>` (docs/design.md: single-vault sets).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from worker.db import Database
from worker.store import feedback
from worker.views import iso

RELEVANT_GRADE = 2
ANSWERED_IN_CHAT, ANSWERED, OVER_MATCHED = "conversation", "question", "generic"
CONVERSATIONS_SQL = """
SELECT m.conversation_id, m.id AS message_id, m.role, m.content, m.created_at
FROM messages AS m
WHERE m.conversation_id IN (SELECT conversation_id FROM messages
                            WHERE id IN (SELECT value FROM json_each(?1)))
  AND m.id NOT IN (SELECT value FROM json_each(?2))
ORDER BY m.conversation_id, m.seq
"""


@dataclass
class Case:
    id: str
    query: str
    judged: dict[str, str] = field(default_factory=dict)  # doc id → latest judgment

    def line(self) -> dict[str, Any]:
        relevant = {d: RELEVANT_GRADE for d, j in sorted(self.judged.items()) if j == "relevant"}
        irrelevant = sorted(d for d, j in self.judged.items() if j == "irrelevant")
        if relevant:
            in_chat = all(d.startswith("msg:") for d in relevant)
            return {"id": self.id, "query": self.query,
                    "category": ANSWERED_IN_CHAT if in_chat else ANSWERED,
                    "judgments": relevant, "irrelevant": irrelevant}
        return {"id": self.id, "query": self.query, "category": OVER_MATCHED,
                "judgments": {}, "irrelevant": irrelevant}


@dataclass
class Export:
    cases: list[Case]
    skipped: int  # judgments whose question was forgotten
    messages: list[str]  # judged message documents
    turns: list[str]  # the questions and answers the judgments were made on


def doc_of(row: Mapping[str, Any]) -> str:
    return f"note:{row['note_path']}" if row["note_path"] else f"msg:{row['message_id']}"


def cases_of(rows: Iterable[Mapping[str, Any]]) -> Export:
    """Rows of worker/store/feedback.EXPORT_SQL (oldest first) → one case per question."""
    cases: dict[str, Case] = {}
    skipped, messages, turns = 0, set(), set()
    for row in rows:
        if row["question"] is None:
            skipped += 1
            continue
        case = cases.setdefault(row["query_hash"],
                                Case(id=f"fb-{row['query_hash'][:12]}", query=row["question"]))
        case.query = row["question"]  # the latest wording of this question
        case.judged[doc_of(row)] = row["judgment"]
        turns |= {row["question_id"], row["answer_id"]}
        if row["message_id"]:
            messages.add(row["message_id"])
    return Export(list(cases.values()), skipped, sorted(messages), sorted(turns))


def _write_jsonl(path: Path, lines: Iterable[Mapping[str, Any]]) -> int:
    items = [json.dumps(line, ensure_ascii=False) for line in lines]
    path.write_text("".join(f"{item}\n" for item in items), encoding="utf-8")
    return len(items)


async def collect(db: Database) -> tuple[Export, list[dict[str, Any]]]:
    """The cases, and the messages of the judged conversations (corpus rows)."""
    found = cases_of(await feedback.export_rows(db))
    rows = (await db.prepare(CONVERSATIONS_SQL).bind(
        json.dumps(found.messages), json.dumps(found.turns)).all()).results
    return found, rows


def write(out: Path, found: Export, rows: Iterable[Mapping[str, Any]],
          vault: Path | None = None) -> dict[str, int]:
    """Write the set into `out` (created); returns what was written."""
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    lines = [c.line() for c in found.cases]
    queries = _write_jsonl(out / "queries.jsonl", [x for x in lines if x["judgments"]])
    only_irrelevant = _write_jsonl(out / "irrelevant.jsonl",
                                   [x for x in lines if not x["judgments"]])
    messages = _write_jsonl(corpus / "conversations.jsonl", [
        {"conversation_id": r["conversation_id"], "message_id": r["message_id"],
         "role": r["role"], "content": r["content"], "created_at": iso(int(r["created_at"]))}
        for r in rows])
    if vault is not None:
        link = corpus / "notes"
        if link.is_symlink():
            link.unlink()
        link.symlink_to(vault.resolve(), target_is_directory=True)
    return {"queries": queries, "irrelevant_only": only_irrelevant, "messages": messages,
            "skipped_forgotten": found.skipped}
