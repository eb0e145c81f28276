"""Path look-ups for the grep channel: a query that names a file finds that file first.

``httpx/_transports/default.py`` as a query shares no words with the file's text that would
rank it: the path is the answer. Each path-shaped token of the query (a name with an
extension, or with a folder: ``default.py``, ``routing/rules.py``, ``./conf/x.yaml``) is
matched against the files the channel's walk found: relative to its root (exactly, or as the
end of the file's path at a folder boundary), as ARR shows it (``src/pkg/a.py`` with the root's
folder), as an absolute path on this machine, or as a path from elsewhere that ends like it in
a folder and the name (a traceback from another machine: ``/home/ci/proj/pkg/a.py`` names
``pkg/a.py``; :func:`arr.query.named_paths.names`), the most specific first. A match is read
under the one file rule and returned ahead of any line the text search found: the file's
head, or, when the
query names a line (``a.py:120``, ``a.py:120:5``, ``a.py#L120``, ``File "a.py", line 120``),
that line with the lines around it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arr.models import Location
from arr.query.named_paths import NamedPath, names
from arr.readers import Readers, suffix_of
from arr.readers.view import Unit, Unreadable
from arr.safety import file_rule
from arr.tools.grep.verify import snippet
from arr.workspace.documents import place_id, unit_location

MAX_PATH_HITS = 5
HEAD_LINES = 3
AROUND_LINE = 2  # lines shown before and after a named line


@dataclass(frozen=True)
class PathHit:
    label: str  # the file as the channel names it (the root's label and the relative path)
    start_line: int  # the named line, or 1 for the file's head
    end_line: int
    snippet: str
    # a file a reader reads (arr.readers): the unit shown, and whether lines are the file's
    unit: Unit | None = None
    file_lines: bool = True
    place: str | None = None

    def location(self) -> Location:
        if self.unit is None:
            return Location(path=self.label, start_line=self.start_line, end_line=self.end_line)
        if not self.file_lines:  # a PDF's page, a notebook's cell: the unit alone names it
            return unit_location(self.label, self.unit, None)
        return unit_location(self.label, self.unit, self.start_line, self.end_line)


def matches(relative: str, absolute: str, token: str) -> int:
    """How well ``token`` names the file at ``relative`` (:func:`arr.query.named_paths.names`), read
    against ``relative`` and against ``absolute`` (its root's absolute path and ``relative``,
    no leading ``/``): a path with the root's folder, as ARR shows it, or absolute here."""
    return max(names(relative, token), names(absolute, token))


def _shown(
    content: bytes, line: int | None, max_line_chars: int, counters: Counter[str]
) -> tuple[int, int, str]:
    """The lines shown for a hit, each cut as grep cuts its lines: around the named line when
    the file has it, else the head."""
    lines = content.split(b"\n")
    last = len(lines) - (1 if lines and lines[-1] == b"" else 0)
    if line is not None and line <= last:
        return line, line, snippet(lines, line, AROUND_LINE, max_line_chars, counters)
    head = snippet(lines, 1, HEAD_LINES - 1, max_line_chars, counters)
    return 1, max(1, min(last, HEAD_LINES)), head


def path_hits(
    named: Sequence[NamedPath],
    roots: Sequence[Path],
    files: Sequence[dict[str, tuple[int, int]]],
    labels: Sequence[str],
    max_file_bytes: int,
    max_line_chars: int,
    counters: Counter[str],
    readers: Readers | None = None,
    chunk_lines: int = 40,
) -> list[PathHit]:
    """The files (or lines) the query names (``named_paths(query)``), most specific name
    first (at most ``MAX_PATH_HITS``). A paper, notebook, manuscript or bibliography is shown
    from its view (its first unit, or the named line of a ``.tex``/``.bib``)."""
    hits: list[PathHit] = []
    seen: set[tuple[str, int | None]] = set()
    for want in sorted(named, key=lambda n: len(n.token), reverse=True):
        found = []  # (how well named, root's order, relative path, root, label)
        for order, (root, known, label) in enumerate(zip(roots, files, labels, strict=False)):
            base = str(root).replace("\\", "/").strip("/")
            for relative in known:
                how = matches(relative, f"{base}/{relative}", want.token)
                if how and (label + relative, want.line) not in seen:
                    found.append((-how, order, relative, root, label))
        for _, _, relative, root, label in sorted(found, key=lambda f: f[:3]):
            if len(hits) >= MAX_PATH_HITS:
                return hits
            if readers is not None and suffix_of(relative) is not None:
                hit = _view_hit(
                    readers,
                    root,
                    relative,
                    label,
                    want.line,
                    max_file_bytes,
                    max_line_chars,
                    chunk_lines,
                    counters,
                )
                if hit is not None:
                    seen.add((label + relative, want.line))
                    hits.append(hit)
                continue
            content, _ = file_rule.read_path(str(root), relative, max_file_bytes)
            if content is None:
                continue  # refused by the rule: as absent as a file that is not there
            seen.add((label + relative, want.line))
            shown = _shown(content, want.line, max_line_chars, counters)
            hits.append(PathHit(label + relative, *shown))
    return hits


def _view_hit(
    readers: Readers,
    root: Path,
    relative: str,
    label: str,
    line: int | None,
    max_file_bytes: int,
    max_line_chars: int,
    chunk_lines: int,
    counters: Counter[str],
) -> PathHit | None:
    """A named reader file, shown from its view under the same rule (None when refused)."""
    cap = readers.cap(relative, max_file_bytes)
    raw, _ = file_rule.read_path(str(root), relative, cap, check_content=False)
    if raw is None:
        return None
    try:
        view = readers.view(relative, raw)
    except Unreadable:
        return None
    if not view.units:
        return None
    wanted = line if view.file_lines else None  # a PDF's or notebook's "line" names nothing
    content = "\n".join(view.lines).encode("utf-8")
    start, end, text = _shown(content, wanted, max_line_chars, counters)
    unit = view.unit_at(start) or view.units[0]
    if wanted is None:  # the first unit's head, not the view's first lines
        start, end, text = _shown(content, unit.start, max_line_chars, counters)
        start = end = unit.start
    name = label + relative
    return PathHit(
        name, start, end, text, unit, view.file_lines, place_id(name, view, start, chunk_lines)
    )
