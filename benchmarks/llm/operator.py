"""Operator-run check of the controlled scenarios against a REAL endpoint. Never run by CI.

    python -m benchmarks.llm.operator [file=scenarios.jsonl] [versions=v1,v2] [overrides ...]
    SILICONFLOW_API_KEY=... python -m benchmarks.llm.operator     # the packaged endpoint
    python -m benchmarks.llm.operator llm=local llm.base_url=http://127.0.0.1:8080/v1   # llama.cpp

The endpoint is the configured ``llm`` group with the overrides given (the same checks as a
search: a refused host or a missing key refuses to start, exit 2). For each prompt version it
plans every scenario's query through the real LLMClient and LLMQueryPlanner, each scenario a
run of its own (so at most ``llm.max_calls`` real calls each), and runs the plan through the
Router on a private copy of the demo workspace (local, read-only tools only). It prints, per
version: plans used, degraded, timed out, exceptions, scope leaks, tools run that the Router did
not admit, and the plan latency p50/p95 (benchmarks.llm.measure). Only the endpoint is contacted.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from arr.compose.library import PROJECT_ROOT
from arr.errors import ArrError
from benchmarks.llm.measure import markdown, measure_versions
from benchmarks.llm.replay import load_scenarios, scenario_options


def demo_overrides(folder: Path) -> list[str]:
    """A private, indexed copy of the demo workspace under ``folder``."""
    from arr.compose.indexing import index_workspace
    from arr.compose.library import compose
    from arr.compose.runner import build_tools, build_workspace, config_container

    shutil.copytree(
        PROJECT_ROOT / "data" / "demo",
        folder / "data" / "demo",
        ignore=shutil.ignore_patterns(".index", ".state", "*.sqlite3*"),
    )
    overrides = [f"paths.data_dir={folder / 'data'}", f"paths.output_dir={folder / 'outputs'}"]
    container = config_container(compose("index", [*overrides, "progress=false"]))
    workspace = build_workspace(container)
    index_workspace(
        workspace, build_tools(container, workspace), workspace.named_scopes(), progress=False
    )
    return overrides


def main(argv: list[str]) -> int:
    from arr.compose.library import load_router

    options, overrides = scenario_options(argv)
    try:
        load_router([*overrides, "planner=llm"], warm=False).close()  # the endpoint's checks
    except ArrError as exc:
        print(f"refusing to run: {exc}", file=sys.stderr)
        return 2
    scenarios = load_scenarios(Path(options["file"]))
    with tempfile.TemporaryDirectory(prefix="arr-operator-") as folder:
        demo = demo_overrides(Path(folder))

        def router_for(version: str):  # type: ignore[no-untyped-def]
            return load_router([*demo, *overrides, "planner=llm", f"prompt={version}"])

        summary = measure_versions(router_for, scenarios, options["versions"].split(","))
    print(markdown(summary), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
