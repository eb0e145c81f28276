"""Report files of an evaluation run: JSON, Markdown, self-contained HTML (inline SVG), TREC.

The HTML needs nothing but a browser: plots are drawn here as SVG (metric bars, the per-query
nDCG distribution, the latency histogram), so reports stay readable offline and in ten years.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arr import atomic_write

HEADLINE = ("ndcg@10", "recall@10", "mrr@10", "map", "recall@100", "precision@10")


def write_json(path: Path, data: Any) -> None:
    atomic_write.write_text(path, json.dumps(data, indent=2, default=str))


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


_AT_K = re.compile(r"^(ndcg|recall|mrr)@(\d+)$")
_ORDER = {"ndcg": 0, "recall": 1, "mrr": 2}


def headline_metrics(aggregate: dict[str, float]) -> list[str]:
    """The metrics a report leads with: the usual @10/@100 set when those k were computed, else
    nDCG, recall and MRR at every k that was (never a column for a k that was not)."""
    usual = [k for k in HEADLINE if k in aggregate]
    if any(m.endswith("@10") for m in usual):
        return usual
    at_k = sorted(
        (m for m in aggregate if _AT_K.match(m)),
        key=lambda m: (int(_AT_K.match(m).group(2)), _ORDER[_AT_K.match(m).group(1)]),  # type: ignore[union-attr]
    )
    return at_k + (["map"] if "map" in aggregate else [])


def headline(aggregate: dict[str, float]) -> list[tuple[str, float]]:
    return [(k, aggregate[k]) for k in headline_metrics(aggregate)]


def svg_bars(
    items: Sequence[tuple[str, float]], title: str, width: int = 560, axis: str = "value"
) -> str:
    """Horizontal bars on a 0..1 x axis (ticks 0, 0.25 ... 1, labelled ``axis``)."""
    bar_h, gap, label_w = 22, 8, 140
    plot_w = width - label_w - 70
    height = len(items) * (bar_h + gap) + 70
    rows = []
    for i, (label, value) in enumerate(items):
        y = 30 + i * (bar_h + gap)
        w = max(0.0, min(1.0, value)) * plot_w
        rows.append(
            f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="#4878a8"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 15}">{value:.4f}</text>'
        )
    axis_y = 30 + len(items) * (bar_h + gap)
    ticks = "".join(
        f'<line x1="{label_w + t * plot_w:.1f}" y1="{axis_y}" x2="{label_w + t * plot_w:.1f}" '
        f'y2="{axis_y + 5}" stroke="#333"/><text x="{label_w + t * plot_w:.1f}" '
        f'y="{axis_y + 18}" text-anchor="middle">{t:g}</text>'
        for t in (0, 0.25, 0.5, 0.75, 1)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12"><text x="4" y="16" font-weight="bold">'
        f"{html.escape(title)}</text>{''.join(rows)}"
        f'<line x1="{label_w}" y1="{axis_y}" x2="{label_w + plot_w}" y2="{axis_y}" '
        f'stroke="#333"/>{ticks}<text x="{label_w + plot_w / 2:.1f}" y="{axis_y + 36}" '
        f'text-anchor="middle" class="axis-label">{html.escape(axis)}</text></svg>'
    )


def svg_histogram(
    values: Sequence[float],
    title: str,
    unit: str,
    bins: int = 20,
    width: int = 560,
    height: int = 220,
    axis: str = "",
) -> str:
    """A histogram with both axes labelled (x: ``axis`` in ``unit``; y: number of queries)."""
    if not values:
        return ""
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - low) / span * bins))] += 1
    top = max(counts)
    left, plot_w, plot_h = 50, width - 70, height - 80
    bars = []
    for i, c in enumerate(counts):
        h = c / top * plot_h
        x = left + i * plot_w / bins
        bars.append(
            f'<rect x="{x:.1f}" y="{30 + plot_h - h:.1f}" width="{plot_w / bins - 2:.1f}" '
            f'height="{h:.1f}" fill="#58a06a"><title>{c}</title></rect>'
        )
    base = 30 + plot_h
    x_ticks = "".join(
        f'<text x="{left + f * plot_w:.1f}" y="{base + 16}" text-anchor="middle">'
        f"{low + f * span:.3g}</text>"
        for f in (0, 0.5, 1)
    )
    y_ticks = (
        f'<text x="{left - 6}" y="{base}" text-anchor="end">0</text>'
        f'<text x="{left - 6}" y="{34}" text-anchor="end">{top}</text>'
    )
    x_label = f"{axis or title} ({unit})" if unit else (axis or title)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12"><text x="4" y="16" font-weight="bold">'
        f"{html.escape(title)}</text>{''.join(bars)}"
        f'<line x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}" stroke="#333"/>'
        f'<line x1="{left}" y1="30" x2="{left}" y2="{base}" stroke="#333"/>{x_ticks}{y_ticks}'
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 12}" text-anchor="middle" '
        f'class="axis-label">{html.escape(x_label)}</text>'
        f'<text x="14" y="{30 + plot_h / 2:.1f}" text-anchor="middle" class="axis-label" '
        f'transform="rotate(-90 14 {30 + plot_h / 2:.1f})">queries</text></svg>'
    )


def fusion_line(fusion: dict[str, Any]) -> str:
    """``WSumFusion (norm=min-max, ...); fitted on: ...`` (or "not recorded")."""
    if not fusion:
        return "not recorded"
    options = ", ".join(f"{k}={v}" for k, v in sorted((fusion.get("options") or {}).items()))
    fitted = fusion.get("fitted_on")
    return f"{fusion.get('method', '?')} ({options})" + (f"; fitted on: {fitted}" if fitted else "")


def failed_text(report: dict[str, Any]) -> str:
    """``5 failed: query_invalid 5`` or ``none failed``: every format says what it dropped."""
    count = (report.get("aggregate") or {}).get("failed_queries", 0)
    if not count:
        return "none failed"
    codes = ", ".join(f"{k} {v}" for k, v in (report.get("failed") or {}).items())
    return f"{count} failed" + (f": {codes}" if codes else "")


def markdown(report: dict[str, Any]) -> str:
    agg = report["aggregate"]
    lines = [
        f"# ARR evaluation: {report['eval'].get('name', '?')}",
        "",
        f"- status: **{report['status']}**, {report['cases']} queries "
        f"({failed_text(report)}), {report['duration_s']} s, "
        f"commit `{report['git_commit'][:12]}`",
        f"- tools: {', '.join(report['tools'])}; overrides: "
        f"{' '.join(report['overrides']) or '(none)'}",
        f"- fusion: {fusion_line(report.get('fusion') or {})}",
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
    failures = [c for c in report["per_case"] if c.get("error")]
    if failures:
        lines += ["", f"Failed queries (refused, scored 0 in every metric): {len(failures)}", ""]
        lines += [f"- `{c['id']}`: {c['error'][:160]}" for c in failures[:50]]
        if len(failures) > 50:
            lines.append(f"- ... {len(failures) - 50} more in report.json")
    worst = sorted(report["per_case"], key=lambda c: c["metrics"].get("ndcg@10", 0))[:5]
    lines += ["", "Hardest queries (nDCG@10):", ""]
    lines += [
        f"- `{c['id']}` {c['metrics'].get('ndcg@10', 0):.3f}: {c['query'][:90]}" for c in worst
    ]
    return "\n".join(lines) + "\n"


SORT_SCRIPT = """
document.querySelectorAll('table.sortable th').forEach(function (th, column) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0];
    var rows = Array.from(body.rows);
    var numeric = th.dataset.type === 'num';
    var descending = th.dataset.order !== 'desc';
    rows.sort(function (a, b) {
      var x = a.cells[column], y = b.cells[column];
      var u = numeric ? parseFloat(x.dataset.value) : x.textContent;
      var v = numeric ? parseFloat(y.dataset.value) : y.textContent;
      var order = numeric ? u - v : u.localeCompare(v);
      return descending ? -order : order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    th.dataset.order = descending ? 'desc' : 'asc';
  });
});
"""


def main_k(report: dict[str, Any]) -> int:
    """The k the per-query views show: 10 when it was computed, else the smallest computed."""
    ks = sorted(int(k) for k in report.get("eval", {}).get("k_values", [10]))
    return 10 if 10 in ks or not ks else ks[0]


def _counts_table(title: str, counts: dict[str, int]) -> str:
    if not counts:
        return f"<p>{html.escape(title)}: none.</p>"
    rows = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{v}</td></tr>" for k, v in sorted(counts.items())
    )
    return f"<h3>{html.escape(title)}</h3><table><tr><th>code</th><th>count</th></tr>{rows}</table>"


def html_page(report: dict[str, Any]) -> str:
    agg = report["aggregate"]
    k = main_k(report)
    ndcg_k, recall_k = f"ndcg@{k}", f"recall@{k}"
    cases = report["per_case"]
    ndcg = [c["metrics"].get(ndcg_k, 0.0) for c in cases if not c.get("error")]
    latencies = [c["elapsed_ms"] for c in cases if not c.get("error")]
    head = (
        "<tr><th data-type='text'>id</th><th data-type='text'>scope</th>"
        "<th data-type='text'>query</th>"
        f"<th data-type='num'>nDCG@{k}</th><th data-type='num'>R@{k}</th>"
        "<th data-type='text'>partial</th><th data-type='text'>channels</th>"
        "<th data-type='num'>ms</th><th data-type='text'>relevant missed</th></tr>"
    )
    rows = []
    for c in cases:
        n, r = c["metrics"].get(ndcg_k, 0.0), c["metrics"].get(recall_k, 0.0)
        missed = ", ".join(c.get("missed", [])) or (
            "error: " + c["error"] if c.get("error") else ""
        )
        rows.append(
            f"<tr><td>{html.escape(c['id'])}</td><td>{html.escape(str(c.get('scope', '')))}</td>"
            f"<td>{html.escape(c['query'][:160])}</td><td data-value='{n:.6f}'>{n:.3f}</td>"
            f"<td data-value='{r:.6f}'>{r:.3f}</td><td>{'yes' if c.get('partial') else 'no'}</td>"
            f"<td>{html.escape(str(c.get('channels', '')))}</td>"
            f"<td data-value='{c.get('elapsed_ms', 0):.3f}'>{c.get('elapsed_ms', 0):.1f}</td>"
            f"<td>{html.escape(missed[:300])}</td></tr>"
        )
    stages = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{v['p50']:.2f}</td><td>{v['p95']:.2f}</td></tr>"
        for name, v in report.get("latency_ms", {}).items()
    )
    name = html.escape(str(report["eval"].get("name", "")))
    overrides = " ".join(report.get("overrides", [])) or "(none)"
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>ARR evaluation {name}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}
table{{border-collapse:collapse;margin-bottom:1em}}
td,th{{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}}
table.sortable th{{cursor:pointer;background:#f0f0f0}}</style></head><body>
<h1>ARR evaluation: {name}</h1>
<p>status <b>{html.escape(str(report.get("status", "")))}</b>, {report["cases"]} queries
({html.escape(failed_text(report))}), tools {html.escape(", ".join(report["tools"]))},
scope leaks <b>{agg.get("scope_leak_count", 0)}</b>, partial results
{agg.get("partial_results", 0)}, commit {html.escape(report["git_commit"][:12])}</p>
<p>overrides: <code>{html.escape(overrides)}</code></p>
<p>fusion: {html.escape(fusion_line(report.get("fusion") or {}))}</p>
{svg_bars(headline(agg), "Aggregate metrics", axis="metric value (0 to 1)")}
{svg_histogram(ndcg, f"Per-query nDCG@{k}", "", axis=f"nDCG@{k}")}
{svg_histogram(latencies, "Search latency per query", "ms", axis="latency")}
<h2>Per stage latency</h2>
<table><tr><th>stage</th><th>p50 ms</th><th>p95 ms</th></tr>{stages}</table>
{_counts_table("Failed queries by code (refused, scored 0)", report.get("failed", {}))}
{_counts_table("Rejections by code", report.get("admission", {}))}
{_counts_table("Degradations by code", report.get("degradations", {}))}
{_counts_table("Queries per planned channel set", report.get("routes", {}))}
<h2>Per query</h2><p>Click a header to sort.</p>
<table class="sortable" id="per-query"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>
<script>{SORT_SCRIPT}</script></body></html>"""


def write_reports(
    run_dir: Path, report: dict[str, Any], runs: Sequence[tuple[str, Sequence[str]]]
) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write.write_text(run_dir / "run.trec", "\n".join(trec_lines(runs, "arr")) + "\n")
    atomic_write.write_text(run_dir / "report.md", markdown(report))
    atomic_write.write_text(run_dir / "report.html", html_page(report))
    write_json(run_dir / "report.json", report)  # last: its presence means the run is complete
