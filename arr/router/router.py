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

import contextlib
import time
from collections.abc import Iterable, Mapping, Sequence

from arr import codes
from arr.errors import ConfigError, ScopeError
from arr.fusion.common import fuse
from arr.fusion.places import place_rankings
from arr.fusion.traits import LINES, having, told_traits
from arr.models import (
    Degradation,
    EvidenceChunk,
    QueryPlan,
    RouterResult,
    ScopeKey,
    ToolCall,
    resolve_scope,
    trusted,
)
from arr.ordering.known_items import KnownItemOrdering
from arr.ordering.rule import OrderingRule, PostContext, run_step
from arr.planner.contract import CallsModel, PlansRounds, RunBudget
from arr.planner.rule import PlanOutcome
from arr.router import steps
from arr.router.admission import (
    DROPPED_CODES,
    check_failure_refusal,
    check_query,
    checked_plan,
    dropped_detail,
    freshness_refusal,
    identity_refusal,
)
from arr.router.dispatch import CallPool
from arr.router.recording import Run, record
from arr.router.refresh import refresh_before_call
from arr.tools.base import ChannelError, within
from arr.tools.contract import Closable, OnWorkspace, Tool, has

MAX_ROUNDS = 6
MAX_CALLS = 12


def _chunk_grid(tools: Iterable[object]) -> int | None:
    """The line grid of the indexed chunks (a channel workspace's ``chunk_lines``), or None."""
    for tool in tools:
        lines = tool.workspace.chunk_lines if has(tool, OnWorkspace) else None
        if isinstance(lines, int) and lines > 0:
            return lines
    return None


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
        workers: int = 4,
        deadline_ms: int | None = None,
        refresh_max_files: int = 200,
        merge_places: bool = True,
        plan_share: float = 0.5,
        ordering: OrderingRule | None = None,
    ) -> None:
        if workers < 1:
            raise ConfigError(f"router.workers must be >= 1, got {workers}")
        if deadline_ms is not None and deadline_ms < 1:
            raise ConfigError(f"router.deadline_ms must be >= 1 or null, got {deadline_ms}")
        if not 1 <= max_rounds <= MAX_ROUNDS:
            raise ConfigError(f"router.max_rounds must be in 1..{MAX_ROUNDS}, got {max_rounds}")
        if not 1 <= max_calls <= MAX_CALLS:
            raise ConfigError(f"router.max_calls must be in 1..{MAX_CALLS}, got {max_calls}")
        if not 0 < plan_share <= 1:
            raise ConfigError(f"router.plan_share must be in (0, 1], got {plan_share}")
        if not tools:
            raise ConfigError("no tools are registered; choose at least one, e.g. tools=[bm25]")
        if max_query_chars < 1:
            raise ConfigError(f"router.max_query_chars must be >= 1, got {max_query_chars}")
        self.tools = dict(tools)
        self.traits = told_traits(self.tools, fusion)  # what each channel is (arr.fusion.traits)
        self.ordering = ordering if ordering is not None else KnownItemOrdering()  # after fusion
        self.planner = planner
        self.fusion = fusion
        self.reranker = reranker
        self.scopes = dict(scopes or {})
        self.max_rounds = max_rounds
        self.max_calls = max_calls
        self.max_query_chars = max_query_chars
        self.workers = workers
        self.deadline_ms = deadline_ms
        self.plan_share = plan_share
        if refresh_max_files < 0:
            raise ConfigError(f"router.refresh_max_files must be >= 0, got {refresh_max_files}")
        self.refresh_max_files = refresh_max_files
        self.merge_places = bool(merge_places)
        self._chunk_lines = _chunk_grid(self.tools.values()) if self.merge_places else None
        self.warm_failures: dict[str, Degradation] = {}
        self._calls = CallPool(workers)

    def watch_changes(self) -> None:
        """For a router that lives: its channels' workspaces watch their trees instead of
        walking them before every search
        (:meth:`arr.workspace.workspace.Workspace.watch_changes`)."""
        for tool in self.tools.values():
            if has(tool, OnWorkspace):
                tool.workspace.watch_changes()

    def new_run(self) -> None:
        """A new run for the LLM stages' call budget (``llm.max_calls``): each request of a
        server that lives (``arr serve``) is a run of its own, as each CLI command is."""
        for stage in (self.planner, self.reranker):
            if isinstance(stage, CallsModel) and isinstance(stage.client, RunBudget):
                stage.client.new_run()

    def warm_up(self) -> None:
        """Load every channel; a channel that cannot load (a damaged store) is recorded, not
        raised: its calls degrade with the cause and the repair command, the others answer."""
        for name, tool in sorted(self.tools.items()):
            try:
                tool.warm_up()
            except Exception as exc:
                code = exc.code if isinstance(exc, ChannelError) else codes.CHANNEL_ERROR
                detail = (
                    exc.detail if isinstance(exc, ChannelError) else f"{type(exc).__name__}: {exc}"
                )
                self.warm_failures[name] = Degradation(stage=name, code=code, detail=detail[:500])
            else:
                self.warm_failures.pop(name, None)

    def scope_name(self, scope: ScopeKey) -> str | None:
        return next((n for n, k in sorted(self.scopes.items()) if k == scope), None)

    def fix_command(self, tool: str, scope: ScopeKey) -> str:
        name = self.scope_name(scope)
        where = f" scope={name}" if name else ""
        return f"arr index{where} tools=[{tool}]"

    def tool_summaries(self) -> dict[str, str]:
        """What a planner may see: names and capability summaries, nothing else."""
        return {n: t.summary if has(t, Tool) else "" for n, t in sorted(self.tools.items())}

    def resolve_scope(self, scope: ScopeKey | str | Mapping[str, str]) -> ScopeKey:
        """The request's ScopeKey; one that names no configured scope is a ScopeError (not an
        empty answer that reads like ``index_missing``), when the router has scopes."""
        key = resolve_scope(scope, self.scopes)
        known = self._known_keys
        if known is None:
            known = self._known_keys = frozenset(self.scopes.values())
        if known and key not in known:
            names = sorted(self.scopes)[:50]
            raise ScopeError(f"scope {key.label()[:300]!r} is not configured; known: {names}")
        return key

    # ---- the request path --------------------------------------------------------------------
    _known_keys: frozenset[ScopeKey] | None = None

    def search(
        self, query: str, scope: ScopeKey | str | Mapping[str, str], plan: QueryPlan | None = None
    ) -> RouterResult:
        """Plan (unless a plan is given), admit, execute, fuse, rerank, check scope."""
        started = time.perf_counter()
        check_query(query, self.max_query_chars)
        key = self.resolve_scope(scope)
        if plan is not None:
            plan = checked_plan(plan)
        deadline = started + self.deadline_ms / 1000 if self.deadline_ms else None
        if plan:
            outcome = PlanOutcome(plan=plan, planner="given")
        else:  # a late plan is not waited for: the rule plan runs with the time that is left
            plan_by = None if deadline is None else started + self.plan_share * (deadline - started)
            with within(plan_by):
                outcome = steps.plan(self.planner, query, self.tool_summaries())
        run = Run(degradations=list(outcome.degradations))
        self._execute(outcome.plan, key, run, deadline, query)
        rankings: Mapping[str, Sequence[EvidenceChunk]] = run.rankings
        # with one channel there is nothing to fuse, merge across channels or move forward
        answered = sum(1 for found in rankings.values() if found)
        several = answered > 1
        chunk_lines = self._chunk_lines if several else None
        if chunk_lines:  # one item per place (arr.fusion.places)
            rankings = place_rankings(rankings, chunk_lines, having(self.traits, LINES))
        fused = fuse(self.fusion, query, rankings)
        if several:
            steps.explain_weights(self.fusion, query, rankings, run.traces)
        with within(deadline):  # an LLM reranker's call ends by the search's deadline
            ranked, reranker_name = steps.rerank(self.reranker, query, fused, run.degradations)
        ran = PostContext(
            run.traces, answered, rankings, self.tools, key, run.degradations, self.traits
        )
        ranked = run_step(self.ordering, query, ranked, ran)  # conf/ordering/: each step guarded
        # identity first: channels hand back the request's own ScopeKey when equal
        evidence = [c.for_query(query) for c in ranked if c.scope is key or c.scope == key]
        dropped = run.scope_dropped + len(ranked) - len(evidence)
        if dropped:
            run.degradations.append(
                Degradation(
                    stage="router",
                    code=codes.SCOPE_MISMATCH_DROPPED,
                    detail=f"{dropped} candidates dropped",
                )
            )
        # Every part was built (and the parts from outside validated) on the way here.
        return trusted(
            RouterResult,
            {
                "query": query,
                "scope": key,
                "planner": outcome.planner,
                "plan": outcome.plan,
                "evidence": tuple(evidence),
                "traces": tuple(run.traces),
                "rejections": tuple(run.rejections),
                "degradations": steps.degradations(self.traits, run, evidence),
                "partial": run.partial,
                "scope_dropped": dropped,
                "scope_leak_count": sum(c.scope is not key and c.scope != key for c in evidence),
                "reranker": reranker_name,
                "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
            },
        )

    def _adaptive_rounds(
        self,
        done: int,
        added_last: bool,
        query: str,
        scope: ScopeKey,
        run: Run,
        deadline: float | None,
    ) -> None:
        """Rounds a planner proposes after seeing the evidence (untrusted), while the budget
        lasts and each round adds something; every call still goes through admission."""
        next_round = self.planner.next_round if isinstance(self.planner, PlansRounds) else None
        number = done
        while next_round is not None and added_last and number < self.max_rounds:
            if run.calls_used >= self.max_calls or (
                deadline is not None and time.perf_counter() >= deadline
            ):
                return
            evidence = [c for ranking in run.rankings.values() for c in ranking]
            with within(deadline):
                proposed, failure = next_round(query, self.tool_summaries(), evidence)
            if failure is not None:
                run.degradations.append(failure)
            if proposed is None:
                return
            number += 1
            added_last = self._run_round(number, proposed.calls, scope, run, deadline)

    def _execute(
        self, plan: QueryPlan, scope: ScopeKey, run: Run, deadline: float | None, query: str
    ) -> None:
        added_last = True
        for number, tool_round in enumerate(plan.tool_rounds, 1):
            if number > self.max_rounds:
                for call in (c for r in plan.tool_rounds[number - 1 :] for c in r.calls):
                    run.reject(
                        number,
                        call.tool,
                        codes.BUDGET_ROUNDS,
                        f"at most {self.max_rounds} rounds",
                    )
                run.partial = True
                return
            if not added_last:
                return run.stop(
                    codes.NO_NEW_EVIDENCE,
                    f"round {number - 1} added nothing; rounds {number}.. skipped",
                )
            if deadline is not None and time.perf_counter() >= deadline:
                return run.stop(codes.REQUEST_DEADLINE, f"deadline reached before round {number}")
            added_last = self._run_round(number, tool_round.calls, scope, run, deadline)
        self._adaptive_rounds(len(plan.tool_rounds), added_last, query, scope, run, deadline)
        if run.calls_used == 0:
            run.degradations.append(
                Degradation(
                    stage="router",
                    code=codes.NO_ADMITTED_CALLS,
                    detail="every proposed call was rejected",
                )
            )

    def _run_round(
        self,
        number: int,
        calls: Sequence[ToolCall],
        scope: ScopeKey,
        run: Run,
        deadline: float | None,
    ) -> bool:
        """Admit in order, run the admitted calls concurrently, merge in call order (so the
        result does not depend on which call finished first). True if evidence was added."""
        with within(deadline):  # a refresh reads changed files: by the deadline, not after
            admitted = [call for call in calls if self._admit(number, call, scope, run)]
        outcomes = self._calls.run(self.tools, admitted, scope, deadline)
        added = False
        for call, outcome in zip(admitted, outcomes, strict=True):
            added |= record(run, number, call, outcome, self.tools.get(call.tool), scope)
        return added

    def close(self) -> None:
        """Stop the worker threads and tree watches and release what the tools hold open (a
        vector store's client); a closed router reopens what it needs if used again, and its
        workspaces walk their trees from then on."""
        self._calls.close()
        for tool in self.tools.values():
            if has(tool, OnWorkspace):
                tool.workspace.close_watches()
            if has(tool, Closable):
                with contextlib.suppress(Exception):  # closing must never fail the caller
                    tool.close()

    def _admission(self, call: ToolCall, scope: ScopeKey, run: Run) -> tuple[str, str] | None:
        """The rules of :mod:`arr.router.admission`, in order; the refresh of a stale index
        (rule 6) is the one step with I/O, and it lives here."""
        tool = self.tools.get(call.tool)
        refusal = identity_refusal(
            call.tool, tool, list(self.tools), run.calls_used, self.max_calls
        )
        if refusal is not None or tool is None:
            return refusal
        try:
            freshness = tool.freshness(scope)
        except ChannelError:
            raise  # the channel itself is down: a degradation, recorded by the caller
        except Exception as exc:  # cannot tell: refuse rather than serve a possibly stale index
            return check_failure_refusal(exc)
        if not freshness.fresh and freshness.code == codes.INDEX_STALE:
            freshness = (
                refresh_before_call(call.tool, tool, scope, self.refresh_max_files, run.refresh_ms)
                or freshness
            )
        if freshness.code == codes.INDEX_PARTIAL:  # admitted, answering from a build underway
            run.partial = True
            run.degradations.append(
                Degradation(stage=call.tool, code=codes.INDEX_PARTIAL, detail=freshness.detail)
            )
        return freshness_refusal(freshness)

    def _admit(self, number: int, call: ToolCall, scope: ScopeKey, run: Run) -> bool:
        """Admission of one call; a refusal is recorded and False returned."""
        failed = self.warm_failures.get(call.tool)
        if failed is not None and call.tool in self.tools:
            try:  # repaired since? one more try, else the same degradation as at warm-up
                self.tools[call.tool].warm_up()
                self.warm_failures.pop(call.tool, None)
            except Exception:
                run.fail(number, call.tool, failed)
                return False
        started = time.perf_counter()
        try:
            refusal = self._admission(call, scope, run)
        except ChannelError as exc:
            run.fail(
                number, call.tool, Degradation(stage=call.tool, code=exc.code, detail=exc.detail)
            )
            return False
        finally:
            # the freshness check (a walk of the scope's files for some channels) and any
            # refresh: counted in the trace, so every millisecond of a search is accounted for
            run.admission_us[call.tool] = int((time.perf_counter() - started) * 1e6)
        if refusal is not None:
            run.reject(number, call.tool, *refusal, run.admission_us.get(call.tool))
            if refusal[0] == codes.BUDGET_CALLS:
                run.partial = True
            if refusal[0] in DROPPED_CODES:
                # A dropped channel is never silent: the answer is partial and says the fix.
                run.partial = True
                fix = self.fix_command(call.tool, scope)
                run.degradations.append(
                    Degradation(
                        stage=call.tool,
                        code=refusal[0],
                        detail=dropped_detail(refusal[0], refusal[1], fix),
                    )
                )
            return False
        run.calls_used += 1
        return True
