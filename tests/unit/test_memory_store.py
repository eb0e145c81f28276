from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arr import codes
from arr.errors import MemoryStoreError
from arr.memory.store import ResearchMemoryStore, fts_query
from arr.models import QueryPlan, ScopeKey
from arr.tools.memory import MemoryTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, FakeTool, make_router

OTHER = ScopeKey(**{**SCOPE_A.model_dump(), "branch": "dev"})


@pytest.fixture
def store(tmp_path: Path) -> ResearchMemoryStore:
    s = ResearchMemoryStore(tmp_path / "m.sqlite3")
    s.add_draft("pub", SCOPE_A, "Warmup helps", "linear warmup removes loss spikes", ("opt",))
    s.transition("pub", "publish")
    s.add_draft("draft", SCOPE_A, "Warmup draft", "warmup draft idea loss spikes")
    s.add_draft("gone", SCOPE_A, "Warmup retracted", "warmup was useless loss spikes")
    s.transition("gone", "publish")
    s.transition("gone", "retract")
    s.add_draft("dev", OTHER, "Warmup helps", "linear warmup removes loss spikes")
    s.transition("dev", "publish")
    return s


def test_only_published_memories_of_the_scope_are_found(store: ResearchMemoryStore) -> None:
    hits = store.search("warmup loss spikes", SCOPE_A, 10)
    assert [m.id for m, _ in hits] == ["pub"]
    assert [m.id for m, _ in store.search("warmup", OTHER, 10)] == ["dev"]


def test_every_write_is_audited_and_audit_is_append_only(store: ResearchMemoryStore) -> None:
    actions = [(r["action"], r["memory_id"]) for r in store.audit_rows()]
    assert actions == [
        ("add_draft", "pub"),
        ("publish", "pub"),
        ("add_draft", "draft"),
        ("add_draft", "gone"),
        ("publish", "gone"),
        ("retract", "gone"),
        ("add_draft", "dev"),
        ("publish", "dev"),
    ]
    conn = sqlite3.connect(store.path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE audit SET actor = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM audit")
    conn.close()
    assert len(store.audit_rows()) == 8


def test_schema_constraints(store: ResearchMemoryStore) -> None:
    conn = sqlite3.connect(store.path)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE memories SET status = 'deleted' WHERE id = 'pub'")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE memories SET branch = NULL WHERE id = 'pub'")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


@pytest.mark.parametrize(
    "memory_id, action, message",
    [
        pytest.param("draft", "retract", "it is draft", id="retract-draft"),
        pytest.param("pub", "publish", "it is published", id="publish-twice"),
        pytest.param("missing", "publish", "no memory", id="unknown-id"),
        pytest.param("pub", "delete", "unknown action", id="unknown-action"),
    ],
)
def test_bad_transitions_change_nothing(
    store: ResearchMemoryStore, memory_id: str, action: str, message: str
) -> None:
    before = (store.list(), len(store.audit_rows()))
    with pytest.raises(MemoryStoreError, match=message):
        store.transition(memory_id, action)
    assert (store.list(), len(store.audit_rows())) == before


def test_duplicate_id_is_refused(store: ResearchMemoryStore) -> None:
    with pytest.raises(MemoryStoreError, match="already exists"):
        store.add_draft("pub", SCOPE_A, "t", "b")
    assert store.add_draft("pub", SCOPE_A, "t", "b", if_absent=True) is None
    assert store.get("pub").title == "Warmup helps"


@pytest.mark.parametrize("text", ['" OR 1=1 --', "title:secret", "NEAR(a b)", "*", "a AND"])
def test_fts_syntax_cannot_be_injected(store: ResearchMemoryStore, text: str) -> None:
    store.search(text, SCOPE_A, 5)  # must not raise
    assert all('"' not in part.strip('"') for part in fts_query(text).split(" OR "))


def _tool(tmp_path: Path, db: Path) -> MemoryTool:
    ws = Workspace(name="t", root=tmp_path, index_dir=tmp_path / "idx", memory_db=db, scopes={})
    return MemoryTool("memory", ws)


def _plan() -> QueryPlan:
    return QueryPlan.model_validate(
        {
            "tool_rounds": [
                {
                    "calls": [
                        {"tool": "bm25", "query": "warmup"},
                        {"tool": "memory", "query": "warmup"},
                    ]
                }
            ]
        }
    )


@pytest.mark.parametrize(
    "damage, code",
    [
        pytest.param("missing", codes.MEMORY_DB_MISSING, id="missing-db"),
        pytest.param("garbage", codes.MEMORY_DB_CORRUPT, id="corrupt-db"),
        pytest.param("empty-schema", codes.MEMORY_DB_CORRUPT, id="foreign-sqlite-file"),
    ],
)
def test_broken_memory_db_degrades_while_other_channels_answer(
    tmp_path: Path, damage: str, code: str
) -> None:
    db = tmp_path / "m.sqlite3"
    if damage == "garbage":
        db.write_bytes(b"this is not a database" * 100)
    elif damage == "empty-schema":
        sqlite3.connect(db).execute("CREATE TABLE other (x)").connection.close()
    original = db.read_bytes() if db.exists() else None
    router = make_router(FakeTool("bm25", ["a"]), _tool(tmp_path, db))
    result = router.search("warmup", SCOPE_A, plan=_plan())
    assert [e.id for e in result.evidence] == ["a"]
    assert [(d.stage, d.code) for d in result.degradations] == [("memory", code)]
    assert (db.read_bytes() if db.exists() else None) == original  # nothing touched


def test_memory_tool_returns_scoped_evidence(store: ResearchMemoryStore, tmp_path: Path) -> None:
    from arr.models import ToolCall

    evidence = _tool(tmp_path, store.path).retrieve(
        ToolCall(tool="memory", query="warmup"), SCOPE_A
    )
    assert [(e.id, e.scope, e.ranks) for e in evidence] == [("mem:pub", SCOPE_A, {"memory": 1})]


def test_linked_memory_database_is_refused(store: ResearchMemoryStore, tmp_path: Path) -> None:
    """Decision (README): a memory database that is a symbolic link or has other hard links is
    refused with a MemoryStoreError naming the path; the file itself still opens."""
    link = tmp_path / "linked.sqlite3"
    link.symlink_to(store.path)
    with pytest.raises(MemoryStoreError, match="symbolic link") as caught:
        ResearchMemoryStore(link).initialise()
    assert caught.value.code == codes.MEMORY_DB_LINKED
    hard = tmp_path / "hard.sqlite3"
    hard.hardlink_to(store.path)
    for path in (hard, store.path):
        with pytest.raises(MemoryStoreError, match="hard links"):
            ResearchMemoryStore(path).initialise()
    hard.unlink()
    ResearchMemoryStore(store.path).initialise()
