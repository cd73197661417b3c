"""The model's files: found in their packages, checked against their pins."""

from __future__ import annotations

import dataclasses

import pytest

from local.semantic.embedder import LocalEmbedder
from local.semantic.model_files import MINILM_L6_INT8, PackagedFile
from worker.semantic.ports import EmbedderError

pytestmark = pytest.mark.embed


def test_the_pinned_files_are_installed_and_match() -> None:
    for packaged in (MINILM_L6_INT8.onnx, MINILM_L6_INT8.tokenizer):
        assert packaged.verified().is_file()


def test_the_identity_names_the_files_and_the_truncation() -> None:
    identity = MINILM_L6_INT8.identity
    assert identity == "local/all-MiniLM-L6-v2-int8@8199be6f699a.be50c3628f2b/t256"
    assert dataclasses.replace(MINILM_L6_INT8, max_tokens=128).identity != identity
    other = dataclasses.replace(MINILM_L6_INT8.onnx, sha256="0" * 64)
    assert dataclasses.replace(MINILM_L6_INT8, onnx=other).identity != identity


async def test_an_uninstalled_model_package_names_it_and_the_install_command() -> None:
    absent = PackagedFile(distribution="no-such-model", package="no_such_model_pkg",
                          relative="model.onnx", sha256="0" * 64)
    embedder = LocalEmbedder(dataclasses.replace(MINILM_L6_INT8, onnx=absent))
    with pytest.raises(EmbedderError, match=r"model.onnx from the package no-such-model, "
                                            r"which is not installed; .*uv sync --group embed"):
        await embedder.embed(["hello"], "query")


async def test_a_file_that_differs_from_its_pin_is_refused() -> None:
    wrong = dataclasses.replace(MINILM_L6_INT8.tokenizer, sha256="0" * 64)
    embedder = LocalEmbedder(dataclasses.replace(MINILM_L6_INT8, tokenizer=wrong))
    with pytest.raises(EmbedderError, match=r"tokenizer.json has sha256 be50c362.*not the "
                                            r"pinned 0{64}"):
        await embedder.embed(["hello"], "query")
    assert not embedder.loaded
