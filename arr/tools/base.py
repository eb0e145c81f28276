"""What channels share: their answer with counters, their error, the freshness of a source.

The contract itself (``Tool`` and its capabilities) is written in :mod:`arr.tools.contract`.

A tool is cheap to build (``__init__`` stores plain values), explicit to warm (``warm_up``
loads indexes lazily and idempotently), reports index freshness per scope, and returns evidence
already filtered to the request scope. The Router is the only caller of ``retrieve``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arr import codes
from arr.codes import INDEX_STALE
from arr.deadline import REQUEST_DEADLINE, seconds_left, within  # noqa: F401 (re-exported)
from arr.errors import ArrError
from arr.models import FRESH, EvidenceChunk, Freshness


# The request deadline (time.perf_counter() seconds) of the call running in this thread, or
# None. Channels that can stop early (grep, the memory store) honour it, so an abandoned call
# does not keep working long after the Router has returned.
@dataclass(frozen=True)
class ChannelAnswer:
    """What a channel may return instead of a bare list: evidence plus counters for the trace.

    ``cut`` names why the scan stopped early ("deadline", "cap") or is empty when it did not.
    A deadline cut makes the result partial; a cap cut is only noted in the trace.
    """

    evidence: list[EvidenceChunk]
    counters: dict[str, int] = field(default_factory=dict)
    cut: str = ""


class ChannelError(ArrError):
    """A channel could not answer; the Router records it as a degradation with ``code``."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def source_freshness(
    manifest: dict[str, object], fingerprint: str, newest_ns: int, tolerance_s: float, channel: str
) -> Freshness:
    """Fresh when the index was built from these sources, or changes are within tolerance."""
    if manifest.get("source_fingerprint") == fingerprint:
        return FRESH
    lag_s = newest_ns / 1e9 - float(manifest.get("built_at", 0))  # type: ignore[arg-type]
    if tolerance_s and lag_s <= tolerance_s:
        return Freshness(fresh=True, code=codes.FRESH_WITHIN_TOLERANCE, detail=f"lag {lag_s:.1f}s")
    return Freshness(
        fresh=False, code=INDEX_STALE, detail=f"sources changed after the {channel} index was built"
    )
