"""A bibliography's entry points at the paper it describes (``bib_points``)."""

from __future__ import annotations

from arr.models import EvidenceChunk
from arr.ordering.bib_identity import workspace_of
from arr.ordering.rule import PostContext, note_moved


class BibEntryPointsAtPaper:
    """Where an entry of the scope's ``.bib`` (or Zotero library) describes a PDF whose page is
    in the answer, the paper takes the entry's place and the entry follows it: a manuscript's
    bibliography names every paper it cites in a few compact lines (the names, the title's
    words), so for a list of surnames or a title its entries outrank the papers themselves on
    every channel. The entry is not dropped: it is where the paper is cited."""

    name = "bib_points"

    def apply(
        self, query: str, ranked: list[EvidenceChunk], context: PostContext
    ) -> list[EvidenceChunk]:
        from arr.workspace.bib_identity import described_papers

        if context.scope is None:
            return ranked
        try:
            papers = described_papers(workspace_of(context), context.scope, ranked)
        except (OSError, ValueError):  # bib_identity has said so (bibliography_unreadable)
            return ranked
        if not papers:
            return ranked
        out = list(ranked)
        moved: list[EvidenceChunk] = []
        for entry in ranked:
            ref = entry.location.ref()
            if entry.location.unit_kind != "entry" or ref not in papers:
                continue
            paper = ranked[papers[ref]]
            at, was = out.index(entry), out.index(paper)
            if was > at:  # the paper below the entry that describes it: before it now
                out.insert(at, out.pop(was))
                moved.append(paper)
        if moved:
            note_moved(context.traces, moved, f"bib_points: {len(moved)} paper(s) put before "
                       "the bibliography entry that describes them")  # fmt: skip
        return out
