"""Human-readable rendering of a RouterResult: ranked evidence and a compact trace."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from arr.models import EvidenceChunk, RouterResult

MAX_QUERY_SHOWN = 200
# Trace counters that say something was withheld or cut: shown when non-zero, so a withheld
# match never looks like "nothing there".
_WITHHELD_PREFIXES = ("skipped_", "redacted_", "lines_over_", "files_at_", "long_lines_", "scope_")


# Characters a terminal acts on instead of showing: C0 controls but newline and tab (ESC starts
# title changes and screen clears, BEL, CR overwrites a line), DEL, C1 controls (0x9b is a
# one-byte CSI) and the bidirectional overrides and isolates that reorder what is shown. Text
# output shows them escaped, as ripgrep and git do; JSON output keeps them exact.
_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
_ESCAPES = {c: f"\\x{c:02x}" for c in _CONTROLS} | {c: f"\\u{c:04x}" for c in _BIDI}


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on shown as an escape (``\\x1b``)."""
    return text.translate(_ESCAPES)


class TerminalSafeStream:
    """A text stream that escapes terminal controls in everything written through it (the
    CLI's stdout for text output; never for JSON or the MCP protocol)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def file_locator(roots: Sequence[Path], cwd: Path | None = None) -> Callable[[EvidenceChunk], str]:
    """Render file evidence as a path a terminal or editor opens: relative to the current
    folder when inside it, else absolute, then ``:line``. ``roots`` are the scope's roots (a
    path of a scope with several roots starts with its root's folder name)."""
    here = (cwd or Path.cwd()).resolve()

    def locate(chunk: EvidenceChunk) -> str:
        where = chunk.location
        if not where.path or not roots or where.memory_id:
            return where.render()
        root, relative = roots[0], where.path
        if len(roots) > 1:
            head, _, rest = where.path.partition("/")
            root = next((r for r in roots if r.name == head), None)
            if root is None:
                return where.render()
            relative = rest
        full = root / relative
        shown = os.path.relpath(full, here) if full.is_relative_to(here) else str(full)
        if not where.start_line:
            return shown
        end = where.end_line or where.start_line
        span = f" (lines {where.start_line}-{end})" if end != where.start_line else ""
        return f"{shown}:{where.start_line}{span}"

    return locate


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render_result(
    result: RouterResult,
    scope_name: str | None = None,
    max_evidence: int = 10,
    width: int = 96,
    locate: Callable[[EvidenceChunk], str] | None = None,
) -> str:
    scope = f"{scope_name} ({result.scope.label()})" if scope_name else result.scope.label()
    query = result.query
    if len(query) > MAX_QUERY_SHOWN:
        query = f"{_one_line(query, MAX_QUERY_SHOWN)} ({len(result.query)} characters)"
    lines = [
        f"query: {query}",
        f"scope: {scope}",
        f"planner: {result.planner}   reranker: {result.reranker}   partial: "
        f"{str(result.partial).lower()}   scope_dropped: {result.scope_dropped}   "
        f"elapsed: {result.elapsed_ms:.1f} ms",
        f"evidence ({len(result.evidence)}):",
    ]
    for rank, chunk in enumerate(result.evidence[:max_evidence], 1):
        ranks = ", ".join(f"{c}#{r}" for c, r in sorted(chunk.ranks.items()))
        where = locate(chunk) if locate is not None else chunk.location.render()
        lines.append(f"  {rank:>2}. [{chunk.channel}] {where}  score {chunk.score:.4f}  ({ranks})")
        lines.append(f"      {_one_line(chunk.snippet, width)}")
    if len(result.evidence) > max_evidence:
        lines.append(f"  +{len(result.evidence) - max_evidence} more (--json shows all)")
    if not result.evidence:
        lines.append("  (none)")
    lines.append("trace:")
    for trace in result.traces:
        withheld = ", ".join(
            f"{k} {v}"
            for k, v in sorted(trace.counters.items())
            if v and k.startswith(_WITHHELD_PREFIXES)
        )
        lines.append(
            f"  round {trace.round}  {trace.tool:<10} {trace.status:<8} {trace.code:<24}"
            f" {trace.candidates:>3} candidates  {trace.elapsed_ms:8.2f} ms"
            + (f"  withheld: {withheld}" if withheld else "")
        )
    lines.append(
        "rejections: " + (", ".join(f"{r.tool}({r.code})" for r in result.rejections) or "none")
    )
    lines.append(
        "degradations: " + (", ".join(f"{d.stage}:{d.code}" for d in result.degradations) or "none")
    )
    return "\n".join(lines)
