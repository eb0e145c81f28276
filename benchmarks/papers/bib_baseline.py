"""The hand-written ``.bib`` reader ARR shipped until issue 61 (``arr/readers/bib_records.py`` and
the field scanner of ``arr/readers/bibtex.py`` as of main 2026-12-05), kept as the baseline
``make bench-bib`` measures the shipped reader against: regular expressions over the text, TeX
markup dropped rather than decoded (``Slapni{\\v c}ar`` -> ``Slapni car``), no ``@string``, no
``date``, no ``crossref``."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*([{(])\s*([^,\s{}()]+)\s*,")
_NOT_ENTRIES = {"string", "preamble", "comment"}
_TITLE = re.compile(r"\btitle\s*=\s*[{\"]", re.IGNORECASE)
_AUTHOR = re.compile(r"\bauthor\s*=\s*[{\"]", re.IGNORECASE)
_YEAR = re.compile(r"\byear\s*=\s*[{\"]?\s*(\d{4})", re.IGNORECASE)
_FILE = re.compile(r"\bfile\s*=\s*[{\"]", re.IGNORECASE)
_DOI = re.compile(r"\bdoi\s*=\s*[{\"]", re.IGNORECASE)
_JABREF = re.compile(r"^(?P<description>[^:]*):(?P<path>.+):(?P<kind>[A-Za-z/.+-]*)$")
_MARKUP = re.compile(r"\\[a-zA-Z]+|[{}$\\]")


@dataclass(frozen=True, slots=True)
class BibRecord:
    key: str
    title: str | None
    authors: tuple[str, ...]
    surnames: tuple[str, ...]
    more: bool
    year: int | None
    doi: str | None
    files: tuple[str, ...]


def _closing(text: str, start: int, opener: str) -> int:
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


def _field(entry: str, field: re.Pattern[str] = _TITLE) -> str | None:
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


def file_paths(field: str | None) -> tuple[str, ...]:
    out = []
    for part in (field or "").split(";"):
        part = part.strip()
        if not part:
            continue
        unescaped = part.replace("\\:", "\0")
        found = _JABREF.match(unescaped)
        path = found["path"] if found and found["path"] else unescaped
        out.append(path.replace("\0", ":").strip())
    return tuple(p for p in out if p.lower().endswith(".pdf"))


def _person(name: str) -> str:
    name = " ".join(_MARKUP.sub("", name).split())
    if "," in name:
        last, _, first = name.partition(",")
        return f"{first.strip()} {last.strip()}".strip()
    return name


def records(text: str) -> list[BibRecord]:
    out: list[BibRecord] = []
    position = 0
    while (match := _ENTRY.search(text, position)) is not None:
        end = _closing(text, match.start(2), match[2])
        position = max(end, match.end())
        if match[1].lower() in _NOT_ENTRIES:
            continue
        entry = text[match.start() : end]
        names = [n.strip() for n in re.split(r"\s+and\s+", _field(entry, _AUTHOR) or "") if n]
        others = bool(names) and names[-1].lower() == "others"
        named = names[:-1] if others else names
        people = tuple(_person(n) for n in named if n.strip())
        surnames = tuple(
            p.split(",")[0].strip() if "," in p else p.split()[-1] for p in named if p.strip()
        )
        year = _YEAR.search(entry)
        title = _field(entry)
        out.append(
            BibRecord(
                key=match[3],
                title=" ".join(_MARKUP.sub("", title).split()) if title else None,
                authors=people,
                surnames=tuple(_MARKUP.sub("", s) for s in surnames),
                more=others,
                year=int(year[1]) if year else None,
                doi=_field(entry, _DOI),
                files=file_paths(_field(entry, _FILE)),
            )
        )
    return out
