"""The controlled scenarios against a real endpoint, measured: per prompt version, what the
planner made of each question (a plan used, a recorded fallback, a timeout), how long the plan
took, and what running that plan through the Router gave (scope leaks, tools run that the
Router did not admit, exceptions). Used by ``python -m benchmarks.llm.operator`` and ``make
bench-llm``; each scenario is a run of its own (the call budget is per run)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.common.core import percentile
from benchmarks.llm.replay import Scenario

TIMEOUT_CODES = ("llm_timeout", "planner_timeout")


def measure(router: Any, scenarios: Sequence[Scenario]) -> dict[str, Any]:
    """One version's figures; ``router`` has an LLM planner (``planner=llm``)."""
    counts = {"passed": 0, "degraded": 0, "timeout": 0}
    latencies: list[float] = []
    leaks = unadmitted = exceptions = 0
    outcomes = []
    tools = router.tool_summaries()
    for scenario in scenarios:
        router.planner.client.new_run()
        started = time.perf_counter()
        try:
            outcome = router.planner.plan(scenario.query, tools)
            latencies.append(time.perf_counter() - started)
            codes = [d.code for d in outcome.degradations]
            kind = (
                "passed"
                if outcome.planner == "llm"
                else "timeout"
                if set(codes) & set(TIMEOUT_CODES)
                else "degraded"
            )
            result = router.search(scenario.query, scenario.scope, plan=outcome.plan)
        except Exception as exc:  # counted, never expected: the planner falls back by design
            exceptions += 1
            outcomes.append({"id": scenario.id, "outcome": "exception", "error": repr(exc)[:200]})
            continue
        counts[kind] += 1
        leaks += result.scope_leak_count
        unadmitted += sum(
            1 for t in result.traces if t.status != "rejected" and t.tool not in router.tools
        )
        outcomes.append(
            {
                "id": scenario.id,
                "outcome": kind,
                "plan_s": round(latencies[-1], 3),
                "codes": codes + [r.code for r in result.rejections],
                "plan": [[(c.tool, c.query) for c in r.calls] for r in outcome.plan.tool_rounds],
            }
        )
    return {
        **counts,
        "scenarios": len(scenarios),
        "exceptions": exceptions,
        "scope_leaks": leaks,
        "unadmitted_tools_run": unadmitted,
        "plan_p50_s": round(percentile(latencies, 0.5), 3) if latencies else 0.0,
        "plan_p95_s": round(percentile(latencies, 0.95), 3) if latencies else 0.0,
        "outcomes": outcomes,
    }


def measure_versions(
    router_for: Callable[[str], Any], scenarios: Sequence[Scenario], versions: Sequence[str]
) -> dict[str, Any]:
    summary = {}
    for version in versions:
        router = router_for(version)
        try:
            summary[version] = measure(router, scenarios)
        finally:
            router.close()
    return summary


def markdown(summary: dict[str, Any]) -> str:
    lines = [
        "| prompt | scenarios | plan used | degraded | timed out | exceptions | scope leaks "
        "| unadmitted tools run | plan p50 / p95 s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for version, row in summary.items():
        lines.append(
            f"| {version} | {row['scenarios']} | {row['passed']} | {row['degraded']} "
            f"| {row['timeout']} | {row['exceptions']} | {row['scope_leaks']} "
            f"| {row['unadmitted_tools_run']} | {row['plan_p50_s']:.2f} / {row['plan_p95_s']:.2f} |"
        )
    return "\n".join(lines) + "\n"
