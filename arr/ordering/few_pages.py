"""At most a few units of one file in the head of the answer (``few_pages``): pages of a PDF,
entries of a bibliography, cells of a notebook."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.rule import note_moved

UNIT_KINDS = ("page", "entry", "cell", "lines")


class FewPagesPerPdf:
    """At most ``per_pdf`` units of one file (of the kinds in ``units``) among the first
    ``head`` items; the others follow the head in their order. A 250-page book whose every page
    mentions the query's words filled the first ten with itself (the short paper titled by the
    query fell out of them); a manuscript's ``.bib`` whose entries all hold a few names filled a
    search for a list of surnames; a long module's chunks pushed the other files a fix touched
    out of the first ten (``per_kind``: line ranges of a text file at most 2: on the wsgold trees
    the files in the first ten rose from .80 to .88 of Werkzeug's fixes, .56 to .63 of Sphinx's,
    the first file unchanged). The file the answer leads with may keep more (``lead``, per
    kind): a question about a part of a paper or a notebook wants that file's candidates."""

    name = "few_pages"

    def __init__(
        self,
        per_pdf: int = 3,
        head: int = 10,
        units: Sequence[str] = ("page", "entry", "lines", "cell"),
        per_kind: Mapping[str, int] | None = None,
        lead: Mapping[str, int] | None = None,
    ) -> None:
        caps = dict({"lines": 2} if per_kind is None else per_kind)
        if per_pdf < 1 or head < 1 or any(c < 1 for c in caps.values()):
            raise ValueError(f"per_pdf, per_kind and head must be >= 1, got {per_pdf}, "
                             f"{caps}, {head}")  # fmt: skip
        unknown = sorted((set(units) | set(caps)) - set(UNIT_KINDS))
        if unknown:
            raise ValueError(f"units must be among {list(UNIT_KINDS)}, got {unknown}")
        self.per_pdf = per_pdf
        self.head = head
        self.units = frozenset(units)
        self.caps = {kind: caps.get(kind, per_pdf) for kind in self.units}
        leads = dict(lead or {})
        if any(c < 1 for c in leads.values()) or set(leads) - self.units:
            raise ValueError(f"lead: caps >= 1 of kinds among units {sorted(self.units)}, "
                             f"got {leads}")  # fmt: skip
        # the file the answer leads with may keep up to lead[kind] units of that kind
        self.leads = {kind: max(self.caps[kind], cap) for kind, cap in leads.items()}

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
            path, kind = item.location.path, item.location.unit_kind
            if kind in self.caps and path:
                seen[path] = seen.get(path, 0) + 1
                cap = self.caps[kind]
                if kind in self.leads and path == ranked[0].location.path:
                    cap = self.leads[kind]
                if seen[path] > cap:
                    later.append(item)
                    continue
            head.append(item)
        if later and traces:
            note_moved(
                traces, later, f"few_pages: {len(later)} unit(s) of a file past its cap "
                f"({self.caps}) in the first {self.head} moved after them",
            )  # fmt: skip
        return head + later + rest
