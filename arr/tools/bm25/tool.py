"""``BM25Tool``: the BM25 channel on bm25s, one persistent index per scope partition,
memory-mapped on load (config ``conf/tools/bm25.yaml``).

Isolation holds by construction: a query only ever touches the partition of its own ScopeKey.
Each partition's manifest records the source fingerprint, build time and arr version, which
``freshness`` compares with the workspace as it is now. A small change since the build is
served through an overlay of the changed files (:mod:`arr.tools.bm25.overlay`) until the next
build. Scores <= 0 are dropped: bm25s pads with zero-score rows.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from arr import codes
from arr.deadline import OutOfTime, out_of_time, time_left
from arr.models import EvidenceChunk, Freshness, ScopeKey, ToolCall, trusted
from arr.query.snippets import centred
from arr.tools.base import ChannelError, source_freshness
from arr.tools.bm25 import overlay
from arr.tools.bm25.build import build_partition, row_tokens
from arr.tools.bm25.cache import GenerationCache
from arr.tools.bm25.loaded import LoadedPartition, best_rows, load_partition
from arr.tools.bm25.tokenize import english_stopwords, make_tokenizer, tokenizer_id
from arr.tools.partition import (
    LOCK,
    current_generation,
    exclusive_lock,
    partition_dir,
    remove_partition,
)
from arr.workspace.freshness import kept_state, new_state
from arr.workspace.sources import READERS_VERSION, Document, SourceFile, state_digest
from arr.workspace.workspace import Workspace


class BM25Tool:
    read_only = True
    traits = frozenset({"lexical"})  # arr.fusion.traits
    provider = "local"
    semantic = False  # a lexical index: built first, and by arr index --lexical
    summary = (
        "bm25: lexical ranking over the project's notes, code, configs and logs; good for "
        "exact terms, symbols, config keys and error messages"
    )

    def __init__(
        self,
        name: str,
        workspace: Workspace,
        top_k: int = 20,
        snippet_chars: int = 400,
        freshness_tolerance_s: float = 0.0,
        k1: float = 1.5,
        b: float = 0.75,
        stemmer_language: str | None = "english",
        split_identifiers: bool = True,
        show_progress: bool = False,
        overlay_max_files: int = 64,
    ) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        if freshness_tolerance_s < 0:
            raise ValueError(f"freshness_tolerance_s must be >= 0, got {freshness_tolerance_s}")
        self.name = name
        self.workspace = workspace
        self.index_dir = workspace.index_dir / name
        self.top_k = top_k
        self.snippet_chars = snippet_chars
        self.freshness_tolerance_s = freshness_tolerance_s
        self.k1, self.b = k1, b
        self.stemmer_language = stemmer_language
        self.split_identifiers = split_identifiers
        self.show_progress = show_progress
        self._tokenize: Callable[[str], list[str]] | None = None
        self._loaded: dict[str, LoadedPartition] = {}
        self._cache = GenerationCache(self.index_dir, workspace)
        self.overlay_max_files = overlay_max_files
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        if self._tokenize is None:
            self._tokenize = make_tokenizer(
                self.stemmer_language, english_stopwords(), self.split_identifiers
            )

    # ---- building -------------------------------------------------------------------------
    def build(
        self, scope: ScopeKey, max_changed_files: int | None = None, reuse: bool = True
    ) -> dict[str, Any]:
        """Bring the partition of one scope up to date; returns its manifest.

        Incremental: files whose size and mtime match the live generation keep their chunks
        and tokens (read from the generation's cache), so only changed and added files are
        read and tokenised; bm25s then indexes the cached tokens (no incremental add/delete
        exists in bm25s, but indexing pre-tokenised text is fast). With ``max_changed_files``
        a refresh that would re-read more files than that is not done (returns {}).
        """
        self.warm_up()
        assert self._tokenize is not None
        # Decide from the small file list first: a refresh that will be declined must not
        # pay for reading the whole token cache (a stale collection is one big file).
        generation = current_generation(self.index_dir, scope)
        previous: dict[str, list[Any]] = {}
        try:
            if (
                reuse
                and generation is not None
                and self._cache.manifest(generation).get("tokenizer") == self._tokenizer_id()
                # rows a reader of another version made (a notebook read as raw JSON before
                # the readers) are read again, not copied
                and self._cache.manifest(generation).get("readers") == READERS_VERSION
            ):
                previous = self._cache.file_entries(generation) or {}
        except (OSError, ValueError):
            pass  # an unreadable generation: everything is re-read
        scoring = {
            "k1": self.k1,
            "b": self.b,
            "stemmer": self.stemmer_language,
            "tokenizer": self._tokenizer_id(),
            "readers": READERS_VERSION,
        }
        manifest = build_partition(
            self.workspace,
            self.index_dir,
            scope,
            self._tokenize,
            scoring,
            generation,
            previous,
            max_changed_files,
            self.show_progress,
        )
        if not manifest:
            return manifest
        overlay.remove(partition_dir(self.index_dir, scope))  # folded into the new generation
        with self._lock:
            self._loaded.pop(scope.fingerprint(), None)
        self._cache.forget(scope)
        return manifest

    def rebuild(self, scope: ScopeKey) -> dict[str, Any]:
        """Every file read and tokenised anew into a new generation, swapped in only when
        complete (``arr index rebuild=true``): a failed rebuild leaves the live one."""
        return self.build(scope, reuse=False)

    def reset(self, scope: ScopeKey) -> None:
        """Remove the scope's partition (derived) so the next build starts from nothing."""
        remove_partition(self.index_dir, scope)
        with self._lock:
            self._loaded.pop(scope.fingerprint(), None)
        self._cache.forget(scope, pointer=True)

    def refresh(self, scope: ScopeKey, max_changed_files: int) -> bool:
        """Bring a stale partition up to date before a search, when at most
        ``max_changed_files`` files changed: an overlay of the changed files (milliseconds)
        while the change is small, else an incremental rebuild from the token cache."""
        self.warm_up()
        assert self._tokenize is not None
        generation = current_generation(self.index_dir, scope)
        if generation is None:
            return False  # never indexed: that is `arr index`'s job, not a search's
        manifest = self._cache.manifest(generation)
        entries = self._cache.file_entries(generation)
        if (
            entries is None
            or "avg_doc_len" not in manifest
            or manifest.get("tokenizer") != self._tokenizer_id()
            or self.workspace.corpus_state(scope) is not None  # a collection is one big file
        ):
            return bool(self.build(scope, max_changed_files=max_changed_files))
        skipped: Counter[str] = Counter()
        files = self._cache.walk(scope, reuse_s=2.0)  # the walk freshness() just made, if recent
        fingerprint, _ = state_digest(self.workspace.chunk_lines, files, None)
        present = {f.label for f in files}
        changed = [f for f in files if kept_state(entries.get(f.label, [None])[0], f) is None]
        deleted = sorted(label for label in entries if label not in present)
        if len(changed) + len(deleted) > max_changed_files:
            return False
        if len(changed) + len(deleted) > self.overlay_max_files:
            if time_left() is not None:  # a rebuild is no search's to wait for
                raise OutOfTime(f"{len(changed) + len(deleted)} files changed")
            return bool(self.build(scope, max_changed_files=max_changed_files))
        removed = {
            row
            for label in [*(f.label for f in changed), *deleted]
            if label in entries
            for row in range(entries[label][1], entries[label][1] + entries[label][2])
        }
        states = {f.label: new_state(f) for f in changed}  # hashed before the reads
        documents, tokens = self._read_changed(changed, skipped)
        removed_tokens = row_tokens(generation, sorted(removed))
        if removed_tokens is None:
            return bool(self.build(scope, max_changed_files=max_changed_files))
        layer = overlay.Overlay(
            generation=generation.name,
            source_fingerprint=fingerprint,
            removed_rows=frozenset(removed),
            documents=documents,
            tokens=tokens,
            files=states,
            deleted=deleted,
            removed_df=dict(Counter(t for toks in removed_tokens for t in set(toks))),
            removed_length=sum(max(1, len(toks)) for toks in removed_tokens),
        )
        with exclusive_lock(partition_dir(self.index_dir, scope) / LOCK):
            if current_generation(self.index_dir, scope) != generation:
                return True  # a build swapped in meanwhile; freshness decides again
            overlay.write(partition_dir(self.index_dir, scope), layer)
        return True

    def _read_changed(
        self, changed: list[SourceFile], skipped: Counter[str]
    ) -> tuple[list[Document], list[list[str]]]:
        """The changed files' chunks and their tokens, checking the search's deadline between
        files and between chunks (a 1.4 MB file of distinct words tokenizes in 0.5 s): past it,
        the refresh is dropped whole (OutOfTime) and nothing is written."""
        documents: list[Document] = []
        tokens: list[list[str]] = []
        assert self._tokenize is not None
        for number, source in enumerate(changed):
            for document in self.workspace.file_documents(source, skipped=skipped):
                if out_of_time():
                    raise OutOfTime(f"{number} of {len(changed)} changed files read")
                documents.append(document)
                tokens.append(self._tokenize(document.text))
        return documents, tokens

    # ---- serving --------------------------------------------------------------------------
    def _tokenizer_id(self) -> str:
        return tokenizer_id(self.stemmer_language, self.split_identifiers, self.k1, self.b)

    def freshness(self, scope: ScopeKey) -> Freshness:
        generation = self._cache.generation(scope)
        if generation is None:
            return Freshness(
                fresh=False,
                code=codes.INDEX_MISSING,
                detail=f"no {self.name} index for scope {scope.label()}; run arr index",
            )
        try:
            manifest = self._cache.manifest(generation)
            files = self._cache.walk(scope)
            fingerprint, newest_ns = state_digest(
                self.workspace.chunk_lines, files, self.workspace.corpus_state(scope)
            )
        except (OSError, ValueError) as exc:
            return Freshness(fresh=False, code=codes.INDEX_STALE, detail=f"unreadable: {exc}")
        configured = self._tokenizer_id()
        if manifest.get("tokenizer", configured) != configured:
            return Freshness(
                fresh=False,
                code=codes.INDEX_STALE,
                detail=f"index built with tokenizer {manifest.get('tokenizer')}; "
                f"configured {configured}",
            )
        if manifest.get("source_fingerprint") != fingerprint:
            layer = self._cache.overlay(scope, generation)
            if layer is not None and layer.source_fingerprint == fingerprint:
                return Freshness(fresh=True, code=codes.FRESH_WITH_OVERLAY, detail="")
        return source_freshness(
            manifest, fingerprint, newest_ns, self.freshness_tolerance_s, self.name
        )

    def _load(self, scope: ScopeKey) -> LoadedPartition:
        generation = self._cache.generation(scope)
        if generation is None:
            raise ChannelError(codes.INDEX_MISSING, f"no {self.name} index for {scope.label()}")
        key = scope.fingerprint()
        with self._lock:
            cached = self._loaded.get(key)
        # Identity, not equality: the cache hands out the same Path until the pointer moves.
        if cached is not None and cached.generation is generation:
            return cached
        try:
            owner = ScopeKey.model_validate(self._cache.manifest(generation)["scope"])
        except (OSError, ValueError, KeyError) as exc:
            raise ChannelError(
                codes.INDEX_CORRUPT, f"{self.name} index unreadable: {exc}"
            ) from None
        partition = load_partition(self.name, generation, owner)
        with self._lock:
            self._loaded[key] = partition
        return partition

    def skip_counters(self, scope: ScopeKey) -> dict[str, int]:
        """What the index build that just answered skipped, by reason (for the trace): read
        from the loaded partition's manifest, no further look at the disk."""
        with self._lock:
            partition = self._loaded.get(scope.fingerprint())
        if partition is None:
            return {}
        if partition.skipped is None:  # a generation never changes: its counters neither
            try:
                skipped = self._cache.manifest(partition.generation).get("skipped") or {}
            except (OSError, ValueError):
                return {}
            partition.skipped = {f"skipped_{reason}": int(n) for reason, n in skipped.items() if n}
        return dict(partition.skipped)

    def loaded(self, scope: ScopeKey) -> LoadedPartition:
        """The loaded partition of a scope (benchmarks compare against its raw index)."""
        return self._load(scope)

    def tokenize(self, text: str) -> list[str]:
        self.warm_up()
        assert self._tokenize is not None
        return self._tokenize(text)

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> list[EvidenceChunk]:
        self.warm_up()
        assert self._tokenize is not None
        partition = self._load(scope)
        retriever, documents = partition.retriever, partition.documents
        layer = self._cache.overlay(scope, partition.generation)
        # Repeated query terms count as often as they occur, as bm25s scores them by default
        # (deduplicating threw away term frequency in long queries).
        query = self._tokenize(call.query)
        k = call.top_k or self.top_k
        # (document, row in the generation or None, score)
        ranked: list[tuple[Document, int | None, float]] = []
        if retriever is not None:
            # token ids of the query's known tokens, in order, repeats kept (one look-up each)
            token_ids = [i for i in map(retriever.vocab_dict.get, query) if i is not None]
            hidden = layer.removed_rows if layer is not None else frozenset()
            depth = min(k + len(hidden), len(documents))
            if token_ids and depth:
                # bm25s' own scoring (get_scores_from_ids) and a partial sort, without its
                # retrieve() wrapper (argument checks, progress plumbing, per-call copies):
                # the same top rows and scores, a third less time per query.
                scores = partition.scores(token_ids)
                top = best_rows(scores, depth)
                values = scores[top]
                ranked = [
                    (documents[r], r, s)
                    for r, s in zip(top.tolist(), values.tolist(), strict=True)
                    if r not in hidden
                ]
        if layer is not None and query:
            manifest = self._cache.manifest(partition.generation)
            frequencies = (
                overlay.document_frequencies(retriever, query) if retriever is not None else {}
            )
            ranked += [
                (layer.documents[row], None, s)
                for row, s in overlay.score(
                    layer,
                    query,
                    frequencies,
                    int(manifest.get("documents", 0)),
                    float(manifest.get("avg_doc_len", 0.0)),
                    self.k1,
                    self.b,
                )
            ]
        ranked.sort(key=lambda item: (-item[2], item[0].id))
        return self._items(ranked[:k], partition, scope, call.query)

    def _items(
        self,
        ranked: list[tuple[Document, int | None, float]],
        partition: LoadedPartition,
        scope: ScopeKey,
        query: str,
    ) -> list[EvidenceChunk]:
        # The partition's owner, as the request's own object when the two are equal (checked
        # here, byte-exactly): the Router's scope checks then succeed at the identity test.
        owner = scope if partition.owner == scope else partition.owner
        # Trusted internal data (the index's own rows, its validated owner scope): built
        # without re-validation; the Router still checks every candidate's scope.
        return [
            trusted(
                EvidenceChunk,
                {
                    "id": doc.id,
                    "scope": owner,
                    "channel": self.name,
                    "location": partition.location(row) if row is not None else doc.location(),
                    "snippet": centred(doc.text, query, self.snippet_chars),
                    "score": float(score),
                    "ranks": {self.name: rank},
                    "rerank_score": None,
                },
                {"text": doc.text},  # the reranker reads the whole chunk, not the snippet
            )
            for rank, (doc, row, score) in enumerate(ranked, 1)
        ]
