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
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from arr import codes
from arr.errors import ConfigError, QueryError, WorkspaceError, is_disk_full
from arr.fusion.common import fuse
from arr.fusion.places import lone_hits_forward, merge_overlapping, place_rankings
from arr.models import (
    Degradation,
    EvidenceChunk,
    Freshness,
    QueryPlan,
    Rejection,
    RouterResult,
    ScopeKey,
    ToolCall,
    ToolTrace,
    replaced,
    resolve_scope,
    trusted,
)
from arr.planner.rule import PlanOutcome, RuleQueryPlanner
from arr.router.admission import (
    DROPPED_CODES,
    check_failure_refusal,
    check_query,
    dropped_detail,
    freshness_refusal,
    identity_refusal,
)
from arr.safety import redact_credentials
from arr.tools.base import REQUEST_DEADLINE, ChannelAnswer, ChannelError, Tool
from arr.tools.partition import IndexBusy, without_waiting

MAX_ROUNDS = 6
MAX_CALLS = 12


@dataclass(frozen=True)
class _Outcome:
    answer: ChannelAnswer | None
    failure: Degradation | None
    elapsed_ms: float
    abandoned: bool = False


def _timed_call(tool: Tool, call: ToolCall, scope: ScopeKey, deadline: float | None) -> _Outcome:
    """Run one admitted call (in a worker thread or inline); never raises."""
    started = time.perf_counter()
    token = REQUEST_DEADLINE.set(deadline)
    try:
        answer = tool.retrieve(call, scope)
        answer = answer if isinstance(answer, ChannelAnswer) else ChannelAnswer(list(answer))
        failure = None
    except ChannelError as exc:
        answer, failure = None, Degradation(stage=call.tool, code=exc.code, detail=exc.detail)
    except Exception as exc:  # any channel failure is a degradation, never a lost search
        answer = None
        if isinstance(exc, WorkspaceError) and exc.code:
            code = exc.code  # e.g. scope_root_missing: the cause, not "channel_error"
        else:
            code = codes.DISK_FULL if is_disk_full(exc) else codes.CHANNEL_ERROR
        failure = Degradation(
            stage=call.tool, code=code, detail=f"{type(exc).__name__}: {exc}"[:300]
        )
    finally:
        REQUEST_DEADLINE.reset(token)
    return _Outcome(answer, failure, round((time.perf_counter() - started) * 1000, 3))


def _chunk_grid(tools: Iterable[object]) -> int | None:
    """The line grid of the indexed chunks (a channel workspace's ``chunk_lines``), or None."""
    for tool in tools:
        lines = getattr(getattr(tool, "workspace", None), "chunk_lines", None)
        if isinstance(lines, int) and lines > 0:
            return lines
    return None


def _redacted(found: list[EvidenceChunk]) -> tuple[list[EvidenceChunk], int]:
    """One credential filter for every channel: snippets lose invisible characters and every
    credential-like value before fusion, a reranker or the caller sees them."""
    total, cleaned = 0, []
    for chunk in found:
        text, count = redact_credentials(chunk.snippet)
        if count or text != chunk.snippet:
            chunk = replaced(chunk, snippet=text)
        total += count
        cleaned.append(chunk)
    return cleaned, total


def _stop(run: _Run, code: str, detail: str) -> None:
    """End the run early: what was found so far is returned, marked partial."""
    run.degradations.append(Degradation(stage="router", code=code, detail=detail))
    run.partial = True


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
    scope_dropped: int = 0
    refresh_ms: dict[str, float] = field(default_factory=dict)
    admission_us: dict[str, int] = field(default_factory=dict)


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
    ) -> None:
        if workers < 1:
            raise ConfigError(f"router.workers must be >= 1, got {workers}")
        if deadline_ms is not None and deadline_ms < 1:
            raise ConfigError(f"router.deadline_ms must be >= 1 or null, got {deadline_ms}")
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
        self.workers = workers
        self.deadline_ms = deadline_ms
        if refresh_max_files < 0:
            raise ConfigError(f"router.refresh_max_files must be >= 0, got {refresh_max_files}")
        self.refresh_max_files = refresh_max_files
        self.merge_places = bool(merge_places)
        self._chunk_lines = _chunk_grid(self.tools.values()) if self.merge_places else None
        self.warm_failures: dict[str, Degradation] = {}
        self._fallback_planner = RuleQueryPlanner()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _explain_weights(
        self, query: str, rankings: Mapping[str, Sequence[EvidenceChunk]], run: _Run
    ) -> None:
        """Each channel's trace says what weight the fusion gave it for this query and why
        (``fusion weight 0.20 = fixed 1.00 x standout 1.00 x code_gap 0.20``)."""
        explain = getattr(self.fusion, "explain", None)
        if explain is None:
            return
        try:
            factors = explain(query, rankings)
        except Exception:  # an explanation never fails a search
            return
        for number, trace in enumerate(run.traces):
            parts = factors.get(trace.tool)
            if parts is None or trace.status == "rejected":
                continue
            detail = " x ".join(f"{k} {v:.2f}" for k, v in parts.items() if k != "weight")
            note = f"fusion weight {parts['weight']:.2f} = {detail}"
            run.traces[number] = replaced(trace, note=note)

    def watch_changes(self) -> None:
        """For a router that lives: its channels' workspaces watch their trees instead of
        walking them before every search (:meth:`arr.workspace.Workspace.watch_changes`)."""
        for tool in self.tools.values():
            workspace = getattr(tool, "workspace", None)
            if workspace is not None and hasattr(workspace, "watch_changes"):
                workspace.watch_changes()

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
        if plan is not None and not isinstance(plan, QueryPlan):
            raise QueryError(f"plan must be an arr.models.QueryPlan, got {type(plan).__name__}")
        outcome = PlanOutcome(plan=plan, planner="given") if plan else self._plan(query)
        run = _Run(degradations=list(outcome.degradations))
        deadline = started + self.deadline_ms / 1000 if self.deadline_ms else None
        self._execute(outcome.plan, key, run, deadline, query)
        rankings: Mapping[str, Sequence[EvidenceChunk]] = run.rankings
        # with one channel there is nothing to fuse, merge across channels or move forward
        several = sum(1 for found in rankings.values() if found) > 1
        chunk_lines = self._chunk_lines if several else None
        if chunk_lines:  # one item per place (arr.fusion.places)
            rankings = place_rankings(rankings, chunk_lines)
        fused = fuse(self.fusion, query, rankings)
        if several:
            self._explain_weights(query, rankings, run)
            if chunk_lines:
                fused = merge_overlapping(fused)
            fused = lone_hits_forward(fused, rankings)
        ranked, reranker_name = self._rerank(query, fused, run)
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
                "degradations": tuple(run.degradations),
                "partial": run.partial,
                "scope_dropped": dropped,
                "scope_leak_count": sum(c.scope is not key and c.scope != key for c in evidence),
                "reranker": reranker_name,
                "elapsed_ms": round((time.perf_counter() - started) * 1000, 3),
            },
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
        name = getattr(self.reranker, "name", "reranker")
        try:
            with_report = getattr(self.reranker, "rerank_with_report", None)
            if with_report is not None:  # rerankers that can fall back say so
                ranked, failures = with_report(query, fused)
            else:
                ranked, failures = self.reranker.rerank(query, fused), []  # type: ignore[attr-defined]
        except Exception as exc:  # a broken reranker must never break a search
            run.degradations.append(
                Degradation(
                    stage="reranker",
                    code="reranker_error",
                    detail=f"{type(exc).__name__}: {exc}"[:300],
                )
            )
            return fused, "none"
        if any(c.__class__ is not EvidenceChunk for c in ranked):  # the result trusts these
            run.degradations.append(
                Degradation(
                    stage="reranker",
                    code="reranker_error",
                    detail="the reranker returned something other than evidence chunks",
                )
            )
            return fused, "none"
        run.degradations.extend(failures)
        return ranked, "rule" if failures else name

    def _adaptive_rounds(
        self,
        done: int,
        added_last: bool,
        query: str,
        scope: ScopeKey,
        run: _Run,
        deadline: float | None,
    ) -> None:
        """Rounds a planner proposes after seeing the evidence (untrusted), while the budget
        lasts and each round adds something; every call still goes through admission."""
        next_round = getattr(self.planner, "next_round", None)
        number = done
        while next_round is not None and added_last and number < self.max_rounds:
            if run.calls_used >= self.max_calls or (
                deadline is not None and time.perf_counter() >= deadline
            ):
                return
            evidence = [c for ranking in run.rankings.values() for c in ranking]
            proposed, failure = next_round(query, self.tool_summaries(), evidence)
            if failure is not None:
                run.degradations.append(failure)
            if proposed is None:
                return
            number += 1
            added_last = self._run_round(number, proposed.calls, scope, run, deadline)

    def _execute(
        self, plan: QueryPlan, scope: ScopeKey, run: _Run, deadline: float | None, query: str
    ) -> None:
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
                return _stop(
                    run,
                    codes.NO_NEW_EVIDENCE,
                    f"round {number - 1} added nothing; rounds {number}.. skipped",
                )
            if deadline is not None and time.perf_counter() >= deadline:
                return _stop(run, codes.REQUEST_DEADLINE, f"deadline reached before round {number}")
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
        run: _Run,
        deadline: float | None,
    ) -> bool:
        """Admit in order, run the admitted calls concurrently, merge in call order (so the
        result does not depend on which call finished first). True if evidence was added."""
        admitted = [call for call in calls if self._admit(number, call, scope, run)]
        outcomes = self._dispatch(admitted, scope, deadline)
        added = False
        for call, outcome in zip(admitted, outcomes, strict=True):
            added |= self._record(number, call, outcome, run, scope)
        return added

    def _pool_executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self.workers, thread_name_prefix="arr-call"
                )
            return self._pool

    def close(self) -> None:
        """Stop the worker threads and tree watches and release what the tools hold open (a
        vector store's client); a closed router reopens what it needs if used again, and its
        workspaces walk their trees from then on."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        for tool in self.tools.values():
            close_watches = getattr(getattr(tool, "workspace", None), "close_watches", None)
            if close_watches is not None:
                close_watches()
            close = getattr(tool, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):  # closing must never fail the caller
                    close()

    def _dispatch(
        self, calls: list[ToolCall], scope: ScopeKey, deadline: float | None
    ) -> list[_Outcome]:
        if not calls:
            return []
        if deadline is None and (len(calls) == 1 or self.workers == 1):
            return [_timed_call(self.tools[c.tool], c, scope, None) for c in calls]
        pool = self._pool_executor()
        futures = [pool.submit(_timed_call, self.tools[c.tool], c, scope, deadline) for c in calls]
        timeout = None if deadline is None else max(0.0, deadline - time.perf_counter())
        wait(futures, timeout=timeout)
        outcomes = []
        for future in futures:
            if future.done():
                outcomes.append(future.result())
            else:
                future.cancel()  # not started yet: never runs; running: abandoned
                outcomes.append(_Outcome(None, None, 0.0, abandoned=True))
        return outcomes

    def _admission(self, call: ToolCall, scope: ScopeKey, run: _Run) -> tuple[str, str] | None:
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
            freshness = self._refresh(call.tool, tool, scope, run) or freshness
        if freshness.code == codes.INDEX_PARTIAL:  # admitted, answering from a build underway
            run.partial = True
            run.degradations.append(
                Degradation(stage=call.tool, code=codes.INDEX_PARTIAL, detail=freshness.detail)
            )
        return freshness_refusal(freshness)

    def _refresh(self, name: str, tool: Tool, scope: ScopeKey, run: _Run) -> Freshness | None:
        """Bring a stale index up to date before the call when the change is small (at most
        ``refresh_max_files`` changed files; incremental, see each tool's ``refresh``)."""
        refresh = getattr(tool, "refresh", None)
        if refresh is None or self.refresh_max_files == 0:
            return None
        started = time.perf_counter()
        try:
            with without_waiting():  # a search never waits for a build: it answers without
                done = refresh(scope, self.refresh_max_files)
        except IndexBusy:
            return Freshness(
                fresh=False,
                code=codes.INDEX_BUILDING,
                detail=f"an index build of the {name} channel for this scope is running; "
                "answering from the other channels until it finishes",
            )
        except Exception as exc:  # a failed refresh leaves the index as it was: still stale
            full = is_disk_full(exc)
            return Freshness(
                fresh=False,
                code=codes.DISK_FULL if full else codes.INDEX_STALE,
                detail=f"automatic refresh failed ({type(exc).__name__}: {str(exc)[:200]})"
                + ("; free space on the index folder's disk" if full else ""),
            )
        finally:
            run.refresh_ms[name] = round((time.perf_counter() - started) * 1000, 3)
        if not done:
            return Freshness(
                fresh=False,
                code=codes.INDEX_STALE,
                detail=f"more than {self.refresh_max_files} files changed since the {name} "
                "index was built (too many to refresh before a search)",
            )
        # The tool brought the index to the sources it just walked: fresh (checking again would
        # walk the tree a third time in this search).
        return Freshness(fresh=True, code="refreshed", detail="")

    def _reject(
        self,
        run: _Run,
        number: int,
        tool: str,
        code: str,
        detail: str,
        admission_us: int | None = None,
    ) -> None:
        run.rejections.append(Rejection(round=number, tool=tool, code=code, detail=detail))
        counters = {"admission_us": admission_us} if admission_us is not None else {}
        run.traces.append(
            ToolTrace(round=number, tool=tool, status="rejected", code=code, counters=counters)
        )

    def _admit(self, number: int, call: ToolCall, scope: ScopeKey, run: _Run) -> bool:
        """Admission of one call; a refusal is recorded and False returned."""
        failed = self.warm_failures.get(call.tool)
        if failed is not None and call.tool in self.tools:
            try:  # repaired since? one more try, else the same degradation as at warm-up
                self.tools[call.tool].warm_up()
                self.warm_failures.pop(call.tool, None)
            except Exception:
                run.degradations.append(failed)
                run.traces.append(
                    ToolTrace(round=number, tool=call.tool, status="error", code=failed.code)
                )
                run.partial = True
                return False
        started = time.perf_counter()
        try:
            refusal = self._admission(call, scope, run)
        except ChannelError as exc:
            run.degradations.append(Degradation(stage=call.tool, code=exc.code, detail=exc.detail))
            run.traces.append(
                ToolTrace(round=number, tool=call.tool, status="error", code=exc.code)
            )
            run.partial = True
            return False
        finally:
            # the freshness check (a walk of the scope's files for some channels) and any
            # refresh: counted in the trace, so every millisecond of a search is accounted for
            run.admission_us[call.tool] = int((time.perf_counter() - started) * 1e6)
        if refusal is not None:
            self._reject(run, number, call.tool, *refusal, run.admission_us.get(call.tool))
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

    def _admitted_places(
        self, tool_name: str, scope: ScopeKey, found: list[EvidenceChunk]
    ) -> tuple[list[EvidenceChunk], Counter[str]]:
        """The one file rule at answer time (:mod:`arr.file_rule`): an item whose file is now
        a link, a hard link, a special file or gone is withheld, whatever the channel's index
        remembers (an index is a copy of the tree as it was). One lstat per place."""
        withheld: Counter[str] = Counter()
        workspace = getattr(self.tools.get(tool_name), "workspace", None)
        place_check = getattr(workspace, "place_check", None)
        paths = {c.location.path for c in found if c.location.path is not None}
        if place_check is None or not paths:
            return found, withheld
        try:
            check = place_check(scope)
        except (WorkspaceError, OSError):  # a root refused now: nothing of it is shown
            withheld["unreadable"] = len(found)
            return [c for c in found if c.location.path is None], withheld
        refused = {path: reason for path in paths if (reason := check(path)) is not None}
        if not refused:
            return found, withheld
        kept = []
        for chunk in found:
            reason = refused.get(chunk.location.path) if chunk.location.path else None
            if reason is None:
                kept.append(chunk)
            else:
                withheld[reason] += 1
        return kept, withheld

    def _record(
        self, number: int, call: ToolCall, outcome: _Outcome, run: _Run, scope: ScopeKey
    ) -> bool:
        """Fold one call's outcome into the run; True when it added evidence not seen before."""
        if outcome.abandoned:
            run.degradations.append(
                Degradation(
                    stage=call.tool,
                    code=codes.CALL_DEADLINE,
                    detail="still running at the request deadline; abandoned",
                )
            )
            run.traces.append(
                ToolTrace(round=number, tool=call.tool, status="error", code=codes.CALL_DEADLINE)
            )
            run.partial = True
            return False
        if outcome.failure is not None:
            run.degradations.append(outcome.failure)
        answer = outcome.answer or ChannelAnswer([])
        # Out-of-scope candidates are dropped here, before fusion or an LLM reranker sees them,
        # and counted; search() checks the final list once more.
        found = [c for c in answer.evidence if c.scope is scope or c.scope == scope]
        out_of_scope = len(answer.evidence) - len(found)
        found, withheld = self._admitted_places(call.tool, scope, found)
        found, redacted = _redacted(found)
        run.scope_dropped += out_of_scope
        counters = dict(answer.counters)
        for reason, count in withheld.items():
            counters[f"withheld_{reason}"] = count
        skip_counters = getattr(self.tools.get(call.tool), "skip_counters", None)
        if skip_counters is not None:
            # counters are informative; never fail a call over them
            with contextlib.suppress(Exception):
                for reason, count in skip_counters(scope).items():  # added: both count binary
                    counters[reason] = counters.get(reason, 0) + count
        if call.tool in run.refresh_ms:
            counters["refresh_us"] = int(run.refresh_ms[call.tool] * 1000)
        if call.tool in run.admission_us:
            counters["admission_us"] = run.admission_us[call.tool]
        if out_of_scope:
            counters["scope_dropped"] = out_of_scope
        if redacted:
            counters["redacted_secrets"] = redacted
        if outcome.failure is not None:
            status, code = "error", outcome.failure.code
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
        # Every value was produced here (admitted tool name, fixed codes, int counters).
        run.traces.append(
            trusted(
                ToolTrace,
                {
                    "round": number,
                    "tool": call.tool,
                    "status": status,
                    "code": code,
                    "candidates": len(found),
                    "elapsed_ms": outcome.elapsed_ms,
                    "counters": counters,
                    "note": "",
                },
            )
        )
        fresh = [c for c in found if c.id not in run.seen]
        run.seen.update(c.id for c in found)
        run.rankings.setdefault(call.tool, []).extend(found)
        return bool(fresh)
