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
# No lexical index (bm25, grep) holds a word of the query (another script, a language the
# folder is not in): what is shown is the embedding's nearest passages, not matches.
QUERY_WORDS_UNKNOWN = "query_words_unknown"

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

# Trace notes on a call that ran: why a channel's scan stopped early (``cut_<why>``), and how an
# index answered fresh.
CUT_DEADLINE = "cut_deadline"
CUT_CAP = "cut_cap"
REFRESHED = "refreshed"
FRESH_WITHIN_TOLERANCE = "fresh_within_tolerance"
FRESH_WITH_OVERLAY = "fresh_with_overlay"
RERANKER_ERROR = "reranker_error"
# the scope's .bib or Zotero database could not be read while an answer was shown: its PDFs
# are named as their reader named them (arr.workspace.bib_identity)
BIBLIOGRAPHY_UNREADABLE = "bibliography_unreadable"
# a known-item rule (arr.ordering) raised, or added or dropped items: the reranked order stands
ORDERING_FAILED = "ordering_failed"

# A channel's own errors (channel_error's detail names them).
INVALID_PATTERN = "invalid_pattern"
PATTERN_TOO_LONG = "pattern_too_long"
PATH_SENSITIVE = "path_sensitive"
PATH_SYMLINK = "path_symlink"
PATH_NOT_REGULAR = "path_not_regular"
PATH_HARDLINK = "path_hardlink"
VECTOR_STORE_UNAVAILABLE = "vector_store_unavailable"

# Why a file was left out (``skipped_<reason>`` in traces, manifests and ``arr skipped``): the
# one file rule's reasons, in the order the rule asks, then the readers'.
PATH_ESCAPE = "path_escape"
SENSITIVE_NAME = "sensitive_name"
BINARY = "binary"
LINK = "link"
SPECIAL_FILE = "special_file"
HARDLINK = "hardlink"
OVERSIZE = "oversize"
CREDENTIAL = "credential"
UNREADABLE = "unreadable"
VANISHED = "vanished"
FILE_RULE_REASONS: tuple[str, ...] = (
    PATH_ESCAPE,
    SENSITIVE_NAME,
    BINARY,
    LINK,
    SPECIAL_FILE,
    HARDLINK,
    OVERSIZE,
    CREDENTIAL,
    UNREADABLE,
    VANISHED,
)
PDF_ENCRYPTED = "pdf_encrypted"
NO_TEXT = "no_text"
TOO_MANY_PAGES = "pdf_too_many_pages"
EXTRACT_TIMEOUT = "extract_timeout"
EXTRACT_MEMORY = "extract_memory"
# a text layer that is mostly control, private-use or unmapped characters (a broken font
# encoding): indexed, it would be junk found by nothing and shown as nonsense
GARBLED_TEXT = "garbled_text"
READER_REASONS: tuple[str, ...] = (
    PDF_ENCRYPTED,
    NO_TEXT,
    GARBLED_TEXT,
    UNREADABLE,
    TOO_MANY_PAGES,
    EXTRACT_TIMEOUT,
    EXTRACT_MEMORY,
)
# a reader file still being read at the deadline (not the file's fault; never remembered)
NOT_READY = "not_ready"

# The LLM client's failures (a planner or reranker falls back and names one).
LLM_BUDGET_EXHAUSTED = "llm_budget_exhausted"
LLM_DEADLINE = "llm_deadline"
LLM_TIMEOUT = "llm_timeout"
LLM_TRANSPORT = "llm_transport"
LLM_REDIRECT = "llm_redirect"
LLM_HTTP_ERROR = "llm_http_error"
LLM_BAD_CONTENT_TYPE = "llm_bad_content_type"
LLM_OVERSIZE = "llm_oversize"
LLM_BAD_RESPONSE = "llm_bad_response"
LLM_STRUCTURED_OUTPUT_UNSUPPORTED = "llm_structured_output_unsupported"
LLM_REPLY_OVERSIZE = "llm_reply_oversize"
LLM_REPLY_NOT_JSON = "llm_reply_not_json"
LLM_PLAN_INVALID = "llm_plan_invalid"
LLM_PLAN_WRONG_VERSION = "llm_plan_wrong_version"
LLM_RANKING_INVALID = "llm_ranking_invalid"
LLM_RANKING_IDS = "llm_ranking_ids"

# ``arr serve``'s answers to a request it cannot run.
SCOPE_NOT_ALLOWED = "scope_not_allowed"
SCOPE_INVALID = "scope_invalid"
QUERY_INVALID = "query_invalid"
BAD_REQUEST = "bad_request"
NOT_FOUND = "not_found"
UNKNOWN_TOOL = "unknown_tool"
INTERNAL_ERROR = "internal_error"

# ``arr eval``: a gold case whose search failed (its other cases still count), a run that failed.
QUERY_FAILED = "query_failed"
EVAL_FAILED = "eval_failed"
