from __future__ import annotations

import pytest

from arr import codes
from arr.errors import ConfigError, QueryError, ScopeError
from arr.models import Freshness, QueryPlan, ScopeKey
from arr.router.admission import canonical_identifier
from arr.tools.base import ChannelError
from tests.conftest import SCOPE_A, FakeTool, make_router


def plan_of(*rounds: list[str], query: str = "q") -> QueryPlan:
    return QueryPlan.model_validate(
        {
            "version": "arr-router-v2",
            "tool_rounds": [{"calls": [{"tool": t, "query": query} for t in r]} for r in rounds],
        }
    )


def codes_of(result) -> list[str]:
    return [r.code for r in result.rejections]


@pytest.mark.parametrize(
    "tool, kwargs, code",
    [
        pytest.param("ghost", {}, codes.TOOL_NOT_REGISTERED, id="unregistered"),
        pytest.param("annotator", {"read_only": False}, codes.NOT_READ_ONLY, id="not-read-only"),
        pytest.param(
            "cloud", {"provider": "openai"}, codes.PROVIDER_NOT_LOCAL, id="remote-provider"
        ),
        pytest.param(
            "old",
            {"fresh": Freshness(fresh=False, code=codes.INDEX_STALE)},
            codes.INDEX_STALE,
            id="stale-index",
        ),
        pytest.param(
            "none",
            {"fresh": Freshness(fresh=False, code=codes.INDEX_MISSING)},
            codes.INDEX_MISSING,
            id="missing-index",
        ),
    ],
)
def test_each_admission_code(tool: str, kwargs: dict, code: str) -> None:
    good = FakeTool("bm25", ["a"])
    others = [] if tool == "ghost" else [FakeTool(tool, ["x"], **kwargs)]
    router = make_router(good, *others)
    result = router.search("q", SCOPE_A, plan=plan_of(["bm25", tool]))
    assert codes_of(result) == [code]
    assert [e.id for e in result.evidence] == ["a"]
    assert all(not t.calls for t in others)
    rejected = [t for t in result.traces if t.status == "rejected"]
    assert [(t.tool, t.code) for t in rejected] == [(tool, code)]


def test_canonical_identifier() -> None:
    assert canonical_identifier("Web_Search-2") == "websearch2"


def test_six_rounds_run_and_a_seventh_is_rejected() -> None:
    counter = iter(range(1000))
    tool = FakeTool("bm25", answer=lambda call: [f"d{next(counter)}"])
    router = make_router(tool)
    six = router.search("q", SCOPE_A, plan=plan_of(*[["bm25"]] * 6))
    assert len(tool.calls) == 6 and not six.partial and six.rejections == ()
    seven = router.search("q", SCOPE_A, plan=plan_of(*[["bm25"]] * 7))
    assert codes_of(seven) == [codes.BUDGET_ROUNDS]
    assert seven.partial and len(seven.evidence) == 6


def test_twelve_calls_run_and_a_thirteenth_is_rejected() -> None:
    counter = iter(range(1000))
    tool = FakeTool("bm25", answer=lambda call: [f"d{next(counter)}"])
    router = make_router(tool)
    twelve = router.search("q", SCOPE_A, plan=plan_of(["bm25"] * 6, ["bm25"] * 6))
    assert not twelve.partial and len(twelve.evidence) == 12
    thirteen = router.search("q", SCOPE_A, plan=plan_of(["bm25"] * 6, ["bm25"] * 7))
    assert codes_of(thirteen) == [codes.BUDGET_CALLS]
    assert thirteen.partial and len(thirteen.evidence) == 12


def test_lowered_budget_is_enforced_and_raising_is_refused() -> None:
    tool = FakeTool("bm25", answer=lambda call: [call.query])
    router = make_router(tool, max_calls=2, max_rounds=1)
    result = router.search("q", SCOPE_A, plan=plan_of(["bm25"] * 3))
    assert codes_of(result) == [codes.BUDGET_CALLS] and result.partial
    with pytest.raises(ConfigError, match="max_rounds"):
        make_router(tool, max_rounds=7)
    with pytest.raises(ConfigError, match="max_calls"):
        make_router(tool, max_calls=13)


def test_round_without_new_evidence_stops_with_partial() -> None:
    tool = FakeTool("bm25", ["a", "b"])
    result = make_router(tool).search("q", SCOPE_A, plan=plan_of(["bm25"], ["bm25"], ["bm25"]))
    assert len(tool.calls) == 2  # round 2 added nothing new, round 3 never ran
    assert result.partial
    assert [d.code for d in result.degradations] == [codes.NO_NEW_EVIDENCE]


def test_single_round_complete_is_not_partial() -> None:
    result = make_router(FakeTool("bm25", ["a"])).search("q", SCOPE_A, plan=plan_of(["bm25"]))
    assert not result.partial and result.degradations == ()


@pytest.mark.parametrize(
    "error, code",
    [
        pytest.param(RuntimeError("boom"), codes.CHANNEL_ERROR, id="unexpected-exception"),
        pytest.param(
            ChannelError(codes.MEMORY_DB_CORRUPT, "bad db"),
            codes.MEMORY_DB_CORRUPT,
            id="channel-error",
        ),
    ],
)
def test_failing_channel_degrades_and_keeps_others(error: Exception, code: str) -> None:
    router = make_router(FakeTool("bm25", ["a", "b"]), FakeTool("memory", error=error))
    result = router.search("q", SCOPE_A, plan=plan_of(["bm25", "memory"]))
    assert [e.id for e in result.evidence] == ["a", "b"]
    assert [(d.stage, d.code) for d in result.degradations] == [("memory", code)]
    assert result.partial
    assert [t.status for t in result.traces] == ["ok", "error"]


@pytest.mark.parametrize(
    "field", ["team_id", "project_id", "repository", "branch", "experiment_environment"]
)
def test_final_scope_check_drops_mismatch_on_each_field(field: str) -> None:
    other = ScopeKey(**{**SCOPE_A.model_dump(), field: getattr(SCOPE_A, field) + "-other"})
    router = make_router(FakeTool("bm25", ["a"]), FakeTool("leaky", ["x", "y"], scope=other))
    result = router.search("q", SCOPE_A, plan=plan_of(["bm25", "leaky"]))
    assert [e.id for e in result.evidence] == ["a"]
    assert result.scope_dropped == 2 and result.scope_leak_count == 0
    assert codes.SCOPE_MISMATCH_DROPPED in [d.code for d in result.degradations]


@pytest.mark.parametrize(
    "query, message",
    [
        pytest.param("", "empty", id="empty"),
        pytest.param("   \n", "empty", id="blank"),
        pytest.param("x" * 1001, "limit is 1000", id="too-long"),
        pytest.param("a\x00b", "control", id="nul"),
    ],
)
def test_bad_queries(query: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        make_router(FakeTool("bm25")).search(query, SCOPE_A)


def test_unknown_and_malformed_scopes() -> None:
    router = make_router(FakeTool("bm25"), scopes={"a": SCOPE_A})
    assert router.search("q", "a").scope == SCOPE_A
    with pytest.raises(ScopeError, match="unknown scope 'b'"):
        router.search("q", "b")
    with pytest.raises(ScopeError, match="team_id"):
        router.search("q", {**SCOPE_A.model_dump(), "team_id": ""})


def test_broken_planner_falls_back_to_rules() -> None:
    class Broken:
        def plan(self, query, tools):
            raise TimeoutError("planner hung")

    router = make_router(FakeTool("bm25", ["a"]))
    router.planner = Broken()
    result = router.search("q", SCOPE_A)
    assert result.planner == "rule" and [e.id for e in result.evidence] == ["a"]
    assert [d.code for d in result.degradations] == [codes.PLANNER_FALLBACK]


def test_planner_sees_only_names_and_summaries() -> None:
    seen = {}

    class Spy:
        def plan(self, query, tools):
            seen.update(tools)
            raise ValueError("stop")

    router = make_router(FakeTool("bm25", ["a"]))
    router.planner = Spy()
    router.search("q", SCOPE_A)
    assert seen == {"bm25": "fake channel"}


def test_all_rejected_is_recorded() -> None:
    result = make_router(FakeTool("bm25")).search("q", SCOPE_A, plan=plan_of(["shell"]))
    assert result.evidence == ()
    assert codes.NO_ADMITTED_CALLS in [d.code for d in result.degradations]


def test_freshness_check_that_raises_is_a_rejection() -> None:
    class Unsure(FakeTool):
        def freshness(self, scope):
            raise OSError("disk gone")

    result = make_router(FakeTool("bm25", ["a"]), Unsure("memory", ["m"])).search(
        "q", SCOPE_A, plan=plan_of(["bm25", "memory"])
    )
    assert codes_of(result) == [codes.FRESHNESS_UNKNOWN]
    assert [e.id for e in result.evidence] == ["a"]


def test_out_of_scope_candidates_never_reach_fusion_or_the_reranker() -> None:
    seen: list[list[str]] = []

    class Spy:
        name = "spy"

        def rerank(self, query, evidence):
            seen.append([c.id for c in evidence])
            return list(evidence)

    other = ScopeKey(**{**SCOPE_A.model_dump(), "branch": "elsewhere"})
    router = make_router(FakeTool("bm25", ["a"]), FakeTool("leaky", ["x"], scope=other))
    router.reranker = Spy()
    result = router.search("q", SCOPE_A, plan=plan_of(["bm25", "leaky"]))
    assert seen == [["a"]] and result.scope_dropped == 1
    leaky_trace = next(t for t in result.traces if t.tool == "leaky")
    assert leaky_trace.counters["scope_dropped"] == 1 and leaky_trace.candidates == 0
    assert set(leaky_trace.counters) == {"scope_dropped", "admission_us"}


def test_admission_time_is_in_the_trace() -> None:
    """The freshness check's time appears in the trace of the call it admitted or refused."""
    import time as clock

    class SlowFresh(FakeTool):
        def freshness(self, scope: ScopeKey) -> Freshness:
            clock.sleep(0.02)
            return super().freshness(scope)

    router = make_router(SlowFresh("bm25", answer=lambda call: ["d1"]))
    trace = router.search("q", SCOPE_A, plan=plan_of(["bm25"])).traces[0]
    assert trace.counters["admission_us"] >= 20_000
