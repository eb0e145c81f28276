"""``arr audit verify`` and ``arr audit head``: both stores' chains, checked read-only.

A workspace keeps two hash-chained logs: the memory store's audit table (arr.memory.audit) and
the approvals ledger (arr.audit.approval). ``verify`` checks every store it finds (or the one named
with ``db=``, recognised by its tables), never writing to it; ``head`` prints each chain's head
hash to keep elsewhere, as one keeps a git commit id: ``verify head=<hash>`` then also proves
that no row up to that point was removed or rewritten, which no chain can prove by itself (its
owner may rewrite it whole).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arr.audit.approval import AuditError, verify_ledger
from arr.memory.audit import read_only, schema_names, verify_memory_db

STORE_FILES = ("memory.sqlite3", "approvals.sqlite3")


def store_kind(path: Path) -> str | None:
    """ "memory", "ledger" or None, from the tables (read-only)."""
    try:
        conn = read_only(path)
        try:
            tables = schema_names(conn, "table")
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None
    if "memories" in tables:
        return "memory"
    return "ledger" if "ledger" in tables else None


def stores(state_dir: Path, db: str | None) -> list[Path]:
    if db is not None:
        path = Path(db).expanduser()
        if not path.is_file():
            raise AuditError(
                f"no database at {str(path)!r}: the approvals ledger is written when an "
                "evaluation replays approval requests (arr eval), the memory store by arr memory"
            )
        return [path]
    found = [state_dir / name for name in STORE_FILES if (state_dir / name).is_file()]
    if not found:
        raise AuditError(
            f"no memory store or approvals ledger in {str(state_dir)!r} yet; name one with "
            "db=<database>"
        )
    return found


def _check(path: Path) -> tuple[str, list[str], int, str, list[str]]:
    kind = store_kind(path)
    if kind == "memory":
        problems, rows, head = verify_memory_db(path)
        return "memory audit", problems, rows, head, []
    if kind == "ledger":
        problems, rows, head, unreceipted = verify_ledger(path)
        return "approvals ledger", problems, rows, head, unreceipted
    return "unknown", ["neither a memory store nor an approvals ledger"], 0, "", []


KINDS = {"memory": "memory audit", "ledger": "approvals ledger"}


def verify(paths: list[Path], kept_heads: list[str] | str | None = None) -> tuple[list[str], bool]:
    """Report lines and whether every store checks out and every kept head is held by a chain.
    A head is matched to the store whose chain holds it (``memory:<hash>`` or
    ``ledger:<hash>`` names the store); one that no chain holds fails the check."""
    if isinstance(kept_heads, str):
        kept_heads = [kept_heads]
    lines, ok = [], True
    checked = [(path, *_check(path)) for path in paths]
    for path, what, problems, rows, head, unreceipted in checked:
        if problems:
            ok = False
            lines.append(f"{what} {path}: BROKEN ({len(problems)} problems, {rows} rows)")
            lines += [f"  - {p}" for p in problems[:50]]
        else:
            lines.append(f"{what} {path}: ok, {rows} rows, head {head}")
        if what in KINDS.values():
            lines.append(f"  authorship: {_keyed_note(path, what)}")
        if unreceipted:
            lines.append(
                f"  {len(unreceipted)} requests without a receipt: {', '.join(unreceipted[:20])}"
            )
    for kept in kept_heads or []:
        kind, sep, digest = kept.partition(":")
        wanted = KINDS.get(kind) if sep else None
        if sep and wanted is None:
            lines.append(f"kept head {kept!r}: name the store as memory:<hash> or ledger:<hash>")
            ok = False
            continue
        digest = digest if sep else kept
        holders = [
            (path, what)
            for path, what, *_ in checked
            if (wanted is None or what == wanted) and _holds(path, what, digest)
        ]
        if holders:
            lines += [f"kept head {digest[:16]}... is in the {w} {p}" for p, w in holders]
        else:
            ok = False
            where = f"is not in the {wanted}" if wanted else "is in no chain"
            lines.append(f"kept head {digest} {where}: rows up to it were removed or rewritten")
    return lines, ok


def _keyed_note(path: Path, what: str) -> str:
    """Which rows the audit key authenticates (arr.memory.audit_key), in one line."""
    from arr.memory import audit_key

    table = "audit" if what == "memory audit" else "ledger"
    try:
        conn = read_only(path)
        try:
            rows = [dict(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY seq")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return f"cannot be checked ({exc})"
    return audit_key.check_macs(path, rows, what)[1]


def _holds(path: Path, what: str, kept_head: str) -> bool:
    table = "audit" if what == "memory audit" else "ledger"
    try:
        conn = read_only(path)
        try:
            return bool(
                conn.execute(f"SELECT 1 FROM {table} WHERE hash = ?", (kept_head,)).fetchone()
            )
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return False


def heads(paths: list[Path]) -> list[str]:
    """``<what> <path>: <head hash>`` per store (one verification each)."""
    lines = []
    for path in paths:
        what, _, _, head, _ = _check(path)
        lines.append(f"{what} {path}: {head}")
    return lines
