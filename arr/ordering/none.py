"""No step after fusion and reranking (``ordering=none``): the reranked order is the answer's,
places unmerged, PDF pages named as their reader named them."""

from __future__ import annotations

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.rule import PostContext


class NoOrdering:
    name = "none"
    rules = ()

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        return ranked

    def apply(
        self, query: str, ranked: list[EvidenceChunk], context: PostContext
    ) -> list[EvidenceChunk]:
        return ranked
