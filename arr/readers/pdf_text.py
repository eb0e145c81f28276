"""A PDF's text, page by page, as a reader wants it (pypdfium2: PDFium's own text layer).

PDFium returns each page's characters in content order, which for the two-column papers
pdflatex writes is column by column (measured by ``make bench-papers`` on two-column papers
typeset by pdflatex). What is cleaned here, per page, where it is cheap to tell:

- ligatures and other compatibility forms folded (NFKC: ``ﬁ`` -> ``fi``);
- a word broken at a line end (``visu-`` / ``al``; PDFium marks line-end hyphens with U+FFFE
  or U+0002, other producers leave ``-`` and a line end) is joined only when the joined word is
  the likelier one, judged over the whole document (:func:`resolve_breaks`): the joined form
  occurs elsewhere -> joined; the hyphenated form occurs elsewhere -> kept; the joined form is
  an English word (:func:`english_words`) -> joined; both halves are words and the whole is
  not (``visual-`` / ``flow``) -> the compound keeps its hyphen; a ligature's letters where
  one makes a word (a font's unmapped ``ffi``: :mod:`arr.readers.ligatures`); else joined.
  A hyphen before a digit or a capital stays (``43.3-46.2``, ``Cross-Check``); U+00AD (a
  discretionary hyphen) always joins;
- running heads and page numbers: a first or last line that is a bare number (``7``,
  ``Page 7``, ``7 of 12``, roman numerals), or a first/last line repeated on most pages;
  never the last text of a page (slides whose pages are one line each keep it) and never
  every line of a document;
- the fallback title, where page 1's identity (:mod:`arr.readers.identity`: the metadata's
  title where page 1 prints it, else page 1's layout) names none: the metadata's when it is
  plausibly the paper's (:mod:`arr.readers.pdf_titles`; it is also what the walls judge, so a
  credential in it withholds the file), else the first page's leading run of large type (font
  sizes from PDFium; letter-spaced capitals joined), else its first line when it can stand
  for a title (letters, no control characters: not a figure's axis labels), else none.

This module runs inside the reading worker (:mod:`arr.readers.worker`), never in the
searching process: a hostile PDF can only exhaust the worker.
"""

from __future__ import annotations

import itertools
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from arr.query.lexicon import english_words
from arr.readers.ligatures import restored
from arr.readers.outline import top_bookmarks
from arr.readers.pdf_layout import Line, ligatures
from arr.readers.pdf_layout import page_lines as layout_lines
from arr.readers.pdf_titles import metadata_title, plausible_heading, plausible_title
from arr.readers.view import (
    EXTRACT_TIMEOUT,
    GARBLED_TEXT,
    NO_TEXT,
    PDF_ENCRYPTED,
    TOO_MANY_PAGES,
    UNREADABLE,
    Unreadable,
)

_SOFT_HYPHEN = re.compile("[\ufffe\x02\u00ad]\n?")
# a marked break before a capital was a real hyphen (Wolcott-Rallison broken at its hyphen)
_HARD_BREAK = re.compile("[\ufffe\x02\u00ad]\n?(?=[A-Z][a-z])")
# a line-end hyphen inside a word (lower case, or all capitals: CON-/CLUSIONS), marked by
# PDFium or not: decided per document
_MARKED_BREAK = re.compile("(?<=[A-Za-z])[\ufffe\x02]\n?(?=[A-Za-z])")
_LINE_END_HYPHEN = re.compile(r"(?<=[a-z])-\n(?=[a-z])|(?<=[A-Z])-\n(?=[A-Z]{2})")
BREAK = "\x00"  # stands for an undecided line-end hyphen inside a page's lines
_BROKEN = re.compile(r"([A-Za-z]+)\x00([A-Za-z]+)")
_WORD = re.compile(r"[A-Za-z]+")
# a right half that is a word's ending, not a word (inhibit-ing, link-age, composition-ally)
_SUFFIX_WORDS = (
    "ing ings ed ly ally age ages ation ations tion tions sion sions ment ments ness able ible ous "
    "ive ity ities ism ist ists er ers est al ance ence ant ent ful less ship ward wise"
)
_SUFFIXES = frozenset(_SUFFIX_WORDS.split())  # noqa: SIM905
_COMPOUND = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|/)\s*\d{1,4})?$", re.IGNORECASE
)
_DIGITS = re.compile(r"\d+")
MIN_TEXT_CHARS = 16  # fewer non-space characters in the whole file: no text layer (a scan)
# more of a file's characters than this unmapped (control, private use, U+FFFD): junk, skipped
# with a name (a real PDF read so was 59% control characters; text PDFs are under 1%)
MAX_GARBLED_SHARE = 0.3
_GARBLED = frozenset({"Cc", "Co", "Cn", "Cs"})


def garbled_share(pages: list[list[str]]) -> float:
    """The share of a file's visible characters that no font mapped to a letter: control and
    private-use characters, unassigned code points, U+FFFD (sampled: at most 200,000)."""
    seen = garbled = 0
    for page in pages:
        for line in page:
            for char in line:
                if char == " ":
                    continue
                seen += 1
                garbled += char == "\ufffd" or unicodedata.category(char) in _GARBLED
            if seen >= 200_000:
                return garbled / seen
    return garbled / seen if seen else 0.0


def clean_page(raw: str) -> list[str]:
    """One page's text as lines: line ends unified, hyphenation decided on the page alone,
    forms folded (:func:`page_lines`, then :func:`resolve_breaks` over this page)."""
    return resolve_breaks([page_lines(raw)])[0]


def page_lines(raw: str) -> list[str]:
    """One page's text as lines: line ends unified, forms folded, each line-end hyphen between
    lower-case letters left as ``BREAK`` for the document to decide."""
    text = ligatures(raw.replace(BREAK, ""))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _HARD_BREAK.sub("-", text)
    text = _MARKED_BREAK.sub(BREAK, text)
    text = _SOFT_HYPHEN.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    text = _LINE_END_HYPHEN.sub(BREAK, text)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def resolve_breaks(pages: list[list[str]]) -> list[list[str]]:
    """Every undecided line-end hyphen joined or kept, by what the document itself says."""
    if not any(BREAK in line for page in pages for line in page):
        return pages
    whole = "\n".join(line for page in pages for line in page)
    rest = _BROKEN.sub(" ", whole)  # the words beside a break do not vote for themselves
    vocabulary = {word.lower() for word in _WORD.findall(rest)}
    # every adjacent pair of parts of the document's hyphenated words (state-of-the-art:
    # state-of, of-the, the-art), so a broken pair is looked up, not searched for
    compounds = {
        f"{a}-{b}"
        for found in _COMPOUND.findall(rest)
        for a, b in itertools.pairwise(found.lower().split("-"))
    }

    lexicon = english_words()

    def decide(match: re.Match[str]) -> str:
        left, right = match[1], match[2]
        joined, hyphened = left + right, f"{left}-{right}"
        if joined.lower() in vocabulary:
            return joined
        if hyphened.lower() in compounds:
            return hyphened
        if joined.lower() in lexicon:
            return joined  # an English word (because, furthermore, conclusion)
        if (ligature := restored(left, right, vocabulary)) is not None:
            return ligature  # an unmapped ffi glyph, not a hyphen (E?cient: Efficient)
        if (
            len(left) >= 3
            and len(right) >= 3
            and right.lower() not in _SUFFIXES
            and all(w in vocabulary or w in lexicon for w in (left.lower(), right.lower()))
        ):
            return hyphened  # both halves are words and the whole is not: a compound
        return joined

    return [[_BROKEN.sub(decide, line).replace(BREAK, "") for line in page] for page in pages]


def _edge_key(line: str) -> str:
    return _DIGITS.sub("#", line.lower())


def drop_running_lines(pages: list[list[str]]) -> list[list[str]]:
    """Pages without their page numbers and running heads (first/last lines)."""
    repeated: set[str] = set()
    if len(pages) >= 3:
        edges = Counter(
            key
            for page in pages
            if page  # a blank page has no edges to compare
            for key in {_edge_key(page[0]), _edge_key(page[-1])}
        )
        repeated = {key for key, n in edges.items() if n >= 0.6 * len(pages)}
    out = []
    for page in pages:
        lines = list(page)
        for end in (-1, 0):
            if len(lines) > 1 and (
                _PAGE_NUMBER.match(lines[end]) or _edge_key(lines[end]) in repeated
            ):
                lines.pop(end)  # never the page's last line: a slide's one line is its text
        out.append(lines)
    if not any(line.strip() for page in out for line in page):
        return pages  # every line looked like a running head: they are the text
    return out


HEADING_SCALE = 1.15  # a heading's letters are this much larger than the page's median
# a line of the leading large type whose letters are this much smaller than the first line's is
# not the heading's any more: the authors (12 pt under a 17 pt title), a date, a first section
HEADING_RUN_ON = 0.8
HEADER_LINES = 2  # small-type lines a title page may print above its title (a journal's header)


def _below_header(handle: object, total: int, large: float, size: Callable[[int], float]) -> int:
    """Where a title page's large type starts under up to ``HEADER_LINES`` lines of small type
    (a journal's header: ``MNRAS 000, 1-10 (2020) Preprint``, ``Proceedings of Machine Learning
    Research``), or 0 when the page opens otherwise."""
    import pypdfium2.raw as raw_api

    at = 0
    for _ in range(HEADER_LINES):
        if size(at) >= large:
            return at
        while at < min(total, 300) and raw_api.FPDFText_GetUnicode(handle, at) != 10:
            if size(at) >= large:
                return 0  # large type inside the first line: not a header over a title
            at += 1
        at += 1  # past the line's end
        if at >= min(total, 300):
            return 0
    return at if size(at) >= large else 0


def heading(textpage: object, header_lines: bool = False) -> str | None:
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
    start = _below_header(handle, total, large, size) if header_lines else 0
    end, limit = start, min(total, start + 400)
    lead = line_top = 0.0  # the first line's largest letters; the current line's
    line_start = start
    while end < limit:
        found = size(end)
        if 2 <= found < large:
            # a logo's small letter inside the heading (LaTeX's raised A) when large type
            # resumes right after it; else the heading ends here
            if not any(size(at) >= large for at in (end + 1, end + 2) if at < limit):
                break
        elif found < 2:  # a generated break: the line so far is done
            lead = lead or line_top
            line_start, line_top = end + 1, 0.0
        else:
            line_top = max(line_top, found)
            if lead and line_top < HEADING_RUN_ON * lead:
                end = line_start  # type smaller than the title's: the authors, a date
                break
        end += 1
    if end == start:
        return None
    lines = clean_page(textpage.get_text_range(start, end - start))  # type: ignore[attr-defined]
    return unspaced(" ".join(lines).replace(BREAK, ""))[:300] or None


_SPACED = re.compile(r"(?<!\S)(?:[^\W\d_] ){3,}[^\W\d_](?!\S)")  # C O N T E N T S: 4+ letters


def unspaced(text: str) -> str:
    """A letter-spaced heading joined (``C O N T E N T S`` -> ``CONTENTS``: theses' spaced small
    capitals, which PDFium reads as one letter a word); other words as they are."""
    return _SPACED.sub(lambda match: match[0].replace(" ", ""), text)


def _metadata(document: object) -> dict[str, str]:
    try:
        found = document.get_metadata_dict()  # type: ignore[attr-defined]
    except Exception:  # a broken info dictionary: the first page's words instead
        return {}
    return {k: str(v)[:1000] for k, v in found.items() if isinstance(v, str)}


class Extracted(NamedTuple):
    title: str | None
    pages: list[list[str]]  # the lines of each page
    headings: list[str | None]  # the heading that opens each page, or None
    info: dict[str, str]  # the metadata (``Author``, ``CreationDate``, ...), as read
    bookmarks: list[tuple[int, str]]  # the outline's top-level (page index, title)
    layout: list[Line]  # page 1's first lines with their type sizes and cells


def extract(raw: bytes, max_pages: int, budget_s: float) -> Extracted:
    """A PDF given as bytes, read; raises Unreadable."""
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
        layout: list[Line] = []
        for number in range(count):
            if time.monotonic() - started > budget_s:
                raise Unreadable(EXTRACT_TIMEOUT, f"over {budget_s:g} s at page {number + 1}")
            page = document[number]
            try:
                textpage = page.get_textpage()
                try:
                    pages.append(page_lines(textpage.get_text_range()))
                    headings.append(heading(textpage, header_lines=number == 0))
                    if number == 0:
                        layout = layout_lines(textpage)
                finally:
                    textpage.close()
            except pdfium.PdfiumError:
                pages.append([])  # one unreadable page: the others still count
                headings.append(None)
            finally:
                page.close()
        opening = headings[0] if headings else None
        info = _metadata(document)
        bookmarks = top_bookmarks(document)
        title = metadata_title(info) or (opening if plausible_heading(opening) else None)
    finally:
        document.close()
    if sum(len("".join(line.split())) for page in pages for line in page) < MIN_TEXT_CHARS:
        raise Unreadable(NO_TEXT, "no text layer (a scan? OCR is not done)")
    pages = drop_running_lines(resolve_breaks(pages))
    share = garbled_share(pages)
    if share > MAX_GARBLED_SHARE:
        raise Unreadable(
            GARBLED_TEXT,
            f"{share:.0%} of its text is control, private-use or unmapped characters (a broken "
            "font encoding; pdftotext or OCR may read it)",
        )
    if title is None:  # the first line, when it can stand for a title (not a figure's "-6 -4")
        line = next((ln for page in pages for ln in page if ln.strip()), "")
        first = unspaced(" ".join(line.split()))
        title = first[:300] if plausible_title(first) else None
    return Extracted(title, pages, headings, info, bookmarks, layout)
