"""At most a few units of one file in the head of the answer (``few_pages``): pages of a PDF,
entries of a bibliography, cells of a notebook."""

from __future__ import annotations

from collections.abc import Sequence

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.rule import note_moved

UNIT_KINDS = ("page", "entry", "cell", "lines")


class FewPagesPerPdf:
    """At most ``per_pdf`` units of one file (of the kinds in ``units``) among the first
    ``head`` items; the others follow the head in their order. A 250-page book whose every page
    mentions the query's words filled the first ten with itself (the short paper titled by the
    query fell out of them); a manuscript's ``.bib`` whose entries all hold a few names filled a
    search for a list of surnames. Code and notes are untouched (a file's chunks are places of
    one answer)."""

    name = "few_pages"

    def __init__(
        self, per_pdf: int = 3, head: int = 10, units: Sequence[str] = ("page", "entry")
    ) -> None:
        if per_pdf < 1 or head < 1:
            raise ValueError(f"per_pdf and head must be >= 1, got {per_pdf}, {head}")
        unknown = sorted(set(units) - set(UNIT_KINDS))
        if unknown:
            raise ValueError(f"units must be among {list(UNIT_KINDS)}, got {unknown}")
        self.per_pdf = per_pdf
        self.head = head
        self.units = frozenset(units)

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        head: list[EvidenceChunk] = []
        later: list[EvidenceChunk] = []
        seen: dict[str, int] = {}
        rest: list[EvidenceChunk] = []
        for position, item in enumerate(ranked):
            if len(head) == self.head:  # the head is full: the rest keeps its order
                rest = ranked[position:]
                break
            path = item.location.path
            if item.location.unit_kind in self.units and path:
                seen[path] = seen.get(path, 0) + 1
                if seen[path] > self.per_pdf:
                    later.append(item)
                    continue
            head.append(item)
        if later and traces:
            note_moved(
                traces, later, f"few_pages: {len(later)} unit(s) of a file past {self.per_pdf} "
                f"in the first {self.head} moved after them",
            )  # fmt: skip
        return head + later + rest
