"""The chunks of a bm25 generation, read by row on demand instead of all at load.

A generation's ``documents.jsonl`` holds every chunk's text (hundreds of MB on a large tree);
reading and validating all of it made the first search of every process pay seconds and the
whole file in memory. ``documents.offsets.npy`` (written by the build) holds the byte offset
of each row, so a search reads only the rows it ranks, with one ``pread`` each, and keeps the
most recent ones parsed. Generations built before the offsets file existed load whole.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from arr import codes
from arr.tools.base import ChannelError
from arr.workspace.sources import Document

DOCS_FILE = "documents.jsonl"
DOCS_OFFSETS_FILE = "documents.offsets.npy"  # byte offset of each row in DOCS_FILE
CACHED_ROWS = 8192


class LazyDocuments:
    """A read-only sequence of a generation's chunks; rows are parsed when first asked for."""

    def __init__(self, folder: Path, offsets: Any, cached_rows: int = CACHED_ROWS) -> None:
        self._offsets = offsets  # memory-mapped int64, one more entry than rows
        self._fd = os.open(folder / DOCS_FILE, os.O_RDONLY)
        # the descriptor closes with the partition (a rebuild may delete the folder meanwhile:
        # the open file stays readable until then)
        weakref.finalize(self, os.close, self._fd)
        self._cache: OrderedDict[int, Document] = OrderedDict()
        self._cached_rows = cached_rows
        self._lock = threading.Lock()
        self._rows = len(offsets) - 1

    def __len__(self) -> int:
        return self._rows

    def __iter__(self) -> Iterator[Document]:
        return (self[row] for row in range(self._rows))

    def __getitem__(self, row: int) -> Document:
        if not 0 <= row < self._rows:
            raise IndexError(row)
        with self._lock:
            found = self._cache.get(row)
            if found is not None:
                self._cache.move_to_end(row)
                return found
        start, end = int(self._offsets[row]), int(self._offsets[row + 1])
        try:
            line = os.pread(self._fd, end - start, start)
            found = Document.model_validate_json(line)
        except (OSError, ValidationError, ValueError) as exc:
            raise ChannelError(
                codes.INDEX_CORRUPT, f"bm25 chunk {row} unreadable: {str(exc)[:200]}"
            ) from None
        with self._lock:
            self._cache[row] = found
            while len(self._cache) > self._cached_rows:
                self._cache.popitem(last=False)
        return found


def load_documents(folder: Path) -> LazyDocuments | list[Document]:
    """The generation's chunks: lazily by offset when the build wrote offsets, else whole."""
    import numpy as np

    offsets_path = folder / DOCS_OFFSETS_FILE
    if offsets_path.is_file():
        offsets = np.load(offsets_path, mmap_mode="r")
        if len(offsets) >= 1 and int(offsets[-1]) == os.path.getsize(folder / DOCS_FILE):
            return LazyDocuments(folder, offsets)
        raise ValueError(f"{DOCS_OFFSETS_FILE} does not match {DOCS_FILE}")
    with (folder / DOCS_FILE).open(encoding="utf-8") as handle:
        return [Document.model_validate_json(line) for line in handle]
