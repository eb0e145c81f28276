"""Disk hygiene of an embedded Chroma store: Chroma leaves a deleted collection's segment
folders on disk; they are removed after a rebuild is swapped in or given up."""

from __future__ import annotations

import re
import shutil
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path

from arr.tools.partition import IndexBusy


def prune_segments(path: Path, lock: AbstractContextManager[object]) -> int:
    """Remove the store's segment folders that no collection owns (left by deleted
    collections); returns how many. Embedded stores only; never fails a build."""
    uuid = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
    database = path / "chroma.sqlite3"
    removed = 0
    try:
        with lock:
            folders = [p for p in path.iterdir() if p.is_dir() and uuid.match(p.name)]
            if not folders or not database.is_file():
                return 0
            reader = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
            try:
                owned = {row[0] for row in reader.execute("SELECT id FROM segments")}
            finally:
                reader.close()
            for folder in folders:
                if folder.name not in owned:
                    shutil.rmtree(folder, ignore_errors=True)
                    removed += 1
    except (OSError, sqlite3.Error, IndexBusy):
        return removed  # a later rebuild prunes what this one could not
    return removed
