"""Benchmark: what an agent or a person feels. Cold ``arr search`` wall time (lexical and
hybrid) against ``python -c pass``, and the MCP ``search`` round trip against a warm router's
own search time, on a private copy of the demo workspace. Run:
``python -m benchmarks.retrieval.agents``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arr.compose.library import PROJECT_ROOT
from benchmarks.common.core import percentile
from benchmarks.common.table import record

# A user's interpreter keeps compiled bytecode (pip compiles an installed wheel): a machine
# that sets PYTHONDONTWRITEBYTECODE would time the compiling of ~120 modules (0.1 s) instead.
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}
LEXICAL = "CUDA out of memory at batch_size 256"
HYBRID = "Why did the warmup schedule fix the loss spikes?"


def _wall(command: list[str], repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, env=ENV, check=True, timeout=300)
        best = min(best, time.perf_counter() - started)
    return best


def bench_cold(overrides: list[str]) -> None:
    base = [sys.executable, "-m", "arr.cli", "search", "scope=vision-main", *overrides]
    python = _wall([sys.executable, "-c", "pass"])
    lexical = _wall([*base, f"query={LEXICAL}"])
    hybrid = _wall([*base, f"query={HYBRID}"])
    print(f"[cold] python -c pass {python:.2f} s, lexical {lexical:.2f} s, hybrid {hybrid:.2f} s")
    record(
        "cold arr search, lexical (best of 5)", lexical, "s", python, "python -c pass", "< 1.0 s"
    )
    record("cold arr search, hybrid (best of 5)", hybrid, "s", python, "python -c pass", "< 3 s")


def bench_mcp(overrides: list[str], calls: int = 60) -> None:
    import anyio
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters

    from arr.compose.library import load_router

    router = load_router(overrides)
    router.search(HYBRID, "vision-main")
    direct = []
    for number in range(calls):
        started = time.perf_counter()
        router.search(HYBRID if number % 2 else LEXICAL, "vision-main")
        direct.append((time.perf_counter() - started) * 1000)
    router.close()
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "arr.cli", "serve", "--warm", *overrides], env=ENV
    )
    rounds: list[float] = []

    async def main() -> None:
        async with Client(params) as client:
            await client.call_tool("search", {"query": HYBRID, "scope": "vision-main"})
            for number in range(calls):
                started = time.perf_counter()
                await client.call_tool(
                    "search",
                    {"query": HYBRID if number % 2 else LEXICAL, "scope": "vision-main"},
                )
                rounds.append((time.perf_counter() - started) * 1000)

    anyio.run(main)
    p50, p95 = percentile(rounds, 0.5), percentile(rounds, 0.95)
    print(
        f"[mcp] search round trip p50 {p50:.1f} ms p95 {p95:.1f} ms; in-process p50 "
        f"{percentile(direct, 0.5):.1f} ms"
    )
    record(
        "MCP search round trip p50 (warm)", p50, "ms", percentile(direct, 0.5), "router.search p50"
    )
    record(
        "MCP search round trip p95 (warm)", p95, "ms", percentile(direct, 0.95), "router.search p95"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(
            PROJECT_ROOT / "data" / "demo", data / "demo", ignore=shutil.ignore_patterns(".*")
        )
        overrides = [f"paths.data_dir={data}", f"paths.output_dir={tmp}/outputs", "progress=false"]
        subprocess.run(
            [sys.executable, "-m", "arr.cli", "index", *overrides],
            capture_output=True,
            env=ENV,
            check=True,
            timeout=900,
        )
        bench_cold(overrides)
        bench_mcp(overrides)


if __name__ == "__main__":
    main()
    from benchmarks.common.table import render

    print(render())
