"""``arr report <multirun folder>``: compare the jobs of a sweep against a baseline job.

Reads every ``<job>/report.json`` (jobs that failed are listed, not compared), aligns per-query
metrics by case id, and writes ``comparison.json``, ``comparison.md`` and ``comparison.html``
into the folder: mean of each headline metric per job, the paired randomisation test p-value of
each job against the baseline, and the winner per metric.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from arr.eval.gold import EvalError
from arr.eval.report import HEADLINE, svg_bars, write_json
from arr.eval.stats import randomization_test


def job_label(job_dir: Path, report: dict[str, Any]) -> str:
    overrides = [o for o in report.get("overrides", []) if not o.startswith(("paths.", "hydra."))]
    return f"{job_dir.name}: {' '.join(overrides) or '(defaults)'}"


def load_jobs(folder: Path) -> tuple[list[tuple[Path, dict[str, Any]]], list[str]]:
    if not folder.is_dir():
        raise EvalError(f"{str(folder)!r} is not a folder")
    jobs, failed = [], []
    for report_path in sorted(
        folder.glob("*/report.json"), key=lambda p: (len(p.parent.name), p.parent.name)
    ):
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise EvalError(f"{report_path}: not JSON ({exc})") from None
        if report.get("status") != "ok":
            failed.append(f"{report_path.parent.name}: {report.get('error', 'no status')}")
        else:
            jobs.append((report_path.parent, report))
    if not jobs:
        raise EvalError(f"no completed job reports (*/report.json with status ok) in {folder}")
    return jobs, failed


def compare(folder: Path, baseline: str | None = None) -> dict[str, Any]:
    jobs, failed = load_jobs(folder)
    names = [d.name for d, _ in jobs]
    base_name = baseline if baseline is not None else names[0]
    if base_name not in names:
        raise EvalError(f"baseline job {base_name!r} not found; jobs: {names}")
    base = dict(jobs)[folder / base_name]
    base_cases = {c["id"]: c["metrics"] for c in base["per_case"]}
    metrics = [m for m in HEADLINE if m in base["aggregate"]]
    rows = []
    for job_dir, report in jobs:
        cases = {c["id"]: c["metrics"] for c in report["per_case"]}
        shared = sorted(set(cases) & set(base_cases))
        row: dict[str, Any] = {
            "job": job_dir.name,
            "label": job_label(job_dir, report),
            "cases": len(cases),
            "mean": {},
            "p_value": {},
            "latency_p50_ms": report["latency_ms"]["search"]["p50"],
        }
        for metric in metrics:
            row["mean"][metric] = report["aggregate"].get(metric, 0.0)
            if job_dir.name != base_name:
                row["p_value"][metric] = randomization_test(
                    [cases[c][metric] for c in shared], [base_cases[c][metric] for c in shared]
                )
        rows.append(row)
    winners = {
        m: max(rows, key=lambda r: (r["mean"][m], -names.index(r["job"])))["job"] for m in metrics
    }
    result = {
        "folder": str(folder),
        "baseline": base_name,
        "metrics": metrics,
        "jobs": rows,
        "winners": winners,
        "failed_jobs": failed,
        "test": "paired randomisation (sign-flip), two-sided, 10,000 trials, seed 0",
    }
    write_outputs(folder, result)
    return result


def markdown(result: dict[str, Any]) -> str:
    metrics = result["metrics"]
    head = "| job | " + " | ".join(metrics) + " | p50 ms |"
    lines = [
        f"# Sweep comparison ({result['folder']})",
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
            shown = (
                "<0.001" if p is not None and p < 0.001 else f"={p:.3f}" if p is not None else ""
            )
            mark = "" if p is None else f" (p{shown}{'*' if p < 0.05 else ''})"
            win = " **best**" if result["winners"][m] == row["job"] else ""
            cells.append(f"{row['mean'][m]:.4f}{mark}{win}")
        lines.append(
            f"| {row['label']} | " + " | ".join(cells) + f" | {row['latency_p50_ms']:.1f} |"
        )
    if result["failed_jobs"]:
        lines += ["", "Failed jobs (not compared): " + "; ".join(result["failed_jobs"])]
    return "\n".join(lines) + "\n"


def write_outputs(folder: Path, result: dict[str, Any]) -> None:
    (folder / "comparison.md").write_text(markdown(result), encoding="utf-8")
    metric = "ndcg@10" if "ndcg@10" in result["metrics"] else result["metrics"][0]
    bars = svg_bars(
        [(r["label"][:40], r["mean"][metric]) for r in result["jobs"]],
        f"{metric} per job",
        width=760,
    )
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>ARR sweep</title></head>"
        f"<body style='font-family:sans-serif;max-width:980px;margin:2em auto'>{bars}"
        f"<pre>{html.escape(markdown(result))}</pre></body></html>"
    )
    (folder / "comparison.html").write_text(page, encoding="utf-8")
    write_json(folder / "comparison.json", result)
