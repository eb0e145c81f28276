"""What the BM25 channel remembers between calls of a long-lived router, each entry bounded
and re-read only when its file changed: generation manifests and file lists (a generation
never changes once written), the live pointer, the overlay and the last walk of the sources."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from arr.models import ScopeKey
from arr.tools.bm25 import overlay
from arr.tools.partition import ByPointer, partition_file, read_manifest
from arr.workspace.sources import SourceFile
from arr.workspace.workspace import Workspace

MAX_CACHED_GENERATIONS = 16  # per-generation caches (manifests, file lists) keep the newest
FILES_FILE = "files.json"  # label -> [[size, mtime_ns], first row, chunk count]


def _bounded_put(cache: dict[Path, Any], key: Path, value: Any) -> None:
    # A server lives for days and sees a generation per rebuild: keep the newest.
    while len(cache) >= MAX_CACHED_GENERATIONS:
        cache.pop(next(iter(cache)))
    cache[key] = value


class GenerationCache:
    def __init__(self, index_dir: Path, workspace: Workspace) -> None:
        self.index_dir = index_dir
        self.workspace = workspace
        self.manifests: dict[Path, dict[str, Any]] = {}
        self.entries: dict[Path, dict[str, list[Any]]] = {}
        self.pointers: ByPointer[Path | None] = ByPointer(index_dir, lambda found: found)
        self.overlays: dict[str, tuple[Any, overlay.Overlay | None]] = {}
        self.walks: dict[str, tuple[float, list[SourceFile]]] = {}
        self.lock = threading.Lock()

    def forget(self, scope: ScopeKey, pointer: bool = False) -> None:
        """Drop what was remembered of a scope's overlay (and pointer) after a build."""
        with self.lock:
            self.overlays.pop(scope.fingerprint(), None)
        if pointer:
            self.pointers.forget(scope)

    def manifest(self, generation: Path) -> dict[str, Any]:
        """A generation's manifest (read once: a generation never changes once written)."""
        with self.lock:
            cached = self.manifests.get(generation)
        if cached is None:
            cached = read_manifest(generation)
            with self.lock:
                _bounded_put(self.manifests, generation, cached)
        return cached

    def file_entries(self, generation: Path) -> dict[str, list[Any]] | None:
        """label -> [[size, mtime_ns], first row, chunk count] of a generation (read once)."""
        with self.lock:
            cached = self.entries.get(generation)
        if cached is None:
            try:
                cached = json.loads((generation / FILES_FILE).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            with self.lock:
                _bounded_put(self.entries, generation, cached)
        return cached

    def generation(self, scope: ScopeKey) -> Path | None:
        """The live generation; the pointer is re-read only when its inode or mtime changed."""
        return self.pointers.get(scope)

    def overlay(self, scope: ScopeKey, generation: Path) -> overlay.Overlay | None:
        """The live overlay of the generation, re-read only when its file changed."""
        key = scope.fingerprint()
        where = partition_file(str(self.index_dir), key, overlay.OVERLAY_FILE)
        try:
            info = os.stat(where)
            state: tuple[int, int, int] | None = (info.st_ino, info.st_mtime_ns, info.st_size)
        except OSError:
            state = None
        with self.lock:
            cached = self.overlays.get(key)
        if cached is not None and cached[0] == (generation, state):
            return cached[1]
        path = Path(where)
        found = overlay.read(path.parent, generation.name) if state is not None else None
        with self.lock:
            self.overlays[key] = ((generation, state), found)
        return found

    def walk(self, scope: ScopeKey, reuse_s: float = 0.0) -> list[SourceFile]:
        """The scope's source files; with ``reuse_s``, the last walk if it is that recent (a
        refresh right after the freshness check of the same search walks once, not twice)."""
        key = scope.fingerprint()
        with self.lock:
            last = self.walks.get(key)
        if reuse_s and last is not None and time.monotonic() - last[0] < reuse_s:
            return last[1]
        files = self.workspace.source_files(scope)
        with self.lock:
            self.walks[key] = (time.monotonic(), files)
        return files
