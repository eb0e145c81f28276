"""What the Router asks of a fusion stage: ``fuse`` always; a fusion that reads the query
(weights per query, file names matching it) offers ``fuse_for_query`` and says why it weighed
each channel as it did (``explain``, ``path_matches``). Checked with ``isinstance``, never by
probing an attribute's name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from arr.models import EvidenceChunk

Ranking = Sequence[EvidenceChunk]


@runtime_checkable
class Fusion(Protocol):
    def fuse(self, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]: ...


@runtime_checkable
class QueryFusion(Protocol):
    def fuse_for_query(
        self, query: str, rankings: Mapping[str, Ranking]
    ) -> list[EvidenceChunk]: ...


@runtime_checkable
class ExplainsWeights(Protocol):
    def explain(
        self, query: str, rankings: Mapping[str, Ranking]
    ) -> dict[str, dict[str, float]]: ...

    def path_matches(self, query: str, rankings: Mapping[str, Ranking]) -> dict[str, float]: ...
