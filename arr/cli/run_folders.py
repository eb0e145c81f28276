"""Bounded run folders for searches: each ``arr search`` writes one (its resolved config, log
and result.json), and an afternoon of searching left dozens. After a search, only the newest
``keep`` folders under ``<output_dir>/search/runs`` stay; with ``keep == 0`` not even the
search's own. Only folders named like a run stamp and holding only what a search writes are
removed: anything a user put there is left alone. Sweeps and eval runs are never pruned.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}-\d{6}$")
SEARCH_FILES = frozenset({"config.resolved.json", "result.json", "search.log", "job_status.json"})
MAX_KEEP = 10_000


def _only_search_files(folder: Path) -> bool:
    try:
        return all(entry.is_file() and entry.name in SEARCH_FILES for entry in folder.iterdir())
    except OSError:
        return False


def prune(current: Path, keep: int) -> int:
    """Remove all but the newest ``keep`` search run folders beside ``current`` (itself
    included when ``keep`` is 0); returns how many were removed. Never raises: a folder that
    cannot be removed is left for the next search."""
    try:
        stamped = sorted(p for p in current.parent.iterdir() if p.is_dir() and STAMP.match(p.name))
    except OSError:
        return 0
    removed = 0
    for folder in stamped[: max(0, len(stamped) - keep)]:
        if _only_search_files(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed += not folder.exists()
    return removed
