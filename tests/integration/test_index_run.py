"""One ``arr index`` per workspace at a time, said at once; and while it runs, a channel it has
not reached yet is "being built", not "run arr index"."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from arr import codes
from arr.models import Freshness
from arr.tools.build_progress import while_building
from arr.tools.index_run import one_index_run, running_pid


def test_a_second_run_says_whom_it_waits_for_then_runs(tmp_path: Path) -> None:
    said: list[str] = []
    order: list[str] = []
    entered, release = threading.Event(), threading.Event()

    def first() -> None:
        with one_index_run(tmp_path, said.append):
            entered.set()
            release.wait(10)
            order.append("first")

    def second() -> None:
        with one_index_run(tmp_path, said.append):
            order.append("second")

    one = threading.Thread(target=first)
    one.start()
    assert entered.wait(10)
    assert running_pid(tmp_path) == os.getpid()
    two = threading.Thread(target=second)
    two.start()
    deadline = time.monotonic() + 10
    while not said and time.monotonic() < deadline:
        time.sleep(0.01)
    assert said == [
        f"arr index: process {os.getpid()} is indexing this workspace; waiting for it to finish"
    ]
    assert order == []  # the second waits
    release.set()
    one.join(10)
    two.join(10)
    assert order == ["first", "second"] and running_pid(tmp_path) is None


def test_a_channel_not_reached_yet_is_being_built(tmp_path: Path) -> None:
    missing = Freshness(fresh=False, code=codes.INDEX_MISSING, detail="no vector index")
    vector_lock = tmp_path / "locks" / "vector-x.lock"
    assert while_building(missing, vector_lock, "vector", tmp_path) == missing
    with one_index_run(tmp_path, print):
        found = while_building(missing, vector_lock, "vector", tmp_path)
    assert found.code == codes.INDEX_BUILDING and "being built" in found.detail
    assert while_building(missing, vector_lock, "vector", tmp_path) == missing


def test_progress_on_a_pipe_is_plain_lines(tmp_path: Path, capsys, monkeypatch) -> None:
    from arr.tools import build_progress

    monkeypatch.setattr(build_progress, "PLAIN_EVERY_S", 0.0)
    with build_progress.build_progress(tmp_path / "v.lock", 300, True) as shown:
        for _ in range(3):
            shown.advance(100)
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.splitlines()
    assert lines[-1] == "embedding: 300 of 300 items embedded (100%)", lines
    assert len(lines) == 3
