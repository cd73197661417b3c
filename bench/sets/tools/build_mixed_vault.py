"""Build the `mixed-vault` evaluation set's corpus from unpacked registry packages.

    uv run python -m bench.sets.tools.build_mixed_vault --sources DIR [--out DIR]

DIR holds the packages unpacked (`dpkg -x PKG.deb DIR/<name>`; the chatterbot-corpus
wheel unzipped into DIR/chatterbot-corpus); bench/sets/mixed-vault/README.md lists the
exact versions. Every body is the packages' own text, converted to Markdown and arranged
as an owner's vault; the frontmatter, folders and dates are ours, drawn with a fixed seed.
The hand-written knowledge-model notes in `Decisions/` are kept as they are.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import yaml

from bench.sets.tools import dialogs, selection
from bench.sets.tools.markup import asciidoc, docbook_html, mallard

SEED = 14
SET_DIR = Path(__file__).resolve().parents[1] / "mixed-vault"
HANDWRITTEN = "Decisions"
# Notes are dated between these; the journal and chats run up to LAST_DAY, so the set's
# fixed "now" (one day after its latest timestamp) is 2026-11-27T21:30Z.
FIRST_DAY = datetime(2025, 1, 6, tzinfo=UTC)
LAST_DAY = datetime(2026, 11, 26, 21, 30, tzinfo=UTC)
HANDBOOK = "debian-handbook/usr/share/doc/debian-handbook/html/en-US"
HELP = "gnome-user-docs/usr/share/help/{lang}/gnome-help"
GITDOC = "git-doc/usr/share/doc/git-doc"
HINTS = "fortunes-debian-hints/usr/share/games/fortunes/debian-hints"
CHATTER = "chatterbot-corpus/chatterbot_corpus/data"


def file_name(title: str) -> str:
    name = re.sub(r'[\\/:*?"<>|#^\[\]]', " ", title.replace("`", ""))
    return " ".join(name.split())[:90].strip(" .")


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def frontmatter(fields: dict) -> str:
    kept = {k: v for k, v in fields.items() if v not in (None, [], "")}
    return "---\n" + yaml.safe_dump(kept, allow_unicode=True, sort_keys=False,
                                     width=1000) + "---\n\n"


class Vault:
    def __init__(self, out: Path, rng: random.Random) -> None:
        self.notes = out / "corpus" / "notes"
        self.rng = rng
        self.manifest: list[dict] = []

    def dates(self) -> tuple[datetime, datetime]:
        span = (LAST_DAY - timedelta(days=2) - FIRST_DAY).total_seconds()
        created = FIRST_DAY + timedelta(seconds=self.rng.uniform(0, span * 0.9))
        updated = created + timedelta(seconds=self.rng.uniform(0, span * 0.35))
        return created, min(updated, LAST_DAY - timedelta(days=2))

    def status(self) -> str:
        roll = self.rng.random()
        return "draft" if roll < 0.12 else "stale" if roll < 0.17 else "stable"

    def write(self, rel: str, fields: dict, body: str,
              stamps: tuple[datetime, datetime] | None = None) -> None:
        created, updated = stamps or self.dates()
        if "type" in fields and fields["type"] != "daily":
            fields = {**fields, "status": fields.get("status") or self.status(),
                      "created": created.date().isoformat(),
                      "updated": updated.date().isoformat()}
        path = self.notes / rel
        if path.exists():
            raise ValueError(f"two notes would be written to {rel}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(frontmatter(fields) + body, encoding="utf-8")
        self.manifest.append({"doc_id": f"note:{rel}", "path": f"notes/{rel}",
                              "first_commit_at": iso(created), "last_commit_at": iso(updated)})


def build_handbook(vault: Vault, src: Path) -> None:
    for page, tags in selection.HANDBOOK_PAGES:
        title, body = docbook_html((src / HANDBOOK / page).read_text(encoding="utf-8"))
        vault.write(f"Reference/Debian Handbook/{file_name(title)}.md", {
            "title": title, "tags": ["debian", *tags],
            "aliases": selection.ALIASES.get(page, []), "type": "source",
            "source": "The Debian Administrator's Handbook"}, body)


def build_help(vault: Vault, src: Path) -> None:
    for lang, folder, pages in selection.HELP_PAGES:
        for page in pages:
            title, desc, body = mallard(
                (src / HELP.format(lang=lang) / f"{page}.page").read_text(encoding="utf-8"))
            group = page.split("-")[0]
            name = file_name(title)
            if (vault.notes / folder / f"{name}.md").exists():
                # Four troubleshooter pages share one title; the page id tells them apart.
                name = f"{name} ({page.rsplit('-', 2)[-2]} {page.rsplit('-', 1)[-1]})"
            vault.write(f"{folder}/{name}.md", {
                "tags": ["desktop", selection.HELP_TAGS.get(group, group)],
                "aliases": selection.ALIASES.get(page, []), "type": "procedure",
                "description": desc, "source": "GNOME Help"}, body)


def build_git(vault: Vault, src: Path) -> None:
    for page in selection.GIT_PAGES:
        title, body = asciidoc((src / GITDOC / page).read_text(encoding="utf-8"))
        name_line = re.search(r"^#+ NAME\n+(.+)$", body, re.MULTILINE)
        if name_line:  # a man page: "gitfaq(7)" → "gitfaq - Frequently asked questions …"
            title = name_line.group(1).strip()
        vault.write(f"Reference/Git/{file_name(title)}.md", {
            "title": title, "tags": ["git"], "aliases": selection.ALIASES.get(page, []),
            "type": "source" if page.startswith("howto/") else "concept",
            "source": "Git documentation"}, body)


def build_journal(vault: Vault, src: Path, quiz: list[tuple[str, str]]) -> list[date]:
    """Daily notes: a Debian hint as the tip of the day, and on some days pub-quiz
    questions with their answers; the last day is LAST_DAY."""
    text = (src / HINTS).read_text(encoding="utf-8")
    hints = [" ".join(h.split()) for h in text.split("\n%\n") if h.strip()]
    hints = [re.sub(r"^Debian Hint #\d+:\s*", "", h) for h in hints if "no hint" not in h]
    days = sorted(vault.rng.sample(range(0, 178), len(hints) - 1))
    last = LAST_DAY.date()
    dates = [last - timedelta(days=178 - d) for d in days] + [last]
    quiz_iter = iter(quiz)
    for day, hint in zip(dates, hints, strict=True):
        body = f"# {day.isoformat()}\n\n## Tip of the day\n\n{hint}\n"
        if vault.rng.random() < 0.6:
            items = [next(quiz_iter) for _ in range(vault.rng.randint(2, 3))]
            body += "\n## Pub quiz\n\n" + "".join(f"- {q} — **{a}**\n" for q, a in items)
        written = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=21,
                                                                              minutes=30)
        vault.write(f"Journal/{day.isoformat()}.md",
                    {"type": "daily", "date": day.isoformat(), "tags": ["journal"]},
                    body, (written, written))
    return dates


def build_conversations(out: Path, src: Path, rng: random.Random
                        ) -> list[tuple[str, str]]:
    chosen, quiz = dialogs.pick(src / CHATTER, rng)
    lines = []
    start_span = (LAST_DAY - timedelta(days=1) - FIRST_DAY).total_seconds()
    for n, conversation in enumerate(dialogs.group(chosen, rng), start=1):
        moment = FIRST_DAY + timedelta(days=365) + timedelta(
            seconds=rng.uniform(0, start_span - 365 * 86400))
        moment = moment.replace(hour=rng.randint(7, 22))
        for turn, (role, content) in enumerate(dialogs.messages(conversation), start=1):
            lines.append({"conversation_id": f"chat-{n:03d}", "message_id": f"m{n:03d}-{turn:02d}",
                          "role": role, "content": content, "created_at": iso(moment)})
            moment += timedelta(seconds=rng.randint(20, 420))
    lines.sort(key=lambda m: (m["created_at"], m["message_id"]))
    (out / "corpus" / "conversations.jsonl").write_text(
        "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in lines), encoding="utf-8")
    return quiz


def handwritten_manifest(vault: Vault) -> None:
    for path in sorted((vault.notes / HANDWRITTEN).glob("*.md")):
        head = yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])
        created = datetime.combine(head["created"], datetime.min.time(), UTC)
        updated = datetime.combine(head["updated"], datetime.min.time(), UTC)
        rel = path.relative_to(vault.notes).as_posix()
        vault.manifest.append({"doc_id": f"note:{rel}", "path": f"notes/{rel}",
                               "first_commit_at": iso(created + timedelta(hours=9)),
                               "last_commit_at": iso(updated + timedelta(hours=18))})


def build(src: Path, out: Path) -> None:
    notes = out / "corpus" / "notes"
    for child in notes.iterdir() if notes.is_dir() else ():
        if child.name != HANDWRITTEN:
            shutil.rmtree(child)
    notes.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    quiz = build_conversations(out, src, rng)
    vault = Vault(out, rng)
    build_handbook(vault, src)
    build_help(vault, src)
    build_git(vault, src)
    build_journal(vault, src, quiz)
    handwritten_manifest(vault)
    vault.manifest.sort(key=lambda e: e["doc_id"])
    (out / "corpus" / "notes_manifest.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in vault.manifest),
        encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", required=True, type=Path)
    parser.add_argument("--out", type=Path, default=SET_DIR)
    args = parser.parse_args(argv)
    build(args.sources, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
