"""Research memory store: its own SQLite database (WAL) with an append-only audit log.

Memories move draft -> published -> retracted; only published ones are searchable. Every write
and its audit row commit in one transaction, so a memory never exists without its audit trail.
Triggers make the audit table append-only. Full-text search uses FTS5 over published memories,
and the five scope columns are filtered inside the same SQL statement (no over-fetch).
Used by ``conf/tools/memory.yaml`` (through arr.tools.memory) and the ``arr memory`` command.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from arr import codes
from arr.errors import MemoryStoreError
from arr.memory import audit, audit_key
from arr.memory.database_file import database_failure, file_state
from arr.memory.schema import SCHEMA
from arr.models import SCOPE_FIELDS, ResearchMemory, ScopeKey
from arr.safety.rules import name_holds_credential

TRANSITIONS = {"publish": ("draft", "published"), "retract": ("published", "retracted")}
_WORD = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str, max_terms: int = 32) -> str:
    """User text -> a safe FTS5 expression: each word quoted, OR-ed (no FTS syntax injection)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:max_terms]
    return " OR ".join(f'"{w}"' for w in words)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _row_to_memory(row: sqlite3.Row) -> ResearchMemory:
    return ResearchMemory(
        id=row["id"],
        scope=ScopeKey(**{f: row[f] for f in SCOPE_FIELDS}),
        title=row["title"],
        body=row["body"],
        tags=tuple(json.loads(row["tags"])),
        status=row["status"],
        version=row["version"],
        created_at=datetime.fromisoformat(row["created_at"]),
        updated_at=datetime.fromisoformat(row["updated_at"]),
        provenance=row["provenance"],
    )


def _busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


class ResearchMemoryStore:
    """Thin, parameterised-only access to one memory database file."""

    def __init__(self, path: Path | str, busy_timeout_ms: int = 5000) -> None:
        self.path = Path(path)
        self.busy_timeout_ms = busy_timeout_ms

    def _connect(self, create: bool) -> sqlite3.Connection:
        info = file_state(self.path)  # a linked database is refused
        if not create and (info is None or not stat.S_ISREG(info.st_mode)):
            raise MemoryStoreError(
                f"memory database {str(self.path)!r} does not exist", codes.MEMORY_DB_MISSING
            )
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline, pause = time.monotonic() + self.busy_timeout_ms / 1000, 0.02
        while True:
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None
            )
            conn.row_factory = sqlite3.Row
            try:
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
                if create:
                    conn.execute("PRAGMA journal_mode = WAL")
                    conn.executescript(SCHEMA)
                    self._guard(conn)
                else:
                    conn.execute("SELECT 1 FROM memories LIMIT 1").fetchall()
                return conn
            except sqlite3.Error as exc:
                conn.close()
                # Two processes making one new database (a sweep's parallel jobs): the journal
                # switch and the schema take locks SQLite does not wait for (its deadlock guard
                # answers "locked" at once), so the set-up is tried again within the timeout.
                if not (create and _busy(exc) and time.monotonic() < deadline):
                    raise database_failure(self.path, exc) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.25)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``): everything done on the connection
        commits together or not at all (a write and its audit row; an import of many memories,
        a kill half-way)."""
        conn = self._connect(create=True)
        try:
            conn.execute("BEGIN IMMEDIATE")
            yield conn
            conn.execute("COMMIT")
            audit.remember_first_keyed(conn)  # after the commit: never a row rolled back
        except BaseException as exc:
            # Only a transaction that began can be rolled back; otherwise the original error
            # (disk full, database locked) is what the user must see, not "cannot rollback".
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError):
                raise database_failure(self.path, exc) from None
            raise
        finally:
            conn.close()

    def initialise(self) -> None:
        self._connect(create=True).close()

    @staticmethod
    def _guard(conn: sqlite3.Connection) -> None:
        """The audit log's guards before any write: the chain's columns on a store made before
        it, and the append-only triggers. A trigger missing or altered on a store that has
        been used is tampering: restored and recorded in the chain, never silently."""
        # one look at the columns: the chain's (hash) and the key's (mac)
        if {"hash", "mac"} <= audit.columns(conn) and not audit.trigger_problems(conn):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            audit.chain_columns(conn)
            if audit.lacks_mac(conn):  # made before keys: upgraded in place, and recorded
                conn.execute("ALTER TABLE audit ADD COLUMN mac TEXT")
                key = audit_key.load(create=True)
                assert key is not None
                detail = json.dumps({"key": audit_key.fingerprint(key)})
                audit.append(conn, now_iso(), "keyed_chain_started", "", "arr", detail)
            problems = audit.trigger_problems(conn)  # again, now that no one else writes
            used = conn.execute(
                "SELECT EXISTS (SELECT 1 FROM audit) OR EXISTS (SELECT 1 FROM memories)"
                " OR EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger'"
                " AND name LIKE 'audit_%')"
            ).fetchone()[0]
            for name, sql in audit.TRIGGERS.items():
                if f"trigger {name} altered" in problems:
                    conn.execute(f"DROP TRIGGER {name}")
                if any(p.startswith(f"trigger {name} ") for p in problems):
                    conn.execute(sql)
            if problems and used:
                detail = json.dumps({"problems": problems}, sort_keys=True)
                audit.append(conn, now_iso(), "tamper_detected", "", "arr", detail)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @staticmethod
    def _audit(
        conn: sqlite3.Connection, action: str, memory_id: str, actor: str, detail: dict[str, object]
    ) -> None:
        audit.append(conn, now_iso(), action, memory_id, actor, json.dumps(detail, sort_keys=True))

    def add_draft(
        self,
        memory_id: str,
        scope: ScopeKey,
        title: str,
        body: str,
        tags: tuple[str, ...] = (),
        provenance: str = "",
        actor: str = "cli",
        if_absent: bool = False,
    ) -> ResearchMemory | None:
        """Insert a draft; an existing id is an error (or skipped with ``if_absent``)."""
        now = now_iso()
        memory = ResearchMemory(
            id=memory_id,
            scope=scope,
            title=title,
            body=body,
            tags=tags,
            status="draft",
            version=1,
            created_at=datetime.fromisoformat(now),
            updated_at=datetime.fromisoformat(now),
            provenance=provenance,
        )
        with self.transaction() as conn:
            if not self.insert_draft(conn, memory, actor):
                if if_absent:
                    return None
                raise MemoryStoreError(f"memory {memory_id!r} already exists")
        return memory

    def insert_draft(self, conn: sqlite3.Connection, memory: ResearchMemory, actor: str) -> bool:
        """Insert ``memory`` as a draft with its audit row inside the caller's transaction
        (see ``transaction``); False when the id exists (nothing written)."""
        if name_holds_credential(memory.id):  # ids are shown in every listing and answer
            raise MemoryStoreError("a memory id may not hold a credential", codes.CREDENTIAL)
        memory_id, scope = memory.id, memory.scope
        if conn.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone():
            return False
        now = memory.created_at.isoformat(timespec="microseconds")
        conn.execute(
            "INSERT INTO memories (id, team_id, project_id, repository, branch,"
            " experiment_environment, title, body, tags, status, version, created_at,"
            " updated_at, provenance) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                memory_id,
                *(getattr(scope, f) for f in SCOPE_FIELDS),
                memory.title,
                memory.body,
                json.dumps(list(memory.tags)),
                "draft",
                1,
                now,
                now,
                memory.provenance,
            ),
        )
        content = audit.content_digest(
            scope.model_dump(), memory.title, memory.body, list(memory.tags)
        )
        # created_at and provenance too: an edit of either behind the log is seen by verify
        detail = {
            "scope": scope.label(),
            "content": content,
            "created_at": now,
            "provenance": memory.provenance,
        }
        self._audit(conn, "add_draft", memory_id, actor, detail)
        return True

    def transition(self, memory_id: str, action: str, actor: str = "cli") -> ResearchMemory:
        """publish (draft -> published) or retract (published -> retracted), audited."""
        if action not in TRANSITIONS:
            raise MemoryStoreError(f"unknown action {action!r}; valid: {sorted(TRANSITIONS)}")
        with self.transaction() as conn:
            return self.apply_transition(conn, memory_id, action, actor)

    def apply_transition(
        self, conn: sqlite3.Connection, memory_id: str, action: str, actor: str
    ) -> ResearchMemory:
        """``transition`` inside the caller's transaction (see ``transaction``)."""
        before, after = TRANSITIONS[action]
        row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise MemoryStoreError(f"no memory with id {memory_id!r}")
        if row["status"] != before:
            raise MemoryStoreError(
                f"cannot {action} memory {memory_id!r}: it is {row['status']}, not {before}"
            )
        at = now_iso()
        conn.execute(
            "UPDATE memories SET status = ?, version = version + 1, updated_at = ? WHERE id = ?",
            (after, at, memory_id),
        )
        if after == "published":
            conn.execute(
                "INSERT INTO memory_fts (memory_id, title, body, tags) VALUES (?,?,?,?)",
                (memory_id, row["title"], row["body"], " ".join(json.loads(row["tags"]))),
            )
        else:
            conn.execute("DELETE FROM memory_fts WHERE memory_id = ?", (memory_id,))
        self._audit(conn, action, memory_id, actor, {"from": before, "to": after, "updated_at": at})
        updated = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return _row_to_memory(updated)

    @staticmethod
    def get_in(conn: sqlite3.Connection, memory_id: str) -> ResearchMemory | None:
        """``get`` inside the caller's transaction."""
        row = conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchone()
        return _row_to_memory(row) if row else None

    def get(self, memory_id: str) -> ResearchMemory | None:
        conn = self._connect(create=False)
        try:
            return self.get_in(conn, memory_id)
        except sqlite3.Error as exc:  # damaged past the first page, locked, full: named
            raise database_failure(self.path, exc) from None
        finally:
            conn.close()

    def list(
        self, scope: ScopeKey | None = None, status: str | None = None
    ) -> list[ResearchMemory]:
        sql, args = "SELECT * FROM memories WHERE 1 = 1", []
        if scope is not None:
            sql += "".join(f" AND {f} = ?" for f in SCOPE_FIELDS)
            args += [getattr(scope, f) for f in SCOPE_FIELDS]
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        conn = self._connect(create=False)
        try:
            rows = conn.execute(sql + " ORDER BY id", args).fetchall()
        finally:
            conn.close()
        return [_row_to_memory(r) for r in rows]

    def audit_rows(self) -> list[dict[str, object]]:
        conn = self._connect(create=False)
        try:
            rows = conn.execute("SELECT * FROM audit ORDER BY seq").fetchall()
        finally:
            conn.close()
        return [dict(r) for r in rows]

    def search(
        self, query: str, scope: ScopeKey, top_k: int, time_limit_s: float | None = None
    ) -> list[tuple[ResearchMemory, float]]:
        """Published memories of exactly this scope matching the query, best first."""
        expression = fts_query(query)
        if not expression:
            return []
        where = " AND ".join(f"m.{f} = ?" for f in SCOPE_FIELDS)
        sql = (
            "SELECT m.*, bm25(memory_fts) AS rank FROM memory_fts"
            " JOIN memories m ON m.id = memory_fts.memory_id"
            f" WHERE memory_fts MATCH ? AND m.status = 'published' AND {where}"
            " ORDER BY rank, m.id LIMIT ?"
        )
        conn = self._connect(create=False)
        if time_limit_s is not None:
            # SQLite calls this every 1000 VM steps; a non-zero answer interrupts the query.
            stop_at = time.monotonic() + time_limit_s
            conn.set_progress_handler(lambda: int(time.monotonic() > stop_at), 1000)
        try:
            rows = conn.execute(
                sql, (expression, *(getattr(scope, f) for f in SCOPE_FIELDS), top_k)
            ).fetchall()
        except sqlite3.Error as exc:
            if "interrupted" in str(exc).lower():  # our own time limit, not a broken file
                raise MemoryStoreError(
                    f"memory search stopped at its {time_limit_s:.2f} s limit",
                    codes.CHANNEL_DEADLINE,
                ) from None
            raise database_failure(self.path, exc) from None
        finally:
            conn.close()
        # FTS5 bm25() is lower-is-better; negate so every channel reports higher-is-better.
        return [(_row_to_memory(r), -float(r["rank"])) for r in rows]
