"""Deterministic rule planner: picks channels from the shape of the query.

Config: ``conf/planner/rule.yaml``; it is also the fallback of every LLM planner. Queries that
look like error text, symbols, paths or config keys go to the lexical channels
(``lexical_tools``: grep + bm25); natural-language questions go to the semantic and lexical
channels and research memory (``semantic_tools``: vector + bm25 + memory), and a sentence copied
from a text's middle (:func:`arr.query.shape.copied`) to grep too. Only registered
tools are planned; when none of the preferred ones is registered, every registered tool is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arr.models import Degradation, QueryPlan, ToolCall, replaced
from arr.query.shape import copied, query_shape


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
        top_k: int | None = 50,
        version: str = "arr-router-v2",
    ) -> None:
        if not lexical_tools or not semantic_tools:
            raise ValueError("lexical_tools and semantic_tools must each name at least one tool")
        self.lexical_tools = tuple(lexical_tools)
        self.semantic_tools = tuple(semantic_tools)
        self.top_k = top_k
        self.version = version
        self._templates: dict[tuple[str, ...], QueryPlan] = {}

    def plan(self, query: str, tools: Mapping[str, str]) -> PlanOutcome:
        """``tools`` maps registered tool names to capability summaries."""
        shape = query_shape(query)
        if shape == "lexical":
            preferred = self.lexical_tools
        elif shape == "mixed" or copied(query):
            # prose naming an identifier, or a copied sentence: hybrid, and grep for the name
            # or the sentence word for word
            preferred = (
                *self.semantic_tools,
                *(t for t in self.lexical_tools if t not in self.semantic_tools),
            )
        else:
            preferred = self.semantic_tools
        chosen = [t for t in preferred if t in tools] or sorted(tools)
        return PlanOutcome(plan=self._plan_for(query[:2000], tuple(chosen)), planner=self.name)

    def _plan_for(self, query: str, chosen: tuple[str, ...]) -> QueryPlan:
        """The plan of this (trusted, configured) planner: validated once per tool list and
        version, then reused with only the query changed (the query was checked by the
        Router; the Router admits every call of every plan whoever made it)."""
        if not query:  # only the Router's checked queries take the fast path below
            ToolCall(tool=chosen[0], query=query)  # raises the validation error
        template = self._templates.get(chosen)
        if template is None:
            calls = tuple(ToolCall(tool=t, query="x", top_k=self.top_k) for t in chosen)
            template = QueryPlan.model_validate(
                {"version": self.version, "tool_rounds": [{"calls": calls}]}
            )
            self._templates[chosen] = template
        (only_round,) = template.tool_rounds
        calls = tuple(replaced(c, query=query) for c in only_round.calls)
        return replaced(template, tool_rounds=(replaced(only_round, calls=calls),))
