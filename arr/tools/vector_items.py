"""What the vector channel stores per item and per build: an item's content hash (of the
embedder id and the text) and metadata (its five scope fields, its place, the unit a passage
belongs to), the scope read back from that metadata, and the file list of the last build (a
sidecar that lets the next build skip unchanged files)."""

from __future__ import annotations

import functools
import hashlib
import json
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.models import Location, ScopeKey
from arr.tools.heap import give_back_freed_memory
from arr.tools.passages import unit_of
from arr.tools.store_contract import KnowsDimension
from arr.workspace.sources import Document

SCOPE_META = ("team_id", "project_id", "repository", "branch", "experiment_environment")


@functools.lru_cache(maxsize=1024)
def owner_of(fields: tuple[Any, ...]) -> ScopeKey:
    """The ScopeKey an item's metadata names, validated (once per distinct key)."""
    return ScopeKey(**dict(zip(SCOPE_META, fields, strict=True)))


def content_hash(embedder_id: str, text: str) -> str:
    return hashlib.sha256(f"{embedder_id}\0{text}".encode()).hexdigest()[:32]


_PLACE_KEYS = (
    "path",
    "start_line",
    "end_line",
    "document_id",
    "anchor",
    "title",
    "citation",
    "identity",
)


def item_digest(embedder_id: str, doc: Document) -> str:
    """``<content hash>.<place hash>``: what the vector depends on (the text, the model), and
    the place the item names (its title, citation, anchor). A reader that names a place anew
    (a better title, a citation) changes the second part only: the item's metadata is
    rewritten, its vector kept (:func:`same_text`)."""
    place = "\0".join(str(getattr(doc, key)) for key in _PLACE_KEYS)
    return (
        f"{content_hash(embedder_id, doc.text)}.{hashlib.sha256(place.encode()).hexdigest()[:16]}"
    )


def same_text(stored: str | None, digest: str) -> bool:
    """Whether a stored item's digest has the text part of ``digest`` (a digest written before
    places were hashed is the text part alone)."""
    return stored is not None and stored.split(".", 1)[0] == digest.split(".", 1)[0]


def stored_digests(
    store: Any,
    scope: ScopeKey,
    listed: bool,
    known: dict[str, list[Any]],
    listing: dict[str, list[Any]],
    documents: list[Document],
) -> dict[str, str]:
    """The digests the store holds of the items that can differ: every item without the last
    build's file list (``listed`` False), else only those of changed or vanished files."""
    if not listed:
        return store.existing(scope)
    gone = [i for label, e in known.items() if listing.get(label) != e for i in e[1]]
    return store.hashes(scope, sorted({*gone, *(d.id for d in documents)}))


def to_embed(
    documents: list[Document], existing: dict[str, str], digests: dict[str, str]
) -> tuple[list[Document], list[Document]]:
    """(items to embed: new or changed text, items whose place alone was named anew)."""
    changed: list[Document] = []
    renamed: list[Document] = []
    for doc in documents:
        stored, digest = existing.get(doc.id), digests[doc.id]
        if stored != digest:
            (renamed if same_text(stored, digest) else changed).append(doc)
    return changed, renamed


def rename_items(
    store: Any, scope: ScopeKey, renamed: list[Document], digests: dict[str, str]
) -> None:
    """The metadata of items whose text is stored as it is, rewritten (no vector is made)."""
    if renamed:
        metadatas = [item_metadata(d, scope, digests[d.id]) for d in renamed]
        ids, texts = [d.id for d in renamed], [d.text for d in renamed]
        store.write(scope, ids, None, texts, metadatas, [], None)


def item_metadata(doc: Document, scope: ScopeKey, digest: str) -> dict[str, Any]:
    meta: dict[str, Any] = {f: getattr(scope, f) for f in SCOPE_META}
    meta["content_hash"] = digest
    for key in _PLACE_KEYS:
        value = getattr(doc, key)
        if value is not None:  # Chroma metadata cannot hold None
            meta[key] = value
    unit = unit_of(doc.id)
    if unit != doc.id:  # a passage: the chunk or document it belongs to
        meta["unit"] = unit
    return meta


def location_of(meta: dict[str, Any]) -> Location:
    """The place an item's metadata names (its file and lines, or its page, cell, entry)."""
    return Location(**{key: meta.get(key) for key in _PLACE_KEYS})


def read_sidecar(path: Path, manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The file list at ``path``, when it was written with the store's current build token."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(found, dict) or found.get("build_token") != manifest.get("build_token"):
        return None  # the store changed without this list (reset, another build)
    return found


def write_sidecar(path: Path, payload: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write.write_text(path, json.dumps(payload))


def reusable_manifest(store: Any, embedder: Any, scope: ScopeKey) -> dict[str, Any] | None:
    """The store's manifest of the scope when its items can be reused by ``embedder``; a
    collection whose vectors cannot be this model's is dropped (None)."""
    old = store.manifest(scope)
    if old is not None and "embedder" not in old:
        # a build that never finished: its stored batches are reused (each item carries the
        # content hash of its text and embedder), unless their vectors cannot be ours
        stored = store.dimension(scope) if isinstance(store, KnowsDimension) else None
        if stored is not None and stored != embedder.dimension():
            store.drop(scope)
            return None
    elif old is not None and old.get("embedder") != embedder.id:
        store.drop(scope)  # another model: other dimensions, nothing is reusable
        return None
    return old


def store_batches(
    store: Any,
    embedder: Any,
    scope: ScopeKey,
    changed: deque[Document],
    digests: dict[str, str],
    commit_every: int,
) -> Iterator[list[Document]]:
    """Embed and store ``changed`` in batches of ``commit_every``, yielding each batch stored:
    an interrupted build keeps what it stored (each item with its content hash), and the next
    build embeds only what is still missing. No manifest is written here (the build's last
    step), so until then the index reads stale, never half-new. Items leave ``changed`` as
    they are taken: a stored text is not held to the end of the build."""
    while changed:
        batch = [changed.popleft() for _ in range(min(commit_every, len(changed)))]
        vectors = embedder.embed([d.text for d in batch])
        store.write(
            scope,
            [d.id for d in batch],
            vectors,
            [d.text for d in batch],
            [item_metadata(d, scope, digests[d.id]) for d in batch],
            [],
            None,
        )
        give_back_freed_memory()  # the batch's activations, not held to the end
        yield batch  # its texts are let go once the caller has counted it
