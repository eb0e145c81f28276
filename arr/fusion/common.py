"""Parts every fusion method shares: one ranking per channel in, one fused list out.

A fusion method sees each channel's ranking (best first, each evidence with the channel's own
``score``) and returns the fused list. The conventions below hold for every method, so switching
methods changes only the order of what is returned:

- rankings are deduplicated per channel (first occurrence wins) and channels are visited in
  name order, so the result never depends on the order a plan listed its calls;
- a single non-empty channel keeps its own order and scores (nothing to fuse, nothing invented);
- fused evidence carries the fused score and ``ranks`` (its rank in every channel that found it);
- ties break by evidence id, so the same input always gives the same output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arr.models import EvidenceChunk, replaced

Ranking = Sequence[EvidenceChunk]


def dedupe(ranking: Ranking) -> list[EvidenceChunk]:
    """First occurrence of each evidence id, order kept."""
    seen: set[str] = set()
    unique = []
    for chunk in ranking:
        if chunk.id not in seen:
            seen.add(chunk.id)
            unique.append(chunk)
    return unique


def non_empty_channels(rankings: Mapping[str, Ranking]) -> dict[str, list[EvidenceChunk]]:
    """Deduplicated rankings of the channels that returned something, in name order."""
    return {c: dedupe(r) for c, r in sorted(rankings.items()) if r}


def unfused(channels: Mapping[str, list[EvidenceChunk]], top_k: int) -> list[EvidenceChunk] | None:
    """The answer when there is nothing to fuse (no channel, or one: its own order and
    scores), else None."""
    if len(channels) > 1:
        return None
    return next(iter(channels.values()))[:top_k] if channels else []


def check_top_k(top_k: int) -> int:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError(f"top_k must be an integer >= 1, got {top_k!r}")
    return top_k


def check_number_in(name: str, value: object, high: float, nullable: bool = False) -> float:
    """``value`` as a float in [0, ``high``] (NaN, booleans and text refused), or a ValueError
    naming the option."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= high:
        allowed = f"{'null or ' if nullable else ''}a number in [0, {high:g}]"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return float(value)


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float] | None:
    """Optional per-channel weights (missing channels weigh 1.0); all must be >= 0."""
    if not weights:
        return None
    checked = {}
    for channel, weight in weights.items():
        try:
            value = float(weight)
        except (TypeError, ValueError):
            raise ValueError(
                f"channel weight of {channel!r} must be a number, got {weight!r}"
            ) from None
        if not value >= 0:  # also refuses NaN
            raise ValueError(f"channel weights must be >= 0, got {dict(weights)}")
        checked[str(channel)] = value
    return checked


def assemble(
    channels: Mapping[str, Sequence[EvidenceChunk]], scores: Mapping[str, float], top_k: int
) -> list[EvidenceChunk]:
    """The fused list: best fused score first (ties by id), each with its ranks per channel."""
    first: dict[str, EvidenceChunk] = {}
    ranks: dict[str, dict[str, int]] = {}
    for channel, ranking in channels.items():
        for rank, chunk in enumerate(ranking, 1):
            first.setdefault(chunk.id, chunk)
            ranks.setdefault(chunk.id, {})[channel] = rank
    order = sorted(scores, key=lambda i: (-scores[i], i))[:top_k]
    return [replaced(first[i], score=scores[i], ranks=ranks[i]) for i in order]


def fuse(fusion: object, query: str, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]:
    """``fusion``'s fused list: methods that read the query (wsum's code gap) offer
    ``fuse_for_query``, the others ``fuse`` (arr.fusion.contract). The Router and the fusion
    bench both call this."""
    from arr.fusion.contract import Fusion, QueryFusion

    if isinstance(fusion, QueryFusion):
        return fusion.fuse_for_query(query, rankings)
    if not isinstance(fusion, Fusion):
        raise TypeError(f"{type(fusion).__name__} has no fuse(rankings)")
    return fusion.fuse(rankings)
