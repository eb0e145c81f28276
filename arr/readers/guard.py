"""The one guard every reader runs under: a worker process with a time and memory budget.

:class:`Guard` sends a file's bytes to the reading worker (:mod:`arr.readers.worker`) and
waits at most ``timeout_s``; a worker that does not answer in time is killed (the file is
``extract_timeout``), one that dies is replaced (``extract_memory`` when it died of its memory
limit, else ``unreadable``). A hostile file costs its own budget and never more: the next file
gets a fresh worker. Reads are serialised (one worker, one file at a time).

How a death is told to be memory: ``RLIMIT_AS`` makes an allocation fail; Python code gets a
``MemoryError`` (the worker answers ``extract_memory`` itself), native code aborts
(SIGABRT/SIGTRAP/SIGILL/SIGBUS) or crashes. While waiting, the guard samples the worker's
``VmPeak`` (the quantity the limit bounds); a death by one of those signals, or after a peak
within 20% of the limit, is ``extract_memory``.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time

from arr.readers.view import EXTRACT_MEMORY, EXTRACT_TIMEOUT, UNREADABLE, Unreadable, View
from arr.readers.worker import LENGTH

_MEMORY_SIGNALS = {signal.SIGABRT, signal.SIGTRAP, signal.SIGILL, signal.SIGBUS, signal.SIGKILL}
GRACE_S = 2.0  # the worker's own start (Python and PDFium load) beyond the file's budget


def _vm_peak_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmPeak:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class _Worker:
    """One reading child and its pipes; replaced when it times out or dies."""

    def __init__(self, memory_mb: int) -> None:
        self.memory_mb = memory_mb
        self.peak_kb = 0
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arr.readers.worker", str(memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def ask(self, header: dict, raw: bytes, timeout_s: float) -> dict:
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        body = json.dumps(header).encode()
        deadline = time.monotonic() + timeout_s
        try:
            # written in parts: a 100 MB notebook is not copied once more to be sent
            process.stdin.write(LENGTH.pack(len(body)) + body + LENGTH.pack(len(raw)))
            process.stdin.write(raw)
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None
        reply = self._read(LENGTH.size, deadline)
        (size,) = LENGTH.unpack(reply)
        return json.loads(self._read(size, deadline))

    def _read(self, size: int, deadline: float) -> bytes:
        out = self.process.stdout
        assert out is not None
        fd = out.fileno()
        data = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while len(data) < size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                if not selector.select(min(left, 0.05)):
                    self.peak_kb = max(self.peak_kb, _vm_peak_kb(self.process.pid))
                    continue
                chunk = os.read(fd, min(1 << 20, size - len(data)))
                if not chunk:  # the worker died: a crash in native code, or out of memory
                    raise self._died()
                data += chunk
        return bytes(data)

    def _died(self) -> Unreadable:
        self.peak_kb = max(self.peak_kb, _vm_peak_kb(self.process.pid))
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        limit_kb = self.memory_mb * 1024
        by_signal = code is not None and code < 0 and -code in _MEMORY_SIGNALS
        near_limit = limit_kb > 0 and self.peak_kb >= 0.8 * limit_kb
        if limit_kb > 0 and (by_signal or near_limit):
            return Unreadable(EXTRACT_MEMORY, f"over the {self.memory_mb} MB reading memory limit")
        how = f"signal {-code}" if code is not None and code < 0 else f"exit {code}"
        return Unreadable(UNREADABLE, f"the reader stopped on this file ({how})")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class Guard:
    """``read(suffix, bytes) -> View`` under the per-file budget (plain values; the worker
    starts on first use and is stopped at exit)."""

    def __init__(self, timeout_s: float = 20.0, memory_mb: int = 1536, max_pages: int = 2000):
        if timeout_s <= 0 or memory_mb < 0 or max_pages < 1:
            raise ValueError("timeout_s and max_pages must be > 0, memory_mb >= 0")
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.max_pages = max_pages
        self._lock = threading.Lock()
        self._worker: _Worker | None = None

    def read(self, suffix: str, raw: bytes) -> View:
        header = {"suffix": suffix, "max_pages": self.max_pages, "budget_s": self.timeout_s}
        with self._lock:
            if self._worker is None or self._worker.process.poll() is not None:
                self._worker = _Worker(self.memory_mb)
                _LIVE.add(self._worker)
            worker = self._worker
            try:
                reply = worker.ask(header, raw, self.timeout_s + GRACE_S)
            except TimeoutError:
                self._drop(worker)
                raise Unreadable(EXTRACT_TIMEOUT, f"over {self.timeout_s:g} s") from None
            except Unreadable:
                self._drop(worker)
                raise
            except (ValueError, OSError) as exc:  # a garbled reply: the worker is not trusted
                self._drop(worker)
                raise Unreadable(UNREADABLE, f"the reader's reply: {exc}"[:200]) from None
        if "reason" in reply:
            raise Unreadable(str(reply["reason"]), str(reply.get("detail", "")))
        return View.from_json(reply["view"])

    def _drop(self, worker: _Worker) -> None:
        worker.close()
        _LIVE.discard(worker)
        self._worker = None

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._drop(self._worker)


# Every worker started and not yet stopped: killed at exit, whatever became of its guard (a
# worker busy on a hostile file would otherwise outlive the command that started it).
_LIVE: set[_Worker] = set()


@atexit.register
def _close_at_exit() -> None:
    for worker in list(_LIVE):
        worker.close()
