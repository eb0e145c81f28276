"""ripgrep as a subprocess: its command line, its pipes read while it runs, its rows parsed.

What it reports is a candidate only: every line is re-read and verified under the one file rule
(:mod:`arr.tools.grep.verify`) before anything is returned. Links are not followed, sensitive
names are excluded by glob, files above the size cap are skipped, each file stops at a match
cap, and a wall-clock deadline kills the process (what arrived so far is kept).
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from arr import codes
from arr.readers.registry import engine_glob
from arr.safety.engine_globs import ENGINE_EXCLUDE_ARGS
from arr.tools.base import ChannelError

# the files searched only in their views (arr.tools.grep.views): every reader's suffix, from
# the registry (the engine imports that list, never a reader)
READER_GLOB = engine_glob()

# A narrowed scan hands ripgrep its files by name, at most this many per run (a command line
# has a limit).
ENGINE_BATCH_FILES = 2000
_STATS_SEARCHED = re.compile(rb"^(\d+) files searched$", re.MULTILINE)
# A match row of ``rg --null --line-number``: path NUL number ":" text (CR kept: see verify)
_ROW = re.compile(rb"^([^\x00\n]*)\x00(\d+):([^\n]*)$", re.MULTILINE)
# A row of ``rg --null --count``: path NUL lines-in-file
_COUNT_ROW = re.compile(rb"^([^\x00\n]*)\x00(\d+)$", re.MULTILINE)
# Per request: root -> the hard-linked files the walk found there (relative paths), which the
# engine is told to skip (the one file rule: ripgrep never opens them either).
HARD_LINKS: ContextVar[Mapping[str, Sequence[str]] | None] = ContextVar(
    "arr_grep_hard_links", default=None
)
# Beyond this many the command line grows too long; the verifier still refuses each file.
MAX_EXCLUDED_FILES = 500
_GLOB_SPECIAL = re.compile(r"([\\*?\[\]{}!])")
_FILE_ERROR = re.compile(r"^rg: .+: .*\(os error (\d+)\)$")
# errno -> trace counter: a file that vanished mid-scan, or one the process may not read.
_ERRNO_REASON = {2: "skipped_vanished", 13: "skipped_unreadable", 1: "skipped_unreadable"}


@dataclass(slots=True)
class Hit:
    path: str  # relative to the root, POSIX
    line: int
    text: bytes  # the line as ripgrep read it, without its end of line; decoded only if kept


def exclusion_glob(relative: str) -> str:
    """A ripgrep glob that skips exactly ``relative`` below the search root."""
    return "--glob=!/" + _GLOB_SPECIAL.sub(r"\\\1", relative)


def find_rg(configured: str | None) -> str | None:
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    beside_python = Path(sys.executable).parent / "rg"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    return shutil.which("rg")


class LineBuffer:
    """Complete rows out of a byte stream, in time linear in the bytes: a line that spans many
    reads (a 50 MB minified file) is kept as pieces and joined once, when its end arrives, not
    re-copied with every read."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self.copied = 0  # bytes copied while joining (tests pin linearity on it)

    def feed(self, chunk: bytes) -> bytes:
        """The complete rows this chunk ends (b"" when it ends none)."""
        end = chunk.rfind(b"\n")
        if end < 0:
            self._pieces.append(chunk)
            return b""
        head, tail = chunk[: end + 1], chunk[end + 1 :]
        if self._pieces:
            self._pieces.append(head)
            head = b"".join(self._pieces)
            self.copied += len(head)
        self._pieces = [tail] if tail else []
        return head

    def rest(self) -> bytes:
        """What is left after the stream ends (a last row without its newline)."""
        rest = b"".join(self._pieces)
        self._pieces = []
        return rest


class ErrorReader:
    """ripgrep's stderr, line by line: per-file I/O errors are counted by reason (its exit 2
    then means "some files could not be read", not a bad pattern); other lines are kept."""

    def __init__(self) -> None:
        self.file_errors: Counter[str] = Counter()
        self.other: list[str] = []
        self._pending = b""

    def feed(self, data: bytes) -> None:
        lines = (self._pending + data).split(b"\n")
        self._pending = lines.pop()[-4096:]
        for raw in lines:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            match = _FILE_ERROR.match(line)
            if match is not None:
                self.file_errors[_ERRNO_REASON.get(int(match.group(1)), "skipped_io_error")] += 1
            elif len(self.other) < 20:
                self.other.append(line)


def parse_rows(
    block: bytes,
    hits: list[Hit],
    counters: Counter[str],
    names: dict[bytes, str | None],
    count: bool = False,
) -> None:
    """``path NUL line:text`` rows, then ripgrep's ``--stats`` block (rows without NUL).

    Bulk: one C-level regex pass over the block finds every well-formed row (a row cut by the
    deadline has no line number and does not match); Python touches each row once to make its
    hit, and decodes each file name once."""
    searched = _STATS_SEARCHED.search(block) if b" files searched" in block else None
    if searched:
        counters["files_scanned"] = int(searched.group(1))
    found = (
        [(path, number, b"") for path, number in _COUNT_ROW.findall(block)]
        if count
        else _ROW.findall(block)
    )
    for path in {path for path, _, _ in found} - names.keys():
        try:
            name = path.decode("utf-8")
            names[path] = name[2:] if name.startswith("./") else name
        except UnicodeDecodeError:
            names[path] = None
    bad = 0
    append = hits.append
    for path, number, text in found:
        name = names[path]
        if name is None:
            bad += int(number) if count else 1  # its lines, as a line-mode run counts
        else:
            append(Hit(name, int(number), text))
    if bad:
        counters["skipped_non_utf8_name"] += bad


@dataclass(frozen=True)
class Engine:
    """One configured ripgrep: its executable and the caps every run carries."""

    rg: str
    max_file_bytes: int
    max_matches_per_file: int
    threads: int = 0

    def command(
        self,
        patterns: list[str],
        regex: bool,
        targets: list[str],
        count: bool = False,
        excluded: Sequence[str] = (),
        views: bool = False,
    ) -> list[str]:
        command = [
            self.rg,
            *(["--count"] if count else []),
            "--no-heading",
            "--with-filename",
            "--line-number",
            "--null",
            "--stats",
            "--color=never",
            "--no-config",
            "--no-follow",
            "--no-ignore",
            "--hidden",
            # File errors (permission denied, vanished mid-scan) come on stderr and are
            # counted by reason; they never turn a scan into an "invalid pattern".
            f"--max-filesize={self.max_file_bytes}",
            f"--max-count={self.max_matches_per_file}",
            "--regex-size-limit=10M",
            "--dfa-size-limit=10M",
        ]
        if self.threads:
            command.append(f"--threads={self.threads}")
        command += ["--fixed-strings", "--ignore-case"] if not regex else []
        command += ENGINE_EXCLUDE_ARGS
        if not views:  # PDFs, notebooks, LaTeX, BibTeX: searched in their views instead
            command.append(READER_GLOB)
        if len(excluded) <= MAX_EXCLUDED_FILES:
            command += [exclusion_glob(relative) for relative in excluded]
        for pattern in patterns:
            command.append(f"--regexp={pattern}")
        return [*command, "--", *targets]

    def _run_once(
        self, root: Path, command: list[str], deadline: float, max_rows: int, count: bool
    ) -> tuple[list[Hit], dict[str, int], str]:
        """One ripgrep process: its hits, counters and cut reason (see ``run``). Output is
        parsed while ripgrep still runs (the two overlap on two cores); at the deadline, or once
        ``max_rows`` rows arrived (cut "rows"), ripgrep is killed and what arrived is kept."""
        hits: list[Hit] = []
        counters: Counter[str] = Counter()
        cut, buffer = "", LineBuffer()
        names: dict[bytes, str | None] = {}
        process = subprocess.Popen(
            command,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
        assert process.stdout is not None and process.stderr is not None
        errors = ErrorReader()
        # A selector, not select.select(): a long-lived process (a server, a test session)
        # may hold over 1,024 descriptors, and select() refuses any numbered above that.
        selector = selectors.DefaultSelector()
        try:
            out_fd, err_fd = process.stdout.fileno(), process.stderr.fileno()
            selector.register(out_fd, selectors.EVENT_READ)
            selector.register(err_fd, selectors.EVENT_READ)
            err_open = True
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    cut = "deadline"
                    break
                ready = {key.fd for key, _ in selector.select(remaining)}
                if err_open and err_fd in ready:  # drained as it comes: a full pipe blocks rg
                    data = os.read(err_fd, 1 << 16)
                    if data:
                        errors.feed(data)
                    else:
                        selector.unregister(err_fd)
                        err_open = False
                if out_fd not in ready:
                    continue
                chunk = os.read(out_fd, 1 << 18)
                if not chunk:
                    break
                rows = buffer.feed(chunk)
                if rows:
                    parse_rows(rows, hits, counters, names, count)
                if max_rows and len(hits) >= max_rows:
                    del hits[max_rows:]  # the bound is exact, whatever the read size
                    cut = "rows"
                    break
        except BaseException:
            cut = "error"  # never wait on an engine blocked on a pipe nobody reads
            raise
        finally:
            selector.close()
            if cut:
                process.kill()
            returncode = process.wait()
            if not cut:
                errors.feed(process.stderr.read(1 << 20))
            process.stdout.close()
            process.stderr.close()
        if cut != "rows":
            parse_rows(buffer.rest(), hits, counters, names, count)
        errors.feed(b"\n")
        counters.update(errors.file_errors)  # files that could not be read: counted by reason
        if not cut and returncode not in (0, 1) and (errors.other or not errors.file_errors):
            # Not (only) unreadable or vanished files: the pattern itself was refused.
            message = errors.other[-1] if errors.other else "rg failed"
            raise ChannelError(codes.INVALID_PATTERN, message[:300])
        return hits, dict(counters), cut

    def run(
        self,
        root: Path,
        patterns: list[str],
        regex: bool,
        targets: list[str],
        deadline: float,
        max_rows: int = 0,
        count: bool = False,
        views: bool = False,
    ) -> tuple[list[Hit], dict[str, int], str]:
        """Raw candidate hits from ripgrep (unverified), its counters and a cut reason; with
        ``count``, one hit per file whose ``line`` is the number of its matching lines. A long
        list of files runs in batches that fit a command line; ``max_rows`` (0: none) bounds
        the rows over all of them."""
        hits: list[Hit] = []
        counters: Counter[str] = Counter()
        cut = ""
        excluded = () if views else (HARD_LINKS.get() or {}).get(str(root), ())
        for start in range(0, len(targets), ENGINE_BATCH_FILES):
            left = max_rows - len(hits) if max_rows else 0
            batch = targets[start : start + ENGINE_BATCH_FILES]
            command = self.command(patterns, regex, batch, count, excluded, views)
            found, engine_counters, cut = self._run_once(root, command, deadline, left, count)
            hits += found
            counters.update(engine_counters)  # files scanned and skipped add up over batches
            if cut:
                break
        return hits, dict(counters), cut
