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

from arr.readers.view import UNREADABLE, Unreadable, View, build_view


class PdfReader:
    """``read(bytes) -> View`` for ``.pdf`` files, in the calling process (plain values)."""

    suffixes = (".pdf",)

    def __init__(self, max_pages: int = 2000, budget_s: float = 20.0) -> None:
        if max_pages < 1 or budget_s <= 0:
            raise ValueError("max_pages and budget_s must be > 0")
        self.max_pages = max_pages
        self.budget_s = budget_s

    def read(self, raw: bytes) -> View:
        from arr.readers.pdf_text import extract

        if not raw.lstrip()[:5].startswith(b"%PDF-") and b"%PDF-" not in raw[:1024]:
            raise Unreadable(UNREADABLE, "not a PDF (no %PDF- header)")
        title, pages, headings, info = extract(raw, self.max_pages, self.budget_s)
        blocks = []
        shown = title  # a page's title: the heading that opens it, else the last one before
        for number, (lines, opening) in enumerate(zip(pages, headings, strict=True), 1):
            shown = opening or shown
            blocks.append((f"page={number}", shown, lines))
        works = paper_citations(pages, headings, info)
        cited = [f"{work}, p. {n}" if work else None for n, work in enumerate(works, 1)]
        return build_view(blocks, file_lines=False, title=title, citations=cited)


def paper_citations(
    pages: list[list[str]], headings: list[str | None], info: dict[str, str]
) -> list[str | None]:
    """Each page's work as cited (``Ongaro & Ousterhout 2014``): page 1's from the metadata
    (when it names people or a body) or the lines under its heading; a later page that opens
    with a heading and names authors under it starts another paper (a volume's, a collection's);
    one that names none stays in the paper before it (a book's chapter)."""
    from arr.readers.citation import (
        INNER_NAME_LINES,
        NAME_LINES,
        authors_under,
        cite,
        heading_lines,
        metadata_authors,
        metadata_year,
        year_under,
    )
    from arr.readers.pdf_text import english_words

    made = metadata_year(info.get("CreationDate"))
    out: list[str | None] = []
    current: str | None = None
    for number, (lines, opening) in enumerate(zip(pages, headings, strict=True)):
        if number == 0 or opening:
            skip = heading_lines(lines, opening) if opening else 1
            # a later page's names must stand right under its heading (a new paper's byline,
            # not a chapter's first lines) and not be English words alone ("Getting Started")
            if number == 0:
                window, words = NAME_LINES, frozenset[str]()
            else:
                window, words = INNER_NAME_LINES, english_words()
            people = authors_under(lines, skip, window, words)
            people = people or authors_under(lines[:skip], 1, NAME_LINES, words)
            if number == 0:
                people = metadata_authors(info.get("Author")) or people
            if people:
                current = cite(people, year_under(lines, 1) or made)
        out.append(current)
    return out
