"""The local embedder on real text through the real model files."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import numpy as np
import pytest

from local.semantic.embedder import LocalEmbedder
from tests.conftest import ROOT
from worker.semantic.ports import EmbedderError, EmbedKind

pytestmark = pytest.mark.embed

UNRELATED = "The ferry to the island leaves at seven from the north pier."
# (a note's wording, how the owner might ask for it)
PARAPHRASES = [
    ("Refund policy", "I want my money back"),
    ("Car service due in March", "when does the car need a check-up?"),
    ("Dentist appointment rescheduled to Thursday", "when am I seeing the tooth doctor?"),
]
LONG = " ".join(f"paragraph {i} about the quarterly budget review and its open items"
                for i in range(80))  # about 900 word pieces: far past the 256 kept


async def vectors(embedder: LocalEmbedder, texts: list[str], kind: EmbedKind = "passage"
                  ) -> np.ndarray:
    return np.array(await embedder.embed(texts, kind))


async def test_vectors_are_unit_length_and_384_wide(embedder: LocalEmbedder) -> None:
    got = await vectors(embedder, ["Refund policy", "", LONG])
    assert got.shape == (3, 384) == (3, embedder.dimensions)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize(("note", "question"), PARAPHRASES)
async def test_a_paraphrase_is_closer_than_an_unrelated_sentence(
        embedder: LocalEmbedder, note: str, question: str) -> None:
    n, q, u = await vectors(embedder, [note, question, UNRELATED])
    assert float(n @ q) > float(n @ u) + 0.2


async def test_the_checked_refund_similarities(embedder: LocalEmbedder) -> None:
    """docs/platform.md ("The local embedder"): 0.52 for the paraphrase, −0.06 for the
    unrelated sentence."""
    n, q, u = await vectors(embedder, ["refund policy", "I want my money back",
                                       "The cat sat on the mat in the sun."])
    assert float(n @ q) == pytest.approx(0.52, abs=0.01)
    assert float(n @ u) == pytest.approx(-0.06, abs=0.01)


async def test_batching_equals_one_by_one(embedder: LocalEmbedder) -> None:
    texts = ["a", LONG, "Refund policy", "", "I want my money back, all of it, today",
             UNRELATED, "x " * 40]
    batched = await vectors(embedder, texts)
    alone = np.array([(await vectors(embedder, [t]))[0] for t in texts])
    np.testing.assert_allclose(batched, alone, atol=1e-5)


async def test_more_texts_than_one_run_keep_their_order(embedder: LocalEmbedder) -> None:
    texts = [f"note number {i} " + "word " * (i % 7) for i in range(2 * embedder.batch_size + 3)]
    got = await vectors(embedder, texts)
    for i in (0, embedder.batch_size, len(texts) - 1):
        np.testing.assert_allclose(got[i], (await vectors(embedder, [texts[i]]))[0], atol=1e-5)


async def test_text_past_the_token_limit_is_truncated(embedder: LocalEmbedder) -> None:
    base, longer = await vectors(embedder, [LONG, LONG + " and a tail about something else"])
    np.testing.assert_allclose(base, longer, atol=1e-6)


async def test_queries_and_passages_embed_alike(embedder: LocalEmbedder) -> None:
    np.testing.assert_allclose(await vectors(embedder, ["Refund policy"], "query"),
                               await vectors(embedder, ["Refund policy"], "passage"), atol=1e-6)


async def test_concurrent_calls_match_sequential_ones(embedder: LocalEmbedder) -> None:
    texts = [[f"{word} policy"] for word in ("refund", "travel", "privacy", "leave")]
    together = await asyncio.gather(*(embedder.embed(t, "passage") for t in texts))
    for group, got in zip(texts, together, strict=True):
        np.testing.assert_allclose(got, await embedder.embed(group, "passage"), atol=1e-6)


async def test_no_texts_no_vectors(embedder: LocalEmbedder) -> None:
    assert await embedder.embed([], "query") == []


@pytest.mark.parametrize(("texts", "kind", "message"), [
    (["ok"], "document", "kind 'document'"),
    (["ok", 3, None], "query", "not at index 1 (int), 2 (NoneType)"),
    ("one string", "query", "not one string"),
])
async def test_bad_input_is_refused_with_a_typed_error(
        embedder: LocalEmbedder, texts: list[object], kind: str, message: str) -> None:
    with pytest.raises(EmbedderError, match=message.replace("(", r"\(").replace(")", r"\)")):
        await embedder.embed(texts, kind)  # type: ignore[arg-type]  # bad input is the point


def test_import_and_construction_load_nothing() -> None:
    code = ("import sys; from local.semantic.embedder import LocalEmbedder; e = LocalEmbedder(); "
            "assert not e.loaded and e.model and e.dimensions == 384; "
            "assert not {'onnxruntime', 'tokenizers', 'numpy'} & set(sys.modules), "
            "sorted({'onnxruntime', 'tokenizers', 'numpy'} & set(sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("missing", ["onnxruntime", "tokenizers", "numpy"])
async def test_a_missing_package_names_itself_and_the_install_command(
        monkeypatch: pytest.MonkeyPatch, missing: str) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # `import missing` now raises ImportError
    with pytest.raises(EmbedderError, match=rf"needs the Python package {missing}.*"
                                            r"uv sync --group embed"):
        await LocalEmbedder().embed(["Refund policy"], "query")


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="threads"):
        LocalEmbedder(threads=0)
