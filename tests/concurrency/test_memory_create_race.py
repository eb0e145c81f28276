"""Processes that make one new memory database at once (a sweep's parallel jobs, each building
its indexes) all get it: the journal switch and the schema take locks SQLite does not wait
for, and one job of a joblib sweep failed "locked by another writer" (seen in the suite at
load). Each round: six processes released together on a fresh path."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PROCESSES = 6
ROUNDS = 8


def _initialise(path: str, start: object, failures: object) -> None:
    from arr.errors import MemoryStoreError
    from arr.memory.store import ResearchMemoryStore

    start.wait()  # type: ignore[attr-defined]
    try:
        ResearchMemoryStore(path).initialise()
    except MemoryStoreError as exc:
        failures.put(str(exc))  # type: ignore[attr-defined]


def test_processes_making_one_new_database_all_get_it(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    failures = context.Queue()
    for round_ in range(ROUNDS):
        path = str(tmp_path / f"round{round_}" / "memory.sqlite3")
        start = context.Barrier(PROCESSES)
        workers = [
            context.Process(target=_initialise, args=(path, start, failures))
            for _ in range(PROCESSES)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
            assert worker.exitcode == 0
    found = []
    while not failures.empty():
        found.append(failures.get())
    assert found == []
