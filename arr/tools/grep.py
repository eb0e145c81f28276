"""Safe grep channel: line evidence from the trusted roots of the request scope, via ripgrep.

Config: ``conf/tools/grep.yaml``. Two layers, so a fast engine never decides what is returned:

1. ripgrep (``rg`` from the ``ripgrep==14.1.0`` wheel; Rust regex, linear time) scans the
   scope's roots with links not followed, sensitive names excluded by glob, a file-size cap,
   a per-file match cap and a wall-clock deadline. Literal search is the default; regex is
   opt-in per call. A bad pattern is a ChannelError with code ``invalid_pattern``.
2. Every file ripgrep reports is re-read here under the one file rule (:mod:`arr.file_rule`):
   component by component with ``O_NOFOLLOW`` from the root's directory descriptor (no symlink
   anywhere on the path), a regular file with one hard link, within the size cap, without NUL
   bytes and without credential-like content; each reported line must equal the line read
   here. Snippets come only from these verified bytes, so a file swapped for a link mid-scan,
   or any secret, never leaks.

Sub-paths named by a call are checked before any file is touched (``path_*`` reason codes).
Lines are ranked by how many of the query's terms they contain, then by file match density,
then by path and line number. Counters (files scanned, skipped by reason, matches) go to the
trace.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from arr import file_rule
from arr.errors import ConfigError
from arr.models import FRESH, EvidenceChunk, Freshness, Location, ScopeKey, ToolCall
from arr.safety import (
    ENGINE_EXCLUDE_GLOB,
    SENSITIVE_DIRS,
    is_sensitive_name,
)
from arr.tools import grep_prefilter as prefilter
from arr.tools.base import ChannelAnswer, ChannelError, seconds_left
from arr.tools.grep_paths import path_hits, path_tokens
from arr.tools.partition import (
    build_generation,
    current_generation,
    pointer_state,
    remove_partition,
)
from arr.workspace import Workspace

_STOP_WORDS = (
    "the a an and or of to in on for with at by is are was were be this that it from as why how "
    "what when which does did do not no"
)
_STOP = frozenset(_STOP_WORDS.split())  # noqa: SIM905
# A narrowed scan hands ripgrep its files by name, at most this many per run (a command line
# has a limit).
ENGINE_BATCH_FILES = 2000
_STATS_SEARCHED = re.compile(rb"^(\d+) files searched$", re.MULTILINE)
# A match row of ``rg --null --line-number``: path NUL number ":" text (CR kept: see _verified)
_ROW = re.compile(rb"^([^\x00\n]*)\x00(\d+):([^\n]*)$", re.MULTILINE)
# A row of ``rg --null --count``: path NUL lines-in-file
_COUNT_ROW = re.compile(rb"^([^\x00\n]*)\x00(\d+)$", re.MULTILINE)
# A phrase stage that reports more lines than this is ranked from per-file counts first (see
# GrepTool._by_counts): parsing and ranking 16,000 lines of "def __init__" cost more than
# ripgrep's own read of the 3,700 files holding it.
COUNT_FIRST_ROWS = 1000
_BAD_PATH = re.compile(r"[\x00-\x1f\x7f-\x9f\\]|^[A-Za-z]:|:")  # C0, DEL, C1 controls


@dataclass(slots=True)
class _Hit:
    path: str  # relative to the root, POSIX
    line: int
    text: bytes  # the line as ripgrep read it, without its end of line; decoded only if kept


@dataclass(slots=True)
class _Candidate:
    label: str  # root prefix when a scope has several roots, else ""
    root: Path
    hit: _Hit
    score: float

    @property
    def file(self) -> str:
        """The path as the scope names it (with its root's prefix when it has several)."""
        return self.label + self.hit.path if self.label else self.hit.path


def _label(root: Path, roots: list[Path]) -> str:
    """How a scope with several roots prefixes a root's paths ("" with one root)."""
    return f"{root.name}/" if len(roots) > 1 else ""


def check_sub_path(sub_path: str) -> str | None:
    """Reason code for an unacceptable sub-path, or None. Pure: touches no file."""
    if _BAD_PATH.search(sub_path):
        return "path_invalid_characters"
    if not sub_path or sub_path != sub_path.strip():
        return "path_invalid"
    if sub_path.startswith("/"):
        return "path_absolute"
    parts = PurePosixPath(sub_path).parts
    if ".." in parts:
        return "path_escape"
    # "name." and "name " name another file on some file systems (and are a classic way to
    # slip past a name rule): refused, as the README says; "." alone is the current folder.
    if any(p != "." and p.endswith((" ", ".")) for p in parts):
        return "path_invalid"
    return None


def literal_terms(query: str, max_terms: int = 8) -> list[str]:
    """The whole query, then its distinct content words (>= 3 chars), for OR-ed literal search."""
    whole = query.strip()
    words = [w for w in re.findall(r"[\w.\-/:]+", whole) if len(w) >= 3 and w.lower() not in _STOP]
    terms = [whole] + [w for w in dict.fromkeys(words) if w != whole]
    return terms[:max_terms]


def co_occurrence_pattern(words: list[str]) -> str:
    """A case-insensitive regex for lines holding at least two of ``words`` (every ordered
    pair, so the engine does the ranking's first cut instead of Python reading every line that
    holds one common word)."""
    escaped = [re.escape(w) for w in words]
    pairs = [f"{a}.*{b}" for a in escaped for b in escaped if a != b]
    return "(?i)" + "|".join(pairs)


@dataclass(frozen=True)
class _Stage:
    """One engine run of a search: its patterns, regex or fixed strings, a row bound (0: none),
    and for the word index the literals of which a matching line holds ``at_least`` (no
    literals: a regex, which the index cannot narrow)."""

    patterns: list[str]
    regex: bool
    max_rows: int = 0
    literals: tuple[str, ...] = ()
    at_least: int = 1
    words: bool = False  # a fallback over the query's words: its files are ranked and capped
    by_counts: bool = False  # the phrase stage: many lines are ranked from per-file counts


# Per request: root -> the hard-linked files the walk found there (relative paths), which the
# engine is told to skip (the one file rule: ripgrep never opens them either).
_HARD_LINKS: ContextVar[Mapping[str, Sequence[str]] | None] = ContextVar(
    "arr_grep_hard_links", default=None
)
# Beyond this many the command line grows too long; the verifier still refuses each file.
MAX_EXCLUDED_FILES = 500
RECENT_WALK_S = 2.0  # an unwatched walk serves the call and its trace counters, no longer
_GLOB_SPECIAL = re.compile(r"([\\*?\[\]{}!])")


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


_FILE_ERROR = re.compile(r"^rg: .+: .*\(os error (\d+)\)$")


# errno -> trace counter: a file that vanished mid-scan, or one the process may not read.
_ERRNO_REASON = {2: "skipped_vanished", 13: "skipped_unreadable", 1: "skipped_unreadable"}


class _LineBuffer:
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


class _ErrorReader:
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


class GrepTool:
    read_only = True
    provider = "local"
    summary = (
        "grep: exact line search in the project's trusted directories (code, notes, "
        "configs, logs); best for error messages, symbols, config keys and metric names"
    )

    def __init__(
        self,
        name: str,
        workspace: Workspace,
        top_k: int = 20,
        max_matches_per_file: int = 5,
        max_engine_matches_per_file: int = 200,
        max_file_bytes: int | None = None,
        max_line_chars: int = 300,
        context_lines: int = 1,
        max_pattern_chars: int = 256,
        deadline_ms: int = 5000,
        threads: int = 0,
        rg_path: str | None = None,
        max_any_word_rows: int = 20_000,
        max_narrowed_share: float = 0.7,
        max_word_stage_files: int = 1000,
    ) -> None:
        # One cap for every channel: the workspace's, unless this tool names its own.
        max_file_bytes = workspace.max_file_bytes if max_file_bytes is None else max_file_bytes
        for label, value in (
            ("top_k", top_k),
            ("max_matches_per_file", max_matches_per_file),
            ("max_file_bytes", max_file_bytes),
            ("max_line_chars", max_line_chars),
            ("max_pattern_chars", max_pattern_chars),
            ("deadline_ms", deadline_ms),
            ("max_engine_matches_per_file", max_engine_matches_per_file),
            ("max_any_word_rows", max_any_word_rows),
            ("max_word_stage_files", max_word_stage_files),
        ):
            if value < 1:
                raise ValueError(f"{label} must be >= 1, got {value}")
        if context_lines < 0 or threads < 0:
            raise ValueError("context_lines and threads must be >= 0")
        self.name = name
        self.workspace = workspace
        self.top_k = top_k
        self.max_matches_per_file = max_matches_per_file
        self.max_engine_matches_per_file = max_engine_matches_per_file
        self.max_any_word_rows = max_any_word_rows
        self.max_word_stage_files = max_word_stage_files
        if not 0.0 <= max_narrowed_share <= 1.0:
            raise ValueError(f"max_narrowed_share must be in 0..1, got {max_narrowed_share}")
        self.max_narrowed_share = max_narrowed_share
        self.index_dir = workspace.index_dir / name
        self._indexes: dict[str, tuple[Any, prefilter.WordIndex | None]] = {}
        self._index_lock = threading.Lock()
        self._recent_walks: dict[str, tuple[float, prefilter.TreeWalk]] = {}
        self._view: tuple[Any, Any, tuple[np.ndarray, list[set[str]]]] | None = None
        self.max_file_bytes = max_file_bytes
        self.max_line_chars = max_line_chars
        self.context_lines = context_lines
        self.max_pattern_chars = max_pattern_chars
        self.deadline_ms = deadline_ms
        self.threads = threads
        self.rg_path = rg_path
        self._rg: str | None = None

    def warm_up(self) -> None:
        if self._rg is None:
            self._rg = find_rg(self.rg_path)
            if self._rg is None:
                raise ConfigError(
                    "ripgrep not found: pip install --only-binary ripgrep "
                    "ripgrep==14.1.0 (or set tools.grep.rg_path)"
                )

    def freshness(self, scope: ScopeKey) -> Freshness:
        return FRESH  # grep reads the live tree; there is no index to go stale

    # ---- the engine ---------------------------------------------------------------------------
    def _command(
        self,
        patterns: list[str],
        regex: bool,
        targets: list[str],
        count: bool = False,
        excluded: Sequence[str] = (),
    ) -> list[str]:
        assert self._rg is not None
        command = [
            self._rg,
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
            f"--max-count={self.max_engine_matches_per_file}",
            "--regex-size-limit=10M",
            "--dfa-size-limit=10M",
        ]
        if self.threads:
            command.append(f"--threads={self.threads}")
        command += ["--fixed-strings", "--ignore-case"] if not regex else []
        command.append(f"--iglob={ENGINE_EXCLUDE_GLOB}")
        if len(excluded) <= MAX_EXCLUDED_FILES:
            command += [exclusion_glob(relative) for relative in excluded]
        for pattern in patterns:
            command.append(f"--regexp={pattern}")
        return [*command, "--", *targets]

    def _run_engine(
        self,
        root: Path,
        patterns: list[str],
        regex: bool,
        targets: list[str],
        deadline: float,
        max_rows: int = 0,
        count: bool = False,
    ) -> tuple[list[_Hit], dict[str, int], str]:
        """Raw candidate hits from ripgrep (unverified), its counters and a cut reason; with
        ``count``, one hit per file whose ``line`` is the number of its matching lines.

        Output is parsed while ripgrep still runs (the two overlap on two cores); at the
        deadline, or once ``max_rows`` rows arrived (cut "rows"), ripgrep is killed and what
        arrived so far is kept.
        """
        hits: list[_Hit] = []
        counters: Counter[str] = Counter()
        cut, buffer = "", _LineBuffer()
        names: dict[bytes, str | None] = {}
        process = subprocess.Popen(
            self._command(
                patterns, regex, targets, count, (_HARD_LINKS.get() or {}).get(str(root), ())
            ),
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
        )
        assert process.stdout is not None and process.stderr is not None
        errors = _ErrorReader()
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
                    self._parse(rows, hits, counters, names, count)
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
            self._parse(buffer.rest(), hits, counters, names, count)
        errors.feed(b"\n")
        counters.update(errors.file_errors)  # files that could not be read: counted by reason
        if not cut and returncode not in (0, 1) and (errors.other or not errors.file_errors):
            # Not (only) unreadable or vanished files: the pattern itself was refused.
            message = errors.other[-1] if errors.other else "rg failed"
            raise ChannelError("invalid_pattern", message[:300])
        return hits, dict(counters), cut

    @staticmethod
    def _parse(
        block: bytes,
        hits: list[_Hit],
        counters: Counter[str],
        names: dict[bytes, str | None],
        count: bool = False,
    ) -> None:
        """``path NUL line:text`` rows, then ripgrep's ``--stats`` block (rows without NUL).

        Bulk: one C-level regex pass over the block finds every well-formed row (a row cut
        by the deadline has no line number and does not match); Python touches each row
        once to make its hit, and decodes each file name once."""
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
                append(_Hit(name, int(number), text))
        if bad:
            counters["skipped_non_utf8_name"] += bad

    # ---- verification and ranking ---------------------------------------------------------
    def _check_file(self, root_fd: int, path: str, counters: Counter[str]) -> list[bytes] | None:
        """The file's lines when the one file rule admits it now, else None (reason counted)."""
        content, reason = file_rule.read_file(root_fd, path, self.max_file_bytes)
        if content is None:
            counters[f"skipped_{reason or 'unreadable'}"] += 1
            return None
        # Split on LF only, as ripgrep counts lines; a CR before it is dropped on comparison.
        return content.split(b"\n")

    def _verified(
        self,
        candidates: Iterable[_Candidate],
        counters: Counter[str],
        deadline: float,
        files: dict[tuple[Path, str], list[bytes] | None] | None = None,
    ) -> Iterator[tuple[_Candidate, list[bytes]]]:
        """Candidates (in the given order) whose file passes the safety rules and whose line
        is exactly what ripgrep reported; each file is opened and checked once."""
        files = {} if files is None else files
        root_fds: dict[Path, int] = {}
        try:
            for candidate in candidates:
                key = (candidate.root, candidate.hit.path)
                if key not in files:
                    if time.monotonic() >= deadline:
                        counters["_deadline_in_verify"] = 1
                        return
                    if candidate.root not in root_fds:
                        root_fds[candidate.root] = os.open(
                            candidate.root, os.O_RDONLY | os.O_DIRECTORY
                        )
                    files[key] = self._check_file(root_fds[candidate.root], key[1], counters)
                lines = files[key]
                if lines is None:
                    continue
                hit = candidate.hit
                if hit.line > len(lines) or lines[hit.line - 1].rstrip(b"\r") != hit.text.rstrip(
                    b"\r"
                ):
                    counters["skipped_changed_during_scan"] += 1
                    continue
                yield candidate, lines
        finally:
            for fd in root_fds.values():
                os.close(fd)

    def _snippet(self, lines: list[bytes], line: int, counters: Counter[str]) -> str:
        last = len(lines) - (1 if lines and lines[-1] == b"" else 0)
        start, end = max(1, line - self.context_lines), min(last, line + self.context_lines)
        out = []
        for number in range(start, end + 1):
            text = lines[number - 1].rstrip(b"\r").decode("utf-8", "replace")
            if len(text) > self.max_line_chars:
                counters["long_lines_cut"] += 1
                text = text[: self.max_line_chars] + "…"
            out.append(text)
        return "\n".join(out)

    def _prepare(self, call: ToolCall, scope: ScopeKey) -> list[Path]:
        """Validate pattern and sub-path (before any file is touched); the scope's roots."""
        self.warm_up()
        if len(call.query) > self.max_pattern_chars:
            raise ChannelError(
                "pattern_too_long",
                f"pattern is {len(call.query)} chars; limit {self.max_pattern_chars}",
            )
        reason = check_sub_path(call.path) if call.path is not None else None
        if reason is not None:
            raise ChannelError(reason, f"sub-path {call.path!r} refused")
        spec = self.workspace.spec_for(scope)
        return self.workspace.root_paths(spec) if spec is not None else []

    def _targets(
        self,
        call: ToolCall,
        roots: list[Path],
        files: list[list[str]] | None,
        counters: Counter[str],
    ) -> Iterator[tuple[int, Path, str, list[str]]]:
        """Per root with something to scan: its number, path, label (the root's prefix when a
        scope has several) and the engine's targets (the sub-path, or the narrowed files)."""
        for number, root in enumerate(roots):
            target = self._target(root, call.path, counters)
            if target is None:
                continue
            targets = [target] if files is None else files[number]
            if targets:  # else the word index says no file of this root can match
                yield number, root, _label(root, roots), targets

    def _candidates(
        self,
        call: ToolCall,
        roots: list[Path],
        stage: _Stage,
        terms: list[str],
        deadline: float,
        counters: Counter[str],
        files: list[list[str]] | None = None,
    ) -> tuple[list[_Candidate], str]:
        """Unverified hits of the stage's patterns in every root (or only in ``files``, per
        root, when the word index narrowed the scan), scored by the ``terms`` they hold."""
        byte_terms = [t.encode("utf-8") for t in terms]
        whole_holds = self._whole_score(byte_terms)
        candidates: list[_Candidate] = []
        cut = capped = ""
        for _, root, label, targets in self._targets(call, roots, files, counters):
            hits, engine_counters, cut = self._run_batches(
                root, stage.patterns, stage.regex, targets, deadline, stage.max_rows
            )
            if cut == "rows" and stage.by_counts:
                break  # many lines: the caller ranks them from per-file counts instead
            if cut == "rows":  # the bounded any-word stage: more lines existed than were read
                counters["engine_rows_cut"] += 1
                cut = "cap"
            for key, value in engine_counters.items():
                counters[key] = max(counters[key], value)
            # ripgrep stops reading a file at --max-count: such a file may hold more lines
            at_cap = (
                sum(
                    n == self.max_engine_matches_per_file
                    for n in Counter(h.path for h in hits).values()
                )
                if len(hits) >= self.max_engine_matches_per_file  # else no file can be at it
                else 0
            )
            if at_cap:
                counters["files_at_engine_cap"] += at_cap
            if call.regex:
                candidates += [_Candidate(label, root, hit, 1.0) for hit in hits]
            else:
                candidates += [
                    _Candidate(label, root, hit, self._score(hit.text, byte_terms, whole_holds))
                    for hit in hits
                ]
            if cut == "cap":  # this root was read up to the bound; the others still are
                capped, cut = "cap", ""
            if cut:
                break
        return candidates, cut or capped

    def _run_batches(
        self,
        root: Path,
        patterns: list[str],
        regex: bool,
        targets: list[str],
        deadline: float,
        max_rows: int,
        count: bool = False,
    ) -> tuple[list[_Hit], dict[str, int], str]:
        """``_run_engine`` over a long list of files in batches that fit a command line."""
        hits: list[_Hit] = []
        counters: Counter[str] = Counter()
        cut = ""
        for start in range(0, len(targets), ENGINE_BATCH_FILES):
            left = max_rows - len(hits) if max_rows else 0
            found, engine_counters, cut = self._run_engine(
                root,
                patterns,
                regex,
                targets[start : start + ENGINE_BATCH_FILES],
                deadline,
                left,
                count,
            )
            hits += found
            counters.update(engine_counters)  # files scanned and skipped add up over batches
            if cut:
                break
        return hits, dict(counters), cut

    @staticmethod
    def _whole_score(byte_terms: list[bytes]) -> float:
        """The score of a line holding the whole phrase when every word lies inside the phrase
        (such a line holds them all: one test scores it), else 0.0."""
        return float(len(byte_terms) + 1) if all(t in byte_terms[0] for t in byte_terms) else 0.0

    @staticmethod
    def _score(text: bytes, byte_terms: list[bytes], whole_holds: float) -> float:
        """Terms of the query the line holds, the whole phrase counting twice."""
        lowered = text.lower()
        if whole_holds and byte_terms[0] in lowered:
            return whole_holds
        return sum(t in lowered for t in byte_terms) + float(byte_terms[0] in lowered)

    def scan(self, call: ToolCall, scope: ScopeKey) -> tuple[list[_Candidate], Counter[str], str]:
        """Every verified hit of the exact query (phrase or regex), in path and line order,
        for benchmarks and audits."""
        roots = self._prepare(call, scope)
        with self._skipping_hard_links(scope, roots):
            return self._scan(call, roots)

    @contextlib.contextmanager
    def _skipping_hard_links(self, scope: ScopeKey, roots: list[Path]) -> Iterator[None]:
        """While inside, every engine run below one of ``roots`` skips the hard-linked files
        the walk found there (one walk per call; its counters are the trace's too)."""
        linked = self._tree(scope).hard_links if roots else ()
        token = _HARD_LINKS.set({str(r): found for r, found in zip(roots, linked, strict=False)})
        try:
            yield
        finally:
            _HARD_LINKS.reset(token)

    def _scan(
        self, call: ToolCall, roots: list[Path]
    ) -> tuple[list[_Candidate], Counter[str], str]:
        counters: Counter[str] = Counter()
        deadline = time.monotonic() + seconds_left(self.deadline_ms / 1000)
        terms = [call.query.lower()]
        candidates, cut = self._candidates(
            call, roots, _Stage([call.query], call.regex), terms, deadline, counters
        )
        candidates.sort(key=lambda c: (c.file, c.hit.line))
        verified = [c for c, _ in self._verified(candidates, counters, deadline)]
        if counters.pop("_deadline_in_verify", 0):
            cut = "deadline"
        counters["matches"] = len(verified)
        return verified, counters, cut

    def _target(self, root: Path, sub_path: str | None, counters: Counter[str]) -> str | None:
        """The engine's search target below root, checked component by component (no links)."""
        parts = PurePosixPath(sub_path).parts if sub_path is not None else ()
        if not parts:
            return "."
        if is_sensitive_name(PurePosixPath(*parts).as_posix()) or (
            parts[-1].lower() in SENSITIVE_DIRS  # a withheld folder named as the target itself
        ):
            # Named explicitly, ripgrep would read it despite the exclusion globs.
            raise ChannelError("path_sensitive", f"sub-path {sub_path!r} names a sensitive file")
        current = root
        info = root.lstat()
        for part in parts:
            current = current / part
            try:
                info = current.lstat()
            except OSError:
                counters["path_not_found"] += 1
                return None
            if stat.S_ISLNK(info.st_mode):
                raise ChannelError("path_symlink", f"sub-path {sub_path!r} goes through a link")
        if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
            raise ChannelError("path_not_regular", f"sub-path {sub_path!r} is not a file or dir")
        if stat.S_ISREG(info.st_mode) and info.st_nlink != 1:
            raise ChannelError("path_hardlink", f"sub-path {sub_path!r} has other hard links")
        # Containment on components of the resolved path, never on a string prefix.
        resolved = Path(os.path.realpath(current)).parts
        if resolved[: len(root.parts)] != root.parts:
            raise ChannelError("path_escape", f"sub-path {sub_path!r} leaves the root")
        return "./" + PurePosixPath(*parts).as_posix()

    def skip_counters(self, scope: ScopeKey) -> dict[str, int]:
        """Files the engine never opens, by reason (for the trace): a withheld match must not
        look like "nothing there". One scandir walk of the roots, remembered while a watched
        tree is unchanged."""
        return self._tree(scope).withheld

    def _tree(self, scope: ScopeKey) -> prefilter.TreeWalk:
        """The roots as ripgrep sees them (one walk, remembered while a watched tree is
        unchanged)."""
        spec = self.workspace.spec_for(scope)
        if spec is None:
            return prefilter.TreeWalk({}, [], [], [])

        def tree() -> prefilter.TreeWalk:
            # A watched router has (or will load) the word index: its walk's verdicts spare
            # opening unchanged files. A one-shot command does not load it for that alone.
            if not self.workspace.watching:
                return prefilter.walk(self.workspace.root_paths(spec), self.max_file_bytes)
            index = self._word_index(scope)
            # the indexes' walk of the same unchanged tree (remembered): its files need no
            # second lstat or name check (derived_from_tree made it just before this)
            sources = {f.path: (f.size, f.mtime_ns) for f in self.workspace.source_files(scope)}
            return prefilter.walk(
                self.workspace.root_paths(spec),
                self.max_file_bytes,
                index.known if index is not None else None,
                sources,
            )

        if self.workspace.watching:
            return self.workspace.derived_from_tree(scope, ("grep-walk", self.max_file_bytes), tree)
        # unwatched: the walk a call made is what its trace counts (skip_counters, just after)
        key = scope.fingerprint()
        with self._index_lock:
            recent = self._recent_walks.get(key)
        if recent is not None and time.monotonic() - recent[0] < RECENT_WALK_S:
            return recent[1]
        walked = tree()
        with self._index_lock:
            self._recent_walks[key] = (time.monotonic(), walked)
        return walked

    # ---- the word index (arr index) ---------------------------------------------------------
    def build(self, scope: ScopeKey) -> dict[str, Any]:
        """The scope's word index: which words each file ripgrep would read holds, so a
        look-up scans the files that can match instead of the whole tree."""
        spec = self.workspace.spec_for(scope)
        roots = self.workspace.root_paths(spec) if spec is not None else []
        tree = prefilter.walk(roots, self.max_file_bytes)
        manifest: dict[str, Any] = {
            "scope": scope.model_dump(),
            "built_at": time.time(),
            "skipped": {k.removeprefix("skipped_"): v for k, v in sorted(tree.withheld.items())},
        }

        def write(folder: Path) -> None:
            written = prefilter.write_index(folder, roots, tree, self.max_file_bytes)
            manifest["documents"] = written["files"]
            manifest["words"] = written["words"]
            for reason, count in written["refused"].items():  # the one file rule's reasons
                manifest["skipped"][reason] = manifest["skipped"].get(reason, 0) + count

        build_generation(self.index_dir, scope, manifest, write)
        with self._index_lock:
            self._indexes.pop(scope.fingerprint(), None)
        return manifest

    def rebuild(self, scope: ScopeKey) -> dict[str, Any]:
        """A build reads every file anyway; the new index is swapped in only when complete."""
        return self.build(scope)

    def reset(self, scope: ScopeKey) -> None:
        """Remove the scope's word index; calls scan the whole tree until the next build."""
        remove_partition(self.index_dir, scope)
        with self._index_lock:
            self._indexes.pop(scope.fingerprint(), None)

    def _word_index(self, scope: ScopeKey) -> prefilter.WordIndex | None:
        """The scope's loaded word index, reloaded when a build swapped a new one in."""
        key = scope.fingerprint()
        state = pointer_state(self.index_dir, scope)
        with self._index_lock:
            cached = self._indexes.get(key)
        if cached is not None and cached[0] == state:
            return cached[1]
        generation = current_generation(self.index_dir, scope) if state is not None else None
        loaded = None
        if generation is not None:
            try:
                loaded = prefilter.WordIndex(generation)
            except (OSError, ValueError):
                loaded = None  # damaged or older: the whole tree is scanned
        with self._index_lock:
            self._indexes[key] = (state, loaded)
        return loaded

    def _narrowing(
        self, scope: ScopeKey, call: ToolCall
    ) -> tuple[prefilter.WordIndex, prefilter.TreeWalk] | None:
        """Index and current walk when a call may scan fewer files: a watched tree (its walk is
        remembered) with a word index; None: scan the whole tree."""
        if call.regex or not self.workspace.watching:
            return None
        index = self._word_index(scope)
        return None if index is None else (index, self._tree(scope))

    def _files_to_scan(
        self,
        narrowing: tuple[prefilter.WordIndex, prefilter.TreeWalk] | None,
        stage: _Stage,
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
        self, index: prefilter.WordIndex, found: list[np.ndarray], rows: np.ndarray
    ) -> np.ndarray:
        """The ``max_word_stage_files`` of ``rows`` holding the rarest words (see above)."""
        total = len(index.entries)
        weight = np.zeros(total, dtype=np.float64)
        for held in found:  # each literal once per file
            weight[held] += np.log(1.0 + total / max(1, len(held)))
        order = np.lexsort((rows, -weight[rows]))  # heaviest first, then index order
        return np.sort(rows[order[: self.max_word_stage_files]])

    def _index_view(
        self, index: prefilter.WordIndex, tree: prefilter.TreeWalk
    ) -> tuple[np.ndarray, list[set[str]]]:
        """Which index rows name a file of the current walk in the state the index read
        (a mask), and per root the files of the walk the index does not know in their
        current state (always scanned); computed once per (index, walk) pair."""
        with self._index_lock:
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
        with self._index_lock:
            self._view = (index, tree, view)
        return view

    def _path_evidence(
        self,
        call: ToolCall,
        scope: ScopeKey,
        roots: list[Path],
        kept: list[tuple[_Candidate, str]],
    ) -> list[EvidenceChunk]:
        """The files the query names by path, ahead of the lines (arr.tools.grep_paths)."""
        if call.regex or call.path or not roots or not path_tokens(call.query):
            return []
        tree = self._tree(scope)
        labels = [_label(root, roots) for root in roots]
        found = path_hits(call.query, roots, tree.files, labels, self.max_file_bytes, 3)
        top = max((c.score for c, _ in kept), default=0.0) + 1.0
        return [
            EvidenceChunk(
                id=f"grep:{label}#L1",
                scope=scope,
                channel=self.name,
                location=Location(path=label, start_line=1, end_line=last),
                snippet=snippet,
                score=top,
                ranks={self.name: rank},
            )
            for rank, (label, last, snippet) in enumerate(found, 1)
        ]

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> ChannelAnswer:
        """The exact query first (phrase, or the regex); when that yields fewer lines than
        asked for, a literal query's words are searched too (OR-ed) and ranked after. Ranking
        comes before verification, so only files that reach the answer are re-read."""
        roots = self._prepare(call, scope)
        with self._skipping_hard_links(scope, roots):
            return self._retrieve(call, scope, roots)

    def _retrieve(self, call: ToolCall, scope: ScopeKey, roots: list[Path]) -> ChannelAnswer:
        counters: Counter[str] = Counter()
        deadline = time.monotonic() + seconds_left(self.deadline_ms / 1000)
        limit = call.top_k or self.top_k
        terms = (
            [call.query.lower()] if call.regex else [t.lower() for t in literal_terms(call.query)]
        )
        # The phrase stage of a literal whose words all lie inside it: every line it finds
        # ranks equal but for its file's count, so many lines are ranked from counts.
        countable = not call.regex and bool(self._whole_score([t.encode() for t in terms]))
        stages = [
            _Stage(
                [call.query],
                call.regex,
                COUNT_FIRST_ROWS if countable else 0,
                literals=() if call.regex else (call.query,),
                by_counts=countable,
            )
        ]
        words = [] if call.regex else literal_terms(call.query)[1:]
        if len(words) > 1:  # lines holding two or more of the words, found by the engine
            pattern = co_occurrence_pattern(words)
            stages.append(_Stage([pattern], True, literals=tuple(words), at_least=2, words=True))
        if words:  # then any word, read up to a bound: a common word matches most lines
            stages.append(
                _Stage(words, False, self.max_any_word_rows, literals=tuple(words), words=True)
            )
        kept: list[tuple[_Candidate, str]] = []
        seen: set[tuple[str, int]] = set()
        taken: Counter[str] = Counter()
        checked: dict[tuple[Path, str], list[bytes] | None] = {}  # files verified this call
        cut = ""
        narrowing = self._narrowing(scope, call) if roots else None
        for stage in stages:
            if len(kept) >= limit or cut == "deadline":
                break
            files = self._files_to_scan(narrowing, stage, call.path, counters)
            if files is not None:
                counters["files_narrowed"] = max(counters["files_narrowed"], sum(map(len, files)))
            # The phrase stage counts apart (the first stage: nothing counted yet but the
            # narrowing): with many lines it is answered from per-file counts instead, and
            # what this pass counted is dropped.
            counted: Counter[str] = Counter() if stage.by_counts else counters
            candidates, cut = self._candidates(call, roots, stage, terms, deadline, counted, files)
            if cut == "rows" and stage.by_counts:
                cut = self._by_counts(
                    call, roots, stage, terms, deadline, counters, files, limit, kept, taken,
                    checked,
                )  # fmt: skip
                seen.update((c.file, c.hit.line) for c, _ in kept)
                continue
            if counted is not counters:
                counters.update(counted)
            counters["matches"] += len(candidates)
            if seen:  # lines the exact stage already returned are not returned twice
                candidates = [c for c in candidates if (c.file, c.hit.line) not in seen]
            cut = self._take(candidates, counters, deadline, limit, kept, taken, checked) or cut
            seen.update((c.file, c.hit.line) for c, _ in kept)
        named = self._path_evidence(call, scope, roots, kept)
        lines = [
            EvidenceChunk(
                id=f"grep:{c.file}#L{c.hit.line}",
                scope=scope,
                channel=self.name,
                location=Location(path=c.file, start_line=c.hit.line, end_line=c.hit.line),
                snippet=snippet,
                score=c.score,
                ranks={self.name: rank},
            )
            for rank, (c, snippet) in enumerate(kept, len(named) + 1)
        ]
        evidence = (named + lines)[:limit]  # named files first, the call's limit over both
        if not cut and (
            counters["files_at_engine_cap"]
            or counters["lines_over_file_cap"]
            or counters["files_ranked_out"]
        ):
            cut = "cap"  # more lines existed than a per-file or per-stage cap let through
        return ChannelAnswer(evidence, {k: v for k, v in counters.items() if v}, cut)

    def _by_counts(
        self,
        call: ToolCall,
        roots: list[Path],
        stage: _Stage,
        terms: list[str],
        deadline: float,
        counters: Counter[str],
        files: list[list[str]] | None,
        limit: int,
        kept: list[tuple[_Candidate, str]],
        taken: Counter[str],
        checked: dict[tuple[Path, str], list[bytes] | None],
    ) -> str:
        """The phrase stage when it holds many lines, with the answer of reading them all.

        Every line of the phrase holds every term, so lines rank by their file's number of
        matching lines, then path and line (``_take``'s order). One engine pass counts the
        lines per file (``--count``, the same ``--max-count``); the files are ranked from the
        counts, and only the lines of the top files are read - a batch at a time, until the
        answer is full - and handed to ``_take`` with the counts, so ranking, per-file caps,
        verification and counters come out as if every line had been read. Lines that hold
        the phrase only under Unicode case folding (ripgrep's ``-i``, not Python's) score lower
        and rank after all others, as they would: they are kept back until every file is read.
        Returns the cut reason."""
        byte_terms = [t.encode("utf-8") for t in terms]
        whole = self._whole_score(byte_terms)  # every term lies inside the phrase (countable)
        ranked: list[tuple[int, str, int, str]] = []  # (-lines, file, root number, path)
        for number, root, label, targets in self._targets(call, roots, files, counters):
            found, engine_counters, cut = self._run_batches(
                root, stage.patterns, stage.regex, targets, deadline, 0, count=True
            )
            for key, value in engine_counters.items():
                counters[key] = max(counters[key], value)
            if cut:
                return cut
            ranked += [(-hit.line, label + hit.path, number, hit.path) for hit in found]
        ranked.sort()
        lines = {file: -negative for negative, file, _, _ in ranked}
        counters["matches"] += sum(lines.values())
        counters["files_at_engine_cap"] += sum(
            n == self.max_engine_matches_per_file for n in lines.values()
        )
        later: list[_Candidate] = []  # lines holding the phrase only under case folding
        position = 0
        while position < len(ranked):
            room, batch = 0, []
            while position < len(ranked) and room < limit - len(kept):
                negative, file, _, _ = ranked[position]
                batch.append(ranked[position])
                room += min(-negative, max(0, self.max_matches_per_file - taken[file]))
                position += 1
            candidates: list[_Candidate] = []
            for number, root in enumerate(roots):
                paths = [path for _, _, n, path in batch if n == number]
                if not paths:
                    continue
                found, _, cut = self._run_batches(
                    root, stage.patterns, stage.regex, paths, deadline, 0
                )
                if cut:
                    return cut
                label = _label(root, roots)
                for hit in found:
                    score = self._score(hit.text, byte_terms, whole)
                    (candidates if score == whole else later).append(
                        _Candidate(label, root, hit, score)
                    )
            cut = self._take(candidates, counters, deadline, limit, kept, taken, checked, lines)
            if cut:
                return cut
            if len(kept) >= limit and position < len(ranked):
                return "cap"  # full, and the next file's first line would have been next
        # the folded lines last; with the answer full they are only counted (per-file cap)
        return self._take(later, counters, deadline, limit, kept, taken, checked, lines)

    def _take(
        self,
        candidates: list[_Candidate],
        counters: Counter[str],
        deadline: float,
        limit: int,
        kept: list[tuple[_Candidate, str]],
        taken: Counter[str],
        checked: dict[tuple[Path, str], list[bytes] | None] | None = None,
        per_file: Mapping[str, int] | None = None,
    ) -> str:
        """Rank, then verify in rank order into ``kept``; returns a cut reason or "".
        ``checked``: files already verified in this call (each withheld file counted once);
        ``per_file``: the stage's matching lines per file when ``candidates`` are only some
        of them (ranked from counts)."""
        files = [c.file for c in candidates]
        if per_file is None:
            per_file = Counter(files)
        keys = [
            (-c.score, -per_file[f], f, c.hit.line) for c, f in zip(candidates, files, strict=True)
        ]
        order = sorted(range(len(candidates)), key=keys.__getitem__)
        candidates[:] = [candidates[i] for i in order]
        cut = ""
        for candidate, lines in self._verified(candidates, counters, deadline, checked):
            key = candidate.file
            if taken[key] >= self.max_matches_per_file:
                counters["lines_over_file_cap"] += 1  # withheld by the per-file cap: said
                continue
            if len(kept) == limit:
                cut = "cap"
                break
            taken[key] += 1
            kept.append((candidate, self._snippet(lines, candidate.hit.line, counters)))
        if counters.pop("_deadline_in_verify", 0):
            cut = "deadline"
        return cut
