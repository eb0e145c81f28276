"""A bibliography's records: what a ``.bib`` file says of each work (title, authors as given and
family names, year, DOI, the PDFs it names), read by maintained libraries and used by the
BibTeX reader (:mod:`arr.readers.bibtex`) and as evidence of a PDF's identity
(:mod:`arr.workspace.bib_identity`).

The file is cut into entries by hand (``@type{key,`` to the brace that closes it, in linear time:
a hostile file of 600 KB of ``@a{`` is no work), then the closed entries and the ``@string``
definitions go to ``bibtexparser`` 2.x (fields, ``@string`` references, quoted and braced
values), BibTeX's name rules split the authors (``Family, Given``, ``Given von Family``,
``{Association for Computational Linguistics}`` braced whole is a body, ``and others``), and
``pylatexenc`` decodes LaTeX to Unicode (``Slapni{\\v c}ar`` -> ``Slapničar``, ``{\\"u}``,
``\\'{\\i}``, ``{\\o}``, ``\\ss``, ``--``, ``$\\alpha$``). The year is ``year``, else BibLaTeX's
``date`` (``2016-12``, as Better BibLaTeX writes it), else the year of the entry its
``crossref`` names; never ``urldate``. ``make bench-bib`` measured it against the hand-written
reader it replaced on ``tests/data/bibdev`` (docs/papers.md).

An entry names its PDF in a ``file`` field, as the tools researchers use write it: Zotero with
Better BibTeX (``file = {/home/me/Zotero/storage/AB12CD34/x.pdf}``, several separated by
``;``), JabRef and Mendeley (``file = {:papers/lamport78.pdf:PDF}``, a drive's colon escaped
``C\\:``). BibDesk's ``bdsk-file-1`` (a base64 property list) is not read.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

_ENTRY = re.compile(r"@\s*([A-Za-z]+)\s*([{(])\s*([^,\s{}()]+)\s*,")
_STRING = re.compile(r"@\s*string\s*([{(])", re.IGNORECASE)
_NOT_ENTRIES = {"string", "preamble", "comment"}
_JABREF = re.compile(r"^(?P<description>[^:]*):(?P<path>.+):(?P<kind>[A-Za-z/.+-]*)$")
_MARKUP = re.compile(r"\\[a-zA-Z]+|[{}$\\]")
_LATEX = re.compile(r"[\\{}$~%]|--|``|''")  # what pylatexenc would change; else the text is kept
_AND = re.compile(r"[{}]|(?<!\s)\s+and\s+", re.IGNORECASE)  # (?<!\s): linear on a run of spaces
_TILDE_ACCENT = re.compile(r"\\~(\{[^{}]*\}|[A-Za-z])")
_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")
_DOI_PREFIX = re.compile(r"(?i)^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)")
MAX_RECORDS = 20_000  # a bibliography larger than this is read up to it
MAX_FIELD_CHARS = 2_000  # a title or a name decoded at most this long (pylatexenc recurses)
MAX_NAMES = 100  # authors read per entry; beyond them the entry counts as having more


@dataclass(frozen=True, slots=True)
class Person:
    """A name as BibTeX's rules part it: ``given`` (``Leslie``, empty for a body) and
    ``family`` (particles kept: ``van Genabith``; a body whole: ``The LaTeX Project``)."""

    given: str
    family: str

    def shown(self) -> str:
        return f"{self.given} {self.family}".strip()


@dataclass(frozen=True, slots=True)
class BibRecord:
    key: str
    title: str | None
    people: tuple[Person, ...]
    more: bool  # ``and others``: authors beyond those named
    year: int | None
    doi: str | None
    files: tuple[str, ...]  # as written: absolute, or relative to the .bib's folder
    source: str = "bib"  # which reference manager's record: ``bib`` or ``zotero``

    @property
    def authors(self) -> tuple[str, ...]:
        return tuple(p.shown() for p in self.people)

    @property
    def surnames(self) -> tuple[str, ...]:
        return tuple(p.family for p in self.people if p.family)


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


def closed(text: str, start: int, opener: str) -> int | None:
    """Index just past the brace that closes the one at ``start``; None if none does."""
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
    return None


def entries(text: str) -> Iterator[tuple[re.Match[str], int | None]]:
    """Each ``@type{key,`` that opens an entry (``@string``, ``@preamble``, ``@comment`` aside),
    after the one before it closed, with the index just past its closing brace (None: it runs
    to the text's end unclosed)."""
    position = 0
    while (match := _ENTRY.search(text, position)) is not None:
        end = closed(text, match.start(2), match[2])
        position = max(end or len(text), match.end())
        if match[1].lower() not in _NOT_ENTRIES:
            yield match, end


@functools.lru_cache(maxsize=1)
def _decoder():  # type: ignore[no-untyped-def]
    """pylatexenc's parsing context and text converter, built once (building them cost 90 us
    of each decoded string)."""
    from pylatexenc import latexwalker
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    context.add_context_category(
        "arr-bib",
        prepend=True,
        macros=[MacroTextSpec("LaTeX", "LaTeX"), MacroTextSpec("TeX", "TeX"),
                MacroTextSpec("LaTeXe", "LaTeX2e"), MacroTextSpec("url", "%s")],
    )  # fmt: skip
    parsing = latexwalker.get_default_latex_context_db()
    return LatexNodes2Text(latex_context=context, math_mode="text"), parsing


@functools.lru_cache(maxsize=4096)  # the same names recur across a bibliography's entries
def decoded(text: str) -> str:
    """LaTeX as Unicode, spaces folded (``Sent{\\"u}rk`` -> ``Sentürk``); text with no markup
    as it is, and markup pylatexenc cannot read with its commands and braces dropped."""
    from pylatexenc.latexwalker import LatexWalker

    text = text[:MAX_FIELD_CHARS]
    if _LATEX.search(text):
        to_text, parsing = _decoder()
        try:
            nodes = LatexWalker(text, latex_context=parsing, tolerant_parsing=True)
            text = to_text.nodelist_to_text(nodes.get_latex_nodes()[0])
        except (RecursionError, ValueError, IndexError, TypeError, KeyError):
            text = _MARKUP.sub("", text)
    return unicodedata.normalize("NFC", " ".join(text.split()))


def split_names(field: str) -> list[str]:
    """An ``author`` field cut at each ``and`` outside braces (``{Simon and Schuster}`` is one).
    bibtexparser 2.1's own split drops a command right after ``and`` (``and \\c{S}ahin`` ->
    ``{S}ahin``), so it is done here."""
    names, depth, start = [], 0, 0
    for match in _AND.finditer(field):
        if match[0] == "{":
            depth += 1
        elif match[0] == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            names.append(field[start : match.start()])
            start = match.end()
    names.append(field[start:])
    return [n.strip() for n in names if n.strip()]


def people(field: str) -> tuple[tuple[Person, ...], bool]:
    """An ``author`` field's people and whether ``and others`` (or more than ``MAX_NAMES``)
    follows them."""
    from bibtexparser.middlewares.names import parse_single_name_into_parts

    # BibTeX's name rules take ``~`` for a space, so ``\\~{n}`` outside braces split a name
    field = _TILDE_ACCENT.sub(r"{\\~\1}", field[: MAX_FIELD_CHARS * 10])
    names = split_names(field)
    more = len(names) > MAX_NAMES or (bool(names) and names[-1].strip().lower() == "others")
    found = []
    for name in names[:MAX_NAMES]:
        if name.strip().lower() == "others":
            continue
        parts = parse_single_name_into_parts(name, strict=False)
        family = decoded(" ".join(parts.von + parts.last))
        if family:
            found.append(Person(decoded(" ".join(parts.first)), family))
    return tuple(found), more


def year_of(fields: dict[str, str]) -> int | None:
    """``year``, else BibLaTeX's ``date`` (``2016-12-05``, ``2016/2017``: its first year)."""
    for name in ("year", "date"):
        found = _YEAR.search(fields.get(name, ""))
        if found:
            return int(found[1])
    return None


def doi_of(value: str | None) -> str | None:
    """A DOI as written, bare (``https://doi.org/10.1/x`` and ``doi:10.1/x`` -> ``10.1/x``)."""
    doi = _DOI_PREFIX.sub("", (value or "").replace("\\_", "_").replace("{", "").replace("}", ""))
    return doi.strip() or None


@contextlib.contextmanager
def _quiet_splitter() -> Iterator[None]:
    """bibtexparser logs a warning per entry it cannot parse; such an entry is data here (no
    record), not a line on the user's terminal."""
    splitter = logging.getLogger("bibtexparser.splitter")
    drop = logging.Filter("-")  # passes no record (its name matches no logger)
    splitter.addFilter(drop)
    try:
        yield
    finally:
        splitter.removeFilter(drop)


def parsed_fields(text: str) -> dict[str, dict[str, str]]:
    """Each closed entry's fields by key (lower case names, ``@string`` references resolved,
    values as written inside their braces or quotes); the first entry of a key wins."""
    import bibtexparser

    chunks = []
    position = 0  # definitions first: entries may use them
    while len(chunks) < MAX_RECORDS and (match := _STRING.search(text, position)) is not None:
        end = closed(text, match.start(1), match[1])
        if end is None:  # the rest of the text is inside it
            break
        chunks.append(text[match.start() : end])
        position = end
    for count, (match, end) in enumerate(entries(text)):
        if count >= MAX_RECORDS or end is None:  # an entry left open is not read
            break
        chunks.append(text[match.start() : end])
    with _quiet_splitter():
        library = bibtexparser.parse_string("\n".join(chunks))
    out: dict[str, dict[str, str]] = {}
    for entry in library.entries:
        fields = {f.key.lower(): str(f.value) for f in entry.fields}
        out.setdefault(entry.key, fields)
    return out


def records(text: str) -> list[BibRecord]:
    """Every entry of a ``.bib`` file's text as a record, in the file's order."""
    by_key = parsed_fields(text)
    lower = {key.lower(): fields for key, fields in by_key.items()}
    out = []
    for key, fields in by_key.items():
        parent = lower.get(fields.get("crossref", "").strip().lower(), {})
        people_, more = people(fields.get("author", ""))
        title = decoded(fields["title"]) if fields.get("title") else None
        out.append(
            BibRecord(
                key=key,
                title=title[:300] if title else None,
                people=people_,
                more=more,
                year=year_of(fields) or year_of(parent),
                doi=doi_of(fields.get("doi")),
                files=file_paths(fields.get("file")),
            )
        )
    return out
