"""The contract of a known-item rule, and the trace note it leaves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from arr.models import EvidenceChunk, ToolTrace, replaced


@runtime_checkable
class OrderingRule(Protocol):
    name: str

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        """``ranked`` reordered (never an item added or dropped); ``channels``: how many
        channels answered (some rules act only where fusion could have buried a place)."""
        ...


def note_moved(traces: list[ToolTrace], moved: Sequence[EvidenceChunk], note: str) -> None:
    """The note on the trace of every channel that found a moved item (in place)."""
    found_by = {channel for item in moved for channel in item.ranks}
    for number, trace in enumerate(traces):
        if trace.tool in found_by and trace.status != "rejected":
            joined = f"{trace.note}; {note}" if trace.note else note
            traces[number] = replaced(trace, note=joined)
