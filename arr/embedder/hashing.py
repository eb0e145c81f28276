"""Deterministic hashing embedder for fast tests (``embedder=hashing``); no model, no I/O.

Each token (lower-cased word) adds +-1 to one of ``dim`` buckets chosen by a stable hash; the
vector is normalised. Texts sharing words are close, so retrieval behaves plausibly. It counts
the texts it embedded (``texts_embedded``), which incremental-indexing tests use.
"""

from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

_WORD = re.compile(r"\w+")


class HashingEmbedder:
    def __init__(self, dim: int = 64) -> None:
        if dim < 2:
            raise ValueError(f"dim must be >= 2, got {dim}")
        self.dim = dim
        self.texts_embedded = 0
        self._lock = threading.Lock()

    @property
    def id(self) -> str:
        return f"hashing:{self.dim}"

    def dimension(self) -> int:
        return self.dim

    def warm_up(self) -> None:
        """Nothing to load."""

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, np.float32)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vector[value % self.dim] += 1.0 if (value >> 32) & 1 else -1.0
        norm = float(np.linalg.norm(vector))
        if norm == 0:
            vector[0] = 1.0
            return vector
        return vector / norm

    def embed(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        with self._lock:
            self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)
