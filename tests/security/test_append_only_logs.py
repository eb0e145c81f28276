"""The memory audit log and the approvals ledger are append-only against every SQL statement
form: UPDATE, DELETE, REPLACE INTO, INSERT OR REPLACE (which deletes the colliding row without
firing DELETE triggers), UPSERT, and inserts that reuse a sequence number or a hash."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arr.audit.approval import ApprovalLedger, verify_chain
from arr.memory.store import ResearchMemoryStore
from tests.conftest import SCOPE_A

AUDIT_ATTACKS = [
    "UPDATE audit SET actor = 'mallory' WHERE seq = 1",
    "DELETE FROM audit WHERE seq = 1",
    "REPLACE INTO audit (seq, at, action, memory_id, actor, detail) "
    "VALUES (1, 'x', 'add_draft', 'forged', 'mallory', '{}')",
    "INSERT OR REPLACE INTO audit (seq, at, action, memory_id, actor, detail) "
    "VALUES (1, 'x', 'add_draft', 'forged', 'mallory', '{}')",
    "INSERT INTO audit (seq, at, action, memory_id, actor, detail) "
    "VALUES (1, 'x', 'a', 'm', 'mallory', '{}') ON CONFLICT(seq) DO UPDATE SET actor = 'mallory'",
    "INSERT INTO audit (seq, at, action, memory_id, actor, detail) "
    "VALUES (2, 'x', 'a', 'm', 'mallory', '{}')",
]


@pytest.mark.parametrize("statement", AUDIT_ATTACKS)
def test_audit_log_cannot_be_rewritten(tmp_path: Path, statement: str) -> None:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    store.add_draft("m1", SCOPE_A, "title", "body")
    store.transition("m1", "publish")
    before = store.audit_rows()
    conn = sqlite3.connect(tmp_path / "m.sqlite3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute(statement)
        conn.commit()
    conn.close()
    assert store.audit_rows() == before


def test_audit_log_still_appends(tmp_path: Path) -> None:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    for number in range(3):
        store.add_draft(f"m{number}", SCOPE_A, "title", "body")
    assert [r["seq"] for r in store.audit_rows()] == [1, 2, 3]


LEDGER_ATTACKS = [
    "UPDATE ledger SET body = '{}' WHERE seq = 1",
    "DELETE FROM ledger WHERE seq = 1",
    "REPLACE INTO ledger (seq, at, request_id, stage, body, prev_hash, hash) "
    "SELECT seq, at, request_id, stage, '{\"forged\": true}', prev_hash, hash FROM ledger "
    "WHERE seq = 1",
    "INSERT OR REPLACE INTO ledger (at, request_id, stage, body, prev_hash, hash) "
    "SELECT at, request_id, stage, '{}', prev_hash, hash FROM ledger WHERE seq = 2",
    "INSERT INTO ledger (seq, at, request_id, stage, body, prev_hash, hash) "
    "VALUES (1, 'x', 'r', 'requested', '{}', 'p', 'h') "
    "ON CONFLICT(seq) DO UPDATE SET body = 'forged'",
]


@pytest.mark.parametrize("statement", LEDGER_ATTACKS)
def test_ledger_cannot_be_rewritten(tmp_path: Path, statement: str) -> None:
    ledger = ApprovalLedger(tmp_path / "a.sqlite3")
    for stage in ("requested", "validated", "decided"):
        ledger.append("r1", stage, {"stage": stage})
    before = ledger.rows()
    conn = sqlite3.connect(tmp_path / "a.sqlite3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute(statement)
        conn.commit()
    conn.close()
    assert ledger.rows() == before
    assert verify_chain(tmp_path / "a.sqlite3") == 3
