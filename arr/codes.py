"""Fixed reason and status codes. They are part of the public contract: traces, rejections,
degradations and reports carry exactly these strings, and tests pin them."""

from __future__ import annotations

# Admission: why the Router refused a proposed call.
FORBIDDEN_IDENTIFIER = "forbidden_identifier"
TOOL_NOT_REGISTERED = "tool_not_registered"
NOT_READ_ONLY = "not_read_only"
PROVIDER_NOT_LOCAL = "provider_not_local"
INDEX_STALE = "index_stale"
INDEX_MISSING = "index_missing"
INDEX_EMBEDDER_MISMATCH = "index_embedder_mismatch"
# stale, and an index build of the scope is running: answered without the channel meanwhile
INDEX_BUILDING = "index_building"
FRESHNESS_UNKNOWN = "freshness_unknown"
# a root of the scope was deleted or unmounted since `arr scope add`: that scope only
SCOPE_ROOT_MISSING = "scope_root_missing"
BUDGET_ROUNDS = "budget_rounds_exhausted"
BUDGET_CALLS = "budget_calls_exhausted"

# Call outcome.
OK = "ok"
EMPTY = "empty"
CHANNEL_ERROR = "channel_error"
CHANNEL_DEADLINE = "channel_deadline"
# grep: papers or notebooks new or changed since the index, still being read at the deadline
VIEWS_NOT_READY = "views_not_ready"
CALL_DEADLINE = "call_deadline_exceeded"
REQUEST_DEADLINE = "request_deadline"

# Degradations.
MEMORY_DB_MISSING = "memory_db_missing"
MEMORY_DB_CORRUPT = "memory_db_corrupt"
MEMORY_DB_LOCKED = "memory_db_locked"
MEMORY_DB_IO_ERROR = "memory_db_io_error"
MEMORY_DB_LINKED = "memory_db_linked"
DISK_FULL = "disk_full"
# the channel answered from an index still being built (its first build): what is embedded so far
INDEX_PARTIAL = "index_partial"
INDEX_CORRUPT = "index_corrupt"
NO_NEW_EVIDENCE = "no_new_evidence"
SCOPE_MISMATCH_DROPPED = "scope_mismatch_dropped"
PLANNER_FALLBACK = "planner_fallback"
# The search's deadline came before the LLM's plan (the rule plan ran) or ranking (rule order kept).
PLANNER_TIMEOUT = "planner_timeout"
RERANKER_TIMEOUT = "reranker_timeout"
NO_ADMITTED_CALLS = "no_admitted_calls"

ADMISSION_CODES: tuple[str, ...] = (
    FORBIDDEN_IDENTIFIER,
    TOOL_NOT_REGISTERED,
    NOT_READ_ONLY,
    PROVIDER_NOT_LOCAL,
    INDEX_STALE,
    INDEX_MISSING,
    INDEX_BUILDING,
    FRESHNESS_UNKNOWN,
    SCOPE_ROOT_MISSING,
    BUDGET_ROUNDS,
    BUDGET_CALLS,
)
