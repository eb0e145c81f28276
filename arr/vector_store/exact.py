"""Exact nearest neighbours for small collections: every vector read once per build and kept
as unit vectors, so an answer is the same in every process (HNSW graphs that Chroma rebuilds
from its write log differ between processes). Ties break by id."""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Iterator
from typing import Any

import numpy as np

Exact = tuple[list[str], np.ndarray, list[str], list[dict[str, Any]]]

_BLAS: Any = None


def single_threaded_blas() -> Any:
    """A context in which numpy's BLAS uses one thread. A query's matrix-vector product takes
    0.1 ms on one thread, but OpenBLAS' worker threads keep spinning after it and starve the
    embedder's own threads on a small machine: measured on 2 cores, the next query embedding
    took 24-28 ms instead of 9-12 ms. Without threadpoolctl it is a no-op."""
    global _BLAS
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - installed with the vector extra
        return contextlib.nullcontext()
    if _BLAS is None:
        _BLAS = ThreadpoolController()  # inspects the loaded libraries once
    return _BLAS.limit(limits=1, user_api="blas")


READ_PAGE = 2000  # items per read: Chroma refuses a whole large collection in one get()


def pages(collection: Any) -> Iterator[tuple[list[str], Any, list[str], list[dict[str, Any]]]]:
    """Every item of a collection, page by page (ids, embeddings, documents, metadatas): one
    ``get`` of ~39,000 items fails in Chroma with "too many SQL variables"."""
    offset = 0
    while True:
        page = collection.get(
            include=["embeddings", "documents", "metadatas"], limit=READ_PAGE, offset=offset
        )
        ids = list(page["ids"])
        if ids:
            yield ids, page["embeddings"], list(page["documents"]), list(page["metadatas"])
        offset += len(ids)
        if len(ids) < READ_PAGE:
            return


def add_hashes(found: dict[str, str], got: dict[str, Any]) -> int:
    """Each item's content hash of one ``get`` answer (metadatas) into ``found``; its size."""
    ids = got["ids"]
    for item, meta in zip(ids, got["metadatas"] or [{}] * len(ids), strict=True):
        found[item] = str((meta or {}).get("content_hash", ""))
    return len(ids)


def content_hashes(collection: Any) -> dict[str, str]:
    """Every item's content hash (id -> hash), page by page like :func:`pages`."""
    found: dict[str, str] = {}
    offset = 0
    while True:
        size = add_hashes(
            found, collection.get(include=["metadatas"], limit=READ_PAGE, offset=offset)
        )
        offset += size
        if size < READ_PAGE:
            return found


def read_all(collection: Any) -> dict[str, Any]:
    """Every item of a collection at once (the exact search's in-memory copy)."""
    got: dict[str, list[Any]] = {"ids": [], "embeddings": [], "documents": [], "metadatas": []}
    for ids, embeddings, documents, metadatas in pages(collection):
        got["ids"] += ids
        got["embeddings"].append(np.asarray(embeddings, dtype=np.float32))  # not Python floats
        got["documents"] += documents
        got["metadatas"] += metadatas
    vectors = got.pop("embeddings")
    return {**got, "embeddings": np.concatenate(vectors) if vectors else []}


def unit_vectors(got: dict[str, Any]) -> Exact:
    """(ids, unit vectors, documents, metadatas) of a collection's ``get`` answer."""
    if not got["ids"]:  # an empty collection (every file of the scope withheld)
        return [], np.zeros((0, 0), dtype=np.float32), [], []
    matrix = unit_rows(np.asarray(got["embeddings"], dtype=np.float32).reshape(len(got["ids"]), -1))
    return list(got["ids"]), matrix, list(got["documents"]), list(got["metadatas"])


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row at unit length, the one way every exact search normalises (a read-back, a
    snapshot, a build's spool): the same numbers, row by row, whatever the batch."""
    return matrix / np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)


def nearest(
    exact: Exact, embedding: Any, top_k: int
) -> list[tuple[str, float, str, dict[str, Any]]]:
    """(id, cosine distance, document, metadata) of the ``top_k`` nearest, nearest first."""
    ids, matrix, documents, metadatas = exact
    found = nearest_rows(ids, matrix, embedding, top_k)
    return [(ids[i], distance, documents[i], metadatas[i]) for i, distance in found]


def nearest_rows(
    ids: list[str], matrix: Any, embedding: Any, top_k: int
) -> list[tuple[int, float]]:
    """(row, cosine distance) of the ``top_k`` nearest unit vectors of ``matrix``, nearest
    first, ties broken by id: the order of every exact search (in memory or a snapshot)."""
    if not ids:
        return []
    with single_threaded_blas():
        similarity = similarities(matrix, np.asarray(embedding, dtype=np.float32))
    if top_k < len(ids):
        # the k best, plus every item tied with the k-th (ties then break by id)
        kth = float(np.partition(similarity, len(ids) - top_k)[len(ids) - top_k])
        candidates = np.flatnonzero(similarity >= kth).tolist()
    else:
        candidates = list(range(len(ids)))
    order = sorted(candidates, key=lambda i: (-float(similarity[i]), ids[i]))
    return [(i, 1.0 - float(similarity[i])) for i in order[:top_k]]


SCAN_ROWS = 8192  # rows of a memory-mapped matrix scanned, then released, at a time


def similarities(matrix: Any, embedding: np.ndarray) -> np.ndarray:
    """``matrix @ embedding``. A memory-mapped matrix (a snapshot) is scanned in blocks whose
    pages are handed back after use (``MADV_DONTNEED``): they stay in the system's page cache
    for the next search, but the process does not keep the whole file resident (157,784
    vectors, 242 MB, were all counted in a cold search's peak RSS)."""
    handle = getattr(matrix, "_mmap", None)
    if handle is None or not hasattr(handle, "madvise") or len(matrix) <= SCAN_ROWS:
        return matrix @ embedding
    out = np.empty(len(matrix), dtype=np.float32)
    row_bytes = matrix.strides[0]
    # where the array's data begins inside the mapping (np.memmap maps from a page boundary)
    start = int(matrix.offset) % mmap.ALLOCATIONGRANULARITY
    for first in range(0, len(matrix), SCAN_ROWS):
        last = min(first + SCAN_ROWS, len(matrix))
        out[first:last] = matrix[first:last] @ embedding
        low = start + first * row_bytes
        high = start + last * row_bytes
        low -= low % mmap.PAGESIZE  # whole pages only; a page shared with the next block
        high -= high % mmap.PAGESIZE  # stays until that block is done
        if high > low:
            with contextlib.suppress(OSError, ValueError):
                handle.madvise(mmap.MADV_DONTNEED, low, high - low)
    return out
