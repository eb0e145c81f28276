"""Reciprocal Rank Fusion (Cormack, Clarke & Buettcher, SIGIR 2009), named as in ranx.

Config: ``conf/fusion/rrf.yaml``. Several non-empty channels are fused with
``score = sum_c w_c / (rank_constant + rank_c)``; ties break by evidence id so the order is
deterministic. A single non-empty channel keeps its own order and its own scores: no fusion
score is invented for it. Duplicates inside one channel keep their best (first) rank.
"""

from __future__ import annotations

from collections.abc import Mapping

from arr.fusion.common import (
    Ranking,
    assemble,
    check_top_k,
    check_weights,
    dedupe,
    non_empty_channels,
    unfused,
)
from arr.models import EvidenceChunk


def rrf_scores(
    rankings: Mapping[str, Ranking],
    rank_constant: int = 60,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Fused score per evidence id: sum over channels of w / (rank_constant + rank), rank from 1."""
    scores: dict[str, float] = {}
    for channel, ranking in rankings.items():
        weight = 1.0 if weights is None else float(weights.get(channel, 1.0))
        for rank, chunk in enumerate(dedupe(ranking), 1):
            scores[chunk.id] = scores.get(chunk.id, 0.0) + weight / (rank_constant + rank)
    return scores


def id_space(evidence_id: str) -> str:
    """Channels can only corroborate each other within one id space: memories and grep lines
    have ids of their own, chunk and document ids are shared by bm25 and vector."""
    prefix = evidence_id.split(":", 1)[0]
    return prefix if prefix in ("mem", "grep") else "doc"


def agreement_weights(
    rankings: Mapping[str, Ranking], depth: int = 10, pool_depth: int = 100, smoothing: float = 0.1
) -> dict[str, float]:
    """Per-query channel confidence: the share of a channel's top ``depth`` that some other
    channel of the same id space also retrieved within its top ``pool_depth``.

    Relevant documents tend to be found by several channels, at some depth; a channel whose
    head is not corroborated anywhere in the others' deeper pools is probably off on this
    query. The measure is asymmetric (a strong channel's head sits inside a weak channel's
    deep pool, not the reverse), needs no labels, and is neutral (1.0) for a channel with no
    comparable partner. Weights are ``(confidence + smoothing)`` rescaled to mean 1 within an id
    space, so they only redistribute trust among channels that can be compared.
    """
    spaces: dict[str, list[str]] = {}
    for channel, ranking in rankings.items():
        if ranking:
            spaces.setdefault(id_space(ranking[0].id), []).append(channel)
    weights = {channel: 1.0 for channel in rankings}
    for members in spaces.values():
        if len(members) < 2:
            continue
        pools = {c: {e.id for e in rankings[c][:pool_depth]} for c in members}
        raw = {}
        for channel in members:
            others = set().union(*(pools[o] for o in members if o != channel))
            head = rankings[channel][:depth]
            raw[channel] = sum(e.id in others for e in head) / len(head) + smoothing
        mean = sum(raw.values()) / len(raw)
        weights.update({c: v / mean for c, v in raw.items()})
    return weights


class RRFFusion:
    name = "rrf"

    def __init__(
        self,
        rank_constant: int = 60,
        weights: Mapping[str, float] | None = None,
        top_k: int = 50,
        weighting: str = "equal",
    ) -> None:
        if weighting not in ("equal", "agreement"):
            raise ValueError(f"weighting must be 'equal' or 'agreement', got {weighting!r}")
        if (
            isinstance(rank_constant, bool)
            or not isinstance(rank_constant, int)
            or (rank_constant < 0)
        ):
            raise ValueError(f"rank_constant must be an integer >= 0, got {rank_constant!r}")
        self.weighting = weighting
        self.rank_constant = rank_constant
        self.weights = check_weights(weights)
        self.top_k = check_top_k(top_k)

    def fuse(self, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]:
        non_empty = non_empty_channels(rankings)
        alone = unfused(non_empty, self.top_k)
        if alone is not None:
            return alone
        weights = dict(self.weights or {})
        if self.weighting == "agreement":
            confidence = agreement_weights(non_empty)
            weights = {c: weights.get(c, 1.0) * confidence[c] for c in non_empty}
        scores = rrf_scores(non_empty, self.rank_constant, weights or None)
        return assemble(non_empty, scores, self.top_k)
