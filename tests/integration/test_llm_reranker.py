"""The LLM reranker against the local HTTPS fake: its order is used only when it is exact."""

from __future__ import annotations

import json

import pytest

from arr.compose.library import load_router
from arr.models import QueryPlan
from arr.reranker.llm import LLMReranker
from arr.reranker.rule import RuleReranker
from benchmarks.llm.fake_server import Reply, completion
from tests.conftest import SCOPE_A, FakeTool, chunk, make_router
from tests.llm_fixtures import KEY, make_client

EVIDENCE = [chunk(f"d{i}", snippet=f"text {i}") for i in range(25)]


def ranking(*ids: str) -> Reply:
    return completion(json.dumps({"ranking": list(ids)}))


def test_an_exact_ranking_reorders_the_head(llm_server, monkeypatch) -> None:
    head = [f"d{i}" for i in range(20)]
    llm_server.script(ranking(*reversed(head)))
    reranker = LLMReranker(make_client(llm_server, monkeypatch))
    ranked, failures = reranker.rerank_with_report("q", EVIDENCE)
    assert failures == []
    assert [c.id for c in ranked] == list(reversed(head)) + ["d20", "d21", "d22", "d23", "d24"]
    sent = json.dumps(llm_server.requests[0]["body"])
    assert "d19" in sent and "d20" not in sent  # at most 20 candidates are shown


@pytest.mark.parametrize(
    "reply, code",
    [
        pytest.param(ranking(*[f"d{i}" for i in range(19)]), "llm_ranking_ids", id="missing-id"),
        pytest.param(ranking(*[f"d{i}" for i in range(21)]), "llm_ranking_ids", id="extra-id"),
        pytest.param(
            ranking(*[f"d{i}" for i in range(19)], "d0"), "llm_ranking_ids", id="duplicated-id"
        ),
        pytest.param(
            ranking(*[f"d{i}" for i in range(19)], "D19"), "llm_ranking_ids", id="respelled-id"
        ),
        pytest.param(completion("d3 is best"), "llm_reply_not_json", id="non-json"),
        pytest.param(
            completion('{"ranking": ["d1"], "why": "x"}'), "llm_ranking_invalid", id="extra-field"
        ),
        pytest.param(Reply(delay_s=3.0), "llm_timeout", id="timeout"),
        pytest.param(Reply(status=503), "llm_http_error", id="503"),
        pytest.param(Reply(status=429, headers={"Retry-After": "999"}), "llm_http_error", id="429"),
        pytest.param(
            Reply(status=301, headers={"Location": "https://example.com/"}),
            "llm_redirect",
            id="redirect",
        ),
        pytest.param(Reply(body=b"{}" * 200_000), "llm_oversize", id="oversize"),
        pytest.param(
            Reply(body=b"<p>no</p>", content_type="text/html"),
            "llm_bad_content_type",
            id="wrong-content-type",
        ),
    ],
)
def test_any_anomaly_falls_back_to_exactly_the_rule_order(
    llm_server, monkeypatch, reply: Reply, code: str
) -> None:
    llm_server.script(reply)
    reranker = LLMReranker(make_client(llm_server, monkeypatch))
    ranked, failures = reranker.rerank_with_report("text 3", EVIDENCE)
    assert [f.code for f in failures] == [code]
    assert ranked == RuleReranker().rerank("text 3", EVIDENCE)


def test_router_records_the_reranker_fallback(llm_server, monkeypatch) -> None:
    llm_server.script(completion("nope"))
    router = make_router(FakeTool("bm25", ["a", "b", "c"]))
    router.reranker = LLMReranker(make_client(llm_server, monkeypatch))
    plan = QueryPlan.model_validate({"tool_rounds": [{"calls": [{"tool": "bm25", "query": "q"}]}]})
    result = router.search("q", SCOPE_A, plan=plan)
    assert result.reranker == "rule"
    assert [(d.stage, d.code) for d in result.degradations] == [("reranker", "llm_reply_not_json")]


def test_llm_stages_from_config_share_one_budget(llm_server, monkeypatch, demo_overrides) -> None:
    monkeypatch.setenv("ARR_TEST_LLM_KEY", KEY)
    llm_server.script(
        completion(
            json.dumps(
                {
                    "version": "arr-router-v2",
                    "tool_rounds": [{"calls": [{"tool": "bm25", "query": "warmup loss spikes"}]}],
                }
            )
        )
    )
    router = load_router(
        [
            *demo_overrides,
            "planner=llm",
            "reranker=llm",
            f"llm.base_url={llm_server.base_url}",
            "llm.allowed_hosts=[localhost]",
            f"llm.ca_bundle={llm_server.ca_path}",
            "llm.api_key_env=ARR_TEST_LLM_KEY",
            "llm.max_calls=3",
        ],
        warm=False,
    )
    assert router.planner.client is router.reranker.client
    from arr.compose.indexing import index_workspace
    from arr.compose.library import compose
    from arr.compose.runner import build_tools, build_workspace, config_container

    container = config_container(compose("index", demo_overrides))
    workspace = build_workspace(container)
    index_workspace(
        workspace, build_tools(container, workspace), workspace.named_scopes(), progress=False
    )
    first = router.search("why did warmup fix the loss spikes?", "vision-main")
    second = router.search("why did warmup fix the loss spikes?", "vision-main")
    # Four wanted calls (plan + rerank, twice) against a budget of three shared calls.
    assert first.planner == "llm" and second.planner == "llm"
    assert len(llm_server.requests) == 3
    assert ("reranker", "llm_budget_exhausted") in [(d.stage, d.code) for d in second.degradations]
    assert KEY not in first.model_dump_json() + second.model_dump_json()
