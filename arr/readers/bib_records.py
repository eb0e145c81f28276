"""A bibliography's records of the files they describe: what a reference manager writes in
``.bib`` files, read as evidence of a PDF's identity (:mod:`arr.workspace.bib_identity`).

An entry names its PDF in a ``file`` field, as the tools researchers use write it: Zotero with
Better BibTeX (``file = {/home/me/Zotero/storage/AB12CD34/Lamport - 1978 - Time, Clocks.pdf}``,
several separated by ``;``), JabRef and Mendeley (``file = {:papers/lamport78.pdf:PDF}``,
``description:path:type``, a Windows drive's colon escaped ``C\\:``). BibDesk's
``bdsk-file-1`` (a base64 property list) is not read. An entry without a file field is still
a record: a PDF whose title is the entry's (case, spacing, punctuation and TeX markup aside)
is identified by it.

Plain string work over the file's text; no entry is trusted beyond its own fields.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from arr.readers.bibtex import _AUTHOR, _ENTRY, _NOT_ENTRIES, _YEAR, _closing, _title

_FILE = re.compile(r"\bfile\s*=\s*[{\"]", re.IGNORECASE)
_DOI = re.compile(r"\bdoi\s*=\s*[{\"]", re.IGNORECASE)
_JABREF = re.compile(r"^(?P<description>[^:]*):(?P<path>.+):(?P<kind>[A-Za-z/.+-]*)$")
_MARKUP = re.compile(r"\\[a-zA-Z]+|[{}$\\]")
MAX_RECORDS = 20_000  # a bibliography larger than this is read up to it


@dataclass(frozen=True, slots=True)
class BibRecord:
    key: str
    title: str | None
    authors: tuple[str, ...]  # as written: "Lamport, Leslie", "Diego Ongaro"
    surnames: tuple[str, ...]
    more: bool  # ``and others``: authors beyond those named
    year: int | None
    doi: str | None
    files: tuple[str, ...]  # as written: absolute, or relative to the .bib's folder


def title_key(title: str | None) -> str:
    """A title as compared: letters and digits, case and accents aside, TeX markup dropped."""
    text = unicodedata.normalize("NFKD", _MARKUP.sub("", title or ""))
    return "".join(c.lower() for c in text if c.isalnum())


def file_paths(field: str | None) -> tuple[str, ...]:
    """The paths a ``file`` field names (Zotero: paths separated by ``;``; JabRef/Mendeley:
    ``description:path:type``)."""
    out = []
    for part in (field or "").split(";"):
        part = part.strip()
        if not part:
            continue
        unescaped = part.replace("\\:", "\0")  # JabRef escapes a drive's colon
        found = _JABREF.match(unescaped)
        path = found["path"] if found and found["path"] else unescaped
        out.append(path.replace("\0", ":").strip())
    return tuple(p for p in out if p.lower().endswith(".pdf"))


def _person(name: str) -> str:
    """``Lamport, Leslie`` -> ``Leslie Lamport``; ``{van Rossum}, Guido`` -> ``Guido van
    Rossum``."""
    name = " ".join(_MARKUP.sub("", name).split())
    if "," in name:
        last, _, first = name.partition(",")
        return f"{first.strip()} {last.strip()}".strip()
    return name


def records(text: str) -> list[BibRecord]:
    """Every entry of a ``.bib`` file's text as a record (``@string`` and the like aside)."""
    out: list[BibRecord] = []
    position = 0
    while (match := _ENTRY.search(text, position)) is not None and len(out) < MAX_RECORDS:
        end = _closing(text, match.start(2), match[2])
        position = max(end, match.end())
        if match[1].lower() in _NOT_ENTRIES:
            continue
        entry = text[match.start() : end]
        names = [n.strip() for n in re.split(r"\s+and\s+", _title(entry, _AUTHOR) or "") if n]
        others = bool(names) and names[-1].lower() == "others"
        named = names[:-1] if others else names
        people = tuple(_person(n) for n in named if n.strip())
        surnames = tuple(
            p.split(",")[0].strip() if "," in p else p.split()[-1] for p in named if p.strip()
        )
        year = _YEAR.search(entry)
        title = _title(entry)
        out.append(
            BibRecord(
                key=match[3],
                title=" ".join(_MARKUP.sub("", title).split()) if title else None,
                authors=people,
                surnames=tuple(_MARKUP.sub("", s) for s in surnames),
                more=others,
                year=int(year[1]) if year else None,
                doi=_title(entry, _DOI),
                files=file_paths(_title(entry, _FILE)),
            )
        )
    return out
