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

_ERROR = re.compile(
    r"(error|exception|traceback|warning|failed|fatal|errno|segfault|nan\b|"
    r"\binf\b|oom|out of memory)",
    re.IGNORECASE,
)
_SYMBOL = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w+\b|\b\w+\(\)|\b\w+\.\w+\.\w+\b")
_PATH = re.compile(r"(^|\s)[\w.\-]*/[\w.\-/]+|\b[\w\-]+\.(py|yaml|yml|json|toml|md|log|cfg|sh)\b")
_CONFIG = re.compile(r"\b[\w.]+\s*[=:]\s*\S+|--[a-z][\w-]+")


# One pass over the query instead of four.
_LEXICAL = re.compile(f"(?i:{_ERROR.pattern})|{_SYMBOL.pattern}|{_PATH.pattern}|{_CONFIG.pattern}")


def query_shape(query: str) -> str:
    """'lexical' for error text, symbols, paths and config keys; 'semantic' otherwise."""
    return "lexical" if _LEXICAL.search(query) else "semantic"


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
        preferred = self.lexical_tools if query_shape(query) == "lexical" else self.semantic_tools
        chosen = [t for t in preferred if t in tools] or sorted(tools)
        calls = tuple(ToolCall(tool=t, query=query[:2000], top_k=self.top_k) for t in chosen)
        plan = QueryPlan.model_validate(
            {"version": self.version, "tool_rounds": [{"calls": calls}]}
        )
        return PlanOutcome(plan=plan, planner=self.name)
