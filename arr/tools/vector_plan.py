"""What a vector build of one scope has to do, worked out before anything is embedded: which
files are read again, which items are new or changed (to embed), renamed (metadata only) or
gone (deleted). ``arr index`` asks it of every scope before the first embedding starts, so the
whole run's time left counts every passage to embed, not only the current scope's; the build
then works out its own plan again under its lock (a plan is never held across scopes: the texts
of a large tree are held one scope at a time)."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arr.tools.item_kinds import spread
from arr.tools.passages import split_all
from arr.tools.vector_items import item_digest, reusable_manifest, stored_digests, to_embed
from arr.workspace.freshness import kept_state, new_state
from arr.workspace.sources import Document, SkipLog, state_digest

if TYPE_CHECKING:
    from arr.models import ScopeKey
    from arr.tools.vector import VectorTool


@dataclass
class BuildPlan:
    changed: list[Document]  # new or changed texts: embedded
    renamed: list[Document]  # same text, a place named anew: metadata rewritten
    vanished: list[str]  # ids no longer in the sources: deleted
    digests: dict[str, str]
    documents: int  # items read from the files read again (and the corpus)
    unchanged_ids: list[str]
    listing: dict[str, list[Any]]  # the file list this build will write
    known: dict[str, list[Any]]  # the last build's file list
    kept: set[str]  # files not read again: their skip records carry over
    sidecar: dict[str, Any] | None
    fingerprint: str
    newest_ns: int
    skipped: SkipLog = field(default_factory=SkipLog)
    units_split: int = 0


def plan_build(tool: VectorTool, scope: ScopeKey, anew: bool = False) -> BuildPlan:
    """Work proportional to what changed: files whose size and mtime match the file list of the
    last build (a sidecar written with the store's build token) are not read; the chunks of
    changed files are embedded only when their content hash is new. ``anew``: as a rebuild
    sees it (every file read, every item embedded into a new collection)."""
    workspace, embedder = tool.workspace, tool.embedder
    skipped = SkipLog()
    files = workspace.source_files(scope, skipped)
    corpus = workspace.corpus_state(scope)
    fingerprint, newest_ns = state_digest(workspace.chunk_lines, files, corpus)
    size = tool.chunk_lines or workspace.chunk_lines
    budget = tool.passage_budget()
    units_split = 0

    def fit(docs: list[Document]) -> list[Document]:
        nonlocal units_split
        if budget is None:
            return docs
        passages, split = split_all(docs, embedder.token_counts, budget, tool.passage_overlap)
        units_split += split
        return passages

    live = None if anew else reusable_manifest(tool.store, embedder, scope)
    sidecar = tool.sidecar(scope, live)
    known: dict[str, list[Any]] = sidecar["files"] if sidecar is not None else {}
    listing: dict[str, list[Any]] = {}
    documents: list[Document] = []
    unchanged_ids: list[str] = []
    kept: set[str] = set()
    for source in files:
        entry = known.get(source.label)
        state = kept_state(entry[0], source) if entry is not None else None
        if entry is not None and state is not None:
            listing[source.label] = [state, entry[1]]
            kept.add(source.label)
            unchanged_ids += entry[1]
            continue
        state = new_state(source)  # hashed before the read (arr.workspace.freshness)
        docs = fit(workspace.file_documents(source, size, tool.overlap_lines, skipped))
        listing[source.label] = [state, [d.id for d in docs]]
        documents += docs
    if corpus is not None:
        documents += fit(list(workspace.corpus_documents(scope)))
    existing = (
        {}
        if anew
        else stored_digests(tool.store, scope, sidecar is not None, known, listing, documents)
    )
    digests = {d.id: item_digest(embedder.id, d) for d in documents}
    changed, renamed = to_embed(documents, existing, digests)
    keep = set(digests) | set(unchanged_ids)
    vanished = sorted(i for i in existing if i not in keep)
    return BuildPlan(
        changed=changed,
        renamed=renamed,
        vanished=vanished,
        digests=digests,
        documents=len(documents),
        unchanged_ids=unchanged_ids,
        listing=listing,
        known=known,
        kept=kept,
        sidecar=sidecar,
        fingerprint=fingerprint,
        newest_ns=newest_ns,
        skipped=skipped,
        units_split=units_split,
    )


WARM_TEXTS = 4


def sampled(
    embedder: Any, changed: list[Document], sample: int, known: Collection[str] = ()
) -> tuple[dict[str, float], float]:
    """(seconds per item of each kind, seconds the sample took) of embedding ``sample`` items
    of each kind of ``changed`` not in ``known``, spread over them (a code file's chunks and a
    paper's passages differ in length); ({}, 0) when not asked or too few. The vectors are
    thrown away: the build embeds them again, so a sample is kept small (its cost, 0.1-0.4 s
    for 16 texts on 2 cores, is the price of a time left said before the first batch)."""
    chosen = spread(changed, sample, known)
    if not chosen:
        return {}, 0.0
    # apart first: the model's sessions (one a core) start on their first texts, a cost the
    # build pays once, not per item (counted in what the sample took: not the plan's time)
    began = time.perf_counter()
    embedder.embed([d.text for d in next(iter(chosen.values()))[:WARM_TEXTS]])
    rates: dict[str, float] = {}
    took = time.perf_counter() - began
    for kind, documents in chosen.items():
        began = time.perf_counter()
        embedder.embed([d.text for d in documents])
        spent = time.perf_counter() - began
        rates[kind], took = spent / len(documents), took + spent
    return rates, took
