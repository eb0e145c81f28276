"""``arr index``'s whole-run clock: one estimate of the time left across every stage.

The lexical channels (memory, grep, bm25) are read first; what they cost on a tree never
indexed cannot be known before they have read it, so until then the clock says nothing rather
than guess. When they are ready, every semantic partition is asked what it would embed, by
kind of item (notebook cells, PDF pages, code, prose: arr.tools.item_kinds), timed
(:meth:`VectorTool.pending`: the build works its plan out again at that cost) before the first
is built, so the time left counts every passage of the run, each kind at its own rate:

    left = the current build's plan still to redo + its items left of each kind x its rate
           + for each partition not started: its plan time + its items of each kind x rate
           + a partition's start (until its first batch is in) and finish (after its last)

A kind's rate (seconds per embedded item, batches stored included) is, in order: what this
run's batches measured for it (a batch of several kinds shares its time by the items' length);
else what this machine remembered for it (``$XDG_CACHE_HOME/arr/index_rates.json``, per
embedder, written at the end of every run, an interrupted one too), scaled by how this run
compares with the remembered rates of the kinds it has measured (a loaded machine is slower
for every kind; carried in part, as its square root: a kind drifts on its own too); else the
rate timed on a small sample of the kind's items (8 a kind, once a run) when it was planned,
as it is. Between reports the estimate counts down with the wall clock.

A partition's first batch costs more than its items: the model's first call, the partition's
texts read and cut into passages before the first is embedded (2-5 s on 2 cores against 2 s for
a later batch of 128). Counted per item, that start made a kind's rate from a short run (an
interrupted one: 256 pages) 40% too slow, and the run that resumed it said 31 s for 22. So a
partition's first batch is held apart: its own kind's rate until a second batch is stored (all
there is to go by), never the pace of other kinds, and remembered only for a kind the machine
knows no rate of; once the second batch is in, what the first took beyond its items at the
measured rates is the partition's start, counted once for each partition still to begin (the
latest start measured: the first partition's holds the model's load, once a run).
Its work after the last batch (manifest, read snapshot, a rebuild's swap: the whole
partition's, however few items this run embedded) is its finish, counted the same way; a
stopped partition has none.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from arr import atomic_write

MIN_ITEMS_REMEMBERED = 32  # a kind's rate measured on fewer items is noise: not kept
MIN_ITEMS_MEASURED = 8  # items of a kind this run times before its own rate replaces others
PACE_CARRIED = 0.5  # the share (as a power) of one kind's pace carried to another: _pace
ANY = ""  # the kind of items nobody named (a plan or a build that gave only a count)
Plan = tuple[int | Mapping[str, int], float]  # (items to embed, or items by kind; plan seconds)


def machine_rates() -> Path:
    """Where this machine's rates are remembered (derived: losing them costs a sample)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "arr" / "index_rates.json"


class RunClock:
    def __init__(self, history: Path | None = None) -> None:
        self.history = history  # the machine's remembered rates (None: nothing remembered)
        self.key = ""  # what the rates depend on: the embedder (Plans.rate_key)
        self.kept: dict[str, float] = {}  # kind: seconds per item this machine remembered
        self.sampled: dict[str, float] = {}  # kind: seconds per item timed on a sample
        self.started = time.monotonic()
        self.plans: dict[str, tuple[dict[str, int], float]] = {}  # job: (items by kind, plan s)
        self.order: list[str] = []
        self.current: str | None = None
        self.finished: set[str] = set()
        self.current_started = 0.0
        self.embed_started: float | None = None  # this partition's first item asked of the model
        self.batch_started = 0.0  # the current batch's first item asked of the model
        self.total: dict[str, int] = {}  # items of the current partition, by kind
        self.done: dict[str, int] = {}
        self.measured: dict[str, list[float]] = {}  # kind: [seconds, items] this run
        # kind: [seconds, items] of partitions' first batches no second batch told the start
        # apart from (a partition of one batch): a rate where nothing else tells the kind's
        self.openings: dict[str, list[float]] = {}
        self.plans_redone = [0.0, 0.0]  # [seconds the builds took to redo plans, as planned]
        self.embedded = 0  # items of finished partitions
        # the current partition's first batch: (seconds, (kind, weight) of each item), taken
        # out of the rates when a second batch comes; None before it and after that
        self._opening: tuple[float, list[tuple[str, float]]] | None = None
        self.start_s = 0.0  # seconds a partition's first batch took beyond its items' rates
        self.finish_s = 0.0  # seconds a partition took after its last batch
        self._estimate: tuple[float, float] | None = None  # (seconds left, when said)

    # ---- told by arr index -------------------------------------------------------------------
    def remembered(self, key: str) -> set[str]:
        """The kinds whose rate this machine remembers for ``key`` (read once a run)."""
        if key != self.key:
            self.key = key
            self.kept = {**_remembered_rates(self.history, key), **self.kept}
        return set(self.kept) | set(self.sampled)

    def planned(
        self, plans: Mapping[str, Plan], sampled: float | Mapping[str, float] | None = None
    ) -> None:
        """Each semantic partition's (items to embed, by kind or a count, seconds its plan
        took), in build order; ``sampled``: seconds per item of each kind timed on a sample of
        them (a number: one rate for any kind), for kinds no rate was remembered for."""
        self.timed(sampled)
        self.plans = {job: (_by_kind(items), plan_s) for job, (items, plan_s) in plans.items()}
        self.order = list(plans)
        self._update()

    def timed(self, sampled: float | Mapping[str, float] | None) -> None:
        """Seconds per item of each kind timed on a sample while the partitions are still
        being planned (a number: one rate for any kind): the partitions planned later need not
        time these kinds. No time left is said until :meth:`planned` has them all: with the
        first partition's plan alone a resumed run said 1 s left for 25."""
        if isinstance(sampled, (int, float)):
            sampled = {ANY: float(sampled)}
        for kind, rate in (sampled or {}).items():
            self.sampled.setdefault(kind, rate)

    def starts(self, job: str) -> None:
        self._finish_partition()
        if self.current is not None:
            self.finished.add(self.current)
        self.current, self.current_started = job, time.monotonic()
        self._update()

    # ---- told by the build (arr.tools.build_progress.Listener) --------------------------------
    def begin(self, total: int, kinds: Mapping[str, int] | None = None) -> None:
        self.embed_started = self.batch_started = time.monotonic()
        if self.current in self.plans:  # how long its plan took again, against the planning
            self.plans_redone[0] += self.embed_started - self.current_started
            self.plans_redone[1] += self.plans[self.current][1]
        self.total = _by_kind(dict(kinds) if kinds else total)
        self.done = {}
        self._update()

    def advance(self, count: int, shares: Sequence[tuple[str, float]] = ()) -> None:
        """``count`` items stored; ``shares``: (kind, weight) of each, how the batch's time is
        shared among its kinds (none: ``count`` items of no named kind)."""
        now = time.monotonic()
        spent, self.batch_started = now - self.batch_started, now
        parts = list(shares) or [(ANY, 1.0)] * count
        first = not any(self.done.values())
        for kind, _ in parts:
            self.done[kind] = self.done.get(kind, 0) + 1
        # the first batch is held apart: its kind's rate until a second batch, never the pace
        # of other kinds nor remembered (a partition of one batch, 87 cells and the model's
        # first call, made every kind still to come 19% slower)
        if first:
            self._opening = (spent, parts)
        else:
            _add(self.measured, _tally(spent, parts))
        if not first and self._opening is not None:  # its excess over the rates is the start
            opening, self._opening = self._opening, None
            expected = sum(self.rate(kind) or 0.0 for kind, _ in opening[1])
            self.start_s = max(0.0, opening[0] - expected)
        self._update()

    def _opening_tally(self) -> dict[str, list[float]]:
        """The current partition's first batch by kind, while no second batch has told its
        start apart: kind: [seconds, items]."""
        return _tally(*self._opening) if self._opening is not None else {}

    # ---- read by the bar ---------------------------------------------------------------------
    def rate(self, kind: str | None = None) -> float | None:
        """Seconds per embedded item of ``kind`` (None: of any kind): this run's, else the
        remembered or sampled one scaled to this run's pace, else unknown."""
        if kind is None:
            every_batch = self._with_openings()
            seconds = sum(s for s, _ in every_batch.values())
            items = sum(n for _, n in every_batch.values())
            if items:
                return seconds / items
            every = [*self.kept.values(), *self.sampled.values()]
            return sum(every) / len(every) if every else None
        seconds, items = self.measured.get(kind, (0.0, 0))
        if items >= MIN_ITEMS_MEASURED:
            return seconds / items
        # the current partition's first batch, its start in it: this kind's own measure
        opening_s, opening_items = self._opening_tally().get(kind, (0.0, 0))
        if items + opening_items >= MIN_ITEMS_MEASURED:
            return (seconds + opening_s) / (items + opening_items)
        kept = self.kept.get(kind)
        if kept is not None:
            return kept * self._pace()
        # a sample is taken as it is: a few texts in one call are not a batch, and how a batch
        # of a kind compares with its sample depends on the kind (short cells gain, long
        # passages lose: 0.54x and 1.06-1.25x on 2 cores), so no other kind's pace applies
        sampled = self.sampled.get(kind, self.sampled.get(ANY))
        if sampled is not None:
            return sampled
        seconds, items = self._with_openings().get(kind, (0.0, 0))
        if items:
            return seconds / items
        return self.rate()

    def _with_openings(self) -> dict[str, list[float]]:
        """Every batch of this run by kind, first batches (their starts in them) included."""
        every: dict[str, list[float]] = {}
        for tally in (self.measured, self.openings, self._opening_tally()):
            _add(every, tally)
        return every

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
        total = sum(sum(kinds.values()) for kinds, _ in self.plans.values())
        return self.embedded + sum(self.done.values()), total

    def remember(self) -> None:
        """Each kind's rate this run measured on enough items, for the next run on this
        machine (best effort; an interrupted run's too)."""
        self._finish_partition()
        # a kind's later batches; else, for a kind with no rate remembered, its first ones,
        # starts and all (a remembered rate is truer than one holding a start)
        firsts = {k: v for k, v in self._with_openings().items() if k not in self.kept}
        rates = {}
        for measure in (firsts, self.measured):
            for kind, (seconds, items) in measure.items():
                if items >= MIN_ITEMS_REMEMBERED and seconds > 0 and kind != ANY:
                    rates[kind] = seconds / items
        if self.history is None or not rates or not self.key:
            return
        with contextlib.suppress(OSError):
            every = _read(self.history)
            every[self.key] = {**every.get(self.key, {}), **rates}
            self.history.parent.mkdir(parents=True, exist_ok=True)
            atomic_write.write_text(self.history, json.dumps(every, indent=1, sort_keys=True))

    # ---- the estimate ------------------------------------------------------------------------
    def _pace(self) -> float:
        """How this run compares with the rates this machine remembered, over the kinds it has
        measured, carried to the kinds it has not in part (its square root: 1.3x measured,
        1.14x carried); 1 before it has measured any. Carried whole, a kind's own drift
        counted for every other: a rebuild's cells ran 1.3x their remembered rate while its
        code, pages and prose ran 0.92-1.0x theirs, and the code still to come was said 36%
        too slow; a machine twice as busy for every kind is said 29% too fast until each
        kind's own batches are in."""
        seconds = expected = 0.0
        for kind, (spent, items) in self.measured.items():
            known = self.kept.get(kind)
            if known is not None and items:
                seconds, expected = seconds + spent, expected + items * known
        return (seconds / expected) ** PACE_CARRIED if expected > 0 else 1.0

    def _plan_pace(self) -> float:
        """How long the builds took to work their plans out again against how long planning
        took (a rebuild's plan is read from warm caches: 0.3x), 1 before any build began."""
        redone, planned = self.plans_redone
        return redone / planned if planned > 0 and redone > 0 else 1.0

    def _finish_partition(self) -> None:
        """The partition's work after its last batch (its manifest, read snapshot, a
        rebuild's swap) is its finish, counted once for each partition still to finish, as its
        start is: not a rate of the items this run embedded (a resumed run embedded 87 cells
        and wrote the whole partition's snapshot: counted per cell, it made every kind still to
        come 47% slower). A stopped partition has no finish: its time since the last batch is
        a batch whose items never came."""
        if self.embed_started is not None:
            items = sum(self.done.values())
            if items and items >= sum(self.total.values()):
                self.finish_s = time.monotonic() - self.batch_started
            self.embedded += items
        # a first batch no second one followed (a partition of one batch) joins ``openings``
        _add(self.openings, self._opening_tally())
        self._opening = None
        self.embed_started, self.total, self.done = None, {}, {}

    def _update(self) -> None:
        left = self._left_now()
        self._estimate = None if left is None else (left, time.monotonic())

    def _items_left(self) -> list[tuple[dict[str, int], float]]:
        """(items left by kind, plan seconds left) of each partition not finished."""
        left = []
        for job in self.order:
            kinds, plan_s = self.plans[job]
            if job in self.finished:
                continue
            # a partition with items to embed has its start to come, until its first batch is
            # in, and its finish
            ends = self.start_s + self.finish_s if any(kinds.values()) else 0.0
            if job != self.current:
                left.append((kinds, plan_s * self._plan_pace() + ends))
            elif self.embed_started is None:  # its plan worked out again, then every item
                redo = max(0.0, plan_s - (time.monotonic() - self.current_started))
                left.append((kinds, redo + ends))
            else:
                total = self.total or kinds
                rest = {k: max(0, n - self.done.get(k, 0)) for k, n in total.items()}
                start = 0.0 if any(self.done.values()) else self.start_s
                left.append((rest, start + self.finish_s if any(total.values()) else 0.0))
        return left

    def _left_now(self) -> float | None:
        if not self.plans:
            return None  # the lexical channels are still being read
        seconds = 0.0
        for kinds, plan_s in self._items_left():
            seconds += plan_s
            for kind, items in kinds.items():
                if not items:
                    continue
                rate = self.rate(kind)
                if rate is None:
                    return None  # not a guess
                seconds += items * rate
        return seconds


def _tally(spent: float, parts: Sequence[tuple[str, float]]) -> dict[str, list[float]]:
    """A batch by kind, kind: [seconds, items], its time shared among its items by their
    weights (their length)."""
    weight = sum(w for _, w in parts) or 1.0
    tally: dict[str, list[float]] = {}
    for kind, share in parts:
        seconds_items = tally.setdefault(kind, [0.0, 0])
        seconds_items[0] += spent * share / weight
        seconds_items[1] += 1
    return tally


def _add(into: dict[str, list[float]], tally: Mapping[str, Sequence[float]]) -> None:
    """``tally``'s seconds and items added to ``into``'s, kind by kind."""
    for kind, (seconds, items) in tally.items():
        seconds_items = into.setdefault(kind, [0.0, 0])
        seconds_items[0] += seconds
        seconds_items[1] += items


def _by_kind(items: int | Mapping[str, int]) -> dict[str, int]:
    return {ANY: items} if isinstance(items, int) else dict(items)


def _read(path: Path) -> dict[str, dict[str, float]]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _remembered_rates(path: Path | None, key: str) -> dict[str, float]:
    """The rates this machine remembered for ``key``; a bad entry is no entry."""
    found = _read(path).get(key) if path is not None else None
    if not isinstance(found, dict):
        return {}
    rates = {}
    for kind, rate in found.items():
        if isinstance(rate, (int, float)) and not isinstance(rate, bool) and 0 < rate < 60:
            rates[str(kind)] = float(rate)
    return rates
