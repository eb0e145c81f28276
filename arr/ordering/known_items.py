"""The steps after fusion and reranking, in order (``ordering=known_items``, the default): one
place per item, a channel's lone hit forward, a bibliography's names on PDF pages, few units
per file, exact matches, entries pointing at their papers, where a name is defined, places
named by path (the last step has the last word). Each is one entry of
``conf/ordering/known_items.yaml``'s ``rules``: dropped from the list, it does not run;
``ordering=none`` runs none (fusion and reranking alone). A step that fails or adds or drops an
item leaves the list as it was before it, with an ``ordering_failed`` degradation naming it."""

from __future__ import annotations

from collections.abc import Sequence

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.bib_identity import BibIdentity
from arr.ordering.bib_points import BibEntryPointsAtPaper
from arr.ordering.definition_first import DefinitionFirst
from arr.ordering.exact_first import ExactFirst
from arr.ordering.few_pages import FewPagesPerPdf
from arr.ordering.lone_hits import LoneHitsForward
from arr.ordering.merge_places import MergePlaces
from arr.ordering.named_first import NamedFirst
from arr.ordering.part_first import PartFirst
from arr.ordering.rule import ContextStep, OrderingRule, PostContext, run_step

Step = OrderingRule | ContextStep


def default_steps() -> tuple[Step, ...]:
    return (
        MergePlaces(),
        LoneHitsForward(),
        BibIdentity(),
        PartFirst(),
        FewPagesPerPdf(units=("page", "entry", "lines", "cell"), lead={"page": 5, "cell": 5}),
        ExactFirst(),
        BibEntryPointsAtPaper(),
        DefinitionFirst(),
        NamedFirst(),
    )


class KnownItemOrdering:
    """Each step of ``rules`` in turn over the reranked list (every step when None)."""

    name = "known_items"

    def __init__(self, rules: Sequence[Step] | None = None) -> None:
        self.rules = tuple(rules) if rules is not None else default_steps()
        for rule in self.rules:
            if not isinstance(rule, OrderingRule | ContextStep):
                raise ValueError(f"ordering rule {rule!r} has no order(...) or apply(...)")

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        return self.apply(query, ranked, PostContext(traces=traces, channels=channels))

    def apply(
        self, query: str, ranked: list[EvidenceChunk], context: PostContext
    ) -> list[EvidenceChunk]:
        for rule in self.rules:
            ranked = run_step(rule, query, ranked, context)
        return ranked
