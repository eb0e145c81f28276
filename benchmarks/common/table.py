"""One table for ``make bench``: each figure, its baseline measured in the same run, the ratio
and the goal. Benchmark functions ``record`` rows; ``render`` prints them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    figure: str
    value: float
    unit: str
    baseline: float | None = None
    baseline_label: str = ""
    goal: str = ""


ROWS: list[Row] = []


def record(
    figure: str,
    value: float,
    unit: str,
    baseline: float | None = None,
    baseline_label: str = "",
    goal: str = "",
) -> None:
    ROWS.append(Row(figure, value, unit, baseline, baseline_label, goal))


def render() -> str:
    lines = [
        f"{'figure':<44} {'value':>12} {'baseline (same run)':>32} {'ratio':>7}  goal",
        "-" * 120,
    ]
    for row in ROWS:
        base = (
            f"{row.baseline:.2f} {row.unit} {row.baseline_label}"
            if row.baseline is not None
            else ""
        )
        ratio = f"{row.value / row.baseline:.2f}" if row.baseline else ""
        lines.append(
            f"{row.figure:<44} {row.value:>9.2f} {row.unit:<3}{base:>32} {ratio:>7}  {row.goal}"
        )
    return "\n".join(lines)
