"""What a scope's roots hold, as the channels index it: the walk of the files the one file rule
admits, line-range chunks of a file, records of a corpus file, and the digest of a scope's
sources that index manifests record (so a stale index is told from a fresh one)."""

from __future__ import annotations

import functools
import hashlib
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from arr.models import Location
from arr.readers import VERSIONS as READER_VERSIONS
from arr.readers import WALLS_VERSION
from arr.safety import file_rule
from arr.safety.rules import is_sensitive_folder, shown_name

# What the indexes were read with: every reader's version and the walls'. Derived, never kept
# apart: a reader's version bumped in arr.readers alone (pdf-9, pdf-10) left bm25 and the
# vector index serving the old titles while grep, reading views, served the new ones.
READERS_VERSION = "readers-" + "+".join((*READER_VERSIONS.values(), WALLS_VERSION))

# Text by convention: the grep channel's withheld-files walk does not open these to look for a
# NUL byte (indexing decides text by content, see walk_files).
TEXT_SUFFIXES = (
    ".md",
    ".txt",
    ".py",
    ".yaml",
    ".yml",
    ".json",
    ".toml",
    ".log",
    ".cfg",
    ".ini",
    ".csv",
    ".tsv",
    ".rst",
    ".sh",
)


class Document(BaseModel):
    """One indexable unit: a line range of a file, or one record of a document collection."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    text: str
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    document_id: str | None = None
    # the unit of a reader's file (arr.readers): ``page=7``, ``cell=3``, a BibTeX key
    anchor: str | None = None
    title: str | None = None  # the unit's heading or the file's title
    citation: str | None = None  # as a researcher pastes it: "Ongaro & Ousterhout 2014, p. 3"
    identity: str | None = None  # where the paper's identity came from (arr.readers.identity)

    def location(self) -> Location:
        """The place this document names (its file and lines, or its page, cell, entry)."""
        return Location(
            path=self.path,
            start_line=self.start_line,
            end_line=self.end_line,
            document_id=self.document_id,
            anchor=self.anchor,
            title=self.title,
            citation=self.citation,
            identity=self.identity,
        )


class SourceFile(NamedTuple):
    """One source file as the walk saw it: label (root-prefixed relative path), path, state,
    and the root it was found under (a read opens it from there, see arr.safety.file_rule)."""

    label: str
    path: str  # a str, not a Path: making 22,000 Path objects cost 0.6 s of every walk
    size: int
    mtime_ns: int
    root: str
    # the inode's change time: no user can set it back, so a rewrite that restores size and
    # mtime still moves it (arr.workspace.freshness then compares the content)
    ctime_ns: int = 0

    @classmethod
    def of(cls, label: str, path: str, info: os.stat_result, root: str) -> SourceFile:
        return cls(label, path, info.st_size, info.st_mtime_ns, root, info.st_ctime_ns)


class SkipLog(Counter):  # type: ignore[type-arg]
    """Skips counted by reason, and each one recorded: (path, reason, detail), so ``arr index``
    and ``arr skipped`` can say which files are missing and why, not only how many."""

    MAX_RECORDS = 10_000  # a tree of 10 million sockets keeps its counts, not every name

    def __init__(self) -> None:
        super().__init__()
        self.files: list[tuple[str, str, str]] = []

    def record(self, reason: str, path: str, detail: str) -> None:
        """Count and keep one skip; a credential in the path (a file or folder named with a
        token) or in the detail is redacted here, before any listing, report or
        ``index.json`` can show it."""
        self[reason] += 1
        if len(self.files) < self.MAX_RECORDS:
            self.files.append((shown_name(path), reason, shown_name(detail)))

    def update(self, other: object = None, /, **counts: int) -> None:  # type: ignore[override]
        super().update(other, **counts)  # type: ignore[arg-type]
        if isinstance(other, SkipLog):
            self.files.extend(other.files[: max(0, self.MAX_RECORDS - len(self.files))])


def carry_skips(skipped: SkipLog, earlier: list[list[str]], kept: set[str]) -> None:
    """Skips an earlier build recorded for files this build did not read again (unchanged):
    still skipped, for the same reason."""
    for path, reason, detail in earlier:
        if path in kept:
            skipped.record(str(reason), str(path), str(detail))


def count_skipped(
    skipped: Counter[str] | None, reason: str, path: str = "", detail: str = ""
) -> None:
    """Count a skip by reason; a :class:`SkipLog` also records the file and the detail."""
    if isinstance(skipped, SkipLog):
        skipped.record(reason, path, detail)
    elif skipped is not None:
        skipped[reason] += 1


def walk_files(
    root: Path,
    max_file_bytes: int,
    skipped: Counter[str] | None = None,
    cap_of: Callable[[str, int], int] | None = None,
    label_prefix: str = "",
) -> Iterator[tuple[str, str, os.stat_result]]:
    """Files under root that the one file rule (:mod:`arr.safety.file_rule`) admits by name and
    metadata, in sorted order, with their lstat. Text is
    decided by content when the file is read (no NUL byte, as ripgrep decides), so C headers,
    ``.pyi``, Fortran or a ``Makefile`` are indexed as grep searches them; only names that are
    binary by convention (``BINARY_SUFFIXES``) are skipped without reading.

    Real trees are hostile: a directory or file that cannot be read, a file that vanishes
    between listing and stat, a socket or FIFO, a link: each is skipped and counted by reason
    in ``skipped`` (never an error), so one bad file never fails a scope. Hidden folders are
    not entered (every sensitive folder name, ``.ssh`` ``.aws`` ``.git`` ..., is hidden), so
    only the file name needs the sensitive-name check. One ``scandir`` per folder, one
    ``lstat`` per candidate file, no path objects for files that are not yielded: this walk
    runs before every search that checks freshness. ``cap_of(name, max_file_bytes)``: the size
    cap of a file of that name (PDFs and notebooks have their own, see arr.readers).
    ``label_prefix``: put before the paths a :class:`SkipLog` records (a root among several).
    """
    stack = [("", str(root))]
    while stack:
        prefix, folder = stack.pop()
        entries = _listed(folder, skipped, label_prefix + (prefix or "."))
        subfolders = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)  # d_type: no system call
            except OSError:
                is_dir = False
            if is_dir:
                if name.startswith("."):
                    continue
                if is_sensitive_folder(name):  # a credential in its name: never entered
                    count_skipped(skipped, file_rule.SENSITIVE_NAME, label_prefix + prefix + name)
                    continue
                subfolders.append((f"{prefix}{name}/", entry.path))
                continue
            reason = file_rule.name_reason(name)  # binary by name, sensitive name
            if reason is not None:
                count_skipped(skipped, reason, label_prefix + prefix + name)
                continue
            cap = max_file_bytes if cap_of is None else cap_of(name, max_file_bytes)
            relative = prefix + name
            info = _admitted(entry, cap, skipped, label_prefix, relative)
            if info is not None:
                yield relative, entry.path, info
        stack.extend(reversed(subfolders))  # depth-first, in sorted order


def _listed(folder: str, skipped: Counter[str] | None, label: str) -> list[os.DirEntry[str]]:
    """The folder's entries by name; [] (counted) when it vanished or cannot be listed."""
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda e: e.name)
    except FileNotFoundError:
        count_skipped(skipped, file_rule.VANISHED, label)
    except OSError as exc:
        count_skipped(skipped, "unreadable_dir", label, exc.strerror or "")
    return []


def _admitted(
    entry: os.DirEntry[str], cap: int, skipped: Counter[str] | None, prefix: str, relative: str
) -> os.stat_result | None:
    """The file's lstat when the rule admits it by metadata (no link, special file, hard link
    or size over ``cap``); else None, counted with its reason under ``prefix + relative`` (made
    only for a skip: this runs for every file of every walk)."""
    try:
        info = entry.stat(follow_symlinks=False)
    except FileNotFoundError:
        count_skipped(skipped, file_rule.VANISHED, prefix + relative)
        return None
    except OSError as exc:
        count_skipped(skipped, file_rule.UNREADABLE, prefix + relative, exc.strerror or "")
        return None
    reason = file_rule.stat_reason(info, cap)  # link, special, hard link, size
    if reason is None:
        return info
    detail = f"{info.st_size:,} bytes; limit {cap:,}" if reason == file_rule.OVERSIZE else ""
    count_skipped(skipped, reason, prefix + relative, detail)
    return None


def chunk_lines(rel: str, text: str, chunk_lines: int, overlap: int = 0) -> Iterator[Document]:
    lines = text.splitlines()
    step = max(1, chunk_lines - overlap)
    for start in range(0, len(lines), step):
        window = lines[start : start + chunk_lines]
        if any(line.strip() for line in window):
            yield Document(
                id=f"doc:{rel}#L{start + 1}",
                text="\n".join(window),
                path=rel,
                start_line=start + 1,
                end_line=start + len(window),
            )
        if start + chunk_lines >= len(lines):
            break


class WatchedFiles(list):  # type: ignore[type-arg]
    """A watched scope's walk: the same object is handed out while the tree is unchanged, so
    what is derived from it (its digest) is kept on it and dies with it."""

    def __init__(self, files: list[SourceFile]) -> None:
        super().__init__(files)
        self.digests: dict[tuple[int, object], tuple[str, int]] = {}


def state_digest(
    chunk_lines: int, files: list[SourceFile], corpus: tuple[str, int, int] | None
) -> tuple[str, int]:
    """Digest and newest mtime of a scope's sources; remembered on a watched walk (hashing
    thousands of entries before each search is what watching is meant to save)."""
    if not files:  # a corpus file alone: its (label, size, mtime) decide, as a cache key
        return _corpus_digest(chunk_lines, corpus)
    if not isinstance(files, WatchedFiles):
        return _state_digest(chunk_lines, files, corpus)
    key = (chunk_lines, corpus)
    found = files.digests.get(key)
    if found is None:
        found = files.digests[key] = _state_digest(chunk_lines, files, corpus)
    return found


@functools.lru_cache(maxsize=256)
def _corpus_digest(chunk_lines: int, corpus: tuple[str, int, int] | None) -> tuple[str, int]:
    return _state_digest(chunk_lines, [], corpus)


def _state_digest(
    chunk_lines: int, files: list[SourceFile], corpus: tuple[str, int, int] | None
) -> tuple[str, int]:
    # the readers' version too: a reader that reads a format anew makes its indexes stale
    digest = hashlib.sha256(f"{chunk_lines}/{READERS_VERSION}".encode())
    newest = 0
    for source in files:
        newest = max(newest, source.mtime_ns)
        digest.update(
            f"{source.label}\0{source.size}\0{source.mtime_ns}\0{source.ctime_ns}\n".encode()
        )
    if corpus is not None:
        newest = max(newest, corpus[2])
        digest.update(f"{corpus[0]}\0{corpus[1]}\0{corpus[2]}\n".encode())
    return digest.hexdigest(), newest
