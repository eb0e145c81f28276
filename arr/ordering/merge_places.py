"""One item per place (``merge_places``): items of one file whose line ranges overlap become
the best-ranked one of them (:func:`arr.fusion.places.merge_overlapping`)."""

from __future__ import annotations

from arr.fusion.places import merge_overlapping
from arr.fusion.traits import LINES, having
from arr.models import EvidenceChunk
from arr.ordering.rule import PostContext


class MergePlaces:
    """A grep line and the chunk that holds it, or two overlapping vector passages, are one
    place in the answer; only where several channels answered (one channel's list has no
    overlaps to merge)."""

    name = "merge_places"

    def apply(
        self, query: str, ranked: list[EvidenceChunk], context: PostContext
    ) -> list[EvidenceChunk]:
        if context.channels < 2:
            return ranked
        return merge_overlapping(ranked, having(context.traits, LINES))
