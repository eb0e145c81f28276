"""Per-query ranking metrics, named as in ranx (``recall@10``, ``mrr@10``, ``ndcg@10``, ``map``).

Definitions follow trec_eval/ranx so results can be cross-checked (tests do, against ranx):
``ndcg@k`` is trec_eval's / pytrec_eval's / BEIR's / ranx's ``ndcg``: gain = the relevance grade,
discount ``log2(rank + 1)``, ideal ranking from all judged-relevant documents; the exponential
gain ``2^rel - 1`` variant is ``ndcg_burges@k`` (ranx's name; equal on binary judgements);
MAP is average precision over the whole returned list; MRR@k is the reciprocal rank of the
first relevant document within k; precision@k divides by k. A relevant document is one with
grade > 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def recall_at(ranked: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    relevant = {d for d, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant & set(ranked[:k])) / len(relevant)


def precision_at(ranked: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    return sum(1 for d in ranked[:k] if qrels.get(d, 0) > 0) / k


def mrr_at(ranked: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    for rank, doc in enumerate(ranked[:k], 1):
        if qrels.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def ndcg_at(
    ranked: Sequence[str], qrels: Mapping[str, int], k: int, exponential: bool = False
) -> float:
    """trec_eval's nDCG (gain = grade); ``exponential=True``: Burges' ``2^grade - 1`` gain."""

    def gain(grade: int) -> float:
        return float(2**grade - 1) if exponential else float(grade)

    dcg = sum(
        gain(qrels.get(d, 0)) / math.log2(i + 2)
        for i, d in enumerate(ranked[:k])
        if qrels.get(d, 0) > 0
    )
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    idcg = sum(gain(g) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def average_precision(ranked: Sequence[str], qrels: Mapping[str, int]) -> float:
    relevant = sum(1 for g in qrels.values() if g > 0)
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for rank, doc in enumerate(ranked, 1):
        if qrels.get(doc, 0) > 0:
            hits += 1
            total += hits / rank
    return total / relevant


def query_metrics(
    ranked: Sequence[str], qrels: Mapping[str, int], k_values: Sequence[int]
) -> dict[str, float]:
    """Every metric of one query, keyed ranx-style."""
    out: dict[str, float] = {}
    for k in k_values:
        out[f"recall@{k}"] = recall_at(ranked, qrels, k)
        out[f"precision@{k}"] = precision_at(ranked, qrels, k)
        out[f"mrr@{k}"] = mrr_at(ranked, qrels, k)
        out[f"ndcg@{k}"] = ndcg_at(ranked, qrels, k)
        out[f"ndcg_burges@{k}"] = ndcg_at(ranked, qrels, k, exponential=True)
    out["map"] = average_precision(ranked, qrels)
    return out


def mean_metrics(per_query: Sequence[Mapping[str, float]]) -> dict[str, float]:
    if not per_query:
        return {}
    keys = per_query[0].keys()
    return {k: sum(q[k] for q in per_query) / len(per_query) for k in keys}
