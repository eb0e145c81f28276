"""``arr index``'s whole-run clock: one estimate of the time left across every stage.

The lexical channels (memory, grep, bm25) are read first; what they cost on a tree never
indexed cannot be known before they have read it, so until then the clock says nothing rather
than guess. When they are ready, every semantic partition is asked what it would embed
(:meth:`VectorTool.pending`, timed: the build works its plan out again at that cost) before the
first is built, so the time left counts every passage of the run, not the current scope's:

    left = the current build's plan still to redo + its items left x rate
           + for each partition not started: its plan time + its items x rate

``rate`` (seconds per embedded item, batches stored included) is measured on this run's
batches; before the first batch, the rate the last run on this workspace measured
(``<index>/run_clock.json``) when there is one, else the rate timed on a small sample of the
items (16 a partition) when they were planned. Between reports the
estimate counts down with the wall clock.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from arr import atomic_write

HISTORY = "run_clock.json"
MIN_ITEMS_REMEMBERED = 64  # a rate measured on fewer items is noise: not kept for the next run


class RunClock:
    def __init__(self, index_dir: Path | None = None) -> None:
        self.history = index_dir / HISTORY if index_dir is not None else None
        self.prior = _remembered_rate(self.history)
        self.started = time.monotonic()
        self.plans: dict[str, tuple[int, float]] = {}  # job: (items to embed, plan seconds)
        self.order: list[str] = []
        self.current: str | None = None
        self.finished: set[str] = set()
        self.current_started = 0.0
        self.embed_started: float | None = None  # this partition's first item asked of the model
        self.total = 0  # items of the current partition
        self.done = 0
        self.spent = 0.0  # seconds embedding finished partitions
        self.embedded = 0  # items of finished partitions
        self._estimate: tuple[float, float] | None = None  # (seconds left, when said)

    # ---- told by arr index -------------------------------------------------------------------
    def planned(self, plans: dict[str, tuple[int, float]], sampled: float | None = None) -> None:
        """Each semantic partition's (items to embed, seconds its plan took), in build order;
        ``sampled``: seconds per item timed on a sample of them (when no rate was remembered)."""
        self.prior = self.prior if self.prior is not None else sampled
        self.plans = dict(plans)
        self.order = list(plans)
        self._update()

    def starts(self, job: str) -> None:
        self._finish_partition()
        if self.current is not None:
            self.finished.add(self.current)
        self.current, self.current_started = job, time.monotonic()
        self._update()

    # ---- told by the build (arr.tools.build_progress.Listener) --------------------------------
    def begin(self, total: int) -> None:
        self.embed_started, self.total, self.done = time.monotonic(), total, 0
        self._update()

    def advance(self, count: int) -> None:
        self.done += count
        self._update()

    # ---- read by the bar ---------------------------------------------------------------------
    def rate(self) -> float | None:
        """Seconds per embedded item: this run's, else the last run's, else unknown."""
        # the current partition counts from its first stored batch on (before it, its clock
        # holds the model's start and one batch's work, and no item to divide them by)
        current = self.done > 0 and self.embed_started is not None
        items = self.embedded + (self.done if current else 0)
        if items > 0:
            running = time.monotonic() - self.embed_started if current else 0.0  # type: ignore[operator]
            return (self.spent + running) / items
        return self.prior

    def left_s(self) -> float | None:
        """Seconds the run has left, counted down since the last estimate; None while unknown."""
        if self._estimate is None:
            return None
        left, said = self._estimate
        return max(0.0, left - (time.monotonic() - said))

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    def embedding(self) -> tuple[int, int]:
        """(items embedded, items to embed) over the whole run, once planned."""
        total = sum(items for items, _ in self.plans.values())
        return self.embedded + (self.done if self.embed_started is not None else 0), total

    def remember(self) -> None:
        """The rate this run measured, for the next run's first seconds (best effort)."""
        self._finish_partition()
        if self.history is None or self.embedded < MIN_ITEMS_REMEMBERED:
            return
        with contextlib.suppress(OSError):
            payload = {"seconds_per_item": self.spent / self.embedded, "items": self.embedded}
            atomic_write.write_text(self.history, json.dumps(payload))

    # ---- the estimate ------------------------------------------------------------------------
    def _finish_partition(self) -> None:
        if self.embed_started is not None:
            self.spent += time.monotonic() - self.embed_started
            self.embedded += self.done
        self.embed_started, self.total, self.done = None, 0, 0

    def _update(self) -> None:
        left = self._left_now()
        self._estimate = None if left is None else (left, time.monotonic())

    def _left_now(self) -> float | None:
        if not self.plans:
            return None  # the lexical channels are still being read
        rate = self.rate()
        if rate is None and any(items for items, _ in self.plans.values()):
            return None
        rate = rate or 0.0
        left = 0.0
        for job in self.order:
            items, plan_s = self.plans[job]
            if job in self.finished:
                continue
            if job != self.current:
                left += plan_s + items * rate
            elif self.embed_started is None:  # its plan worked out again, then every item
                left += max(0.0, plan_s - (time.monotonic() - self.current_started))
                left += items * rate
            else:
                left += max(0, self.total - self.done) * rate
        return left


def _remembered_rate(path: Path | None) -> float | None:
    if path is None:
        return None
    try:
        rate = float(json.loads(path.read_text(encoding="utf-8"))["seconds_per_item"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rate if 0 < rate < 60 else None
