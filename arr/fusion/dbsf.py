"""Distribution-based score fusion (DBSF, as Qdrant defines it; ranx 0.3 has no such method).

Config: ``conf/fusion/dbsf.yaml``. Per query, each channel's scores are mapped onto [0, 1]
by the channel's own distribution, ``(s - (mean - 3 std)) / (6 std)`` clipped (see
:mod:`arr.fusion.norms`), and summed (weighted) over the channels that returned the evidence.
Against min-max, one outlier score at either end of a list no longer sets its scale.
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
from arr.fusion.wsum import weighted_sum
from arr.models import EvidenceChunk


class DBSFFusion:
    name = "dbsf"

    def __init__(self, weights: Mapping[str, float] | None = None, top_k: int = 50) -> None:
        self.weights = check_weights(weights)
        self.top_k = check_top_k(top_k)

    def fuse(self, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]:
        channels = non_empty_channels(rankings)
        if not channels:
            return []
        if len(channels) == 1:
            return next(iter(channels.values()))[: self.top_k]
        return assemble(channels, weighted_sum(channels, "dbsf", self.weights), self.top_k)
