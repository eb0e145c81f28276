"""How much slower this machine runs right now than the one the tests' timing budgets were set
on: tests that time a real model or a deadline scale their grace by it, so that ``make test``
holds on a loaded machine (load 6-20 on 2 cores, issue 63) while an idle one keeps the tight
budget. Timing claims themselves live in the benchmarks, not in these tests.

``slowness()`` is the larger of two measures, never below 1: a fixed CPU probe timed now
against its time on an idle core of this project's machines (a slower or busier CPU takes
longer), and the load average per core (runnable processes queueing for a core). Capped, so a
hung machine still fails a test rather than waiting for ever.
"""

from __future__ import annotations

import os
import statistics
import time

REFERENCE_S = 0.025  # the probe on an idle core of this project's 2-core machines
PROBES = 5
MAX_SLOWNESS = 20.0


def _probe() -> float:
    started = time.perf_counter()
    total = 0
    for number in range(200_000):  # interpreter work, as a search's fusion and ranking do
        total += number * number % 7
    sorted(range(200_000, 0, -1))  # and native work
    return time.perf_counter() - started


def load_per_core() -> float:
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average on this platform
        return 0.0


def slowness() -> float:
    """This machine's slowness now: 1.0 idle, 3.5 at load 7 on 2 cores (at most 20)."""
    probed = statistics.median(_probe() for _ in range(PROBES)) / REFERENCE_S
    return min(MAX_SLOWNESS, max(1.0, probed, load_per_core()))


def grace_s(seconds: float, at_most: float | None = None) -> float:
    """A grace of ``seconds`` on an idle machine, scaled by its slowness now; ``at_most`` keeps
    it below what the test must tell apart (the slow call a deadline has to cut)."""
    scaled = seconds * slowness()
    return scaled if at_most is None else min(scaled, at_most)
