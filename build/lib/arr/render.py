"""Human-readable rendering of a RouterResult: ranked evidence and a compact trace."""

from __future__ import annotations

from arr.models import RouterResult


def _one_line(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render_result(
    result: RouterResult, scope_name: str | None = None, max_evidence: int = 10, width: int = 96
) -> str:
    scope = f"{scope_name} ({result.scope.label()})" if scope_name else result.scope.label()
    lines = [
        f"query: {result.query}",
        f"scope: {scope}",
        f"planner: {result.planner}   reranker: {result.reranker}   partial: "
        f"{str(result.partial).lower()}   scope_dropped: {result.scope_dropped}   "
        f"elapsed: {result.elapsed_ms:.1f} ms",
        f"evidence ({len(result.evidence)}):",
    ]
    for rank, chunk in enumerate(result.evidence[:max_evidence], 1):
        ranks = ", ".join(f"{c}#{r}" for c, r in sorted(chunk.ranks.items()))
        lines.append(
            f"  {rank:>2}. [{chunk.channel}] {chunk.location.render()}  "
            f"score {chunk.score:.4f}  ({ranks})"
        )
        lines.append(f"      {_one_line(chunk.snippet, width)}")
    if not result.evidence:
        lines.append("  (none)")
    lines.append("trace:")
    for trace in result.traces:
        lines.append(
            f"  round {trace.round}  {trace.tool:<10} {trace.status:<8} {trace.code:<24}"
            f" {trace.candidates:>3} candidates  {trace.elapsed_ms:8.2f} ms"
        )
    lines.append(
        "rejections: " + (", ".join(f"{r.tool}({r.code})" for r in result.rejections) or "none")
    )
    lines.append(
        "degradations: " + (", ".join(f"{d.stage}:{d.code}" for d in result.degradations) or "none")
    )
    return "\n".join(lines)
