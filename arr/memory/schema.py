"""The memory store's schema: its tables and the audit log's append-only triggers, in one
module that the store, the audit log and the schema check all read (none of them imports
another for it)."""

from __future__ import annotations

SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL, project_id TEXT NOT NULL, repository TEXT NOT NULL,
    branch TEXT NOT NULL, experiment_environment TEXT NOT NULL,
    title TEXT NOT NULL, body TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL CHECK (status IN ('draft', 'published', 'retracted')),
    version INTEGER NOT NULL CHECK (version >= 1),
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, provenance TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS memories_scope ON memories
    (team_id, project_id, repository, branch, experiment_environment, status);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(memory_id UNINDEXED, title, body, tags);
CREATE TABLE IF NOT EXISTS audit (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL, action TEXT NOT NULL, memory_id TEXT NOT NULL,
    actor TEXT NOT NULL, detail TEXT NOT NULL, prev_hash TEXT, hash TEXT, mac TEXT
);
"""
TRIGGERS = {
    "audit_no_update": "CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit\n"
    "BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END",
    "audit_no_delete": "CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit\n"
    "BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END",
    # REPLACE and INSERT OR REPLACE delete the row they collide with without firing DELETE
    # triggers (recursive triggers are off): refuse any insert that names an existing row.
    "audit_no_replace": "CREATE TRIGGER audit_no_replace BEFORE INSERT ON audit\n"
    "WHEN EXISTS (SELECT 1 FROM audit WHERE seq = NEW.seq)\n"
    "BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END",
}
TRIGGER_SQL = "".join(sql.replace("CREATE TRIGGER", "CREATE TRIGGER IF NOT EXISTS", 1) + ";\n"
                      for sql in TRIGGERS.values())  # fmt: skip
