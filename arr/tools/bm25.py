"""BM25 channel on bm25s: one persistent index per scope partition, memory-mapped on load.

Config: ``conf/tools/bm25.yaml``. Isolation holds by construction: a query only ever touches the
partition of its own ScopeKey. Each partition's manifest records the source fingerprint, build
time and arr version, which ``freshness`` compares with the workspace as it is now.

Tokenisation splits identifiers as well as keeping them whole (``learning_rate`` yields
``learning_rate``, ``learning`` and ``rate``), so a researcher finds a config key both by its
exact name and by the words in it. Scores <= 0 are dropped: bm25s pads with zero-score rows.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from arr import __version__, codes
from arr.models import EvidenceChunk, Freshness, Location, ScopeKey, ToolCall, trusted
from arr.snippets import centred
from arr.tools import bm25_overlay as overlay
from arr.tools.base import ChannelError, source_freshness
from arr.tools.bm25_documents import (
    LazyDocuments,
    load_documents,
)
from arr.tools.bm25_rows import OFFSETS_FILE, TOKENS_FILE, OldRows, RowSink
from arr.tools.bm25_vocab import SortedVocabulary, write_vocabulary
from arr.tools.partition import (
    LOCK,
    build_generation,
    current_generation,
    exclusive_lock,
    partition_dir,
    partition_file,
    pointer_state,
    read_manifest,
    remove_partition,
)
from arr.workspace import Document, SourceFile, Workspace, state_digest

_TOKEN = re.compile(r"[A-Za-z0-9_]+|[^\W\d_]+", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
MAX_CACHED_GENERATIONS = 16  # per-generation caches (manifests, file lists) keep the newest
FILES_FILE = "files.json"  # label -> [[size, mtime_ns], first row, chunk count]


def make_tokenizer(
    stemmer_language: str | None = "english",
    stopwords: Iterable[str] = (),
    split_identifiers: bool = True,
) -> Callable[[str], list[str]]:
    """A deterministic tokenizer shared by indexing and querying."""
    stem = None
    if stemmer_language:
        import Stemmer  # PyStemmer; light, but only needed once a tool is used

        stem = Stemmer.Stemmer(stemmer_language).stemWord
    stop = frozenset(stopwords)

    def tokenize(text: str) -> list[str]:
        tokens: list[str] = []
        for match in _TOKEN.findall(text):
            parts = [match]
            if split_identifiers:
                parts += [p for p in re.split(r"_+", match) if p and p != match]
            if split_identifiers and any(c.isupper() for c in match[1:]):
                parts += [p for p in _CAMEL.findall(match) if p != match]
            for part in parts:
                lowered = part.lower()
                if len(lowered) < 2 or lowered in stop:
                    continue
                tokens.append(stem(lowered) if stem else lowered)
        return tokens

    return tokenize


def import_bm25s() -> Any:
    """``import bm25s`` without its optional accelerators. bm25s imports numba and scipy.sparse
    when they are installed, only to offer backends ARR does not use (its numpy backends are
    the defaults): about 0.5 s of every cold start. They are hidden while bm25s imports (so it
    records them as unavailable) and importable again right after, for anyone else."""
    if "bm25s" in sys.modules:
        return sys.modules["bm25s"]
    hidden = [name for name in ("numba", "scipy.sparse") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import bm25s
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return bm25s


def _english_stopwords() -> tuple[str, ...]:
    import_bm25s()
    from bm25s.stopwords import STOPWORDS_EN

    return tuple(STOPWORDS_EN)


class _Partition:
    """One loaded generation: the memory-mapped index, its documents and their scope."""

    def __init__(
        self,
        generation: Path,
        retriever: Any,
        documents: LazyDocuments | list[Document],
        owner: ScopeKey,
    ) -> None:
        self.generation = generation
        self.retriever = retriever
        self.documents = documents
        self.owner = owner
        # what the build skipped, by reason (the trace's counters), read once from the manifest
        self.skipped: dict[str, int] | None = None
        self._locations: dict[int, Location] = {}
        self._matrix: tuple[Any, Any, Any, int, Any] | None = None
        if retriever is not None:
            import numpy as np

            # Plain ndarray views of the memory-mapped score matrix (no copy): slicing an
            # np.memmap builds a memmap object per slice, which was a fifth of a query's time.
            found = retriever.scores
            self._matrix = (
                np.asarray(found["data"]),
                np.asarray(found["indices"]),
                np.asarray(found["indptr"]),
                int(found["num_docs"]),
                np.dtype(retriever.dtype),
            )

    def scores(self, token_ids: list[int]) -> Any:
        """BM25 score of every row for the query's token ids (repeats counted), computed like
        bm25s' ``get_scores_from_ids`` (same precomputed matrix, same float32 accumulation in
        the same order, so the same scores), on ndarray views instead of memmap slices."""
        import numpy as np

        if self._matrix is None or self.retriever.nonoccurrence_array is not None:
            return self.retriever.get_scores_from_ids(token_ids)  # bm25l/bm25+: bm25s itself
        data, indices, indptr, num_docs, dtype = self._matrix
        scores = np.zeros(num_docs, dtype=dtype)
        spans = [(int(indptr[t]), int(indptr[t + 1])) for t in token_ids]
        if spans:
            # one np.add.at over the postings concatenated in token order: the same float32
            # additions in the same order per document as bm25s' loop, in a single call
            np.add.at(
                scores,
                np.concatenate([indices[a:b] for a, b in spans]),
                np.concatenate([data[a:b] for a, b in spans]),
            )
        return scores

    def location(self, row: int) -> Location:
        # Built once per document and reused: a generation never changes after it is written.
        found = self._locations.get(row)
        if found is None:
            doc = self.documents[row]
            found = Location(
                path=doc.path,
                start_line=doc.start_line,
                end_line=doc.end_line,
                document_id=doc.document_id,
            )
            self._locations[row] = found
        return found

    def snippet(self, row: int, chars: int) -> str:
        return self.documents[row].text[:chars]


class BM25Tool:
    read_only = True
    provider = "local"
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
        self._loaded: dict[str, _Partition] = {}
        self._manifests: dict[Path, dict[str, Any]] = {}
        self._pointers: dict[str, tuple[tuple[int, int] | None, Path | None]] = {}
        self._entries: dict[Path, dict[str, list[Any]]] = {}
        self._walks: dict[str, tuple[float, list[SourceFile]]] = {}
        self._overlays: dict[str, tuple[Any, overlay.Overlay | None]] = {}
        self.overlay_max_files = overlay_max_files
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        if self._tokenize is None:
            self._tokenize = make_tokenizer(
                self.stemmer_language, _english_stopwords(), self.split_identifiers
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
        bm25s = import_bm25s()

        self.warm_up()
        assert self._tokenize is not None
        skipped: Counter[str] = Counter()
        files = self.workspace.source_files(scope, skipped)
        beir = self.workspace.beir_state(scope)
        fingerprint, newest_ns = state_digest(self.workspace.chunk_lines, files, beir)
        # Decide from the small file list first: a refresh that will be declined must not
        # pay for reading the whole token cache (a stale collection is one big file).
        generation = current_generation(self.index_dir, scope)
        previous: dict[str, list[Any]] = {}
        try:
            if (
                reuse
                and generation is not None
                and self._manifest(generation).get("tokenizer") == self._tokenizer_id()
            ):
                previous = self._file_entries(generation) or {}
        except (OSError, ValueError):
            pass  # an unreadable generation: everything is re-read
        changed = [f for f in files if previous.get(f.label, [None])[0] != [f.size, f.mtime_ns]]
        beir_changed = beir is not None and previous.get(beir[0], [None])[0] != [beir[1], beir[2]]
        if max_changed_files is not None and len(changed) + beir_changed * 1000 > max_changed_files:
            return {}
        unchanged = len(files) + (beir is not None) - len(changed) - beir_changed
        old = OldRows.open(generation) if generation and unchanged else None
        if old is None:  # nothing reusable (or a cache without offsets): every file is re-read
            changed, beir_changed = list(files), beir is not None
        manifest: dict[str, Any] = {
            "scope": scope.model_dump(),
            "source_fingerprint": fingerprint,
            "source_newest_mtime_ns": newest_ns,
            "built_at": time.time(),
            "built_at_iso": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "arr_version": __version__,
            "files": len(files),
            "files_reread": len(changed) + int(beir_changed),
            "k1": self.k1,
            "b": self.b,
            "stemmer": self.stemmer_language,
            "tokenizer": self._tokenizer_id(),
        }
        reread = {f.label for f in changed}

        def write(folder: Path) -> None:
            """Streams: each file's chunks and tokens are written as they are made, and only
            the token ids bm25s needs stay in memory (4 bytes a token, one vocabulary), so a
            tree is never held whole (peak RSS: see the scale benchmark)."""
            sink = RowSink(folder)

            def put(
                label: str, state: list[int], reuse: bool, docs: Callable[[], Iterable[Document]]
            ) -> None:
                if reuse and old is not None:
                    try:
                        sink.copy(label, state, old, previous[label])
                        return
                    except ValueError:
                        pass  # a damaged row range: this source is read again
                sink.add(label, state, docs(), self._tokenize)

            try:
                for source in files:
                    put(
                        source.label,
                        [source.size, source.mtime_ns],
                        source.label not in reread,
                        partial(self.workspace.file_documents, source, skipped=skipped),
                    )
                if beir is not None:
                    put(
                        beir[0],
                        [beir[1], beir[2]],
                        not beir_changed,
                        partial(self.workspace.beir_documents, scope),
                    )
            finally:
                sink.close()
                if old is not None:
                    old.close()
            manifest["skipped"] = dict(sorted(skipped.items()))
            manifest["documents"] = sink.rows
            # what overlay scoring needs to score like bm25s (which pads empty docs to 1 token)
            manifest["avg_doc_len"] = sink.length_sum / sink.rows if sink.rows else 0.0
            if sink.rows:
                retriever = bm25s.BM25(k1=self.k1, b=self.b)
                retriever.index((sink.ids, sink.vocab), show_progress=self.show_progress)
                retriever.save(str(folder))
                write_vocabulary(folder, retriever.vocab_dict)
            (folder / FILES_FILE).write_text(json.dumps(sink.entries), encoding="utf-8")

        build_generation(self.index_dir, scope, manifest, write)
        overlay.remove(partition_dir(self.index_dir, scope))  # folded into the new generation
        with self._lock:
            self._loaded.pop(scope.fingerprint(), None)
            self._overlays.pop(scope.fingerprint(), None)
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
            self._pointers.pop(scope.fingerprint(), None)

    def refresh(self, scope: ScopeKey, max_changed_files: int) -> bool:
        """Bring a stale partition up to date before a search, when at most
        ``max_changed_files`` files changed: an overlay of the changed files (milliseconds)
        while the change is small, else an incremental rebuild from the token cache."""
        self.warm_up()
        assert self._tokenize is not None
        generation = current_generation(self.index_dir, scope)
        if generation is None:
            return False  # never indexed: that is `arr index`'s job, not a search's
        manifest = self._manifest(generation)
        entries = self._file_entries(generation)
        if (
            entries is None
            or "avg_doc_len" not in manifest
            or manifest.get("tokenizer") != self._tokenizer_id()
            or self.workspace.beir_state(scope) is not None  # a collection is one big file
        ):
            return bool(self.build(scope, max_changed_files=max_changed_files))
        skipped: Counter[str] = Counter()
        files = self._walk(scope, reuse_s=2.0)  # the walk freshness() just made, if recent
        fingerprint, _ = state_digest(self.workspace.chunk_lines, files, None)
        present = {f.label for f in files}
        changed = [f for f in files if entries.get(f.label, [None])[0] != [f.size, f.mtime_ns]]
        deleted = sorted(label for label in entries if label not in present)
        if len(changed) + len(deleted) > max_changed_files:
            return False
        if len(changed) + len(deleted) > self.overlay_max_files:
            return bool(self.build(scope, max_changed_files=max_changed_files))
        removed = {
            row
            for label in [*(f.label for f in changed), *deleted]
            if label in entries
            for row in range(entries[label][1], entries[label][1] + entries[label][2])
        }
        documents = [
            d for source in changed for d in self.workspace.file_documents(source, skipped=skipped)
        ]
        removed_tokens = self._row_tokens(generation, sorted(removed))
        if removed_tokens is None:
            return bool(self.build(scope, max_changed_files=max_changed_files))
        layer = overlay.Overlay(
            generation=generation.name,
            source_fingerprint=fingerprint,
            removed_rows=frozenset(removed),
            documents=documents,
            tokens=[self._tokenize(d.text) for d in documents],
            files={f.label: [f.size, f.mtime_ns] for f in changed},
            deleted=deleted,
            removed_df=dict(Counter(t for toks in removed_tokens for t in set(toks))),
            removed_length=sum(max(1, len(toks)) for toks in removed_tokens),
        )
        with exclusive_lock(partition_dir(self.index_dir, scope) / LOCK):
            if current_generation(self.index_dir, scope) != generation:
                return True  # a build swapped in meanwhile; freshness decides again
            overlay.write(partition_dir(self.index_dir, scope), layer)
        return True

    def _walk(self, scope: ScopeKey, reuse_s: float = 0.0) -> list[SourceFile]:
        """The scope's source files; with ``reuse_s``, the last walk if it is that recent (a
        refresh right after the freshness check of the same search walks once, not twice)."""
        key = scope.fingerprint()
        with self._lock:
            last = self._walks.get(key)
        if reuse_s and last is not None and time.monotonic() - last[0] < reuse_s:
            return last[1]
        files = self.workspace.source_files(scope)
        with self._lock:
            self._walks[key] = (time.monotonic(), files)
        return files

    @staticmethod
    def _row_tokens(generation: Path, rows: list[int]) -> list[list[str]] | None:
        """The cached tokens of some generation rows, read by offset (None: no cache)."""
        import numpy as np

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

    def _file_entries(self, generation: Path) -> dict[str, list[Any]] | None:
        """label -> [[size, mtime_ns], first row, chunk count] of a generation (read once)."""
        with self._lock:
            cached = self._entries.get(generation)
        if cached is None:
            try:
                cached = json.loads((generation / FILES_FILE).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            with self._lock:
                while len(self._entries) >= MAX_CACHED_GENERATIONS:  # bounded, as above
                    self._entries.pop(next(iter(self._entries)))
                self._entries[generation] = cached
        return cached

    def _overlay(self, scope: ScopeKey, generation: Path) -> overlay.Overlay | None:
        """The live overlay of the generation, re-read only when its file changed."""
        key = scope.fingerprint()
        where = partition_file(str(self.index_dir), key, overlay.OVERLAY_FILE)
        try:
            info = os.stat(where)
            state: tuple[int, int, int] | None = (info.st_ino, info.st_mtime_ns, info.st_size)
        except OSError:
            state = None
        with self._lock:
            cached = self._overlays.get(key)
        if cached is not None and cached[0] == (generation, state):
            return cached[1]
        path = Path(where)
        found = overlay.read(path.parent, generation.name) if state is not None else None
        with self._lock:
            self._overlays[key] = ((generation, state), found)
        return found

    # ---- serving --------------------------------------------------------------------------
    def _generation(self, scope: ScopeKey) -> Path | None:
        """The live generation; the pointer is re-read only when its inode or mtime changed."""
        key = scope.fingerprint()
        state = pointer_state(self.index_dir, scope)
        with self._lock:
            cached = self._pointers.get(key)
        if cached is not None and cached[0] == state:
            return cached[1]
        generation = current_generation(self.index_dir, scope)
        with self._lock:
            self._pointers[key] = (state, generation)
        return generation

    def _tokenizer_id(self) -> str:
        split = "split" if self.split_identifiers else "whole"
        return f"{self.stemmer_language}/{split}/k1={self.k1}/b={self.b}"

    def freshness(self, scope: ScopeKey) -> Freshness:
        generation = self._generation(scope)
        if generation is None:
            return Freshness(
                fresh=False,
                code=codes.INDEX_MISSING,
                detail=f"no {self.name} index for scope {scope.label()}; run arr index",
            )
        try:
            manifest = self._manifest(generation)
            files = self._walk(scope)
            fingerprint, newest_ns = state_digest(
                self.workspace.chunk_lines, files, self.workspace.beir_state(scope)
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
            layer = self._overlay(scope, generation)
            if layer is not None and layer.source_fingerprint == fingerprint:
                return Freshness(fresh=True, code="fresh_with_overlay", detail="")
        return source_freshness(
            manifest, fingerprint, newest_ns, self.freshness_tolerance_s, self.name
        )

    def _manifest(self, generation: Path) -> dict[str, Any]:
        # A generation folder never changes once its manifest exists, so it is read once.
        with self._lock:
            cached = self._manifests.get(generation)
        if cached is None:
            cached = read_manifest(generation)
            with self._lock:
                # A server lives for days and sees a generation per rebuild: keep the newest.
                while len(self._manifests) >= MAX_CACHED_GENERATIONS:
                    self._manifests.pop(next(iter(self._manifests)))
                self._manifests[generation] = cached
        return cached

    def _load(self, scope: ScopeKey) -> _Partition:
        bm25s = import_bm25s()

        generation = self._generation(scope)
        if generation is None:
            raise ChannelError(codes.INDEX_MISSING, f"no {self.name} index for {scope.label()}")
        key = scope.fingerprint()
        with self._lock:
            cached = self._loaded.get(key)
        # Identity, not equality: _generation hands out the same Path until the pointer moves.
        if cached is not None and cached.generation is generation:
            return cached
        try:
            owner = ScopeKey.model_validate(self._manifest(generation)["scope"])
            documents = load_documents(generation)  # rows read on demand (offsets)
            retriever = None
            if documents and SortedVocabulary.present(generation):
                # the vocabulary as memory-mapped sorted keys: nothing parsed at load
                retriever = bm25s.BM25.load(
                    str(generation), mmap=True, show_progress=False, load_vocab=False
                )
                retriever.vocab_dict = SortedVocabulary(generation)
            elif documents:  # a generation built before the sorted vocabulary existed
                retriever = bm25s.BM25.load(str(generation), mmap=True, show_progress=False)
        except (OSError, ValueError, KeyError) as exc:
            raise ChannelError(
                codes.INDEX_CORRUPT, f"{self.name} index unreadable: {exc}"
            ) from None
        partition = _Partition(generation, retriever, documents, owner)
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
                skipped = self._manifest(partition.generation).get("skipped") or {}
            except (OSError, ValueError):
                return {}
            partition.skipped = {f"skipped_{reason}": int(n) for reason, n in skipped.items() if n}
        return dict(partition.skipped)

    def loaded(self, scope: ScopeKey) -> _Partition:
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
        layer = self._overlay(scope, partition.generation)
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
                if depth < len(scores):
                    top = np.argpartition(scores, len(scores) - depth)[-depth:]
                else:
                    top = np.arange(len(scores))
                values = scores[top]
                ranked = [
                    (documents[r], r, s)
                    for r, s in zip(top.tolist(), values.tolist(), strict=True)
                    if s > 0 and r not in hidden
                ]
        if layer is not None and query:
            manifest = self._manifest(partition.generation)
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
                    "location": partition.location(row)
                    if row is not None
                    else Location(
                        path=doc.path,
                        start_line=doc.start_line,
                        end_line=doc.end_line,
                        document_id=doc.document_id,
                    ),
                    "snippet": centred(doc.text, call.query, self.snippet_chars),
                    "score": float(score),
                    "ranks": {self.name: rank},
                    "rerank_score": None,
                },
            )
            for rank, (doc, row, score) in enumerate(ranked[:k], 1)
        ]
