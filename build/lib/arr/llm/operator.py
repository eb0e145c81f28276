"""Operator-run check of the controlled scenarios against the REAL endpoint. Never run by CI.

    SILICONFLOW_API_KEY=... python -m arr.llm.operator [scenarios.jsonl] [version ...]

It refuses to start without the key (exit 2). It sends each scenario's query, with each prompt
version, through the real LLMClient and LLMQueryPlanner (the same locked-down client as
production: HTTPS, no redirects, proxies ignored, bounded time and body), with ONE client and
so one budget of at most 20 real calls for the whole run; scenarios beyond the budget are
reported as not run. It prints passed / degraded / timed out per version. Nothing else is
contacted and no tool runs: the plans are only parsed and checked, never executed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arr.api import PROJECT_ROOT
from arr.llm.client import LLMClient
from arr.llm.scenarios import load_scenarios
from arr.planner.llm import LLMQueryPlanner

KEY_ENV = "SILICONFLOW_API_KEY"
TOOLS = {
    "bm25": "lexical ranking over notes, code and logs",
    "grep": "exact line search in trusted directories",
    "vector": "semantic search over notes, code and logs",
    "memory": "published research notes and findings",
}


def main(argv: list[str]) -> int:
    if not os.environ.get(KEY_ENV):
        print(
            f"refusing to run: {KEY_ENV} is not set (this script talks to the real "
            "endpoint and is for operators only)",
            file=sys.stderr,
        )
        return 2
    import yaml

    path = Path(argv[0]) if argv else PROJECT_ROOT / "data" / "gold" / "llm_scenarios.jsonl"
    versions = argv[1:] or ["arr-router-v1", "arr-router-v2"]
    endpoint = yaml.safe_load((PROJECT_ROOT / "conf" / "llm" / "siliconflow.yaml").read_text())
    client = LLMClient(
        endpoint["base_url"],
        endpoint["model"],
        KEY_ENV,
        max_calls=20,
        timeout_s=float(endpoint["timeout_s"]),
    )
    scenarios = load_scenarios(path)
    for version in versions:
        prompt = yaml.safe_load((PROJECT_ROOT / "conf" / "prompt" / f"{version}.yaml").read_text())
        planner = LLMQueryPlanner(client, prompt)
        counts = {"passed": 0, "degraded": 0, "timeout": 0, "not_run": 0}
        for scenario in scenarios:
            if client.calls_made >= client.max_calls:
                counts["not_run"] += 1
                continue
            outcome = planner.plan(scenario.query, TOOLS)
            codes = [d.code for d in outcome.degradations]
            key = (
                "passed"
                if outcome.planner == "llm"
                else "timeout"
                if "llm_timeout" in codes
                else "degraded"
            )
            counts[key] += 1
        print(f"{version}: {counts} (real calls so far: {client.calls_made}/20)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
