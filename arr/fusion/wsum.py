"""Weighted CombSUM of normalised scores (Fox & Shaw, TREC-2 1994), named as in ranx
(``ranx.fuse(method="wsum", norm=...)``; with equal weights it is ranx's ``sum``, CombSUM).

Config: ``conf/fusion/wsum.yaml``. Per query, each channel's scores are normalised
(``norm``: ``min-max`` or ``zmuv``, see :mod:`arr.fusion.norms`) and the fused score of an
evidence is ``sum_c w_c * norm_c(s)`` over the channels that returned it; a channel that did not
return it adds nothing (as in ranx). Unlike rank fusion, a channel whose head is far ahead of
its tail counts for more than one whose scores are flat.

``weighting: standout`` adapts the weights per query from a label-free signal, a query
performance predictor in the spirit of score-gap predictors: a channel's weight is how far its
head stands out of its own list (mean z-score of its top 3, floored at 0), rescaled to mean 1
over the channels. A channel whose best answers are barely better than its hundredth answer is
probably guessing. Measured in ``arr.bench.fusion`` (README): it helps where both channels are
good and does not rescue a collection where one channel is weak throughout.
"""

from __future__ import annotations

from collections.abc import Mapping

from arr.fusion.common import (
    Ranking,
    assemble,
    check_top_k,
    check_weights,
    non_empty_channels,
    unfused,
)
from arr.fusion.norms import norm_named, zmuv
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


STANDOUT_DEPTH = 3


def standout_weights(channels: Mapping[str, Ranking]) -> dict[str, float]:
    """Per-query channel weights from how far each channel's head stands out of its list."""
    raw = {}
    for channel, ranking in channels.items():
        z = zmuv([float(e.score) for e in ranking])
        raw[channel] = max(0.0, sum(z[:STANDOUT_DEPTH]) / min(len(z), STANDOUT_DEPTH))
    mean = sum(raw.values()) / len(raw)
    if mean <= 0:  # no channel stands out: nothing to prefer
        return {c: 1.0 for c in raw}
    return {c: v / mean for c, v in raw.items()}


class WSumFusion:
    name = "wsum"

    def __init__(
        self,
        norm: str = "min-max",
        weights: Mapping[str, float] | None = None,
        top_k: int = 50,
        weighting: str = "equal",
        fitted_on: str | None = None,
    ) -> None:
        if weighting not in ("equal", "standout"):
            raise ValueError(f"weighting must be 'equal' or 'standout', got {weighting!r}")
        self.weighting = weighting
        # Where fitted weights came from (a training split), so reports can say so.
        self.fitted_on = fitted_on
        norm_named(norm)  # refuses an unknown name now, not at the first search
        self.norm = norm
        self.weights = check_weights(weights)
        self.top_k = check_top_k(top_k)

    def fuse(self, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]:
        channels = non_empty_channels(rankings)
        alone = unfused(channels, self.top_k)
        if alone is not None:
            return alone
        weights = self.weights
        if self.weighting == "standout":
            per_query = standout_weights(channels)
            weights = {c: (weights or {}).get(c, 1.0) * per_query[c] for c in channels}
        return assemble(channels, weighted_sum(channels, self.norm, weights), self.top_k)
