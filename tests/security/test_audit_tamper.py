"""Every way a file's owner can rewrite the audit logs behind ARR's back is detected by
``arr audit verify`` (read-only), and an ARR write never hides it by silently restoring a
guard: the memory audit's hash chain, its triggers, its replay against the memories table, the
approvals ledger, and truncation relative to a kept head."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from arr.audit import report as audit_report
from arr.audit.approval import ApprovalLedger, ApprovalRequest, ConfiguredApprover, process
from arr.errors import MemoryStoreError
from arr.memory import audit, audit_key
from arr.memory.store import ResearchMemoryStore
from tests.conftest import SCOPE_A


def make_store(tmp_path: Path) -> ResearchMemoryStore:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    for name in ("a", "b", "c"):
        store.add_draft(name, SCOPE_A, f"Title {name}", f"body {name}", ("t",))
        store.transition(name, "publish")
    return store


def tamper(store: ResearchMemoryStore, *statements: str) -> None:
    conn = sqlite3.connect(store.path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def problems(path: Path) -> list[str]:
    return audit.verify_memory_db(path)[0]


T0 = "2026-01-01T00:00:00.000000+00:00"
DROP_ALL = [f"DROP TRIGGER {name}" for name in audit.TRIGGERS]
FORMS = {
    "edited_row": [*DROP_ALL, "UPDATE audit SET actor = 'someone else' WHERE seq = 2"],
    "edited_detail": [*DROP_ALL, "UPDATE audit SET detail = '{}' WHERE seq = 1"],
    "deleted_row": [*DROP_ALL, "DELETE FROM audit WHERE seq = 3"],
    "forged_row": [
        *DROP_ALL,
        "INSERT INTO audit (at, action, memory_id, actor, detail)"
        " VALUES ('2026-01-01', 'retract', 'a', 'x', '{}')",
    ],
    "reordered_rows": [
        *DROP_ALL,
        "UPDATE audit SET seq = 100 WHERE seq = 2",
        "UPDATE audit SET seq = 2 WHERE seq = 3",
        "UPDATE audit SET seq = 3 WHERE seq = 100",
    ],
    "dropped_trigger": ["DROP TRIGGER audit_no_delete"],
    "altered_trigger": [
        "DROP TRIGGER audit_no_update",
        "CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit WHEN 0"
        " BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END",
    ],
    "writable_schema": [
        "PRAGMA writable_schema = ON",
        "DELETE FROM sqlite_master WHERE type = 'trigger' AND name = 'audit_no_update'",
        "PRAGMA writable_schema = OFF",
    ],
    "renamed_table": ["ALTER TABLE audit RENAME TO audit_old"],
    "dropped_table": ["DROP TABLE audit"],
    "edited_memory": ["UPDATE memories SET body = 'rewritten' WHERE id = 'b'"],
    "added_column": ["ALTER TABLE audit ADD COLUMN note TEXT DEFAULT 'x'"],
    "renamed_column": ["ALTER TABLE audit RENAME COLUMN actor TO who"],
    "dropped_column": [*DROP_ALL, "ALTER TABLE audit DROP COLUMN detail"],
    "memories_column": ["ALTER TABLE memories ADD COLUMN owner TEXT"],
    "trigger_on_memories": [
        "CREATE TRIGGER rewrite AFTER UPDATE ON memories"
        " BEGIN UPDATE memories SET body = 'x' WHERE id = NEW.id; END"
    ],
    "fts_row_inserted": [
        "INSERT INTO memory_fts (memory_id, title, body, tags) VALUES ('a', 'T', 'zebra', '')"
    ],
    "fts_row_edited": ["UPDATE memory_fts SET body = 'zebra' WHERE memory_id = 'b'"],
    "fts_row_deleted": ["DELETE FROM memory_fts WHERE memory_id = 'c'"],
    "provenance_edited": ["UPDATE memories SET provenance = 'forged' WHERE id = 'a'"],
    "created_at_edited": [f"UPDATE memories SET created_at = '{T0}' WHERE id = 'a'"],
    "updated_at_edited": [f"UPDATE memories SET updated_at = '{T0}' WHERE id = 'b'"],
    "schema_sql_edited": [
        "PRAGMA writable_schema = ON",
        "UPDATE sqlite_master SET sql = replace(sql, 'actor TEXT NOT NULL', 'actor TEXT')"
        " WHERE name = 'audit'",
        "PRAGMA writable_schema = OFF",
    ],
    "extra_table": ["CREATE TABLE audit_shadow (seq INTEGER, hash TEXT)"],
    "status_changed": ["UPDATE memories SET status = 'draft' WHERE id = 'c'"],
}


# what each schema form's finding names (the finding says what changed, not only "broken")
NAMED = {
    "added_column": "column note added",
    "renamed_column": "column actor missing",
    "dropped_column": "column detail missing",
    "memories_column": "table memories: column owner added",
    "trigger_on_memories": "unexpected trigger rewrite on memories",
    "fts_row_inserted": "full-text row for 'a' differs",
    "fts_row_edited": "full-text row for 'b' differs",
    "fts_row_deleted": "published memory 'c' has no full-text row",
    "provenance_edited": "memory 'a': provenance",
    "created_at_edited": "memory 'a': created_at",
    "updated_at_edited": "memory 'b': updated_at",
    "schema_sql_edited": "column actor declared differently",
    "extra_table": "unexpected table audit_shadow",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_tamper_form_is_detected_and_stays_detected(tmp_path: Path, form: str) -> None:
    store = make_store(tmp_path)
    assert problems(store.path) == []
    tamper(store, *FORMS[form])
    found = problems(store.path)
    assert found, form
    if form in NAMED:
        assert any(NAMED[form] in p for p in found), found
        assert audit_report.heads([store.path])  # arr audit head: no traceback either
    # the next ARR write restores the guards but records what it found: still detected (a
    # chain without its columns takes no write: a clear error, nothing written)
    if form in ("dropped_column", "renamed_column"):
        with pytest.raises(MemoryStoreError, match="has no column named"):
            store.add_draft("after", SCOPE_A, "After", "written after the tampering")
    else:
        store.add_draft("after", SCOPE_A, "After", "written after the tampering")
    assert problems(store.path), form
    lines, ok = audit_report.verify([store.path])
    assert not ok and "BROKEN" in lines[0]


def test_a_rewritten_consistent_chain_is_caught_by_the_kept_head(tmp_path: Path) -> None:
    """The owner removes memory c and its rows and recomputes every hash: the chain and the
    replay check out, only the head kept elsewhere proves the rewrite."""
    store = make_store(tmp_path)
    (kept,) = [line.rsplit(": ", 1)[1] for line in audit_report.heads([store.path])]
    tamper(
        store,
        *DROP_ALL,
        "DELETE FROM audit WHERE memory_id = 'c'",
        "DELETE FROM memories WHERE id = 'c'",
        "DELETE FROM memory_fts WHERE memory_id = 'c'",
    )
    conn = sqlite3.connect(store.path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    prev = audit.GENESIS
    key = audit_key.load(create=False)  # the owner holds the key: MACs remade too
    assert key is not None
    for row in conn.execute("SELECT * FROM audit ORDER BY seq").fetchall():
        digest = audit.row_hash(
            prev,
            row["seq"],
            row["at"],
            row["action"],
            row["memory_id"],
            row["actor"],
            row["detail"],
        )
        conn.execute(
            "UPDATE audit SET prev_hash = ?, hash = ?, mac = ? WHERE seq = ?",
            (prev, digest, audit_key.mac(key, digest), row["seq"]),
        )
        prev = digest
    conn.execute("UPDATE sqlite_sequence SET seq = (SELECT MAX(seq) FROM audit)")
    for sql in audit.TRIGGERS.values():
        conn.execute(sql)
    conn.close()
    # what a chain cannot see, nor its key when its holder rewrote it (the mark of where the
    # keyed chain began is rewritten too: the holder of the key controls its folder)
    audit_key._mark(store.path).unlink(missing_ok=True)
    audit_key._mark(store.path).with_suffix(".head").unlink(missing_ok=True)  # and the head
    assert problems(store.path) == []
    lines, ok = audit_report.verify([store.path], kept_heads=[kept])
    assert not ok and "removed or rewritten" in lines[-1]
    _, ok_now = audit_report.verify([store.path])
    assert ok_now


def test_verify_never_writes_to_what_it_checks(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    ledger = ApprovalLedger(tmp_path / "approvals.sqlite3")
    process(
        ApprovalRequest(
            request_id="r1",
            action="reindex",
            scope=SCOPE_A.model_dump(),
            payload={"tools": ["bm25"]},
        ),
        ConfiguredApprover("approve"),
        ledger,
    )

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    before = {p: digest(p) for p in (store.path, ledger.path)}
    for _ in range(2):
        lines, ok = audit_report.verify([store.path, ledger.path])
        assert ok, lines
        audit_report.heads([store.path, ledger.path])
    assert {p: digest(p) for p in before} == before
    conn = sqlite3.connect(store.path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    conn.close()
    assert "ledger" not in tables  # a memory db is never given a ledger table


def test_approvals_ledger_deleted_request_and_missing_receipts(tmp_path: Path) -> None:
    ledger = ApprovalLedger(tmp_path / "approvals.sqlite3")
    for request_id in ("r1", "r2"):
        request = ApprovalRequest(
            request_id=request_id,
            action="reindex",
            scope=SCOPE_A.model_dump(),
            payload={"tools": ["bm25"]},
        )
        process(request, ConfiguredApprover("approve"), ledger)
    (kept,) = [line.rsplit(": ", 1)[1] for line in audit_report.heads([ledger.path])]
    conn = sqlite3.connect(ledger.path, isolation_level=None)
    for name in ("ledger_no_update", "ledger_no_delete", "ledger_no_replace"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DELETE FROM ledger WHERE request_id = 'r2'")  # the tail: links still hold
    conn.execute("DELETE FROM ledger WHERE request_id = 'r1' AND stage = 'receipt'")
    conn.close()
    lines, ok = audit_report.verify([ledger.path], kept_heads=[kept])
    text = "\n".join(lines)
    assert not ok
    assert "trigger ledger_no_delete missing" in text
    assert "requests without a receipt: r1" in text
    assert "removed or rewritten" in text


def test_a_store_from_before_the_chain_is_chained_from_its_old_rows(tmp_path: Path) -> None:
    """Rows written before the chain existed are folded into the first chained row: editing
    one of them later is detected too."""
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE memories (id TEXT PRIMARY KEY, team_id TEXT NOT NULL, project_id TEXT NOT
        NULL, repository TEXT NOT NULL, branch TEXT NOT NULL, experiment_environment TEXT NOT
        NULL, title TEXT NOT NULL, body TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '[]', status
        TEXT NOT NULL, version INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT
        NULL, provenance TEXT NOT NULL DEFAULT '');
        CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, action
        TEXT NOT NULL, memory_id TEXT NOT NULL, actor TEXT NOT NULL, detail TEXT NOT NULL);
        """
    )
    scope = SCOPE_A.model_dump()
    conn.execute(
        "INSERT INTO memories VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        ("old", *scope.values(), "T", "B", "[]", "draft", 1, T0, T0, ""),
    )
    conn.execute(
        "INSERT INTO audit (at, action, memory_id, actor, detail) VALUES "
        "(?, 'add_draft', 'old', 'cli', ?)",
        (
            T0,
            json.dumps({"scope": "x"}),
        ),
    )
    for sql in audit.TRIGGERS.values():
        conn.execute(sql)
    conn.commit()
    conn.close()
    store = ResearchMemoryStore(path)
    store.transition("old", "publish")  # the first chained row
    assert problems(path) == []
    tamper(store, *DROP_ALL, "UPDATE audit SET actor = 'forged' WHERE seq = 1")
    assert any("previous hash" in p for p in problems(path))


def test_several_kept_heads_are_each_matched_to_their_store(tmp_path: Path) -> None:
    """``head=<memory head> head=<ledger head>``: each head is found in the chain that holds
    it (not only the last one used); a head of no chain, or named for the wrong store, fails."""
    store = make_store(tmp_path)
    ledger = ApprovalLedger(tmp_path / "approvals.sqlite3")
    request = ApprovalRequest(
        request_id="r1", action="reindex", scope=SCOPE_A.model_dump(), payload={"tools": ["bm25"]}
    )
    process(request, ConfiguredApprover("approve"), ledger)
    memory_head = audit_report.heads([store.path])[0].rsplit(" ", 1)[1]
    ledger_head = audit_report.heads([ledger.path])[0].rsplit(" ", 1)[1]
    paths = [store.path, ledger.path]
    lines, ok = audit_report.verify(paths, [memory_head, ledger_head])
    assert ok, lines
    assert sum("kept head" in line for line in lines) == 2
    assert audit_report.verify(paths, [f"memory:{memory_head}", f"ledger:{ledger_head}"])[1]
    assert not audit_report.verify(paths, [f"ledger:{memory_head}"])[1]  # the wrong store
    lines, ok = audit_report.verify(paths, [memory_head, "f" * 64])
    assert not ok and any("is in no chain" in line for line in lines)
