"""Published research memory: a SQLite store whose every write is audited.

- ``store``: the store (draft -> published -> retracted, FTS5 search over published memories).
- ``audit``: the audit log as a hash chain, its guards and verification.
- ``database_file``: the database file refused when linked, its SQLite failures named.
- ``seed``: seeding a store from JSONL without touching what exists.
- ``transfer``: export and import between stores.
"""
