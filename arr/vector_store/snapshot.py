"""A collection's read snapshot: what a search needs, in plain files beside the Chroma store.

Chroma stays the store of record (builds write it; a server scales it out). But opening it costs
a search more than the search itself: ``import chromadb`` (1.4 s on 2 cores), a client start,
the collection's metadata, then every vector read back for the exact search. So when a build
commits a collection that is searched exactly, the store writes what the exact search reads:

- ``manifest.json``: the index manifest (the collection's metadata) and the build version;
- ``vectors.npy``: the unit vectors (float32, the same numbers Chroma returns), memory-mapped;
- ``ids.json``; ``documents.bin`` + ``documents.idx`` and ``metadatas.bin`` +
  ``metadatas.idx``: UTF-8 texts and JSON records with their offsets, so a search reads only
  the ten it returns.

A snapshot is written to a temporary folder and renamed into place; a build removes it before
it changes the collection, so a reader never takes an old snapshot for the new collection (it
reads Chroma meanwhile). Answers are the exact search's own: the same vectors, the same order.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from arr import atomic_write
from arr.vector_store.chroma_errors import chroma_errors
from arr.vector_store.exact import Exact, read_all, single_threaded_blas, unit_vectors

FORMAT = "arr-read-snapshot-1"


def _packed(texts: list[bytes]) -> tuple[bytes, np.ndarray]:
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    if texts:
        np.cumsum([len(t) for t in texts], out=offsets[1:])
    return b"".join(texts), offsets


def write_snapshot(folder: Path, manifest: dict[str, Any], version: str, exact: Exact) -> None:
    """Write the snapshot of one collection to ``folder`` (replacing any), atomically."""
    ids, matrix, documents, metadatas = exact
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        np.save(staging / "vectors.npy", np.ascontiguousarray(matrix, dtype=np.float32))
        (staging / "ids.json").write_text(json.dumps(ids), encoding="utf-8")
        for name, values in (
            ("documents", [(d or "").encode("utf-8") for d in documents]),
            ("metadatas", [json.dumps(m or {}).encode("utf-8") for m in metadatas]),
        ):
            blob, offsets = _packed(values)
            (staging / f"{name}.bin").write_bytes(blob)
            np.save(staging / f"{name}.idx.npy", offsets)
        record = {"format": FORMAT, "version": version, "count": len(ids), "manifest": manifest}
        (staging / "manifest.json").write_text(json.dumps(record), encoding="utf-8")
        remove_snapshot(folder)
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def remove_snapshot(folder: Path) -> None:
    """Remove a snapshot (renamed aside first, so a reader sees it whole or not at all)."""
    if not folder.exists():
        return
    aside = folder.with_name(f".{folder.name}-old-{os.getpid()}")
    try:
        os.replace(folder, aside)
    except FileNotFoundError:
        return
    shutil.rmtree(aside, ignore_errors=True)


def read_manifest(folder: Path) -> tuple[dict[str, Any], str] | None:
    """(manifest, version) of the snapshot in ``folder``, or None when there is none usable."""
    try:
        record = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return None
    manifest, version = record.get("manifest"), record.get("version")
    if not isinstance(manifest, dict) or not isinstance(version, str):
        return None
    return manifest, version


@dataclass
class Snapshot:
    """An open snapshot: the vectors memory-mapped, texts and records read per hit from files
    held open (a snapshot replaced meanwhile stays readable whole until this one is dropped)."""

    version: str
    ids: list[str]
    matrix: np.ndarray
    documents: tuple[BinaryIO, np.ndarray]
    metadatas: tuple[BinaryIO, np.ndarray]

    @staticmethod
    def _record(blob: tuple[BinaryIO, np.ndarray], index: int) -> bytes:
        handle, offsets = blob
        start, end = int(offsets[index]), int(offsets[index + 1])
        return os.pread(handle.fileno(), end - start, start) if end > start else b""

    def nearest(self, embedding: Any, top_k: int) -> list[tuple[str, float, str, dict[str, Any]]]:
        """(id, cosine distance, document, metadata) of the ``top_k`` nearest, nearest first;
        ties break by id (exact.nearest's order)."""
        if not self.ids:
            return []
        with single_threaded_blas():
            similarity = self.matrix @ np.asarray(embedding, dtype=np.float32)
        n = len(self.ids)
        if top_k < n:
            kth = float(np.partition(similarity, n - top_k)[n - top_k])
            candidates = np.flatnonzero(similarity >= kth).tolist()
        else:
            candidates = list(range(n))
        order = sorted(candidates, key=lambda i: (-float(similarity[i]), self.ids[i]))[:top_k]
        return [
            (
                self.ids[i],
                1.0 - float(similarity[i]),
                self._record(self.documents, i).decode("utf-8"),
                json.loads(self._record(self.metadatas, i)),
            )
            for i in order
        ]


def open_snapshot(folder: Path, version: str) -> Snapshot | None:
    """The snapshot of build ``version`` in ``folder``, or None (absent, another build's, or
    damaged: the caller reads Chroma instead)."""
    found = read_manifest(folder)
    if found is None or found[1] != version:
        return None
    try:
        ids = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
        matrix = np.load(folder / "vectors.npy", mmap_mode="r")
        blobs = tuple(
            (open(folder / f"{name}.bin", "rb"), np.load(folder / f"{name}.idx.npy"))  # noqa: SIM115
            for name in ("documents", "metadatas")
        )
    except (OSError, ValueError):
        return None
    documents, metadatas = blobs
    if not (len(ids) == matrix.shape[0] == len(documents[1]) - 1 == len(metadatas[1]) - 1):
        return None
    return Snapshot(version, ids, matrix, documents, metadatas)


class SnapshotReads:
    """The snapshot side of a store (mixed into ChromaStore): where snapshots lie, when they
    are written and dropped, and the open ones."""

    # Exactly searched collections get a read snapshot under <path>/read/. A server's store
    # (chroma_http) keeps none: the data is not on this disk.
    snapshots = True
    path: Path
    exact_max_items: int
    _lock: threading.Lock
    _snapshots: dict[str, Snapshot]

    def _snapshot_folder(self, name: str) -> Path:
        return self.path / "read" / name

    def _forget_snapshot(self, name: str) -> None:
        with self._lock:
            self._snapshots.pop(name, None)
        if self.snapshots:
            remove_snapshot(self._snapshot_folder(name))

    def _commit_snapshot(
        self, name: str, collection: Any, manifest: dict[str, Any], renew: bool
    ) -> None:
        """After a commit: a build that changed no item gives the snapshot its new manifest
        (the same vectors; reading 39,000 items back took 6 s and 800 MB); others write it."""
        version = manifest.get("build_token") or manifest.get("built_at")
        folder = self._snapshot_folder(name)
        if renew and version is not None and self.snapshots and read_manifest(folder):
            record = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            record |= {"version": str(version), "manifest": manifest}
            with contextlib.suppress(OSError):
                atomic_write.write_text(folder / "manifest.json", json.dumps(record))
                return
        self._save_snapshot(name, collection, manifest)

    def _save_snapshot(self, name: str, collection: Any, manifest: dict[str, Any]) -> None:
        """After a commit, the snapshot of a collection that is searched exactly. Derived data:
        when it cannot be written (a full disk), searches read Chroma as before."""
        version = manifest.get("build_token") or manifest.get("built_at")
        if not self.snapshots or version is None or self.exact_max_items <= 0:
            return
        with chroma_errors("read vectors"):
            if collection.count() > self.exact_max_items:
                return
            got = read_all(collection)
        self._keep_snapshot(name, manifest, str(version), unit_vectors(got))

    def _keep_snapshot(
        self, name: str, manifest: dict[str, Any], version: str, exact: Exact
    ) -> None:
        found = manifest.get("build_token") or manifest.get("built_at")
        if not self.snapshots or found is None or str(found) != version:
            return
        with contextlib.suppress(OSError):
            write_snapshot(self._snapshot_folder(name), manifest, version, exact)

    def _snapshot_manifest(self, name: str) -> tuple[dict[str, Any], str] | None:
        if not self.snapshots or self.exact_max_items <= 0:
            return None
        return read_manifest(self._snapshot_folder(name))

    def _snapshot(self, name: str, version: str | None) -> Snapshot | None:
        if not self.snapshots or version is None or self.exact_max_items <= 0:
            return None
        with self._lock:
            cached = self._snapshots.get(name)
        if cached is not None and cached.version == version:
            return cached
        found = open_snapshot(self._snapshot_folder(name), version)
        if found is None or len(found.ids) > self.exact_max_items:
            return None  # a limit lowered since: Chroma's approximate index answers
        with self._lock:
            self._snapshots[name] = found
        return found
