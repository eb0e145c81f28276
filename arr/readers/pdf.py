"""PDF reader: one unit per page, located as ``papers/x.pdf#page=7`` (pages as viewers count).

A page is shown with the heading that opens it (large type at its top: a paper's title in a
volume of papers), else the last such heading before it, else the file's title.

Text comes from PDFium (pypdfium2, :mod:`arr.readers.pdf_text`). This reader runs inside the
reading worker (:mod:`arr.readers.worker`) under the guard's time and memory budget
(:mod:`arr.readers.guard`), never in the searching process. Files are refused with a reason,
never a traceback: a password (``pdf_encrypted``), no text layer (``no_text``: scans; OCR is
not done), a malformed or truncated file (``unreadable``), more pages than ``max_pages``
(``pdf_too_many_pages``). Extraction happens once per file version: views are cached by
content (:class:`arr.readers.Readers`).
"""

from __future__ import annotations

from arr.readers.identity import Identity
from arr.readers.view import UNREADABLE, Unreadable, View, build_view


class PdfReader:
    """``read(bytes) -> View`` for ``.pdf`` files, in the calling process (plain values)."""

    def __init__(self, max_pages: int = 2000, budget_s: float = 20.0) -> None:
        if max_pages < 1 or budget_s <= 0:
            raise ValueError("max_pages and budget_s must be > 0")
        self.max_pages = max_pages
        self.budget_s = budget_s

    def read(self, raw: bytes) -> View:
        from arr.readers.outline import work_titles
        from arr.readers.pdf_text import extract

        if not raw.lstrip()[:5].startswith(b"%PDF-") and b"%PDF-" not in raw[:1024]:
            raise Unreadable(UNREADABLE, "not a PDF (no %PDF- header)")
        title, pages, headings, info, bookmarks, layout = extract(
            raw, self.max_pages, self.budget_s
        )
        found = paper_identity(pages, layout, info)
        if found.title:  # else the page's heading or first line (pdf_text.extract)
            title = found.title
            headings = [found.title, *headings[1:]] if headings else headings
        works = work_titles(bookmarks, headings, lambda n: bool(byline(pages[n], headings[n])))
        blocks = []
        shown = title  # a page's title: the heading that opens it, else the last one before
        for number, (lines, opening, work) in enumerate(zip(pages, headings, works, strict=True)):
            shown = opening or shown
            blocks.append((f"page={number + 1}", work or shown, lines))
        each, firsts = paper_citations(pages, headings, found, works)
        cited = [f"{c}, p. {n}" if c else None for n, c in enumerate(each, 1)]
        shown = found.shown()
        return build_view(
            blocks,
            file_lines=False,
            title=title,
            citations=cited,
            identities=[shown if first else None for first in firsts],
        )


def paper_identity(pages: list[list[str]], layout: list, info: dict[str, str]) -> Identity:
    """Page 1's paper (:mod:`arr.readers.identity`): the metadata where page 1 agrees, its
    identifiers, its layout."""
    from arr.readers.citation import metadata_authors
    from arr.readers.identity import read_identity
    from arr.readers.pdf_titles import metadata_title

    first = pages[0] if pages else []
    return read_identity(layout, first, metadata_title(info), metadata_authors(info.get("Author")))


def byline(lines: list[str], opening: str | None) -> list[str]:
    """The people named right under a page's heading (a new paper's byline in a volume, not a
    chapter's first lines), not English words alone (``Getting Started``); a page without a
    heading names no one. Page 1's authors are its identity's (:mod:`arr.readers.identity`)."""
    from arr.query.lexicon import english_words
    from arr.readers.citation import INNER_NAME_LINES, NAME_LINES, authors_under, heading_lines

    if not opening:
        return []
    skip = heading_lines(lines, opening)
    words = english_words()
    return authors_under(lines, skip, INNER_NAME_LINES, words) or authors_under(
        lines[:skip], 1, NAME_LINES, words
    )


def paper_citations(
    pages: list[list[str]],
    headings: list[str | None],
    first: Identity,
    works: list[str | None] | None = None,
) -> tuple[list[str | None], list[bool]]:
    """Each page's work as cited (``Ongaro & Ousterhout 2014``): page 1's from its identity
    (both its authors and its year known, else none); a later page that opens
    with a heading and names authors under it starts another paper (a volume's, a collection's);
    one that names none stays in the paper before it (a book's chapter). A work the outline
    names (``works``: :mod:`arr.readers.outline`) starts where its bookmark points: its own
    byline if it has one, else the authors before it, in the year its bookmark or its first
    lines name (an issue of a newsletter). A file's dates are never a year: no year, no
    citation. Beside each: whether the page is page 1's paper (its identity holds there)."""
    from arr.readers.citation import cite, heading_lines, year_under

    works = works or [None] * len(pages)
    out: list[str | None] = []
    firsts: list[bool] = []
    own = True  # still page 1's paper
    people: list[str] = list(first.authors)
    year: int | None = first.year
    for number, (lines, opening, work) in enumerate(zip(pages, headings, works, strict=True)):
        begins = work is not None and (number == 0 or works[number - 1] != work)
        found = byline(lines, opening) if number else []
        if found:
            people, year = found, year_under(lines, 1)
            own = False
        if begins and number:
            own = False
        if begins:
            # the bookmark's year, else its byline's, else its first lines' (under the
            # heading, or where it was: a masthead on every issue is a dropped running head)
            under = year if found or not number else None
            under = under or year_under(lines, heading_lines(lines, opening))
            year = year_under([work or ""], 0) or under
        out.append(cite(people, year) if people and year else None)
        firsts.append(own)
    return out, firsts
