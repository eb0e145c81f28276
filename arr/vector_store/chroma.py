"""Chroma vector store, embedded on disk (``PersistentClient``).

Config: ``conf/vector_store/chroma.yaml``; ``chroma_http`` (arr.vector_store.chroma_http) is the
same store behind a Chroma server. One collection per ScopeKey, named ``arr-<fingerprint>``
(stable, collision-resistant, valid for Chroma), so a query never needs a metadata filter to
stay in scope; every item still carries its five scope fields as metadata. ARR computes every
embedding itself: collections are created with ``embedding_function=None`` (Chroma's default
function would download a model) and telemetry is off. The index manifest lives in the
collection's metadata, so it travels with the data to a server. Any Chroma failure is a
ChannelError ``vector_store_unavailable``. Exactly searched collections are read from their
snapshot (arr.vector_store.snapshot, under ``<path>/read/``): a search starts no Chroma.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arr import codes
from arr.codes import INDEX_BUILDING
from arr.models import ScopeKey
from arr.tools.base import ChannelError
from arr.tools.partition import exclusive_lock
from arr.vector_store.chroma_client import forget_systems, open_client
from arr.vector_store.chroma_errors import Replaced, chroma_errors, not_found
from arr.vector_store.exact import add_hashes, content_hashes, nearest, read_all, unit_vectors
from arr.vector_store.segments import prune_segments
from arr.vector_store.snapshot import Snapshot, SnapshotReads
from arr.vector_store.spool import Spool, Spooling
from arr.vector_store.staging import (
    MANIFEST_PREFIX,
    Staging,
    collection_name,
    to_manifest,
    version_of,
)

WRITE_BATCH = 1000
QUERY_ATTEMPTS = 4  # rebuilds swapped in back to back may replace a fresh handle again
SWAP_WAIT_S = 2.0  # longest a reader waits for another process's swap of a rebuilt collection


class ChromaStore(Staging, SnapshotReads, Spooling):
    def __init__(self, path: str | Path, exact_max_items: int = 200_000) -> None:
        self.path = Path(path)
        self.exact_max_items = exact_max_items
        self._exact_cache: dict[str, tuple[str, Any]] = {}
        self._snapshots: dict[str, Snapshot] = {}
        self._spools: dict[str, Spool | None] = {}  # per collection a build writes
        self._client: Any = None
        self._collections: dict[str, Any] = {}
        self._staging: dict[str, str] = {}  # live collection name -> the one a rebuild fills
        self._lock = threading.Lock()

    def _between_processes(self) -> contextlib.AbstractContextManager[None]:
        """Held while the store's schema or a collection may be created. Chroma migrates a new
        store's SQLite file on first open, unguarded: two processes opening one fresh store at
        once (a search and an index build) failed with 'table collections already exists'.
        The indexes' own lock: a search's refresh does not wait for it either (IndexBusy)."""
        return exclusive_lock(self.path / ".arr-open.lock")

    def _make_client(self) -> Any:
        with self._between_processes():
            return open_client(self.path)

    def close(self) -> None:
        """Release the client: Chroma keeps one system per store path (SQLite files, segments,
        sockets, ~20 descriptors) until its last client closes. A closed store reopens on use."""
        with self._lock:
            client, self._client = self._client, None
            self._collections, self._exact_cache, self._snapshots = {}, {}, {}
        self._discard_spools()
        close = getattr(client, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):  # a store that never opened has nothing held
                close()

    def reset(self) -> None:
        """Remove the whole on-disk store (derived data) so the next build starts clean."""
        import shutil

        with self._lock:
            self._client, self._collections, self._exact_cache, self._snapshots = None, {}, {}, {}
        self._discard_spools()
        forget_systems()  # chromadb caches one system per path, a broken one too
        if self.path.exists():
            shutil.rmtree(self.path)

    def prune_segments(self) -> int:
        """Remove the segment folders no collection owns (arr.vector_store.segments)."""
        return prune_segments(self.path, self._between_processes())

    def describe(self) -> str:
        return f"chroma at {self.path}"

    def warm_up(self) -> None:
        with self._lock:
            if self._client is None:
                with chroma_errors("connect"):
                    self._client = self._make_client()

    def _name(self, scope: ScopeKey) -> str:
        """The collection this store reads and writes for the scope: its live one, or during
        a rebuild in this process (``begin_staging``) the one built beside it."""
        name = collection_name(scope)
        return self._staging.get(name, name)

    def _collection(self, scope: ScopeKey, create: bool = False) -> Any | None:
        self.warm_up()
        name = self._name(scope)
        with self._lock:
            cached = self._collections.get(name)
        if cached is not None:
            return cached
        with chroma_errors("open collection"):
            if create:
                with self._between_processes():
                    found = self._client.get_or_create_collection(
                        name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
                    )
            else:
                if name not in self._names_after_swap(name):
                    return None
                found = self._client.get_collection(name, embedding_function=None)
        with self._lock:
            self._collections[name] = found
        return found

    def collection(self, scope: ScopeKey) -> Any | None:  # benchmarks query it directly
        return self._collection(scope)

    def manifest(self, scope: ScopeKey) -> dict[str, Any] | None:
        """The scope's collection's manifest, or None without one (its snapshot's if any)."""
        found = self._snapshot_manifest(self._name(scope))
        if found is not None:
            return found[0]
        collection = self._collection(scope)
        if collection is None:
            return None
        name = self._name(scope)
        with chroma_errors("read manifest"):
            try:
                fresh = self._client.get_collection(name, embedding_function=None)
            except Exception as exc:
                if not not_found(exc):
                    raise
                self._forget(scope)  # dropped by a rebuild (here or in another process)
                if name not in self._names_after_swap(name):
                    return None
                fresh = self._client.get_collection(name, embedding_function=None)
            if getattr(fresh, "id", None) != getattr(collection, "id", None):
                # another process rebuilt the collection: serve the new one from now on
                with self._lock:
                    self._collections[name] = fresh
                    self._exact_cache.pop(name, None)
            return to_manifest(fresh.metadata)

    def _collection_names(self) -> set[str]:  # names (Chroma >= 0.6) or collections
        return {getattr(c, "name", c) for c in self._client.list_collections()}

    def _names_after_swap(self, name: str, wait_s: float = SWAP_WAIT_S) -> set[str]:
        """The store's collection names; while another process swaps a rebuilt collection in
        (``commit_staging``: two renames, milliseconds) and ``name`` is briefly absent, waits
        for the swap to end instead of answering "no index"."""
        deadline = time.monotonic() + wait_s
        while True:
            names = self._collection_names()
            swapping = f"{name}-next" in names or f"{name}-old" in names
            if name in names or not swapping or time.monotonic() >= deadline:
                return names
            time.sleep(0.02)

    def _forget(self, scope: ScopeKey) -> None:
        """Drop what is cached of the scope's collection (it was deleted or replaced)."""
        with self._lock:
            self._collections.pop(self._name(scope), None)
            self._exact_cache.pop(self._name(scope), None)

    def dimension(self, scope: ScopeKey) -> int | None:
        """Length of the stored vectors (one item read), or None when the collection is empty."""
        collection = self._collection(scope)
        if collection is None:
            return None
        with chroma_errors("read items"):
            got = collection.get(limit=1, include=["embeddings"])
        embeddings = got.get("embeddings")
        if embeddings is None or len(embeddings) == 0:
            return None
        return len(embeddings[0])

    def existing(self, scope: ScopeKey) -> dict[str, str]:
        """Stored item id -> content hash."""
        collection = self._collection(scope)
        if collection is None:
            return {}
        with chroma_errors("list items"):  # page by page: one get of 39,000 ids fails
            return content_hashes(collection)

    def _exact(self, scope: ScopeKey, collection: Any, version: str | None) -> Any:
        """(ids, unit vectors, documents, metadatas) of a small collection, cached per build."""
        if version is None or self.exact_max_items <= 0:
            return None
        key = self._name(scope)
        with self._lock:
            cached = self._exact_cache.get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
        with chroma_errors("read vectors"):
            if collection.count() > self.exact_max_items:
                return None
            got = read_all(collection)
        value = unit_vectors(got)
        with self._lock:
            self._exact_cache[key] = (version, value)
        if key == collection_name(scope):  # an index built before snapshots: one from now on
            self._keep_snapshot(key, to_manifest(collection.metadata), version, value)
        return value

    def hashes(self, scope: ScopeKey, ids: Sequence[str]) -> dict[str, str]:
        """Content hashes of the given item ids that the store holds."""
        collection = self._collection(scope)
        if collection is None or not ids:
            return {}
        found: dict[str, str] = {}
        with chroma_errors("read items"):
            for start in range(0, len(ids), WRITE_BATCH):
                part = list(ids[start : start + WRITE_BATCH])
                add_hashes(found, collection.get(ids=part, include=["metadatas"]))
        return found

    def discard_spool(self, scope: ScopeKey) -> None:
        """A build of the scope failed: what it recorded is no longer the collection's."""
        self._discard_spools(self._name(scope))

    def drop(self, scope: ScopeKey) -> None:
        name = self._name(scope)
        self._discard_spools(name)
        self._forget_snapshot(name)
        self.warm_up()
        with self._lock:
            self._collections.pop(name, None)
        with chroma_errors("drop collection"):
            if self._collection(scope) is not None:
                with self._lock:
                    self._collections.pop(name, None)
                self._client.delete_collection(name)

    def write(
        self,
        scope: ScopeKey,
        ids: Sequence[str],
        embeddings: Any,
        documents: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
        delete_ids: Sequence[str],
        manifest: dict[str, Any] | None,
    ) -> None:
        """Upsert new/changed items, delete vanished ones, then record the manifest (last: a crash
        mid-write leaves a manifest that no longer matches). ``manifest=None``: a batch of a
        build in progress (durable, not yet the index)."""
        renew = manifest is not None and not ids and not delete_ids  # no item changes
        name = self._name(scope)
        collection = self._collection(scope, create=True)
        with chroma_errors("write"):
            if not renew:  # readers read Chroma until the commit; the build keeps a spool
                self._begin_spool(name, collection.count, version_of(collection.metadata))
            try:
                for start in range(0, len(ids), WRITE_BATCH):
                    end = start + WRITE_BATCH
                    part, metas = list(ids[start:end]), list(metadatas[start:end])
                    if embeddings is None:  # the same texts, their places named anew
                        collection.update(ids=part, metadatas=metas)
                        self._spool(name, "rename", part, metas)
                        continue
                    texts, vectors = list(documents[start:end]), embeddings[start:end]
                    collection.upsert(
                        ids=part, embeddings=vectors, documents=texts, metadatas=metas
                    )
                    self._spool(name, "add", part, vectors, texts, metas)
                for start in range(0, len(delete_ids), WRITE_BATCH):
                    part = list(delete_ids[start : start + WRITE_BATCH])
                    collection.delete(ids=part)
                    self._spool(name, "delete", part)
            except BaseException:
                self._spool_failed(name)  # what reached Chroma is unknown: read back
                raise
            if manifest is not None:
                collection.modify(metadata={MANIFEST_PREFIX + k: v for k, v in manifest.items()})
        if manifest is not None and name == collection_name(scope):
            self._commit_snapshot(name, collection, manifest, renew, self._take_spool(name))

    def query(
        self, scope: ScopeKey, embedding: Any, top_k: int, version: str | None = None
    ) -> list[tuple[str, float, str, dict[str, Any]]]:
        """(id, cosine distance, document, metadata), nearest first. Collections of at most
        ``exact_max_items`` items are searched exactly (all vectors, read once per build
        ``version``; from the snapshot when there is one): HNSW graphs rebuilt from Chroma's
        write log differ between processes, an exact answer does not. Ties break by id."""
        for _ in range(QUERY_ATTEMPTS):
            try:
                return self._query(scope, embedding, top_k, version)
            except Replaced:
                self._forget(scope)  # replaced by a rebuild since it was opened: again
        raise ChannelError(
            INDEX_BUILDING, f"the vector collection of {scope.label()} is being rebuilt"
        )

    def _query(
        self, scope: ScopeKey, embedding: Any, top_k: int, version: str | None
    ) -> list[tuple[str, float, str, dict[str, Any]]]:
        snapshot = self._snapshot(self._name(scope), version)
        if snapshot is not None:
            return snapshot.nearest(embedding, top_k)
        collection = self._collection(scope)
        if collection is None:
            raise ChannelError(codes.INDEX_MISSING, f"no vector collection for {scope.label()}")
        try:
            exact = self._exact(scope, collection, version)
        except ChannelError as exc:
            if not_found(exc):
                raise Replaced from None
            raise
        except (ValueError, IndexError, KeyError, TypeError):
            # a read torn by a collection deleted under it (a swap in another process): the
            # ids and vectors do not match up; read the collection that is there now
            raise Replaced from None
        if exact is not None:
            return nearest(exact, embedding, top_k)
        with chroma_errors("query"):
            try:
                got = collection.query(
                    query_embeddings=[embedding],
                    n_results=top_k,
                    include=["distances", "documents", "metadatas"],
                )
            except Exception as exc:
                if not_found(exc):
                    raise Replaced from None
                raise
        return list(
            zip(
                got["ids"][0],
                got["distances"][0],
                got["documents"][0],
                got["metadatas"][0],
                strict=True,
            )
        )
