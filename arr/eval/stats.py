"""Paired significance tests for comparing two systems on the same queries.

``randomization_test`` is Fisher's paired randomisation (sign-flip) test on per-query score
differences (Smucker, Allan & Carterette, CIKM 2007 recommend it for IR); two-sided, with a
fixed seed so reports are reproducible. ``paired_t_test`` is given for reference.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence


def randomization_test(
    a: Sequence[float], b: Sequence[float], trials: int = 10_000, seed: int = 0
) -> float:
    """Two-sided p-value of mean(a - b) != 0 under random sign flips of the differences."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} vs {len(b)}")
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    if not diffs:
        return 1.0
    observed = abs(sum(diffs))
    rng = random.Random(seed)
    extreme = 0
    for _ in range(trials):
        total = sum(d if rng.random() < 0.5 else -d for d in diffs)
        if abs(total) >= observed - 1e-12:
            extreme += 1
    return (extreme + 1) / (trials + 1)


def paired_t_test(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of a paired t-test (normal approximation for n > 30)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    if n < 2:
        return 1.0
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if var == 0:
        return 1.0 if mean == 0 else 0.0
    t = mean / math.sqrt(var / n)
    return math.erfc(abs(t) / math.sqrt(2))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (step-down; monotone; capped at 1), in input order:
    the family-wise error over all the comparisons of one table stays at the chosen level."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
