"""No known-item rule (``ordering=none``): the reranked order is the answer's."""

from __future__ import annotations

from arr.models import EvidenceChunk, ToolTrace


class NoOrdering:
    name = "none"
    rules = ()

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        return ranked
