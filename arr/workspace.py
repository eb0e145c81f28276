"""The workspace: named scopes, the directories each scope owns, and where derived state lives.

Config group ``workspace`` (``conf/workspace/demo.yaml``). A file's scope comes from the root it
was found under, never from its content. ``documents()`` turns a scope's sources into line-range
chunks (or BEIR records) that the lexical and semantic channels index; ``source_fingerprint()``
is what index manifests record so the Router can tell a stale index from a fresh one.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arr.errors import WorkspaceError
from arr.models import ScopeKey
from arr.safety import credential_kind, is_sensitive_name, unsafe_root_reason

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


class ScopeSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: ScopeKey
    roots: tuple[str, ...] = ()
    beir_corpus: str | None = None


def _walk_files(root: Path, max_file_bytes: int) -> Iterator[tuple[str, Path]]:
    """Regular text files under root, in sorted order; links, hidden dirs and big files skipped."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if not name.endswith(TEXT_SUFFIXES) or is_sensitive_name(
                path.relative_to(root).as_posix()
            ):
                continue
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode) or info.st_size > max_file_bytes:
                continue
            yield path.relative_to(root).as_posix(), path


def _chunk_lines(rel: str, text: str, chunk_lines: int, overlap: int = 0) -> Iterator[Document]:
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


def _beir_documents(path: Path) -> Iterator[Document]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                doc_id = str(record["_id"])
            except (ValueError, KeyError, TypeError) as exc:
                raise WorkspaceError(f"{path}:{number}: not a BEIR corpus record ({exc})") from exc
            text = f"{record.get('title', '')}\n{record.get('text', '')}".strip()
            yield Document(id=doc_id, text=text, document_id=doc_id)


class Workspace(BaseModel):
    """Plain description of a workspace; no I/O happens until a method is called."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    root: Path
    index_dir: Path
    memory_db: Path
    memory_seed: Path | None = None
    scopes: dict[str, ScopeSpec]
    chunk_lines: int = Field(default=40, ge=1, le=10_000)
    max_file_bytes: int = Field(default=1_000_000, ge=1)

    @classmethod
    def from_config(cls, **values: object) -> Workspace:
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise WorkspaceError(f"invalid workspace config at {where}: {first['msg']}") from None

    def scope_names(self) -> list[str]:
        return sorted(self.scopes)

    def check(self) -> None:
        """Fail early, with the path, when the workspace or a scope root cannot be read."""
        if not self.root.is_dir():
            raise WorkspaceError(f"workspace root {str(self.root)!r} is not a readable directory")
        for spec in self.scopes.values():
            self.root_paths(spec)

    def named_scopes(self) -> dict[str, ScopeKey]:
        return {name: spec.key for name, spec in sorted(self.scopes.items())}

    def spec_for(self, scope: ScopeKey) -> ScopeSpec | None:
        fingerprint = scope.fingerprint()
        # Fingerprint first (cached, cheap), then byte-exact equality of all five fields.
        return next(
            (
                s
                for s in self.scopes.values()
                if s.key.fingerprint() == fingerprint and s.key == scope
            ),
            None,
        )

    def root_paths(self, spec: ScopeSpec) -> list[Path]:
        paths = []
        for root in spec.roots:
            if not root or ".." in Path(root).parts:
                raise WorkspaceError(f"scope root {root!r} must be a non-empty path without '..'")
            path = (self.root / root) if not Path(root).is_absolute() else Path(root)
            if not path.is_dir():
                raise WorkspaceError(f"scope root {str(path)!r} is not a readable directory")
            resolved = os.path.realpath(path)
            reason = unsafe_root_reason(resolved)
            if reason is not None:
                raise WorkspaceError(f"scope root {str(path)!r} refused: {reason}")
            paths.append(Path(resolved))
        return paths

    def _beir_path(self, spec: ScopeSpec) -> Path | None:
        if spec.beir_corpus is None:
            return None
        path = Path(spec.beir_corpus)
        return path if path.is_absolute() else self.root / path

    def _beir_checked(self, spec: ScopeSpec) -> Path | None:
        path = self._beir_path(spec)
        if path is not None and not path.is_file():
            raise WorkspaceError(f"BEIR corpus {str(path)!r} is not a readable file")
        return path

    def documents(
        self, scope: ScopeKey, chunk_lines: int | None = None, overlap_lines: int = 0
    ) -> Iterator[Document]:
        """Chunks of every source the scope owns, in a deterministic order. Line windows of
        ``chunk_lines`` (default: the workspace's) overlapping by ``overlap_lines``."""
        size = chunk_lines or self.chunk_lines
        if not 0 <= overlap_lines < size:
            raise WorkspaceError(f"overlap_lines must be in 0..{size - 1}, got {overlap_lines}")
        spec = self.spec_for(scope)
        if spec is None:
            return
        roots = self.root_paths(spec)
        for root in roots:
            prefix = f"{root.name}/" if len(roots) > 1 else ""
            for rel, path in _walk_files(root, self.max_file_bytes):
                raw = path.read_bytes()
                if b"\x00" in raw or credential_kind(raw) is not None:
                    continue
                text = raw.decode("utf-8", errors="replace")
                yield from _chunk_lines(prefix + rel, text, size, overlap_lines)
        beir = self._beir_checked(spec)
        if beir is not None:
            yield from _beir_documents(beir)

    def source_state(self, scope: ScopeKey) -> tuple[str, int]:
        """(hash of path, size and mtime of every source, newest mtime in ns): cheap, and it
        changes on any edit, addition or removal."""
        spec = self.spec_for(scope)
        digest = hashlib.sha256(str(self.chunk_lines).encode())
        newest = 0
        if spec is None:
            return digest.hexdigest(), newest
        files = [
            (f"{root.name}/{rel}", path)
            for root in self.root_paths(spec)
            for rel, path in _walk_files(root, self.max_file_bytes)
        ]
        beir = self._beir_path(spec)
        if beir is not None:
            files.append((f"beir:{beir.resolve()}", beir))
        for label, path in files:
            try:
                info = os.stat(path)
            except FileNotFoundError:
                raise WorkspaceError(f"source {str(path)!r} vanished or is unreadable") from None
            newest = max(newest, info.st_mtime_ns)
            digest.update(f"{label}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        return digest.hexdigest(), newest
