"""Comments, docstrings and docs cite only what a reader of the repository can open: a
README section, a file under docs/, a test or a bench command (docs/contributing.md).
Documents the project was started from, issue numbers and paths on one machine are not
in the repository, so a reader cannot follow them."""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
from pathlib import Path

from tests.conftest import ROOT

OUTSIDE = re.compile("|".join([
    # A phrase may break across the lines of a comment ("seed\n# 000").
    r"DESIGN\.md", r"(?i:\bseed[\s#-]+0\d\d\b)", r"(?i:\bissues?[\s#-]+\d+\b)",
    r"(?i:platform[- ]notes)",
    r"(?<![\w.])/work/", r"\.\./shared/docs",
]))
# Judged corpora hold the owner-like text they were built from, not project prose.
CORPORA = re.compile(r"^bench/sets/[^/]+/corpus/")


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return [p for p in out.split("\0") if p and (ROOT / p).is_file() and not CORPORA.match(p)
            and p != "tests/test_repo_references.py"]


def python_prose(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and every string that stands alone as a statement
    (docstrings): the prose of a module, not its data."""
    found, previous = [], tokenize.NEWLINE
    statement_start = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.NL)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        docstring = tok.type == tokenize.STRING and previous in statement_start
        if tok.type == tokenize.COMMENT or docstring:
            found.append((tok.start[0], tok.string))
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            previous = tok.type
    return found


def prose(path: str) -> list[tuple[int, str]]:
    text = (ROOT / path).read_text(encoding="utf-8", errors="replace")
    if path.endswith(".py"):
        return python_prose(text)
    lines = list(enumerate(text.splitlines(), 1))
    if path.endswith(".sql"):
        return [(n, line) for n, line in lines if "--" in line]
    if path.endswith((".sh", ".toml")) or Path(path).parent.name == "scripts":
        return [(n, line) for n, line in lines if "#" in line]
    if path.endswith(".md"):
        return lines
    return []


def with_next_line(found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Each piece of prose with the one on the next line, if any."""
    after = {line: text for line, text in found}
    return [(line, f"{text}\n{after.get(line + 1, '')}") for line, text in found]


def citations_of_lines(found: list[tuple[int, str]]) -> list[str]:
    return [match.group(0) for _, text in with_next_line(found)
            if (match := OUTSIDE.search(text))]


def citations_outside(paths: list[str]) -> list[str]:
    return [f"{path}:{line}: {match.group(0)!r}"
            for path in paths for line, text in with_next_line(prose(path))
            if (match := OUTSIDE.search(text))]


def test_nothing_cites_a_document_outside_the_repository() -> None:
    found = citations_outside(tracked())
    assert not found, ("cite a README section or docs/ instead (docs/contributing.md):\n"
                       + "\n".join(found))


def test_the_check_sees_each_form_in_comments_and_docstrings() -> None:
    source = ('"""Modes of DESIGN' '.md §7."""\n'
              'X = 1  # seed ' '000 says so\n'
              'def f():\n    """As issue ' '12 asked."""\n'
              'Y = "a value citing issue ' '3 is data, not prose"\n')
    found = [m.group(0) for _, text in python_prose(source)
             if (m := OUTSIDE.search(text)) is not None]
    assert found == ["DESIGN" ".md", "seed " "000", "issue " "12"]
    assert OUTSIDE.search("see /wo" "rk/shared/docs/style.md")
    assert citations_of_lines([(1, "# measured: seed"), (2, "# 0" "00 ranks")])
    assert not OUTSIDE.search("docs/design.md, README \"HTTP API\", tests/e2e/")
