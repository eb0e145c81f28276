"""Report files of an evaluation run: JSON, Markdown, self-contained HTML (inline SVG), TREC.

The HTML needs nothing but a browser: plots are drawn here as SVG (metric bars, the per-query
nDCG distribution, the latency histogram), so reports stay readable offline and in ten years.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HEADLINE = ("ndcg@10", "recall@10", "mrr@10", "map", "recall@100", "precision@10")


def write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    tmp.replace(path)  # a reader never sees half a report


def trec_id(value: str) -> str:
    """An id as one TREC field: whitespace (and ``%``, the escape character itself) written as
    ``%XX`` (percent-encoding of the UTF-8 bytes), so ``notes/my run.md`` stays one column and
    reads back unchanged with ``urllib.parse.unquote``; ids without either are unchanged."""
    if not any(c.isspace() or c == "%" for c in value):
        return value
    return "".join(
        "".join(f"%{b:02X}" for b in c.encode("utf-8")) if c.isspace() or c == "%" else c
        for c in value
    )


def trec_lines(runs: Sequence[tuple[str, Sequence[str]]], name: str) -> list[str]:
    """``qid Q0 docid rank score name`` for the judged ids of each query (see judged_ids)."""
    lines = []
    for qid, ranking in runs:
        count = len(ranking)
        for rank, doc in enumerate(ranking, 1):
            # TREC wants a decreasing score; fused scores may tie, so rank decides.
            lines.append(f"{trec_id(qid)} Q0 {trec_id(doc)} {rank} {count - rank + 1} {name}")
    return lines


def headline(aggregate: dict[str, float]) -> list[tuple[str, float]]:
    return [(k, aggregate[k]) for k in HEADLINE if k in aggregate]


def svg_bars(items: Sequence[tuple[str, float]], title: str, width: int = 560) -> str:
    bar_h, gap, label_w = 22, 8, 140
    height = len(items) * (bar_h + gap) + 40
    rows = []
    for i, (label, value) in enumerate(items):
        y = 30 + i * (bar_h + gap)
        w = max(0.0, min(1.0, value)) * (width - label_w - 70)
        rows.append(
            f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="#4878a8"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 15}">{value:.4f}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12"><text x="4" y="16" font-weight="bold">'
        f"{html.escape(title)}</text>{''.join(rows)}</svg>"
    )


def svg_histogram(
    values: Sequence[float],
    title: str,
    unit: str,
    bins: int = 20,
    width: int = 560,
    height: int = 200,
) -> str:
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - low) / span * bins))] += 1
    top = max(counts)
    plot_w, plot_h = width - 60, height - 60
    bars = []
    for i, c in enumerate(counts):
        h = c / top * plot_h
        x = 40 + i * plot_w / bins
        bars.append(
            f'<rect x="{x:.1f}" y="{30 + plot_h - h:.1f}" width="{plot_w / bins - 2:.1f}" '
            f'height="{h:.1f}" fill="#58a06a"><title>{c}</title></rect>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12"><text x="4" y="16" font-weight="bold">'
        f"{html.escape(title)}</text>{''.join(bars)}"
        f'<text x="40" y="{height - 10}">{low:.3g} {unit}</text>'
        f'<text x="{width - 20}" y="{height - 10}" text-anchor="end">{high:.3g} {unit}</text>'
        f'<text x="4" y="40">{top}</text></svg>'
    )


def markdown(report: dict[str, Any]) -> str:
    agg = report["aggregate"]
    lines = [
        f"# ARR evaluation: {report['eval'].get('name', '?')}",
        "",
        f"- status: **{report['status']}**, {report['cases']} queries, "
        f"{report['duration_s']} s, commit `{report['git_commit'][:12]}`",
        f"- tools: {', '.join(report['tools'])}; overrides: "
        f"{' '.join(report['overrides']) or '(none)'}",
        f"- scope leaks: **{agg.get('scope_leak_count', 0)}**, partial results: "
        f"{agg.get('partial_results', 0)}",
        "",
        "| metric | value |",
        "|---|---|",
        *[f"| {k} | {v:.4f} |" for k, v in headline(agg)],
        "",
        "| stage | p50 ms | p95 ms |",
        "|---|---|---|",
        *[f"| {k} | {v['p50']:.2f} | {v['p95']:.2f} |" for k, v in report["latency_ms"].items()],
        "",
        f"Rejections by code: {report['admission'] or 'none'}; degradations by code: "
        f"{report['degradations'] or 'none'}.",
        "",
        "Queries per planned channel set: "
        + (", ".join(f"{k} {v}" for k, v in (report.get("routes") or {}).items()) or "none")
        + ".",
    ]
    worst = sorted(report["per_case"], key=lambda c: c["metrics"].get("ndcg@10", 0))[:5]
    lines += ["", "Hardest queries (nDCG@10):", ""]
    lines += [
        f"- `{c['id']}` {c['metrics'].get('ndcg@10', 0):.3f}: {c['query'][:90]}" for c in worst
    ]
    return "\n".join(lines) + "\n"


def html_page(report: dict[str, Any]) -> str:
    agg = report["aggregate"]
    ndcg = [c["metrics"].get("ndcg@10", 0.0) for c in report["per_case"]]
    latencies = [c["elapsed_ms"] for c in report["per_case"]]
    table = "".join(
        f"<tr><td>{html.escape(c['id'])}</td><td>{html.escape(c['query'][:120])}"
        f"</td><td>{c['metrics'].get('ndcg@10', 0):.3f}</td><td>"
        f"{c['metrics'].get('recall@10', 0):.3f}</td><td>{c['elapsed_ms']:.1f}</td>"
        "</tr>"
        for c in report["per_case"]
    )
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>ARR evaluation {html.escape(str(report["eval"].get("name", "")))}</title>
<style>body{{font-family:sans-serif;max-width:980px;margin:2em auto}}
td,th{{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left}}</style></head><body>
<h1>ARR evaluation: {html.escape(str(report["eval"].get("name", "")))}</h1>
<p>{report["cases"]} queries, tools {html.escape(", ".join(report["tools"]))},
scope leaks <b>{agg.get("scope_leak_count", 0)}</b>, commit {report["git_commit"][:12]}</p>
{svg_bars(headline(agg), "Aggregate metrics (channel set: " + ", ".join(report["tools"]) + ")")}
{svg_histogram(ndcg, "Per-query nDCG@10", "")}
{svg_histogram(latencies, "Search latency per query", "ms")}
<h2>Per query</h2><table><tr><th>id</th><th>query</th><th>nDCG@10</th><th>R@10</th>
<th>ms</th></tr>{table}</table></body></html>"""


def write_reports(
    run_dir: Path, report: dict[str, Any], runs: Sequence[tuple[str, Sequence[str]]]
) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "run.trec").write_text("\n".join(trec_lines(runs, "arr")) + "\n", encoding="utf-8")
    (run_dir / "report.md").write_text(markdown(report), encoding="utf-8")
    (run_dir / "report.html").write_text(html_page(report), encoding="utf-8")
    write_json(run_dir / "report.json", report)  # last: its presence means the run is complete
