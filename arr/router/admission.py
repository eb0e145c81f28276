"""Admission: the Router's decision, per proposed call, to run it or refuse it with a fixed code.

Pure functions over plain values, table-tested (``tests/unit/test_admission.py``); the Router
asks them in this order and records the first refusal:

1. ``forbidden_identifier``: the tool's name, NFKC-folded and stripped of separators, holds a
   forbidden capability word (remote, websearch, shell, command, write, exec), registered or not;
2. ``tool_not_registered``; 3. ``not_read_only``; 4. ``provider_not_local``;
5. ``budget_calls_exhausted``: the request's call budget is spent;
6. the channel's freshness: ``index_missing``, ``index_stale`` (after an automatic refresh was
   tried), ``index_embedder_mismatch``, ``index_building``, ``scope_root_missing``,
   ``freshness_unknown`` (the check itself failed: refuse rather than serve a stale index).

Refusals in ``DROPPED_CODES`` drop a channel the plan wanted: the answer is ``partial`` and
carries a degradation saying the fix. ``index_partial`` is admitted: a first build is
underway and the channel answers from what is embedded so far (also partial).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from pydantic import ValidationError

from arr import codes
from arr.errors import QueryError
from arr.models import Freshness, QueryPlan

FORBIDDEN_IDENTIFIERS: tuple[str, ...] = (
    "remote",
    "websearch",
    "shell",
    "command",
    "write",
    "exec",
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Refusals that mean "this channel's index does not reflect the sources": a degradation too.
STALE_CODES = frozenset(
    {codes.INDEX_STALE, codes.INDEX_MISSING, codes.INDEX_EMBEDDER_MISMATCH, codes.INDEX_BUILDING}
)
# refusals that drop a channel the plan wanted: the answer is partial, with a degradation
DROPPED_CODES = STALE_CODES | {codes.SCOPE_ROOT_MISSING}
# ... whose detail already says the fix (no "fix: arr index ..." appended)
SELF_EXPLAINED = frozenset({codes.INDEX_BUILDING, codes.SCOPE_ROOT_MISSING})

Refusal = tuple[str, str]


def canonical_identifier(name: str) -> str:
    """NFKC, case-folded, with every non-alphanumeric character removed."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", name).casefold())


@functools.lru_cache(maxsize=1024)  # a pure function of the name, asked on every call
def is_forbidden(name: str) -> bool:
    canonical = canonical_identifier(name)
    return any(word in canonical for word in FORBIDDEN_IDENTIFIERS)


def check_query(query: object, max_query_chars: int) -> str:
    if not isinstance(query, str):
        raise QueryError(f"query must be a string, got {type(query).__name__}")
    if not query.strip():
        raise QueryError("query is empty")
    if len(query) > max_query_chars:
        raise QueryError(f"query is {len(query)} characters; the limit is {max_query_chars}")
    if _CONTROL.search(query):
        raise QueryError("query contains control characters")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise QueryError("query is not valid Unicode (it holds a lone surrogate)") from None
    return query


def identity_refusal(
    name: str, tool: object | None, registered: list[str], calls_used: int, max_calls: int
) -> Refusal | None:
    """Rules 1-5: what the call is and whether the budget allows it (no I/O)."""
    if is_forbidden(name):
        return codes.FORBIDDEN_IDENTIFIER, "identifier names a forbidden capability"
    if tool is None:
        return codes.TOOL_NOT_REGISTERED, f"registered tools: {sorted(registered)}"
    if getattr(tool, "read_only", False) is not True:
        return codes.NOT_READ_ONLY, "tool is not read-only"
    if getattr(tool, "provider", None) != "local":
        return codes.PROVIDER_NOT_LOCAL, f"provider {getattr(tool, 'provider', None)!r}"
    if calls_used >= max_calls:
        return codes.BUDGET_CALLS, f"at most {max_calls} calls"
    return None


def freshness_refusal(freshness: Freshness) -> Refusal | None:
    """Rule 6, on the channel's answer (after any refresh): refused unless fresh."""
    return None if freshness.fresh else (freshness.code, freshness.detail)


def check_failure_refusal(exc: Exception) -> Refusal:
    """Rule 6 when the freshness check raised: its own code when it names one we know (a
    deleted root), else ``freshness_unknown``."""
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code in codes.ADMISSION_CODES:
        return code, str(exc)[:300]
    return codes.FRESHNESS_UNKNOWN, f"{type(exc).__name__}: {exc}"[:300]


def dropped_detail(code: str, detail: str, fix: str) -> str:
    """The degradation's text for a dropped channel: the refusal, and the fix when it is not
    already said."""
    return (detail if code in SELF_EXPLAINED else f"{detail}; fix: {fix}")[:600]


def checked_plan(plan: object) -> QueryPlan:
    """A caller's plan, validated again field by field: a plan built with ``model_construct``
    (no validation: ``tool_rounds=None``, a call whose tool is 7) is a QueryError here, never a
    TypeError deep in admission."""
    if not isinstance(plan, QueryPlan):
        raise QueryError(f"plan must be an arr.models.QueryPlan, got {type(plan).__name__}")
    try:
        return QueryPlan.model_validate(plan.model_dump(warnings=False))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])[:100] or "plan"
        raise QueryError(f"invalid plan at {where}: {first['msg'][:200]}") from None
    except Exception as exc:  # what dumping an unvalidated object can raise
        raise QueryError(f"invalid plan: {type(exc).__name__}: {str(exc)[:200]}") from None
