"""What the Router asks of a reranker: a ``name`` and ``rerank``; one that can fall back (the
LLM reranker to the rules) offers ``rerank_with_report``, saying what went wrong."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from arr.models import Degradation, EvidenceChunk


@runtime_checkable
class Reranker(Protocol):
    name: str

    def rerank(self, query: str, evidence: Sequence[EvidenceChunk]) -> list[EvidenceChunk]: ...


@runtime_checkable
class ReportsFallbacks(Protocol):
    def rerank_with_report(
        self, query: str, evidence: Sequence[EvidenceChunk]
    ) -> tuple[list[EvidenceChunk], list[Degradation]]: ...
