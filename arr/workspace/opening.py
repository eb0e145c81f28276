"""Where a researcher opens a piece of evidence: its absolute path, a ``file://`` URI (with
``#page=N`` for a PDF's page, the fragment PDF viewers follow), and for a chunk of lines the
line that matches the query best (a definition at line 263, not the chunk's first line 241);
for a grep hit, the line it matched.

Added to each file item's ``location`` in JSON (``arr search --json``) and MCP results, and
used by the text output; computed at answer time from the scope's roots, never stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from arr.errors import ArrError
from arr.models import EvidenceChunk, ScopeKey
from arr.query.snippets import match_terms
from arr.workspace.roots import root_of_label

if TYPE_CHECKING:
    from arr.workspace.workspace import Workspace

MAX_SCANNED_LINES = 400  # a chunk is 40 lines; a longer unit is looked at from its head


def matching_line(item: EvidenceChunk, query: str) -> int | None:
    """The file line in the item's chunk holding the most weight of the query's terms (the
    first of equals); None for items that are not line ranges or where nothing matches.

    An item of one line (a grep hit, a line a query names) is that line: its snippet shows
    lines around it, so counting from the snippet's first line would name a context line
    (a match on line 13 said 14)."""
    where = item.location
    if where.start_line is None or where.anchor is not None or where.memory_id is not None:
        return None
    if where.end_line in (None, where.start_line):
        return where.start_line
    terms = match_terms(query)
    if not terms:
        return None
    best, best_weight = None, 0
    lines = item.full_text().split("\n")[:MAX_SCANNED_LINES]
    for offset, line in enumerate(lines):
        lower = line.lower()
        weight = sum(w for term, w in terms if term in lower)
        if weight > best_weight:
            best, best_weight = where.start_line + offset, weight
    return best


def scope_roots(workspace: Workspace | None, scope: ScopeKey) -> list[Path]:
    """The scope's roots as paths; [] when the workspace or the scope has none (or a root is
    gone: its items are shown as labels then)."""
    spec = workspace.spec_for(scope) if workspace is not None else None
    if spec is None or not spec.roots:
        return []
    try:
        return list(workspace.root_paths(spec))  # type: ignore[union-attr]
    except ArrError:
        return []


def opening(roots: list[Path], item: EvidenceChunk) -> dict[str, str]:
    """``{"absolute": ..., "uri": ...}`` of a file item; {} for a memory or an unknown root."""
    where = item.location
    if not where.path or where.memory_id is not None or not roots:
        return {}
    found = root_of_label(roots, where.path)
    if found is None:
        return {}
    full = found[0] / found[1]
    uri = full.as_uri()
    if where.page is not None and full.suffix.lower() == ".pdf":
        uri += f"#{where.anchor}"
    return {"absolute": str(full), "uri": uri}


def add_openings(
    answer: dict[str, Any], items: list[EvidenceChunk], roots: list[Path], query: str
) -> dict[str, Any]:
    """The answer's JSON (``evidence`` in the order of ``items``) with each location told where
    to open it: ``absolute``, ``uri`` and, for a chunk of lines, ``line``."""
    for shown, item in zip(answer.get("evidence") or [], items, strict=False):
        location = shown.get("location")
        if not isinstance(location, dict):
            continue
        location.update(opening(roots, item))
        line = matching_line(item, query)
        if line is not None:
            location["line"] = line
    return answer
