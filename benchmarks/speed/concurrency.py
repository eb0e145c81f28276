"""Concurrency benchmarks (``make bench-concurrency``), parallel vs sequential in the same run.

A three-channel round on one benchmark scope: bm25 and vector over SciFact (indexes cached by
``make bench`` and ``make bench-vector``; built here if missing) and grep over an installed
package (``$ARR_GREP_TREE``, default ``tqdm``), chosen so no channel dominates. Each channel gets
one thread (torch intra-op threads = 1, ripgrep ``--threads=1``) so channels can overlap on a
small machine.

1. Round latency p50/p95 with the round's calls run in parallel (router.workers=3) vs one after
   another (workers=1), same queries, same process. Goal: parallel <= 0.7x sequential.
2. Throughput of one shared router under 1, 2 and 4 client threads: queries/s, p50/p95.
"""

from __future__ import annotations

import os
import statistics
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from arr.embedder.sentence_transformer import SentenceTransformerEmbedder
from arr.fusion.rrf import RRFFusion
from arr.models import QueryPlan
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from arr.workspace.workspace import Workspace
from benchmarks.common.core import (
    BENCH_SCOPE,
    bench_out,
    corpus_workspace,
    percentile,
    read_queries,
    scifact_dir,
)


def build_tools(data: Path) -> dict[str, object]:
    bench = bench_out()
    corpus = corpus_workspace(data, bench / "index", scope="s")
    vector_ws = corpus.model_copy(update={"index_dir": bench / "vector"})
    tree = Path(
        os.environ.get("ARR_GREP_TREE", Path(sysconfig.get_paths()["purelib"]) / "tqdm")
    ).resolve()
    code = Workspace(
        name="code",
        root=tree,
        index_dir=bench / "none",
        memory_db=bench / "none.sqlite3",
        scopes={"s": {"key": BENCH_SCOPE, "roots": ["."]}},
    )
    embedder = SentenceTransformerEmbedder()
    tools = {
        "bm25": BM25Tool("bm25", corpus, top_k=100),
        "vector": VectorTool(
            "vector", vector_ws, embedder, ChromaStore(bench / "vector" / "chroma"), top_k=100
        ),
        "grep": GrepTool("grep", code),
    }
    for name in ("bm25", "vector"):
        if not tools[name].freshness(BENCH_SCOPE).fresh:  # type: ignore[attr-defined]
            print(f"[concurrency] building the {name} index (once; cached under {bench})")
            tools[name].build(BENCH_SCOPE)  # type: ignore[attr-defined]
    return tools


def make_router(tools: dict[str, object], workers: int) -> RetrievalRouter:
    return RetrievalRouter(
        tools=tools,
        planner=RuleQueryPlanner(top_k=None),
        fusion=RRFFusion(),
        reranker=RuleReranker(),
        workers=workers,
    )  # type: ignore[arg-type]


def three_channel_plan(query: str) -> QueryPlan:
    words = " ".join(query.split()[:2])  # a literal grep for the claim's first words
    return QueryPlan.model_validate(
        {
            "tool_rounds": [
                {
                    "calls": [
                        {"tool": "bm25", "query": query},
                        {"tool": "vector", "query": query},
                        {"tool": "grep", "query": words},
                    ]
                }
            ]
        }
    )


def latencies(router: RetrievalRouter, queries: list[str]) -> list[float]:
    out = []
    for query in queries:
        started = time.perf_counter()
        router.search(query, BENCH_SCOPE, plan=three_channel_plan(query))
        out.append((time.perf_counter() - started) * 1000)
    return out


def main(count: int = 100) -> int:
    data = scifact_dir()
    if not (data / "corpus.jsonl").is_file():
        print(f"[concurrency] skipped: no corpus at {data}")
        return 0
    import torch

    # One core per channel: on a 2-core machine each channel would otherwise take both cores
    # (torch's intra-op threads, ripgrep's workers) and nothing could overlap.
    torch.set_num_threads(1)
    tools = build_tools(data)
    queries = [t for _, t in read_queries(data / "queries.test.jsonl")][:count]
    sequential, parallel = make_router(tools, 1), make_router(tools, 3)
    for router in (sequential, parallel):
        router.warm_up()
        latencies(router, queries[:5])  # warm caches and threads
    solo = {}
    for name in tools:
        router = make_router({name: tools[name]}, 1)
        times = []
        for query in queries[:30]:
            plan = three_channel_plan(query)
            call = next(c for c in plan.tool_rounds[0].calls if c.tool == name)
            single = QueryPlan.model_validate({"tool_rounds": [{"calls": [call.model_dump()]}]})
            started = time.perf_counter()
            router.search(query, BENCH_SCOPE, plan=single)
            times.append((time.perf_counter() - started) * 1000)
        solo[name] = statistics.median(times)
    print(
        "[concurrency] channel p50 alone: "
        + ", ".join(f"{n} {ms:.1f} ms" for n, ms in solo.items())
    )
    seq, par = [], []
    for _ in range(2):  # interleaved
        seq += latencies(sequential, queries)
        par += latencies(parallel, queries)
    ratio = percentile(par, 0.5) / percentile(seq, 0.5)
    print(f"[concurrency] three-channel round, {len(queries)} queries x 2")
    print(f"  sequential p50 {percentile(seq, 0.5):7.1f} ms  p95 {percentile(seq, 0.95):7.1f} ms")
    print(f"  parallel   p50 {percentile(par, 0.5):7.1f} ms  p95 {percentile(par, 0.95):7.1f} ms")
    print(
        f"  ratio parallel/sequential p50 {ratio:.2f} "
        f"({'meets' if ratio <= 0.7 else 'MISSES'} <= 0.7)"
    )
    shared = make_router(tools, 4)
    shared.warm_up()
    for clients in (1, 2, 4):
        per_query: list[float] = []

        def client(offset: int, per_query: list[float] = per_query, step: int = clients) -> None:
            for query in queries[offset::step]:
                started = time.perf_counter()
                shared.search(query, BENCH_SCOPE, plan=three_channel_plan(query))
                per_query.append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(client, range(clients)))
        elapsed = time.perf_counter() - started
        print(
            f"  {clients} client thread(s): {len(queries) / elapsed:6.1f} q/s   "
            f"p50 {percentile(per_query, 0.5):7.1f} ms  p95 {percentile(per_query, 0.95):7.1f} ms"
        )
    for router in (sequential, parallel, shared):
        router.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
