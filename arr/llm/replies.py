"""Parsing what an LLM replied: strict, bounded, and never trusted beyond its schema.

Rules (documented in the README): the reply is capped in size before parsing; it must be
exactly one JSON object, optionally inside one surrounding Markdown fence (```json ... ```),
which is the only thing stripped; duplicate keys, NaN and Infinity are refused; unknown fields
are refused at every level by the pydantic models of the caller.
"""

from __future__ import annotations

import re
from typing import Any

from arr import codes
from arr.llm.client import LLMError, strict_loads

_FENCE = re.compile(r"^\s*```(?:json)?[ \t]*\n(.*?)\n?```\s*$", re.S)


def parse_object(text: str, max_chars: int) -> dict[str, Any]:
    if len(text) > max_chars:
        raise LLMError(codes.LLM_REPLY_OVERSIZE, f"reply is {len(text)} chars; limit {max_chars}")
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    try:
        value = strict_loads(body.strip())
    except ValueError as exc:
        raise LLMError(
            codes.LLM_REPLY_NOT_JSON, f"not exactly one JSON object: {str(exc)[:120]}"
        ) from None
    if not isinstance(value, dict):
        raise LLMError(codes.LLM_REPLY_NOT_JSON, "the reply is JSON but not an object")
    return value
