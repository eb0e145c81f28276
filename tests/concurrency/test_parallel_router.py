"""Parallel calls within a round: same results as sequential, request deadlines, shared routers."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from arr import codes
from arr.compose.library import load_router
from arr.models import QueryPlan, RouterResult
from tests.conftest import SCOPE_A, FakeTool, make_router
from tests.machine_speed import grace_s


def comparable(result: RouterResult) -> dict:
    """A result without wall-clock fields (elapsed times, *_us timing counters)."""
    data = json.loads(result.model_dump_json())
    data.pop("elapsed_ms")
    for trace in data["traces"]:
        trace.pop("elapsed_ms")
        trace["counters"] = {k: v for k, v in trace["counters"].items() if not k.endswith("_us")}
    return data


def fifty_queries(demo_copy: Path) -> list[tuple[str, str]]:
    gold = [json.loads(x) for x in (demo_copy / "gold.jsonl").read_text().splitlines()]
    cases = [(c["query"], c["scope"]) for c in gold]
    scopes = ["vision-main", "vision-dev", "nlp-main"]
    cases += [(c["query"], scopes[i % 3]) for i, c in enumerate(gold)]
    return (cases + cases)[:50]


def test_same_results_with_one_and_four_workers(demo_indexed: list[str], demo_copy: Path) -> None:
    one = load_router([*demo_indexed, "router.workers=1"])
    four = load_router([*demo_indexed, "router.workers=4"])
    for query, scope in fifty_queries(demo_copy):
        assert comparable(one.search(query, scope)) == comparable(four.search(query, scope))
    four.close()


def test_one_router_shared_by_many_threads(demo_indexed: list[str], demo_copy: Path) -> None:
    router = load_router([*demo_indexed, "router.workers=4"])
    cases = fifty_queries(demo_copy)
    expected = [comparable(router.search(q, s)) for q, s in cases]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda case: comparable(router.search(*case)), cases * 2))
    assert got == expected * 2
    router.close()


class Sleepy(FakeTool):
    def __init__(self, name: str, seconds: float) -> None:
        super().__init__(name, ["slow-doc"])
        self.seconds = seconds
        self.finished = threading.Event()

    def retrieve(self, call, scope):
        time.sleep(self.seconds)
        self.finished.set()
        return super().retrieve(call, scope)


def plan(*tools: str) -> QueryPlan:
    return QueryPlan.model_validate(
        {"tool_rounds": [{"calls": [{"tool": t, "query": "q"} for t in tools]}]}
    )


def test_a_call_past_the_deadline_is_abandoned_and_the_rest_returned() -> None:
    grace = grace_s(0.3)  # on a loaded machine the work after the deadline takes longer
    slow = Sleepy("slow", 0.2 + 2 * grace + 1.0)  # waiting for it is never within the grace
    router = make_router(FakeTool("bm25", ["fast-doc"]), slow, deadline_ms=200)
    started = time.perf_counter()
    result = router.search("q", SCOPE_A, plan=plan("bm25", "slow"))
    elapsed = time.perf_counter() - started
    assert elapsed < 0.2 + grace, (elapsed, grace)  # deadline plus a bounded grace
    assert [e.id for e in result.evidence] == ["fast-doc"]
    assert result.partial
    assert [(d.stage, d.code) for d in result.degradations] == [("slow", codes.CALL_DEADLINE)]
    router.close()


def test_parallel_round_is_faster_than_its_calls_added_up() -> None:
    tools = [Sleepy(f"t{i}", 0.3) for i in range(3)]
    router = make_router(*tools, workers=3)
    started = time.perf_counter()
    router.search("q", SCOPE_A, plan=plan("t0", "t1", "t2"))
    # one call's 0.3 s and the round's work; in turn they would take 0.9 s
    assert time.perf_counter() - started < 0.3 + grace_s(0.45, at_most=0.58)
    router.close()


def test_deadline_stops_later_rounds() -> None:
    router = make_router(Sleepy("slow", 0.3), FakeTool("bm25", ["b"]), deadline_ms=250)
    two_rounds = QueryPlan.model_validate(
        {
            "tool_rounds": [
                {"calls": [{"tool": "slow", "query": "q"}]},
                {"calls": [{"tool": "bm25", "query": "q"}]},
            ]
        }
    )
    result = router.search("q", SCOPE_A, plan=two_rounds)
    codes_seen = [d.code for d in result.degradations]
    assert codes.CALL_DEADLINE in codes_seen and result.partial
    router.close()


def test_grep_honours_the_request_deadline(tmp_path: Path) -> None:
    from arr.tools.grep import GrepTool
    from tests.grep_fixtures import grep_workspace

    ws = grep_workspace(tmp_path)
    for i in range(300):
        (ws.root / "root" / f"big{i}.txt").write_text("abc def ghi\n" * 5000)
    tool = GrepTool("grep", ws, deadline_ms=60_000, threads=1)
    router = make_router(tool, deadline_ms=150)
    regex = QueryPlan.model_validate(
        {"tool_rounds": [{"calls": [{"tool": "grep", "query": "d.f", "regex": True}]}]}
    )
    started = time.perf_counter()
    router.search("d.f", SCOPE_A, plan=regex)
    time.sleep(0.5)  # the grace period: the abandoned scan must have stopped by now
    assert time.perf_counter() - started < 0.5 + grace_s(1.5, at_most=10)
    import os
    import subprocess

    children = subprocess.run(
        ["pgrep", "-P", str(os.getpid()), "rg"], capture_output=True, text=True
    )
    assert children.stdout.strip() == ""  # no ripgrep left running behind the answer
    router.close()
