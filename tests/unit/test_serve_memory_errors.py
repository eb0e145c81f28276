"""MCP ``memory_get`` names the store's own failure (a missing, damaged or linked database),
as the search path does, instead of calling every failure ``memory_db_missing``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arr.mcp.server import ArrService, ServiceError
from arr.memory.store import ResearchMemoryStore
from arr.tools.memory import MemoryTool
from tests.conftest import SCOPE_A, make_router


def service(db: Path) -> ArrService:
    from arr.workspace.workspace import Workspace

    workspace = Workspace(
        name="t", root=db.parent, index_dir=db.parent / "i", memory_db=db, scopes={}
    )
    tool = MemoryTool("memory", workspace)
    return ArrService(make_router(tool, scopes={"a": SCOPE_A}))  # type: ignore[arg-type]


def code_of(db: Path) -> str:
    with pytest.raises(ServiceError) as raised:
        service(db).memory_get("m1", "a")
    return raised.value.code


def test_memory_get_names_each_store_failure(tmp_path: Path) -> None:
    assert code_of(tmp_path / "absent.sqlite3") == "memory_db_missing"
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"not a database at all" * 200)
    assert code_of(damaged) == "memory_db_corrupt"
    real = tmp_path / "real.sqlite3"
    store = ResearchMemoryStore(real)
    store.add_draft("m1", SCOPE_A, "T", "B")
    store.transition("m1", "publish")
    os.symlink(real, tmp_path / "link.sqlite3")
    assert code_of(tmp_path / "link.sqlite3") == "memory_db_linked"
    assert service(real).memory_get("m1", "a")["id"] == "m1"
