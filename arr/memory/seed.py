"""Seed a memory store from a JSONL file (``workspace.memory_seed``) without touching what exists.

Each line: ``{"id", "scope" (a scope name), "title", "body", "tags", "status"}``. Ids already in
the store are skipped, so re-running never overwrites a researcher's later edits. Every insert
and state change goes through the store and is audited with actor ``seed``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arr.errors import MemoryStoreError
from arr.memory.store import ResearchMemoryStore
from arr.models import MemoryStatus, ScopeKey, resolve_scope


class SeedRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    scope: str
    title: str
    body: str
    tags: tuple[str, ...] = ()
    status: MemoryStatus = "draft"
    provenance: str = Field(default="seed")


def read_seed(path: Path) -> list[SeedRecord]:
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(SeedRecord.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            raise MemoryStoreError(
                f"{path}:{number}: invalid seed record: {str(exc).splitlines()[0]}"
            ) from None
    return records


def insert_with_status(
    store: ResearchMemoryStore,
    memory_id: str,
    scope: ScopeKey,
    record: SeedRecord | Any,
    actor: str,
) -> bool:
    """Insert an absent memory as a draft and replay the transitions to ``record.status``
    (each audited); False when the id already exists (it is never overwritten)."""
    created = store.add_draft(
        memory_id,
        scope,
        record.title,
        record.body,
        tuple(record.tags),
        record.provenance,
        actor=actor,
        if_absent=True,
    )
    if created is None:
        return False
    if record.status in ("published", "retracted"):
        store.transition(memory_id, "publish", actor=actor)
    if record.status == "retracted":
        store.transition(memory_id, "retract", actor=actor)
    return True


def seed_memories(
    store: ResearchMemoryStore, path: Path, scopes: Mapping[str, ScopeKey]
) -> tuple[int, int]:
    """Insert absent seed memories (publishing/retracting as recorded); returns (added, kept)."""
    added = kept = 0
    for record in read_seed(path):
        scope = resolve_scope(record.scope, scopes)
        if insert_with_status(store, record.id, scope, record, actor="seed"):
            added += 1
        else:
            kept += 1
    return added, kept
