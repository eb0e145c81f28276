"""Structured output by capability, and the search's deadline over the LLM stages (scripted
HTTPS server): the plan's schema is sent only when configured, a server that refuses it is
asked once more plainly (recorded once, remembered), and a slow model never holds a search
past its deadline."""

from __future__ import annotations

import json
import time

from arr import codes
from arr.llm.client import STRUCTURED_REFUSED, server_message
from arr.planner.llm import LLMQueryPlanner
from arr.reranker.llm import LLMReranker
from benchmarks.llm.fake_server import Reply, completion
from tests.conftest import SCOPE_A, FakeTool, make_router
from tests.llm_fixtures import KEY, make_client
from tests.machine_speed import grace_s
from tests.security.test_llm_endpoint import PROMPT, counting_tool, plan_json


def router_with(client, **router_kwargs):
    router = make_router(counting_tool("bm25"), counting_tool("vector"), **router_kwargs)
    router.planner = LLMQueryPlanner(client, PROMPT)
    return router


def refusal(message: str, status: int = 400) -> Reply:
    body = {"error": {"code": status, "message": message, "type": "invalid_request_error"}}
    return Reply(status=status, body=json.dumps(body).encode())


def test_the_plan_schema_is_sent_when_configured(llm_server, monkeypatch) -> None:
    llm_server.script(completion(plan_json(["bm25"])))
    client = make_client(llm_server, monkeypatch, structured_output="json_schema")
    result = router_with(client).search("why does warmup help?", SCOPE_A)
    assert result.planner == "llm" and not result.degradations
    sent = llm_server.requests[0]["body"]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "tool_plan"
    schema = sent["json_schema"]["schema"]
    call = schema["properties"]["tool_rounds"]["items"]["properties"]["calls"]["items"]
    assert call["properties"]["tool"]["enum"] == ["bm25", "vector"]  # registered tools only
    assert schema["properties"]["version"]["enum"] == ["arr-router-v2"]
    assert call["additionalProperties"] is False and "scope" not in call["properties"]


def test_no_schema_is_sent_by_default(llm_server, monkeypatch) -> None:
    llm_server.script(completion(plan_json(["bm25"])))
    router_with(make_client(llm_server, monkeypatch)).search("warmup", SCOPE_A)
    assert "response_format" not in llm_server.requests[0]["body"]


def test_json_object_mode_sends_no_schema(llm_server, monkeypatch) -> None:
    llm_server.script(completion(plan_json(["bm25"])))
    client = make_client(llm_server, monkeypatch, structured_output="json_object")
    router_with(client).search("warmup", SCOPE_A)
    assert llm_server.requests[0]["body"]["response_format"] == {"type": "json_object"}


def test_a_refused_schema_degrades_once_to_plain_instructions(llm_server, monkeypatch) -> None:
    llm_server.script(
        refusal("'response_format' of type 'json_schema' is not supported"),
        completion(plan_json(["vector"])),
    )
    client = make_client(llm_server, monkeypatch, structured_output="json_schema")
    router = router_with(client)
    result = router.search("why does warmup help?", SCOPE_A)
    # the plan still came from the model, asked the second time without the parameter
    assert result.planner == "llm" and [t.tool for t in result.traces] == ["vector"]
    assert [d.code for d in result.degradations] == [STRUCTURED_REFUSED]
    assert "not supported" in result.degradations[0].detail
    first, second = (r["body"] for r in llm_server.requests)
    assert "response_format" in first and "response_format" not in second
    # remembered: the next search asks plainly at once and records nothing
    llm_server.script(completion(plan_json(["bm25"])))
    again = router.search("why does warmup help?", SCOPE_A)
    assert again.planner == "llm" and not again.degradations
    assert "response_format" not in llm_server.requests[0]["body"]


def test_a_schema_the_server_cannot_compile_is_a_refusal_too(llm_server, monkeypatch) -> None:
    # llama.cpp's own words for a schema its grammar builder rejects
    llm_server.script(
        refusal("Unable to generate parser for this template. JSON schema error at #"),
        completion(plan_json(["bm25"])),
    )
    client = make_client(llm_server, monkeypatch, structured_output="json_schema")
    result = router_with(client).search("warmup", SCOPE_A)
    assert result.planner == "llm" and [d.code for d in result.degradations] == [STRUCTURED_REFUSED]


def test_other_client_errors_are_not_retried(llm_server, monkeypatch) -> None:
    llm_server.script(refusal("model 'x' not found", status=404), completion(plan_json(["bm25"])))
    client = make_client(llm_server, monkeypatch, structured_output="json_schema")
    result = router_with(client).search("warmup", SCOPE_A)
    assert result.planner == "rule"
    assert [d.code for d in result.degradations] == ["llm_http_error"]
    assert "HTTP 404: model 'x' not found" in result.degradations[0].detail
    assert len(llm_server.requests) == 1 and client.structured_output == "json_schema"


def test_a_server_message_never_carries_the_key() -> None:
    raw = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}\x1b[2J"}})
    message = server_message(raw.encode(), KEY)
    assert KEY not in message and "[key]" in message and "\x1b" not in message


def test_a_late_plan_is_not_waited_for(llm_server, monkeypatch) -> None:
    llm_server.script(Reply(body=completion(plan_json(["vector"])).body, delay_s=3.0))
    client = make_client(llm_server, monkeypatch, timeout_s=10.0)
    router = router_with(client, deadline_ms=1000)
    started = time.perf_counter()
    result = router.search("why does warmup help?", SCOPE_A)
    elapsed = time.perf_counter() - started
    assert result.planner == "rule" and result.traces  # the rule plan ran in the time left
    assert [d.code for d in result.degradations] == [codes.PLANNER_TIMEOUT]
    # half the deadline for the plan, the calls after it; the plan came 3 s late
    assert elapsed < 1.0 + grace_s(0.1, at_most=1.5), elapsed


def test_the_rerankers_time_counts_against_the_deadline(llm_server, monkeypatch) -> None:
    llm_server.script(Reply(body=completion('{"ranking": []}').body, delay_s=3.0))
    client = make_client(llm_server, monkeypatch, timeout_s=10.0)
    router = make_router(
        FakeTool("bm25", ids=["a", "b", "c"]), FakeTool("vector", ids=["c", "a"]), deadline_ms=800
    )
    router.reranker = LLMReranker(client)
    started = time.perf_counter()
    result = router.search("warmup", SCOPE_A)
    assert time.perf_counter() - started < 0.8 + grace_s(0.1, at_most=1.5)  # reply: 3 s
    assert result.reranker == "rule" and len(result.evidence) == 3
    assert [d.code for d in result.degradations] == [codes.RERANKER_TIMEOUT]


def test_the_ranking_schema_names_exactly_the_candidates(llm_server, monkeypatch) -> None:
    client = make_client(llm_server, monkeypatch, structured_output="json_schema")
    router = make_router(FakeTool("bm25", ids=["a", "b", "c"]))
    router.reranker = LLMReranker(client)
    ids = [c.id for c in router.search("warmup", SCOPE_A).evidence]
    llm_server.script(completion(json.dumps({"ranking": ids[::-1]})))
    result = router.search("warmup", SCOPE_A)
    assert result.reranker == "llm" and [c.id for c in result.evidence] == ids[::-1]
    items = llm_server.requests[0]["body"]["response_format"]["json_schema"]["schema"]
    ranking = items["properties"]["ranking"]
    assert sorted(ranking["items"]["enum"]) == sorted(ids)
    assert ranking["minItems"] == ranking["maxItems"] == 3


def check(server, monkeypatch, demo_overrides, *extra: str) -> list[str]:
    monkeypatch.setenv("ARR_TEST_LLM_KEY", KEY)
    return [
        *demo_overrides,
        f"llm.base_url={server.base_url}",
        "llm.allowed_hosts=[localhost]",
        "llm.api_key_env=ARR_TEST_LLM_KEY",
        *extra,
    ]


def test_llm_check_names_an_untrusted_certificate(llm_server, monkeypatch, demo_overrides, capsys):
    from arr.cli.main import main

    assert main(["llm", "check", *check(llm_server, monkeypatch, demo_overrides)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("arr: llm check failed: llm_transport: TLS certificate not trusted")
    assert "\n" not in err and KEY not in err and llm_server.requests == []


def test_llm_check_names_a_timeout(llm_server, monkeypatch, demo_overrides, capsys) -> None:
    from arr.cli.main import main

    llm_server.script(Reply(body=completion('{"ok": true}').body, delay_s=2.0))
    options = check(
        llm_server,
        monkeypatch,
        demo_overrides,
        f"llm.ca_bundle={llm_server.ca_path}",
        "llm.timeout_s=0.5",
    )
    assert main(["llm", "check", *options]) == 1
    assert (
        "llm check failed: llm_timeout: no complete answer within 0.5 s" in capsys.readouterr().err
    )


def test_llm_check_reports_what_the_endpoint_said(llm_server, monkeypatch, demo_overrides, capsys):
    from arr.cli.main import main

    llm_server.script(completion('{"ok": true}'))
    options = check(
        llm_server,
        monkeypatch,
        demo_overrides,
        f"llm.ca_bundle={llm_server.ca_path}",
        "llm.structured_output=json_schema",
        "router.deadline_ms=4000",
    )
    assert main(["llm", "check", *options, "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["structured_output"] == "json_schema: works" and facts["model_answered"] == "fake"
    assert facts["router_deadline_ms"] == 4000 and facts["planner_share_of_deadline"] == 0.5
    assert KEY not in json.dumps(facts) and facts["api_key"] == "from $ARR_TEST_LLM_KEY (set)"
    sent = llm_server.requests[0]
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"
    assert sent["body"]["response_format"]["json_schema"]["name"] == "check"


def test_a_template_without_a_system_role_gets_it_in_the_user_message(
    llm_server, monkeypatch
) -> None:
    llm_server.script(completion(plan_json(["bm25"])))
    client = make_client(llm_server, monkeypatch, system_in_user=True)
    assert router_with(client).search("warmup", SCOPE_A).planner == "llm"
    messages = llm_server.requests[0]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user"]
    assert messages[0]["content"].startswith("plan\n\n") and "warmup" in messages[0]["content"]


def test_user_query_plans_tools_only_and_searches_the_question(llm_server, monkeypatch) -> None:
    reply = {"version": "arr-router-v2", "tool_rounds": [{"calls": [{"tool": "vector"}]}]}
    llm_server.script(completion(json.dumps(reply)), completion(plan_json(["bm25"])))
    client = make_client(llm_server, monkeypatch, structured_output="json_schema")
    router = router_with(client)
    router.planner = LLMQueryPlanner(client, PROMPT, user_query=True)
    result = router.search("why does warmup help?", SCOPE_A)
    assert result.planner == "llm"
    assert [(c.tool, c.query) for c in result.plan.tool_rounds[0].calls] == [
        ("vector", "why does warmup help?")
    ]
    schema = llm_server.requests[0]["body"]["response_format"]["json_schema"]["schema"]
    call = schema["properties"]["tool_rounds"]["items"]["properties"]["calls"]["items"]
    assert "query" not in call["properties"] and call["required"] == ["tool"]
    # a model that writes a query anyway: the question's words are searched all the same
    again = router.search("loss spikes", SCOPE_A)
    assert [c.query for c in again.plan.tool_rounds[0].calls] == ["loss spikes"]


def test_each_mcp_request_is_a_run_of_its_own(llm_server, monkeypatch) -> None:
    """A server that lives spends the call budget per request, not once for its lifetime."""
    from arr.mcp.server import ArrService

    llm_server.script(completion(plan_json(["bm25"])))
    client = make_client(llm_server, monkeypatch, max_calls=2)
    router = router_with(client, scopes={"a": SCOPE_A})
    service = ArrService(router)
    for _ in range(4):
        service.search("why does warmup help?", "a")
    assert len(llm_server.requests) == 4  # one plan per request, past the budget of 2
    # a library caller's searches are one run: the last request's run goes on (its 2nd call),
    # then its budget of 2 is spent
    assert router.search("warmup", SCOPE_A).planner == "llm"
    assert router.search("warmup", SCOPE_A).planner == "rule"
