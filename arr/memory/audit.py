"""The memory store's audit log as a hash chain, its guards, and its verification.

Each audit row's ``hash`` covers its sequence number, its content and the previous row's hash
(``prev_hash``), as the approvals ledger does, so an edited, deleted, inserted or reordered row
breaks the chain. Rows written before the chain existed (no hash) are folded into the first
chained row's ``prev_hash``, so they are covered too. ``add_draft`` rows carry a digest of the
memory's content, so an edit of a memory behind the log's back is seen as well.

What triggers cannot stop (the file's owner can drop them, or edit ``sqlite_master``), the
store notices: before each write it compares the audit triggers with their definitions; a
missing or altered one is restored *and recorded* in the chain (``tamper_detected``), never
silently re-created. ``verify_memory_db`` reads the database read-only (it never creates or
writes a table) and replays the log against the memories table: every memory must have its
``add_draft`` row, its content digest, and the status and version the transitions give.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from arr.memory import audit_key
from arr.memory.schema import TRIGGERS
from arr.memory.schema_check import AUDIT_COLUMNS, fts_problems, schema_problems

GENESIS = "0" * 64


def row_hash(*fields: object) -> str:
    """The hash of (previous hash, seq, at, action, memory_id, actor, detail)."""
    canonical = json.dumps(list(fields), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def content_digest(scope: dict[str, str], title: str, body: str, tags: list[str]) -> str:
    """What an add_draft row vouches for: the memory's scope, title, body and tags."""
    canonical = json.dumps([scope, title, body, list(tags)], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def schema_names(conn: sqlite3.Connection, kind: str) -> set[str]:
    """Names of the database's tables (``kind="table"``) or triggers (``"trigger"``)."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


def trigger_problems(conn: sqlite3.Connection) -> list[str]:
    """Audit triggers that are missing or differ from their definition."""
    found = dict(
        conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    )
    problems = []
    for name, sql in TRIGGERS.items():
        if name not in found:
            problems.append(f"trigger {name} missing")
        elif " ".join(str(found[name]).split()) != " ".join(sql.split()):
            problems.append(f"trigger {name} altered")
    return problems


def columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(audit)")}


def lacks_chain(conn: sqlite3.Connection) -> bool:
    """True for an audit table made before the chain (no hash columns)."""
    return "hash" not in columns(conn)


def chain_columns(conn: sqlite3.Connection) -> None:
    """Give an audit table made before the chain its two columns (rows stay as they are)."""
    if lacks_chain(conn):
        conn.execute("ALTER TABLE audit ADD COLUMN prev_hash TEXT")
        conn.execute("ALTER TABLE audit ADD COLUMN hash TEXT")


def _legacy_fold(prev: str, row: Any) -> str:
    """A row without a hash (written before the chain) folded into the running hash."""
    return row_hash(
        prev, row["seq"], row["at"], row["action"], row["memory_id"], row["actor"], row["detail"]
    )


def head(conn: sqlite3.Connection) -> tuple[int, str]:
    """(last seq, the hash the next row chains to): the last row's hash, or the fold of the
    rows written before the chain existed."""
    last = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    if last is None:
        return 0, GENESIS
    if last["hash"]:
        return last["seq"], last["hash"]
    running = GENESIS
    for row in conn.execute("SELECT * FROM audit ORDER BY seq"):
        running = row["hash"] or _legacy_fold(running, row)
    return last["seq"], running


def lacks_mac(conn: sqlite3.Connection) -> bool:
    """True for an audit table made before the keyed chain (no ``mac`` column)."""
    return "mac" not in columns(conn)


def database_path(conn: sqlite3.Connection) -> Path:
    return Path(conn.execute("PRAGMA database_list").fetchone()[2])


def append(
    conn: sqlite3.Connection, at: str, action: str, memory_id: str, actor: str, detail: str
) -> str:
    """Append one chained row inside the caller's transaction; returns its hash. The row
    carries the MAC of its hash under the audit key (:mod:`arr.memory.audit_key`); the store's
    guard gives a table made before keys its ``mac`` column first."""
    seq, prev = head(conn)
    seq += 1
    digest = row_hash(prev, seq, at, action, memory_id, actor, detail)
    conn.execute(
        "INSERT INTO audit (seq, at, action, memory_id, actor, detail, prev_hash, hash, mac)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        (seq, at, action, memory_id, actor, detail, prev, digest,
         audit_key.sign(database_path(conn), digest)),
    )  # fmt: skip
    return digest


def read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write to the database (verification never changes it)."""
    conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, timeout=5)
    conn.row_factory = sqlite3.Row
    return conn


def verify_memory_db(path: Path) -> tuple[list[str], int, str]:
    """(problems, audit rows, head hash) of a memory database, read-only. Problems name every
    break found: the schema (arr.memory.schema_check: tables, columns, triggers, the full-text
    rows), chain links and hashes, recorded tampering, and memories whose state the log does
    not account for. A damaged or foreign file is a problem, never an exception."""
    head = audit_key.recorded_head(Path(path))  # before the rows: see audit_key.check_macs
    try:
        conn = read_only(path)
    except sqlite3.DatabaseError as exc:
        return [f"unreadable: {exc}"], 0, GENESIS
    try:
        return _verify(conn, Path(path), head)
    except sqlite3.DatabaseError as exc:
        return [f"unreadable: {exc}"], 0, GENESIS
    finally:
        conn.close()


def _verify(
    conn: sqlite3.Connection, path: Path, head: tuple[int, str] | None = None
) -> tuple[list[str], int, str]:
    tables = schema_names(conn, "table")
    if "memories" not in tables:
        return ["not a memory database (no memories table)"], 0, GENESIS
    if "audit" not in tables:
        return ["the audit table is missing (dropped or renamed)"], 0, GENESIS
    problems = trigger_problems(conn) + schema_problems(conn)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(audit)")}
    missing = [c for c in AUDIT_COLUMNS if c not in columns and c not in ("prev_hash", "hash")]
    if missing:
        problems.append(f"the audit chain cannot be checked: columns {', '.join(missing)} gone")
        return problems, 0, GENESIS
    rows = [dict(r) for r in conn.execute("SELECT * FROM audit ORDER BY seq")]
    running, chained = GENESIS, False
    expected: dict[str, dict[str, Any]] = {}
    for row in rows:
        stored = row.get("hash")
        if stored is None:
            if chained:
                problems.append(f"row {row['seq']}: no hash after the chain began (forged)")
            running = _legacy_fold(running, row)
        else:
            chained = True
            if row.get("prev_hash") != running:
                problems.append(f"row {row['seq']}: previous hash does not match (a row "
                                "before it was deleted, inserted or reordered)")  # fmt: skip
            if stored != row_hash(
                row.get("prev_hash"), row["seq"], row["at"], row["action"], row["memory_id"],
                row["actor"], row["detail"],
            ):  # fmt: skip
                problems.append(f"row {row['seq']}: content does not match its hash")
            running = stored
        _replay(row, expected, problems)
    _compare_memories(conn, expected, problems)
    if "memory_fts" in tables:
        problems += fts_problems(conn)
    problems += audit_key.check_macs(path, rows, "memory audit", head)[0]
    return problems, len(rows), running


_STATUS_AFTER = {"publish": "published", "retract": "retracted"}


def _replay(row: Any, expected: dict[str, dict[str, Any]], problems: list[str]) -> None:
    action, memory_id = row["action"], row["memory_id"]
    try:
        detail = json.loads(row["detail"])
    except ValueError:
        detail = {}
    if action == "add_draft":
        expected[memory_id] = {
            "status": "draft",
            "version": 1,
            "content": detail.get("content"),
            # written since the schema check (older rows vouch for content only)
            "created_at": detail.get("created_at"),
            "provenance": detail.get("provenance"),
            "updated_at": detail.get("created_at"),
        }
    elif action in _STATUS_AFTER and memory_id in expected:
        expected[memory_id]["status"] = _STATUS_AFTER[action]
        expected[memory_id]["version"] += 1
        expected[memory_id]["updated_at"] = detail.get("updated_at")
    elif action == "keyed_chain_started":
        pass  # the upgrade of a store made before keys (its rows from here carry MACs)
    elif action == "tamper_detected":
        problems.append(f"row {row['seq']}: the store found tampering at {row['at']}: "
                        f"{', '.join(detail.get('problems', []))}")  # fmt: skip
    elif action in _STATUS_AFTER:
        problems.append(f"row {row['seq']}: {action} of {memory_id!r} before its add_draft")


def _compare_memories(
    conn: sqlite3.Connection, expected: dict[str, dict[str, Any]], problems: list[str]
) -> None:
    from arr.models import SCOPE_FIELDS

    seen = set()
    have = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
    needed = {"id", "title", "body", "tags", "status", "version", *SCOPE_FIELDS}
    if not needed <= have:
        problems.append("the memories cannot be compared with the log: columns "
                        f"{', '.join(sorted(needed - have))} gone")  # fmt: skip
        return
    for found in conn.execute("SELECT * FROM memories ORDER BY id"):
        row = dict(found)
        memory_id = row["id"]
        seen.add(memory_id)
        want = expected.get(memory_id)
        if want is None:
            problems.append(f"memory {memory_id!r} has no add_draft row in the audit log")
            continue
        if (row["status"], row["version"]) != (want["status"], want["version"]):
            problems.append(f"memory {memory_id!r} is {row['status']} v{row['version']}; the "
                            f"log says {want['status']} v{want['version']}")  # fmt: skip
        if want["content"] is not None:
            scope = {f: row[f] for f in SCOPE_FIELDS}
            tags = json.loads(row["tags"]) if row["tags"] else []
            if content_digest(scope, row["title"], row["body"], tags) != want["content"]:
                problems.append(f"memory {memory_id!r}: content differs from what was added")
        for field in ("created_at", "provenance", "updated_at"):
            if want.get(field) is not None and row.get(field) != want[field]:
                problems.append(f"memory {memory_id!r}: {field} is {row.get(field)!r}; the "
                                f"log says {want[field]!r}")  # fmt: skip
    for memory_id in sorted(set(expected) - seen):
        problems.append(f"memory {memory_id!r} is in the audit log but not in the store")


def remember_first_keyed(conn: sqlite3.Connection) -> None:
    """After a commit: mark, outside the workspace, where this store's keyed chain began (one
    stat once it is marked) and the row it has reached now (its head: a copy restored from
    before, or a cut tail, is then named by verify)."""
    database = database_path(conn)
    if audit_key.unmarked(database):
        try:
            first = conn.execute(
                "SELECT hash FROM audit WHERE mac IS NOT NULL ORDER BY seq LIMIT 1"
            ).fetchone()
        except sqlite3.Error:
            return  # the write is committed; the mark is made after the next one
        if first is not None:
            audit_key.remember_keyed(database, first[0])
    try:
        last = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
    except sqlite3.Error:
        return
    if last is not None:
        audit_key.remember_head(database, int(last[0]), str(last[1]))
