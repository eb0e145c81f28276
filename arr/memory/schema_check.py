"""The memory store's schema as part of its audit: what ``arr audit verify`` compares beside the
hash chain.

The chain proves the audit rows; it says nothing of the tables around them. So the database's
schema is compared with the store's own (built from ``arr.memory.store.SCHEMA`` in memory, so
the two never drift): every table, index and trigger by its SQL, the audit and memories
columns by name and declaration (an ``ALTER TABLE ... ADD/RENAME/DROP COLUMN`` or a
``writable_schema`` edit of a table's SQL is named), no trigger beyond the audit's guards (one
that rewrites ``memories`` after an update is tampering), and the full-text table against the
published memories (a row inserted into it would make a search return a memory that does not
contain the word). Read-only: nothing here writes.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from typing import Any

AUDIT_COLUMNS = ("seq", "at", "action", "memory_id", "actor", "detail", "prev_hash", "hash")


_CHECK = re.compile(r"check\((?:[^()]|\([^()]*\))*\)")


def _normal(sql: str | None) -> str:
    text = "".join((sql or "").split()).lower()
    return text.replace("ifnotexists", "")


def _same(kind: str, name: str, found: str, expected: str) -> bool:
    """The store's SQL, or the memories table as stores made before its CHECK constraints
    were added declare it (such a store is not tampered with)."""
    if found == expected:
        return True
    return kind == "table" and name == "memories" and found == _CHECK.sub("", expected)


@functools.lru_cache(maxsize=1)
def reference() -> tuple[dict[tuple[str, str], str], dict[str, tuple[tuple[Any, ...], ...]]]:
    """(type, name) -> normalised SQL, and table -> its columns, of a store made now."""
    from arr.memory.audit import TRIGGERS
    from arr.memory.store import SCHEMA

    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        for sql in TRIGGERS.values():
            conn.execute(sql)
        found = {
            (kind, name): _normal(sql)
            for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master")
            if sql is not None
        }
        columns = {t: _columns(conn, t) for t in ("memories", "audit")}
    finally:
        conn.close()
    return found, columns


def _columns(conn: sqlite3.Connection, table: str) -> tuple[tuple[Any, ...], ...]:
    """(name, type, not null, default, primary key) of each column, in order."""
    return tuple(tuple(r)[1:] for r in conn.execute(f"PRAGMA table_info({table})"))


def schema_problems(conn: sqlite3.Connection) -> list[str]:
    """Every way the database's schema differs from the store's, each named."""
    expected, columns = reference()
    found = {
        (kind, name): (_normal(sql), table)
        for kind, name, table, sql in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master"
        )
        if sql is not None
    }
    problems = []
    for table in ("audit", "memories"):
        problems += _column_problems(table, columns[table], _columns(conn, table))
    for key, sql in sorted(expected.items()):
        kind, name = key
        if kind == "trigger":
            continue  # the triggers' own check names these (arr.memory.audit.trigger_problems)
        if key not in found:
            problems.append(f"{kind} {name} missing")
        elif not _same(kind, name, found[key][0], sql) and not (
            kind == "table" and name in columns and _column_problems_named(problems, name)
        ):
            problems.append(f"{kind} {name}: its definition was altered (not the store's SQL)")
    for (kind, name), (_, table) in sorted(found.items()):
        if (kind, name) not in expected:
            where = f" on {table}" if table != name else ""
            problems.append(f"unexpected {kind} {name}{where} (not part of the store)")
    return problems


def _column_problems_named(problems: list[str], table: str) -> bool:
    return any(p.startswith(f"table {table}: column") for p in problems)


def _column_problems(
    table: str, want: tuple[tuple[Any, ...], ...], have: tuple[tuple[Any, ...], ...]
) -> list[str]:
    names_want = [c[0] for c in want]
    names_have = [c[0] for c in have]
    out = [f"table {table}: column {n} missing (dropped or renamed)" for n in names_want
           if n not in names_have]  # fmt: skip
    out += [f"table {table}: column {n} added" for n in names_have if n not in names_want]
    declared = {c[0]: c for c in have}
    out += [
        f"table {table}: column {c[0]} declared differently ({_said(declared[c[0]])}; the "
        f"store's: {_said(c)})"
        for c in want
        if c[0] in declared and declared[c[0]] != c
    ]
    return out


def _said(column: tuple[Any, ...]) -> str:
    name, kind, not_null, default, key = column
    parts = [kind or "untyped", "NOT NULL" if not_null else "", f"DEFAULT {default}" if default
             is not None else "", "PRIMARY KEY" if key else ""]  # fmt: skip
    return " ".join(p for p in parts if p)


def fts_problems(conn: sqlite3.Connection) -> list[str]:
    """Full-text rows that are not exactly the published memories (one row each)."""
    published: dict[str, tuple[str, str, str]] = {}
    for row in conn.execute(
        "SELECT id, title, body, tags FROM memories WHERE status = 'published'"
    ):
        try:
            tags = " ".join(json.loads(row[3]))
        except (ValueError, TypeError):
            tags = str(row[3])
        published[row[0]] = (row[1], row[2], tags)
    seen: dict[str, int] = {}
    problems = []
    for memory_id, title, body, tags in conn.execute(
        "SELECT memory_id, title, body, tags FROM memory_fts"
    ):
        seen[memory_id] = seen.get(memory_id, 0) + 1
        want = published.get(memory_id)
        if want is None:
            problems.append(
                f"full-text row for {memory_id!r}, which is no published memory (a search "
                "would return what is not there)"
            )
        elif (title, body, tags) != want:
            problems.append(
                f"full-text row for {memory_id!r} differs from the memory (a search would "
                "return it for words it does not contain)"
            )
    problems += [f"memory {m!r} has {n} full-text rows" for m, n in seen.items() if n > 1]
    problems += [
        f"published memory {m!r} has no full-text row (searches miss it)"
        for m in sorted(set(published) - set(seen))
    ]
    return problems
