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

Nothing in it is trusted for where it lies: its record carries a *binding*, a hash of the
folder it was written to (the workspace's index folder and the collection's name), its build
version and its item count, so a snapshot copied or linked in from another workspace is not
served; the folder and every file are opened without following a link and must be regular
files with one name; the offsets of texts and records must rise from 0 to the file's own size
before anything is read (a damaged index claiming a 3 GB passage allocated it). A snapshot that
fails any check is not served (the search reads Chroma) and the next ``arr index`` writes it
anew.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from tokenize import TokenError
from typing import Any, BinaryIO

import numpy as np

from arr import atomic_write
from arr.vector_store.chroma_errors import chroma_errors
from arr.vector_store.exact import Exact, nearest_rows, pages, unit_rows

FORMAT = "arr-read-snapshot-1"


# (ids, vectors, texts, records); a spool hands texts and records on as the bytes it stored
Page = tuple[list[str], Any, list[Any], list[Any]]


def write_snapshot(folder: Path, manifest: dict[str, Any], version: str, exact: Exact) -> None:
    """Write the snapshot of one collection (its unit vectors in memory) to ``folder``."""
    ids, matrix, documents, metadatas = exact
    write_pages(folder, manifest, version, len(ids), [(ids, matrix, documents, metadatas)], True)


def write_pages(
    folder: Path,
    manifest: dict[str, Any],
    version: str,
    count: int,
    pages: Iterable[Page],
    unit: bool = False,
) -> None:
    """Write a snapshot of ``count`` items from ``pages`` (ids, vectors, documents, metadatas),
    one page in memory at a time: holding a 39,000-item collection's texts and records as
    Python objects cost 400 MB. Vectors are stored unit-length. Nothing is written when the
    pages do not hold ``count`` items (the collection changed while it was read). ``unit``:
    the vectors are unit-length already."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        all_ids: list[str] = []
        offsets: dict[str, list[int]] = {"documents": [0], "metadatas": [0]}
        width = None
        # written in sequence, not through a memory map: mapped pages count in the writer's
        # resident memory (60 MB for 39,000 vectors at the end of a build)
        with (
            open(staging / "vectors.npy", "wb") as vectors,
            open(staging / "documents.bin", "wb") as texts,
            open(staging / "metadatas.bin", "wb") as records,
        ):
            for ids, matrix, documents, metadatas in pages:
                if not ids:
                    continue
                page = np.asarray(matrix, dtype=np.float32).reshape(len(ids), -1)
                if not unit:
                    page = unit_rows(page)
                if width is None:
                    width = page.shape[1]
                    header = {"descr": "<f4", "fortran_order": False, "shape": (count, width)}
                    np.lib.format.write_array_header_1_0(vectors, header)
                if len(all_ids) + len(ids) > count or page.shape[1] != width:
                    return
                vectors.write(np.ascontiguousarray(page, dtype="<f4").tobytes())
                all_ids.extend(ids)
                append_blobs(texts, offsets["documents"], [encoded_text(d) for d in documents])
                append_blobs(records, offsets["metadatas"], [encoded_record(m) for m in metadatas])
        if len(all_ids) != count:
            return
        if width is None:
            np.save(staging / "vectors.npy", np.zeros((0, 0), dtype=np.float32))
        (staging / "ids.json").write_text(json.dumps(all_ids), encoding="utf-8")
        for name, ends in offsets.items():
            np.save(staging / f"{name}.idx.npy", np.asarray(ends, dtype=np.int64))
        record = {"format": FORMAT, "version": version, "count": count, "manifest": manifest}
        record["binding"] = binding(folder, version, count)
        (staging / "manifest.json").write_text(json.dumps(record), encoding="utf-8")
        remove_snapshot(folder)
        os.replace(staging, folder)
        staging = None  # type: ignore[assignment]
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def binding(folder: Path, version: str, count: int) -> str:
    """What ties a snapshot to the place it was written for: the folder's real path (the
    workspace's index folder and the collection's name), the build version, the item count."""
    where = os.path.join(os.path.realpath(folder.parent), folder.name)
    return hashlib.sha256(f"{FORMAT}\0{where}\0{version}\0{count}".encode()).hexdigest()


def _open_plain(path: Path) -> BinaryIO:
    """A snapshot file opened for reading: never through a link, a regular file with one name
    (raises OSError otherwise)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(descriptor)
        raise OSError(f"{path.name} is not a regular file with one name")
    return os.fdopen(descriptor, "rb")


def _sized_load(handle: BinaryIO, length: int) -> Any:
    """A 1-D integer ``.npy`` of ``length`` items, its header checked against the file first (a
    damaged one claiming 300 million offsets made ``np.load`` ask for 2.4 GB): ValueError."""
    fmt = np.lib.format
    if fmt.read_magic(handle) != (1, 0):  # what np.save writes here; 2.0 may claim a 4 GB header
        raise ValueError("offsets in another .npy version")
    shape, fortran, dtype = fmt.read_array_header_1_0(handle)
    size = os.fstat(handle.fileno()).st_size
    if shape != (length,) or fortran or dtype.kind not in "iu" or dtype.hasobject:
        raise ValueError("offsets of another shape")
    if size != handle.tell() + length * dtype.itemsize:
        raise ValueError("offsets of another size")
    return np.frombuffer(handle.read(length * dtype.itemsize), dtype=dtype)  # header read once


def _offsets(handle: BinaryIO, ends: Any, rows: int) -> Any:
    """The offsets of a blob file checked against the file: one more than its rows, from 0,
    never falling, ending at its size (raises ValueError otherwise)."""
    ends = np.asarray(ends)
    size = os.fstat(handle.fileno()).st_size
    if ends.ndim != 1 or len(ends) != rows + 1 or ends.dtype.kind not in "iu":
        raise ValueError("offsets of another shape")
    if len(ends) and (
        int(ends[0]) != 0 or int(ends[-1]) != size or bool(np.any(np.diff(ends) < 0))
    ):
        raise ValueError("offsets beyond the file or falling")
    return ends


def append_blobs(handle: BinaryIO, ends: Any, values: list[bytes]) -> int:
    """Append ``values`` to a blob file whose offsets are ``ends`` (one more than its rows,
    extended here); the row of the first value."""
    first = len(ends) - 1
    handle.write(b"".join(values))
    for value in values:
        ends.append(ends[-1] + len(value))
    return first


def read_blob(blob: tuple[BinaryIO, Any], row: int) -> bytes:
    """Row ``row`` of a blob file and its offsets, read where it lies (no mapping)."""
    handle, offsets = blob
    start, end = int(offsets[row]), int(offsets[row + 1])
    return os.pread(handle.fileno(), end - start, start) if end > start else b""


def encoded_text(value: str | bytes | None) -> bytes:  # a page's text: str, or UTF-8 bytes already
    return value if isinstance(value, bytes) else (value or "").encode("utf-8")


def encoded_record(value: dict[str, Any] | bytes | None) -> bytes:  # a record: dict, or its JSON
    return value if isinstance(value, bytes) else json.dumps(value or {}).encode("utf-8")


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


def read_record(folder: Path) -> dict[str, Any] | None:
    """The snapshot's record (format, version, count, manifest), or None when unusable."""
    try:
        record = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return None
    if not isinstance(record.get("manifest"), dict) or not isinstance(record.get("version"), str):
        return None
    return record


def read_manifest(folder: Path) -> tuple[dict[str, Any], str] | None:
    """(manifest, version) of the snapshot in ``folder``, or None when there is none usable."""
    record = read_record(folder)
    return None if record is None else (record["manifest"], record["version"])


@dataclass
class Snapshot:
    """An open snapshot: the vectors memory-mapped, texts and records read per hit from files
    held open (a snapshot replaced meanwhile stays readable whole until this one is dropped)."""

    version: str
    ids: list[str]
    matrix: np.ndarray
    documents: tuple[BinaryIO, np.ndarray]
    metadatas: tuple[BinaryIO, np.ndarray]

    def close(self) -> None:
        for handle, _ in (self.documents, self.metadatas):
            handle.close()

    def nearest(self, embedding: Any, top_k: int) -> list[tuple[str, float, str, dict[str, Any]]]:
        """(id, cosine distance, document, metadata) of the ``top_k`` nearest, nearest first;
        ties break by id (exact.nearest's order)."""
        return [
            (
                self.ids[i],
                distance,
                read_blob(self.documents, i).decode("utf-8"),
                json.loads(read_blob(self.metadatas, i)),
            )
            for i, distance in nearest_rows(self.ids, self.matrix, embedding, top_k)
        ]


def open_snapshot(folder: Path, version: str, written_for: Path | None = None) -> Snapshot | None:
    """The snapshot of build ``version`` in ``folder``, or None (absent, another build's or
    another place's, linked, or damaged: the caller reads Chroma instead). ``written_for``:
    the folder its binding names, when a build moved it aside (default: ``folder``)."""
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):  # a link to a folder elsewhere
            return None
    except OSError:
        return None
    record = read_record(folder)
    if record is None or record["version"] != version:
        return None
    count = record.get("count")
    bound = binding(written_for or folder, version, count) if isinstance(count, int) else None
    if bound is None or record.get("binding") != bound:
        return None
    handles: list[BinaryIO] = []
    try:
        with _open_plain(folder / "ids.json") as handle:
            ids = json.loads(handle.read().decode("utf-8"))
        with _open_plain(folder / "vectors.npy") as handle:
            if np.lib.format.read_magic(handle) != (1, 0):  # as written; 2.0: a 4 GB header
                raise ValueError("vectors in another .npy version")
            matrix = np.load(folder / "vectors.npy", mmap_mode="r")
        blobs = []
        for name in ("documents", "metadatas"):
            handles.append(_open_plain(folder / f"{name}.bin"))
            with _open_plain(folder / f"{name}.idx.npy") as index:
                ends = _sized_load(index, count + 1)
            blobs.append((handles[-1], _offsets(handles[-1], ends, count)))
    # a damaged header reaches numpy's parser (ValueError, SyntaxError, tokenize's TokenError)
    except (OSError, ValueError, UnicodeDecodeError, MemoryError, SyntaxError, TokenError):
        for handle in handles:
            handle.close()
        return None
    documents, metadatas = blobs
    if not (isinstance(ids, list) and len(ids) == matrix.shape[0] == count):
        for handle in handles:
            handle.close()
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
        self, name: str, collection: Any, manifest: dict[str, Any], renew: bool, spool: Any
    ) -> None:
        """After a commit: a build that changed no item gives the snapshot its new manifest
        (the same vectors; reading 39,000 items back took 6 s and 800 MB); others write it,
        from the build's spool when it holds the collection (arr.vector_store.spool)."""
        version = manifest.get("build_token") or manifest.get("built_at")
        folder = self._snapshot_folder(name)
        record = read_record(folder) if renew and self.snapshots else None
        whole = record is not None and open_snapshot(folder, record["version"])
        if whole:  # the same vectors, checked whole: only its record is renewed
            whole.close()
        if record is not None and whole and version is not None:
            count = int(record["count"])
            record |= {
                "version": str(version),
                "manifest": manifest,
                "binding": binding(folder, str(version), count),
            }
            with contextlib.suppress(OSError):
                atomic_write.write_text(folder / "manifest.json", json.dumps(record))
                return
        self._save_snapshot(name, collection, manifest, spool)

    def _save_snapshot(
        self, name: str, collection: Any, manifest: dict[str, Any], spool: Any = None
    ) -> None:
        """After a commit, the snapshot of a collection that is searched exactly: from the
        build's ``spool`` when it holds as many items as the collection, else read back.
        Derived data: when it cannot be written (a full disk), searches read Chroma."""
        version = manifest.get("build_token") or manifest.get("built_at")
        try:
            if not self.snapshots or version is None or self.exact_max_items <= 0:
                return
            with chroma_errors("read vectors"):
                count = collection.count()
                if count > self.exact_max_items:
                    return
                own = spool is not None and spool.count == count
                with contextlib.suppress(OSError):
                    write_pages(
                        self._snapshot_folder(name),
                        manifest,
                        str(version),
                        count,
                        spool.pages() if own else pages(collection),
                        unit=own,
                    )
        finally:
            if spool is not None:
                spool.close()

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
