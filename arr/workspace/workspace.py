"""The workspace: named scopes, the directories each scope owns, and where derived state lives.

Config group ``workspace`` (``conf/workspace/demo.yaml``). A file's scope comes from the root it
was found under, never from its content. ``documents()`` turns a scope's sources into line-range
chunks (or corpus records) that the lexical and semantic channels index; ``source_state()`` is
what index manifests record so the Router can tell a stale index from a fresh one. Walk and
chunks: ``sources``; a root's rules: ``roots``; a watched tree's last walk: ``watch``.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from arr import codes
from arr.errors import WorkspaceError
from arr.models import ScopeKey
from arr.readers import Readers, suffix_of
from arr.safety import file_rule, name_verdicts
from arr.workspace.corpus import corpus_records
from arr.workspace.documents import file_units
from arr.workspace.roots import check_root_text, resolved_path, root_of_label, trusted_root
from arr.workspace.sources import (
    Document,
    SkipLog,
    SourceFile,
    WatchedFiles,
    count_skipped,
    state_digest,
    walk_files,
)
from arr.workspace.sources import chunk_lines as chunk_lines_of
from arr.workspace.watch import VERIFY_S, TreeWatch, open_watch


class ScopeSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: ScopeKey
    roots: tuple[str, ...] = ()
    corpus: str | None = None


_T = TypeVar("_T")
_MISSING = object()


class _Watched:
    """A scope's watch and the walk it vouches for (None: walk again)."""

    def __init__(self, watch: TreeWatch | None) -> None:
        self.watch = watch
        self.files: list[SourceFile] | None = None
        self.skipped: Counter[str] = Counter()
        # what else was derived from the tree as the walk saw it (cleared with the walk)
        self.derived: dict[object, object] = {}


class Workspace(BaseModel):
    """Plain description of a workspace; no I/O happens until a method is called."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    root: Path
    index_dir: Path
    memory_db: Path
    memory_seed: Path | None = None
    scopes: dict[str, ScopeSpec]
    default_scope: str | None = None  # the scope a search names when it names none
    chunk_lines: int = Field(default=40, ge=1, le=10_000)
    max_file_bytes: int = Field(default=2_000_000, ge=1)
    # papers and notebooks (arr.readers): caps and limits of their own
    max_pdf_bytes: int = Field(default=200_000_000, ge=1)
    max_notebook_bytes: int = Field(default=100_000_000, ge=1)
    max_pdf_pages: int = Field(default=2000, ge=1)
    extract_timeout_s: float = Field(default=20.0, gt=0, le=3600)
    # Said when the root is missing (e.g. where a benchmark collection is looked for).
    missing_hint: str | None = None
    _by_key: dict[ScopeKey, ScopeSpec] | None = PrivateAttr(default=None)
    # Long-lived processes watch their trees (see watch_changes); None: walk on every check.
    _verify_s: float | None = PrivateAttr(default=None)
    _watched: dict[ScopeKey, _Watched] = PrivateAttr(default_factory=dict)
    _watch_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _readers: Readers | None = PrivateAttr(default=None)

    @classmethod
    def from_config(cls, **values: object) -> Workspace:
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise WorkspaceError(f"invalid workspace config at {where}: {first['msg']}") from None

    @property
    def readers(self) -> Readers:
        """The readers of PDFs, notebooks, LaTeX and BibTeX (views cached under the index
        folder, ``text/``), made on first use."""
        if self._readers is None:
            with self._watch_lock:
                if self._readers is None:
                    self._readers = Readers(
                        self.index_dir / "text",
                        max_pdf_bytes=self.max_pdf_bytes,
                        max_notebook_bytes=self.max_notebook_bytes,
                        max_pdf_pages=self.max_pdf_pages,
                        extract_timeout_s=self.extract_timeout_s,
                    )
        return self._readers

    def scope_names(self) -> list[str]:
        return sorted(self.scopes)

    def check(self) -> None:
        """Fail early, with the path, when the workspace or a scope root cannot be read."""
        if not self.root.is_dir():
            hint = f"; {self.missing_hint}" if self.missing_hint else ""
            raise WorkspaceError(
                f"workspace {self.name!r}: root {str(self.root)!r} is not a readable directory"
                + hint
            )
        for spec in self.scopes.values():
            try:
                self.root_paths(spec)
            except WorkspaceError as exc:
                # A root deleted since `arr scope add` degrades its own scope when used and
                # never stops the others; a root the safety rules refuse stops everything.
                if exc.code != codes.SCOPE_ROOT_MISSING:
                    raise

    def named_scopes(self) -> dict[str, ScopeKey]:
        return {name: spec.key for name, spec in sorted(self.scopes.items())}

    def spec_for(self, scope: ScopeKey) -> ScopeSpec | None:
        # ScopeKey hashes and compares all five fields byte-exactly; built once (every
        # freshness check of every search asks), the first scope wins as before.
        # (read through the private-attribute slot: pydantic's attribute hook costs 5 us)
        private = self.__pydantic_private__
        by_key = private.get("_by_key") if private is not None else None
        if by_key is None:
            by_key = {}
            for spec in self.scopes.values():
                by_key.setdefault(spec.key, spec)
            self._by_key = by_key
        return by_key.get(scope) if scope.__class__ is ScopeKey else None

    def root_paths(self, spec: ScopeSpec) -> list[Path]:
        paths = []
        for root in spec.roots:
            check_root_text(root, "scope root")
            path = (self.root / root) if not Path(root).is_absolute() else Path(root)
            if not path.is_dir():
                raise WorkspaceError(
                    f"scope root {str(path)!r} is not a readable directory (deleted or "
                    "unmounted? arr scope remove drops the scope)",
                    code=codes.SCOPE_ROOT_MISSING,
                )
            resolved = trusted_root(path, self.index_dir, self.memory_db.parent, "scope root")
            paths.append(Path(resolved))
        return paths

    def _corpus_path(self, spec: ScopeSpec) -> Path | None:
        if spec.corpus is None:
            return None
        return Path(_corpus_file(str(self.root), spec.corpus))

    def _corpus_checked(self, spec: ScopeSpec) -> Path | None:
        path = self._corpus_path(spec)
        if path is not None and not path.is_file():
            raise WorkspaceError(f"corpus {str(path)!r} is not a readable file")
        return path

    def watch_changes(self, verify_s: float = VERIFY_S) -> None:
        """From now on, know that a scope's tree did not change without walking it: its folders
        are watched (inotify, see :mod:`arr.workspace.watch`) from the next walk on, and a walk
        happens only after a change or every ``verify_s`` seconds. For processes that live (``arr
        serve``, library mode, ``arr eval``); a one-shot command walks once and never asks."""
        if verify_s < 0:
            raise WorkspaceError(f"verify_s must be >= 0, got {verify_s}")
        self._verify_s = verify_s

    def close_watches(self) -> None:
        """Stop watching (inotify descriptors closed); every check walks again."""
        self._verify_s = None
        with self._watch_lock:
            watched, self._watched = self._watched, {}
        for entry in watched.values():
            if entry.watch is not None:
                entry.watch.close()

    def source_files(
        self, scope: ScopeKey, skipped: Counter[str] | None = None
    ) -> list[SourceFile]:
        """Every file source of the scope with its size and mtime (one walk, one lstat each).
        When watching (``watch_changes``), the last walk while nothing changed since."""
        spec = self.spec_for(scope)
        if spec is None or not spec.roots:  # no tree (a corpus file alone): nothing to walk
            return []
        if self._verify_s is None:
            return self._walk_sources(spec, skipped)
        entry = self._watch_entry(scope, spec)
        watch = entry.watch
        if watch is not None:
            with self._watch_lock:
                files, counts = entry.files, entry.skipped
            if files is not None and not watch.changed():
                if skipped is not None:
                    skipped.update(counts)
                return files
            watch.settle()  # before the walk: a change during it is seen by the next check
            with self._watch_lock:
                entry.files = None  # no other thread may serve the previous walk from now
                entry.derived = {}
        counted = SkipLog()
        files = self._walk_sources(spec, counted)
        if skipped is not None:
            skipped.update(counted)
        if watch is not None:
            files = WatchedFiles(files)
            with self._watch_lock:
                entry.files, entry.skipped = files, counted
        return files

    @property
    def watching(self) -> bool:
        """True while long-lived watches replace walks (``watch_changes``)."""
        return self._verify_s is not None

    def derived_from_tree(self, scope: ScopeKey, key: object, compute: Callable[[], _T]) -> _T:
        """``compute()``, remembered while the scope's watched tree has not changed since its
        last walk (an unwatched workspace computes every time). The tree's own walk is what
        settles a watched tree, so it is made here when none has been since the last change."""
        spec = self.spec_for(scope)
        if self._verify_s is None or spec is None:
            return compute()
        self.source_files(scope)  # the remembered walk while nothing changed
        entry = self._watch_entry(scope, spec)
        watch = entry.watch
        if watch is None:
            return compute()
        with self._watch_lock:
            settled = entry.files is not None
            derived = entry.derived
            found = derived[key] if settled and key in derived else _MISSING
        if found is not _MISSING and not watch.changed():
            return found  # type: ignore[return-value]
        value = compute()
        if settled and not watch.changed():
            with self._watch_lock:
                if entry.derived is derived:
                    derived[key] = value
        return value

    def _watch_entry(self, scope: ScopeKey, spec: ScopeSpec) -> _Watched:
        with self._watch_lock:
            entry = self._watched.get(scope)
        if entry is not None:
            return entry
        roots = [str(r) for r in self.root_paths(spec)]
        created = _Watched(open_watch(roots, self._verify_s or 0.0) if roots else None)
        with self._watch_lock:
            entry = self._watched.setdefault(scope, created)
        if entry is not created and created.watch is not None:
            created.watch.close()  # another thread was first
        return entry

    def _walk_sources(self, spec: ScopeSpec, skipped: Counter[str] | None) -> list[SourceFile]:
        roots = self.root_paths(spec)
        files, cap_of = [], self.readers.cap
        with name_verdicts.kept(self.index_dir):  # names judged by an earlier process
            for root in roots:
                at, prefix = str(root), f"{root.name}/" if len(roots) > 1 else ""
                for rel, path, i in walk_files(root, self.max_file_bytes, skipped, cap_of, prefix):
                    files.append(SourceFile.of(prefix + rel, path, i, at))
        return files

    def file_documents(
        self,
        source: SourceFile,
        chunk_lines: int | None = None,
        overlap_lines: int = 0,
        skipped: Counter[str] | None = None,
    ) -> list[Document]:
        """The chunks of one file; [] (counted in ``skipped``) when the one file rule refuses
        it now (a link or hard link swapped in since the walk, unreadable, vanished, grown past
        the cap, binary, a credential): the read itself is judged, not the walk's memory."""
        relative = source.path[len(source.root) + 1 :]
        size = chunk_lines or self.chunk_lines
        if suffix_of(relative) is not None:  # a paper, notebook, manuscript or bibliography
            return file_units(
                self.readers, source, relative, self.max_file_bytes, size, overlap_lines, skipped
            )
        raw, reason = file_rule.read_path(source.root, relative, self.max_file_bytes)
        if raw is None:
            count_skipped(skipped, reason, source.label)
            return []
        text = raw.decode("utf-8", errors="replace")
        return list(chunk_lines_of(source.label, text, size, overlap_lines))

    def place_check(self, scope: ScopeKey) -> Callable[[str], str | None]:
        """A check of the places a scope's answer names: label -> why that file may not be
        shown now (the one file rule at answer time: an item indexed before a link, hard link
        or special file replaced its file), or None. Roots are resolved once per answer. A
        label that is no file of the scope's roots is ``path_escape``."""
        spec = self.spec_for(scope)
        roots = self.root_paths(spec) if spec is not None and spec.roots else []
        cap = self.max_file_bytes
        cap_of = self.readers.cap

        def reason(label: str) -> str | None:
            found = root_of_label(roots, label)
            if found is None:
                return file_rule.PATH_ESCAPE
            return file_rule.place_reason(str(found[0]), found[1], cap_of(label, cap))

        return reason

    def corpus_documents(self, scope: ScopeKey) -> Iterator[Document]:
        spec = self.spec_for(scope)
        corpus = self._corpus_checked(spec) if spec is not None else None
        if corpus is not None:
            yield from corpus_records(corpus)

    def corpus_state(self, scope: ScopeKey) -> tuple[str, int, int] | None:
        """(label, size, mtime_ns) of the scope's corpus file, or None when it has none."""
        spec = self.spec_for(scope)
        if spec is None or spec.corpus is None:
            return None
        corpus = _corpus_file(str(self.root), spec.corpus)
        try:
            info = os.stat(corpus)
        except OSError:
            raise WorkspaceError(f"corpus {corpus!r} is not a readable file") from None
        return f"corpus:{resolved_path(corpus)}", info.st_size, info.st_mtime_ns

    def documents(
        self,
        scope: ScopeKey,
        chunk_lines: int | None = None,
        overlap_lines: int = 0,
        skipped: Counter[str] | None = None,
    ) -> Iterator[Document]:
        """Chunks of every source the scope owns, in a deterministic order. Line windows of
        ``chunk_lines`` (default: the workspace's) overlapping by ``overlap_lines``."""
        size = chunk_lines or self.chunk_lines
        if not 0 <= overlap_lines < size:
            raise WorkspaceError(f"overlap_lines must be in 0..{size - 1}, got {overlap_lines}")
        for source in self.source_files(scope, skipped):
            yield from self.file_documents(source, size, overlap_lines, skipped)
        yield from self.corpus_documents(scope)

    def source_state(self, scope: ScopeKey) -> tuple[str, int]:
        """(hash of path, size and mtime of every source, newest mtime in ns): cheap, and it
        changes on any edit, addition or removal. A file that vanishes during the walk is
        simply not there (the next check sees the tree as it then is)."""
        return state_digest(self.chunk_lines, self.source_files(scope), self.corpus_state(scope))

    @classmethod
    def from_file(
        cls,
        path: str | Path,
        root: str | Path | None = None,
        index_dir: str | Path | None = None,
        memory_db: str | Path | None = None,
    ) -> Workspace:
        """A researcher's own workspace from ``<path>/.arr/workspace.yaml`` (arr.workspace.file);
        derived indexes in ``.arr/index``, the memory store in ``.arr/state``."""
        from arr.workspace.file import read_file
        from arr.workspace.locations import WORKSPACE_DIRNAME

        if path is None:
            raise WorkspaceError("workspace=local needs a workspace: run arr init, or --workspace")
        folder = Path(path)
        parsed = read_file(folder)
        state = folder / WORKSPACE_DIRNAME
        return cls(
            name=parsed.name,
            root=Path(root) if root else folder,
            index_dir=Path(index_dir) if index_dir else state / "index",
            memory_db=Path(memory_db) if memory_db else state / "state" / "memory.sqlite3",
            scopes={
                n: ScopeSpec(key=e.key, roots=tuple(e.roots)) for n, e in parsed.scopes.items()
            },
            default_scope=parsed.scope_by_default(),
            chunk_lines=parsed.chunk_lines,
            max_file_bytes=parsed.max_file_bytes,
        )


@functools.lru_cache(maxsize=256)
def _corpus_file(root: str, corpus: str) -> str:
    return corpus if os.path.isabs(corpus) else os.path.join(root, corpus)
