"""The steps around the calls, each guarded so that it can never break a search: planning
(a broken planner falls back to the rule planner), reranking (a broken reranker leaves the
fused order), the trace note that says what weight fusion gave each channel, the places
the query names by path put first (with a note), and the degradation that says no lexical
index holds a word of the query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arr import codes
from arr.fusion.contract import ExplainsWeights
from arr.fusion.traits import LEXICAL, SEMANTIC, ChannelTraits
from arr.llm.client import STRUCTURED_REFUSED
from arr.models import Degradation, EvidenceChunk, ToolTrace, replaced
from arr.planner.rule import PlanOutcome, RuleQueryPlanner
from arr.reranker.contract import ReportsFallbacks, Reranker
from arr.router.recording import Run

_FALLBACK_PLANNER = RuleQueryPlanner()


def plan(planner: object, query: str, summaries: dict[str, str]) -> PlanOutcome:
    """The planner's proposal, or the rule planner's with a ``planner_fallback`` degradation."""
    try:
        return planner.plan(query, summaries)  # type: ignore[attr-defined]
    except Exception as exc:  # a broken planner must never break a search
        outcome = _FALLBACK_PLANNER.plan(query, summaries)
        failure = Degradation(
            stage="planner",
            code=codes.PLANNER_FALLBACK,
            detail=f"{type(exc).__name__}: {exc}"[:300],
        )
        return PlanOutcome(plan=outcome.plan, planner="rule", degradations=(failure,))


def rerank(
    reranker: object, query: str, fused: list[EvidenceChunk], degradations: list[Degradation]
) -> tuple[list[EvidenceChunk], str]:
    """The reranked list and the reranker that made it ("none" when it failed, "rule" when an
    LLM reranker fell back); failures are appended to ``degradations``."""
    name = reranker.name if isinstance(reranker, Reranker) else "reranker"
    try:
        if isinstance(reranker, ReportsFallbacks):  # rerankers that can fall back say so
            ranked, failures = reranker.rerank_with_report(query, fused)
        else:
            ranked, failures = reranker.rerank(query, fused), []  # type: ignore[attr-defined]
    except Exception as exc:  # a broken reranker must never break a search
        detail = f"{type(exc).__name__}: {exc}"[:300]
        degradations.append(Degradation(stage="reranker", code=codes.RERANKER_ERROR, detail=detail))
        return fused, "none"
    if any(c.__class__ is not EvidenceChunk for c in ranked):  # the result trusts these
        detail = "the reranker returned something other than evidence chunks"
        degradations.append(Degradation(stage="reranker", code=codes.RERANKER_ERROR, detail=detail))
        return fused, "none"
    degradations.extend(failures)
    # a refused response_format was asked again plainly: the LLM's order still stands
    fell_back = any(f.code != STRUCTURED_REFUSED for f in failures)
    return ranked, "rule" if fell_back else name


PATHS_NOTED = 3


def explain_weights(
    fusion: object,
    query: str,
    rankings: Mapping[str, Sequence[EvidenceChunk]],
    traces: list[ToolTrace],
) -> None:
    """Each channel's trace says what weight the fusion gave it for this query and why
    (``fusion weight 0.20 = fixed 1.00 x standout 1.00 x code_gap 0.20``)."""
    if not isinstance(fusion, ExplainsWeights):
        return
    try:
        factors = fusion.explain(query, rankings)
        named = fusion.path_matches(query, rankings)
    except Exception:  # an explanation never fails a search
        return
    # the files whose names matched the query (arr.fusion.path_match), best first
    best = sorted(named.items(), key=lambda kv: (-kv[1], kv[0]))[:PATHS_NOTED]
    paths_note = (
        "; file names matched: " + ", ".join(f"{p} {m:.2f}" for p, m in best) if best else ""
    )
    for number, trace in enumerate(traces):
        parts = factors.get(trace.tool)
        if parts is None or trace.status == "rejected":
            continue
        detail = " x ".join(f"{k} {v:.2f}" for k, v in parts.items() if k != "weight")
        note = f"fusion weight {parts['weight']:.2f} = {detail}{paths_note}"
        traces[number] = replaced(trace, note=note)


def degradations(
    traits: ChannelTraits, run: Run, evidence: Sequence[EvidenceChunk]
) -> tuple[Degradation, ...]:
    """The run's degradations, and ``query_words_unknown`` when a channel that declares
    ``lexical`` (arr.fusion.traits) read its whole index and found none of the query's words,
    no channel but a ``semantic`` one found anything, and there is something to show: a
    Chinese query on an English folder gets the vector channel's nearest passages, which read
    like answers unless this says otherwise. An empty answer says so itself."""
    searched: list[str] = []
    for trace in run.traces:
        declared = traits.get(trace.tool, frozenset())
        if trace.status == "ok" and SEMANTIC not in declared:
            return tuple(run.degradations)  # a lexical channel or the memory store found them
        if LEXICAL in declared and trace.code == codes.EMPTY and trace.tool not in searched:
            searched.append(trace.tool)  # ran to its end (not cut) and found nothing
    if not searched or not evidence:
        return tuple(run.degradations)
    unknown = Degradation(
        stage="router",
        code=codes.QUERY_WORDS_UNKNOWN,
        detail=f"no index holds a word of the query ({' and '.join(searched)} found none): "
        "the results are the nearest passages by meaning, not matches",
    )
    return (*run.degradations, unknown)
