"""Rebuilds beside the live collection (mixed into ChromaStore), and what a collection is
called and what its metadata says.

``arr index rebuild=true`` fills ``arr-<fingerprint>-next`` while readers keep the live
collection; the finished one is swapped in by two renames, and a failed one is removed or kept
to be resumed.
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any

from arr.models import ScopeKey
from arr.vector_store.chroma_errors import chroma_errors

MANIFEST_PREFIX = "arr_"


def collection_name(scope: ScopeKey) -> str:
    return f"arr-{scope.fingerprint()}"


def to_manifest(metadata: dict[str, Any] | None) -> dict[str, Any]:
    prefix = len(MANIFEST_PREFIX)
    return {k[prefix:]: v for k, v in (metadata or {}).items() if k.startswith(MANIFEST_PREFIX)}


def version_of(metadata: dict[str, Any] | None) -> Any:
    manifest = to_manifest(metadata)
    return manifest.get("build_token") or manifest.get("built_at")


class Staging:
    """The rebuild side of a store: the names of the collections this process rebuilds."""

    _client: Any
    _lock: threading.Lock
    _staging: dict[str, str]  # live collection name -> the one a rebuild fills
    _collections: dict[str, Any]
    _exact_cache: dict[str, Any]

    # the store's own parts these steps use (ChromaStore, SnapshotReads, Spooling)
    if TYPE_CHECKING:

        def _between_processes(self) -> contextlib.AbstractContextManager[None]: ...

        def _collection_names(self) -> set[str]: ...

        def _collection(self, scope: ScopeKey, create: bool = False) -> Any | None: ...

        def _forget_snapshot(self, name: str) -> None: ...

        def _save_snapshot(
            self, name: str, collection: Any, manifest: dict[str, Any], spool: Any = None
        ) -> None: ...

        def _take_spool(self, name: str) -> Any: ...

        def _discard_spools(self, *names: str) -> None: ...

        def prune_segments(self) -> int: ...

    def begin_staging(self, scope: ScopeKey) -> None:
        """From now on this store builds the scope into a collection beside the live one
        (``arr-<fingerprint>-next``), which readers keep until ``commit_staging`` swaps. One
        left by a killed rebuild is resumed (content hashes: nothing is embedded twice)."""
        name = collection_name(scope)
        with self._lock:
            self._staging[name] = f"{name}-next"

    def commit_staging(self, scope: ScopeKey) -> None:
        """Swap the finished staging collection in: the live one is deleted, the staging one
        renamed to the live name, and segment folders no collection owns any more are removed
        (Chroma leaves them on disk when a collection is deleted)."""
        live = collection_name(scope)
        staged = self._staging.get(live)
        if staged is None:
            return
        self._forget_snapshot(live)
        with chroma_errors("swap the rebuilt collection"), self._between_processes():
            # two renames (the live name is absent for milliseconds, and readers wait for it,
            # see _names_after_swap), then the old collection is deleted
            retired = f"{live}-old"
            names = self._collection_names()
            if retired in names:
                self._client.delete_collection(retired)
            if live in names:
                self._client.get_collection(live, embedding_function=None).modify(name=retired)
            self._client.get_collection(staged, embedding_function=None).modify(name=live)
            if live in names:
                self._client.delete_collection(retired)
        with self._lock:
            self._staging.pop(live, None)
            for key in (live, staged):
                self._collections.pop(key, None)
                self._exact_cache.pop(key, None)
        self.prune_segments()
        swapped, spool = self._collection(scope), self._take_spool(staged)
        if swapped is not None:
            self._save_snapshot(live, swapped, to_manifest(swapped.metadata), spool)

    def abort_staging(self, scope: ScopeKey, remove: bool = True) -> None:
        """Give the rebuild up: the live collection stays; the staging one is removed (frees the
        disk a failed build filled) or, ``remove=False``, kept to be resumed."""
        live = collection_name(scope)
        staged = self._staging.get(live)
        if staged is None:
            return
        self._discard_spools(staged)
        if remove:
            with contextlib.suppress(Exception), self._between_processes():
                self._client.delete_collection(staged)
        with self._lock:
            self._staging.pop(live, None)
            self._collections.pop(staged, None)
            self._exact_cache.pop(staged, None)
        if remove:
            self.prune_segments()
