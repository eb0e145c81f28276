"""``arr memory export`` / ``arr memory import``: a store as JSONL, and back, audited.

One line per memory: ``{"id", "scope": {five fields}, "title", "body", "tags", "status",
"provenance", "version", "created_at", "updated_at"}``. Import inserts every absent id as a
draft and replays the transitions to its recorded status through the store (so each step is
audited with the importing actor); ids already present are kept as they are, never overwritten.
Versions follow from the replayed transitions; timestamps are those of the import.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from arr.errors import MemoryStoreError
from arr.memory.seed import insert_with_status
from arr.memory.store import ResearchMemoryStore
from arr.models import MemoryStatus, ScopeKey


class ExportRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    scope: ScopeKey
    title: str
    body: str
    tags: tuple[str, ...] = ()
    status: MemoryStatus = "draft"
    provenance: str = ""


def export_memories(store: ResearchMemoryStore, path: Path) -> int:
    memories = store.list()
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        for memory in memories:
            handle.write(json.dumps(memory.model_dump(mode="json"), ensure_ascii=False) + "\n")
    tmp.replace(path)
    return len(memories)


def read_export(path: Path) -> list[ExportRecord]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise MemoryStoreError(f"cannot read {str(path)!r}: {exc}") from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(ExportRecord.model_validate(json.loads(line)))
        except (ValueError, ValidationError) as exc:
            raise MemoryStoreError(
                f"{path}:{number}: not a memory record: {str(exc).splitlines()[0][:200]}"
            ) from None
    return records


def import_memories(
    store: ResearchMemoryStore, path: Path, actor: str = "import"
) -> tuple[int, int]:
    """Insert absent memories with their status; returns (added, kept). The file is checked
    whole before anything is written."""
    records = read_export(path)
    store.initialise()
    added = kept = 0
    for record in records:
        if not record.provenance:
            record = record.model_copy(update={"provenance": f"import:{path.name}"})
        if insert_with_status(store, record.id, record.scope, record, actor=actor):
            added += 1
        else:
            kept += 1
    return added, kept
