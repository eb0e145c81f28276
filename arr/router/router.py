"""RetrievalRouter: the only executor. It re-checks every proposed call and runs admitted ones.

Config: ``conf/router/default.yaml``. Admission, per call and in this order, with fixed codes
(``arr.codes``): forbidden identifier (on a canonical form: NFKC, case-folded, separators
removed, so ``web_search``, ``Shell`` and ``sh-ell`` are caught), registered (exact match),
read-only, local provider, call budget, index freshness. Round n+1 runs only while the budget
remains and round n added new evidence; otherwise the evidence so far is returned with
``partial=True``. A failing channel is a degradation and never discards other channels'
evidence. Before returning, every candidate is checked against the request scope again
(defence in depth): mismatches are dropped and counted. The router holds no per-request state,
so one instance can serve many threads.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from arr import codes
from arr.errors import ConfigError, QueryError
from arr.models import (
    Degradation,
    EvidenceChunk,
    QueryPlan,
    Rejection,
    RouterResult,
    ScopeKey,
    ToolCall,
    ToolTrace,
    resolve_scope,
)
from arr.planner.rule import PlanOutcome, RuleQueryPlanner
from arr.tools.base import ChannelAnswer, ChannelError, Tool

FORBIDDEN_IDENTIFIERS: tuple[str, ...] = (
    "remote",
    "websearch",
    "shell",
    "command",
    "write",
    "exec",
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
MAX_ROUNDS = 6
MAX_CALLS = 12


def canonical_identifier(name: str) -> str:
    """NFKC, case-folded, with every non-alphanumeric character removed."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", name).casefold())


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
    return query


@dataclass
class _Run:
    """Mutable bookkeeping of one search; never shared between requests."""

    rankings: dict[str, list[EvidenceChunk]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    traces: list[ToolTrace] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    degradations: list[Degradation] = field(default_factory=list)
    calls_used: int = 0
    partial: bool = False


class RetrievalRouter:
    def __init__(
        self,
        tools: Mapping[str, Tool],
        planner: object,
        fusion: object,
        reranker: object,
        scopes: Mapping[str, ScopeKey] | None = None,
        max_rounds: int = MAX_ROUNDS,
        max_calls: int = MAX_CALLS,
        max_query_chars: int = 1000,
    ) -> None:
        if not 1 <= max_rounds <= MAX_ROUNDS:
            raise ConfigError(f"router.max_rounds must be in 1..{MAX_ROUNDS}, got {max_rounds}")
        if not 1 <= max_calls <= MAX_CALLS:
            raise ConfigError(f"router.max_calls must be in 1..{MAX_CALLS}, got {max_calls}")
        if not tools:
            raise ConfigError("no tools are registered; choose at least one, e.g. tools=[bm25]")
        if max_query_chars < 1:
            raise ConfigError(f"router.max_query_chars must be >= 1, got {max_query_chars}")
        self.tools = dict(tools)
        self.planner = planner
        self.fusion = fusion
        self.reranker = reranker
        self.scopes = dict(scopes or {})
        self.max_rounds = max_rounds
        self.max_calls = max_calls
        self.max_query_chars = max_query_chars
        self._fallback_planner = RuleQueryPlanner()

    def warm_up(self) -> None:
        for tool in self.tools.values():
            tool.warm_up()

    def tool_summaries(self) -> dict[str, str]:
        """What a planner may see: names and capability summaries, nothing else."""
        return {name: getattr(tool, "summary", "") for name, tool in sorted(self.tools.items())}

    def resolve_scope(self, scope: ScopeKey | str | Mapping[str, str]) -> ScopeKey:
        return resolve_scope(scope, self.scopes)

    # ---- the request path --------------------------------------------------------------------
    def search(
        self, query: str, scope: ScopeKey | str | Mapping[str, str], plan: QueryPlan | None = None
    ) -> RouterResult:
        """Plan (unless a plan is given), admit, execute, fuse, rerank, check scope."""
        started = time.perf_counter()
        check_query(query, self.max_query_chars)
        key = self.resolve_scope(scope)
        outcome = PlanOutcome(plan=plan, planner="given") if plan else self._plan(query)
        run = _Run(degradations=list(outcome.degradations))
        self._execute(outcome.plan, key, run)
        fused = self.fusion.fuse(run.rankings)  # type: ignore[attr-defined]
        ranked, reranker_name = self._rerank(query, fused, run)
        evidence = [c for c in ranked if c.scope == key]
        dropped = len(ranked) - len(evidence)
        if dropped:
            run.degradations.append(
                Degradation(
                    stage="router",
                    code=codes.SCOPE_MISMATCH_DROPPED,
                    detail=f"{dropped} candidates dropped",
                )
            )
        return RouterResult(
            query=query,
            scope=key,
            planner=outcome.planner,
            plan=outcome.plan,
            evidence=tuple(evidence),
            traces=tuple(run.traces),
            rejections=tuple(run.rejections),
            degradations=tuple(run.degradations),
            partial=run.partial,
            scope_dropped=dropped,
            scope_leak_count=sum(c.scope != key for c in evidence),
            reranker=reranker_name,
            elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
        )

    def _plan(self, query: str) -> PlanOutcome:
        try:
            return self.planner.plan(query, self.tool_summaries())  # type: ignore[attr-defined]
        except Exception as exc:  # a broken planner must never break a search
            outcome = self._fallback_planner.plan(query, self.tool_summaries())
            failure = Degradation(
                stage="planner",
                code=codes.PLANNER_FALLBACK,
                detail=f"{type(exc).__name__}: {exc}"[:300],
            )
            return PlanOutcome(plan=outcome.plan, planner="rule", degradations=(failure,))

    def _rerank(
        self, query: str, fused: list[EvidenceChunk], run: _Run
    ) -> tuple[list[EvidenceChunk], str]:
        try:
            return self.reranker.rerank(query, fused), self.reranker.name  # type: ignore[attr-defined]
        except Exception as exc:
            run.degradations.append(
                Degradation(
                    stage="reranker",
                    code="reranker_error",
                    detail=f"{type(exc).__name__}: {exc}"[:300],
                )
            )
            return fused, "none"

    def _execute(self, plan: QueryPlan, scope: ScopeKey, run: _Run) -> None:
        added_last = True
        for number, tool_round in enumerate(plan.tool_rounds, 1):
            if number > self.max_rounds:
                for call in (c for r in plan.tool_rounds[number - 1 :] for c in r.calls):
                    self._reject(
                        run,
                        number,
                        call.tool,
                        codes.BUDGET_ROUNDS,
                        f"at most {self.max_rounds} rounds",
                    )
                run.partial = True
                return
            if not added_last:
                run.degradations.append(
                    Degradation(
                        stage="router",
                        code=codes.NO_NEW_EVIDENCE,
                        detail=f"round {number - 1} added nothing; rounds {number}.. skipped",
                    )
                )
                run.partial = True
                return
            added_last = False
            for call in tool_round.calls:
                added_last |= self._run_call(number, call, scope, run)
        if run.calls_used == 0:
            run.degradations.append(
                Degradation(
                    stage="router",
                    code=codes.NO_ADMITTED_CALLS,
                    detail="every proposed call was rejected",
                )
            )

    def _admission(self, call: ToolCall, scope: ScopeKey, run: _Run) -> tuple[str, str] | None:
        if is_forbidden(call.tool):
            return codes.FORBIDDEN_IDENTIFIER, "identifier names a forbidden capability"
        tool = self.tools.get(call.tool)
        if tool is None:
            return codes.TOOL_NOT_REGISTERED, f"registered tools: {sorted(self.tools)}"
        if getattr(tool, "read_only", False) is not True:
            return codes.NOT_READ_ONLY, "tool is not read-only"
        if getattr(tool, "provider", None) != "local":
            return codes.PROVIDER_NOT_LOCAL, f"provider {getattr(tool, 'provider', None)!r}"
        if run.calls_used >= self.max_calls:
            return codes.BUDGET_CALLS, f"at most {self.max_calls} calls"
        try:
            freshness = tool.freshness(scope)
        except Exception as exc:  # cannot tell: refuse rather than serve a possibly stale index
            return codes.FRESHNESS_UNKNOWN, f"{type(exc).__name__}: {exc}"[:300]
        if not freshness.fresh:
            return freshness.code, freshness.detail
        return None

    def _call_tool(self, call: ToolCall, scope: ScopeKey, run: _Run) -> ChannelAnswer:
        """Run one admitted call; failures become degradations and an empty error answer."""
        try:
            answer = self.tools[call.tool].retrieve(call, scope)
        except ChannelError as exc:
            run.degradations.append(Degradation(stage=call.tool, code=exc.code, detail=exc.detail))
            return ChannelAnswer([], {"_error": 1}, exc.code)
        except Exception as exc:  # any channel failure is a degradation, never a lost search
            detail = f"{type(exc).__name__}: {exc}"[:300]
            run.degradations.append(
                Degradation(stage=call.tool, code=codes.CHANNEL_ERROR, detail=detail)
            )
            return ChannelAnswer([], {"_error": 1}, codes.CHANNEL_ERROR)
        return answer if isinstance(answer, ChannelAnswer) else ChannelAnswer(list(answer))

    def _reject(self, run: _Run, number: int, tool: str, code: str, detail: str) -> None:
        run.rejections.append(Rejection(round=number, tool=tool, code=code, detail=detail))
        run.traces.append(ToolTrace(round=number, tool=tool, status="rejected", code=code))

    def _run_call(self, number: int, call: ToolCall, scope: ScopeKey, run: _Run) -> bool:
        """Admit and run one call; True when it added evidence not seen before."""
        refusal = self._admission(call, scope, run)
        if refusal is not None:
            self._reject(run, number, call.tool, *refusal)
            if refusal[0] == codes.BUDGET_CALLS:
                run.partial = True
            return False
        run.calls_used += 1
        started = time.perf_counter()
        answer = self._call_tool(call, scope, run)
        found = answer.evidence
        if answer.counters.get("_error"):
            status, code = "error", answer.cut
        elif answer.cut:
            status, code = ("ok" if found else "empty"), f"cut_{answer.cut}"
        else:
            status, code = ("ok", codes.OK) if found else ("empty", codes.EMPTY)
        if status == "error" or answer.cut == "deadline":
            run.partial = True
        if answer.cut == "deadline":
            run.degradations.append(
                Degradation(
                    stage=call.tool,
                    code=codes.CHANNEL_DEADLINE,
                    detail="the scan hit its deadline; results cut",
                )
            )
        counters = {k: v for k, v in answer.counters.items() if not k.startswith("_")}
        run.traces.append(
            ToolTrace(
                round=number,
                tool=call.tool,
                status=status,
                code=code,
                candidates=len(found),
                elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
                counters=counters,
            )
        )
        fresh = [c for c in found if c.id not in run.seen]
        run.seen.update(c.id for c in found)
        run.rankings.setdefault(call.tool, []).extend(found)
        return bool(fresh)
