"""Weighted CombSUM of normalised scores (Fox & Shaw, TREC-2 1994), named as in ranx
(``ranx.fuse(method="wsum", norm=...)``; with equal weights it is ranx's ``sum``, CombSUM).

Config: ``conf/fusion/wsum.yaml``. Per query, each channel's scores are normalised
(``norm``: ``min-max`` or ``zmuv``, see :mod:`arr.fusion.norms`) and the fused score of an
evidence is ``sum_c w_c * norm_c(s)`` over the channels that returned it; a channel that did not
return it adds nothing (as in ranx). Unlike rank fusion, a channel whose head is far ahead of
its tail counts for more than one whose scores are flat.
"""

from __future__ import annotations

from collections.abc import Mapping

from arr.fusion.common import (
    Ranking,
    assemble,
    check_top_k,
    check_weights,
    non_empty_channels,
)
from arr.fusion.norms import norm_named
from arr.models import EvidenceChunk


def weighted_sum(
    channels: Mapping[str, Ranking],
    norm: str,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Fused score per evidence id: sum over channels of weight * normalised channel score."""
    normalise = norm_named(norm)
    scores: dict[str, float] = {}
    for channel, ranking in channels.items():
        weight = 1.0 if weights is None else float(weights.get(channel, 1.0))
        normalised = normalise([float(e.score) for e in ranking])
        for chunk, value in zip(ranking, normalised, strict=True):
            scores[chunk.id] = scores.get(chunk.id, 0.0) + weight * value
    return scores


class WSumFusion:
    name = "wsum"

    def __init__(
        self,
        norm: str = "min-max",
        weights: Mapping[str, float] | None = None,
        top_k: int = 50,
    ) -> None:
        norm_named(norm)  # refuses an unknown name now, not at the first search
        self.norm = norm
        self.weights = check_weights(weights)
        self.top_k = check_top_k(top_k)

    def fuse(self, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]:
        channels = non_empty_channels(rankings)
        if not channels:
            return []
        if len(channels) == 1:
            return next(iter(channels.values()))[: self.top_k]
        return assemble(channels, weighted_sum(channels, self.norm, self.weights), self.top_k)
