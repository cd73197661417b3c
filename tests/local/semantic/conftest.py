"""One loaded local embedder for the whole session (loading costs about a second)."""

from __future__ import annotations

import pytest

from local.semantic.embedder import LocalEmbedder


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    model = LocalEmbedder()
    model.load()
    return model
