"""Offline adapters of the semantic-recall ports (worker/semantic/ports.py), for `mallory
serve`, tests and benchmarks on machines without internet.

    embedder.py   LocalEmbedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime + tokenizers
    vectors.py    SqliteVectorIndex: rows in the local SQLite file, numpy scans in memory

Both need the optional stack (`uv sync --group embed`); importing this package does not.
There is no local reranker: no package on the registry ships a cross-encoder's weights
and tokenizer without downloading them at run time (see the README).
"""

INSTALL_HINT = ("install the optional local embedder with: uv sync --group embed "
                "(or scripts/setup.sh --embed)")
