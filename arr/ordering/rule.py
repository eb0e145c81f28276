"""The contract of a step after fusion, the context it may read, and the trace note it leaves.

Every step after fusion and reranking is one entry of a configured list (``conf/ordering/``):
merging overlapping places, a channel's lone hit forward, a bibliography's names on PDF pages,
bibliography entries pointing at the papers they describe, and the known-item rules. A step
reorders or renames; it never adds or drops an item. Most read only the query and the list
(``OrderingRule``); those that need what the channels returned or the workspace's files read a
``PostContext`` (``ContextStep``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from arr.models import Degradation, EvidenceChunk, ScopeKey, ToolTrace, replaced


@dataclass
class PostContext:
    """What the Router knows when the steps run: each channel's ranking (after places were
    named), the traces (a step notes what it moved), how many channels answered, the registered
    tools (a step reading the workspace finds it there), the request's scope and the run's
    degradations (a step that cannot read what it needs says so there)."""

    traces: list[ToolTrace]
    channels: int
    rankings: Mapping[str, Sequence[EvidenceChunk]] = field(default_factory=dict)
    tools: Mapping[str, object] = field(default_factory=dict)
    scope: ScopeKey | None = None
    degradations: list[Degradation] = field(default_factory=list)


@runtime_checkable
class OrderingRule(Protocol):
    name: str

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        """``ranked`` reordered (never an item added or dropped); ``channels``: how many
        channels answered (some rules act only where fusion could have buried a place)."""
        ...


@runtime_checkable
class ContextStep(Protocol):
    name: str

    def apply(
        self, query: str, ranked: list[EvidenceChunk], context: PostContext
    ) -> list[EvidenceChunk]:
        """``ranked`` reordered or renamed, never an item added or dropped."""
        ...


def note_moved(traces: list[ToolTrace], moved: Sequence[EvidenceChunk], note: str) -> None:
    """The note on the trace of every channel that found a moved item (in place)."""
    found_by = {channel for item in moved for channel in item.ranks}
    for number, trace in enumerate(traces):
        if trace.tool in found_by and trace.status != "rejected":
            joined = f"{trace.note}; {note}" if trace.note else note
            traces[number] = replaced(trace, note=joined)
