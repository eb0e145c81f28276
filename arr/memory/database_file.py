"""The memory database file: refused when it is a link (the published memory a config names
must be the file at that path), and its SQLite failures named by cause."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from arr import codes
from arr.errors import MemoryStoreError

# Below this many free bytes, an SQLite failure is reported as a full disk (SQLite itself
# often says only "disk I/O error" when it cannot create the WAL index on a full device).
LOW_SPACE_BYTES = 1 << 20


def database_failure(path: Path, exc: sqlite3.Error) -> MemoryStoreError:
    """The cause of an SQLite failure, named: a full disk, a lock held too long, an I/O error
    or a damaged file, never "corrupt" for what is not corruption."""
    text = str(exc)
    try:
        stats = os.statvfs(path.parent if path.parent.exists() else Path("."))
        free: int | None = stats.f_bavail * stats.f_frsize
    except OSError:
        free = None
    lowered = text.lower()
    if "full" in lowered or (free is not None and free < LOW_SPACE_BYTES):
        shown = f"{free} bytes free" if free is not None else "free space unknown"
        return MemoryStoreError(
            f"no space left for memory database {str(path)!r} ({shown}; SQLite: {text}); "
            "nothing stored was changed - free space and retry",
            codes.DISK_FULL,
        )
    if "locked" in lowered or "busy" in lowered:
        return MemoryStoreError(
            f"memory database {str(path)!r} is locked by another writer ({text}); retry",
            codes.MEMORY_DB_LOCKED,
        )
    if "i/o" in lowered or "readonly" in lowered or "unable to open" in lowered:
        return MemoryStoreError(
            f"memory database {str(path)!r} cannot be read or written: {text}",
            codes.MEMORY_DB_IO_ERROR,
        )
    return MemoryStoreError(
        f"memory database {str(path)!r} is unusable: {text}", codes.MEMORY_DB_CORRUPT
    )


def file_state(path: Path) -> os.stat_result | None:
    """The database file's own state (None: absent), in one lstat.

    Decision: the memory database is refused when it is a symbolic link or has other
    hard links, as grep refuses such files: the published memory a config names must be
    the file at that path, not something a link (possibly planted later) leads to."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MemoryStoreError(
            f"memory database {str(path)!r}: {exc.strerror}", codes.MEMORY_DB_IO_ERROR
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise MemoryStoreError(
            f"memory database {str(path)!r} is a symbolic link; name the file itself "
            "in the config (links are refused)",
            codes.MEMORY_DB_LINKED,
        )
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        raise MemoryStoreError(
            f"memory database {str(path)!r} has {info.st_nlink} hard links; use a file "
            "of its own (copy it) - linked files are refused",
            codes.MEMORY_DB_LINKED,
        )
    return info
