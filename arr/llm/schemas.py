"""JSON schemas of the replies ARR asks for, sent as ``response_format`` where the endpoint
decodes within a schema (``llm.structured_output=json_schema``).

They are tighter than what the parsers accept (arr.planner.llm, arr.reranker.llm): a tool
must be one of the registered names, a plan has at most 2 rounds of 3 calls, a query at most
``QUERY_CHARS`` characters (a small model asked for free text repeats itself until the token
limit), so that the longest plan the schema allows fits in ``conf/llm/local.yaml``'s
``max_tokens`` (a reply cut there is not JSON: seen with 120 characters and 400 tokens).
A reply is still validated as strictly as any other; the schema only makes a valid one
likely and short.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arr.models import MAX_TOP_K

QUERY_CHARS = 80
ROUNDS = 2
CALLS_PER_ROUND = 3


def plan_schema(
    version: str, tools: Sequence[str], allow_empty: bool = False, with_query: bool = True
) -> dict[str, Any]:
    """A plan of ``version`` naming only ``tools``; ``allow_empty``: zero rounds (the
    adaptive planner's "stop"); ``with_query=False``: calls name a tool and a depth only (the
    planner's ``user_query``: each call searches the question itself)."""
    properties: dict[str, Any] = {"tool": {"type": "string", "enum": sorted(tools)}}
    if with_query:
        properties["query"] = {"type": "string", "minLength": 1, "maxLength": QUERY_CHARS}
    properties["top_k"] = {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K}
    call = {
        "type": "object",
        "properties": properties,
        "required": ["tool", "query"] if with_query else ["tool"],
        "additionalProperties": False,
    }
    tool_round = {
        "type": "object",
        "properties": {
            "calls": {
                "type": "array",
                "items": call,
                "minItems": 1,
                "maxItems": CALLS_PER_ROUND,
            }
        },
        "required": ["calls"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "version": {"type": "string", "enum": [version]},
            "tool_rounds": {
                "type": "array",
                "items": tool_round,
                "minItems": 0 if allow_empty else 1,
                "maxItems": 1 if allow_empty else ROUNDS,
            },
        },
        "required": ["version", "tool_rounds"],
        "additionalProperties": False,
    }


def ranking_schema(ids: Sequence[str]) -> dict[str, Any]:
    """``{"ranking": [...]}`` of exactly ``len(ids)`` of the given ids (each once is checked
    after: JSON schema's uniqueItems is not decoded by every server)."""
    return {
        "type": "object",
        "properties": {
            "ranking": {
                "type": "array",
                "items": {"type": "string", "enum": list(ids)},
                "minItems": len(ids),
                "maxItems": len(ids),
            }
        },
        "required": ["ranking"],
        "additionalProperties": False,
    }
