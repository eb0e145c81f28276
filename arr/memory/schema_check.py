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

from arr.memory.schema import SCHEMA, TRIGGERS

AUDIT_COLUMNS = ("seq", "at", "action", "memory_id", "actor", "detail", "prev_hash", "hash")
# SQLite's own tables: statistics from ANALYZE (only query plans read them) and the counters
# of AUTOINCREMENT tables (judged against the rows: see housekeeping_problems)
HOUSEKEEPING = ("sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4", "sqlite_sequence")

# SQL as tokens: string literals and quoted names kept exactly (``'retracted'`` is not
# ``'RETRACTED'``), words lower-cased (SQLite's keywords and names ignore case), comments and
# whitespace dropped, so a CHECK's or a trigger's WHEN's meaning is compared, not its layout.
_TOKEN = re.compile(
    r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\]"
    r"|[A-Za-z_0-9$]+|\S",
    re.DOTALL,
)
_CHECK = re.compile(r" check \((?:[^()]|\([^()]*\))*\)")


def _normal(sql: str | None) -> str:
    tokens = []
    for token in _TOKEN.findall(sql or ""):
        if token.startswith(("--", "/*")):
            continue
        if token[0] in '"`[':  # a quoted name: case-insensitive like any name
            token = token[1:-1].lower()
        elif token[0] != "'":
            token = token.lower()
        tokens.append(token)
    return " ".join(tokens).replace("if not exists ", "")


def _same(kind: str, name: str, found: str, expected: str) -> bool:
    """The store's SQL, or a form an older store declares it in (such a store is not tampered
    with): the memories table before its CHECK constraints, a chain table before its ``mac``
    column (upgraded in place on the next write, recorded in the chain)."""
    if found == expected:
        return True
    if kind == "table" and name == "memories" and found == _CHECK.sub("", expected):
        return True
    return (
        kind == "table"
        and name in ("audit", "ledger")
        and found == expected.replace(" , mac text", "")
    )


@functools.lru_cache(maxsize=4)
def reference(
    schema: str = SCHEMA, triggers: tuple[str, ...] = tuple(TRIGGERS.values())
) -> tuple[dict[tuple[str, str], str], dict[str, tuple[tuple[Any, ...], ...]]]:
    """(type, name) -> normalised SQL, and table -> its columns, of a store made now from
    ``schema`` and ``triggers`` (the memory store's by default; the approvals ledger passes
    its own)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(schema)
        for sql in triggers:
            conn.execute(sql)
        found = {
            (kind, name): _normal(sql)
            for kind, name, sql in conn.execute("SELECT type, name, sql FROM sqlite_master")
            if sql is not None and name not in HOUSEKEEPING
        }
        tables = [
            name for kind, name in found if kind == "table" and not name.startswith("memory_fts")
        ]
        columns = {t: _columns(conn, t) for t in tables}
    finally:
        conn.close()
    return found, columns


def _columns(conn: sqlite3.Connection, table: str) -> tuple[tuple[Any, ...], ...]:
    """(name, type, not null, default, primary key) of each column, in order."""
    return tuple(tuple(r)[1:] for r in conn.execute(f"PRAGMA table_info({table})"))


def housekeeping_problems(conn: sqlite3.Connection, table: str) -> list[str]:
    """SQLite's counter of an AUTOINCREMENT table against its rows: rows cannot be deleted
    (the triggers refuse it) and a rolled-back insert rolls the counter back, so the counter
    is the last row's ``seq``; anything else was written by hand."""
    try:
        counter = conn.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)
        ).fetchone()
    except sqlite3.OperationalError:
        return []  # no AUTOINCREMENT table ever held a row
    last = conn.execute(f"SELECT MAX(seq) FROM {table}").fetchone()[0] or 0
    if counter is not None and int(counter[0]) != last:
        return [
            f"sqlite_sequence counts {counter[0]} for {table} but its last row is {last} "
            "(the counter was edited, or rows were removed)"
        ]
    return []


def schema_problems(
    conn: sqlite3.Connection, schema: str = SCHEMA, triggers: tuple[str, ...] | None = None
) -> list[str]:
    """Every way the database's schema differs from the store's, each named: tables, indexes,
    views and triggers by their SQL (exact in literals), columns by declaration. The memory
    store's triggers are checked by :func:`arr.memory.audit.trigger_problems` (restored and
    recorded by the store); a schema given with its triggers inline (the ledger) here."""
    memory = triggers is None
    expected, columns = reference(schema, tuple(TRIGGERS.values()) if memory else triggers)
    found = {
        (kind, name): (_normal(sql), table)
        for kind, name, table, sql in conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master"
        )
        if sql is not None and name not in HOUSEKEEPING
    }
    problems = []
    for table in columns:
        problems += [
            p
            for p in _column_problems(table, columns[table], _columns(conn, table))
            if p != f"table {table}: column mac missing (dropped or renamed)"  # made before keys
        ]
    for key, sql in sorted(expected.items()):
        kind, name = key
        if kind == "trigger" and memory:
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
    for table in ("audit", "ledger"):
        if table in columns:
            problems += housekeeping_problems(conn, table)
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


def fts_index_problems(conn: sqlite3.Connection) -> list[str]:
    """The full-text *index* as data: FTS5's own integrity check (every indexed word of every
    row, against the row's text) run on an in-memory copy (the file is never written), and
    its configuration rows against a new table's (a rewritten ``rank`` changes every order)."""
    copy = sqlite3.connect(":memory:")
    problems = []
    try:
        conn.backup(copy)
        try:
            copy.execute("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')")
        except sqlite3.DatabaseError as exc:
            problems.append(
                "the full-text index does not match its rows: words were planted in it or "
                f"removed from it behind the store ({exc})"
            )
        found = sorted(tuple(r) for r in copy.execute("SELECT k, v FROM memory_fts_config"))
    except sqlite3.DatabaseError as exc:
        return [f"the full-text index cannot be checked: {exc}"]
    finally:
        copy.close()
    if found != _fts_config():
        problems.append(f"full-text configuration rewritten: {found} (a new store has "
                        f"{_fts_config()})")  # fmt: skip
    return problems


@functools.lru_cache(maxsize=1)
def _fts_config() -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        return sorted(tuple(r) for r in conn.execute("SELECT k, v FROM memory_fts_config"))
    finally:
        conn.close()


def fts_problems(conn: sqlite3.Connection) -> list[str]:
    """Full-text rows that are not exactly the published memories (one row each), and an
    index that is not exactly those rows (:func:`fts_index_problems`)."""
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
    return problems + fts_index_problems(conn)
