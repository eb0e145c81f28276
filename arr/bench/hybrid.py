"""Benchmark: warm hybrid search (bm25 + vector, rule planner, RRF, rule reranker) on SciFact,
p50/p95 over the 300 test claims, against the bm25 channel alone through the same Router.
The vector index (embedder=onnx, exact search) is built once into outputs/bench/hybrid
(about 7 minutes on 2 cores). Run: ``python -m arr.bench.hybrid``.
"""

from __future__ import annotations

import time

from arr.api import PROJECT_ROOT
from arr.bench.core import BENCH_SCOPE, percentile, read_queries, scifact_dir
from arr.bench.table import record, render


def main() -> None:
    from arr.embedder.onnx import OnnxEmbedder
    from arr.fusion.rrf import RRFFusion
    from arr.planner.rule import RuleQueryPlanner
    from arr.reranker.rule import RuleReranker
    from arr.router.router import RetrievalRouter
    from arr.tools.bm25 import BM25Tool
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore
    from arr.workspace import Workspace

    data = scifact_dir()
    base = PROJECT_ROOT / "outputs" / "bench" / "hybrid"
    workspace = Workspace(
        name="scifact",
        root=data,
        index_dir=base,
        memory_db=base / "none.sqlite3",
        scopes={"scifact": {"key": BENCH_SCOPE, "beir_corpus": "corpus.jsonl"}},
    )
    bm25 = BM25Tool("bm25", workspace)
    vector = VectorTool(
        "vector",
        workspace,
        OnnxEmbedder(cache_dir=base / "onnx"),
        ChromaStore(base / "chroma"),
        show_progress=True,
    )
    for tool in (bm25, vector):
        if not tool.freshness(BENCH_SCOPE).fresh:
            started = time.perf_counter()
            tool.build(BENCH_SCOPE)
            print(f"[hybrid] built {tool.name} in {time.perf_counter() - started:.0f} s")
    queries = [t for _, t in read_queries(data / "queries.test.jsonl")]
    rows = {}
    for label, tools in (("hybrid", {"bm25": bm25, "vector": vector}), ("bm25", {"bm25": bm25})):
        router = RetrievalRouter(
            tools=tools,
            planner=RuleQueryPlanner(semantic_tools=("vector", "bm25")),
            fusion=RRFFusion(),
            reranker=RuleReranker(),
        )
        router.warm_up()
        for query in queries[:20]:
            router.search(query, BENCH_SCOPE)
        latencies = []
        for query in queries:
            started = time.perf_counter()
            router.search(query, BENCH_SCOPE)
            latencies.append((time.perf_counter() - started) * 1000)
        rows[label] = (percentile(latencies, 0.5), percentile(latencies, 0.95))
        router.close()
    print(
        f"[hybrid] SciFact, {len(queries)} claims: hybrid p50 {rows['hybrid'][0]:.1f} ms "
        f"p95 {rows['hybrid'][1]:.1f} ms; bm25 alone p50 {rows['bm25'][0]:.1f} ms"
    )
    record(
        "warm hybrid search p50, SciFact",
        rows["hybrid"][0],
        "ms",
        rows["bm25"][0],
        "bm25 alone",
        "<= 15 ms",
    )
    record(
        "warm hybrid search p95, SciFact", rows["hybrid"][1], "ms", rows["bm25"][1], "bm25 alone"
    )


if __name__ == "__main__":
    main()
    print(render())
