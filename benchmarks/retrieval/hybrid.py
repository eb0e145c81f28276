"""Benchmark: warm hybrid search (bm25 + vector, rule planner, RRF, rule reranker) on SciFact,
p50/p95 over the 300 test claims, against the bm25 channel alone through the same Router.
The vector index (embedder=onnx, exact search) is built once into outputs/bench/hybrid
(about 7 minutes on 2 cores). Run: ``python -m benchmarks.retrieval.hybrid``; with
``ARR_BENCH_QUANTIZE=1`` the same with the int8 embedder (``embedder.quantize=true``, its own
index in outputs/bench/hybrid-int8). nDCG@10 of the hybrid answers is printed with each run.
"""

from __future__ import annotations

import os
import statistics
import time

from benchmarks.common.core import (
    BENCH_SCOPE,
    bench_out,
    corpus_workspace,
    ndcg_at_10,
    percentile,
    plain_wsum,
    read_qrels,
    read_queries,
    scifact_dir,
)
from benchmarks.common.table import record, render


def main() -> None:
    from arr.embedder.onnx import OnnxEmbedder
    from arr.planner.rule import RuleQueryPlanner
    from arr.reranker.rule import RuleReranker
    from arr.router.router import RetrievalRouter
    from arr.tools.bm25 import BM25Tool
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore

    quantize = os.environ.get("ARR_BENCH_QUANTIZE") == "1"
    data = scifact_dir()
    base = bench_out() / ("hybrid-int8" if quantize else "hybrid")
    workspace = corpus_workspace(data, base)
    bm25 = BM25Tool("bm25", workspace)
    vector = VectorTool(
        "vector",
        workspace,
        OnnxEmbedder(cache_dir=base / "onnx", quantize=quantize),
        ChromaStore(base / "chroma"),
        show_progress=True,
    )
    for tool in (bm25, vector):
        if not tool.freshness(BENCH_SCOPE).fresh:
            started = time.perf_counter()
            tool.build(BENCH_SCOPE)
            print(f"[hybrid] built {tool.name} in {time.perf_counter() - started:.0f} s")
    pairs = read_queries(data / "queries.test.jsonl")
    queries = [t for _, t in pairs]
    qrels = read_qrels(data / "qrels" / "test.tsv")
    rows = {}
    quality = {}
    for label, tools in (("hybrid", {"bm25": bm25, "vector": vector}), ("bm25", {"bm25": bm25})):
        router = RetrievalRouter(
            tools=tools,
            planner=RuleQueryPlanner(semantic_tools=("vector", "bm25")),
            fusion=plain_wsum(),
            reranker=RuleReranker(),
        )
        router.warm_up()
        for query in queries[:20]:
            router.search(query, BENCH_SCOPE)
        latencies, gains = [], []
        for qid, query in pairs:
            started = time.perf_counter()
            result = router.search(query, BENCH_SCOPE)
            latencies.append((time.perf_counter() - started) * 1000)
            ranked = [e.location.document_id or e.id for e in result.evidence]
            gains.append(ndcg_at_10(ranked, qrels.get(qid, {})))
        quality[label] = statistics.mean(gains)
        rows[label] = (percentile(latencies, 0.5), percentile(latencies, 0.95))
        router.close()
    kind = "onnx int8" if quantize else "onnx fp32"
    print(
        f"[hybrid] SciFact ({kind}), {len(queries)} claims: hybrid p50 {rows['hybrid'][0]:.1f} ms "
        f"p95 {rows['hybrid'][1]:.1f} ms, nDCG@10 {quality['hybrid']:.4f}; bm25 alone p50 "
        f"{rows['bm25'][0]:.1f} ms, nDCG@10 {quality['bm25']:.4f}"
    )
    for column, (name, goal) in enumerate((("p50", "<= 15 ms"), ("p95", ""))):
        baseline = rows["bm25"][column]
        figure = f"warm hybrid search {name}, SciFact ({kind})"
        record(figure, rows["hybrid"][column], "ms", baseline, "bm25 alone", goal)


if __name__ == "__main__":
    main()
    print(render())
