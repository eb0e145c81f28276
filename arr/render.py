"""Human-readable rendering of a RouterResult: ranked evidence and a compact trace."""

from __future__ import annotations

import os
import re
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


# Where a snippet's match begins and ends in rendered text: private-use characters that the
# terminal stream turns into bold on a TTY and drops elsewhere (a pipe, a file, a test). The
# same characters inside evidence are escaped first, so text can never turn emphasis on.
EMPHASIS_ON, EMPHASIS_OFF = "\ue000", "\ue001"
_ESCAPES[ord(EMPHASIS_ON)] = "\\ue000"
_ESCAPES[ord(EMPHASIS_OFF)] = "\\ue001"
_PLAIN: dict[int, str] = {}
_MARK_CHARS = (EMPHASIS_ON, EMPHASIS_OFF)
_MARK_SPLIT = re.compile(f"([{EMPHASIS_ON}{EMPHASIS_OFF}])")
_BOLD = {ord(EMPHASIS_ON): "\x1b[1m", ord(EMPHASIS_OFF): "\x1b[0m"}


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on shown as an escape (``\\x1b``)."""
    return text.translate(_ESCAPES)


def emphasised(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` made terminal-safe, with the spans marked for emphasis."""
    out, cursor = [], 0
    for start, end in sorted(spans):
        if start < cursor or end > len(text):
            continue
        out += [terminal_safe(text[cursor:start]), EMPHASIS_ON]
        out += [terminal_safe(text[start:end]), EMPHASIS_OFF]
        cursor = end
    out.append(terminal_safe(text[cursor:]))
    return "".join(out)


class TerminalSafeStream:
    """A text stream that escapes terminal controls in everything written through it (the
    CLI's stdout for text output; never for JSON or the MCP protocol). Emphasis marks become
    bold on a terminal and vanish elsewhere."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        try:
            self._marks = _BOLD if stream.isatty() else _PLAIN
        except (AttributeError, ValueError):
            self._marks = _PLAIN

    def write(self, text: str) -> int:
        if EMPHASIS_ON in text or EMPHASIS_OFF in text:
            # marks were put by the renderer (the same characters in evidence are escaped)
            parts = _MARK_SPLIT.split(text)
            self._stream.write(
                "".join(
                    self._marks.get(ord(p)) or "" if p in _MARK_CHARS else terminal_safe(p)
                    for p in parts
                )
            )
        else:
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


def _snippet_line(chunk: EvidenceChunk, width: int) -> str:
    """The snippet on one line, its matches marked (the marks do not count in ``width``)."""
    text = emphasised(chunk.snippet, chunk.highlights)
    flat = " ".join(text.split())
    shown, visible = [], 0
    for character in flat:
        if character in (EMPHASIS_ON, EMPHASIS_OFF):
            shown.append(character)
            continue
        if visible == width - 1 and len(flat) - len(shown) > 1:
            shown.append("…")
            break
        shown.append(character)
        visible += 1
    line = "".join(shown)
    if line.count(EMPHASIS_ON) > line.count(EMPHASIS_OFF):
        line += EMPHASIS_OFF
    return line


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
        lines.append(f"      {_snippet_line(chunk, width)}")
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
            + (f"\n      {trace.note}" if trace.note else "")
        )
    lines.append(
        "rejections: " + (", ".join(f"{r.tool}({r.code})" for r in result.rejections) or "none")
    )
    lines.append(
        "degradations: " + (", ".join(f"{d.stage}:{d.code}" for d in result.degradations) or "none")
    )
    return "\n".join(lines)
