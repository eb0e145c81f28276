"""The grep channel's word index (built by ``arr index``) and the narrowing it allows: which
files a stage must scan instead of the whole tree (see :mod:`arr.tools.grep.word_index` for why
the narrowing is sound)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from arr.models import ScopeKey
from arr.tools.grep import word_index
from arr.tools.grep.query import Stage
from arr.tools.partition import ByPointer, build_generation, remove_partition

Narrowing = tuple[word_index.WordIndex, word_index.TreeWalk]


def _load(generation: Path | None) -> word_index.WordIndex | None:
    if generation is None:
        return None
    try:
        return word_index.WordIndex(generation)
    except (OSError, ValueError):
        return None  # damaged or older: the whole tree is scanned


class WordIndexes:
    """The word indexes of one grep channel, one per scope, loaded once and reloaded when a
    build swapped a new one in."""

    def __init__(
        self, index_dir: Path, max_word_stage_files: int, max_narrowed_share: float
    ) -> None:
        if not 0.0 <= max_narrowed_share <= 1.0:
            raise ValueError(f"max_narrowed_share must be in 0..1, got {max_narrowed_share}")
        self.index_dir = index_dir
        self.max_word_stage_files = max_word_stage_files
        self.max_narrowed_share = max_narrowed_share
        self._loaded: ByPointer[word_index.WordIndex | None] = ByPointer(index_dir, _load)
        self._lock = threading.Lock()
        self._view: tuple[Any, Any, tuple[np.ndarray, list[set[str]]]] | None = None

    def build(
        self,
        scope: ScopeKey,
        roots: list[Path],
        max_file_bytes: int,
        cap_of: Callable[[str, int], int] | None = None,
    ) -> dict[str, Any]:
        """The scope's word index: which words each file ripgrep would read holds. ``cap_of``:
        a reader file's own size cap (a 5 MB PDF is searched in its text, not over the cap)."""
        tree = word_index.walk(roots, max_file_bytes, cap_of=cap_of)
        manifest: dict[str, Any] = {
            "scope": scope.model_dump(),
            "built_at": time.time(),
            "skipped": {k.removeprefix("skipped_"): v for k, v in sorted(tree.withheld.items())},
            # searched in their extracted text (views), not through the word index
            "reader_files": sum(len(found) for found in tree.readers),
        }

        def write(folder: Path) -> None:
            written = word_index.write_index(folder, roots, tree, max_file_bytes)
            manifest["documents"] = written["files"]
            manifest["words"] = written["words"]
            for reason, count in written["refused"].items():  # the one file rule's reasons
                manifest["skipped"][reason] = manifest["skipped"].get(reason, 0) + count

        build_generation(self.index_dir, scope, manifest, write)
        self.forget(scope)
        return manifest

    def reset(self, scope: ScopeKey) -> None:
        """Remove the scope's word index; calls scan the whole tree until the next build."""
        remove_partition(self.index_dir, scope)
        self.forget(scope)

    def forget(self, scope: ScopeKey) -> None:
        self._loaded.forget(scope)

    def load(self, scope: ScopeKey) -> word_index.WordIndex | None:
        """The scope's loaded word index, reloaded when a build swapped a new one in."""
        return self._loaded.get(scope)

    def files_to_scan(
        self,
        narrowing: Narrowing | None,
        stage: Stage,
        sub_path: str | None,
        counters: Counter[str] | None = None,
    ) -> list[list[str]] | None:
        """Per root, the files this stage must scan (changed files always), or None: all.

        A stage over the query's words (the phrase did not answer) reads at most
        ``max_word_stage_files`` indexed files: those holding the rarest of the words first
        (summed inverse document frequency of the words a file holds, from the word index;
        ties in index order). "ValueError: shapes not aligned" then reads the files that hold
        ``aligned`` or ``shapes`` before the 5,000 that hold ``ValueError``; the files left out
        are counted (``files_ranked_out``) and the answer is marked cut."""
        if narrowing is None or not stage.literals:
            return None
        index, tree = narrowing
        found = [index.rows_for(literal) for literal in stage.literals]
        if any(rows is None for rows in found):
            return None
        present, changed = self._index_view(index, tree)
        # per index row, how many of the stage's literals the file may hold (each row once
        # per literal): numpy, as common words hold thousands of files
        held = np.bincount(np.concatenate(found), minlength=len(present))  # type: ignore[arg-type]
        rows = np.flatnonzero((held >= stage.at_least) & present)
        hidden = [list(folders) for folders in tree.hidden]
        changed_here = changed
        entries = index.entries
        if sub_path is not None:
            prefix = PurePosixPath(sub_path).as_posix().strip("/")
            if any(part.startswith(".") for part in PurePosixPath(prefix).parts):
                return None  # inside a hidden folder: not indexed, scanned whole

            def within(path: str) -> bool:
                return path == prefix or path.startswith(prefix + "/")

            rows = np.array([r for r in rows.tolist() if within(entries[r][1])], dtype=np.int64)
            changed_here = [{f for f in files if within(f)} for files in changed]
            hidden = [[f for f in folders if within(f)] for folders in hidden]
        if stage.words and len(rows) > self.max_word_stage_files:
            kept = self._rarest_first(index, found, rows)  # type: ignore[arg-type]
            if counters is not None:
                counters["files_ranked_out"] += len(rows) - len(kept)
            rows = kept
        scan: list[set[str]] = [set() for _ in tree.files]
        for row in rows.tolist():
            number, relative = entries[row][:2]
            scan[number].add(relative)  # a changed file is added below whatever it held
        for number, files in enumerate(changed_here):
            scan[number] |= files
        if sum(map(len, scan)) > self.max_narrowed_share * sum(map(len, tree.files)):
            return None
        # hidden folders go to ripgrep as folders: it walks them live, the watch does not
        return [sorted(files) + folders for files, folders in zip(scan, hidden, strict=True)]

    def _rarest_first(
        self, index: word_index.WordIndex, found: list[np.ndarray], rows: np.ndarray
    ) -> np.ndarray:
        """The ``max_word_stage_files`` of ``rows`` holding the rarest words (see above)."""
        total = len(index.entries)
        weight = np.zeros(total, dtype=np.float64)
        for held in found:  # each literal once per file
            weight[held] += np.log(1.0 + total / max(1, len(held)))
        order = np.lexsort((rows, -weight[rows]))  # heaviest first, then index order
        return np.sort(rows[order[: self.max_word_stage_files]])

    def _index_view(
        self, index: word_index.WordIndex, tree: word_index.TreeWalk
    ) -> tuple[np.ndarray, list[set[str]]]:
        """Which index rows name a file of the current walk in the state the index read
        (a mask), and per root the files of the walk the index does not know in their
        current state (always scanned); computed once per (index, walk) pair."""
        with self._lock:
            cached = self._view
        if cached is not None and cached[0] is index and cached[1] is tree:
            return cached[2]
        present = np.zeros(len(index.entries), dtype=bool)
        changed: list[set[str]] = []
        for number, files in enumerate(tree.files):  # one pass over the walk
            read = index.known.text[number] if number < len(index.known.text) else {}
            rows = index.rows[number] if number < len(index.rows) else {}
            same: list[int] = []
            moved: set[str] = set()
            for relative, state in files.items():
                if read.get(relative) == state:
                    same.append(rows[relative])
                else:
                    moved.add(relative)
            present[same] = True
            changed.append(moved)
        view = (present, changed)
        with self._lock:
            self._view = (index, tree, view)
        return view
