"""chatterbot-corpus dialogs → conversations.jsonl lines and journal quiz items.

The corpus (BSD-3-Clause) holds short dialogs per language and category: a list of
statements, each answering the one before. We keep the words and assign roles
alternately (owner "user", assistant "assistant"). In categories whose lists are one
question followed by alternative answers (`computers`), the answers are joined into one
assistant reply.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import yaml

# (language folder, file stem, how many dialogs to take, pairs or whole dialog)
PICKS: tuple[tuple[str, str, int], ...] = (
    ("english", "coding", 40), ("english", "trivia", 50), ("english", "science", 20),
    ("english", "money", 20), ("english", "history", 8), ("english", "literature", 20),
    ("english", "movies", 12), ("english", "sports", 12), ("english", "food", 12),
    ("english", "computers", 10), ("english", "ai", 15), ("english", "humor", 8),
    ("english", "psychology", 10), ("english", "politics", 8), ("english", "gossip", 5),
    ("english", "greetings", 6), ("english", "conversations", 8), ("english", "emotion", 6),
    ("english", "health", 1),
    ("spanish", "trivia", 10), ("spanish", "dinero", 10), ("french", "trivia", 12),
    ("french", "food", 5), ("german", "food", 10), ("german", "history", 6),
    ("portuguese", "proverbs", 8), ("portuguese", "history_brasil", 8),
)
JOIN_ANSWERS = {("english", "computers")}
# Trivia dialogs held back from the conversations for the journal's quiz sections.
QUIZ_FROM = ("english", "trivia")


@dataclass(frozen=True)
class Dialog:
    language: str
    category: str
    turns: tuple[str, ...]


def _clean(statement: object) -> str:
    return " ".join(str(statement).split()).strip("'")


def load(data_dir: Path, language: str, stem: str) -> list[tuple[str, ...]]:
    doc = yaml.safe_load((data_dir / language / f"{stem}.yml").read_text(encoding="utf-8"))
    seen: set[str] = set()
    dialogs = []
    for raw in doc["conversations"]:
        turns = tuple(_clean(t) for t in raw if _clean(t))
        if len(turns) < 2 or turns[0].lower() in seen or len(turns) > 14:
            continue
        seen.add(turns[0].lower())
        if (language, stem) in JOIN_ANSWERS:
            turns = (turns[0], " ".join(turns[1:]))
        dialogs.append(turns)
    return dialogs


def pick(data_dir: Path, rng: random.Random) -> tuple[list[Dialog], list[tuple[str, str]]]:
    """(dialogs for the conversations, unused trivia pairs for the journal)."""
    chosen: list[Dialog] = []
    quiz: list[tuple[str, str]] = []
    for language, stem, n in PICKS:
        dialogs = load(data_dir, language, stem)
        rng.shuffle(dialogs)
        chosen += [Dialog(language, stem, d) for d in dialogs[:n]]
        if (language, stem) == QUIZ_FROM:
            quiz = [(d[0], d[1]) for d in dialogs[n:] if len(d) == 2]
    return chosen, quiz


def group(dialogs: list[Dialog], rng: random.Random) -> list[list[Dialog]]:
    """Conversations of 1–4 dialogs of one language and category (a chat keeps a topic);
    long dialogs stand alone."""
    by_topic: dict[tuple[str, str], list[Dialog]] = {}
    for d in dialogs:
        by_topic.setdefault((d.language, d.category), []).append(d)
    conversations = []
    for items in by_topic.values():
        i = 0
        while i < len(items):
            size = 1 if len(items[i].turns) > 4 else rng.randint(1, 4)
            conversations.append(items[i:i + size])
            i += size
    rng.shuffle(conversations)
    return conversations


def messages(conversation: list[Dialog]) -> list[tuple[str, str]]:
    """(role, content) in order; every dialog starts with the owner."""
    out = []
    for d in conversation:
        for i, turn in enumerate(d.turns):
            out.append(("user" if i % 2 == 0 else "assistant", turn))
    return out
