"""Readers: how files that are not plain text are read by every walk, read and answer check.

One module per format, one registry by file suffix:

- ``pdf`` (:mod:`arr.readers.pdf`): pages (PDFium in a worker with time and memory limits);
- ``notebook``: cells, with text outputs only (no images, HTML, widgets, base64);
- ``latex``: sections, comments blanked; ``bibtex``: entries by key.

:class:`Readers` is what the workspace holds: the size cap of each format (papers are 1-50 MB,
so PDFs and notebooks have caps of their own, not the text cap), and ``view()``, which turns a
file's bytes into its :class:`~arr.readers.view.View` once per content (cached by content hash
under the index folder, failures too, so a file that timed out is not tried again until it
changes). The credential scan of the one file rule runs on the view's text. Channels never
special-case a format: bm25 and vector index the view's units
(:func:`arr.readers.documents.unit_documents`), grep searches the view's lines
(:mod:`arr.tools.grep.views`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

from arr.readers.view import UNREADABLE, Unreadable, View


class Reader(Protocol):
    suffixes: tuple[str, ...]
    version: str

    def read(self, raw: bytes) -> View: ...


# Formats whose raw bytes hold no NUL by nature: a NUL in one is a binary file, as for text.
TEXT_FORMATS = (".ipynb", ".tex", ".bib")
SUFFIXES = (".pdf", ".ipynb", ".tex", ".bib")
MEMORY_VIEWS = 64


def suffix_of(name: str) -> str | None:
    lowered = name.lower()
    return next((s for s in SUFFIXES if lowered.endswith(s)), None)


class Readers:
    """The readers of one workspace: caps, limits and the view cache (plain values)."""

    def __init__(
        self,
        cache_dir: Path | None = None,
        max_pdf_bytes: int = 200_000_000,
        max_notebook_bytes: int = 100_000_000,
        max_pdf_pages: int = 2000,
        extract_timeout_s: float = 20.0,
        extract_memory_mb: int = 1536,
    ) -> None:
        from arr.readers.bibtex import BibtexReader
        from arr.readers.latex import LatexReader
        from arr.readers.notebook import NotebookReader
        from arr.readers.pdf import PdfReader

        self.cache_dir = cache_dir
        self.caps = {".pdf": max_pdf_bytes, ".ipynb": max_notebook_bytes}
        self._by_suffix: dict[str, Reader] = {
            ".pdf": PdfReader(max_pdf_pages, extract_timeout_s, extract_memory_mb),
            ".ipynb": NotebookReader(),
            ".tex": LatexReader(),
            ".bib": BibtexReader(),
        }
        self.version = "+".join(r.version for r in self._by_suffix.values())
        self._memory: OrderedDict[str, View | Unreadable] = OrderedDict()
        self._lock = threading.Lock()

    def cap(self, name: str, text_cap: int) -> int:
        """The size cap of a file of this name (the text cap unless its format has its own)."""
        suffix = suffix_of(name)
        return max(text_cap, self.caps[suffix]) if suffix in self.caps else text_cap

    def digest(self, name: str, raw: bytes) -> str:
        suffix = suffix_of(name) or ""
        reader = self._by_suffix[suffix]
        return hashlib.sha256(reader.version.encode() + b"\0" + raw).hexdigest()

    def view(self, name: str, raw: bytes) -> View:
        """The view of a reader file's bytes (raises Unreadable, with its reason)."""
        from arr import file_rule
        from arr.safety import credential_kind

        suffix = suffix_of(name)
        if suffix is None:
            raise ValueError(f"{name!r} has no reader")
        if suffix in TEXT_FORMATS and b"\x00" in raw:
            raise Unreadable(file_rule.BINARY, "a NUL byte")
        key = self.digest(name, raw)
        found = self._remembered(key)
        if found is None:
            found = self._load(key)
        if found is None:
            try:
                found = self._by_suffix[suffix].read(raw)
            except Unreadable as exc:
                found = exc
            except RecursionError:
                found = Unreadable(UNREADABLE, "nested too deeply")
            if isinstance(found, View) and credential_kind("\n".join(found.lines).encode()):
                found = Unreadable(file_rule.CREDENTIAL, "credential-like text")
            self._store(key, found)
        self._remember(key, found)
        if isinstance(found, Unreadable):
            raise Unreadable(found.reason, found.detail)
        return found

    def text_file(self, name: str, raw: bytes) -> Path | None:
        """The cached file of the view's lines (what grep's engine searches), or None when
        there is no cache folder or it cannot be written; raises Unreadable."""
        view = self.view(name, raw)
        if self.cache_dir is None:
            return None
        path = self._path(self.digest(name, raw), ".txt")
        if not path.is_file():
            from arr import atomic_write

            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write.write_text(path, "\n".join(view.lines) + "\n")
            except OSError:
                return None
        return path

    # ---- the cache ----------------------------------------------------------------------
    def _path(self, key: str, suffix: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / key[:2] / f"{key}{suffix}"

    def _remembered(self, key: str) -> View | Unreadable | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                self._memory.move_to_end(key)
            return found

    def _remember(self, key: str, found: View | Unreadable) -> None:
        with self._lock:
            self._memory[key] = found
            self._memory.move_to_end(key)
            while len(self._memory) > MEMORY_VIEWS:
                self._memory.popitem(last=False)

    def _load(self, key: str) -> View | Unreadable | None:
        if self.cache_dir is None:
            return None
        try:
            text = self._path(key, ".json").read_text(encoding="utf-8")
            if text.startswith('{"refused"'):
                import json

                refused = json.loads(text)["refused"]
                return Unreadable(str(refused[0]), str(refused[1]))
            return View.from_json(text)
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return None  # not cached, or a damaged entry: read again

    def _store(self, key: str, found: View | Unreadable) -> None:
        if self.cache_dir is None:
            return
        import json

        from arr import atomic_write

        body = (
            json.dumps({"refused": [found.reason, found.detail]})
            if isinstance(found, Unreadable)
            else found.to_json()
        )
        try:
            path = self._path(key, ".json")
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write.write_text(path, body)
        except OSError:
            pass  # a read-only or full index folder: the view is made again next time

    def close(self) -> None:
        pdf = self._by_suffix[".pdf"]
        close = getattr(pdf, "close", None)
        if close is not None:
            close()
