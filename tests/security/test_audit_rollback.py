"""A ledger that cannot be rolled back unseen, and a key that cannot sit where a search reads it
(issue 53): the head (last sequence and hash) is kept beside the key, outside the workspace,
with each operation; verify names a store behind it (an older keyed copy restored, its last
rows deleted with ``sqlite_sequence`` set back) or replaced; a key inside a scope root or in a
folder others can write is refused for every use, verify included."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from arr.audit.approval import ApprovalLedger, verify_ledger
from arr.memory import audit, audit_key
from tests.security.test_audit_tamper import make_store, problems


def test_a_memory_store_restored_to_an_older_keyed_copy_is_named(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    older = tmp_path / "older.sqlite3"
    shutil.copy(store.path, older)  # already keyed: its chain and MACs are whole
    store.add_draft("d", store.list()[0].scope, "Title d", "body d", ("t",))
    assert problems(store.path) == []
    shutil.copy(older, store.path)
    found = problems(store.path)
    assert any("rolled back" in p for p in found), found


def test_a_cut_tail_with_its_sequence_set_back_is_named(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    conn = sqlite3.connect(store.path, isolation_level=None)
    for name in audit.TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    last = conn.execute("SELECT MAX(seq) FROM audit").fetchone()[0]
    conn.execute("DELETE FROM audit WHERE seq = ?", (last,))
    conn.execute("UPDATE memories SET status = 'draft' WHERE id = 'c'")
    conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'audit'", (last - 1,))
    for sql in audit.TRIGGERS.values():
        conn.execute(sql)
    conn.close()
    assert any("last rows were removed" in p for p in problems(store.path))


def test_an_approvals_ledger_rolled_back_is_named(tmp_path: Path) -> None:
    ledger = ApprovalLedger(tmp_path / "approvals.sqlite3")
    ledger.append("r1", "requested", {"a": 1})
    older = tmp_path / "older.sqlite3"
    shutil.copy(ledger.path, older)
    ledger.append("r1", "receipt", {"a": 2})
    shutil.copy(older, ledger.path)
    found = verify_ledger(ledger.path)[0]
    assert any("rolled back" in p for p in found), found


def test_a_key_in_a_scope_root_or_a_folder_others_write_is_refused_for_verify_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arr.workspace.file import add_scope, init_workspace

    project, papers = tmp_path / "project", tmp_path / "papers"  # a root outside the workspace
    project.mkdir()
    papers.mkdir()
    init_workspace(project, {})
    add_scope(project, "papers", [str(papers)], {})
    (project / ".arr" / "state").mkdir(parents=True, exist_ok=True)
    store = make_store(project / ".arr" / "state")
    inside = papers / "audit_key.txt"
    shutil.copy(audit_key.key_path(), inside)
    os.chmod(inside, 0o600)
    monkeypatch.setenv(audit_key.KEY_ENV, str(inside))
    audit_key._check_location.cache_clear()
    found = problems(store.path)
    assert any("where a search reads" in p for p in found), found
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)
    key = shared / "audit.key"
    shutil.copy(inside, key)
    os.chmod(key, 0o600)
    monkeypatch.setenv(audit_key.KEY_ENV, str(key))
    audit_key._check_location.cache_clear()
    assert any("can be written by others" in p for p in problems(store.path))
