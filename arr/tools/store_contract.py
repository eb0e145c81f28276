"""What the vector channel asks of a store, as written protocols (the channel defines them;
arr.vector_store implements them): every store keeps collections per scope (``VectorStore``);
some also build a rebuild beside the live collection (``Stages``), keep a build's spool
(``Spools``), can be removed whole when they cannot open (``Resettable``) and know a
collection's dimension (``KnowsDimension``). Checked with ``isinstance``, never by probing an
attribute's name. A collection a store cannot load says ``UNREADABLE`` in its failure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from arr import codes
from arr.models import ScopeKey
from arr.tools.base import ChannelError

# What a store puts in a failure's detail when a collection's own index files cannot be loaded
# (Chroma: a damaged HNSW header): the collection is unreadable, the store is not.
UNREADABLE = "collection unreadable"


def unreadable_collection(exc: ChannelError) -> bool:
    """True for a collection its store cannot load: rebuilt from its sources by a plain build
    (arr.tools.vector), never by a refresh before a search."""
    return exc.code == codes.VECTOR_STORE_UNAVAILABLE and UNREADABLE in exc.detail


@runtime_checkable
class VectorStore(Protocol):
    def warm_up(self) -> None: ...

    def manifest(self, scope: ScopeKey) -> dict[str, Any] | None: ...

    def existing(self, scope: ScopeKey) -> dict[str, str]: ...

    def hashes(self, scope: ScopeKey, ids: Sequence[str]) -> dict[str, str]: ...

    def drop(self, scope: ScopeKey) -> None: ...

    def write(
        self,
        scope: ScopeKey,
        ids: Sequence[str],
        embeddings: Any,
        documents: Sequence[str],
        metadatas: Sequence[dict[str, Any]],
        delete_ids: Sequence[str],
        manifest: dict[str, Any] | None,
    ) -> None: ...

    def query(
        self, scope: ScopeKey, embedding: Any, top_k: int, version: str | None = None
    ) -> list[tuple[str, float, str, dict[str, Any]]]: ...


@runtime_checkable
class Stages(Protocol):
    def begin_staging(self, scope: ScopeKey) -> None: ...

    def commit_staging(self, scope: ScopeKey) -> None: ...

    def abort_staging(self, scope: ScopeKey, remove: bool = True) -> None: ...


@runtime_checkable
class Spools(Protocol):
    def discard_spool(self, scope: ScopeKey) -> None: ...


@runtime_checkable
class Resettable(Protocol):
    def reset(self) -> None: ...


@runtime_checkable
class KnowsDimension(Protocol):
    def dimension(self, scope: ScopeKey) -> int | None: ...


@runtime_checkable
class Closes(Protocol):
    def close(self) -> None: ...
