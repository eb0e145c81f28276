"""Benchmark: embedder=onnx against the torch sentence-transformers embedder, same process.

Figures: model load (ONNX from its cached export; the first export is timed separately), query
embedding latency p50/p95, indexing docs/s, cosine agreement, and SciFact vector nDCG@10 with
exact search over a corpus of every judged document plus random others (ARR_BENCH_ONNX_DOCS,
default 1,000), with the 300 test claims. Run: ``python -m benchmarks.speed.onnx``.
"""

from __future__ import annotations

import json
import os
import random
import time

import numpy as np

from benchmarks.common.core import (
    bench_out,
    ndcg_at_10,
    percentile,
    read_qrels,
    read_queries,
    scifact_dir,
)


def main() -> None:
    from arr.embedder.onnx import OnnxEmbedder
    from arr.embedder.sentence_transformer import SentenceTransformerEmbedder

    data = scifact_dir()
    queries = dict(read_queries(data / "queries.jsonl"))
    qrels = read_qrels(data / "qrels" / "test.tsv")
    corpus = {}
    with (data / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            corpus[str(record["_id"])] = f"{record.get('title', '')}\n{record.get('text', '')}"
    judged = {d for rel in qrels.values() for d in rel}
    others = sorted(set(corpus) - judged)
    random.Random(7).shuffle(others)
    size = int(os.environ.get("ARR_BENCH_ONNX_DOCS", "1000"))
    ids = sorted(judged) + others[: max(0, size - len(judged))]
    texts = [corpus[i] for i in ids]
    cache = bench_out() / "onnx"
    onnx = OnnxEmbedder(cache_dir=cache, quantize=False)
    if not onnx.model_file().is_file():
        started = time.perf_counter()
        onnx.warm_up()
        print(f"one-off ONNX export: {time.perf_counter() - started:.1f} s")
        onnx = OnnxEmbedder(cache_dir=cache, quantize=False)
    rows = []
    vectors = {}
    for name, model in (("torch", SentenceTransformerEmbedder()), ("onnx", onnx)):
        started = time.perf_counter()
        model.warm_up()
        load = time.perf_counter() - started
        model.embed(texts[:8])
        latencies = []
        claims = list(queries.items())
        for _, text in claims[:100]:
            started = time.perf_counter()
            model.embed_query(text)
            latencies.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        matrix = model.embed(texts)
        rate = len(texts) / (time.perf_counter() - started)
        query_ids = [q for q in qrels if q in queries]
        query_matrix = model.embed([queries[q] for q in query_ids])
        scores = query_matrix @ matrix.T
        ndcg = [
            ndcg_at_10([ids[j] for j in np.argsort(-scores[k])[:10]], qrels[q])
            for k, q in enumerate(query_ids)
        ]
        vectors[name] = matrix
        rows.append(
            (
                name,
                load,
                percentile(latencies, 0.5),
                percentile(latencies, 0.95),
                rate,
                sum(ndcg) / len(ndcg),
            )
        )
    cosine = (vectors["torch"] * vectors["onnx"]).sum(axis=1)
    print(f"corpus: {len(texts)} SciFact documents (all judged + random), {len(qrels)} claims")
    print(
        f"{'embedder':<8} {'load s':>7} {'query p50 ms':>13} {'p95 ms':>7} {'docs/s':>7} "
        f"{'nDCG@10':>8}"
    )
    for name, load, p50, p95, rate, ndcg in rows:
        print(f"{name:<8} {load:7.2f} {p50:13.1f} {p95:7.1f} {rate:7.1f} {ndcg:8.4f}")
    torch_row, onnx_row = rows
    print(
        f"ratios onnx/torch: load {onnx_row[1] / torch_row[1]:.2f}, query p50 "
        f"{onnx_row[2] / torch_row[2]:.2f}, docs/s {onnx_row[4] / torch_row[4]:.2f}; "
        f"nDCG@10 diff {onnx_row[5] - torch_row[5]:+.4f} (goal within 0.005); cosine min "
        f"{cosine.min():.6f} (goal >= 0.99)"
    )


if __name__ == "__main__":
    main()
