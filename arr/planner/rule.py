"""Deterministic rule planner: picks channels from the shape of the query.

Config: ``conf/planner/rule.yaml``; it is also the fallback of every LLM planner. Queries that
look like error text, symbols, paths or config keys go to the lexical channels
(``lexical_tools``: grep + bm25); natural-language questions go to the semantic and lexical
channels and research memory (``semantic_tools``: vector + bm25 + memory). Only registered
tools are planned; when none of the preferred ones is registered, every registered tool is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arr.models import Degradation, QueryPlan, ToolCall

# Code-shaped tokens: each of these alone makes a query lexical.
_CODE = re.compile(
    r"\b\w+(?:Error|Exception|Warning)\b"  # ValueError, RuntimeWarning
    r"|\bTraceback\b|\berrno\b|\bsegfault\b|\bout of memory\b|\bOOM\b"
    r"|(?<![\w])_*[A-Za-z]+_[A-Za-z0-9_]+\b"  # snake_case, _private_names too
    r"|\b[a-z]{2,}[A-Z][a-z]+\w*\b"  # camelCase (not gene names such as miRNA)
    r"|\b\w+\(\)"  # call()
    r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}\b"  # dotted.config.key
    # paths: ./x ~/x, three or more components, or a file name with a known extension (a
    # prose "/input-output/" or "and/or" is not a path)
    r"|(?:^|\s)(?:\.{1,2}|~)/[\w.\-]+|(?:^|\s)/?[\w.\-]+/[\w.\-]+/[\w.\-/]*[\w.]"
    r"|\b[\w\-]+\.(?:py|yaml|yml|json|toml|md|log|cfg|sh)\b"
    # key=value, and a --flag only where a flag can stand (not a dash in "word--that")
    r"|\b[A-Za-z_][\w.]*\s*=\s*\S+|(?:^|\s)--[a-z][\w-]+"
)
# A question is prose even when it names an error word ("why does the loss become nan?").
_QUESTION = re.compile(
    r"^\s*(?:why|how|what|when|where|which|who|does|do|did|is|are|can|could|should|would)\b"
    r"|\?\s*$",
    re.IGNORECASE,
)
# Weaker identifier evidence: a CamelCase name (LlamaAttention, but also FoxO3a in a claim) or
# a _private name. Alone or in a short statement it decides "lexical"; inside prose the query
# stays hybrid and grep is added ("mixed"), so the identifier still reaches the line channel.
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+\b|(?<![\w])__?[a-z]\w*\b")
# Error words are lexical only in short queries; in a sentence they are just words.
_ERROR_WORD = re.compile(r"\b(?:error|exception|failed|fatal|warning|nan|inf)\b", re.IGNORECASE)
SHORT_QUERY_WORDS = 6


def query_shape(query: str) -> str:
    """'lexical' for error text, symbols, paths and config keys; 'mixed' for prose that names
    a CamelCase or _private identifier; 'semantic' otherwise.

    A code-shaped token (``ValueError``, ``batch_size``, ``src/train.py``, ``lr=0.1``,
    ``--flag``) decides alone; an error word (``failed``, ``nan``) only in a short query, so a
    natural-language sentence that mentions a failure still goes to the semantic channels.
    """
    if _CODE.search(query):
        return "lexical"
    words = query.split()
    if len(words) == 1 and len(words[0]) >= 3:
        return "lexical"  # one bare word is a look-up: it must reach the line-level channel
    if _NAME.search(query):
        short = len(words) <= SHORT_QUERY_WORDS and not _QUESTION.search(query)
        return "lexical" if short else "mixed"
    if (
        len(query.split()) <= SHORT_QUERY_WORDS
        and _ERROR_WORD.search(query)
        and not _QUESTION.search(query)
    ):
        return "lexical"
    return "semantic"


@dataclass(frozen=True)
class PlanOutcome:
    plan: QueryPlan
    planner: str
    degradations: tuple[Degradation, ...] = field(default=())


class RuleQueryPlanner:
    name = "rule"

    def __init__(
        self,
        lexical_tools: Sequence[str] = ("grep", "bm25"),
        semantic_tools: Sequence[str] = ("vector", "bm25", "memory"),
        top_k: int | None = None,
        version: str = "arr-router-v2",
    ) -> None:
        if not lexical_tools or not semantic_tools:
            raise ValueError("lexical_tools and semantic_tools must each name at least one tool")
        self.lexical_tools = tuple(lexical_tools)
        self.semantic_tools = tuple(semantic_tools)
        self.top_k = top_k
        self.version = version

    def plan(self, query: str, tools: Mapping[str, str]) -> PlanOutcome:
        """``tools`` maps registered tool names to capability summaries."""
        shape = query_shape(query)
        if shape == "lexical":
            preferred = self.lexical_tools
        elif shape == "mixed":  # prose naming an identifier: hybrid, and grep for the name
            preferred = (
                *self.semantic_tools,
                *(t for t in self.lexical_tools if t not in self.semantic_tools),
            )
        else:
            preferred = self.semantic_tools
        chosen = [t for t in preferred if t in tools] or sorted(tools)
        calls = tuple(ToolCall(tool=t, query=query[:2000], top_k=self.top_k) for t in chosen)
        plan = QueryPlan.model_validate(
            {"version": self.version, "tool_rounds": [{"calls": calls}]}
        )
        return PlanOutcome(plan=plan, planner=self.name)
