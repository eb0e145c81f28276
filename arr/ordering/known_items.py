"""The known-item rules in order (``ordering=known_items``, the default): few pages per PDF,
then exact matches, then places named by path (the last rule has the last word)."""

from __future__ import annotations

from collections.abc import Sequence

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.exact_first import ExactFirst
from arr.ordering.few_pages import FewPagesPerPdf
from arr.ordering.named_first import NamedFirst
from arr.ordering.rule import OrderingRule


class KnownItemOrdering:
    """Each rule of ``rules`` in turn over the reranked list (their defaults when None)."""

    name = "known_items"

    def __init__(self, rules: Sequence[OrderingRule] | None = None) -> None:
        self.rules = (
            tuple(rules) if rules is not None else (FewPagesPerPdf(), ExactFirst(), NamedFirst())
        )
        for rule in self.rules:
            if not isinstance(rule, OrderingRule):
                raise ValueError(f"ordering rule {rule!r} has no order(query, ranked, ...)")

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        for rule in self.rules:
            ranked = rule.order(query, ranked, traces, channels)
        return ranked
