"""BibTeX reader (``.bib``): one unit per entry, located as ``refs.bib#goyal2017``.

An entry runs from its ``@type{key,`` to the brace (or parenthesis) that closes it; its fields
are read by :mod:`arr.readers.bib_records` (bibtexparser, LaTeX decoded: ``Slapničar``, not
``Slapni{\\v c}ar``; BibLaTeX's ``date``; ``@string``; ``crossref``). Its title is shown with
it, and its citation label (``[Goyal 2017] Accurate, Large Minibatch SGD``: the first author's
family name, the year, the title) is indexed with its text, so a question naming an author and
a year finds the entry ahead of the passages that cite it.
``@string``, ``@preamble`` and ``@comment`` are not entries. The view is the file's own lines
(locations keep the entry's line range beside its key); text outside any entry is not a unit.
"""

from __future__ import annotations

from arr.readers.bib_records import BibRecord, entries, records
from arr.readers.view import View, in_place_view


def citation_label(record: BibRecord | None) -> str | None:
    """``[Goyal 2017] title``: the first author's family name and the year, when the entry has
    them."""
    if record is None or not (record.surnames or record.year):
        return None
    first = record.surnames[0] if record.surnames else ""
    label = " ".join(part for part in (first, str(record.year or "")) if part)
    return f"[{label}] {record.title or ''}".strip()


def entry_citation(record: BibRecord | None) -> str | None:
    """``Goyal et al. 2017``: the entry as a researcher cites it (``others`` counts as more
    authors)."""
    from arr.readers.citation import cite_surnames

    if record is None:
        return None
    return cite_surnames(list(record.surnames), record.year, record.more)


class BibtexReader:
    def read(self, raw: bytes) -> View:
        text = raw.decode("utf-8", "replace")
        lines = text.split("\n")
        blocks: list[tuple[str | None, str | None, list[str]]] = []
        cited: list[str | None] = []  # each block's citation
        line_of = [0]  # offset of each line's start
        for line in lines:
            line_of.append(line_of[-1] + len(line) + 1)
        notes: dict[int, str] = {}
        done = 0  # lines already given to a block
        by_key: dict[str, BibRecord] = {}
        for record in records(text):
            by_key.setdefault(record.key, record)
        for match, closed in entries(text):
            end = len(text) if closed is None else closed
            first = _line(line_of, match.start())
            last = _line(line_of, max(end - 1, match.start()))
            if first < done:  # an entry opened on the line another one closed
                continue
            if first > done:
                blocks.append((None, None, [""] * (first - done)))  # text outside entries
                cited.append(None)
            record = by_key.get(match[3])
            label = citation_label(record)
            if label:
                notes[first + 1] = label
            blocks.append((match[3], record.title if record else None, lines[first : last + 1]))
            cited.append(entry_citation(record))
            done = last + 1
        if done < len(lines):
            blocks.append((None, None, [""] * (len(lines) - done)))
        shown = [line for _, _, block in blocks for line in block]
        # text outside entries is blanked in the view: it is no unit and never an answer
        return in_place_view(blocks, shown, notes=notes, citations=cited)


def _line(line_of: list[int], offset: int) -> int:
    """0-based line of a character offset."""
    import bisect

    return bisect.bisect_right(line_of, offset) - 1
