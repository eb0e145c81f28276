"""Safe grep channel: line evidence from the trusted roots of the request scope, via ripgrep.

Config: ``conf/tools/grep.yaml``. Two layers, so a fast engine never decides what is returned:

1. ripgrep (``rg`` from the ``ripgrep==14.1.0`` wheel; Rust regex, linear time) scans the
   scope's roots with links not followed, sensitive names excluded by glob, a file-size cap,
   a per-file match cap and a wall-clock deadline. Literal search is the default; regex is
   opt-in per call. A bad pattern is a ChannelError with code ``invalid_pattern``.
2. Every file ripgrep reports is re-opened here, component by component with ``O_NOFOLLOW``
   from the root's directory descriptor (no symlink anywhere on the path), must be a regular
   file with one hard link, within the size cap, without NUL bytes and without credential-like
   content, and each reported line must equal the line read here. Snippets come only from
   these verified bytes, so a file swapped for a link mid-scan, or any secret, never leaks.

Sub-paths named by a call are checked before any file is touched (``path_*`` reason codes).
Lines are ranked by how many of the query's terms they contain, then by file match density,
then by path and line number. Counters (files scanned, skipped by reason, matches) go to the
trace.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arr.errors import ConfigError
from arr.models import FRESH, EvidenceChunk, Freshness, Location, ScopeKey, ToolCall
from arr.safety import ENGINE_EXCLUDE_GLOBS, credential_kind, is_sensitive_name
from arr.tools.base import ChannelAnswer, ChannelError
from arr.workspace import Workspace

_STOP = frozenset(
    (
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "at",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "this",
        "that",
        "it",
        "from",
        "as",
        "why",
        "how",
        "what",
        "when",
        "which",
        "does",
        "did",
        "do",
        "not",
        "no",
    )
)
_BAD_PATH = re.compile(r"[\x00-\x1f\x7f\\]|^[A-Za-z]:|:")


@dataclass(frozen=True)
class _Hit:
    path: str  # relative to the root, POSIX
    line: int
    text: str


def check_sub_path(sub_path: str) -> str | None:
    """Reason code for an unacceptable sub-path, or None. Pure: touches no file."""
    if not sub_path or sub_path != sub_path.strip():
        return "path_invalid"
    if _BAD_PATH.search(sub_path):
        return "path_invalid_characters"
    if sub_path.startswith("/"):
        return "path_absolute"
    if ".." in PurePosixPath(sub_path).parts:
        return "path_escape"
    return None


def literal_terms(query: str, max_terms: int = 8) -> list[str]:
    """The whole query, then its distinct content words (>= 3 chars), for OR-ed literal search."""
    whole = query.strip()
    words = [w for w in re.findall(r"[\w.\-/:]+", whole) if len(w) >= 3 and w.lower() not in _STOP]
    terms = [whole] + [w for w in dict.fromkeys(words) if w != whole]
    return terms[:max_terms]


def find_rg(configured: str | None) -> str | None:
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    beside_python = Path(sys.executable).parent / "rg"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return str(beside_python)
    return shutil.which("rg")


def open_verified(root_fd: int, relative: str, max_file_bytes: int) -> tuple[bytes | None, str]:
    """Read a file below root_fd without following any link; (content, "") or (None, reason)."""
    parts = PurePosixPath(relative).parts
    if not parts or ".." in parts or parts[0] == "/":
        return None, "path_escape"
    fds: list[int] = []
    try:
        current = root_fd
        for part in parts[:-1]:
            current = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=current)
            fds.append(current)
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=current)
        fds.append(fd)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "not_regular"
        if info.st_nlink != 1:
            return None, "hardlink"
        if info.st_size > max_file_bytes:
            return None, "oversize"
        content = os.read(fd, max_file_bytes + 1)
        while len(content) <= max_file_bytes:
            more = os.read(fd, max_file_bytes + 1 - len(content))
            if not more:
                break
            content += more
        if len(content) > max_file_bytes:
            return None, "oversize"
        return content, ""
    except OSError as exc:
        return None, "symlink" if exc.errno in (errno.ELOOP, errno.ENOTDIR) else "unreadable"
    finally:
        for opened in reversed(fds):
            os.close(opened)


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
        max_file_bytes: int = 2_000_000,
        max_line_chars: int = 300,
        context_lines: int = 1,
        max_pattern_chars: int = 256,
        deadline_ms: int = 5000,
        threads: int = 0,
        rg_path: str | None = None,
    ) -> None:
        for label, value in (
            ("top_k", top_k),
            ("max_matches_per_file", max_matches_per_file),
            ("max_file_bytes", max_file_bytes),
            ("max_line_chars", max_line_chars),
            ("max_pattern_chars", max_pattern_chars),
            ("deadline_ms", deadline_ms),
            ("max_engine_matches_per_file", max_engine_matches_per_file),
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
    def _command(self, patterns: list[str], regex: bool, target: str) -> list[str]:
        assert self._rg is not None
        command = [
            self._rg,
            "--json",
            "--no-config",
            "--no-follow",
            "--no-ignore",
            "--hidden",
            "--no-messages",
            f"--max-filesize={self.max_file_bytes}",
            f"--max-count={self.max_engine_matches_per_file}",
            "--regex-size-limit=10M",
            "--dfa-size-limit=10M",
        ]
        if self.threads:
            command.append(f"--threads={self.threads}")
        command += ["--fixed-strings", "--ignore-case"] if not regex else []
        for glob in ENGINE_EXCLUDE_GLOBS:
            command.append(f"--iglob={glob}")
        for pattern in patterns:
            command.append(f"--regexp={pattern}")
        return [*command, "--", target]

    def _run_engine(
        self, root: Path, patterns: list[str], regex: bool, target: str, deadline: float
    ) -> tuple[list[_Hit], dict[str, int], str]:
        """Raw candidate hits from ripgrep (unverified), its counters and a cut reason."""
        timeout = max(0.05, deadline - time.monotonic())
        command = self._command(patterns, regex, target)
        cut = ""
        try:
            done = subprocess.run(
                command,
                cwd=root,
                capture_output=True,
                timeout=timeout,
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
                stdin=subprocess.DEVNULL,
            )
            stdout, returncode, stderr = done.stdout, done.returncode, done.stderr
        except subprocess.TimeoutExpired as exc:
            stdout, returncode, stderr, cut = exc.stdout or b"", 0, b"", "deadline"
        if returncode not in (0, 1):
            message = stderr.decode("utf-8", "replace").strip().splitlines()
            raise ChannelError("invalid_pattern", (message[-1] if message else "rg failed")[:300])
        hits, counters = self._parse(stdout)
        return hits, counters, cut

    def _parse(self, stdout: bytes) -> tuple[list[_Hit], dict[str, int]]:
        hits: list[_Hit] = []
        counters: Counter[str] = Counter()
        for raw in stdout.splitlines():
            try:
                message = json.loads(raw)
            except ValueError:
                continue  # a line cut by the deadline
            kind = message.get("type")
            if kind == "summary":
                stats = message["data"]["stats"]
                counters["files_scanned"] = int(stats.get("searches", 0))
                counters["files_with_matches"] = int(stats.get("searches_with_match", 0))
            elif kind == "match":
                data = message["data"]
                path, text = data["path"].get("text"), data["lines"].get("text")
                if path is None or text is None:
                    counters["skipped_non_utf8"] += 1
                    continue
                hits.append(
                    _Hit(path.removeprefix("./"), int(data["line_number"]), text.rstrip("\r\n"))
                )
        return hits, dict(counters)

    # ---- verification and ranking ---------------------------------------------------------
    def _verify(
        self, root: Path, hits: list[_Hit], counters: Counter[str]
    ) -> Iterator[tuple[_Hit, list[str]]]:
        """Hits whose file passes every safety rule and whose line is what rg reported."""
        by_file: dict[str, list[_Hit]] = {}
        for hit in hits:
            by_file.setdefault(hit.path, []).append(hit)
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for path in sorted(by_file):
                reason = "sensitive_name" if is_sensitive_name(path) else ""
                content = None
                if not reason:
                    content, reason = open_verified(root_fd, path, self.max_file_bytes)
                if content is not None and b"\x00" in content:
                    reason = "binary"
                if content is not None and not reason and credential_kind(content):
                    reason = "credential_content"
                if reason or content is None:
                    counters[f"skipped_{reason or 'unreadable'}"] += 1
                    continue
                lines = content.decode("utf-8", "replace").splitlines()
                for hit in by_file[path]:
                    if hit.line > len(lines) or lines[hit.line - 1] != hit.text:
                        counters["skipped_changed_during_scan"] += 1
                        continue
                    yield hit, lines
        finally:
            os.close(root_fd)

    def _snippet(self, lines: list[str], line: int, counters: Counter[str]) -> str:
        start, end = max(1, line - self.context_lines), min(len(lines), line + self.context_lines)
        out = []
        for number in range(start, end + 1):
            text = lines[number - 1]
            if len(text) > self.max_line_chars:
                counters["long_lines_cut"] += 1
                text = text[: self.max_line_chars] + "…"
            out.append(text)
        return "\n".join(out)

    def scan(
        self, call: ToolCall, scope: ScopeKey
    ) -> tuple[list[tuple[str, _Hit, str, float]], Counter[str], str]:
        """Every verified hit in the scope's roots: (root label, hit, snippet, score)."""
        self.warm_up()
        pattern = call.query
        if len(pattern) > self.max_pattern_chars:
            raise ChannelError(
                "pattern_too_long",
                f"pattern is {len(pattern)} chars; limit {self.max_pattern_chars}",
            )
        patterns = [pattern] if call.regex else literal_terms(pattern)
        terms = [p.lower() for p in patterns]
        reason = check_sub_path(call.path) if call.path is not None else None
        if reason is not None:
            raise ChannelError(reason, f"sub-path {call.path!r} refused")
        spec = self.workspace.spec_for(scope)
        roots = self.workspace._root_paths(spec) if spec is not None else []
        deadline = time.monotonic() + self.deadline_ms / 1000
        counters: Counter[str] = Counter()
        results: list[tuple[str, _Hit, str, float]] = []
        cut = ""
        for root in roots:
            label = f"{root.name}/" if len(roots) > 1 else ""
            target = self._target(root, call.path, counters)
            if target is None:
                continue
            hits, engine_counters, cut = self._run_engine(
                root, patterns, call.regex, target, deadline
            )
            counters.update(engine_counters)
            for hit, lines in self._verify(root, hits, counters):
                counters["matches"] += 1
                lowered = hit.text.lower()
                score = sum(t in lowered for t in terms) if not call.regex else 1.0
                score += 1.0 if (not call.regex and terms[0] in lowered) else 0.0
                results.append((label, hit, self._snippet(lines, hit.line, counters), score))
            if cut:
                break
        return results, counters, cut

    def _target(self, root: Path, sub_path: str | None, counters: Counter[str]) -> str | None:
        """The engine's search target below root, checked component by component (no links)."""
        if sub_path is None:
            return "."
        current = root
        for part in PurePosixPath(sub_path).parts:
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
        # Containment on components of the resolved path, never on a string prefix.
        resolved = Path(os.path.realpath(current)).parts
        if resolved[: len(root.parts)] != root.parts:
            raise ChannelError("path_escape", f"sub-path {sub_path!r} leaves the root")
        return "./" + PurePosixPath(sub_path).as_posix()

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> ChannelAnswer:
        results, counters, cut = self.scan(call, scope)
        per_file: Counter[str] = Counter(label + hit.path for label, hit, _, _ in results)
        results.sort(
            key=lambda r: (-r[3], -per_file[r[0] + r[1].path], r[0] + r[1].path, r[1].line)
        )
        kept: list[tuple[str, _Hit, str, float]] = []
        taken: Counter[str] = Counter()
        for result in results:
            key = result[0] + result[1].path
            if taken[key] < self.max_matches_per_file:
                taken[key] += 1
                kept.append(result)
        limit = call.top_k or self.top_k
        if len(kept) > limit and not cut:
            cut = "cap"
        evidence = [
            EvidenceChunk(
                id=f"grep:{label}{hit.path}#L{hit.line}",
                scope=scope,
                channel=self.name,
                location=Location(path=label + hit.path, start_line=hit.line, end_line=hit.line),
                snippet=snippet,
                score=score,
                ranks={self.name: rank},
            )
            for rank, (label, hit, snippet, score) in enumerate(kept[:limit], 1)
        ]
        return ChannelAnswer(evidence, dict(counters), cut)
