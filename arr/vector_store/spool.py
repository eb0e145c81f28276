"""A build's own record of what it stored: the read snapshot written at the commit without
reading the collection back.

Writing the snapshot by reading a 39,000-passage collection back from Chroma took the end of a
first ``arr index`` from 675 to 816 MB (Chroma's reader holds the collection while it pages
it out). A build has every vector, text and record it stores in hand once, so the store keeps
them as it writes: appended to files beside the store (``read/.<collection>-spool-<pid>/``),
over the snapshot the collection had before the build (moved aside, not deleted: its rows are
kept unless this build replaces, renames or deletes them). At the commit the snapshot is
written from the two, one page at a time.

A spool starts only where it can know the whole collection: an empty one, or one whose
snapshot belongs to its current build. Otherwise (a rebuild resumed after a kill, an index
built before snapshots), and whenever a write failed part way or the counts disagree at the
commit, the collection is read back as before. Vectors are kept unit-length as the snapshot
stores them (the embedder's own numbers: Chroma's ``get`` returns some components one float32
step away, so a score may differ from a read-back in its last bit; scores are rounded to six
decimals).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from arr.vector_store.exact import unit_rows
from arr.vector_store.snapshot import (
    Page,
    Snapshot,
    append_blobs,
    encoded_record,
    encoded_text,
    open_snapshot,
    read_blob,
    remove_snapshot,
)

PAGE = 1000  # items per page when the snapshot is written from the spool


class Spool:
    """The items of one collection as this build left them: ``rows`` maps each id to its slot,
    and a slot names where its vector, text and record lie: row ``r >= 0`` of the spool's own
    files, or row ``-r - 1`` of the old snapshot (plain integer arrays: 39,000 items as Python
    tuples were ~20 MB)."""

    def __init__(self, folder: Path, base: Snapshot | None, base_folder: Path | None) -> None:
        folder.mkdir(parents=True)
        self.folder, self.base, self.base_folder = folder, base, base_folder
        self.rows: dict[str, int] = {}
        self._slots = {part: array("q") for part in ("vector", "text", "record")}
        if base is not None:
            self.rows = {item: row for row, item in enumerate(base.ids)}
            for slots in self._slots.values():
                slots.extend(range(-1, -len(base.ids) - 1, -1))
        self.dimension = base.matrix.shape[1] if base is not None and base.ids else None
        self._vectors = open(folder / "vectors.f32", "wb")  # noqa: SIM115 - held for the build
        self._texts = open(folder / "documents.bin", "wb")  # noqa: SIM115
        self._records = open(folder / "metadatas.bin", "wb")  # noqa: SIM115
        self._count = 0
        self._text_ends = array("q", [0])
        self._record_ends = array("q", [0])

    @property
    def count(self) -> int:
        return len(self.rows)

    def _slot(self, item: str) -> int:
        slot = self.rows.get(item)
        if slot is None:
            slot = self.rows[item] = len(self._slots["vector"])
            for slots in self._slots.values():
                slots.append(0)
        return slot

    def add(
        self,
        ids: Sequence[str],
        embeddings: Any,
        documents: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        """Items upserted: new rows (an id stored before now reads its new row)."""
        page = np.asarray(embeddings, dtype=np.float32).reshape(len(ids), -1)
        if self.dimension is None:
            self.dimension = page.shape[1]
        elif page.shape[1] != self.dimension:
            raise ValueError(f"vectors of {page.shape[1]} dimensions in a {self.dimension} spool")
        self._vectors.write(np.ascontiguousarray(unit_rows(page), dtype=np.float32).tobytes())
        text = append_blobs(self._texts, self._text_ends, [encoded_text(d) for d in documents])
        record = append_blobs(
            self._records, self._record_ends, [encoded_record(m) for m in metadatas]
        )
        for offset, item in enumerate(ids):
            slot = self._slot(item)
            self._slots["vector"][slot] = self._count + offset
            self._slots["text"][slot] = text + offset
            self._slots["record"][slot] = record + offset
        self._count += len(ids)

    def rename(self, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        """Items whose record changed (their text and vector did not)."""
        first = append_blobs(
            self._records, self._record_ends, [encoded_record(m) for m in metadatas]
        )
        for offset, item in enumerate(ids):
            slot = self.rows.get(item)
            if slot is not None:  # Chroma ignores an update of an id it does not hold
                self._slots["record"][slot] = first + offset

    def delete(self, ids: Sequence[str]) -> None:
        for item in ids:
            self.rows.pop(item, None)

    def pages(self) -> Iterator[Page]:
        """Every item, ``PAGE`` at a time: (ids, unit vectors, texts, records). Read with
        ``pread``, not mapped: mapped pages count in the build's resident memory."""
        for handle in (self._vectors, self._texts, self._records):
            handle.flush()
        width = 4 * (self.dimension or 0)
        base = self.base
        with contextlib.ExitStack() as stack:
            own = {
                "vector": stack.enter_context(open(self.folder / "vectors.f32", "rb")),
                "text": (stack.enter_context(open(self.folder / "documents.bin", "rb")),
                         self._text_ends),
                "record": (stack.enter_context(open(self.folder / "metadatas.bin", "rb")),
                           self._record_ends),
            }  # fmt: skip
            old: dict[str, Any] = {}
            if base is not None:
                matrix = base.matrix
                handle = stack.enter_context(open(matrix.filename, "rb"))
                old = {"vector": (handle, int(matrix.offset)), "text": base.documents,
                       "record": base.metadatas}  # fmt: skip

            def vector(row: int) -> bytes:
                if row >= 0:
                    return os.pread(own["vector"].fileno(), width, row * width)
                handle, offset = old["vector"]
                return os.pread(handle.fileno(), width, offset + (-row - 1) * width)

            def blob(part: str, row: int) -> bytes:
                return read_blob(own[part], row) if row >= 0 else read_blob(old[part], -row - 1)

            items = list(self.rows.items())
            slots = self._slots
            for start in range(0, len(items), PAGE):
                part = items[start : start + PAGE]
                raw = b"".join(vector(slots["vector"][slot]) for _, slot in part)
                yield (  # texts and records as the bytes stored: written on as they are
                    [item for item, _ in part],
                    np.frombuffer(raw, dtype=np.float32).reshape(len(part), -1),
                    [blob("text", slots["text"][slot]) for _, slot in part],
                    [blob("record", slots["record"][slot]) for _, slot in part],
                )

    def close(self) -> None:
        """Remove the spool and the old snapshot it was kept over."""
        for handle in (self._vectors, self._texts, self._records):
            with contextlib.suppress(OSError):
                handle.close()
        if self.base is not None:
            self.base.close()
        shutil.rmtree(self.folder, ignore_errors=True)
        if self.base_folder is not None:
            shutil.rmtree(self.base_folder, ignore_errors=True)


def start_spool(folder: Path, version: str | None, count: int) -> Spool | None:
    """A spool for the collection whose snapshot lies (or would lie) at ``folder``, holding
    ``count`` items under build ``version``; None when the spool cannot know the whole
    collection. The old snapshot is moved aside first: from now on readers read Chroma, as
    they did when it was removed."""
    parent, name = folder.parent, folder.name
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob(f".{name}-spool-*"):  # a killed build's (builds are serialised)
        shutil.rmtree(stale, ignore_errors=True)
    for stale in parent.glob(f".{name}-base-*"):
        shutil.rmtree(stale, ignore_errors=True)
    aside = parent / f".{name}-base-{os.getpid()}"
    base = None
    if folder.exists():
        try:
            os.replace(folder, aside)
        except OSError:
            remove_snapshot(folder)
        else:
            base = open_snapshot(aside, version, folder) if version is not None else None
    if (0 if base is None else len(base.ids)) != count:
        if base is not None:
            base.close()
        shutil.rmtree(aside, ignore_errors=True)
        return None
    try:
        return Spool(parent / f".{name}-spool-{os.getpid()}", base, aside if base else None)
    except OSError:
        if base is not None:
            base.close()
        shutil.rmtree(aside, ignore_errors=True)
        return None


class Spooling:
    """The spool side of a store (mixed into ChromaStore): one spool per collection a build
    is writing; None where this build cannot keep one (the commit then reads back)."""

    snapshots: bool
    exact_max_items: int
    _lock: Any
    _snapshots: dict[str, Snapshot]
    _spools: dict[str, Spool | None]

    if TYPE_CHECKING:  # SnapshotReads's

        def _snapshot_folder(self, name: str) -> Path: ...

    def _begin_spool(self, name: str, count: Callable[[], int], version: Any) -> None:
        """Before a build's first change to collection ``name`` (``count``: its items now,
        ``version``: its build): its old snapshot leaves the readers' way and a spool starts."""
        with self._lock:
            if name in self._spools:
                return
            self._snapshots.pop(name, None)
        folder = self._snapshot_folder(name)
        spool = None
        if self.snapshots and self.exact_max_items > 0:
            spool = start_spool(folder, None if version is None else str(version), count())
        elif self.snapshots:
            remove_snapshot(folder)
        with self._lock:
            self._spools[name] = spool

    def _spool(self, name: str, change: str, *args: Any) -> None:
        """Record a change the collection took (``add``, ``rename``, ``delete``); a spool
        that cannot (a full disk) is given up: the commit reads back."""
        spool = self._spools.get(name)
        if spool is None:
            return
        try:
            getattr(spool, change)(*args)
        except (OSError, ValueError):
            self._spool_failed(name)

    def _spool_failed(self, name: str) -> None:
        with self._lock:
            spool = self._spools.get(name)
            self._spools[name] = None
        if spool is not None:
            spool.close()

    def _take_spool(self, name: str) -> Spool | None:
        with self._lock:
            return self._spools.pop(name, None)

    def _discard_spools(self, *names: str) -> None:
        """Forget the spools of ``names`` (every one when none is named)."""
        with self._lock:
            chosen = list(self._spools) if not names else [n for n in names if n in self._spools]
            dropped = [self._spools.pop(n) for n in chosen]
        for spool in dropped:
            if spool is not None:
                spool.close()
