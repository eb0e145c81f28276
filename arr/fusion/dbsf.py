"""Distribution-based score fusion (DBSF, as Qdrant defines it; ranx 0.3 has no such method).

Config: ``conf/fusion/dbsf.yaml``. Per query, each channel's scores are mapped onto [0, 1]
by the channel's own distribution, ``(s - (mean - 3 std)) / (6 std)`` clipped (see
:mod:`arr.fusion.norms`), and summed (weighted) over the channels that returned the evidence:
weighted CombSUM with the ``dbsf`` normalisation. Against min-max, one outlier score at either
end of a list no longer sets its scale.
"""

from __future__ import annotations

from collections.abc import Mapping

from arr.fusion.wsum import WSumFusion


class DBSFFusion(WSumFusion):
    name = "dbsf"

    def __init__(self, weights: Mapping[str, float] | None = None, top_k: int = 50) -> None:
        # plain DBSF: equal weights, no fitted lifts (the wsum defaults are the tuned default's)
        super().__init__(
            norm="dbsf",
            weights=weights,
            top_k=top_k,
            weighting="equal",
            fitted_on=None,
            code_gap_weight=None,
            file_support=0.0,
            path_weight=0.0,
        )
