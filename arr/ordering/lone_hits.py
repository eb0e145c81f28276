"""A channel's only hit forward (``lone_hits``): :func:`arr.fusion.places.lone_hits_forward`."""

from __future__ import annotations

from arr.fusion.places import LONE_HIT_RANK, lone_hits_forward
from arr.models import EvidenceChunk
from arr.ordering.rule import PostContext, note_moved


class LoneHitsForward:
    """A channel that found exactly one item (one published memory, one line in the whole tree)
    is sure of it in a way a score cannot say: that item moves up to rank ``within``."""

    name = "lone_hits"

    def __init__(self, within: int = LONE_HIT_RANK) -> None:
        if isinstance(within, bool) or not isinstance(within, int) or within < 1:
            raise ValueError(f"within must be an integer >= 1, got {within!r}")
        self.within = within

    def apply(
        self, query: str, ranked: list[EvidenceChunk], context: PostContext
    ) -> list[EvidenceChunk]:
        if context.channels < 2:
            return ranked
        moved = lone_hits_forward(ranked, context.rankings, self.within)
        before = {c.id: i for i, c in enumerate(ranked)}
        lifted = [c for i, c in enumerate(moved) if i < before[c.id] and i < self.within]
        if lifted:
            note_moved(context.traces, lifted, f"lone_hits: a channel's only hit moved up to "
                       f"rank {self.within}")  # fmt: skip
        return moved
