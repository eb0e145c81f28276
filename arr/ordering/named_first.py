"""Places the query names by path first (``named_first``: :mod:`arr.query.named_paths`)."""

from __future__ import annotations

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.rule import note_moved
from arr.query.named_paths import named_places, put_first


class NamedFirst:
    """The places the query names by path (``pkg/rules.py:120``, a traceback's ``File "...",
    line 3``) first; the trace of each channel that found one says so."""

    name = "named_first"

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        chosen = named_places(query, ranked)
        if not chosen:
            return ranked
        moved = [ranked[i] for i in chosen]
        places = (
            f"{c.location.path}:{c.location.start_line}"
            if c.location.start_line
            else str(c.location.path)
            for c in moved
        )
        note_moved(
            traces, moved, "named_first: named in the query, put first: " + ", ".join(places)
        )
        return put_first(ranked, chosen)
