"""Writing a BM25 generation: incremental over the previous one, streamed, swapped in whole.

Files whose recorded state still holds (size and mtime, and the content where only the inode's
change time moved: arr.workspace.freshness) keep their chunks and tokens (copied from
the generation's cache), so only changed and added files are read and tokenised; bm25s then
indexes the token ids (no incremental add/delete exists in bm25s, but indexing pre-tokenised
text is fast). Each file's chunks and tokens are written as they are made, and only the token
ids bm25s needs stay in memory (4 bytes a token, one vocabulary), so a tree is never held
whole.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from arr.models import ScopeKey
from arr.tools.bm25.cache import FILES_FILE
from arr.tools.bm25.rows import OFFSETS_FILE, TOKENS_FILE, OldRows, RowSink
from arr.tools.bm25.tokenize import import_bm25s
from arr.tools.bm25.vocab import write_vocabulary
from arr.tools.partition import build_generation, read_manifest
from arr.version import __version__
from arr.workspace.freshness import kept_state, new_state
from arr.workspace.sources import Document, SkipLog, carry_skips, state_digest
from arr.workspace.workspace import Workspace


def build_partition(
    workspace: Workspace,
    index_dir: Path,
    scope: ScopeKey,
    tokenize: Callable[[str], list[str]],
    scoring: dict[str, Any],
    generation: Path | None,
    previous: dict[str, list[Any]],
    max_changed_files: int | None = None,
    show_progress: bool = False,
) -> dict[str, Any]:
    """Build the scope's next generation from ``previous`` (the live generation's file
    entries, {} to re-read everything); returns its manifest, or {} when more than
    ``max_changed_files`` files would be re-read (a declined refresh). ``scoring``: ``k1``,
    ``b``, ``stemmer`` and ``tokenizer`` as the manifest records them."""
    bm25s = import_bm25s()
    skipped = SkipLog()
    files = workspace.source_files(scope, skipped)
    corpus = workspace.corpus_state(scope)
    fingerprint, newest_ns = state_digest(workspace.chunk_lines, files, corpus)
    kept = {f.label: kept_state(previous.get(f.label, [None])[0], f) for f in files}
    changed = [f for f in files if kept[f.label] is None]
    corpus_changed = corpus is not None and previous.get(corpus[0], [None])[0] != [
        corpus[1],
        corpus[2],
    ]
    if max_changed_files is not None and len(changed) + corpus_changed * 1000 > max_changed_files:
        return {}
    unchanged = len(files) + (corpus is not None) - len(changed) - corpus_changed
    old = OldRows.open(generation) if generation and unchanged else None
    if old is None:  # nothing reusable (or a cache without offsets): every file is re-read
        changed, corpus_changed = list(files), corpus is not None
    manifest: dict[str, Any] = {
        "scope": scope.model_dump(),
        "source_fingerprint": fingerprint,
        "source_newest_mtime_ns": newest_ns,
        "built_at": time.time(),
        "built_at_iso": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "arr_version": __version__,
        "files": len(files),
        "files_reread": len(changed) + int(corpus_changed),
        **scoring,
    }
    reread = {f.label for f in changed}

    def write(folder: Path) -> None:
        sink = RowSink(folder)

        def put(
            label: str, state: list[Any], reuse: bool, docs: Callable[[], Iterable[Document]]
        ) -> None:
            if reuse and old is not None:
                try:
                    sink.copy(label, state, old, previous[label])
                    return
                except ValueError:
                    pass  # a damaged row range: this source is read again
            sink.add(label, state, docs(), tokenize)

        try:
            for source in files:
                state = kept[source.label] if source.label not in reread else None
                put(
                    source.label,
                    new_state(source) if state is None else state,
                    state is not None,
                    partial(workspace.file_documents, source, skipped=skipped),
                )
            if corpus is not None:
                put(
                    corpus[0],
                    [corpus[1], corpus[2]],
                    not corpus_changed,
                    partial(workspace.corpus_documents, scope),
                )
        finally:
            sink.close()
            if old is not None:
                old.close()
        carry_skips(skipped, earlier_skips(generation), {f.label for f in files} - reread)
        manifest["skipped"] = dict(sorted(skipped.items()))
        manifest["skipped_files"] = [list(record) for record in skipped.files]
        manifest["documents"] = sink.rows
        # what overlay scoring needs to score like bm25s (which pads empty docs to 1 token)
        manifest["avg_doc_len"] = sink.length_sum / sink.rows if sink.rows else 0.0
        if sink.rows:
            retriever = bm25s.BM25(k1=scoring["k1"], b=scoring["b"])
            retriever.index((sink.ids, sink.vocab), show_progress=show_progress)
            retriever.save(str(folder))
            write_vocabulary(folder, retriever.vocab_dict)
        (folder / FILES_FILE).write_text(json.dumps(sink.entries), encoding="utf-8")

    build_generation(index_dir, scope, manifest, write)
    return manifest


def earlier_skips(generation: Path | None) -> list[list[str]]:
    """The files the live generation skipped, with their reasons (none when unreadable)."""
    if generation is None:
        return []
    try:
        found = read_manifest(generation).get("skipped_files") or []
    except (OSError, ValueError):
        return []
    return [r for r in found if isinstance(r, list) and len(r) == 3]


def row_tokens(generation: Path, rows: list[int]) -> list[list[str]] | None:
    """The cached tokens of some generation rows, read by offset (None: no cache)."""
    try:
        offsets = np.load(generation / OFFSETS_FILE, mmap_mode="r")
        found = []
        with (generation / TOKENS_FILE).open("rb") as handle:
            for row in rows:
                handle.seek(int(offsets[row]))
                found.append(json.loads(handle.readline()))
        return found
    except (OSError, ValueError, IndexError):
        return None
