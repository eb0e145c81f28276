"""A PDF's text, page by page, as a reader wants it (pypdfium2: PDFium's own text layer).

PDFium returns each page's characters in content order, which for the two-column papers
pdflatex writes is column by column (measured on ``../shared/data/pdfgold``, see
``make bench-papers``). What is cleaned here, per page, where it is cheap to tell:

- ligatures and other compatibility forms folded (NFKC: ``ﬁ`` -> ``fi``);
- a word hyphenated at a line end joined: PDFium marks TeX's soft hyphens (U+FFFE / U+0002),
  and a letter, ``-``, end of line and a lower-case letter is joined too (producers that do
  not mark them); a hyphen before a digit or a capital stays (``43.3-46.2``, ``Cross-Check``);
- running heads and page numbers: a first or last line that is a bare number (``7``,
  ``Page 7``, ``7 of 12``, roman numerals), or a first/last line repeated on most pages;
- the title: the metadata's, else the first page's leading run of large type (font sizes
  from PDFium), else its first line.

This module runs inside the extraction worker (:mod:`arr.readers.pdf_worker`), never in the
searching process: a hostile PDF can only exhaust the worker.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections import Counter

from arr.readers.view import (
    EXTRACT_TIMEOUT,
    NO_TEXT,
    PDF_ENCRYPTED,
    TOO_MANY_PAGES,
    UNREADABLE,
    Unreadable,
)

_SOFT_HYPHEN = re.compile("[\ufffe\x02\u00ad]\n?")
# a marked break before a capital was a real hyphen (Wolcott-Rallison broken at its hyphen)
_HARD_BREAK = re.compile("[\ufffe\x02\u00ad]\n?(?=[A-Z])")
_LINE_END_HYPHEN = re.compile(r"(?<=[a-z])-\n(?=[a-z])")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE
)
_DIGITS = re.compile(r"\d+")
MIN_TEXT_CHARS = 16  # fewer non-space characters in the whole file: no text layer (a scan)


def clean_page(raw: str) -> list[str]:
    """One page's text as lines: line ends unified, hyphenation joined, forms folded."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    text = _HARD_BREAK.sub("-", text)
    text = _SOFT_HYPHEN.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    text = _LINE_END_HYPHEN.sub("", text)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def _edge_key(line: str) -> str:
    return _DIGITS.sub("#", line.lower())


def drop_running_lines(pages: list[list[str]]) -> list[list[str]]:
    """Pages without their page numbers and running heads (first/last lines)."""
    repeated: set[str] = set()
    if len(pages) >= 3:
        edges = Counter(
            key for page in pages for key in {_edge_key(page[0]), _edge_key(page[-1])} if page
        )
        repeated = {key for key, n in edges.items() if n >= 0.6 * len(pages)}
    out = []
    for page in pages:
        lines = list(page)
        for end in (-1, 0):
            if lines and (_PAGE_NUMBER.match(lines[end]) or _edge_key(lines[end]) in repeated):
                lines.pop(end)
        out.append(lines)
    return out


HEADING_SCALE = 1.15  # a heading's letters are this much larger than the page's median


def heading(textpage: object) -> str | None:
    """The page's leading run of large type (a paper's title as typeset), or None. The body
    size is the median of 31 letters sampled over the page; only a run that starts the page
    is read letter by letter (a few ctypes calls per page, not one per letter)."""
    import statistics

    import pypdfium2.raw as raw_api

    total = textpage.count_chars()  # type: ignore[attr-defined]
    handle = textpage.raw  # type: ignore[attr-defined]
    if total <= 0:
        return None

    def size(index: int) -> float:
        return float(raw_api.FPDFText_GetFontSize(handle, index))

    sample = [size(i * total // 31) for i in range(31)]
    body = [found for found in sample if found >= 2]  # generated breaks have no size
    if not body:
        return None
    large = HEADING_SCALE * statistics.median(body)
    end, limit = 0, min(total, 400)
    while end < limit and ((found := size(end)) >= large or found < 2):
        end += 1
    if end == 0:
        return None
    lines = clean_page(textpage.get_text_range(0, end))  # type: ignore[attr-defined]
    return " ".join(lines)[:300] or None


def _metadata_title(document: object) -> str | None:
    try:
        title = (document.get_metadata_dict().get("Title") or "").strip()  # type: ignore[attr-defined]
    except Exception:  # a broken info dictionary: the first heading instead
        return None
    title = " ".join(unicodedata.normalize("NFKC", title).split())
    return title[:300] or None


def extract(
    raw: bytes, max_pages: int, budget_s: float
) -> tuple[str | None, list[list[str]], list[str | None]]:
    """(title, lines of each page, the heading that opens each page or None) of a PDF given
    as bytes; raises Unreadable."""
    import pypdfium2 as pdfium

    started = time.monotonic()
    try:
        document = pdfium.PdfDocument(raw)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise Unreadable(PDF_ENCRYPTED, "needs a password") from None
        raise Unreadable(UNREADABLE, message[:200]) from None
    try:
        count = len(document)
        if count > max_pages:
            raise Unreadable(TOO_MANY_PAGES, f"{count} pages; limit {max_pages}")
        pages: list[list[str]] = []
        headings: list[str | None] = []
        for number in range(count):
            if time.monotonic() - started > budget_s:
                raise Unreadable(EXTRACT_TIMEOUT, f"over {budget_s:g} s at page {number + 1}")
            page = document[number]
            try:
                textpage = page.get_textpage()
                try:
                    pages.append(clean_page(textpage.get_text_range()))
                    headings.append(heading(textpage))
                finally:
                    textpage.close()
            except pdfium.PdfiumError:
                pages.append([])  # one unreadable page: the others still count
                headings.append(None)
            finally:
                page.close()
        title = _metadata_title(document) or (headings[0] if headings else None)
    finally:
        document.close()
    if sum(len("".join(line.split())) for page in pages for line in page) < MIN_TEXT_CHARS:
        raise Unreadable(NO_TEXT, "no text layer (a scan? OCR is not done)")
    pages = drop_running_lines(pages)
    if title is None:
        first = next((line for page in pages for line in page if line.strip()), "")
        title = first[:300] or None
    return title, pages, headings
