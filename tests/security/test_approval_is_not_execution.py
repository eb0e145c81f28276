"""Proposed actions are validated, decided and receipted; nothing is ever executed."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from arr.audit.approval import (
    ApprovalLedger,
    ApprovalRequest,
    AuditError,
    ConfiguredApprover,
    process,
    process_file,
    verify_chain,
)
from arr.memory.store import ResearchMemoryStore
from tests.conftest import SCOPE_A


def tree_hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def no_subprocess(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a subprocess was started")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "system", refuse)
    monkeypatch.setattr(os, "execv", refuse)


@pytest.mark.parametrize("decision", ["approve", "deny"])
def test_demo_proposals_change_nothing(
    demo_copy: Path, tmp_path: Path, no_subprocess: None, decision: str
) -> None:
    store = ResearchMemoryStore(tmp_path / "memory.sqlite3")
    store.add_draft("vis-draft-004", SCOPE_A, "draft", "body")
    before_store = (store.list(), len(store.audit_rows()))
    before_tree = tree_hashes(demo_copy)
    ledger = tmp_path / "approvals.sqlite3"
    summary = process_file(demo_copy / "proposals.jsonl", decision, ledger)
    assert summary["executed"] == 0
    assert summary["decisions"] == {decision: 3, "rejected_invalid": 2}
    assert (store.list(), len(store.audit_rows())) == before_store  # the draft stays a draft
    assert tree_hashes(demo_copy) == before_tree
    rows = ApprovalLedger(ledger).rows("p1")
    assert [r["stage"] for r in rows] == ["requested", "validated", "decided", "receipt"]
    assert '"executed": false' in rows[-1]["body"]
    assert verify_chain(ledger) == 20


@pytest.mark.parametrize(
    "action, payload, error",
    [
        pytest.param("shell", {"command": "ls"}, "not allowed", id="forbidden-action"),
        pytest.param(
            "publish_memory", {"memory_id": "x", "force": True}, "force", id="extra-payload-field"
        ),
        pytest.param("reindex", {"tools": []}, "tools", id="empty-payload"),
    ],
)
def test_invalid_requests_are_rejected_with_reasons(
    tmp_path: Path, action: str, payload: dict, error: str
) -> None:
    ledger = ApprovalLedger(tmp_path / "a.sqlite3")
    request = ApprovalRequest(
        request_id="r", action=action, scope=SCOPE_A.model_dump(), payload=payload
    )
    receipt = process(request, ConfiguredApprover("approve"), ledger)
    assert receipt["decision"] == "rejected_invalid" and receipt["executed"] is False
    assert error in ledger.rows()[1]["body"]


def test_tampering_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    ledger = ApprovalLedger(path)
    for i in range(3):
        process(
            ApprovalRequest(
                request_id=f"r{i}",
                action="reindex",
                scope=SCOPE_A.model_dump(),
                payload={"tools": ["bm25"]},
            ),
            ConfiguredApprover("deny"),
            ledger,
        )
    assert verify_chain(path) == 12
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE ledger SET body = '{}' WHERE seq = 2")
    conn.execute("DROP TRIGGER ledger_no_update")  # an attacker with file access
    conn.execute("UPDATE ledger SET body = replace(body, 'deny', 'approve') WHERE seq = 7")
    conn.commit()
    conn.close()
    with pytest.raises(AuditError, match="row 7"):
        verify_chain(path)
