"""``arr index``'s whole-run clock: the time left counts every partition still to build, each
kind of item at its own rate, says nothing before it can know, and remembers this machine's
rates for the next run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arr.compose import run_clock
from arr.compose.run_clock import RunClock
from arr.tools.build_progress import duration

RATES = "index_rates.json"


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture()
def clock_time(monkeypatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr(run_clock.time, "monotonic", fake.monotonic)
    return fake


def test_nothing_is_said_while_the_lexical_channels_are_read(clock_time, tmp_path: Path) -> None:
    clock = RunClock(tmp_path / RATES)
    clock.starts("bm25 papers")
    clock_time.now += 5
    assert clock.left_s() is None and clock.rate() is None


def test_every_partition_still_to_build_is_counted(clock_time, tmp_path: Path) -> None:
    clock = RunClock(tmp_path / RATES)
    clock_time.now += 10  # the lexical channels
    clock.planned({"vector code": (1000, 2.0), "vector papers": (3000, 1.0)})
    clock.starts("vector code")
    assert clock.left_s() is None  # no rate yet: not a guess
    clock_time.now += 2.0  # the plan worked out again
    clock.begin(1000)
    clock_time.now += 5.0
    clock.advance(250)  # 0.02 s an item
    assert clock.rate() == pytest.approx(0.02)
    # 750 items of this partition + the next partition's plan and 3,000 items
    assert clock.left_s() == pytest.approx(750 * 0.02 + 1.0 + 3000 * 0.02)
    clock_time.now += 3.0  # counts down between reports
    assert clock.left_s() == pytest.approx(750 * 0.02 + 1.0 + 3000 * 0.02 - 3.0)
    assert clock.embedding() == (250, 4000)
    clock_time.now += 12.0
    clock.advance(750)
    clock.starts("vector papers")  # a rate over the finished partition: 20 s / 1,000 items
    assert clock.rate() == pytest.approx(0.02)
    assert clock.left_s() == pytest.approx(1.0 + 3000 * 0.02)
    assert clock.embedding() == (1000, 4000)


def test_a_run_with_nothing_to_embed_needs_no_rate(clock_time, tmp_path: Path) -> None:
    clock = RunClock(tmp_path / RATES)
    clock.planned({"vector code": (0, 0.4), "vector papers": (0, 0.6)})
    clock.starts("vector code")
    assert clock.left_s() == pytest.approx(1.0)


def test_the_rate_is_remembered_for_the_next_run(clock_time, tmp_path: Path) -> None:
    first = RunClock(tmp_path / RATES)
    assert first.remembered("onnx-int8") == set()
    first.planned({"vector code": ({"code": 500}, 0.1)})
    first.starts("vector code")
    first.begin(500, {"code": 500})
    clock_time.now += 10.0
    first.advance(500, [("code", 1.0)] * 500)
    first.remember()
    saved = json.loads((tmp_path / RATES).read_text())
    assert saved == {"onnx-int8": {"code": pytest.approx(0.02)}}
    second = RunClock(tmp_path / RATES)
    assert second.remembered("onnx-int8") == {"code"}
    second.planned({"vector code": ({"code": 100}, 0.5)})
    second.starts("vector code")
    # before its first batch the next run says something: the last run's rate
    assert second.left_s() == pytest.approx(0.5 + 100 * 0.02)
    assert RunClock(tmp_path / RATES).remembered("another-embedder") == set()  # per embedder


@pytest.mark.parametrize(
    "saved", ["{", '{"e": {"code": -1}}', '{"e": {"code": true}}', '{"e": []}', "[]"]
)
def test_a_bad_history_is_no_history(tmp_path: Path, saved: str) -> None:
    (tmp_path / RATES).write_text(saved)
    assert RunClock(tmp_path / RATES).remembered("e") == set()


def test_a_few_items_are_not_remembered(clock_time, tmp_path: Path) -> None:
    clock = RunClock(tmp_path / RATES)
    clock.remembered("e")
    clock.planned({"vector code": ({"code": 3}, 0.1)})
    clock.starts("vector code")
    clock.begin(3, {"code": 3})
    clock_time.now += 1.0
    clock.advance(3, [("code", 1.0)] * 3)
    clock.remember()
    assert not (tmp_path / RATES).exists()


def test_each_kind_is_counted_at_its_own_rate(clock_time, tmp_path: Path) -> None:
    """Cells remembered 3x faster than pages: the cells' scope measured 21% slower than
    remembered (a busier machine), so the pages still to come are counted 10% slower too (the
    pace's square root: a kind drifts on its own as well); a rate timed on a sample is taken
    as it is (a sample is not a batch)."""
    (tmp_path / RATES).write_text(json.dumps({"e": {"cell": 0.01, "page": 0.03}}))
    clock = RunClock(tmp_path / RATES)
    assert clock.remembered("e") == {"cell", "page"}
    plans = {
        "vector notebooks": ({"cell": 300}, 0.0),
        "vector papers": ({"page": 100}, 0.0),
        "vector code": ({"code": 50}, 0.0),
    }
    clock.planned(plans, {"code": 0.05})
    clock.starts("vector notebooks")
    assert clock.left_s() == pytest.approx(300 * 0.01 + 100 * 0.03 + 50 * 0.05)
    clock.begin(300, {"cell": 300})
    clock_time.now += 3.0  # the first 100 cells and the partition's start
    clock.advance(100, [("cell", 50.0)] * 100)
    assert clock.rate("cell") == pytest.approx(0.03)  # its own first batch: all it has of them
    assert clock.rate("page") == pytest.approx(0.03)  # a batch holding a start paces nothing
    clock_time.now += 1.21
    clock.advance(100, [("cell", 50.0)] * 100)  # 0.0121 s a cell
    assert clock.rate("cell") == pytest.approx(0.0121)
    assert clock.rate("page") == pytest.approx(0.033) and clock.rate("code") == 0.05
    start = 3.0 - 100 * 0.0121  # counted once for each partition to come
    assert clock.start_s == pytest.approx(start)
    left = 100 * 0.0121 + start + 100 * 0.033 + start + 50 * 0.05
    assert clock.left_s() == pytest.approx(left)
    assert clock.embedding() == (200, 450)


def test_a_mixed_batch_shares_its_time_by_length(clock_time, tmp_path: Path) -> None:
    clock = RunClock(tmp_path / RATES)
    clock.planned({"vector all": ({"cell": 10, "page": 10}, 0.0)})
    clock.starts("vector all")
    clock.begin(20, {"cell": 10, "page": 10})
    clock_time.now += 4.0
    clock.advance(20, [("cell", 100.0)] * 10 + [("page", 300.0)] * 10)
    assert clock.rate("cell") == pytest.approx(0.1) and clock.rate("page") == pytest.approx(0.3)


def test_an_interrupted_run_remembers_what_it_measured(
    clock_time, tmp_path: Path, monkeypatch
) -> None:
    """Ctrl-C half way: the run that resumes it starts from this machine's rates."""
    from arr.compose import indexing

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert run_clock.machine_rates() == tmp_path / "cache" / "arr" / RATES
    clock = RunClock(run_clock.machine_rates())
    clock.remembered("e")
    clock.planned({"vector code": ({"code": 100}, 0.0)})
    clock.starts("vector code")
    clock.begin(100, {"code": 100})
    clock_time.now += 2.0
    clock.advance(40, [("code", 1.0)] * 40)

    def interrupted(*args: object) -> list[object]:
        raise KeyboardInterrupt

    monkeypatch.setattr(indexing, "_build_all", interrupted)
    monkeypatch.setattr(indexing, "RunClock", lambda history: clock)
    from tests.conftest import SCOPE_A, file_workspace

    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"a.py": "x = 1\n"})
    with pytest.raises(KeyboardInterrupt):
        indexing.index_workspace(ws, {}, {"a": SCOPE_A}, progress=False)
    assert json.loads(run_clock.machine_rates().read_text()) == {"e": {"code": pytest.approx(0.05)}}


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(0.2, "1 s"), (8.4, "8 s"), (89, "89 s"), (100, "1 min 40 s"), (1300, "22 min")],
)
def test_durations_read_as_a_clock(seconds: float, said: str) -> None:
    assert duration(seconds) == said


def test_a_sampled_rate_speaks_before_the_first_batch(clock_time, tmp_path: Path) -> None:
    clock = RunClock(tmp_path / RATES)
    clock.planned({"vector code": (1000, 1.0)}, sampled=0.01)  # one rate for any kind
    clock.starts("vector code")
    assert clock.left_s() == pytest.approx(1.0 + 1000 * 0.01)
    clock.begin(1000)
    clock_time.now += 4.0
    clock.advance(200)  # measured: 0.02 s an item, the sample's guess replaced
    assert clock.left_s() == pytest.approx(800 * 0.02)


def test_a_partition_that_could_not_plan_leaves_the_others_counted_right(
    clock_time, tmp_path: Path
) -> None:
    clock = RunClock(tmp_path / RATES)
    # "vector b" could not say what it would embed: it is built, but not in the estimate
    clock.planned({"vector a": (100, 0.0), "vector c": (300, 0.5)}, sampled=0.01)
    clock.starts("vector a")
    clock.begin(100)
    clock_time.now += 1.0
    clock.advance(100)
    clock.starts("vector b")
    assert clock.left_s() == pytest.approx(0.5 + 300 * 0.01)  # "vector a" is done
    clock.starts("vector c")
    assert clock.left_s() == pytest.approx(0.5 + 300 * 0.01)


def test_plans_to_come_are_paced_by_how_long_the_builds_took_to_redo_theirs(
    clock_time, tmp_path: Path
) -> None:
    """A rebuild's plans were read cold when planned (2 s each) and warm when built (0.5 s)."""
    clock = RunClock(tmp_path / RATES)
    clock.planned({"vector a": ({"code": 10}, 2.0), "vector b": ({"code": 10}, 2.0)}, 0.1)
    clock.starts("vector a")
    clock_time.now += 0.5
    clock.begin(10, {"code": 10})
    assert clock.left_s() == pytest.approx(10 * 0.1 + 0.5 + 10 * 0.1)


def test_a_partitions_start_is_not_a_rate_of_its_items(clock_time, tmp_path: Path) -> None:
    """A partition's first batch holds its start (the model's first call, its texts cut into
    passages): once a second batch is in, the rate is the later batches' and the start is
    counted once for each partition still to begin. Before, a run stopped after two batches
    remembered pages 40% too slow, and the run resuming it said 31 s for 22."""
    clock = RunClock(tmp_path / RATES)
    clock.remembered("e")
    clock.planned({"vector papers": ({"page": 384}, 0.0), "vector more": ({"page": 256}, 0.0)})
    clock.starts("vector papers")
    clock.begin(384, {"page": 384})
    clock_time.now += 4.0  # 128 pages and a 2 s start
    clock.advance(128, [("page", 1.0)] * 128)
    assert clock.rate("page") == pytest.approx(4.0 / 128)  # one batch: all there is to go by
    clock_time.now += 2.0
    clock.advance(128, [("page", 1.0)] * 128)
    assert clock.rate("page") == pytest.approx(2.0 / 128) and clock.start_s == pytest.approx(2.0)
    # 128 pages of this partition, then the next partition's start and its 256 pages
    assert clock.left_s() == pytest.approx(128 * 2.0 / 128 + 2.0 + 256 * 2.0 / 128)
    clock_time.now += 2.0
    clock.advance(128, [("page", 1.0)] * 128)
    clock_time.now += 1.0  # its manifest and snapshot: the partition's finish, not a rate
    clock.starts("vector more")
    assert clock.finish_s == pytest.approx(1.0) and clock.rate("page") == pytest.approx(2.0 / 128)
    assert clock.left_s() == pytest.approx(2.0 + 1.0 + 256 * 2.0 / 128)
    clock.remember()
    saved = json.loads((tmp_path / RATES).read_text())
    assert saved == {"e": {"page": pytest.approx(2.0 / 128)}}  # not (4 + 2 + 2 + 1) / 384


def test_a_stopped_partitions_batch_in_flight_is_not_remembered(clock_time, tmp_path) -> None:
    """Ctrl-C during a batch: the time since the last batch stored held no stored item."""
    clock = RunClock(tmp_path / RATES)
    clock.remembered("e")
    clock.planned({"vector papers": ({"page": 512}, 0.0)})
    clock.starts("vector papers")
    clock.begin(512, {"page": 512})
    for _ in range(3):
        clock_time.now += 2.0
        clock.advance(128, [("page", 1.0)] * 128)
    clock_time.now += 1.5  # the fourth batch, stopped
    clock.remember()
    saved = json.loads((tmp_path / RATES).read_text())
    assert saved == {"e": {"page": pytest.approx(2.0 / 128)}}


def test_a_partition_of_one_batch_paces_nothing(clock_time, tmp_path: Path) -> None:
    """A resumed run's 87 cells in one batch, the model's first call in it: that batch is the
    cells' start as much as their rate, so it neither paces the kinds to come (before: every
    one counted 19% slower, the code said 47 s for 37) nor replaces the cells' remembered
    rate."""
    (tmp_path / RATES).write_text(json.dumps({"e": {"cell": 0.0072, "code": 0.0186}}))
    clock = RunClock(tmp_path / RATES)
    clock.remembered("e")
    clock.planned({"vector cells": ({"cell": 87}, 0.0), "vector code": ({"code": 1155}, 0.0)})
    clock.starts("vector cells")
    clock.begin(87, {"cell": 87})
    clock_time.now += 1.3  # 87 cells at 0.0072 s (0.63 s) and 0.67 s of start
    clock.advance(87, [("cell", 1.0)] * 87)
    assert clock.rate("cell") == pytest.approx(1.3 / 87)  # its own batch: what it has of cells
    assert clock.rate("code") == pytest.approx(0.0186)
    clock_time.now += 0.2
    clock.starts("vector code")
    clock.begin(1155, {"code": 1155})
    assert clock.rate("code") == pytest.approx(0.0186)
    assert clock.left_s() == pytest.approx(1155 * 0.0186 + clock.finish_s)
    clock.remember()
    saved = json.loads((tmp_path / RATES).read_text())
    assert saved["e"]["cell"] == pytest.approx(0.0072)


def test_no_time_left_is_said_until_every_partition_is_planned(clock_time, tmp_path) -> None:
    """Planning partition by partition, the first one's plan alone is not the run: a resumed
    run said 1 s left for 25 while its later partitions were still being worked out. Kinds
    timed on a sample are known to the partitions planned after."""
    from arr.compose.indexing import plan_semantic
    from arr.tools.contract import Pending

    clock = RunClock(tmp_path / RATES)
    said: list[float | None] = []

    class Channel:
        def __init__(self, kinds: dict[str, int]) -> None:
            self.kinds = kinds

        def rate_key(self) -> str:
            return "e"

        def pending(self, scope, rebuild=False, sample=0, known=()) -> Pending:
            said.append(clock.left_s())
            rates = {kind: 0.01 for kind in self.kinds if kind not in known}
            return Pending(sum(self.kinds.values()), kinds=self.kinds, kind_rates=rates)

    jobs = [
        (True, "vector", Channel({"cell": 87}), "cells", None),
        (True, "vector", Channel({"cell": 10, "code": 1155}), "code", None),
    ]
    plan_semantic(clock, jobs, rebuild=False)
    assert said == [None, None]  # nothing said with one partition planned of two
    assert clock.sampled == {"cell": 0.01, "code": 0.01}
    assert clock.left_s() == pytest.approx((87 + 10 + 1155) * 0.01, abs=0.01)
