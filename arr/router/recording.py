"""One search's bookkeeping (``Run``) and how each call's outcome is folded into it: evidence
checked against the scope and the one file rule, credentials redacted, and a trace, a
rejection or a degradation with its fixed code for every call."""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass, field

from arr import codes
from arr.errors import WorkspaceError
from arr.models import (
    Degradation,
    EvidenceChunk,
    Rejection,
    ScopeKey,
    ToolCall,
    ToolTrace,
    replaced,
    trusted,
)
from arr.router.dispatch import Outcome
from arr.safety.rules import redact_credentials
from arr.tools.base import ChannelAnswer
from arr.tools.contract import CountsSkips, OnWorkspace, Tool, has


@dataclass
class Run:
    """Mutable bookkeeping of one search; never shared between requests."""

    rankings: dict[str, list[EvidenceChunk]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    traces: list[ToolTrace] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    degradations: list[Degradation] = field(default_factory=list)
    calls_used: int = 0
    partial: bool = False
    scope_dropped: int = 0
    refresh_ms: dict[str, float] = field(default_factory=dict)
    admission_us: dict[str, int] = field(default_factory=dict)

    def stop(self, code: str, detail: str) -> None:
        """End the run early: what was found so far is returned, marked partial."""
        self.degradations.append(Degradation(stage="router", code=code, detail=detail))
        self.partial = True

    def reject(
        self, number: int, tool: str, code: str, detail: str, admission_us: int | None = None
    ) -> None:
        self.rejections.append(Rejection(round=number, tool=tool, code=code, detail=detail))
        counters = {"admission_us": admission_us} if admission_us is not None else {}
        self.traces.append(
            ToolTrace(round=number, tool=tool, status="rejected", code=code, counters=counters)
        )

    def fail(self, number: int, tool: str, failure: Degradation) -> None:
        """A call that could not run: its degradation and an error trace; partial."""
        self.degradations.append(failure)
        self.traces.append(ToolTrace(round=number, tool=tool, status="error", code=failure.code))
        self.partial = True


def redacted(found: list[EvidenceChunk]) -> tuple[list[EvidenceChunk], int]:
    """One credential filter for every channel: snippets lose invisible characters and every
    credential-like value before fusion, a reranker or the caller sees them."""
    total, cleaned = 0, []
    for chunk in found:
        text, count = redact_credentials(chunk.snippet)
        if count or text != chunk.snippet:
            chunk = replaced(chunk, snippet=text)
        total += count
        cleaned.append(chunk)
    return cleaned, total


def admitted_places(
    tool: Tool | None, scope: ScopeKey, found: list[EvidenceChunk]
) -> tuple[list[EvidenceChunk], Counter[str]]:
    """The one file rule at answer time (:mod:`arr.safety.file_rule`): an item whose file is now a
    link, a hard link, a special file or gone is withheld, whatever the channel's index
    remembers (an index is a copy of the tree as it was). One lstat per place."""
    withheld: Counter[str] = Counter()
    paths = {c.location.path for c in found if c.location.path is not None}
    if not paths or not has(tool, OnWorkspace):
        return found, withheld
    try:
        check = tool.workspace.place_check(scope)
    except (WorkspaceError, OSError):  # a root refused now: nothing of it is shown
        withheld["unreadable"] = len(found)
        return [c for c in found if c.location.path is None], withheld
    refused = {path: reason for path in paths if (reason := check(path)) is not None}
    if not refused:
        return found, withheld
    kept = []
    for chunk in found:
        reason = refused.get(chunk.location.path) if chunk.location.path else None
        if reason is None:
            kept.append(chunk)
        else:
            withheld[reason] += 1
    return kept, withheld


def record(
    run: Run, number: int, call: ToolCall, outcome: Outcome, tool: Tool | None, scope: ScopeKey
) -> bool:
    """Fold one call's outcome into the run; True when it added evidence not seen before."""
    if outcome.abandoned:
        detail = "still running at the request deadline; abandoned"
        run.fail(
            number, call.tool, Degradation(stage=call.tool, code=codes.CALL_DEADLINE, detail=detail)
        )
        return False
    if outcome.failure is not None:
        run.degradations.append(outcome.failure)
    answer = outcome.answer or ChannelAnswer([])
    # Out-of-scope candidates are dropped here, before fusion or an LLM reranker sees them,
    # and counted; search() checks the final list once more.
    found = [c for c in answer.evidence if c.scope is scope or c.scope == scope]
    out_of_scope = len(answer.evidence) - len(found)
    found, withheld = admitted_places(tool, scope, found)
    found, secrets = redacted(found)
    run.scope_dropped += out_of_scope
    counters = _counters(run, call, answer, tool, scope, withheld)
    if out_of_scope:
        counters["scope_dropped"] = out_of_scope
    if secrets:
        counters["redacted_secrets"] = secrets
    if outcome.failure is not None:
        status, code = "error", outcome.failure.code
    elif answer.cut:
        status, code = (
            ("ok" if found else "empty"),
            codes.CUT_DEADLINE if answer.cut == "deadline" else codes.CUT_CAP,
        )
    else:
        status, code = ("ok", codes.OK) if found else ("empty", codes.EMPTY)
    if status == "error" or answer.cut == "deadline":
        run.partial = True
    _note_late_work(run, call, counters, answer.cut)
    # Every value was produced here (admitted tool name, fixed codes, int counters).
    run.traces.append(
        trusted(
            ToolTrace,
            {
                "round": number,
                "tool": call.tool,
                "status": status,
                "code": code,
                "candidates": len(found),
                "elapsed_ms": outcome.elapsed_ms,
                "counters": counters,
                "note": "",
            },
        )
    )
    fresh = [c for c in found if c.id not in run.seen]
    run.seen.update(c.id for c in found)
    run.rankings.setdefault(call.tool, []).extend(found)
    return bool(fresh)


def _counters(
    run: Run,
    call: ToolCall,
    answer: ChannelAnswer,
    tool: Tool | None,
    scope: ScopeKey,
    withheld: Counter[str],
) -> dict[str, int]:
    """The call's counters: the channel's own, what was withheld and skipped, its refresh and
    admission times."""
    counters = dict(answer.counters)
    for reason, count in withheld.items():
        counters[f"withheld_{reason}"] = count
    if has(tool, CountsSkips):
        skip_counters = tool.skip_counters  # type: ignore[union-attr]
        # counters are informative; never fail a call over them
        with contextlib.suppress(Exception):
            for reason, count in skip_counters(scope).items():  # added: both count binary
                counters[reason] = counters.get(reason, 0) + count
    if call.tool in run.refresh_ms:
        counters["refresh_us"] = int(run.refresh_ms[call.tool] * 1000)
    if call.tool in run.admission_us:
        counters["admission_us"] = run.admission_us[call.tool]
    return counters


def _note_late_work(run: Run, call: ToolCall, counters: dict[str, int], cut: str) -> None:
    """Papers still being read, or a scan cut at its deadline: a degradation each, said."""
    not_ready = counters.get(codes.VIEWS_NOT_READY, 0)
    if not_ready:  # answered without them: said, never waited for
        run.partial = True
        run.degradations.append(
            Degradation(
                stage=call.tool,
                code=codes.VIEWS_NOT_READY,
                detail=f"{not_ready} new or changed papers/notebooks were still being read at "
                "the deadline (they are read on; the next search sees them)",
            )
        )
    if cut == "deadline":
        run.degradations.append(
            Degradation(
                stage=call.tool,
                code=codes.CHANNEL_DEADLINE,
                detail="the scan hit its deadline; results cut",
            )
        )
