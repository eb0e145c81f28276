"""Approval is not execution: proposed actions are validated, decided and receipted, never run.

A plan or a user may *propose* an action (publish a memory, re-index, run an experiment). An
ApprovalRequest is validated (allowed action kinds, a well-formed scope, the payload schema of
its kind), decided by an approver (ConfiguredApprover in evaluation: approve or deny as configured)
and closed with a receipt that says, always, ``executed: false``. Every stage is a row of an
append-only ledger (its own SQLite file; triggers refuse UPDATE and DELETE) whose rows form a
hash chain: each row's hash covers its content and the previous row's hash, so
``arr audit verify`` detects any edit, deletion or reordering. Nothing here touches the memory
store, the workspace or a subprocess.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arr.errors import ArrError
from arr.memory import audit_key
from arr.models import ScopeKey

GENESIS = "0" * 64
SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, request_id TEXT NOT NULL,
    stage TEXT NOT NULL CHECK (stage IN ('requested', 'validated', 'decided', 'receipt')),
    body TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, mac TEXT
);
CREATE TRIGGER IF NOT EXISTS ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'approval ledger is append-only'); END;
CREATE TRIGGER IF NOT EXISTS ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'approval ledger is append-only'); END;
-- REPLACE deletes a colliding row (on seq or hash) without firing DELETE triggers.
CREATE TRIGGER IF NOT EXISTS ledger_no_replace BEFORE INSERT ON ledger
WHEN EXISTS (SELECT 1 FROM ledger WHERE seq = NEW.seq OR hash = NEW.hash)
BEGIN SELECT RAISE(ABORT, 'approval ledger is append-only'); END;
"""


class AuditError(ArrError):
    """The approval ledger's hash chain is broken (or the ledger is unreadable)."""


class _Payload(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PublishMemory(_Payload):
    memory_id: str = Field(min_length=1, max_length=128)


class Reindex(_Payload):
    tools: tuple[str, ...] = Field(min_length=1, max_length=8)


class RunExperiment(_Payload):
    name: str = Field(min_length=1, max_length=200)
    overrides: tuple[str, ...] = Field(default=(), max_length=50)


PAYLOADS: dict[str, type[_Payload]] = {
    "publish_memory": PublishMemory,
    "reindex": Reindex,
    "run_experiment": RunExperiment,
}


class ApprovalRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    request_id: str = Field(min_length=1, max_length=128)
    action: str
    scope: dict[str, Any]
    payload: dict[str, Any]
    requested_by: str = "planner"
    reason: str = ""


def validation_errors(request: ApprovalRequest) -> list[str]:
    errors = []
    if request.action not in PAYLOADS:
        errors.append(f"action {request.action!r} is not allowed; allowed: {sorted(PAYLOADS)}")
    try:
        ScopeKey.model_validate(request.scope)
    except ValidationError as exc:
        errors.append(f"scope: {exc.errors()[0]['msg']}")
    if request.action in PAYLOADS:
        try:
            PAYLOADS[request.action].model_validate(request.payload)
        except ValidationError as exc:
            first = exc.errors()[0]
            errors.append(f"payload.{'.'.join(map(str, first['loc']))}: {first['msg']}")
    return errors


class Approver(Protocol):
    """Who decides an approval request: ``(decision, reason)``, decision "approve" or "deny".
    Deciding is all it does: an approved action is receipted, never run."""

    def decide(self, request: ApprovalRequest) -> tuple[str, str]: ...


class ConfiguredApprover:
    """Decides every request as configured, without a human (``eval.approvals.decision``):
    evaluation replays proposed actions through it to check validation and receipts."""

    def __init__(self, decision: Literal["approve", "deny"] = "deny", reason: str = "") -> None:
        if decision not in ("approve", "deny"):
            raise ValueError(f"decision must be 'approve' or 'deny', got {decision!r}")
        self.decision = decision
        self.reason = reason or f"configured approver: {decision}"

    def decide(self, request: ApprovalRequest) -> tuple[str, str]:
        return self.decision, self.reason


def _hash(prev: str, at: str, request_id: str, stage: str, body: str) -> str:
    canonical = json.dumps([prev, at, request_id, stage, body], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ApprovalLedger:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=5, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(SCHEMA)
        if "mac" not in {r[1] for r in conn.execute("PRAGMA table_info(ledger)")}:
            # a ledger made before keys: its rows from here carry MACs; the first of them is
            # remembered outside the workspace (arr.memory.audit_key), so stripping them shows
            conn.execute("ALTER TABLE ledger ADD COLUMN mac TEXT")
        return conn

    def append(self, request_id: str, stage: str, body: dict[str, Any]) -> str:
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")  # the previous hash is read and used atomically
            last = conn.execute("SELECT hash, mac FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
            prev = last[0] if last else GENESIS
            first_keyed = last is None or last[1] is None
            at = datetime.now(timezone.utc).isoformat(timespec="microseconds")
            text = json.dumps(body, sort_keys=True, ensure_ascii=False)
            digest = _hash(prev, at, request_id, stage, text)
            inserted = conn.execute(
                "INSERT INTO ledger (at, request_id, stage, body, prev_hash, hash, mac) "
                "VALUES (?,?,?,?,?,?,?)",
                (at, request_id, stage, text, prev, digest, audit_key.sign(self.path, digest)),
            )
            conn.execute("COMMIT")
            if first_keyed:
                audit_key.remember_keyed(self.path, digest)
            if inserted.lastrowid is not None:  # the head, outside the workspace
                audit_key.remember_head(self.path, int(inserted.lastrowid), digest)
            return digest
        except BaseException:
            # Only a transaction that began can be rolled back; otherwise the original error
            # (disk full, database locked) is what the user must see, not "cannot rollback".
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
        finally:
            conn.close()

    def rows(self, request_id: str | None = None) -> list[dict[str, Any]]:
        conn = self._connect()
        conn.row_factory = sqlite3.Row
        try:
            sql, args = "SELECT * FROM ledger", ()
            if request_id is not None:
                sql, args = sql + " WHERE request_id = ?", (request_id,)
            return [dict(r) for r in conn.execute(sql + " ORDER BY seq", args).fetchall()]
        finally:
            conn.close()


def process(request: ApprovalRequest, approver: Approver, ledger: ApprovalLedger) -> dict[str, Any]:
    """requested -> validated -> decided -> receipt; returns the receipt. Executes nothing."""
    ledger.append(request.request_id, "requested", request.model_dump())
    errors = validation_errors(request)
    ledger.append(request.request_id, "validated", {"valid": not errors, "errors": errors})
    if errors:
        decision, why = "rejected_invalid", "validation failed"
    else:
        decision, why = approver.decide(request)
    ledger.append(request.request_id, "decided", {"decision": decision, "reason": why})
    receipt = {
        "request_id": request.request_id,
        "action": request.action,
        "decision": decision,
        "executed": False,
        "note": "approval is not execution: nothing was run",
    }
    receipt["hash"] = ledger.append(request.request_id, "receipt", receipt)
    return receipt


def verify_chain(path: Path) -> int:
    """Number of ledger rows; AuditError when any row, link or guard does not check out."""
    if not Path(path).is_file():
        raise AuditError(
            f"no approval ledger at {str(path)!r} yet: one is written when an evaluation "
            "replays approval requests (arr eval; eval.approvals in the config), or name one "
            "with db=<approvals database>"
        )
    problems, rows, _, _ = verify_ledger(Path(path))
    if problems:
        raise AuditError(f"approval ledger {str(path)!r}: {'; '.join(problems[:5])}")
    return rows


def verify_ledger(path: Path) -> tuple[list[str], int, str, list[str]]:
    """(problems, rows, head hash, requests without a receipt) of an approvals ledger, read
    read-only: verification never creates or writes a table of what it checks."""
    from arr.memory.audit import read_only, schema_names
    from arr.memory.schema_check import schema_problems

    head = audit_key.recorded_head(Path(path))  # before the rows: see check_macs
    try:
        conn = read_only(path)
        try:
            if "ledger" not in schema_names(conn, "table"):
                return ["not an approvals ledger (no ledger table)"], 0, GENESIS, []
            # every table, index, view and trigger exactly (a guard re-made with WHEN 0, an
            # AFTER INSERT trigger, an extra table or view), and SQLite's counter
            problems = schema_problems(conn, SCHEMA, triggers=())
            rows = conn.execute("SELECT * FROM ledger ORDER BY seq").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return [f"unreadable: {exc}"], 0, GENESIS, []
    prev = GENESIS
    stages: dict[str, set[str]] = {}
    for row in rows:
        if row["prev_hash"] != prev:
            problems.append(f"chain broken at row {row['seq']}: previous hash does not match")
        expected = _hash(row["prev_hash"], row["at"], row["request_id"], row["stage"], row["body"])
        if row["hash"] != expected:
            problems.append(f"chain broken at row {row['seq']}: content does not match its hash")
        prev = row["hash"]
        stages.setdefault(row["request_id"], set()).add(row["stage"])
    unreceipted = sorted(r for r, seen in stages.items() if "receipt" not in seen)
    found = audit_key.check_macs(Path(path), [dict(r) for r in rows], "approvals ledger", head)
    problems += found[0]
    return problems, len(rows), prev, unreceipted


def process_file(proposals: Path, decision: str, ledger_path: Path) -> dict[str, Any]:
    """Replay proposed actions from a JSONL file through a ConfiguredApprover; counts by
    decision."""
    approver = ConfiguredApprover(decision)  # type: ignore[arg-type]
    ledger = ApprovalLedger(ledger_path)
    counts: dict[str, int] = {}
    for number, raw in enumerate(proposals.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            request = ApprovalRequest.model_validate_json(raw)
        except ValidationError as exc:
            raise ArrError(
                f"{proposals}:{number}: invalid approval request: {exc.errors()[0]['msg']}"
            ) from None
        receipt = process(request, approver, ledger)
        counts[receipt["decision"]] = counts.get(receipt["decision"], 0) + 1
    return {
        "decisions": counts,
        "executed": 0,
        "ledger": str(ledger_path),
        "ledger_rows": verify_chain(ledger_path),
    }
