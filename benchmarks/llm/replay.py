"""Controlled LLM scenarios: replay scripted replies through the real client, per prompt version.

``python -m benchmarks.llm.replay [file=...] [versions=arr-router-v1,arr-router-v2]`` (``make
replay``; a benchmark of the checkout, not an ``arr`` command) starts the local HTTPS fake
endpoint (benchmarks.llm.fake_server), builds the demo router with ``planner=llm`` for each prompt
version pointed at it, and runs every scenario with that version's scripted reply. Outcome per
scenario: ``passed`` (the LLM's plan was used and nothing degraded), ``timeout`` (the planner
timed out), ``degraded`` (any other fallback), plus scope leaks counted over the evidence. The
summary and per-scenario outcomes go to ``outputs/replay/runs/<timestamp>/replay.json`` and
``replay.md``. The operator-run counterpart against the real endpoint is benchmarks.llm.operator.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from arr import atomic_write
from arr.errors import ArrError
from benchmarks.llm.fake_server import FakeLLMServer, Reply, completion

REPLAY_KEY_ENV = "ARR_REPLAY_FAKE_KEY"


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    query: str
    scope: str
    replies: dict[str, str | dict[str, Any]]
    note: str = ""


def load_scenarios(path: Path) -> list[Scenario]:
    scenarios = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.strip():
            try:
                scenarios.append(Scenario.model_validate_json(raw))
            except ValidationError as exc:
                raise ArrError(
                    f"{path}:{number}: invalid scenario: {exc.errors()[0]['msg']}"
                ) from None
    return scenarios


def as_reply(spec: str | dict[str, Any]) -> Reply:
    if isinstance(spec, str):
        return completion(spec)
    return Reply(
        status=int(spec.get("status", 200)),
        delay_s=float(spec.get("delay_s", 0)),
        body=json.dumps(spec.get("body", {})).encode(),
    )


def classify(result: Any) -> str:
    planner_codes = [d.code for d in result.degradations if d.stage == "planner"]
    if result.planner == "llm" and not result.degradations:
        return "passed"
    if "llm_timeout" in planner_codes:
        return "timeout"
    return "degraded"


def replay(
    scenarios: list[Scenario], versions: list[str], overrides: list[str], timeout_s: float = 1.0
) -> dict[str, Any]:
    from arr.compose.library import load_router

    os.environ.setdefault(REPLAY_KEY_ENV, "replay-fake-key")
    summary: dict[str, Any] = {}
    with FakeLLMServer() as server:
        for version in versions:
            router = load_router(
                [
                    *overrides,
                    "planner=llm",
                    f"prompt={version}",
                    f"llm.base_url={server.base_url}",
                    "llm.allowed_hosts=[localhost]",
                    f"llm.ca_bundle={server.ca_path}",
                    f"llm.api_key_env={REPLAY_KEY_ENV}",
                    f"llm.timeout_s={timeout_s}",
                ]
            )
            counts = {"passed": 0, "degraded": 0, "timeout": 0, "scope_leaks": 0}
            outcomes = []
            for scenario in scenarios:
                if version not in scenario.replies:
                    continue
                router.planner.client.new_run()  # each scenario is a run of its own
                server.script(as_reply(scenario.replies[version]))
                result = router.search(scenario.query, scenario.scope)
                outcome = classify(result)
                leaks = sum(e.scope != result.scope for e in result.evidence)
                counts[outcome] += 1
                counts["scope_leaks"] += leaks
                outcomes.append(
                    {
                        "id": scenario.id,
                        "outcome": outcome,
                        "leaks": leaks,
                        "codes": [d.code for d in result.degradations]
                        + [r.code for r in result.rejections],
                    }
                )
            router.close()
            summary[version] = {**counts, "scenarios": len(outcomes), "outcomes": outcomes}
    return summary


def markdown(summary: dict[str, Any]) -> str:
    lines = [
        "| prompt | scenarios | passed | degraded | timeout | scope leaks |",
        "|---|---|---|---|---|---|",
    ]
    for version, row in summary.items():
        lines.append(
            f"| {version} | {row['scenarios']} | {row['passed']} | {row['degraded']} "
            f"| {row['timeout']} | {row['scope_leaks']} |"
        )
    return "\n".join(lines) + "\n"


def scenario_options(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """``file=`` and ``versions=`` (with their defaults), and the overrides that remain."""
    from arr.compose.library import PROJECT_ROOT

    options = {
        "file": str(PROJECT_ROOT / "data" / "gold" / "llm_scenarios.jsonl"),
        "versions": "arr-router-v1,arr-router-v2",
    }
    overrides = []
    for arg in args:
        key, _, value = arg.partition("=")
        if key in options:
            options[key] = value
        else:
            overrides.append(arg)
    return options, overrides


def run(args: list[str]) -> int:
    from arr.compose.library import PROJECT_ROOT

    options, overrides = scenario_options(args)
    scenarios = load_scenarios(Path(options["file"]))
    summary = replay(scenarios, options["versions"].split(","), overrides)
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f")
    out = PROJECT_ROOT / "outputs" / "replay" / "runs" / stamp
    for override in overrides:
        if override.startswith("paths.output_dir="):
            out = Path(override.split("=", 1)[1]) / "replay" / "runs" / stamp
    out.mkdir(parents=True, exist_ok=True)
    atomic_write.write_text(out / "replay.json", json.dumps(summary, indent=2))
    atomic_write.write_text(out / "replay.md", markdown(summary))
    print(markdown(summary) + f"\nreport: {out / 'replay.json'}")
    return 0


if __name__ == "__main__":
    import sys

    from arr.errors import ArrError

    try:
        sys.exit(run(sys.argv[1:]))
    except ArrError as exc:
        print(f"replay: error: {exc}", file=sys.stderr)
        sys.exit(2)
