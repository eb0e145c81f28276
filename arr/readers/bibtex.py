"""BibTeX reader (``.bib``): one unit per entry, located as ``refs.bib#goyal2017``.

An entry runs from its ``@type{key,`` to the brace (or parenthesis) that closes it; its title
field is shown with it, and its citation label (``[Goyal 2017] Accurate, Large Minibatch
SGD``: the first author's surname, the year, the title) is indexed with its text, so a
question naming an author and a year finds the entry ahead of the passages that cite it.
``@string``, ``@preamble`` and ``@comment`` are not entries. The view is the file's own lines
(locations keep the entry's line range beside its key); text outside any entry is not a unit.
"""

from __future__ import annotations

import re

from arr.readers.view import View, in_place_view

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*([{(])\s*([^,\s{}()]+)\s*,")
_NOT_ENTRIES = {"string", "preamble", "comment"}
_TITLE = re.compile(r"\btitle\s*=\s*[{\"]", re.IGNORECASE)
_AUTHOR = re.compile(r"\bauthor\s*=\s*[{\"]", re.IGNORECASE)
_YEAR = re.compile(r"\byear\s*=\s*[{\"]?\s*(\d{4})", re.IGNORECASE)


def _closing(text: str, start: int, opener: str) -> int:
    """Index just past the brace that closes the one at ``start`` (the text's end if none)."""
    closer = "}" if opener == "{" else ")"
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == opener or (opener == "(" and char == "{"):
            depth += 1
        elif char == closer or (opener == "(" and char == "}"):
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def _title(entry: str, field: re.Pattern[str] = _TITLE) -> str | None:
    match = field.search(entry)
    if match is None:
        return None
    depth, out = 1, []
    quote = entry[match.end() - 1] == '"'
    for char in entry[match.end() :]:
        if quote and char == '"' and depth == 1:
            break
        if char == "{":
            depth += 1
            continue
        if char == "}":
            depth -= 1
            if depth == 0:
                break
            continue
        out.append(char)
    return " ".join("".join(out).split())[:300] or None


def citation_label(entry: str, title: str | None) -> str | None:
    """``[Goyal 2017] title``: the first author's surname and the year, when the entry has
    them (``Goyal, Priya and ...`` or ``Priya Goyal and ...``)."""
    surnames, year = _surnames(entry), _YEAR.search(entry)
    if not surnames and not year:
        return None
    first = surnames[0] if surnames else ""
    label = " ".join(part for part in (first, year[1] if year else "") if part)
    return f"[{label}] {title or ''}".strip()


def _surnames(entry: str) -> list[str]:
    """The authors' surnames, in order (``Last, First`` or ``First Last`` names)."""
    names = [n.strip() for n in re.split(r"\s+and\s+", _title(entry, _AUTHOR) or "")]
    return [n.split(",")[0].strip() if "," in n else n.split()[-1] for n in names if n]


def entry_citation(entry: str) -> str | None:
    """``Goyal et al. 2017``: the entry as a researcher cites it (``Last, First`` or ``First
    Last`` names; ``others`` counts as more authors)."""
    from arr.readers.citation import cite_surnames

    year, names = _YEAR.search(entry), _surnames(entry)
    more = bool(names) and names[-1].lower() == "others"
    return cite_surnames(names[:-1] if more else names, year[1] if year else None, more)


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
        position = 0
        while (match := _ENTRY.search(text, position)) is not None:
            end = _closing(text, match.start(2), match[2])
            position = max(end, match.end())
            if match[1].lower() in _NOT_ENTRIES:
                continue
            first = _line(line_of, match.start())
            last = _line(line_of, max(end - 1, match.start()))
            if first < done:  # an entry opened on the line another one closed
                continue
            if first > done:
                blocks.append((None, None, [""] * (first - done)))  # text outside entries
                cited.append(None)
            entry = text[match.start() : end]
            title = _title(entry)
            label = citation_label(entry, title)
            if label:
                notes[first + 1] = label
            blocks.append((match[3], title, lines[first : last + 1]))
            cited.append(entry_citation(entry))
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
