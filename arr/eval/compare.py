"""``arr report RUN [RUN ...]``: compare evaluation runs against a baseline.

Each argument is a run folder (holding ``report.json``) or a multirun folder (``*/report.json``).
Jobs that failed are listed, not compared. Runs over different gold sets (other query ids) are
refused. Per-query metrics are aligned by query id; every job is tested against the baseline
with the paired randomisation test, and the p-values of the whole table are Holm-adjusted (the
table says so). Jobs are labelled by the overrides that differ between them. Writes
``comparison.json``, ``comparison.md`` and ``comparison.html`` (a real, sortable table with the
winner of each metric highlighted, and a labelled bar chart) into the multirun folder when
there is one argument, else into ``<first run's parent>/comparisons/<timestamp>/``.
"""

from __future__ import annotations

import html
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.eval.gold import EvalError
from arr.eval.report import SORT_SCRIPT, headline_metrics, svg_bars, write_json
from arr.eval.stats import holm, randomization_test

TEST = "paired randomisation (sign-flip), two-sided, 10,000 trials, seed 0; Holm-adjusted"
HIDDEN_OVERRIDES = ("paths.", "hydra.")


def _read(report_path: Path) -> dict[str, Any]:
    try:
        return json.loads(report_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EvalError(f"{report_path}: unreadable report ({exc})") from None


def load_jobs(folders: list[Path]) -> tuple[list[tuple[Path, dict[str, Any]]], list[str]]:
    """(job folder, report) of every completed run under the given folders, and the failed."""
    jobs, failed = [], []
    for folder in folders:
        if not folder.is_dir():
            raise EvalError(f"{str(folder)!r} is not a folder")
        if (folder / "report.json").is_file():
            paths = [folder / "report.json"]
        else:
            paths = sorted(
                folder.glob("*/report.json"), key=lambda p: (len(p.parent.name), p.parent.name)
            )
        if not paths:
            raise EvalError(f"{str(folder)!r} holds no report.json (a run) nor */report.json")
        for report_path in paths:
            report = _read(report_path)
            if report.get("status") != "ok":
                failed.append(f"{report_path.parent.name}: {report.get('error', 'no status')}")
            else:
                jobs.append((report_path.parent, report))
    if not jobs:
        raise EvalError("no completed run reports (report.json with status ok) to compare")
    return jobs, failed


def job_names(jobs: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    """Short unique names: the job folder's name, prefixed by its parent when names repeat."""
    plain = [d.name for d, _ in jobs]
    if len(set(plain)) == len(plain):
        return plain
    return [f"{d.parent.name}/{d.name}" for d, _ in jobs]


def labels(jobs: list[tuple[Path, dict[str, Any]]]) -> list[str]:
    """Each job's overrides that not every job shares (what the comparison is about)."""
    sets = [
        [o for o in r.get("overrides", []) if not o.startswith(HIDDEN_OVERRIDES)] for _, r in jobs
    ]
    common = set.intersection(*(set(s) for s in sets)) if sets else set()
    return [" ".join(o for o in s if o not in common) or "(defaults)" for s in sets]


def _gold_key(report: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(c["id"] for c in report.get("per_case", [])))


def compare(folders: Path | list[Path], baseline: str | None = None) -> dict[str, Any]:
    folders = [folders] if isinstance(folders, Path) else list(folders)
    jobs, failed = load_jobs(folders)
    gold = {_gold_key(r) for _, r in jobs}
    if len(gold) > 1:
        sizes = sorted({len(g) for g in gold})
        raise EvalError(
            f"runs are over different gold sets ({len(gold)} different sets of query ids, "
            f"sizes {sizes}); compare runs of one gold set"
        )
    names = job_names(jobs)
    base_name = baseline if baseline is not None else names[0]
    if base_name not in names:
        raise EvalError(f"baseline job {base_name!r} not found; jobs: {names}")
    base = jobs[names.index(base_name)][1]
    base_cases = {c["id"]: c["metrics"] for c in base["per_case"]}
    metrics = headline_metrics(base["aggregate"])
    rows = [
        _job_row(name, label, report, base_cases, metrics, tested=name != base_name)
        for name, label, (_, report) in zip(names, labels(jobs), jobs, strict=True)
    ]
    tested = [(r, m) for r in rows for m in metrics if m in r["p_raw"]]
    for (row, metric), adjusted in zip(
        tested, holm([r["p_raw"][m] for r, m in tested]), strict=True
    ):
        row["p_value"][metric] = adjusted
    winners = {
        m: max(rows, key=lambda r: (r["mean"][m], -names.index(r["job"])))["job"] for m in metrics
    }
    out = (
        folders[0]
        if len(folders) == 1 and not (folders[0] / "report.json").is_file()
        else (folders[0].parent / "comparisons" / datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f"))
    )
    result = {
        "folder": str(out),
        "runs": [str(f) for f in folders],
        "baseline": base_name,
        "metrics": metrics,
        "jobs": rows,
        "winners": winners,
        "failed_jobs": failed,
        "test": TEST,
        "comparisons": len(tested),
    }
    out.mkdir(parents=True, exist_ok=True)
    write_outputs(out, result)
    return result


def _job_row(
    name: str,
    label: str,
    report: dict[str, Any],
    base_cases: dict[str, Any],
    metrics: list[str],
    tested: bool,
) -> dict[str, Any]:
    """One job's means and, against the baseline on their shared cases, raw p-values."""
    cases = {c["id"]: c["metrics"] for c in report["per_case"]}
    shared = sorted(set(cases) & set(base_cases))
    row: dict[str, Any] = {
        "job": name,
        "label": label,
        "cases": len(cases),
        "mean": {},
        "p_value": {},
        "p_raw": {},
        "latency_p50_ms": report["latency_ms"]["search"]["p50"],
    }
    for metric in metrics:
        row["mean"][metric] = report["aggregate"].get(metric, 0.0)
        if tested:
            row["p_raw"][metric] = randomization_test(
                [cases[c].get(metric, 0.0) for c in shared],
                [base_cases[c].get(metric, 0.0) for c in shared],
            )
    return row


def markdown(result: dict[str, Any]) -> str:
    metrics = result["metrics"]
    head = "| job | " + " | ".join(metrics) + " | p50 ms |"
    lines = [
        f"# Comparison ({', '.join(result.get('runs', [result['folder']]))})",
        "",
        f"Baseline: job `{result['baseline']}`. p-values: {result['test']}.",
        "",
        head,
        "|" + "---|" * (len(metrics) + 2),
    ]
    for row in result["jobs"]:
        cells = []
        for m in metrics:
            p = row["p_value"].get(m)
            mark = "" if p is None else f" ({_p_text(p)}{'*' if p < 0.05 else ''})"
            win = " **best**" if result["winners"][m] == row["job"] else ""
            cells.append(f"{row['mean'][m]:.4f}{mark}{win}")
        lines.append(
            f"| {row['job']}: {row['label']} | "
            + " | ".join(cells)
            + f" | {row['latency_p50_ms']:.1f} |"
        )
    if result["failed_jobs"]:
        lines += ["", "Failed jobs (not compared): " + "; ".join(result["failed_jobs"])]
    return "\n".join(lines) + "\n"


def _p_text(p: float | None) -> str:
    if p is None:
        return ""
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def html_table(result: dict[str, Any]) -> str:
    metrics = result["metrics"]
    head = "".join(
        f"<th data-type='text'>{h}</th>" for h in ("job", "overrides (what differs)")
    ) + "".join(f"<th data-type='num'>{html.escape(m)}</th>" for m in metrics)
    head += "<th data-type='num'>p50 ms</th>"
    body = []
    for row in result["jobs"]:
        cells = [f"<td>{html.escape(row['job'])}</td><td>{html.escape(row['label'])}</td>"]
        for m in metrics:
            p = row["p_value"].get(m)
            best = result["winners"][m] == row["job"]
            significant = p is not None and p < 0.05
            cells.append(
                f"<td data-value='{row['mean'][m]:.6f}' class='{'best' if best else ''}'>"
                f"{row['mean'][m]:.4f}"
                + (
                    f" <small>({_p_text(p)}{'*' if significant else ''})</small>"
                    if p is not None
                    else ""
                )
                + "</td>"
            )
        cells.append(
            f"<td data-value='{row['latency_p50_ms']:.3f}'>{row['latency_p50_ms']:.1f}</td>"
        )
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"<table id='comparison' class='sortable'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def write_outputs(folder: Path, result: dict[str, Any]) -> None:
    atomic_write.write_text(folder / "comparison.md", markdown(result))
    metric = "ndcg@10" if "ndcg@10" in result["metrics"] else result["metrics"][0]
    bars = svg_bars(
        [(r["label"][:24], r["mean"][metric]) for r in result["jobs"]],
        f"{metric} per job",
        width=760,
        axis=metric,
    )
    failed = (
        "<p>Failed jobs (not compared): " + html.escape("; ".join(result["failed_jobs"])) + "</p>"
        if result["failed_jobs"]
        else ""
    )
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>ARR comparison</title>"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
        "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:4px 8px}"
        "th{cursor:pointer;background:#f0f0f0}td.best{background:#d8f0d8;font-weight:bold}"
        "</style></head><body>"
        f"<h1>ARR comparison</h1><p>Baseline: <b>{html.escape(result['baseline'])}</b>. "
        f"p-values: {html.escape(result['test'])} over {result['comparisons']} comparisons; "
        "* p &lt; 0.05. Best value per metric highlighted. Click a header to sort.</p>"
        f"{html_table(result)}{failed}<h2>{html.escape(metric)}</h2>{bars}"
        f"<script>{SORT_SCRIPT}</script></body></html>"
    )
    atomic_write.write_text(folder / "comparison.html", page)
    write_json(folder / "comparison.json", result)
