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
        copied_to_grep: bool = True,
        line_tool: str = "grep",
        line_max_chars: int = 256,
    ) -> None:
        if not lexical_tools or not semantic_tools:
            raise ValueError("lexical_tools and semantic_tools must each name at least one tool")
        if line_max_chars < 1:
            raise ValueError(f"line_max_chars must be >= 1, got {line_max_chars}")
        # a sentence copied from a text's middle is also asked of the line tool, as one phrase
        # only: a natural question taken for one finds no phrase and adds nothing
        self.copied_to_grep = copied_to_grep
        self.line_tool = line_tool
        # a request longer than the line tool's pattern limit is not sent to it (it could only
        # refuse it, and the answer would be partial for a plan's choice)
        self.line_max_chars = line_max_chars
        self.lexical_tools = tuple(lexical_tools)
        self.semantic_tools = tuple(semantic_tools)
        self.top_k = top_k
        self.version = version
        self._templates: dict[tuple[str, ...], QueryPlan] = {}

    def plan(self, query: str, tools: Mapping[str, str]) -> PlanOutcome:
        """``tools`` maps registered tool names to capability summaries."""
        shape = query_shape(query)
        phrase = False
        if shape == "lexical":
            preferred = self.lexical_tools
        elif shape == "mixed" or (phrase := self.copied_to_grep and copied(query)):
            # prose naming an identifier, or a copied sentence: hybrid, and grep for the name
            # or the sentence word for word
            preferred = (
                *self.semantic_tools,
                *(t for t in self.lexical_tools if t not in self.semantic_tools),
            )
        else:
            preferred = self.semantic_tools
        chosen = [t for t in preferred if t in tools]
        if len(query) > self.line_max_chars and len(chosen) > 1:
            chosen = [t for t in chosen if t != self.line_tool]
        chosen = chosen or sorted(tools)
        phrased = (self.line_tool,) if phrase else ()  # a mixed query's grep finds the name
        plan = self._plan_for(query[:2000], tuple(chosen), phrased)
        return PlanOutcome(plan=plan, planner=self.name)

    def _plan_for(
        self, query: str, chosen: tuple[str, ...], phrased: tuple[str, ...] = ()
    ) -> QueryPlan:
        """The plan of this (trusted, configured) planner: validated once per tool list and
        version, then reused with only the query changed (the query was checked by the
        Router; the Router admits every call of every plan whoever made it)."""
        if not query:  # only the Router's checked queries take the fast path below
            ToolCall(tool=chosen[0], query=query)  # raises the validation error
        template = self._templates.get((*chosen, "|", *phrased))
        if template is None:
            calls = tuple(
                ToolCall(tool=t, query="x", top_k=self.top_k, phrase=t in phrased) for t in chosen
            )
            template = QueryPlan.model_validate(
                {"version": self.version, "tool_rounds": [{"calls": calls}]}
            )
            self._templates[(*chosen, "|", *phrased)] = template
        (only_round,) = template.tool_rounds
        calls = tuple(replaced(c, query=query) for c in only_round.calls)
        return replaced(template, tool_rounds=(replaced(only_round, calls=calls),))
