"""A view's units as the documents bm25 and vector index, and the place a view line belongs to.

A unit located by its anchor alone (a PDF page, a notebook cell) is one document,
``doc:<label>#page=7``. A unit whose lines are the file's (a LaTeX section, a BibTeX entry) is
cut into windows of ``chunk_lines`` lines from its first line, ``doc:<label>#L<first>``, each
carrying the unit's anchor and heading, and the view's notes on its lines (indexed text that
is no line of the file: a citation label, cited keys as words). ``place_id`` gives the
document a view line falls in, so a grep line and the indexed unit that holds it are one place
in fusion.
"""

from __future__ import annotations

from collections import Counter

from arr.deadline import time_left
from arr.models import Location
from arr.readers import NotReady, Readers
from arr.readers.view import Unit, Unreadable, View
from arr.safety import file_rule
from arr.workspace.sources import Document, SourceFile, count_skipped


def _windows(unit: Unit, chunk_lines: int, overlap: int) -> list[tuple[int, int]]:
    step = max(1, chunk_lines - overlap)
    out = []
    for start in range(unit.start, unit.end + 1, step):
        out.append((start, min(unit.end, start + chunk_lines - 1)))
        if start + chunk_lines > unit.end:
            break
    return out


def unit_place(unit: Unit) -> dict[str, str | None]:
    """What a unit names of its place beside the path and lines: anchor, heading, citation
    (the same fields on a Document, a Location and a vector item's metadata)."""
    return {
        "anchor": unit.anchor,
        "title": unit.title,
        "citation": unit.citation,
        "identity": unit.identity,
    }


def unit_location(path: str, unit: Unit, start: int | None, end: int | None = None) -> Location:
    """The place of view lines ``start``..``end`` in ``unit`` (None: the unit alone names it)."""
    return Location(path=path, start_line=start, end_line=end or start, **unit_place(unit))


def unit_documents(label: str, view: View, chunk_lines: int, overlap: int = 0) -> list[Document]:
    docs: list[Document] = []
    for unit in view.units:
        if not view.file_lines:
            docs.append(
                Document(
                    id=f"doc:{label}#{unit.anchor}",
                    text=view.text_of(unit),
                    path=label,
                    **unit_place(unit),
                )
            )
            continue
        for start, end in _windows(unit, chunk_lines, overlap):
            text = "\n".join(view.lines[start - 1 : end])
            if not text.strip():
                continue
            notes = [view.notes[n] for n in range(start, end + 1) if n in view.notes]
            if notes:  # indexed with the chunk, never shown by grep (not in the view)
                text = "\n".join([text, *notes])
            docs.append(
                Document(
                    id=f"doc:{label}#L{start}",
                    text=text,
                    path=label,
                    start_line=start,
                    end_line=end,
                    **unit_place(unit),
                )
            )
    return docs


def place_id(label: str, view: View, line: int, chunk_lines: int) -> str | None:
    """The id of the document (without overlap) that holds view line ``line``, or None."""
    unit = view.unit_at(line)
    if unit is None:
        return None
    if not view.file_lines:
        return f"doc:{label}#{unit.anchor}"
    start = unit.start + (line - unit.start) // chunk_lines * chunk_lines
    return f"doc:{label}#L{start}"


def file_units(
    readers: Readers,
    source: SourceFile,
    relative: str,
    text_cap: int,
    chunk_lines: int,
    overlap: int,
    skipped: Counter[str] | None,
) -> list[Document]:
    """The documents of a file its reader reads, read under the one file rule (the format's
    own size cap); a file the rule or the reader refuses is counted by its reason."""
    cap = readers.cap(relative, text_cap)
    raw, reason = file_rule.read_path(source.root, relative, cap, check_content=False)
    if raw is None:
        count_skipped(skipped, reason, source.label)
        return []
    try:
        # a search's refresh waits at most its time left; an index build, the file's budget
        view = readers.view(relative, raw, time_left())
    except NotReady:
        raise  # not the file's fault: the caller (a refresh) leaves the index as it was
    except Unreadable as exc:
        count_skipped(skipped, exc.reason, source.label, exc.detail)
        return []
    return unit_documents(source.label, view, chunk_lines, overlap)
