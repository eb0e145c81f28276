"""Benchmark: token-aware passages for the vector channel on SciFact (abstracts longer than
the model reads: 71% over 256 word pieces) and on a code tree (40-line chunks: 95% over).

Builds the SciFact vector index with passages (``tools.vector.passages``) into
outputs/bench/passages (about 10 minutes on 2 cores) and prints: share of units longer than the
model reads, passages per unit, the longest passage in word pieces, embedding throughput, and
nDCG@10 / Recall@100 of the vector channel alone and of the default hybrid (bm25 + vector,
min-max CombSUM), to compare with whole-chunk embedding
(``python -m benchmarks.retrieval.fusion``). The code tree part counts, with the model's
tokenizer, how many 40-line chunks of outputs/bench/freshness/tree (``make bench-freshness``)
would be truncated before and after.

Run: ``python -m benchmarks.retrieval.passages``.
"""

from __future__ import annotations

import random
import statistics
import time

from arr.eval.metrics import ndcg_at, recall_at
from benchmarks.common.core import (
    BENCH_SCOPE,
    bench_out,
    corpus_workspace,
    plain_wsum,
    read_qrels,
    read_queries,
    scifact_dir,
)


def code_tree_share(embedder: object, files: int = 600) -> None:
    from arr.tools.passages import split_all
    from arr.workspace.sources import chunk_lines as _chunk_lines

    tree = bench_out() / "freshness" / "tree"
    paths = sorted(tree.rglob("*.py"))
    if not paths:
        print("[passages] code tree: skipped (run make bench-freshness first)")
        return
    random.Random(1).shuffle(paths)
    chunks = [
        d for p in paths[:files] for d in _chunk_lines(str(p), p.read_text(errors="replace"), 40, 0)
    ]
    count, budget = embedder.token_counts, embedder.max_tokens  # type: ignore[attr-defined]
    before = sum(n > budget for n in count([c.text for c in chunks])) / len(chunks)
    passages, split = split_all(chunks, count, budget, 32)
    after = sum(n > budget for n in count([p.text for p in passages])) / len(passages)
    print(
        f"[passages] code tree: {len(chunks)} chunks of {files} files; truncated before "
        f"{before:.1%}, after {after:.1%} ({len(passages)} passages, {split} chunks split)"
    )


def main() -> None:
    from arr.embedder.onnx import OnnxEmbedder
    from arr.planner.rule import RuleQueryPlanner
    from arr.reranker.rule import RuleReranker
    from arr.router.router import RetrievalRouter
    from arr.tools.bm25 import BM25Tool
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore

    data = scifact_dir()
    base = bench_out() / "passages"
    workspace = corpus_workspace(data, base)
    embedder = OnnxEmbedder(cache_dir=bench_out() / "hybrid" / "onnx", quantize=False)
    code_tree_share(embedder)
    units = list(workspace.corpus_documents(BENCH_SCOPE))
    sizes = embedder.token_counts([u.text for u in units])
    print(
        f"[passages] SciFact: {sum(n > embedder.max_tokens for n in sizes) / len(units):.1%} of "
        f"{len(units)} documents longer than the model reads ({embedder.max_tokens} word pieces)"
    )
    bm25 = BM25Tool("bm25", workspace)
    vector = VectorTool(
        "vector", workspace, embedder, ChromaStore(base / "chroma"), show_progress=True
    )
    for tool in (bm25, vector):
        if not tool.freshness(BENCH_SCOPE).fresh:
            started = time.perf_counter()
            manifest = tool.build(BENCH_SCOPE)
            took = time.perf_counter() - started
            extra = ""
            if tool is vector:
                extra = (
                    f", {manifest['documents']} passages for {len(units)} documents "
                    f"({manifest['units_split']} split), {manifest['embedded'] / took:.1f} "
                    "passages/s"
                )
            print(f"[passages] built {tool.name} in {took:.0f} s{extra}")
    pairs = read_queries(data / "queries.test.jsonl")
    qrels = read_qrels(data / "qrels" / "test.tsv")
    both = ("vector", "bm25")
    for label, tools in (
        ("vector alone", {"vector": vector}),
        ("hybrid", {"bm25": bm25, "vector": vector}),
    ):
        router = RetrievalRouter(
            tools=tools,
            planner=RuleQueryPlanner(lexical_tools=both, semantic_tools=both, top_k=100),
            fusion=plain_wsum(top_k=100),
            reranker=RuleReranker(),
        )
        ndcg, recall = [], []
        for qid, query in pairs:
            result = router.search(query, BENCH_SCOPE)
            ranked = list(dict.fromkeys(e.location.document_id or e.id for e in result.evidence))
            ndcg.append(ndcg_at(ranked, qrels.get(qid, {}), 10))
            recall.append(recall_at(ranked, qrels.get(qid, {}), 100))
        router.close()
        print(
            f"[passages] SciFact {label} with passages: nDCG@10 {statistics.mean(ndcg):.4f}, "
            f"Recall@100 {statistics.mean(recall):.4f}"
        )


if __name__ == "__main__":
    main()
