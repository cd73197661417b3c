"""Text normalisation: the ASCII fast paths give what the Unicode path gives."""

from __future__ import annotations

import re
import unicodedata

from shared.text.tokenizer import fold, normalize


def unicode_normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(" " if unicodedata.category(c) in {"Cc", "Cs", "Co", "Cn"} else c
                   for c in text)
    return re.sub(r"\s+", " ", text).strip()


def unicode_fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower())
                   if not unicodedata.combining(c))


def test_every_ascii_character_normalises_as_unicode_says() -> None:
    for code in range(128):
        text = f" a{chr(code)}b\t{chr(code)} "
        assert normalize(text) == unicode_normalize(text), code
        assert fold(chr(code) + "Ab") == unicode_fold(chr(code) + "Ab"), code


def test_non_ascii_text_keeps_the_unicode_path() -> None:
    assert normalize("ﬁle\u0085name\u200b  Café") == unicode_normalize("ﬁle\u0085name\u200b  Café")
    assert normalize("x\u0007y") == "x y"
    assert fold("Ÿoñé") == "yone"
