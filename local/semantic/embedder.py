"""The local Embedder: all-MiniLM-L6-v2 on onnxruntime, in process, offline.

Nothing loads at import or construction: the model loads on the first `embed` (about a
second), once, under a lock. Inference runs in a worker thread so the event loop keeps
serving; onnxruntime allows concurrent `run` calls on one session and the tokenizer is
configured once, so concurrent `embed` calls are safe.

Texts are tokenized once, without padding, sorted by length and padded per run to the
longest in it, so a run of short texts does not pay for one long text. A run holds at most
`batch_size` texts and `max_run_tokens` padded word pieces: the model's intermediate
tensors grow with rows × width² and onnxruntime's arena keeps the largest it was asked for
(16 texts of 256 pieces grew the process from 227 MB to 940 MB over 200 sections,
bench.index_cost), while long texts gain nothing from large runs. The memory pattern is
off (below), so what a run allocates is reused by the next. The vectors are
the sentence-transformers recipe for this model: mean of the last hidden state over the
attention mask, then L2 normalisation.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from local.semantic import INSTALL_HINT
from local.semantic.model_files import MINILM_L6_INT8, LocalModel
from worker.semantic.ports import EmbedderError, EmbedKind, checked_vectors

WHO = "the local embedder"
KINDS = ("query", "passage")  # the model takes both the same way (no instruction prefix)
# Texts per onnxruntime run: 16-piece texts took 4.1 ms each in runs of 16 against 6.4 ms
# one by one; 250-piece texts gain nothing from any batching (they are compute-bound).
BATCH_SIZE = 16
# Padded word pieces per run: 16 texts of 128, or 8 of 256 (see the module's docstring).
MAX_RUN_TOKENS = 2_048
MAX_BATCH = 64  # texts per embed() call a caller should send (Embedder.max_batch)
DEFAULT_THREADS = 1  # onnxruntime threads: leave the other core to the server and the hub


@dataclass(frozen=True)
class _Runtime:
    np: Any
    tokenizer: Any
    session: Any
    inputs: frozenset[str]


def _import_stack() -> tuple[Any, Any, Any]:
    try:
        import numpy
        import onnxruntime
        import tokenizers
    except ImportError as exc:
        raise EmbedderError(f"{WHO} needs the Python package {exc.name or 'it imports'}, "
                            f"which is not installed; {INSTALL_HINT}") from exc
    return numpy, onnxruntime, tokenizers


class LocalEmbedder:
    """Embedder port on local files; `model` names the exact files and truncation."""

    max_batch = MAX_BATCH

    def __init__(self, spec: LocalModel = MINILM_L6_INT8, *, threads: int = DEFAULT_THREADS,
                 batch_size: int = BATCH_SIZE, max_run_tokens: int = MAX_RUN_TOKENS) -> None:
        if threads < 1 or batch_size < 1 or max_run_tokens < 1:
            raise ValueError(f"threads ({threads}), batch_size ({batch_size}) and "
                             f"max_run_tokens ({max_run_tokens}) must be ≥ 1")
        self.max_run_tokens = max_run_tokens
        self.spec = spec
        self.model = spec.identity
        self.dimensions = spec.dimensions
        self.threads = threads
        self.batch_size = batch_size
        self._runtime: _Runtime | None = None
        self._load_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._runtime is not None

    def load(self) -> None:
        """Load the model now (embed does it on first use); EmbedderError if it cannot."""
        self._loaded()

    def _loaded(self) -> _Runtime:
        if self._runtime is not None:
            return self._runtime
        with self._load_lock:
            if self._runtime is None:
                self._runtime = self._load()
        return self._runtime

    def _load(self) -> _Runtime:
        np, ort, tokenizers = _import_stack()
        onnx_path, tokenizer_path = self.spec.onnx.verified(), self.spec.tokenizer.verified()
        tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_path))
        # The shipped tokenizer.json pads every text to 128 and truncates there: undo both.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self.spec.max_tokens)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # The memory pattern is planned per input shape and kept: with a new width at every
        # run it grew without bound (bench.index_cost: peak RSS 620 MB → 420 MB over 200
        # sections, at the same speed).
        options.enable_mem_pattern = False
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            session = ort.InferenceSession(str(onnx_path), sess_options=options,
                                           providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"{WHO} could not load {onnx_path}: {exc}") from exc
        inputs = frozenset(i.name for i in session.get_inputs())
        return _Runtime(np=np, tokenizer=tokenizer, session=session, inputs=inputs)

    async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        if kind not in KINDS:
            raise EmbedderError(f"{WHO} got kind {kind!r}; expected one of {KINDS}")
        if isinstance(texts, str):
            raise EmbedderError(f"{WHO} takes a sequence of texts, not one string")
        bad = [f"{i} ({type(t).__name__})" for i, t in enumerate(texts) if not isinstance(t, str)]
        if bad:
            raise EmbedderError(f"{WHO} embeds strings; not at index {', '.join(bad[:10])}")
        if not texts:
            return []
        matrix = await asyncio.to_thread(self.embed_matrix, list(texts))
        return checked_vectors(matrix.tolist(), len(texts), self.dimensions, WHO)

    def embed_matrix(self, texts: list[str]) -> Any:
        """Unit vectors as a float32 numpy array (len(texts), dimensions), synchronously."""
        rt = self._loaded()
        np = rt.np
        encodings = rt.tokenizer.encode_batch(texts)
        ids = [e.ids for e in encodings]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        for rows in self.runs([len(ids[i]) for i in order]):
            chosen = order[rows.start:rows.stop]
            out[chosen] = self._run(rt, [ids[i] for i in chosen])
        return out

    def runs(self, lengths: Sequence[int]) -> list[range]:
        """Consecutive runs over texts sorted by length (ascending): each as many as fit in
        `batch_size` texts and `max_run_tokens` padded pieces (its last text is its
        widest), and at least one."""
        out, start = [], 0
        while start < len(lengths):
            end = start + 1
            while end < len(lengths) and end - start < self.batch_size \
                    and (end + 1 - start) * lengths[end] <= self.max_run_tokens:
                end += 1
            out.append(range(start, end))
            start = end
        return out

    def _run(self, rt: _Runtime, token_ids: list[list[int]]) -> Any:
        np = rt.np
        width = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, row_ids in enumerate(token_ids):
            ids[row, :len(row_ids)] = row_ids
            mask[row, :len(row_ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        try:
            hidden = rt.session.run(None, {k: v for k, v in feeds.items() if k in rt.inputs})[0]
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"{WHO} failed on a batch of {len(token_ids)}: {exc}") from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)
