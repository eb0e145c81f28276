"""LLM query planner: the LLM proposes versioned JSON tool_rounds; it never holds a tool.

Config: ``conf/planner/llm.yaml`` with ``prompt=arr-router-v1|arr-router-v2`` and the ``llm``
client (shared with an LLM reranker, so they share one call budget). The LLM sees the query and
the registered tools' names and capability summaries, nothing else: no scope, root or path.
The reply is parsed strictly (arr.llm.replies) into a schema that has only ``tool``, ``query``
and ``top_k`` per call, so a plan can never set a scope, a path, a size cap or an endpoint. Any
failure (timeout, HTTP error, budget, non-JSON, schema or version mismatch) falls back to the
RuleQueryPlanner's plan with a degradation whose code names the failure. A valid plan still
goes through every admission check of the Router.

With ``adaptive: true`` the Router may ask for one more round after each round, giving the
evidence so far as clearly delimited untrusted data (ids and short snippets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arr import codes
from arr.llm.client import LLMError
from arr.llm.replies import parse_object
from arr.llm.schemas import plan_schema
from arr.models import MAX_TOP_K, Degradation, EvidenceChunk, QueryPlan, ToolRound
from arr.planner.rule import PlanOutcome, RuleQueryPlanner


class _Call(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    tool: str = Field(min_length=1, max_length=64)
    query: str = Field(min_length=1, max_length=2000)
    top_k: int | None = Field(default=None, ge=1, le=MAX_TOP_K)


# Parsing bounds only (the reply is also cut at max_reply_chars). The budgets themselves (12
# calls, 6 rounds) are the Router's, enforced the same way whatever the plan's shape: extra
# calls are rejected one by one with budget_calls_exhausted / budget_rounds_exhausted and the
# answer is partial. A plan is never refused whole for being over budget.
MAX_PARSED_CALLS_PER_ROUND = 64
MAX_PARSED_ROUNDS = 24


class _Round(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: tuple[_Call, ...] = Field(min_length=1, max_length=MAX_PARSED_CALLS_PER_ROUND)


class _Plan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    tool_rounds: tuple[_Round, ...] = Field(max_length=MAX_PARSED_ROUNDS)


def render(template: str, **values: str) -> str:
    """Fill ``{name}`` slots without str.format (prompts contain literal JSON braces)."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def tool_list(tools: Mapping[str, str]) -> str:
    return "\n".join(f"- {name}: {summary}" for name, summary in sorted(tools.items()))


def evidence_digest(evidence: Sequence[EvidenceChunk], limit: int = 10, chars: int = 160) -> str:
    lines = []
    for chunk in evidence[:limit]:
        snippet = " ".join(chunk.snippet.split())[:chars].replace("EVIDENCE>>>", "EVIDENCE>")
        lines.append(f"[{chunk.id}] {snippet}")
    return "\n".join(lines) or "(none)"


class LLMQueryPlanner:
    name = "llm"

    def __init__(
        self,
        client: Any,
        prompt: Mapping[str, str],
        max_reply_chars: int = 20_000,
        adaptive: bool = False,
        fallback_top_k: int | None = None,
        top_k: int | None = 50,
        user_query: bool = False,
    ) -> None:
        for key in ("version", "system", "user"):
            if not prompt.get(key):
                raise ValueError(f"prompt is missing {key!r}")
        if adaptive and not prompt.get("next_round"):
            raise ValueError("adaptive planning needs a prompt with a 'next_round' template")
        self.client = client
        self.prompt = dict(prompt)
        self.version = prompt["version"]
        self.max_reply_chars = max_reply_chars
        self.adaptive = adaptive
        if top_k is not None and not 1 <= top_k <= MAX_TOP_K:
            raise ValueError(f"top_k must be in 1..{MAX_TOP_K}, got {top_k}")
        # ``top_k``: the depth of a call the model gave none (eval=tree sets 100 for every
        # planner); the rule plan of a fallback uses it too unless fallback_top_k is set.
        self.top_k = top_k
        # the model picks the tools (and depth); every call searches the question's own words
        self.user_query = bool(user_query)
        fallback = fallback_top_k if fallback_top_k is not None else top_k
        self._fallback = RuleQueryPlanner(top_k=fallback, version=self.version)

    def _ask(
        self,
        user: str,
        tools: Mapping[str, str],
        notes: list[tuple[str, str]],
        query: str,
        last: bool = False,
    ) -> _Plan:
        reply = self.client.chat(
            [
                {"role": "system", "content": self.prompt["system"]},
                {"role": "user", "content": user},
            ],
            schema=plan_schema(
                self.version, list(tools), allow_empty=last, with_query=not self.user_query
            ),
            schema_name="tool_plan",
            notes=notes,
        )
        data = parse_object(reply, self.max_reply_chars)
        if self.user_query:
            data = with_query(data, query)
        try:
            plan = _Plan.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise LLMError(codes.LLM_PLAN_INVALID, f"{where}: {first['msg']}") from None
        if plan.version != self.version:
            raise LLMError(
                codes.LLM_PLAN_WRONG_VERSION, f"version {plan.version!r}, expected {self.version!r}"
            )
        return plan

    def _to_rounds(self, plan: _Plan) -> list[dict[str, Any]]:
        def call(c: _Call) -> dict[str, Any]:
            found = c.model_dump()
            if found["top_k"] is None:
                found["top_k"] = self.top_k
            return found

        return [{"calls": [call(c) for c in r.calls]} for r in plan.tool_rounds]

    def plan(self, query: str, tools: Mapping[str, str]) -> PlanOutcome:
        user = render(self.prompt["user"], tools=tool_list(tools), query=query)
        notes: list[tuple[str, str]] = []
        try:
            proposed = self._ask(user, tools, notes, query)
            if not proposed.tool_rounds:
                raise LLMError(codes.LLM_PLAN_INVALID, "the plan has no rounds")
            plan = QueryPlan.model_validate(
                {"version": self.version, "tool_rounds": self._to_rounds(proposed)}
            )
        except LLMError as exc:
            fallback = self._fallback.plan(query, tools)
            return PlanOutcome(
                plan=fallback.plan,
                planner="rule",
                degradations=llm_degradations("planner", notes, exc),
            )
        return PlanOutcome(
            plan=plan, planner=self.name, degradations=llm_degradations("planner", notes)
        )

    def next_round(
        self, query: str, tools: Mapping[str, str], evidence: Sequence[EvidenceChunk]
    ) -> tuple[ToolRound | None, Degradation | None]:
        """One more round, or None to stop; a failure stops with a degradation."""
        if not self.adaptive:
            return None, None
        user = render(
            self.prompt["next_round"],
            tools=tool_list(tools),
            query=query,
            evidence=evidence_digest(evidence),
        )
        notes: list[tuple[str, str]] = []
        try:
            proposed = self._ask(user, tools, notes, query, last=True)
        except LLMError as exc:
            return None, llm_degradations("planner", [], exc)[0]
        # the schema refused: asked plainly (recorded once, as any refusal)
        note = next(iter(llm_degradations("planner", notes)), None)
        if not proposed.tool_rounds:
            return None, note
        return ToolRound.model_validate(self._to_rounds(proposed)[0]), note


def with_query(data: dict[str, Any], query: str) -> dict[str, Any]:
    """The reply with every call's ``query`` set to the question (``user_query``); a reply of
    another shape is left for validation to refuse."""
    rounds = data.get("tool_rounds")
    if isinstance(rounds, list):
        for tool_round in rounds:
            calls = tool_round.get("calls") if isinstance(tool_round, dict) else None
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict):
                    call["query"] = query
    return data


# The search's deadline came first (the client's ``llm_deadline``), named for the stage: the
# rule plan ran instead of a late one, or the rule order stood.
DEADLINE_CODES = {"planner": codes.PLANNER_TIMEOUT, "reranker": codes.RERANKER_TIMEOUT}


def llm_degradations(
    stage: str, notes: Sequence[tuple[str, str]], failure: LLMError | None = None
) -> tuple[Degradation, ...]:
    """What an LLM stage records: the client's notes (a refused response_format), then the
    failure that made it fall back, if any."""
    found = list(notes)
    if failure is not None:
        code = DEADLINE_CODES[stage] if failure.code == codes.LLM_DEADLINE else failure.code
        found.append((code, failure.detail))
    return tuple(Degradation(stage=stage, code=c, detail=d[:300]) for c, d in found)
