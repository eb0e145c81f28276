"""What a reader makes of a file: its text as lines (the *view*) and the units it is made of.

Every channel reads a file through its view: bm25 and vector index one item per unit (a PDF's
page, a notebook's cell, a BibTeX entry, a LaTeX section's chunks), grep searches the view's
lines, and an item's location names its unit (``papers/x.pdf#page=7``, ``nb.ipynb#cell=3``,
``refs.bib#goyal2017``). ``file_lines`` says whether the view's line numbers are the file's own
(LaTeX and BibTeX, whose views keep every line in place) or the view's alone (PDF, notebooks:
their locations name the unit, never a line).

A file a reader refuses raises :class:`Unreadable` with a fixed reason code, counted as
``skipped_<reason>`` like every skip of the one file rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

# Reasons a reader refuses a file (``skipped_<reason>`` in traces and index manifests), named
# here for the readers: the strings are arr.codes'.
from arr.codes import EXTRACT_MEMORY as EXTRACT_MEMORY
from arr.codes import EXTRACT_TIMEOUT as EXTRACT_TIMEOUT
from arr.codes import GARBLED_TEXT as GARBLED_TEXT
from arr.codes import NO_TEXT as NO_TEXT
from arr.codes import PDF_ENCRYPTED as PDF_ENCRYPTED
from arr.codes import READER_REASONS
from arr.codes import TOO_MANY_PAGES as TOO_MANY_PAGES
from arr.codes import UNREADABLE as UNREADABLE

REASONS = READER_REASONS


class Unreadable(Exception):
    """A file its reader cannot turn into text; ``reason`` is one of ``REASONS``."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Unit:
    """One part of a file: view lines ``start``..``end`` (1-based, inclusive), the anchor that
    names it in a location (``page=7``, ``cell=3``, a BibTeX key; None: lines name it), the
    heading shown with it and the citation a researcher pastes for it (``Ongaro & Ousterhout
    2014, p. 3``; :mod:`arr.readers.citation`)."""

    start: int
    end: int
    anchor: str | None = None
    title: str | None = None
    citation: str | None = None
    # where the paper's identity came from, as shown with it (``title: layout; authors: bib;
    # year: arxiv; doi: 10.1145/357172.357176``): arr.readers.identity
    identity: str | None = None


@dataclass(frozen=True, slots=True)
class View:
    lines: tuple[str, ...]
    units: tuple[Unit, ...]
    file_lines: bool  # the view's line numbers are the file's own
    title: str | None = None  # the file's title (a PDF's metadata or first heading)
    counters: dict[str, int] = field(default_factory=dict)  # e.g. outputs_dropped
    # text indexed with a line's chunk but never part of the view (grep does not see it): a
    # BibTeX entry's citation label, the cited keys of a LaTeX line spelled as words
    notes: dict[int, str] = field(default_factory=dict)

    def unit_at(self, line: int) -> Unit | None:
        """The unit that holds view line ``line`` (units are in line order)."""
        low, high = 0, len(self.units) - 1
        while low <= high:
            middle = (low + high) // 2
            unit = self.units[middle]
            if line < unit.start:
                high = middle - 1
            elif line > unit.end:
                low = middle + 1
            else:
                return unit
        return None

    def text_of(self, unit: Unit) -> str:
        return "\n".join(self.lines[unit.start - 1 : unit.end])

    def to_json(self) -> str:
        return json.dumps(
            {
                "lines": self.lines,
                "units": [
                    [u.start, u.end, u.anchor, u.title, u.citation, u.identity] for u in self.units
                ],
                "file_lines": self.file_lines,
                "title": self.title,
                "counters": self.counters,
                "notes": sorted(self.notes.items()),
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> View:
        found = json.loads(text)
        return cls(
            tuple(found["lines"]),
            tuple(Unit(*u) for u in found["units"]),
            bool(found["file_lines"]),
            found.get("title"),
            dict(found.get("counters") or {}),
            {int(line): str(text) for line, text in found.get("notes") or []},
        )


def build_view(
    blocks: list[tuple[str | None, str | None, list[str]]],
    file_lines: bool,
    title: str | None = None,
    counters: dict[str, int] | None = None,
    citations: list[str | None] | None = None,
    identities: list[str | None] | None = None,
) -> View:
    """A view from its units in order: (anchor, title, lines) each, and each one's citation
    (``citations``, in the same order); empty units are dropped."""
    lines: list[str] = []
    units: list[Unit] = []
    for number, (anchor, heading, block) in enumerate(blocks):
        if not any(line.strip() for line in block):
            continue
        start = len(lines) + 1
        lines += block
        cited = citations[number] if citations else None
        known = identities[number] if identities else None
        units.append(Unit(start, len(lines), anchor, heading, cited, known))
    return View(tuple(lines), tuple(units), file_lines, title, dict(counters or {}))


def in_place_view(
    blocks: list[tuple[str | None, str | None, list[str]]],
    lines: list[str],
    title: str | None = None,
    notes: dict[int, str] | None = None,
    citations: list[str | None] | None = None,
) -> View:
    """A view whose line numbers are the file's: every line kept, the blocks (which together
    are ``lines``, in order) as units over their ranges, each with its citation (``citations``,
    in the same order); blank blocks name no unit."""
    units, number = [], 1
    for at, (anchor, heading, block) in enumerate(blocks):
        filled = [i for i, line in enumerate(block) if line.strip()]
        if filled:  # a unit ends at its last line with text (not the blank lines after it)
            cited = citations[at] if citations else None
            units.append(Unit(number, number + filled[-1], anchor, heading, cited))
        number += len(block)
    return View(tuple(lines), tuple(units), True, title, notes=dict(notes or {}))
