"""Human-readable rendering of a RouterResult: ranked evidence and a compact trace."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from arr.cli.terminal import EMPHASIS_OFF, EMPHASIS_ON, emphasised
from arr.codes import QUERY_WORDS_UNKNOWN
from arr.models import EvidenceChunk, RouterResult

MAX_QUERY_SHOWN = 200
# Trace counters that say something was withheld or cut: shown when non-zero, so a withheld
# match never looks like "nothing there".
_WITHHELD_PREFIXES = ("skipped_", "redacted_", "lines_over_", "files_at_", "long_lines_", "scope_")


def file_locator(
    roots: Sequence[Path], cwd: Path | None = None, query: str | None = None
) -> Callable[[EvidenceChunk], str]:
    """Render file evidence as a path a terminal or editor opens: relative to the current
    folder when inside it, else absolute, then ``:line``: the chunk's line that matches
    ``query`` best (``model.py:263 (lines 241-280)``), else its first. ``roots`` are the
    scope's roots (a path of a scope with several roots starts with its root's folder name)."""
    here = (cwd or Path.cwd()).resolve()

    def locate(chunk: EvidenceChunk) -> str:
        where = chunk.location
        if not where.path or not roots or where.memory_id:
            return where.render()
        from arr.workspace.roots import root_of_label

        found = root_of_label(list(roots), where.path)
        if found is None:
            return where.render()
        full = found[0] / found[1]
        shown = os.path.relpath(full, here) if full.is_relative_to(here) else str(full)
        if where.anchor is not None:  # a page, a cell, an entry: as Location renders it
            return where.model_copy(update={"path": shown}).render()
        if not where.start_line:
            return shown
        end = where.end_line or where.start_line
        line = where.start_line
        if query is not None:
            from arr.workspace.opening import matching_line

            line = matching_line(chunk, query) or line
        span = f" (lines {where.start_line}-{end})" if end != where.start_line else ""
        return f"{shown}:{line}{span}"

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


def _words_missing(result: RouterResult) -> str | None:
    """What the results say about the query's words when none holds them all (a query with no
    exact match otherwise reads like one that found its file): the words no result holds, or
    that none holds them together. Judged on each item's whole text."""
    from arr.query.snippets import match_terms

    words = [t for t, _ in match_terms(result.query) if " " not in t]
    if len(words) < 2 or not result.evidence:
        return None
    texts = [item.full_text().lower() for item in result.evidence]
    if any(all(w in text for w in words) for text in texts):
        return None
    absent = [w for w in words if not any(w in text for text in texts)]
    if absent:
        named = ", ".join(repr(w) for w in absent[:8])
        rest = "; these hold some of the other words" if len(absent) < len(words) else ""
        return f"no result holds {named}{rest}"
    return "no result holds all of these words together; each holds some of them"


def render_result(
    result: RouterResult,
    scope_name: str | None = None,
    max_evidence: int = 10,
    width: int = 96,
    locate: Callable[[EvidenceChunk], str] | None = None,
    verbose: bool = True,
) -> str:
    """The answer for a terminal. ``verbose=False`` (``arr search`` without ``-v``) leaves out
    the scores, per-channel ranks and the per-call trace, keeping what a reader acts on: the
    places, titles, citations, snippets, what was withheld, rejections and degradations."""
    lines = _header(result, scope_name)
    lines += _evidence_lines(result, max_evidence, width, locate, verbose)
    missing = _words_missing(result)
    if missing:
        lines.append(f"note: {missing}")
    lines += [f"note: {d.detail}" for d in result.degradations if d.code == QUERY_WORDS_UNKNOWN]
    lines += _trace_lines(result) if verbose else _withheld_line(result)
    lines.append(
        "rejections: " + (", ".join(f"{r.tool}({r.code})" for r in result.rejections) or "none")
    )
    lines.append(
        "degradations: " + (", ".join(f"{d.stage}:{d.code}" for d in result.degradations) or "none")
    )
    return "\n".join(lines)


def _header(result: RouterResult, scope_name: str | None) -> list[str]:
    scope = f"{scope_name} ({result.scope.label()})" if scope_name else result.scope.label()
    query = result.query
    if len(query) > MAX_QUERY_SHOWN:
        query = f"{_one_line(query, MAX_QUERY_SHOWN)} ({len(result.query)} characters)"
    return [
        f"query: {query}",
        f"scope: {scope}",
        f"planner: {result.planner}   reranker: {result.reranker}   partial: "
        f"{str(result.partial).lower()}   scope_dropped: {result.scope_dropped}   "
        f"elapsed: {result.elapsed_ms:.1f} ms",
        f"evidence ({len(result.evidence)}):",
    ]


def _evidence_lines(
    result: RouterResult,
    max_evidence: int,
    width: int,
    locate: Callable[[EvidenceChunk], str] | None,
    verbose: bool,
) -> list[str]:
    lines = []
    for rank, chunk in enumerate(result.evidence[:max_evidence], 1):
        ranks = ", ".join(f"{c}#{r}" for c, r in sorted(chunk.ranks.items()))
        where = locate(chunk) if locate is not None else chunk.location.render()
        scored = f"  score {chunk.score:.4f}  ({ranks})" if verbose else ""
        lines.append(f"  {rank:>2}. [{chunk.channel}] {where}{scored}")
        if chunk.location.title:  # the paper's title, the cell's or section's heading
            lines.append(f"      § {_one_line(chunk.location.title, width)}")
        if chunk.location.citation:  # as a researcher pastes it: "Lamport 1994, p. 3"
            lines.append(f"      cite: {_one_line(chunk.location.citation, width)}")
        lines.append(f"      {_snippet_line(chunk, width)}")
    if len(result.evidence) > max_evidence:
        lines.append(f"  +{len(result.evidence) - max_evidence} more (--json shows all)")
    if not result.evidence:
        lines.append("  (none)")
    return lines


def _withheld(counters: dict[str, int]) -> str:
    return ", ".join(
        f"{k} {v}" for k, v in sorted(counters.items()) if v and k.startswith(_WITHHELD_PREFIXES)
    )


def _withheld_line(result: RouterResult) -> list[str]:
    """What every channel held back, summed (the plain output's one line about it)."""
    total: Counter[str] = Counter()
    for trace in result.traces:
        total.update({k: v for k, v in trace.counters.items() if isinstance(v, int)})
    shown = _withheld(dict(total))
    return [f"withheld: {shown}"] if shown else []


def _trace_lines(result: RouterResult) -> list[str]:
    lines = ["trace:"]
    for trace in result.traces:
        withheld = _withheld(dict(trace.counters))
        lines.append(
            f"  round {trace.round}  {trace.tool:<10} {trace.status:<8} {trace.code:<24}"
            f" {trace.candidates:>3} candidates  {trace.elapsed_ms:8.2f} ms"
            + (f"  withheld: {withheld}" if withheld else "")
            + (f"\n      {trace.note}" if trace.note else "")
        )
    return lines
