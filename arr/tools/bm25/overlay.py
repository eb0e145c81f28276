"""A small, persistent overlay over a bm25 generation: what changed since it was built.

Rebuilding a partition of a large tree costs seconds to minutes (bm25s has no incremental add or
delete), so a search never waits for one. Instead, when few files changed, the Router's refresh
writes an overlay next to the live generation: the rows of changed and deleted files (hidden
from the generation's results) and the chunks of changed and added files with their tokens.
Overlay chunks are scored with the generation's own statistics (Lucene BM25 as bm25s computes
it: the same k1, b, average length and document frequencies, plus the overlay's own counts for
terms the generation has never seen), so their scores compare with the generation's. The
overlay records the source fingerprint it brings the index to; ``freshness`` accepts either.
It is folded into a new generation by the next ``arr index`` (or when it outgrows its limit).

File: ``<partition>/overlay.json`` (written atomically), valid only for the generation it
names; a stale or damaged overlay is ignored (the index then reads as stale, never wrong).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.workspace.sources import Document

OVERLAY_FILE = "overlay.json"


@dataclass
class Overlay:
    generation: str
    source_fingerprint: str
    removed_rows: frozenset[int]
    documents: list[Document]
    tokens: list[list[str]]
    files: dict[str, list[Any]] = field(default_factory=dict)  # label -> recorded state
    deleted: list[str] = field(default_factory=list)
    # document frequency and total length of the generation rows the overlay hides
    removed_df: dict[str, int] = field(default_factory=dict)
    removed_length: int = 0
    _counts: list[Counter[str]] | None = None

    def counts(self) -> list[Counter[str]]:
        if self._counts is None:
            self._counts = [Counter(t) for t in self.tokens]
        return self._counts


def path_for(partition: Path) -> Path:
    return partition / OVERLAY_FILE


def write(partition: Path, overlay: Overlay) -> None:
    payload = {
        "generation": overlay.generation,
        "source_fingerprint": overlay.source_fingerprint,
        "removed_rows": sorted(overlay.removed_rows),
        "documents": [d.model_dump() for d in overlay.documents],
        "tokens": overlay.tokens,
        "files": overlay.files,
        "deleted": overlay.deleted,
        "removed_df": overlay.removed_df,
        "removed_length": overlay.removed_length,
    }
    target = path_for(partition)
    atomic_write.write_text(target, json.dumps(payload))


def read(partition: Path, generation: str) -> Overlay | None:
    try:
        payload = json.loads(path_for(partition).read_text(encoding="utf-8"))
        if payload.get("generation") != generation:
            return None
        return Overlay(
            generation=generation,
            source_fingerprint=str(payload["source_fingerprint"]),
            removed_rows=frozenset(int(r) for r in payload["removed_rows"]),
            documents=[Document.model_construct(**d) for d in payload["documents"]],
            tokens=[list(t) for t in payload["tokens"]],
            files={str(k): list(v) for k, v in payload.get("files", {}).items()},
            deleted=[str(d) for d in payload.get("deleted", [])],
            removed_df={str(k): int(v) for k, v in payload["removed_df"].items()},
            removed_length=int(payload["removed_length"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remove(partition: Path) -> None:
    path_for(partition).unlink(missing_ok=True)


def score(
    overlay: Overlay,
    query_tokens: list[str],
    document_frequency: dict[str, int],
    num_docs: int,
    avg_doc_len: float,
    k1: float,
    b: float,
) -> list[tuple[int, float]]:
    """(overlay row, score) for overlay chunks matching any query token: Lucene BM25 (as
    bm25s computes it) over the corpus as it now is: the generation's counts less the hidden
    rows plus the overlay's (``document_frequency``: each query token in the generation)."""
    counts = overlay.counts()
    hidden = len(overlay.removed_rows)
    total = max(1, num_docs - hidden + len(counts))
    length_sum = avg_doc_len * num_docs - overlay.removed_length
    length_sum += sum(max(1, len(t)) for t in overlay.tokens)
    average = length_sum / total if length_sum > 0 else 1.0
    idf: dict[str, float] = {}
    for token in dict.fromkeys(query_tokens):
        df = document_frequency.get(token, 0) - overlay.removed_df.get(token, 0)
        df = max(0, df) + sum(1 for c in counts if token in c)
        idf[token] = math.log(1 + (total - df + 0.5) / (df + 0.5))
    scored = []
    for row, (tokens, count) in enumerate(zip(overlay.tokens, counts, strict=True)):
        length = max(1, len(tokens))
        value = 0.0
        for token in query_tokens:
            tf = count.get(token, 0)
            if tf:
                value += idf[token] * tf / (k1 * ((1 - b) + b * length / average) + tf)
        if value > 0:
            scored.append((row, value))
    return scored


def document_frequencies(retriever: Any, tokens: list[str]) -> dict[str, int]:
    """How many generation documents hold each token (from bm25s' CSC score matrix)."""
    vocab = retriever.vocab_dict
    indptr = retriever.scores["indptr"]
    found = {}
    for token in tokens:
        tid = vocab.get(token)
        if tid is not None and tid + 1 < len(indptr):
            found[token] = int(indptr[tid + 1] - indptr[tid])
    return found
