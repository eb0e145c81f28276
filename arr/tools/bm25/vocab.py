"""The bm25 vocabulary as sorted, memory-mapped keys: a dict-like look-up with no parse at load.

bm25s saves its vocabulary as one JSON object and parses it whole on load: 16 MB and 1.4
million tokens on a 22,000-file tree, 0.8 s before the first search could score anything. A
search looks up a handful of query tokens, so the build also writes the tokens sorted
(``vocab.keys.bin``, UTF-8, no separators) with their byte offsets and ids; a look-up is a
bisection of every 64th key (kept in memory), then of one block of 64 keys read from the map;
look-ups are remembered, and loading reads the sample only.
"""

from __future__ import annotations

import bisect
import mmap
from pathlib import Path
from typing import Any

import numpy as np

MAX_REMEMBERED = 65_536
STRIDE = 64

KEYS_FILE = "vocab.keys.bin"
OFFSETS_FILE = "vocab.offsets.npy"
IDS_FILE = "vocab.ids.npy"


def write_vocabulary(folder: Path, vocab: dict[str, int]) -> None:
    keys = sorted(vocab, key=lambda token: token.encode("utf-8"))
    encoded = [token.encode("utf-8") for token in keys]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    (folder / KEYS_FILE).write_bytes(b"".join(encoded))
    np.save(folder / OFFSETS_FILE, offsets)
    np.save(folder / IDS_FILE, np.array([vocab[k] for k in keys], dtype=np.int64))


class SortedVocabulary:
    """Read-only ``token -> id`` mapping over the files ``write_vocabulary`` made."""

    def __init__(self, folder: Path) -> None:
        # Plain ndarray views and an mmap of the keys: indexing an np.memmap builds an object
        # per access (300 us a look-up); these make a probe about half a microsecond.
        self._offsets = np.asarray(np.load(folder / OFFSETS_FILE, mmap_mode="r"))
        self._ids = np.asarray(np.load(folder / IDS_FILE, mmap_mode="r"))
        size = int(self._offsets[-1]) if len(self._offsets) else 0
        self._keys: Any = b""
        if size:
            with open(folder / KEYS_FILE, "rb") as handle:
                self._keys = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        if len(self._ids) != len(self._offsets) - 1 or len(self._keys) != size:
            raise ValueError("vocabulary files do not agree")
        self._seen: dict[str, int | None] = {}  # query words repeat: remembered, bounded
        # every STRIDE-th key in memory: a look-up bisects these, then one block of the keys
        self._sample = [self._key(row) for row in range(0, len(self._ids), STRIDE)]

    @staticmethod
    def present(folder: Path) -> bool:
        return all((folder / name).is_file() for name in (KEYS_FILE, OFFSETS_FILE, IDS_FILE))

    def _key(self, row: int) -> bytes:
        offsets = self._offsets
        return bytes(self._keys[int(offsets[row]) : int(offsets[row + 1])])

    def get(self, token: str, default: int | None = None) -> int | None:
        if token in self._seen:
            found = self._seen[token]
            return default if found is None else found
        wanted = token.encode("utf-8")
        found = None
        block = bisect.bisect_right(self._sample, wanted) - 1
        if block >= 0:
            first = block * STRIDE
            last = min(first + STRIDE, len(self._ids))
            edges = self._offsets[first : last + 1].tolist()
            data = self._keys[edges[0] : edges[-1]]
            base = edges[0]
            keys = [data[a - base : b - base] for a, b in zip(edges, edges[1:], strict=False)]
            row = bisect.bisect_left(keys, wanted)
            if row < len(keys) and keys[row] == wanted:
                found = int(self._ids[first + row])
        if len(self._seen) >= MAX_REMEMBERED:
            self._seen.clear()
        self._seen[token] = found
        return default if found is None else found

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and self.get(token) is not None

    def __getitem__(self, token: str) -> int:
        found = self.get(token)
        if found is None:
            raise KeyError(token)
        return found

    def __len__(self) -> int:
        return len(self._ids)
