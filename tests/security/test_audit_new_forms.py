"""The forms the second review found passing ``arr audit verify`` (issue 45), each a named finding
now: the full-text index checked as data, the schema compared exactly where meaning lives (both
stores), appends that must prove who made them (a keyed chain), SQLite's housekeeping judged
for what it is. The first review's forms stay in ``test_audit_tamper.py``."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from arr.audit import report as audit_report
from arr.audit.approval import ApprovalLedger, ApprovalRequest, ConfiguredApprover, process
from arr.memory import audit, audit_key
from arr.memory.audit_key import AuditKeyError
from arr.memory.store import ResearchMemoryStore
from tests.conftest import SCOPE_A
from tests.conftest import run_sql as run
from tests.security.test_audit_tamper import make_store


def make_ledger(tmp_path: Path) -> ApprovalLedger:
    ledger = ApprovalLedger(tmp_path / "approvals.sqlite3")
    request = ApprovalRequest(
        request_id="r1", action="reindex", scope=SCOPE_A.model_dump(), payload={"tools": ["bm25"]}
    )
    process(request, ConfiguredApprover("approve"), ledger)
    return ledger


def findings(path: Path) -> list[str]:
    lines, ok = audit_report.verify([path])
    return [] if ok else lines


def rowid(path: Path, memory_id: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT rowid FROM memory_fts WHERE memory_id = ?", (memory_id,)
        ).fetchone()[0]
    finally:
        conn.close()


FORGED_PUBLISH = "forged publish"


def forge_append(path: Path) -> None:
    """What anyone who can write the file can do: a correctly chained row (the chain has no
    secret), with the memory and its search row brought in line."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        for name in audit.TRIGGERS:
            conn.execute(f"DROP TRIGGER {name}")
        seq, prev = audit.head(conn)
        at = "2026-12-05T00:00:00.000000+00:00"
        detail = json.dumps({"updated_at": at}, sort_keys=True)
        digest = audit.row_hash(prev, seq + 1, at, "retract", "a", "alice", detail)
        conn.execute(
            "INSERT INTO audit (seq, at, action, memory_id, actor, detail, prev_hash, hash)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (seq + 1, at, "retract", "a", "alice", detail, prev, digest),
        )
        conn.execute(
            "UPDATE memories SET status = 'retracted', version = 3, updated_at = ? WHERE id = 'a'",
            (at,),
        )
        conn.execute("DELETE FROM memory_fts WHERE memory_id = 'a'")
        for sql in audit.TRIGGERS.values():
            conn.execute(sql)
    finally:
        conn.close()


def plant_word(path: Path) -> None:
    """A word planted in the index of memory b, the row's stored text put back."""
    number = rowid(path, "b")
    run(
        path,
        f"UPDATE memory_fts SET body = 'zebra' WHERE rowid = {number}",
        f"UPDATE memory_fts_content SET c2 = 'body b' WHERE id = {number}",
    )


def empty_entries(path: Path) -> None:
    """Memory c's index entries removed, its stored text left: hidden from every search."""
    number = rowid(path, "c")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        row = conn.execute(f"SELECT * FROM memory_fts_content WHERE id = {number}").fetchone()
        conn.execute(f"DELETE FROM memory_fts WHERE rowid = {number}")
        conn.execute(f"INSERT INTO memory_fts_content VALUES ({','.join('?' * len(row))})", row)
    finally:
        conn.close()


MEMORY_FORMS = {
    "fts_word_planted": (plant_word, "the full-text index does not match its rows"),
    "fts_entries_emptied": (empty_entries, "the full-text index does not match its rows"),
    "fts_rank_rewritten": (
        lambda p: run(p, "INSERT INTO memory_fts(memory_fts, rank) VALUES ('rank', 'bm25(10.0)')"),
        "full-text configuration rewritten",
    ),
    "check_literal_case": (
        lambda p: run(
            p,
            "PRAGMA writable_schema = ON",
            "UPDATE sqlite_master SET sql = replace(sql, '''retracted''', '''RETRACTED''')"
            " WHERE name = 'memories'",
            "PRAGMA writable_schema = OFF",
        ),
        "table memories: its definition was altered",
    ),
    "forged_append": (forge_append, "no MAC after the keyed chain began"),
    "sequence_edited": (
        lambda p: run(p, "UPDATE sqlite_sequence SET seq = 1000 WHERE name = 'audit'"),
        "sqlite_sequence counts 1000 for audit",
    ),
}


@pytest.mark.parametrize("form", sorted(MEMORY_FORMS))
def test_each_new_memory_store_form_is_a_named_finding(tmp_path: Path, form: str) -> None:
    store = make_store(tmp_path)
    assert findings(store.path) == []
    tamper, named = MEMORY_FORMS[form]
    tamper(store.path)
    lines = findings(store.path)
    assert any(named in line for line in lines), lines
    assert "BROKEN" in lines[0]


def test_a_forged_append_is_caught_even_with_a_kept_head(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    (kept,) = [line.rsplit(": ", 1)[1] for line in audit_report.heads([store.path])]
    forge_append(store.path)
    lines, ok = audit_report.verify([store.path], kept_heads=[kept])
    assert not ok and any("appended without the key" in line for line in lines)
    # a made-up MAC claiming this key, or one of another key, is no better than none
    key = audit_key.load(create=False)
    assert key is not None
    claimed = f"{audit_key.fingerprint(key)}:{'0' * 64}"
    run(store.path, "DROP TRIGGER audit_no_update", f"UPDATE audit SET mac = '{claimed}' "
        "WHERE mac IS NULL")  # fmt: skip
    assert any("its MAC does not match" in line for line in findings(store.path))
    other = audit_key.mac(b"another key of 32 bytes, not here", "x")
    run(store.path, f"UPDATE audit SET mac = '{other}' WHERE seq = 2")
    assert any("carry MACs of another key" in line for line in findings(store.path))


LEDGER_FORMS = {
    "trigger_disabled": [
        "DROP TRIGGER ledger_no_update",
        "CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger WHEN 0"
        " BEGIN SELECT RAISE(ABORT, 'approval ledger is append-only'); END",
    ],
    "trigger_message_case": [
        "DROP TRIGGER ledger_no_delete",
        "CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger"
        " BEGIN SELECT RAISE(ABORT, 'APPROVAL LEDGER IS APPEND-ONLY'); END",
    ],
    "extra_table": ["CREATE TABLE ledger_copy (seq INTEGER)"],
    "extra_view": ["CREATE VIEW approved AS SELECT * FROM ledger"],
    "extra_index": ["CREATE INDEX ledger_stage ON ledger (stage)"],
    "after_insert_trigger": [
        "CREATE TRIGGER ledger_log AFTER INSERT ON ledger BEGIN SELECT 1; END"
    ],
    "sequence_edited": ["UPDATE sqlite_sequence SET seq = 1000 WHERE name = 'ledger'"],
    "forged_row": [
        "INSERT INTO ledger (at, request_id, stage, body, prev_hash, hash)"
        " SELECT 'x', 'r2', 'receipt', '{}', hash, 'f' || hash FROM ledger"
        " ORDER BY seq DESC LIMIT 1"
    ],
}


@pytest.mark.parametrize("form", sorted(LEDGER_FORMS))
def test_each_new_ledger_form_is_a_named_finding(tmp_path: Path, form: str) -> None:
    ledger = make_ledger(tmp_path)
    assert findings(ledger.path) == []
    run(ledger.path, *LEDGER_FORMS[form])
    lines = findings(ledger.path)
    assert lines and "BROKEN" in lines[0], (form, lines)


@pytest.mark.parametrize("maintenance", ["ANALYZE", "VACUUM", "PRAGMA optimize"])
def test_sqlite_maintenance_passes(tmp_path: Path, maintenance: str) -> None:
    store = make_store(tmp_path)
    ledger = make_ledger(tmp_path)
    for path in (store.path, ledger.path):
        run(path, maintenance)
        assert findings(path) == [], (maintenance, path)


def test_verify_says_which_rows_it_authenticated(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    lines, ok = audit_report.verify([store.path])
    assert ok and "6 of 6 keyed rows authenticated" in lines[1]


def old_store(tmp_path: Path) -> Path:
    """A store as made before keys: the audit table without ``mac``, rows written."""
    store = make_store(tmp_path)
    run(
        store.path,
        *[f"DROP TRIGGER {name}" for name in audit.TRIGGERS],
        "ALTER TABLE audit DROP COLUMN mac",
        *audit.TRIGGERS.values(),
    )
    audit_key._mark(store.path).unlink()  # never keyed here
    return store.path


def test_an_old_store_upgrades_in_place_as_an_audited_step(tmp_path: Path) -> None:
    path = old_store(tmp_path)
    lines, ok = audit_report.verify([path])
    assert ok and "not keyed yet" in lines[1]
    ResearchMemoryStore(path).add_draft("d", SCOPE_A, "After keys", "written after the upgrade")
    lines, ok = audit_report.verify([path])
    assert ok, lines
    assert "2 of 2 keyed rows authenticated" in lines[1] and "predate the keyed chain" in lines[1]
    conn = sqlite3.connect(path)
    actions = [r[0] for r in conn.execute("SELECT action FROM audit ORDER BY seq")]
    conn.close()
    assert actions[-2:] == ["keyed_chain_started", "add_draft"]
    # stripping the keyed rows back to the old form is seen (the mark lies outside)
    run(
        path,
        *[f"DROP TRIGGER {name}" for name in audit.TRIGGERS],
        "UPDATE audit SET mac = NULL",
    )
    assert any("keyed chain here" in line for line in findings(path))


def test_the_key_is_made_once_private_and_never_beside_the_store(tmp_path: Path) -> None:
    make_store(tmp_path)
    path = audit_key.key_path()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o644)
    try:
        with pytest.raises(AuditKeyError, match="chmod 600"):
            audit_key.load(create=False)
    finally:
        os.chmod(path, 0o600)
    saved = path.read_text()
    path.write_text("not a hex key\n")
    try:
        with pytest.raises(AuditKeyError, match="not a hex key"):
            audit_key.load(create=False)
    finally:
        path.write_text(saved)
    workspace = tmp_path / "ws"
    database = workspace / ".arr" / "state" / "memory.sqlite3"
    with pytest.raises(AuditKeyError, match="outside the workspace"):
        audit_key.check_location(database, workspace / "notes" / "audit.key")
    audit_key.check_location(database, tmp_path / "elsewhere" / "audit.key")


def test_without_the_key_verify_cannot_vouch_for_keyed_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path)
    monkeypatch.setenv("ARR_AUDIT_KEY", str(tmp_path / "no-such.key"))
    lines = findings(store.path)
    assert any("who appended them cannot be checked" in line for line in lines)


def test_a_rolled_back_first_write_leaves_no_mark(tmp_path: Path) -> None:
    """The mark of where a keyed chain began is written after the commit: a first keyed row
    rolled back must not make verify report a keyed chain that is gone."""
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    with pytest.raises(RuntimeError), store.transaction() as conn:
        audit.append(conn, "2026-12-05T00:00:00+00:00", "add_draft", "x", "me", "{}")
        raise RuntimeError("the write fails after its audit row")
    assert audit_key.unmarked(store.path) and findings(store.path) == []
    store.add_draft("a", SCOPE_A, "Title", "body")
    assert not audit_key.unmarked(store.path) and findings(store.path) == []
