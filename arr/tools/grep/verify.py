"""The grep channel's safety layer: nothing ripgrep reported is returned unless re-read here.

Every reported file is re-read under the one file rule (:mod:`arr.safety.file_rule`): component by
component with ``O_NOFOLLOW`` from the root's directory descriptor, a regular file with one hard
link, within the size cap, without NUL bytes or credential-like content; each reported line must
equal the line read here, and snippets come only from these verified bytes. The sub-path a call
names is checked on disk the same way before the engine is pointed at it.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arr import codes
from arr.readers import Readers, suffix_of
from arr.readers.view import Unreadable, View
from arr.safety import file_rule
from arr.safety.rules import SENSITIVE_DIRS, is_sensitive_name
from arr.tools.base import ChannelError
from arr.tools.grep.engine import Hit

# A file already checked in this call: its lines, or None when the rule refused it.
CheckedFiles = dict[tuple[Path, str], Sequence[bytes] | None]


class EncodedLines(Sequence[bytes]):
    """A view's lines as the engine reports them (UTF-8 bytes), each encoded when it is read:
    a hit is compared with one line and shown with a few around it, so a 1,200-page manual's
    50,000 lines are not all encoded for each file verified (1.2 ms a file, a third of a
    phrase search over 311 PDFs)."""

    __slots__ = ("_lines",)

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        if isinstance(index, slice):
            return [line.encode("utf-8") for line in self._lines[index]]
        return self._lines[index].encode("utf-8")


@dataclass(slots=True)
class Candidate:
    label: str  # root prefix when a scope has several roots, else ""
    root: Path
    hit: Hit
    score: float

    @property
    def file(self) -> str:
        """The path as the scope names it (with its root's prefix when it has several)."""
        return self.label + self.hit.path if self.label else self.hit.path


def root_label(root: Path, roots: list[Path]) -> str:
    """How a scope with several roots prefixes a root's paths ("" with one root)."""
    return f"{root.name}/" if len(roots) > 1 else ""


def _check_view(
    root_fd: int, path: str, max_file_bytes: int, counters: Counter[str], readers: Readers
) -> tuple[EncodedLines, View] | None:
    """A reader file's view lines (and view) when the rule admits the file now and its reader
    reads it, else None (reason counted): the hit must be a line of this view."""
    cap = readers.cap(path, max_file_bytes)
    content, reason = file_rule.read_file(root_fd, path, cap, check_content=False)
    if content is None:
        counters[f"skipped_{reason or 'unreadable'}"] += 1
        return None
    try:
        view = readers.view(path, content)
    except Unreadable as exc:
        counters[f"skipped_{exc.reason}"] += 1
        return None
    return EncodedLines(view.lines), view


def _check_file(
    root_fd: int, path: str, max_file_bytes: int, counters: Counter[str]
) -> list[bytes] | None:
    """The file's lines when the one file rule admits it now, else None (reason counted)."""
    content, reason = file_rule.read_file(root_fd, path, max_file_bytes)
    if content is None:
        counters[f"skipped_{reason or 'unreadable'}"] += 1
        return None
    # Split on LF only, as ripgrep counts lines; a CR before it is dropped on comparison.
    return content.split(b"\n")


def verified(
    candidates: Iterable[Candidate],
    max_file_bytes: int,
    counters: Counter[str],
    deadline: float,
    files: CheckedFiles | None = None,
    readers: Readers | None = None,
    views: dict[tuple[Path, str], View] | None = None,
) -> Iterator[tuple[Candidate, Sequence[bytes]]]:
    """Candidates (in the given order) whose file passes the safety rules and whose line is
    exactly what ripgrep reported; each file is opened and checked once. Past the deadline the
    counter ``_deadline_in_verify`` is set and the iteration ends. A file a reader reads
    (arr.readers) is checked against its view's lines, and its view kept in ``views``."""
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
                    root_fds[candidate.root] = os.open(candidate.root, os.O_RDONLY | os.O_DIRECTORY)
                fd = root_fds[candidate.root]
                if readers is not None and suffix_of(key[1]) is not None:
                    checked = _check_view(fd, key[1], max_file_bytes, counters, readers)
                    files[key] = None if checked is None else checked[0]
                    if checked is not None and views is not None:
                        views[key] = checked[1]
                else:
                    files[key] = _check_file(fd, key[1], max_file_bytes, counters)
            lines = files[key]
            if lines is None:
                continue
            hit = candidate.hit
            if hit.line > len(lines) or lines[hit.line - 1].rstrip(b"\r") != hit.text.rstrip(b"\r"):
                counters["skipped_changed_during_scan"] += 1
                continue
            yield candidate, lines
    finally:
        for fd in root_fds.values():
            os.close(fd)


def snippet(
    lines: Sequence[bytes],
    line: int,
    context_lines: int,
    max_line_chars: int,
    counters: Counter[str],
) -> str:
    """The verified line with ``context_lines`` around it, each cut at ``max_line_chars``."""
    last = len(lines) - (1 if lines and lines[-1] == b"" else 0)
    start, end = max(1, line - context_lines), min(last, line + context_lines)
    out = []
    for number in range(start, end + 1):
        text = lines[number - 1].rstrip(b"\r").decode("utf-8", "replace")
        if len(text) > max_line_chars:
            counters["long_lines_cut"] += 1
            text = text[:max_line_chars] + "…"
        out.append(text)
    return "\n".join(out)


def engine_target(root: Path, sub_path: str | None, counters: Counter[str]) -> str | None:
    """The engine's search target below root, checked component by component (no links);
    None when the sub-path does not exist there (counted)."""
    parts = PurePosixPath(sub_path).parts if sub_path is not None else ()
    if not parts:
        return "."
    if is_sensitive_name(PurePosixPath(*parts).as_posix()) or (
        parts[-1].lower() in SENSITIVE_DIRS  # a withheld folder named as the target itself
    ):
        # Named explicitly, ripgrep would read it despite the exclusion globs.
        raise ChannelError(codes.PATH_SENSITIVE, f"sub-path {sub_path!r} names a sensitive file")
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
            raise ChannelError(codes.PATH_SYMLINK, f"sub-path {sub_path!r} goes through a link")
    if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
        raise ChannelError(codes.PATH_NOT_REGULAR, f"sub-path {sub_path!r} is not a file or dir")
    if stat.S_ISREG(info.st_mode) and info.st_nlink != 1:
        raise ChannelError(codes.PATH_HARDLINK, f"sub-path {sub_path!r} has other hard links")
    # Containment on components of the resolved path, never on a string prefix.
    resolved = Path(os.path.realpath(current)).parts
    if resolved[: len(root.parts)] != root.parts:
        raise ChannelError(codes.PATH_ESCAPE, f"sub-path {sub_path!r} leaves the root")
    return "./" + PurePosixPath(*parts).as_posix()
