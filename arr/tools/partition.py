"""Per-scope index partitions on disk, swapped in atomically.

Layout: ``<index_dir>/<scope fingerprint>/CURRENT`` names the live generation folder
(``gen-<ns>``) next to it; each generation holds the index files and ``manifest.json``. A build
writes a new generation, then replaces ``CURRENT`` with ``os.replace`` (atomic on POSIX), so a
reader sees the old index or the new one, never half of one; a crashed build leaves only an
orphan folder that the next build removes. Builds of one partition are serialised with an
exclusive ``flock``; readers take no lock at all. Used by the bm25 channel.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Generic, TypeVar

from arr.models import ScopeKey

MANIFEST = "manifest.json"
POINTER = "CURRENT"
LOCK = "build.lock"


def partition_dir(index_dir: Path, scope: ScopeKey) -> Path:
    return index_dir / scope.fingerprint()


def remove_partition(index_dir: Path, scope: ScopeKey) -> None:
    """Remove a scope's partition (derived data) so the next build starts from nothing."""
    shutil.rmtree(partition_dir(index_dir, scope), ignore_errors=True)


def pointer_state(index_dir: Path, scope: ScopeKey) -> tuple[int, int] | None:
    """(inode, mtime) of the pointer file: changes on every swap, costs one stat."""
    try:
        info = os.stat(partition_file(str(index_dir), scope.fingerprint(), POINTER))
    except FileNotFoundError:
        return None
    return info.st_ino, info.st_mtime_ns


@functools.lru_cache(maxsize=1024)
def partition_file(index_dir: str, fingerprint: str, name: str) -> str:
    """A file of a scope's partition folder as a string, joined once: pathlib joins cost
    more than the stat the freshness check and every search make on it."""
    return os.path.join(index_dir, fingerprint, name)


_T = TypeVar("_T")


class ByPointer(Generic[_T]):
    """Per scope, a value derived from the live generation (the folder itself, a loaded
    index), derived again only when the pointer moved: one stat per look-up, no re-read
    while the same build is live."""

    def __init__(self, index_dir: Path, derive: Callable[[Path | None], _T]) -> None:
        self.index_dir = index_dir
        self._derive = derive
        self._values: dict[str, tuple[tuple[int, int] | None, _T]] = {}
        self._lock = threading.Lock()

    def get(self, scope: ScopeKey) -> _T:
        key = scope.fingerprint()
        state = pointer_state(self.index_dir, scope)
        with self._lock:
            cached = self._values.get(key)
        if cached is not None and cached[0] == state:
            return cached[1]
        generation = current_generation(self.index_dir, scope) if state is not None else None
        value = self._derive(generation)
        with self._lock:
            self._values[key] = (state, value)
        return value

    def forget(self, scope: ScopeKey) -> None:
        with self._lock:
            self._values.pop(scope.fingerprint(), None)

    def __len__(self) -> int:
        return len(self._values)


def current_generation(index_dir: Path, scope: ScopeKey) -> Path | None:
    """The live generation folder of a scope, or None when no complete build exists."""
    base = partition_dir(index_dir, scope)
    try:
        name = (base / POINTER).read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not name.startswith("gen-") or "/" in name:
        return None
    generation = base / name
    return generation if (generation / MANIFEST).is_file() else None


def read_manifest(generation: Path) -> dict[str, Any]:
    return json.loads((generation / MANIFEST).read_text(encoding="utf-8"))


def build_generation(
    index_dir: Path, scope: ScopeKey, manifest: dict[str, Any], write: Callable[[Path], None]
) -> Path:
    """Write a new generation with ``write(folder)``, then swap it in and clean up old ones."""
    base = partition_dir(index_dir, scope)
    base.mkdir(parents=True, exist_ok=True)
    # One builder per partition at a time (other processes wait), so the cleanup below can
    # never remove a generation that another build is still writing.
    with exclusive_lock(base / LOCK):
        return _build_locked(base, manifest, write)


class IndexBusy(Exception):
    """Another process (or thread) holds the scope's build lock and this caller may not wait."""


# Set while a search refreshes an index: a search never waits for a build to finish.
_NO_WAIT: ContextVar[bool] = ContextVar("arr_lock_no_wait", default=False)


@contextmanager
def without_waiting() -> Iterator[None]:
    """Inside: every ``exclusive_lock`` that is held elsewhere raises IndexBusy at once."""
    token = _NO_WAIT.set(True)
    try:
        yield
    finally:
        _NO_WAIT.reset(token)


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """An inter-process exclusive lock on ``path`` (created if needed), released on exit; under
    ``without_waiting`` a lock held elsewhere raises IndexBusy instead of blocking."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (fcntl.LOCK_NB if _NO_WAIT.get() else 0))
        except BlockingIOError:
            raise IndexBusy(f"an index build holds {path.name}; not waiting for it") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def lock_held(lock: Path) -> bool:
    """Whether a process (or another open of it in this one) holds ``exclusive_lock(lock)`` now;
    never blocks, never creates the file."""
    try:
        handle = open(lock, "rb")  # noqa: SIM115 - closed below, after the probe
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def _build_locked(base: Path, manifest: dict[str, Any], write: Callable[[Path], None]) -> Path:
    generation = base / f"gen-{time.time_ns()}-{os.getpid()}"
    generation.mkdir()
    try:
        previous = (base / POINTER).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        previous = ""
    try:
        write(generation)
        tmp_manifest = generation / (MANIFEST + ".tmp")
        tmp_manifest.write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")
        os.replace(tmp_manifest, generation / MANIFEST)
        tmp_pointer = base / f"{POINTER}.tmp-{os.getpid()}"
        tmp_pointer.write_text(generation.name, encoding="utf-8")
        os.replace(tmp_pointer, base / POINTER)
    except BaseException:
        shutil.rmtree(generation, ignore_errors=True)
        raise
    _remove_stale(base, keep={generation.name, previous})
    return generation


def _remove_stale(base: Path, keep: set[str]) -> None:
    # The previous generation stays one more build: a reader that read the pointer just before
    # the swap still finds it. Readers that already opened files keep them (POSIX semantics).
    for entry in base.iterdir():
        if entry.name not in keep and entry.name.startswith("gen-"):
            shutil.rmtree(entry, ignore_errors=True)
        elif entry.name.startswith(f"{POINTER}.tmp-"):
            entry.unlink(missing_ok=True)
