"""Mallory's own export (`GET /api/export`, `mallory export`), read back by import.

    {"format": "mallory-export", "version": 1, "exported_at": ms,
     "conversations": [{id, title, created_at, updated_at, incognito,
                        messages: [{id, role, content, created_at, sources, judgments,
                                    withdrawn}]}],
     "feedback": [{answer_id, n, judgment, created_at, query_hash,
                   document: {kind: note, vault, path} | {kind: message, id}}],
     "saved_memories": [{id, fact, source_message_id, created_at}],
     "quotes": [{answer_id, quoted_id}],
     "forgotten": [message id, ...]}

`forgotten` are the ids of every message forgotten there (no text): importing the export
records them first, so an older export imported after it does not bring them back.
`quotes` are the past messages each answer was shown (absent in exports made before they
were exported: such answers are then judged as answers shown nothing).

A withdrawn answer (README, "Vaults": it was given with a note or message in view that is
gone since) is exported as the placeholder it is, `withdrawn: true` and no text, and
imported as one: the conversation keeps its place and id, and nothing of it is recalled.
Exports made before the field have none: every message there was an ordinary one.

Saved memories are messages of the conversation 'saved-memories', exported with it; the
list says which (and where each came from).

Ids are Mallory's own, so an export imported into an empty Mallory recreates the same
conversations and messages under the same ids (and `/?msg=` links keep working).
"""

from __future__ import annotations

from pydantic import ValidationError

from shared.api.wire import Source
from shared.archive.records import (
    BadItem,
    ImportedConversation,
    ImportedJudgment,
    ImportedMemory,
    ImportedMessage,
    ImportedQuote,
    Parsed,
    Problem,
    cut,
    parse_each,
    title_of,
)

FORMAT = "mallory-export"
MAX_ID_CHARS = 200
VERSION = 1


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadItem(f"{what} must be a whole number of milliseconds")
    return value


def one(index: int, item: object, problems: list[Problem]) -> ImportedConversation:
    if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
        raise BadItem("is not a conversation object with an id")
    conv_id = item["id"]
    messages = []
    for position, m in enumerate(item.get("messages") or []):
        where = f"conversation {index} ({conv_id}) message {position}"
        withdrawn = _withdrawn(m, where, problems)
        if withdrawn is None:
            continue
        if withdrawn:
            messages.append(ImportedMessage(id=m["id"], role="assistant", content="",
                                            created_at=_int(m.get("created_at"), where),
                                            withdrawn=True))
            continue
        if (not isinstance(m, dict) or not isinstance(m.get("id"), str)
                or m.get("role") not in ("user", "assistant")
                or not isinstance(m.get("content"), str) or not m["content"].strip()):
            problems.append(Problem(where, "needs an id, a role user|assistant and text: "
                                           "skipped"))
            continue
        try:
            sources = tuple(Source.model_validate(s) for s in m.get("sources") or [])
        except ValidationError:
            problems.append(Problem(where, "its sources are not Mallory sources: kept "
                                           "without them"))
            sources = ()
        messages.append(ImportedMessage(id=m["id"], role=m["role"],
                                        content=cut(m["content"], where, problems),
                                        created_at=_int(m.get("created_at"), where),
                                        sources=sources))
    ordered = tuple(messages)
    incognito = item.get("incognito", False)
    if not isinstance(incognito, bool):
        raise BadItem("incognito must be true or false")
    return ImportedConversation(id=conv_id, title=title_of(item.get("title"), ordered),
                                created_at=_int(item.get("created_at"), f"conversation {index}"),
                                updated_at=_int(item.get("updated_at"), f"conversation {index}"),
                                messages=ordered, incognito=incognito)


def _withdrawn(m: object, where: str, problems: list[Problem]) -> bool | None:
    """Whether a message is a withdrawn answer; None (reported) when it says so wrongly.
    A withdrawn answer's text is never read back, whatever the file holds: withdrawal
    redacted it."""
    flag = m.get("withdrawn", False) if isinstance(m, dict) else False
    if flag is False:
        return False
    if flag is not True:
        problems.append(Problem(where, "withdrawn must be true or false: skipped"))
        return None
    if not isinstance(m, dict) or not isinstance(m.get("id"), str) or not m["id"] \
            or m.get("role") != "assistant":
        problems.append(Problem(where, "only an answer of Mallory's (role assistant, with "
                                       "an id) is withdrawn: skipped"))
        return None
    return True


def parse(data: object) -> Parsed:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"a Mallory export is a JSON object with \"format\": \"{FORMAT}\"")
    if data.get("version") != VERSION:
        raise ValueError(f"this Mallory reads export version {VERSION}, the file is "
                         f"version {data.get('version')!r}")
    parsed = parse_each(data.get("conversations"), "Mallory", one)
    for index, item in enumerate(_list(data.get("feedback"))):
        try:
            parsed.feedback.append(_judgment(item))
        except BadItem as exc:
            parsed.problems.append(Problem(f"feedback {index}", f"{exc}: skipped"))
    for index, item in enumerate(_list(data.get("saved_memories"))):
        try:
            parsed.saved_memories.append(_memory(item))
        except BadItem as exc:
            parsed.problems.append(Problem(f"saved memory {index}", f"{exc}: skipped"))
    for index, item in enumerate(_list(data.get("forgotten"))):
        if isinstance(item, str) and 0 < len(item) <= MAX_ID_CHARS:
            parsed.forgotten.append(item)
        else:
            parsed.problems.append(Problem(f"forgotten {index}",
                                           "is not a message id: skipped"))
    for index, item in enumerate(_list(data.get("quotes"))):
        if not isinstance(item, dict):
            parsed.problems.append(Problem(f"quote {index}", "is not a quote object: skipped"))
            continue
        try:
            parsed.quotes.append(ImportedQuote(answer_id=_text(item, "answer_id"),
                                               quoted_id=_text(item, "quoted_id")))
        except BadItem as exc:
            parsed.problems.append(Problem(f"quote {index}", f"{exc}: skipped"))
    return parsed


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _text(item: dict[str, object], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise BadItem(f"needs {key} as text")
    return value


def _judgment(item: object) -> ImportedJudgment:
    if not isinstance(item, dict):
        raise BadItem("is not a judgment object")
    judgment, n = item.get("judgment"), item.get("n")
    if judgment not in ("relevant", "irrelevant"):
        raise BadItem("judgment must be relevant or irrelevant")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise BadItem("n must be a source number (1, 2, ...)")
    doc = item.get("document")
    if not isinstance(doc, dict) or doc.get("kind") not in ("note", "message"):
        raise BadItem("document must be a note {vault, path} or a message {id}")
    note = (_text(doc, "vault"), _text(doc, "path")) if doc["kind"] == "note" else None
    return ImportedJudgment(answer_id=_text(item, "answer_id"), n=n,
                            judgment=judgment,  # type: ignore[arg-type]
                            query_hash=_text(item, "query_hash"),
                            created_at=_int(item.get("created_at"), "created_at"),
                            note=note,
                            message_id=_text(doc, "id") if note is None else None)


def _memory(item: object) -> ImportedMemory:
    if not isinstance(item, dict):
        raise BadItem("is not a saved memory object")
    source = item.get("source_message_id")
    if source is not None and not isinstance(source, str):
        raise BadItem("source_message_id must be a message id or null")
    return ImportedMemory(id=_text(item, "id"), source_message_id=source,
                          created_at=_int(item.get("created_at"), "created_at"))
