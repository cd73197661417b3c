"""shared.text.porter must produce exactly the terms FTS5's porter tokenizer writes, or document
frequencies (and so relevance) would be looked up under the wrong key."""

from __future__ import annotations

import re
import sqlite3

from shared.text.porter import stem
from shared.text.tokenizer import tokens
from tests.conftest import ROOT


def _words() -> list[str]:
    text = ""
    for path in [*ROOT.glob("examples/vault/**/*.md"), *ROOT.glob("**/*.py")]:
        if ".venv" not in path.parts and "node_modules" not in path.parts:
            text += path.read_text(encoding="utf-8", errors="ignore") + "\n"
    text += """running runs ran easily fairly generalization oscillators relational conditional
    rational valenci hopefulness goodness formaliti sensitiviti sensibiliti electrical
    agreed plastered motoring sing conflated troubled sized hopping tanned falling hissing
    fizzed failing filing happy sky revival allowance inference adjustable defensible
    irritant replacement adjustment dependent adoption communism activate angularity
    homologous effective bowdlerize probate rate cease controll roll café naïve résumé"""
    return sorted({t for t in tokens(text) if re.fullmatch(r"[a-z0-9]+", t)})


def test_stems_match_fts5_porter_vocabulary() -> None:
    words = _words()
    assert len(words) > 1_000
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 "
                 "remove_diacritics 2')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    mismatches = []
    for word in words:
        conn.execute("DELETE FROM t")
        conn.execute("INSERT INTO t (x) VALUES (?)", (word,))
        (indexed,) = conn.execute("SELECT term FROM v").fetchone()
        if indexed != stem(word):
            mismatches.append((word, indexed, stem(word)))
    conn.close()  # Python 3.13+ warns about an unclosed connection (an error here)
    assert mismatches == []


def test_short_and_non_ascii_tokens_are_left_alone() -> None:
    assert stem("is") == "is"
    assert stem("日本語") == "日本語"
