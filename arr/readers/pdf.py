"""PDF reader: one unit per page, located as ``papers/x.pdf#page=7`` (pages as viewers count).

A page is shown with the heading that opens it (large type at its top: a paper's title in a
volume of papers), else the last such heading before it, else the file's title.

Text comes from PDFium (pypdfium2) in a worker process (:mod:`arr.readers.pdf_worker`) with a
memory limit; this side waits at most ``timeout_s`` per file, then kills the worker and names
the file ``extract_timeout``. Files are refused with a reason, never a traceback: a password
(``pdf_encrypted``), no text layer (``no_text``: scans; OCR is not done), a malformed or
truncated file (``unreadable``), more pages than ``max_pages`` (``pdf_too_many_pages``).
Extraction happens once per file version: views are cached by content
(:mod:`arr.readers.cache`).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import threading
import time

from arr.readers.pdf_worker import LENGTH
from arr.readers.view import (
    EXTRACT_TIMEOUT,
    UNREADABLE,
    Unreadable,
    View,
    build_view,
)


class _Worker:
    """One extraction child and its pipes; replaced when it times out or dies."""

    def __init__(self, memory_mb: int) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arr.readers.pdf_worker", str(memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def ask(self, header: dict, raw: bytes, timeout_s: float) -> dict:
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        body = json.dumps(header).encode()
        try:
            process.stdin.write(LENGTH.pack(len(body)) + body + LENGTH.pack(len(raw)) + raw)
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise Unreadable(UNREADABLE, "the extraction worker stopped") from None
        deadline = time.monotonic() + timeout_s
        reply = self._read(LENGTH.size, deadline)
        (size,) = LENGTH.unpack(reply)
        return json.loads(self._read(size, deadline))

    def _read(self, size: int, deadline: float) -> bytes:
        out = self.process.stdout
        assert out is not None
        fd = out.fileno()
        data = b""
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while len(data) < size:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise TimeoutError
                chunk = os.read(fd, min(1 << 20, size - len(data)))
                if not chunk:  # the worker died: a crash in native code, or out of memory
                    raise Unreadable(UNREADABLE, "the extractor stopped on this file")
                data += chunk
        return data

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class PdfReader:
    """``read(bytes) -> View`` for ``.pdf`` files (plain values; the worker starts on first use)."""

    suffixes = (".pdf",)
    version = "pdf-2"

    def __init__(
        self, max_pages: int = 2000, timeout_s: float = 20.0, memory_mb: int = 1536
    ) -> None:
        if max_pages < 1 or timeout_s <= 0 or memory_mb < 0:
            raise ValueError("max_pages and timeout_s must be > 0, memory_mb >= 0")
        self.max_pages = max_pages
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._lock = threading.Lock()
        self._worker: _Worker | None = None

    def read(self, raw: bytes) -> View:
        if not raw.lstrip()[:5].startswith(b"%PDF-") and b"%PDF-" not in raw[:1024]:
            raise Unreadable(UNREADABLE, "not a PDF (no %PDF- header)")
        header = {"max_pages": self.max_pages, "budget_s": self.timeout_s}
        with self._lock:
            if self._worker is None or self._worker.process.poll() is not None:
                self._worker = _Worker(self.memory_mb)
            worker = self._worker
            try:
                reply = worker.ask(header, raw, self.timeout_s + 2.0)
            except TimeoutError:
                worker.close()
                self._worker = None
                raise Unreadable(EXTRACT_TIMEOUT, f"over {self.timeout_s:g} s") from None
            except Unreadable:
                worker.close()
                self._worker = None
                raise
        if "reason" in reply:
            raise Unreadable(str(reply["reason"]), str(reply.get("detail", "")))
        title = reply.get("title")
        blocks = []
        shown = title  # a page's title: the heading that opens it, else the last one before
        for number, (lines, opening) in enumerate(
            zip(reply["pages"], reply.get("headings") or [None] * len(reply["pages"]), strict=True),
            1,
        ):
            shown = opening or shown
            blocks.append((f"page={number}", shown, lines))
        return build_view(blocks, file_lines=False, title=title)

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None
