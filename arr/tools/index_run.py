"""One ``arr index`` at a time per workspace, and said so: a second run started while one is
building says at once which process it waits for, then waits (Ctrl-C stops it, one line).

Each channel's own builds are already serialised by their locks (arr.tools.partition); this
lock is the whole run's, so two runs do not interleave their partitions and report the same
work twice, and a search can tell "an index run is under way" from "never indexed".
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from arr.tools.partition import IndexBusy, exclusive_lock, lock_held, without_waiting

LOCK_NAME = "arr-index.lock"


def run_lock(index_dir: Path) -> Path:
    return index_dir / "locks" / LOCK_NAME


def running_pid(index_dir: Path) -> int | None:
    """The process running ``arr index`` on this workspace now, else None."""
    lock = run_lock(index_dir)
    if not lock_held(lock):
        return None
    try:
        return int(lock.with_suffix(".pid").read_text().strip())
    except (OSError, ValueError):
        return -1  # held, by a process that has not written its id yet


def indexing_process(index_dir: Path) -> str | None:
    """``process 4242`` (``another process`` before it wrote its id) running ``arr index`` on
    this workspace now, else None."""
    pid = running_pid(index_dir)
    if pid is None:
        return None
    return f"process {pid}" if pid > 0 else "another process"


@contextlib.contextmanager
def one_index_run(index_dir: Path, say: Callable[[str], None]) -> Iterator[None]:
    lock = run_lock(index_dir)
    with contextlib.ExitStack() as held:
        try:
            with without_waiting():  # only this attempt: the run's own builds may wait
                held.enter_context(exclusive_lock(lock))
        except IndexBusy:
            who = indexing_process(index_dir) or "another process"
            say(f"arr index: {who} is indexing this workspace; waiting for it to finish")
            held.enter_context(exclusive_lock(lock))
        owner = lock.with_suffix(".pid")
        with contextlib.suppress(OSError):  # a read-only index folder: its builds say so
            owner.write_text(str(os.getpid()))
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                owner.unlink()
