"""Seed a memory store from a JSONL file (``workspace.memory_seed``) without touching what exists.

Each line: ``{"id", "scope" (a scope name), "title", "body", "tags", "status"}``. Ids already in
the store are skipped, so re-running never overwrites a researcher's later edits. Every insert
and state change goes through the store and is audited with actor ``seed``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

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


def seed_memories(
    store: ResearchMemoryStore, path: Path, scopes: Mapping[str, ScopeKey]
) -> tuple[int, int]:
    """Insert absent seed memories (publishing/retracting as recorded); returns (added, kept)."""
    added = kept = 0
    for record in read_seed(path):
        scope = resolve_scope(record.scope, scopes)
        created = store.add_draft(
            record.id,
            scope,
            record.title,
            record.body,
            record.tags,
            record.provenance,
            actor="seed",
            if_absent=True,
        )
        if created is None:
            kept += 1
            continue
        added += 1
        if record.status in ("published", "retracted"):
            store.transition(record.id, "publish", actor="seed")
        if record.status == "retracted":
            store.transition(record.id, "retract", actor="seed")
    return added, kept
