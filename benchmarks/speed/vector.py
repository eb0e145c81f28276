"""Vector benchmarks (``make bench-vector``), figures and ratios against baselines in the same run.

On SciFact (``../shared/data/scifact`` or ``$ARR_SCIFACT``):

1. Indexing throughput of ``arr index``'s vector build (document reading, hashing, embedding,
   Chroma writes) vs raw ``SentenceTransformer.encode`` on the same texts, on the first
   ``$ARR_BENCH_VECTOR_DOCS`` abstracts (default 1000). Goal: ratio >= 0.9.
2. A full SciFact vector index (5,183 abstracts): its wall time, cached under
   ``outputs/bench/vector`` and reused while fresh; nDCG@10 of the vector channel on the 300
   test claims (MTEB reports 0.645 for all-MiniLM-L6-v2).
3. Query latency p50/p95 of the vector channel through the Router (rule planner, query
   embedding included) vs a raw Chroma query with a precomputed embedding.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arr.embedder.sentence_transformer import SentenceTransformerEmbedder
from arr.fusion.rrf import RRFFusion
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from benchmarks.common.core import (
    BENCH_SCOPE,
    bench_out,
    corpus_workspace,
    ndcg_at_10,
    percentile,
    read_qrels,
    read_queries,
    scifact_dir,
)


def bench_throughput(data: Path, embedder: SentenceTransformerEmbedder, count: int) -> None:
    lines = (data / "corpus.jsonl").read_text().splitlines()[:count]
    with tempfile.TemporaryDirectory() as tmp:
        subset = Path(tmp) / "corpus.jsonl"
        subset.write_text("\n".join(lines) + "\n")
        workspace = corpus_workspace(Path(tmp), Path(tmp) / "index")
        texts = [d.text for d in workspace.documents(BENCH_SCOPE)]
        started = time.perf_counter()
        embedder.model_object.encode(
            texts, batch_size=embedder.batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        raw_s = time.perf_counter() - started
        tool = VectorTool("vector", workspace, embedder, ChromaStore(Path(tmp) / "chroma"))
        started = time.perf_counter()
        manifest = tool.build(BENCH_SCOPE)
        ours_s = time.perf_counter() - started
    ratio = raw_s / ours_s
    print(f"[vector] indexing {manifest['embedded']} abstracts (batch {embedder.batch_size})")
    print(f"  raw encode       {len(texts) / raw_s:7.1f} docs/s  ({raw_s:.1f} s)")
    print(f"  arr vector build {len(texts) / ours_s:7.1f} docs/s  ({ours_s:.1f} s)")
    print(f"  ratio arr/raw    {ratio:7.3f}  ({'meets' if ratio >= 0.9 else 'MISSES'} >= 0.9)")


def bench_full_index_and_queries(data: Path, embedder: SentenceTransformerEmbedder) -> None:
    index_dir = bench_out() / "vector"
    workspace = corpus_workspace(data, index_dir)
    tool = VectorTool(
        "vector",
        workspace,
        embedder,
        ChromaStore(index_dir / "chroma"),
        top_k=10,
        show_progress=True,
    )
    if not tool.freshness(BENCH_SCOPE).fresh:
        started = time.perf_counter()
        manifest = tool.build(BENCH_SCOPE)
        elapsed = time.perf_counter() - started
        print(
            f"[vector] full SciFact index: {manifest['documents']} abstracts in {elapsed:.0f} s "
            f"({manifest['documents'] / elapsed:.1f} docs/s)"
        )
    else:
        print(
            "[vector] full SciFact index: cached and fresh (delete outputs/bench/vector to "
            "time a rebuild)"
        )
    router = RetrievalRouter(
        tools={"vector": tool},
        planner=RuleQueryPlanner(top_k=10),
        fusion=RRFFusion(top_k=10),
        reranker=RuleReranker(),
    )
    router.warm_up()
    queries = read_queries(data / "queries.test.jsonl")
    qrels = read_qrels(data / "qrels" / "test.tsv")
    collection = tool.store.collection(BENCH_SCOPE)
    embeddings = embedder.embed([t for _, t in queries])
    routed_ms, raw_ms, ndcg = [], [], []
    for (qid, text), embedding in zip(queries, embeddings, strict=True):
        started = time.perf_counter()
        result = router.search(text, BENCH_SCOPE)
        routed_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        collection.query(
            query_embeddings=[embedding],
            n_results=10,
            include=["distances", "documents", "metadatas"],
        )
        raw_ms.append((time.perf_counter() - started) * 1000)
        ndcg.append(ndcg_at_10([e.id for e in result.evidence], qrels.get(qid, {})))
    print(f"[vector] {len(queries)} queries, top 10: nDCG@10 {statistics.mean(ndcg):.4f}")
    print(
        f"  through Router (embeds the query) p50 {percentile(routed_ms, 0.5):6.2f} ms   "
        f"p95 {percentile(routed_ms, 0.95):6.2f} ms"
    )
    print(
        f"  raw Chroma, precomputed vector    p50 {percentile(raw_ms, 0.5):6.2f} ms   "
        f"p95 {percentile(raw_ms, 0.95):6.2f} ms"
    )
    print(f"  ratio p50 Router/raw {percentile(routed_ms, 0.5) / percentile(raw_ms, 0.5):.2f}")


def main() -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data = scifact_dir()
    if not (data / "corpus.jsonl").is_file():
        print(f"[vector] skipped: no corpus at {data} (set ARR_SCIFACT)")
        return 0
    embedder = SentenceTransformerEmbedder()
    embedder.warm_up()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, embedder {embedder.id}")
    bench_throughput(data, embedder, int(os.environ.get("ARR_BENCH_VECTOR_DOCS", "1000")))
    bench_full_index_and_queries(data, embedder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
