"""Streaming rows of a bm25 generation: chunks and tokens written as they are made.

Holding the whole tree (every chunk's text and every token string) until bm25s indexes it
costs memory in proportion to the tree (1.16 GB for 10,000 files). ``RowSink`` writes each
file's chunk rows (``documents.jsonl``) and token rows (``tokens.jsonl``) at once, with their
byte offsets, and keeps only what bm25s needs: token ids (4 bytes each, ``array('I')``) and
one vocabulary. ``OldRows`` reads an unchanged file's rows from the previous generation as raw
bytes, so an incremental build copies them without parsing the chunks.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from arr.tools.bm25.documents import DOCS_FILE, DOCS_OFFSETS_FILE
from arr.workspace.sources import Document

TOKENS_FILE = "tokens.jsonl"  # per-document tokens: the cache of incremental builds
OFFSETS_FILE = "tokens.offsets.npy"  # byte offset of each row in TOKENS_FILE (random access)
# bm25s pads an empty document to one token; the same placeholder keeps scores identical.
EMPTY_TOKEN = "\u2400empty"


class OldRows:
    """Random access to a previous generation's chunk and token rows, by row range."""

    def __init__(self, folder: Path) -> None:
        self.doc_offsets = np.load(folder / DOCS_OFFSETS_FILE, mmap_mode="r")
        self.token_offsets = np.load(folder / OFFSETS_FILE, mmap_mode="r")
        if len(self.doc_offsets) != len(self.token_offsets):
            raise ValueError("chunk and token rows differ in number")
        self._docs = (folder / DOCS_FILE).open("rb")
        self._tokens = (folder / TOKENS_FILE).open("rb")

    @classmethod
    def open(cls, folder: Path) -> OldRows | None:
        """None when the generation has no usable row cache (older or damaged)."""
        try:
            return cls(folder)
        except (OSError, ValueError):
            return None

    def block(self, first: int, count: int) -> tuple[bytes, Any, bytes, Any]:
        """(chunk rows, their offsets, token rows, their offsets) of rows first..first+count."""
        docs = self.doc_offsets[first : first + count + 1]
        tokens = self.token_offsets[first : first + count + 1]
        if len(docs) != count + 1 or len(tokens) != count + 1:
            raise ValueError("row range outside the previous generation")
        return _read(self._docs, docs), docs, _read(self._tokens, tokens), tokens

    def close(self) -> None:
        self._docs.close()
        self._tokens.close()


def _read(handle: BinaryIO, offsets: Any) -> bytes:
    handle.seek(int(offsets[0]))
    return handle.read(int(offsets[-1]) - int(offsets[0]))


class RowSink:
    """Writes a generation's rows as they come; collects token ids, vocabulary, file entries."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._docs = (folder / DOCS_FILE).open("wb")
        self._tokens = (folder / TOKENS_FILE).open("wb")
        self._doc_offsets = array("q", [0])
        self._token_offsets = array("q", [0])
        self.vocab: dict[str, int] = {}
        self.ids: list[array[int]] = []
        self.entries: dict[str, list[Any]] = {}  # label -> [[size, mtime_ns], first, count]
        self.rows = 0
        self.length_sum = 0

    def _count(self, tokens: list[str]) -> None:
        vocab = self.vocab
        ids = array("I", [vocab.setdefault(t, len(vocab)) for t in tokens or [EMPTY_TOKEN]])
        self.ids.append(ids)
        self.length_sum += len(ids)

    def add(
        self,
        label: str,
        state: list[Any],
        docs: Iterable[Document],
        tokenize: Callable[[str], list[str]],
    ) -> None:
        first = self.rows
        for doc in docs:
            tokens = tokenize(doc.text)
            self._docs.write(doc.model_dump_json().encode("utf-8") + b"\n")
            self._doc_offsets.append(self._docs.tell())
            self._tokens.write(json.dumps(tokens, ensure_ascii=False).encode("utf-8") + b"\n")
            self._token_offsets.append(self._tokens.tell())
            self._count(tokens)
            self.rows += 1
        self.entries[label] = [state, first, self.rows - first]

    def copy(self, label: str, state: list[Any], old: OldRows, entry: list[Any]) -> None:
        """An unchanged file's rows, copied from the previous generation as bytes."""
        _, first, count = entry
        docs, doc_offsets, tokens, token_offsets = old.block(first, count)
        self._append(self._docs, self._doc_offsets, docs, doc_offsets)
        self._append(self._tokens, self._token_offsets, tokens, token_offsets)
        for line in tokens.splitlines():
            self._count(json.loads(line))
        self.entries[label] = [state, self.rows, count]
        self.rows += count

    @staticmethod
    def _append(handle: BinaryIO, offsets: array[int], data: bytes, old: Any) -> None:
        shift = handle.tell() - int(old[0])
        handle.write(data)
        offsets.extend(int(end) + shift for end in old[1:])

    def close(self) -> None:
        """Closes the row files and writes their offsets."""
        self._docs.close()
        self._tokens.close()
        np.save(self.folder / DOCS_OFFSETS_FILE, np.frombuffer(self._doc_offsets, dtype=np.int64))
        np.save(self.folder / OFFSETS_FILE, np.frombuffer(self._token_offsets, dtype=np.int64))
