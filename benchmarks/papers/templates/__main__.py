"""``make bench-templates``: paper identity per publisher template, judged as
:mod:`benchmarks.papers.identity` judges papersdev (title right; citation right, wrong or
missing), on front pages typeset here from the classes TeX Live ships (:mod:`.build`).

A citation is *right* when its first surname and year are the gold's; on a page that prints no
year of its own the right answer is no citation (``missing`` is then counted apart, as
``no year: none shown``), and any citation shown is wrong. ``right`` is given over the pages
that print a year. Beside ARR, in the same run: the PDF's ``/Title`` alone.

Without pdflatex (CI need not install TeX Live) it says so and stops. ``ARR_TEMPLATES_PER_CLASS``
sets how many papers each class gets (10; the smoke run takes 1), ``ARR_TEMPLATES_SEED`` the
seed (61, the development draw; another seed draws papers these rules were not written on)."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

from benchmarks.common.core import bench_out
from benchmarks.papers.identity import bench_identity
from benchmarks.papers.templates.build import PER_CLASS, SEED, build, missing_tools

HEADER = (
    "| template | n | title right | citation right (of pages with a year) | wrong | "
    "missing | no year: none shown | /Title alone |\n|---|---|---|---|---|---|---|---|"
)


def table(rows: list[dict]) -> str:
    """One line per template and one for all, as markdown."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["template"]].append(row)
    lines = [HEADER]
    for name, group in [*sorted(groups.items()), ("all", rows)]:
        n = len(group)
        dated = [r for r in group if r["year"] is not None]
        undated = [r for r in group if r["year"] is None]
        right = sum(r["verdict"] == "right" for r in dated)
        wrong = sum(r["verdict"] == "wrong" for r in group)
        missing = sum(r["verdict"] == "missing" for r in dated)
        held = sum(r["verdict"] == "missing" for r in undated)
        lines.append(
            f"| {name} | {n} | {sum(r['title_ok'] for r in group)}/{n} | "
            f"{right}/{len(dated)} ({right / max(len(dated), 1):.0%}) | "
            f"{wrong}/{n} ({wrong / max(n, 1):.0%}) | {missing}/{len(dated)} | "
            f"{held}/{len(undated)} | {sum(r['meta_ok'] for r in group)}/{n} |"
        )
    return "\n".join(lines)


def main() -> None:
    why = missing_tools()
    if why:
        print(f"paper identity per template: skipped, {why}")
        return
    per_class = int(os.environ.get("ARR_TEMPLATES_PER_CLASS", PER_CLASS))
    seed = int(os.environ.get("ARR_TEMPLATES_SEED", SEED))
    drawn = (per_class, seed) == (PER_CLASS, SEED)
    folder = bench_out() / ("templates" if drawn else f"templates-{seed}-{per_class}")
    made = build(folder, per_class, seed)
    for what, reason in made.get("failures", {}).items():
        print(f"  not made: {what}: {reason[:160]}")
    result = bench_identity(folder, baselines=False)
    print(f"paper identity per template on {folder} ({result['counts']['n']} PDFs, gold by "
          "construction; a development set: its misses were read)")  # fmt: skip
    print(table(result["rows"]))
    print(f"  where fields came from    {json.dumps(result['sources'], sort_keys=True)}")
    print(f"  {result['seconds']:.1f} s in all")
    if os.environ.get("ARR_BENCH_MISSES"):
        print("\n".join("    " + m for m in result["misses"]))
    Path(folder / "last_rows.json").write_text(json.dumps(result["rows"], indent=0), "utf-8")


if __name__ == "__main__":
    main()
