"""A paper's identity (title, authors, year, DOI, arXiv id) from evidence, each field with where
it came from, and a citation only when both its authors and its year are known.

Evidence, in order of trust (the first that gives a field wins it):

1. a bibliography record that names the PDF (``bib``: :mod:`arr.readers.bib_records`), given by
   the workspace;
2. the PDF's own metadata (``metadata``), only where page 1 agrees: its title's words stand at
   the top of page 1; its first author is the byline's first name in reading order
   (:func:`arr.readers.bylines.agreed_authors`: ``/Author`` is whoever made the file, often a
   co-author), or a body page 1 prints outside its copyright, venue and publisher lines. A
   publisher's name in ``/Author``, a template's ``/Title`` and a file's dates are not
   evidence; **a file date is never a paper's year**;
3. identifiers printed on page 1 (``arxiv``: ``arXiv:1706.03762`` gives 2017 and the id;
   ``doi``);
4. page 1's layout (``layout``, :mod:`arr.readers.pdf_layout`): the title is the largest type of
   the front matter (the lines before the abstract), never a masthead, a conference header, an
   arXiv stamp, an e-mail, an affiliation or a copyright line; where no type stands out
   (AASTeX), the lines right above the byline; a line in smaller type after a title ending
   with a colon is its subtitle; the authors are the name cells between the title and the
   abstract (:mod:`arr.readers.bylines`: affiliations, e-mails, raised marks and ORCID brackets
   skipped), none at all where the first of them does not read as a name (a later one would be
   cited as the first); the year is the one a venue, copyright or date line of page 1 gives
   (``Appearing in Proceedings of ... 2015``, ``JMLR: Workshop and Conference Proceedings vol
   49:1-15, 2016``, ``Date: November 15, 2005.``, ``(Dated: May 2, 1996)``), never a year cited
   in the text, nor one a line quoting the title holds (``... after the 1969 Survey. In
   Proceedings ...``).

Every threshold says what it was fitted on: papersdev (PMLR) and the generated templates of
``make bench-templates`` (docs/benchmarks.md).

A field no evidence gives stays unknown: a wrong citation is worse than none. Plain string work
over plain values (testable without a PDF); runs inside the reading worker.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from arr.readers.bib_records import title_key
from arr.readers.bylines import (
    agreed_authors,
    front_matter,
    layout_authors,
    masthead,
    name_like,
    names_in,
)
from arr.readers.citation import FOOTNOTE_MARKS, cite, person, surname
from arr.readers.pdf_layout import Line
from arr.readers.pdf_text import unspaced

# Fitted on papersdev (PMLR: a title 14.3 pt over a 10 pt body) and checked on the generated
# templates (bench-templates), whose title-to-body ratios are amsart 1.25, revtex 1.33,
# elsarticle and jmlr 1.43, authblk 1.58, llncs 1.59, mnras and acmart 1.9-2.2, IEEEtran
# 2.4-2.7; AASTeX's 1.0 (a bold title at the body's size) goes to title_above_byline.
MAX_TITLE_LINES = 4  # the longest generated title takes 2 lines, papersdev's 3
TITLE_SCALE = 1.15  # a layout title's type is at least this much larger than the body's
RUN_ON = 0.8  # a title's next line in type this much of its first's still belongs to it
SUBTITLE_SCALE = 1.05  # a subtitle's type is larger than the body's by this much (papersdev)
# two lines in the same type: sizes PDFium reports for one font differ by rounding and by the
# text matrix's scaling (kept from papersdev; the templates' title lines report equal sizes)
SAME_TYPE = 0.95
# a line that states where or when the paper appeared: its year is the paper's
_VENUE = re.compile(
    r"(?i)(?:copyright|\u00a9|\(c\)\s*\d{4}|\bproceedings\b|\bconference\b|\bworkshop\b|"
    r"\bsymposium\b|\bjournal\b|\btransactions\b|\bjmlr\b|\bvol\.|\bvolume\b|\bappearing in\b|"
    r"\bpublished\b|\baccepted\b|\bto appear\b|\bin press\b|\bletters\b|\bpreprint\b)"
)
# a year cited in prose: ``et al.``, ``Friedman (2001)``, ``Friedman, 2001``, ``[12]``
_CITED_IN_TEXT = re.compile(
    r"(?i)\bet al\b|[a-z]\s*\(\s*(?:19|20)\d\d[a-z]?\s*[);,]|[a-z]{3},\s*(?:19|20)\d\d[a-z]?\b|"
    r"\[\d+|arxiv:"
)
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
# a date as a title page states it: ``November 2022``, ``21 June 2020``, ``June 21, 2020``,
# ``2018/01/21``, ``2018-01-21``, ``21.01.2018``
_DATE = re.compile(
    rf"(?i)\b(?:\d{{1,2}}\s+{_MONTH}\.?,?\s+(?:19|20)\d\d|{_MONTH}\.?\s+(?:\d{{1,2}},?\s+)?"
    rf"(?:19|20)\d\d|(?:19|20)\d\d[/-]\d{{1,2}}[/-]\d{{1,2}}|\d{{1,2}}[./]\d{{1,2}}[./](?:19|20)\d\d)\b"
)
# a line that is a year alone, or a version and a year (``Version 2.07, 2009``)
_YEAR_LINE = re.compile(
    r"(?i)^(?:(?:version|v\.?\s?\d[\w.]*|release|edition)[\s\w.,:]*)?(?:19|20)\d\d\.?$"
)
# a date line is short: a sentence that holds a date is not one (papersdev; the templates'
# longest, ``Preprint. Under review at the Conference on ... 2019.``, is a venue line)
DATE_LINE_WORDS = 8
_YEAR = re.compile(r"(?<![\d./:-])((?:19|20)\d\d)(?![\d])")
# a line that states the paper's date, anywhere on page 1 (amsart's ``Date: November 15,
# 2005.`` is a footnote; REVTeX's ``(Dated: May 2, 1996)``)
_WORD_YEAR = re.compile(r"(\w+)\W+((?:19|20)\d\d)\b")
_WORD_BEFORE = re.compile(r"(\w+)\W+$")
_YEAR_WORD = re.compile(r"\b((?:19|20)\d\d)\W+(\w+)")
_WORD_AFTER = re.compile(r"\W+(\w+)")
# where an abstract begins and ends (its heading, or an inline ``Abstract.``/``Abstract—``)
_ABSTRACT_START = re.compile(r"(?i)^(?:abstract\b|a b s t r a c t\b)")
_SECTION_START = re.compile(
    r"(?i)^(?:keywords?\b|key words\b|index terms\b|(?:1\.?|i\.)\s+introduction\b|"
    r"introduction$|1\.?\s+[A-Z])"
)
# a line this long after the byline, in the front matter, is prose: the templates' abstract
# lines hold 13-18 words, their venue and date lines at most 10 (authblk's ``Preprint. Under
# review at the Conference on ...``), papersdev's front-matter lines after the byline 1-9
PROSE_WORDS = 12
_DATE_YEAR = re.compile(r"(?:19|20)\d\d")  # the year of a date _DATE found (``21.01.2018``)
_DATE_LABEL = re.compile(r"(?i)^\(?(?:date|dated|received|revised|accepted|published)\b\s*:?")
_ARXIV = re.compile(r"(?i)\barxiv:\s*(\d{2})(\d{2})\.(\d{4,5})(v\d+)?")
_ARXIV_OLD = re.compile(r"(?i)\barxiv:\s*([a-z-]+(?:\.[a-z]{2})?)/(\d{2})(\d{2})(\d{3})")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}]+[^\s\"<>{}.,;:)\]])")
_YEAR_BEFORE = re.compile(r"(?:19|20)\d\d\W{0,3}$")


@dataclass(frozen=True, slots=True)
class Identity:
    """What is known of a paper, each field with its source (``bib``, ``zotero``,
    ``metadata``, ``arxiv``, ``doi``, ``layout``)."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    doi: str | None = None
    arxiv: str | None = None
    sources: dict[str, str] = field(default_factory=dict)

    def citation(self) -> str | None:
        """``Acharya et al. 2015``, only when both the authors and the year are known."""
        if not self.authors or not self.year:
            return None
        return cite(list(self.authors), self.year)

    def shown(self) -> str:
        """Where each field came from (``unknown`` when no evidence gave it), and the
        identifiers: ``title: layout; authors: metadata; year: arxiv; doi: 10.1145/357172``."""
        parts = [f"{name}: {self.sources.get(name, 'unknown')}"
                 for name in ("title", "authors", "year")]  # fmt: skip
        parts += [f"doi: {self.doi}"] if self.doi else []
        parts += [f"arxiv: {self.arxiv}"] if self.arxiv else []
        return "; ".join(parts)


def _body_size(lines: list[Line]) -> float:
    sizes = sorted(line.size for line in lines for _ in line.text if line.size > 0)
    return sizes[len(sizes) // 2] if sizes else 0.0


def _titled(text: str) -> bool:
    letters = sum(c.isalpha() for c in text)
    return letters >= 4 and letters >= len(text.replace(" ", "")) / 2


def layout_title(lines: list[Line]) -> tuple[str | None, int]:
    """The front matter's largest type (not a masthead), its lines joined, and the index of
    the line after it; (None, 0) when no type stands out from the body's."""
    front = front_matter(lines)
    body = _body_size(lines)
    candidates = [line.size for line in front if not masthead(line.text) and _titled(line.text)]
    if not candidates or body <= 0:
        return None, 0
    largest = max(candidates)
    if largest < TITLE_SCALE * body:
        return title_above_byline(front)
    start = next(
        at for at, line in enumerate(front)
        if line.size >= SAME_TYPE * largest and not masthead(line.text) and _titled(line.text)
    )  # fmt: skip
    end = start
    while (
        end < len(front)
        and end - start < MAX_TITLE_LINES
        and front[end].size >= RUN_ON * largest
        and not masthead(front[end].text)
        # a line in smaller type that names people is the byline, not more of the title
        and (end == start or front[end].size >= SAME_TYPE * largest or not _byline(front[end]))
    ):
        end += 1
    parts = [front[at].text for at in range(start, end)]
    # a subtitle in smaller type after a colon (``Deep Retrieval:`` / ``Learning to ...``)
    while (
        end < len(front)
        and parts[-1].rstrip().endswith((":", "\u2014", "-"))
        and front[end].size >= SUBTITLE_SCALE * body
        and not masthead(front[end].text)
        and names_in(front[end]) == []
        and len(parts) < MAX_TITLE_LINES + 1
    ):
        parts.append(front[end].text)
        end += 1
    title = " ".join(" ".join(parts).split())
    title = unspaced(FOOTNOTE_MARKS.sub("", title).strip())
    return (title[:300] or None), end


def _byline(line: Line) -> bool:
    """A line that names people, or looks like names it cannot read (an all-capital OT1 byline
    whose accents fell apart): never more of the title."""
    return bool(names_in(line)) or any(name_like(cell) for cell in line.cells[:1])


def title_above_byline(front: list[Line]) -> tuple[str | None, int]:
    """Where no type stands out (AASTeX sets its title bold at the body's size): the lines
    right above the first byline, none of them a masthead or a date line, at most
    ``MAX_TITLE_LINES``; (None, 0) when the page has no byline or nothing titled above it."""
    byline = next((at for at, line in enumerate(front) if at and names_in(line)), None)
    if byline is None:
        return None, 0
    start = byline
    while (
        start > 0
        and byline - start < MAX_TITLE_LINES
        and _titled(front[start - 1].text)
        and not masthead(front[start - 1].text)
        and not _DATE.search(front[start - 1].text)
    ):
        start -= 1
    if start == byline:
        return None, 0
    title = " ".join(" ".join(front[at].text for at in range(start, byline)).split())
    return (unspaced(FOOTNOTE_MARKS.sub("", title).strip())[:300] or None), byline


def layout_year(
    lines: list[Line], page_text: list[str], latest: int | None = None, title: str | None = None
) -> int | None:
    """The year a venue, copyright or date line of page 1 states (not one cited in prose, not
    one of the title's: ``... after the 1969 Survey. In Proceedings of ...`` in ACM's reference
    line names the title's year first)."""
    latest = latest or time.gmtime().tm_year + 1
    # a year of the title with the word before it (``the 1969``): where a line quotes the title
    # or the word after it (``1969 Survey``: a quoted title broken across lines)
    quoted = {(w.lower(), y) for w, y in _WORD_YEAR.findall(title or "")}
    quoted |= {(w.lower(), y) for y, w in _YEAR_WORD.findall(title or "")}

    def plausible(found: str) -> int | None:
        year = int(found)
        return year if 1900 <= year <= latest else None

    prose = prose_lines(lines)
    texts = [t for t in [line.text for line in lines] + list(page_text) if _key(t) not in prose]
    for text in texts:  # a venue or a copyright line, anywhere on page 1 but the abstract
        if len(text) > 300 or not _VENUE.search(text) or _CITED_IN_TEXT.search(text):
            continue
        for match in _YEAR.finditer(text):
            before = _WORD_BEFORE.search(text[: match.start()])
            after = _WORD_AFTER.match(text[match.end() :])
            if any(w and (w[1].lower(), match[1]) in quoted for w in (before, after)):
                continue
            if year := plausible(match[1]):
                return year
    for text in texts:  # a labelled date line (``Date: ...``, ``(Dated: ...)``), anywhere
        # its label and a weekday may come with it (``Date: Monday, November 15, 2005.``)
        if len(text.split()) <= DATE_LINE_WORDS + 2 and _DATE_LABEL.match(text.strip()):
            found = _DATE.search(text)
            digits = _DATE_YEAR.search(found[0]) if found else None
            if digits and (year := plausible(digits[0])):
                return year
    for line in front_matter(lines):  # a date line in the front matter
        text = line.text.strip()
        if len(text.split()) > DATE_LINE_WORDS or _CITED_IN_TEXT.search(text):
            continue
        found = _DATE.search(text) or _YEAR_LINE.match(text)
        if found:
            for match in _YEAR.finditer(found[0]):
                if year := plausible(match[1]):
                    return year
    return None


def _key(text: str) -> str:
    return " ".join(text.split())


def prose_lines(lines: list[Line]) -> set[str]:
    """The abstract's lines: after its heading (or its inline ``Abstract.``) up to the first
    section or keywords line, and the long lines after the byline in the front matter (REVTeX
    sets its abstract with no heading), not a footnote in smaller type among them (PMLR's
    ``Appearing in Proceedings of ...`` comes in reading order inside the abstract). A venue
    named in the abstract is cited (``Results shown at the 1985 Workshop on ...``), not the
    paper's."""
    out: set[str] = set()
    inside = False
    size = 0.0  # the abstract's type: a footnote in smaller type inside it is no prose
    for line in lines:
        text = _key(line.text)
        if _ABSTRACT_START.match(text):
            inside, size = True, 0.0
            if len(text.split()) <= 1:  # a heading: the abstract's type is its next line's
                continue
        elif inside and _SECTION_START.match(text):
            inside = False
        if inside:
            size = size or line.size
            if line.size >= SAME_TYPE * size:
                out.add(text)
    front = front_matter(lines)
    byline = next((at for at, line in enumerate(front) if at and names_in(line)), len(front))
    out |= {
        _key(line.text) for line in front[byline + 1 :] if len(line.text.split()) >= PROSE_WORDS
    }
    return out


def identifiers(page_text: list[str]) -> tuple[str | None, int | None, str | None]:
    """(arXiv id, the year its number gives, DOI) printed on page 1."""
    text = "\n".join(page_text)
    arxiv = year = None
    if match := _ARXIV.search(text):
        yy, mm = int(match[1]), int(match[2])
        if 1 <= mm <= 12 and 7 <= yy <= 99:  # the YYMM.NNNN(N) scheme began in April 2007
            arxiv, year = f"{match[1]}{match[2]}.{match[3]}", 2000 + yy
    elif match := _ARXIV_OLD.search(text):
        yy = int(match[2])
        arxiv = f"{match[1]}/{match[2]}{match[3]}{match[4]}"
        year = 1900 + yy if yy >= 91 else 2000 + yy
    doi = _DOI.search(text)
    return arxiv, year, (doi[1] if doi else None)


def metadata_agrees(
    title: str | None, authors: list[str], page_text: list[str]
) -> tuple[bool, bool]:
    """Whether page 1 prints the metadata's title (its letters among the first lines) and its
    first author's surname."""
    top = title_key(" ".join(page_text[:40]))
    title_ok = bool(title) and len(title_key(title or "")) >= 8 and title_key(title or "") in top
    whole = title_key(" ".join(page_text))
    name = surname(authors[0]) if authors else ""
    first = title_key(name.removeprefix("The ") if " " in name else name)  # a body: its words
    if not first or len(first) < 2 or first not in whole:
        return title_ok, False
    if person(authors[0]):
        return title_ok, True
    # a body is the author only where page 1 prints it outside its copyright, venue and
    # publisher lines (``(c) 2005 Association for Computational Linguistics`` names the
    # publisher, not who wrote the paper)
    return title_ok, any(
        first in title_key(line) and not masthead(line) and not _after_a_year(line, authors[0])
        for line in page_text
    )


def _after_a_year(line: str, name: str) -> bool:
    """Whether ``name`` stands right after a year in ``line``: a copyright however its sign
    was extracted (``c 2005 Association for Computational Linguistics``)."""
    text = " ".join(line.split())
    at = text.lower().find(" ".join(name.split()).lower())
    return at > 0 and bool(_YEAR_BEFORE.search(text[:at]))


def read_identity(
    lines: list[Line],
    page_text: list[str],
    metadata_title: str | None,
    metadata_people: list[str],
) -> Identity:
    """A PDF's identity from its metadata (where page 1 agrees) and page 1."""
    sources: dict[str, str] = {}
    title_ok, authors_ok = metadata_agrees(metadata_title, metadata_people, page_text)
    title, after = layout_title(lines)
    if title_ok:
        title, sources["title"] = metadata_title, "metadata"
    elif title:
        sources["title"] = "layout"
    authors, sources["authors"] = agreed_authors(
        metadata_people if authors_ok else [],
        layout_authors(lines, after) if after else [],
        front_matter(lines)[after:] if after else [],
    )
    if not authors:
        del sources["authors"]
    arxiv, arxiv_year, doi = identifiers(page_text)
    year = layout_year(lines, page_text, title=title)
    if year:
        sources["year"] = "layout"
    elif arxiv_year:
        year, sources["year"] = arxiv_year, "arxiv"
    if doi:
        sources["doi"] = "doi"
    if arxiv:
        sources["arxiv"] = "arxiv"
    return Identity(title, tuple(authors), year, doi, arxiv, sources)
