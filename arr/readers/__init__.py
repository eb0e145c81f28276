"""Readers: how files that are not plain text are read by every walk, read and answer check.

One module per format, one registry by file suffix (:mod:`arr.readers.registry`):

- ``pdf`` (:mod:`arr.readers.pdf`): pages (PDFium in a worker with time and memory limits);
- ``notebook``: cells, with text outputs only (no images, HTML, widgets, base64);
- ``latex``: sections, comments blanked; ``bibtex``: entries by key.

Every reader runs in the reading worker under one guard (:mod:`arr.readers.guard`: a time and
memory budget per file), and every view passes the walls (:mod:`arr.readers.walls`: payloads
cut, credentials refused in lines, titles and notes, wraps joined) before a channel sees it.

:class:`Readers` is what the workspace holds: the size cap of each format (papers are 1-50 MB,
so PDFs and notebooks have caps of their own, not the text cap), and ``view()``, which turns a
file's bytes into its :class:`~arr.readers.view.View` once per content (cached by content hash
under the index folder, failures too, so a file that timed out is not tried again until it
changes). A caller with a deadline (a search) waits at most its time left: a file not read
by then is :class:`NotReady` (a degradation; the reading goes on). Channels never
special-case a format: bm25 and vector index the view's units
(:func:`arr.workspace.documents.unit_documents`), grep searches the view's lines
(:mod:`arr.tools.grep.views`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections import OrderedDict
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Protocol

from arr import codes
from arr.readers.registry import FORMATS
from arr.readers.view import NO_TEXT, Unreadable, View


class Reader(Protocol):
    """A format's reader (declared in :mod:`arr.readers.registry`), run in the worker."""

    def read(self, raw: bytes) -> View: ...


# derived from the registry (arr.readers.registry), the one place formats are declared
TEXT_FORMATS = tuple(f.suffix for f in FORMATS if f.text)
SUFFIXES = tuple(f.suffix for f in FORMATS)
VERSIONS = {f.suffix: f.version for f in FORMATS}
MEMORY_VIEWS = 64
WALLS_VERSION = "walls-3"  # the walls' own version (arr.readers.walls): every view anew


def suffix_of(name: str) -> str | None:
    lowered = name.lower()
    return next((s for s in SUFFIXES if lowered.endswith(s)), None)


class NotReady(Unreadable):
    """A file whose reading did not finish within the time the caller had (a search's
    deadline): not the file's fault, never cached; the reading goes on in the background and
    the next call finds its view."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(codes.NOT_READY, detail)


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
        from arr.readers.guard import Guard

        self.cache_dir = cache_dir
        own = {"pdf": max_pdf_bytes, "notebook": max_notebook_bytes}
        self.caps = {f.suffix: own[f.cap] for f in FORMATS if f.cap is not None}
        self.guard = Guard(extract_timeout_s, extract_memory_mb, max_pdf_pages)
        self.version = "+".join((*VERSIONS.values(), WALLS_VERSION))
        self._memory: OrderedDict[str, View | Unreadable] = OrderedDict()
        self._pending: dict[str, Future[View | Unreadable]] = {}
        self._lock = threading.Lock()

    def cap(self, name: str, text_cap: int) -> int:
        """The size cap of a file of this name (the text cap unless its format has its own)."""
        suffix = suffix_of(name)
        return max(text_cap, self.caps[suffix]) if suffix in self.caps else text_cap

    def digest(self, name: str, raw: bytes) -> str:
        suffix = suffix_of(name) or ""
        version = VERSIONS.get(suffix, "") + WALLS_VERSION
        digest = hashlib.sha256(version.encode() + b"\0")
        digest.update(raw)  # not concatenated: a 100 MB notebook is not copied to be hashed
        return digest.hexdigest()

    def view(self, name: str, raw: bytes, within_s: float | None = None) -> View:
        """The view of a reader file's bytes (raises Unreadable, with its reason). With
        ``within_s``, a view not made by then raises :class:`NotReady` (the reading goes on)."""
        return self._view(name, raw, within_s, None)

    def _view(self, name: str, raw: bytes, within_s: float | None, key: str | None) -> View:
        """:meth:`view`, with the content's ``key`` when the caller hashed it already (a
        100 MB notebook is hashed once per read, not once per use)."""
        from arr.safety import file_rule

        suffix = suffix_of(name)
        if suffix is None:
            raise ValueError(f"{name!r} has no reader")
        if suffix in TEXT_FORMATS and b"\x00" in raw:
            raise Unreadable(file_rule.BINARY, "a NUL byte")
        key = key or self.digest(name, raw)
        found = self._remembered(key)
        if found is None:
            found = self._load(key)
        if found is None:
            future = self._reading(key, suffix, raw)
            try:
                found = future.result(timeout=within_s)
            except FutureTimeout:
                raise NotReady(f"still reading after {within_s:.1f} s") from None
        self._remember(key, found)
        if isinstance(found, Unreadable):
            raise Unreadable(found.reason, found.detail)
        return found

    def _reading(self, key: str, suffix: str, raw: bytes) -> Future[View | Unreadable]:
        """The read of this content, started now or already under way (one per content)."""
        with self._lock:
            future = self._pending.get(key)
            if future is not None:
                return future
            future = self._pending[key] = Future()

        def read() -> None:
            try:
                found = self._judged(suffix, raw)
                self._store(key, found)
                future.set_result(found)
            except BaseException as exc:  # noqa: BLE001 (handed to the waiting caller)
                future.set_exception(exc)
            finally:
                with self._lock:
                    self._pending.pop(key, None)

        # a daemon thread: a search that stopped waiting does not keep its process alive
        threading.Thread(target=read, name="arr-reader", daemon=True).start()
        return future

    def _judged(self, suffix: str, raw: bytes) -> View | Unreadable:
        """The reader's view under the guard, then the walls (payloads, credentials)."""
        from arr.readers.walls import walled
        from arr.safety import file_rule

        try:
            judged = walled(self.guard.read(suffix, raw))  # the worker's reply, judged again
        except Unreadable as exc:
            return exc
        if isinstance(judged, str):
            return Unreadable(file_rule.CREDENTIAL, "credential-like text")
        view = judged
        if suffix == ".pdf":  # typeset lines judged; grep's lines are sentences from here
            from arr.readers.reflow import reflowed

            view = reflowed(view)
        if not view.units:
            return Unreadable(NO_TEXT, "nothing to index: no page, cell, section or entry text")
        return view

    def text_file(self, name: str, raw: bytes, within_s: float | None = None) -> Path | None:
        """The cached file of the view's lines (what grep's engine searches), or None when
        there is no cache folder or it cannot be written; raises Unreadable (NotReady)."""
        if self.cache_dir is None:
            self.view(name, raw, within_s)
            return None
        key = self.digest(name, raw)
        try:
            path = self._path(key, ".txt")
        except OSError:
            self._view(name, raw, within_s, key)
            return None
        if _plain_file(path):  # written only for a view that passed: no need to load it again
            return path
        view = self._view(name, raw, within_s, key)
        if not _plain_file(path):  # none, or a link put there: replaced by the view itself
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
        folder = self.cache_dir / key[:2]
        if folder.is_symlink():  # a link put in the index folder: never read or written through
            folder.unlink()  # (an OSError here: the caller does without the cache)
        return folder / f"{key}{suffix}"

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
            path = self._path(key, ".json")
            if not _plain_file(path):
                return None  # not cached, or a link put in its place: read again
            text = path.read_text(encoding="utf-8")
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
        self.guard.close()


def _plain_file(path: Path) -> bool:
    """A regular file of one name, no link: what the cache itself writes."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1
