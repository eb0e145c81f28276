"""Vector channel: ARR's own embeddings in a Chroma collection per scope, indexed incrementally.

Config: ``conf/tools/vector.yaml`` with the ``embedder`` and ``vector_store`` groups. Items are
keyed by the chunk id (``doc:<path>#L<start>`` or a corpus record's id) and carry a content hash
(of the embedder id and the text) and of its place: ``build`` embeds new or changed texts only,
rewrites the metadata of a place named anew (a title, a citation), deletes vanished items. The
manifest (embedder id, chunking, source fingerprint, build time, arr version) is written last,
in the collection's metadata; ``freshness`` compares it with the workspace as it is now and
with the configured embedder (``index_stale``, ``index_embedder_mismatch``).
Evidence carries the scope its item's metadata holds, for the Router's final scope check.

Token-aware passages (``passages: true``, the default): a chunk or document longer than the
embedder reads (``max_seq_length`` word pieces, less two special tokens) is stored as passages
that each fit whole (:mod:`arr.tools.passages`); a search returns each chunk once, scored by its
best passage (max-pooling), under the chunk's own id.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from collections.abc import Collection
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arr import codes
from arr.errors import is_disk_full
from arr.models import EvidenceChunk, Freshness, ScopeKey, ToolCall
from arr.query.snippets import centred
from arr.tools.base import ChannelError, source_freshness
from arr.tools.build_progress import build_progress, while_building
from arr.tools.contract import Pending
from arr.tools.item_kinds import kinds_of
from arr.tools.partition import exclusive_lock
from arr.tools.store_contract import Closes, Resettable, Spools, Stages, unreadable_collection
from arr.tools.vector_items import (
    SCOPE_META,
    location_of,
    owner_of,
    read_sidecar,
    rename_items,
    store_batches,
    write_sidecar,
)
from arr.tools.vector_plan import plan_build, sampled
from arr.version import __version__
from arr.workspace.sources import READERS_VERSION, carry_skips
from arr.workspace.workspace import Workspace

EMBEDDER_MISMATCH = codes.INDEX_EMBEDDER_MISMATCH


class VectorTool:
    read_only = True
    traits = frozenset({"semantic"})  # arr.fusion.traits
    provider = "local"
    semantic = True  # built after the lexical channels; skipped by arr index --lexical
    summary = (
        "vector: semantic search over the project's notes, code and logs; finds passages "
        "that answer a research question in other words than the query's"
    )

    def __init__(
        self,
        name: str,
        workspace: Workspace,
        embedder: Any,
        store: Any,
        top_k: int = 20,
        snippet_chars: int = 400,
        chunk_lines: int | None = None,
        overlap_lines: int = 0,
        freshness_tolerance_s: float = 0.0,
        manifest_ttl_s: float = 1.0,
        show_progress: bool = False,
        eager_warm_up: bool = False,
        refresh_max_chunks: int = 64,
        passages: bool = True,
        passage_overlap: int = 32,
        commit_every: int = 128,
    ) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        if chunk_lines is not None and not 0 <= overlap_lines < chunk_lines:
            raise ValueError(f"overlap_lines must be in 0..chunk_lines-1, got {overlap_lines}")
        self.name = name
        self.workspace = workspace
        self.embedder = embedder
        self.store = store
        self.top_k = top_k
        self.snippet_chars = snippet_chars
        self.chunk_lines = chunk_lines
        self.overlap_lines = overlap_lines
        self.freshness_tolerance_s = freshness_tolerance_s
        self.manifest_ttl_s = manifest_ttl_s
        self.show_progress = show_progress
        self.eager_warm_up = eager_warm_up
        self.refresh_max_chunks = refresh_max_chunks
        if passage_overlap < 0 or commit_every < 1:
            raise ValueError(f"passage_overlap must be >= 0 ({passage_overlap}) and commit_every "
                             f">= 1 ({commit_every})")  # fmt: skip
        self.passages = passages
        self.passage_overlap = passage_overlap
        self.commit_every = commit_every
        self._manifests: dict[str, tuple[float, dict[str, Any] | None]] = {}
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        """Cheap by default: the store and the model load on first use, so a process that
        never needs the vector channel never imports torch or chromadb. ``eager_warm_up``
        (servers) loads both now."""
        if self.eager_warm_up:
            self._load()

    def _load(self) -> None:
        self.store.warm_up()
        self.embedder.warm_up()

    def close(self) -> None:
        """Release the store's client (and its descriptors); the next use reopens it."""
        if isinstance(self.store, Closes):
            self.store.close()

    def reset(self, scope: ScopeKey) -> None:
        """Drop the scope's collection; a store that cannot even open is removed whole (it is
        derived data: every scope rebuilds from its sources)."""
        try:
            self.store.drop(scope)
        except ChannelError:
            if not isinstance(self.store, Resettable):
                raise
            self.store.reset()
        with self._lock:
            self._manifests.pop(scope.fingerprint(), None)

    def rebuild(self, scope: ScopeKey) -> dict[str, Any]:
        """Build the scope anew beside the live collection and swap only when complete
        (``arr index rebuild=true``): a rebuild that fails (full disk, a kill, a bad file)
        leaves the index that was there, and readers answer from it meanwhile. A store that
        cannot even open is removed whole first (derived data; nothing to keep)."""
        if not isinstance(self.store, Stages):
            self.reset(scope)
            return self.build(scope)
        self.embedder.warm_up()
        with exclusive_lock(self._build_lock(scope)):
            try:
                self.store.warm_up()
            except ChannelError as exc:
                if is_disk_full(exc):
                    raise  # the store is fine, the disk is not: keep every index there is
                self.reset(scope)  # a store that cannot open holds nothing to keep
                return self._build_locked(scope, None)
            self.store.begin_staging(scope)
            try:
                manifest = self._build_locked(scope, None)
                self.store.commit_staging(scope)
            except BaseException as exc:
                # a full disk: free what the attempt wrote; anything else: keep it to resume
                self.store.abort_staging(scope, remove=is_disk_full(exc))
                raise
        with self._lock:
            self._manifests.pop(scope.fingerprint(), None)
        return manifest

    def refresh(self, scope: ScopeKey, max_changed_files: int) -> bool:
        """Embed what changed when it is at most ``refresh_max_chunks`` chunks."""
        return bool(self.build(scope, max_changed=self.refresh_max_chunks))

    def passage_budget(self) -> int | None:
        """Word pieces a passage may hold, or None when chunks are embedded as they are (the
        option is off, or the embedder cannot count its tokens)."""
        if not self.passages or not hasattr(self.embedder, "token_counts"):
            return None
        return int(self.embedder.max_tokens)

    def _chunking(self) -> str:
        # the readers' version: a file a reader reads anew is read again, not kept from the list
        size = self.chunk_lines or self.workspace.chunk_lines
        lines = f"{size}/{self.overlap_lines}/{READERS_VERSION}"
        budget = self.passage_budget()
        return lines if budget is None else f"{lines}/passages-{budget}-{self.passage_overlap}"

    # ---- building -------------------------------------------------------------------------
    def build(self, scope: ScopeKey, max_changed: int | None = None) -> dict[str, Any]:
        """Embed new and changed items of the scope, delete vanished ones; returns the manifest
        with ``documents``, ``embedded`` and ``deleted`` counts ({} when more than
        ``max_changed`` items would change: a refresh too big to do before a search)."""
        self._load()
        try:
            # Builds of one scope are serialised across processes (parallel sweep jobs, a
            # rebuild while another runs); a build that waited finds the work done.
            with exclusive_lock(self._build_lock(scope)):
                try:
                    return self._build_locked(scope, max_changed)
                except BaseException:
                    if isinstance(self.store, Spools):  # the next build must not trust it
                        self.store.discard_spool(scope)
                    raise
        except ChannelError as exc:
            if max_changed is not None or not isinstance(self.store, Stages):
                raise  # a refresh before a search never rebuilds; a server's store is its own
            if not unreadable_collection(exc):
                raise
            damage = exc.detail
        # The collection's own index files cannot be read (a damaged HNSW header): a plain
        # build repairs it as rebuild=true does, beside it, swapped in when complete (derived
        # data: rebuilt from the sources; the damaged one answered nothing).
        manifest = self.rebuild(scope)
        return {**manifest, "repaired": damage.split("; repair:")[0][:300]}

    def _build_lock(self, scope: ScopeKey) -> Path:
        """The lock that serialises builds and rebuilds of one scope across processes."""
        return self.workspace.index_dir / "locks" / f"{self.name}-{scope.fingerprint()}.lock"

    def pending(
        self, scope: ScopeKey, rebuild: bool = False, sample: int = 0, known: Collection[str] = ()
    ) -> Pending:
        """How many items of each kind a build (or a ``rebuild``: every item, into a new
        collection) of the scope would embed now, and with ``sample`` the seconds one of each
        kind not ``known`` takes, timed on that many; ``arr index`` asks before the first
        embedding, for the whole run's time left. Loads the model and the store, as the build
        would."""
        began = time.perf_counter()
        self._load()  # the model and the store, once: the build does not load them again
        loading = time.perf_counter() - began
        changed = plan_build(self, scope, anew=rebuild).changed
        rates, took = sampled(self.embedder, changed, sample, known)
        took += loading  # not the plan's time: what the build will not spend again
        kinds = kinds_of(changed)
        counted = sum(kinds.get(kind, 0) for kind in rates)
        overall = sum(kinds.get(k, 0) * r for k, r in rates.items()) / counted if counted else None
        return Pending(len(changed), overall, took, kinds, rates)

    def rate_key(self) -> str:
        """An item's embedding time depends on the embedder (model, precision, runtime)."""
        return str(self.embedder.id)

    def _build_locked(self, scope: ScopeKey, max_changed: int | None) -> dict[str, Any]:
        plan = plan_build(self, scope)
        changed, renamed, vanished = plan.changed, plan.renamed, plan.vanished
        if max_changed is not None and len(changed) + len(vanished) > max_changed:
            return {}
        digests, skipped = plan.digests, plan.skipped
        rename_items(self.store, scope, renamed, digests)  # same texts: their metadata only
        # From here on each text is held until its batch is stored, not to the build's end
        # (where Chroma's own memory is largest).
        counts = {"documents": plan.documents, "embedded": len(changed), "renamed": len(renamed)}
        queue = deque(changed)
        plan.changed, plan.renamed, changed, renamed = [], [], [], []
        # Stored in batches: an interrupted build keeps what it embedded, the next embeds what is
        # missing. The manifest is written last: until then the index reads stale, not half-new.
        lock = self._build_lock(scope)
        kinds = kinds_of(queue)  # the run's clock counts each kind at its own rate
        with build_progress(lock, counts["embedded"], self.show_progress, kinds) as shown:
            for batch in store_batches(
                self.store, self.embedder, scope, queue, digests, self.commit_every
            ):
                shown.advance(len(batch), batch)
        carry_skips(skipped, (plan.sidecar or {}).get("skipped_files") or [], plan.kept)
        token = f"{time.time_ns()}-{os.getpid()}"
        manifest = {
            "embedder": self.embedder.id,
            "chunking": self._chunking(),
            "source_fingerprint": plan.fingerprint,
            "source_newest_mtime_ns": str(plan.newest_ns),
            "built_at": time.time(),
            "built_at_iso": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "arr_version": __version__,
            "documents": counts["documents"] + len(plan.unchanged_ids),
            # chunks (or documents) longer than the model reads, stored as passages (this build)
            "units_split": plan.units_split,
            "skipped": json.dumps(dict(sorted(skipped.items()))),
            "build_token": token,
        }
        self.store.write(scope, [], [], [], [], vanished, manifest)
        skipped_files = [list(record) for record in skipped.files]
        write_sidecar(
            self._sidecar_path(scope),
            {"build_token": token, "files": plan.listing, "skipped_files": skipped_files},
        )
        with self._lock:
            self._manifests[scope.fingerprint()] = (time.monotonic(), manifest)
        return {
            **manifest,
            "skipped_files": skipped_files,
            "embedded": counts["embedded"],
            "renamed": counts["renamed"],
            "deleted": len(vanished),
            "files_reread": sum(
                1 for label, entry in plan.listing.items() if plan.known.get(label) != entry
            ),
        }

    def _sidecar_path(self, scope: ScopeKey) -> Path:
        return self.workspace.index_dir / f"{self.name}-files" / f"{scope.fingerprint()}.json"

    def sidecar(self, scope: ScopeKey, manifest: dict[str, Any] | None) -> dict[str, Any] | None:
        """The file list of the last build, when it belongs to the store's current build."""
        if manifest is None or manifest.get("chunking") != self._chunking():
            return None
        return read_sidecar(self._sidecar_path(scope), manifest)

    # ---- serving --------------------------------------------------------------------------
    def _manifest(self, scope: ScopeKey) -> dict[str, Any] | None:
        key = scope.fingerprint()
        with self._lock:
            cached = self._manifests.get(key)
        if cached is not None and time.monotonic() - cached[0] < self.manifest_ttl_s:
            return cached[1]
        manifest = self.store.manifest(scope)
        with self._lock:
            self._manifests[key] = (time.monotonic(), manifest)
        return manifest

    def freshness(self, scope: ScopeKey) -> Freshness:
        found, lock = self._freshness(scope), self._build_lock(scope)
        return while_building(found, lock, self.name, self.workspace.index_dir)

    def _freshness(self, scope: ScopeKey) -> Freshness:
        manifest = self._manifest(scope)
        if manifest is None or "source_fingerprint" not in manifest:
            return Freshness(
                fresh=False,
                code=codes.INDEX_MISSING,
                detail=f"no {self.name} index for scope {scope.label()}; run arr index",
            )
        if (
            manifest.get("embedder") != self.embedder.id
            or manifest.get("chunking") != self._chunking()
        ):
            return Freshness(
                fresh=False,
                code=EMBEDDER_MISMATCH,
                detail=f"index built with {manifest.get('embedder')} "
                f"({manifest.get('chunking')}); configured "
                f"{self.embedder.id} ({self._chunking()})",
            )
        fingerprint, newest_ns = self.workspace.source_state(scope)
        return source_freshness(
            manifest, fingerprint, newest_ns, self.freshness_tolerance_s, self.name
        )

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> list[EvidenceChunk]:
        self.embedder.warm_up()  # the store opens only if the scope has no read snapshot
        embedding = self.embedder.embed_query(call.query)
        manifest = self._manifest(scope) or {}
        version = manifest.get("build_token") or manifest.get("built_at")
        wanted = call.top_k or self.top_k
        # passages of one chunk may fill the head: ask for more, keep each chunk's best
        fetch = wanted if self.passage_budget() is None else wanted * 3
        hits = self.store.query(scope, embedding, fetch, None if version is None else str(version))
        evidence: list[EvidenceChunk] = []
        seen: set[str] = set()
        for item_id, distance, document, meta in hits:
            if len(evidence) == wanted:
                break
            meta = meta or {}
            unit = meta.get("unit") or item_id
            if unit in seen:
                continue  # a lower-scored passage of a chunk already returned
            seen.add(unit)
            rank = len(evidence) + 1
            try:
                owner = owner_of(tuple(meta[f] for f in SCOPE_META))
            except (KeyError, ValueError, TypeError) as exc:
                raise ChannelError(
                    codes.INDEX_CORRUPT, f"item {item_id!r} has no valid scope: {exc}"
                ) from None
            location = location_of(meta)
            evidence.append(
                # the store's own item (its scope validated above): built without re-validation
                EvidenceChunk.model_construct(
                    id=unit,
                    scope=owner,
                    channel=self.name,
                    location=location,
                    snippet=centred(document or "", call.query, self.snippet_chars),
                    score=round(1.0 - float(distance), 6),
                    ranks={self.name: rank},
                    rerank_score=None,
                ).with_text(document or "")  # the reranker reads the whole passage
            )
        return evidence
