"""``arr memory export`` / ``arr memory import``: a store as JSONL, and back, audited.

One line per memory: ``{"id", "scope": {five fields}, "title", "body", "tags", "status",
"provenance", "version", "created_at", "updated_at"}``. Import inserts every absent id as a
draft and replays the transitions to its recorded status through the store (so each step is
audited with the importing actor), all in **one transaction**: killed at any point, the store
holds the whole file or none of it. An id already present in the state the file says is kept;
one whose state differs (another status, scope, title, body or tags) is a conflict: the import
is refused whole, naming them, and nothing is written. Only a regular file of at most
``MAX_IMPORT_BYTES`` is read. Export writes a temporary file beside the target and renames it;
a target that cannot be written is one error, and nothing is left behind.
Versions follow from the replayed transitions; timestamps are those of the import.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arr import atomic_write
from arr.errors import MemoryStoreError
from arr.memory.store import ResearchMemoryStore, now_iso
from arr.models import MemoryStatus, ResearchMemory, ScopeKey

MAX_IMPORT_BYTES = 256 * 1024 * 1024  # far above any research store; /dev/zero is refused


MAX_NESTING = 32  # a record is flat; deeper JSON is hostile, refused before it is parsed


def _no_surrogates(value: str) -> str:
    # json.loads gives a lone surrogate ("\ud800") as a str SQLite cannot store
    if any("\ud800" <= ch <= "\udfff" for ch in value):
        raise ValueError("holds a lone surrogate (not valid Unicode text)")
    return value


class ExportRecord(BaseModel):
    """One line of an export, held to what the store accepts (the same limits as
    ResearchMemory), so a bad line is refused with its number and field before any write."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
    scope: ScopeKey
    title: str = Field(min_length=1, max_length=500)
    body: str = Field(min_length=1, max_length=100_000)
    tags: tuple[str, ...] = ()
    status: MemoryStatus = "draft"
    provenance: str = ""

    @field_validator("title", "body", "provenance")
    @classmethod
    def _text(cls, value: str) -> str:
        return _no_surrogates(value)

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_no_surrogates(tag) for tag in value)


def export_memories(store: ResearchMemoryStore, path: Path) -> int:
    """Write every memory as JSONL to ``path`` (replaced whole); returns how many."""
    if path.is_dir():
        raise MemoryStoreError(f"cannot export to {str(path)!r}: it is a directory")
    if not path.parent.is_dir():
        raise MemoryStoreError(
            f"cannot export to {str(path)!r}: folder {str(path.parent)!r} does not exist"
        )
    memories = store.list()
    text = "".join(
        json.dumps(memory.model_dump(mode="json"), ensure_ascii=False) + "\n" for memory in memories
    )
    try:
        atomic_write.write_text(path, text)
    except OSError as exc:
        if exc.errno in (28, 122):  # ENOSPC, EDQUOT: the CLI names a full disk itself
            raise
        raise MemoryStoreError(f"cannot export to {str(path)!r}: {exc.strerror or exc}") from None
    return len(memories)


def _read_bounded(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_IMPORT_BYTES (a FIFO, a device such as
    /dev/zero or a folder is refused before a byte is read)."""
    try:
        # O_NOFOLLOW: a link is refused, as every read of ARR refuses one (arr.safety.file_rule)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise MemoryStoreError(
                f"cannot import {str(path)!r}: it is a symbolic link (links are refused; "
                "name the file itself)"
            ) from None
        raise MemoryStoreError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise MemoryStoreError(f"cannot import {str(path)!r}: not a regular file")
        if info.st_size > MAX_IMPORT_BYTES:
            raise MemoryStoreError(
                f"cannot import {str(path)!r}: {info.st_size} bytes, over the "
                f"{MAX_IMPORT_BYTES} byte limit of an import"
            )
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > MAX_IMPORT_BYTES:  # it grew while being read
                raise MemoryStoreError(f"cannot import {str(path)!r}: over the size limit")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise MemoryStoreError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_export(path: Path) -> list[ExportRecord]:
    try:
        lines = _read_bounded(path).decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise MemoryStoreError(f"cannot read {str(path)!r}: {exc}") from None
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if _nesting(line) > MAX_NESTING:
            raise MemoryStoreError(
                f"{path}:{number}: not a memory record: nested deeper than {MAX_NESTING} levels"
            )
        try:
            records.append(ExportRecord.model_validate(json.loads(line)))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "record"
            raise MemoryStoreError(
                f"{path}:{number}: field {field!r}: {first['msg'][:200]}"
            ) from None
        except (ValueError, RecursionError) as exc:
            raise MemoryStoreError(
                f"{path}:{number}: not a memory record: {str(exc).splitlines()[0][:200]}"
            ) from None
    return records


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _nesting(line: str) -> int:
    """The deepest bracket nesting of a JSON line, outside strings (json.loads of 200,000
    nested lists raises RecursionError; this counts without recursing, strings removed first
    by one regex pass so a 50 MB body costs milliseconds)."""
    if line.count("[") + line.count("{") <= MAX_NESTING:
        return 0
    depth = deepest = 0
    for char in _STRING.sub("", line):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _differences(stored: ResearchMemory, record: ExportRecord) -> list[str]:
    """What of a stored memory differs from the file's record (empty: the same memory)."""
    pairs = {
        "status": (stored.status, record.status),
        "scope": (stored.scope, record.scope),
        "title": (stored.title, record.title),
        "body": (stored.body, record.body),
        "tags": (tuple(stored.tags), tuple(record.tags)),
    }
    return [name for name, (have, want) in pairs.items() if have != want]


def import_memories(
    store: ResearchMemoryStore, path: Path, actor: str = "import"
) -> tuple[int, int]:
    """Insert absent memories with their status in one transaction; returns (added, kept).
    The file is checked whole before anything is written; a conflict writes nothing."""
    records = read_export(path)
    store.initialise()
    added = kept = 0
    conflicts: list[str] = []
    seen: set[str] = set()
    with store.transaction() as conn:
        for record in records:
            if record.id in seen:
                conflicts.append(f"{record.id} (twice in the file)")
                continue
            seen.add(record.id)
            stored = store.get_in(conn, record.id)
            if stored is not None:
                differ = _differences(stored, record)
                if differ:
                    conflicts.append(
                        f"{record.id} (store: {stored.status}, file: {record.status}; "
                        f"differs in {', '.join(differ)})"
                    )
                else:
                    kept += 1
                continue
            now = datetime.fromisoformat(now_iso())
            memory = ResearchMemory(
                id=record.id,
                scope=record.scope,
                title=record.title,
                body=record.body,
                tags=record.tags,
                status="draft",
                version=1,
                created_at=now,
                updated_at=now,
                provenance=record.provenance or f"import:{path.name}",
            )
            store.insert_draft(conn, memory, actor)
            if record.status in ("published", "retracted"):
                store.apply_transition(conn, record.id, "publish", actor)
            if record.status == "retracted":
                store.apply_transition(conn, record.id, "retract", actor)
            added += 1
        if conflicts:
            shown = "; ".join(conflicts[:10]) + (" ..." if len(conflicts) > 10 else "")
            raise MemoryStoreError(
                f"import of {str(path)!r} refused, nothing written: {len(conflicts)} "
                f"memories differ from the store: {shown}"
            )
    return added, kept
