"""grep over the files readers read: PDFs, notebooks, LaTeX and BibTeX are searched in their
views (the extracted text, arr.readers), never as raw bytes on the tree.

As ``rga`` does, the extracted text lies in a cache keyed by the file's content (under the
index folder, ``text/``): ripgrep searches those text files with the same patterns, caps and
deadline as the tree, and each hit is put back on the file it came from. The engine's run on
the tree skips these files (``--glob``), so a notebook's base64 or a PDF's bytes are never
matched. A hit counts only after the verifier re-read the original file under the one file
rule and found the same line in its view (arr.tools.grep.verify).

A view is made once per file version: at index time by the build, else here on first search
(bounded by the call's deadline: a file still being read when it comes is counted
``views_not_ready`` and read on in the background, never waited for). The
content hash of each file is remembered by (path, size, mtime), so an unchanged file is not
read again for it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arr import atomic_write, codes
from arr.deadline import READING_SHARE
from arr.readers import NotReady, Readers, suffix_of
from arr.readers.view import Unreadable
from arr.safety import file_rule

KNOWN_FILE = "known.json"
VIEW_NAME = re.compile(r"([0-9a-f]{2})/\1[0-9a-f]{62}\.txt")  # arr.readers.Readers._path


@dataclass
class RootViews:
    """One root's reader files: original path -> its view file (relative to the cache)."""

    files: dict[str, str] = field(default_factory=dict)
    by_view: dict[str, list[str]] = field(default_factory=dict)

    def add(self, relative: str, view: str) -> None:
        self.files[relative] = view
        self.by_view.setdefault(view, []).append(relative)

    def within(self, sub_path: str | None) -> list[str]:
        """The view files of originals at or below ``sub_path`` (all with None)."""
        if not sub_path or sub_path in (".", "./"):
            return sorted(self.by_view)
        sub = sub_path.removeprefix("./").rstrip("/")
        return sorted({v for r, v in self.files.items() if r == sub or r.startswith(sub + "/")})


class ViewFiles:
    """Per workspace: which cached view stands for each reader file (remembered by state)."""

    def __init__(self, readers: Readers) -> None:
        self.readers = readers
        self._known: dict[tuple[str, str, int, int], tuple[str | None, str]] = {}
        self._lock = threading.Lock()
        self._loaded = False

    # Remembered on disk too (``known.json`` beside the views), so a new process does not read
    # and hash every paper again to find its view (311 PDFs: 0.4 s of a first grep call).
    # Keyed by (root, path, size, mtime), as every index's freshness is.
    def _load_known(self) -> None:
        self._loaded = True
        cache = self.readers.cache_dir
        if cache is None:
            return
        try:
            found = json.loads((cache / KNOWN_FILE).read_text(encoding="utf-8"))
            if found.get("readers") != self.readers.version:
                return  # views of another readers' version: read again
            rows = found["rows"]
            known = {
                (str(r[0]), str(r[1]), int(r[2]), int(r[3])): (r[4], str(r[5]))
                for r in rows
                if isinstance(r, list)
                and len(r) == 6
                and (r[4] is None or (isinstance(r[4], str) and VIEW_NAME.fullmatch(r[4])))
            }
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return  # none yet, or damaged: made again
        with self._lock:
            self._known = {**known, **self._known}

    def _save_known(self) -> None:
        cache = self.readers.cache_dir
        if cache is None:
            return
        with self._lock:
            rows = [[*key, *value] for key, value in self._known.items()]
        payload = json.dumps({"readers": self.readers.version, "rows": rows})
        with contextlib.suppress(OSError):  # a read-only index folder: found again next time
            atomic_write.write_text(cache / KNOWN_FILE, payload)

    def for_roots(
        self,
        roots: list[Path],
        found: tuple[Mapping[str, tuple[int, int]], ...],
        max_file_bytes: int,
        deadline: float,
        counters: Counter[str],
    ) -> list[RootViews]:
        if not self._loaded:
            self._load_known()
        cache = self.readers.cache_dir
        out, made = [], False
        # reading new files may take a share of the call's time; the scan needs the rest
        now = time.monotonic()
        reading_until = now + READING_SHARE * max(0.0, deadline - now)
        for root, files in zip(roots, found, strict=False):
            views = RootViews()
            for relative, (size, mtime_ns) in sorted(files.items()):
                key = (str(root), relative, size, mtime_ns)
                with self._lock:
                    known = self._known.get(key)
                if (
                    known is not None
                    and known[0] is not None
                    and cache is not None
                    and not trusted_view(cache, known[0])  # cleared, or not ARR's own file
                ):
                    known = None
                if known is None:
                    left = max(0.0, reading_until - time.monotonic())
                    try:  # a file being read waits no longer than the search may
                        known = self._make(root, relative, max_file_bytes, left)
                    except NotReady:
                        counters[codes.VIEWS_NOT_READY] += 1  # read on in the background
                        continue
                    with self._lock:
                        self._known[key] = known
                    made = True
                view, reason = known
                if view is None:
                    counters[f"skipped_{reason}"] += 1
                elif cache is not None:
                    views.add(relative, view)
            out.append(views)
        if made:
            self._save_known()
        return out

    def _make(
        self, root: Path, relative: str, max_file_bytes: int, within_s: float | None = None
    ) -> tuple[str | None, str]:
        cap = self.readers.cap(relative, max_file_bytes)
        raw, reason = file_rule.read_path(str(root), relative, cap, check_content=False)
        if raw is None:
            return None, reason
        try:
            path = self.readers.text_file(relative, raw, within_s)
        except NotReady:
            raise
        except Unreadable as exc:
            return None, exc.reason
        if path is None:
            return None, "view_not_cached"
        return os.path.relpath(path, self.readers.cache_dir), ""


def trusted_view(cache: Path, view: str) -> bool:
    """Whether ``view`` names a view file as the readers write one: ``ab/<sha256>.txt``, its
    folder and itself no link, a regular file. ``known.json`` lies in the index folder, where
    anyone who can write may edit it; a name pointing elsewhere is never handed to ripgrep."""
    if not VIEW_NAME.fullmatch(view):
        return False
    try:
        folder = os.lstat(cache / view[:2])
        info = os.lstat(cache / view)
    except OSError:
        return False
    return stat.S_ISDIR(folder.st_mode) and stat.S_ISREG(info.st_mode) and info.st_nlink == 1


def is_reader_file(relative: str) -> bool:
    return suffix_of(relative) is not None
