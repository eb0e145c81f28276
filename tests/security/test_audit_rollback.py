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


def test_a_rollback_behind_a_deleted_head_record_is_named(tmp_path: Path) -> None:
    """Restoring an older copy and deleting the head's record (outside the workspace) passed
    verify: nothing was left to compare with. The record's absence is named now."""
    store = make_store(tmp_path)
    older = tmp_path / "older.sqlite3"
    shutil.copy(store.path, older)
    store.add_draft("d", store.list()[0].scope, "Title d", "body d", ("t",))
    assert problems(store.path) == []
    shutil.copy(older, store.path)
    audit_key._mark(store.path).with_suffix(".head").unlink()
    found = problems(store.path)
    assert any("is gone: a rollback" in p for p in found), found


def test_a_head_record_replaced_by_a_link_to_an_older_one_is_named(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    head = audit_key._mark(store.path).with_suffix(".head")
    older_head = tmp_path / "older.head"
    shutil.copy(head, older_head)
    older = tmp_path / "older.sqlite3"
    shutil.copy(store.path, older)
    store.add_draft("d", store.list()[0].scope, "Title d", "body d", ("t",))
    shutil.copy(older, store.path)
    head.unlink()
    os.symlink(older_head, head)  # the older head: the rows agree with it
    found = problems(store.path)
    assert any("is a link or not a plain file" in p for p in found), found
    assert not any("rolled back" in p for p in found)  # what the link alone would have hidden


def test_a_store_never_keyed_needs_no_head_record(tmp_path: Path) -> None:
    from arr.memory.store import ResearchMemoryStore

    path = tmp_path / "plain.sqlite3"
    ResearchMemoryStore(path)  # created, nothing appended: no chain keyed here
    assert not audit_key._mark(path).with_suffix(".head").exists()
    assert not any("head" in p for p in problems(path))
