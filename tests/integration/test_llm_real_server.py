"""The planner and the reranker against a real model: llama.cpp's server (xllamacpp) with the
packaged SmolLM2-135M-Instruct on 127.0.0.1, reached as a user reaches a local server
(``llm=local llm.base_url=http://127.0.0.1:PORT/v1``). Whatever a 135M model answers, a search
gets a validated plan or a recorded fallback, never an exception, a leak or a tool the Router
did not admit; a slow model never holds a search past its deadline.

On a loaded machine (``make test`` beside other work) the model answers slowly: each call's
timeout and the deadline's grace scale with the machine's measured slowness
(:mod:`tests.machine_speed`), and a call that still times out must take the recorded fallback
path, which is asserted as well as the model's. How fast the model is: the benchmarks."""

from __future__ import annotations

import time

import pytest

from arr import codes
from arr.cli.main import main
from arr.compose.library import load_router
from tests.llama_fixtures import LlamaServer, llama_server  # noqa: F401 (fixture)
from tests.machine_speed import grace_s, slowness

pytestmark = pytest.mark.model

QUESTIONS = [
    ("Why did the warmup schedule fix the loss spikes?", "vision-main"),
    ("CUDA out of memory at batch_size 256", "vision-main"),
    ("scheduler.warmup_steps", "vision-main"),
]
# every code a planner fallback may carry (docs/channels.md lists them)
FALLBACK_CODES = {
    "llm_timeout",
    "llm_http_error",
    "llm_transport",
    "llm_bad_response",
    "llm_reply_oversize",
    "llm_reply_not_json",
    "llm_plan_invalid",
    "llm_plan_wrong_version",
    codes.PLANNER_TIMEOUT,
}


# A call's timeout on an idle machine (conf/llm/local.yaml's); the client allows up to 300 s.
TIMEOUT_S = 30.0


def timeout_override() -> str:
    """``llm.timeout_s``, scaled by the machine's slowness now."""
    return f"llm.timeout_s={min(300.0, TIMEOUT_S * slowness()):.0f}"


def admitted_only(router, result) -> None:
    assert result.scope_leak_count == 0
    assert all(e.scope == result.scope for e in result.evidence)
    assert {t.tool for t in result.traces} <= set(router.tools)


def test_the_planner_plans_through_the_real_model(
    llama_server: LlamaServer,  # noqa: F811
    demo_indexed,
) -> None:
    router = load_router(
        [
            *demo_indexed,
            *llama_server.overrides(),
            "planner=llm",
            "prompt=arr-router-v2",
            timeout_override(),
        ]
    )
    planned = timed_out = 0
    for query, scope in QUESTIONS:
        router.planner.client.new_run()
        result = router.search(query, scope)
        admitted_only(router, result)
        if result.planner == "llm":
            planned += 1
            assert not [d for d in result.degradations if d.stage == "planner"]
            # the schema named only registered tools: nothing for admission to refuse
            assert not [r for r in result.rejections if r.code == codes.TOOL_NOT_REGISTERED]
        else:  # a machine too busy even for the scaled timeout: the rule plan, recorded
            planner = [d.code for d in result.degradations if d.stage == "planner"]
            assert planner == [codes.LLM_TIMEOUT], planner
            assert result.traces and result.planner == "rule"
            timed_out += 1
    router.close()
    # schema-constrained decoding: every plan that came back parses and validates
    assert planned + timed_out == len(QUESTIONS) and planned, (planned, timed_out)


def test_plain_instructions_fall_back_to_the_rule_plan_recorded(
    llama_server: LlamaServer,  # noqa: F811
    demo_indexed,
) -> None:
    router = load_router(
        [
            *demo_indexed,
            *llama_server.overrides(),
            "planner=llm",
            "prompt=arr-router-v1",
            "llm.structured_output=none",
            "llm.max_tokens=48",
            timeout_override(),
        ]
    )
    result = router.search(*QUESTIONS[1])
    router.close()
    admitted_only(router, result)
    assert result.evidence  # the search answered whatever the model said
    if result.planner == "rule":
        assert {d.code for d in result.degradations if d.stage == "planner"} <= FALLBACK_CODES


def test_the_reranker_ranks_through_the_real_model(
    llama_server: LlamaServer,  # noqa: F811
    demo_indexed,
) -> None:
    rule = load_router(demo_indexed)
    expected = rule.search(*QUESTIONS[0])
    rule.close()
    router = load_router(
        [
            *demo_indexed,
            *llama_server.overrides(),
            "reranker=llm",
            "reranker.max_candidates=4",
            timeout_override(),
        ]
    )
    result = router.search(*QUESTIONS[0])
    router.close()
    admitted_only(router, result)
    assert result.reranker in ("llm", "rule")
    if result.reranker == "rule":  # not a permutation, or too late: rule order exactly
        assert [e.id for e in result.evidence] == [e.id for e in expected.evidence]
        fell_back = {d.code for d in result.degradations}
        assert fell_back <= {"llm_ranking_ids", "llm_ranking_invalid", codes.LLM_TIMEOUT}
    else:  # the model's order of the same four, the rest in rule order after them
        ids = [e.id for e in result.evidence]
        before = [e.id for e in expected.evidence]
        assert sorted(ids[:4]) == sorted(before[:4]) and ids[4:] == before[4:]


def test_a_slow_model_never_holds_a_search_past_its_deadline(
    llama_server: LlamaServer,  # noqa: F811
    demo_indexed,
) -> None:
    deadline_ms = 1200
    router = load_router(
        [*demo_indexed, *llama_server.overrides(deadline_ms), "planner=llm", "reranker=llm"]
    )
    for query, scope in QUESTIONS[:2]:
        # the work after the deadline (fusion, ranking what came back) is 10% of it when idle
        allowed_ms = deadline_ms + grace_s(0.1 * deadline_ms / 1000) * 1000
        started = time.perf_counter()
        result = router.search(query, scope)
        elapsed_ms = (time.perf_counter() - started) * 1000
        admitted_only(router, result)
        assert elapsed_ms <= allowed_ms, (elapsed_ms, allowed_ms)
        if result.planner == "rule":
            planner = [d.code for d in result.degradations if d.stage == "planner"]
            assert planner == [codes.PLANNER_TIMEOUT]
    router.close()


def test_llm_check_against_the_real_server(
    llama_server: LlamaServer,  # noqa: F811
    capsys,
) -> None:
    # the check's 30 s call timeout, scaled as every other call here (it failed at load 15)
    assert main(["llm", "check", *llama_server.overrides(), timeout_override()]) == 0
    out = capsys.readouterr().out
    assert "SmolLM2-135M-Instruct" in out and "structured output: json_schema: works" in out
    assert "latency:" in out and "20 calls per run" in out
