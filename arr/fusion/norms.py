"""Per-query score normalisations of one channel's list, named as in ranx (``ranx.fuse(norm=)``).

Channels score on different scales (BM25 is unbounded, cosine similarity lies in [-1, 1]), so a
score-based fusion first maps each channel's list onto a common scale. Each function takes the
scores of one channel's returned list for one query and returns them normalised, in order:

- ``min-max``: ``(s - min) / (max - min)``, into [0, 1] (ranx's);
- ``min-max-floor`` (the default): min-max mapped onto [``MIN_MAX_FLOOR``, 1]: an item a
  channel returned never weighs 0 (with min-max the bottom of its only channel fused to 0, and
  a reranker could lift it to rank 1 showing score 0). The floor is small (1% of the head): it
  separates what min-max tied at 0 and changes little else (measured: README, "Fusion");
- ``zmuv`` (zero mean, unit variance; the z-score): ``(s - mean) / std``, population std;
- ``dbsf`` (distribution-based score fusion, as Qdrant defines it): ``(s - (mean - 3 std)) /
  (6 std)`` clipped to [0, 1], so the list's own spread, not its two extremes, sets the scale.

A list without spread (one item, or equal scores) carries no score information: min-max then
maps it by rank, 1.0 for the first down to 1/n (ranx floors the denominator and maps it to 0,
which made a lone memory or tied grep lines weigh nothing); zmuv floors the denominator (0 for
all); dbsf maps it to 0.5, the middle of its range.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

FLOOR = 1e-9
MIN_MAX_FLOOR = 0.01


def _mean_std(scores: Sequence[float]) -> tuple[float, float]:
    mean = math.fsum(scores) / len(scores)
    return mean, math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / len(scores))


def min_max(scores: Sequence[float]) -> list[float]:
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high - low < FLOOR:
        # No spread: the scores say nothing, the channel's order still does. A lone item (one
        # published memory that answers) is that channel's best: 1.0, not 0 (ranx's floor
        # made it weigh nothing); tied items (grep lines with the same term count) step down
        # from 1.0 by rank.
        return [1.0 - i / len(scores) for i in range(len(scores))]
    return [(s - low) / (high - low) for s in scores]


def min_max_floor(scores: Sequence[float]) -> list[float]:
    if not scores:
        return []
    return [MIN_MAX_FLOOR + (1.0 - MIN_MAX_FLOOR) * v for v in min_max(scores)]


def zmuv(scores: Sequence[float]) -> list[float]:
    if not scores:
        return []
    mean, std = _mean_std(scores)
    std = max(std, FLOOR)
    return [(s - mean) / std for s in scores]


def dbsf(scores: Sequence[float]) -> list[float]:
    if not scores:
        return []
    mean, std = _mean_std(scores)
    if std < FLOOR:  # no spread, no information: the middle of the range
        return [0.5] * len(scores)
    low, span = mean - 3 * std, 6 * std
    return [min(1.0, max(0.0, (s - low) / span)) for s in scores]


NORMS: dict[str, Callable[[Sequence[float]], list[float]]] = {
    "min-max": min_max,
    "min-max-floor": min_max_floor,
    "zmuv": zmuv,
    "dbsf": dbsf,
}


def norm_named(name: str) -> Callable[[Sequence[float]], list[float]]:
    try:
        return NORMS[name]
    except KeyError:
        raise ValueError(f"norm must be one of {sorted(NORMS)}, got {name!r}") from None
