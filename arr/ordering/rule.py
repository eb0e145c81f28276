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

from arr import codes
from arr.fusion.traits import SHIPPED, ChannelTraits
from arr.models import Degradation, EvidenceChunk, ScopeKey, ToolTrace, replaced


@dataclass
class PostContext:
    """What the Router knows when the steps run: each channel's ranking (after places were
    named), the traces (a step notes what it moved), how many channels answered, the registered
    tools (a step reading the workspace finds it there), the request's scope, the run's
    degradations (a step that cannot read what it needs says so there) and what each channel
    declares it is (read once by the Router; the shipped channels' for lists fused without
    tools)."""

    traces: list[ToolTrace]
    channels: int
    rankings: Mapping[str, Sequence[EvidenceChunk]] = field(default_factory=dict)
    tools: Mapping[str, object] = field(default_factory=dict)
    scope: ScopeKey | None = None
    degradations: list[Degradation] = field(default_factory=list)
    traits: ChannelTraits = field(default_factory=lambda: SHIPPED)


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


def run_step(
    step: OrderingRule | ContextStep, query: str, ranked: list[EvidenceChunk], context: PostContext
) -> list[EvidenceChunk]:
    """One step's list, or ``ranked`` as it was when the step failed (a broken step must never
    break a search) or added or dropped an item; either way an ``ordering_failed`` degradation
    names the step."""
    name = getattr(step, "name", type(step).__name__)
    try:
        if isinstance(step, ContextStep):
            found = step.apply(query, list(ranked), context)
        else:
            found = step.order(query, list(ranked), context.traces, context.channels)
    except Exception as exc:
        detail = f"{name}: {type(exc).__name__}: {exc}"[:300]
        context.degradations.append(
            Degradation(stage="ordering", code=codes.ORDERING_FAILED, detail=detail)
        )
        return ranked
    if len(found) != len(ranked) or {c.id for c in found} != {c.id for c in ranked}:
        detail = f"{name} added or dropped items; the order before it stands"
        context.degradations.append(
            Degradation(stage="ordering", code=codes.ORDERING_FAILED, detail=detail)
        )
        return ranked
    return found
